"""The provider's answers to the host outside a turn: session switches, flushes, mirrored memory writes that
fail, status, setup and the recall indicator (the real SDK against the loopback Honcho server)."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from hermes_bundled_plugins.memory.honcho.provider import HonchoMemoryProvider
from hermes_bundled_plugins.memory.honcho.settings import CONFIG_SCHEMA
from hermes_core.memory.provider import RecallStatus


def stored(sdk: Any, session: str) -> list[str]:
    return [m.content for m in sdk.session(session).messages()]


# -- session switches --


def test_a_switch_sends_later_turns_to_the_new_session_and_keeps_the_turn_count(make_provider: Any, fake: Any, sdk: Any, turn: Any, workspace: str) -> None:
    provider = make_provider(writeFrequency="turn", sessionStrategy="per-session", injectionFrequency="first-turn")
    turn(provider, 1, "first question")
    provider.on_session_switch("branch-2", parent_session_id="20260415_a3f2b1")
    assert (provider.session_id, provider.session_name.name, provider.session_name.rule) == ("branch-2", "branch-2", "per-session")
    provider.prefetch("a question")  # no on_turn_start: this prefetch is turn 2, after the first: nothing injected
    assert len(fake.calls("POST", rf"/{workspace}/peers/[^/]+/chat$")) == 1  # asked once, for the first turn: the switch reset nothing
    provider.sync_turn("second question", "ok")
    assert provider.flush_writes(30)
    assert stored(sdk, "branch-2") == ["second question", "ok"]
    assert stored(sdk, "20260415_a3f2b1") == ["first question", "ok"]


def test_a_reset_starts_the_turns_and_the_recall_over(make_provider: Any, fake: Any, turn: Any) -> None:
    provider = make_provider(writeFrequency="turn", injectionFrequency="first-turn")
    turn(provider, 1, "first question")
    turn(provider, 2, "second question")
    assert len(provider._prefetcher.state.dialectic_runs) == 1  # the first turn only
    provider.on_session_switch("fresh", reset=True)
    assert provider._prefetcher.state.dialectic_runs == []  # nothing stale carried over
    provider.prefetch("a new start")  # the new conversation's first turn: fetched again
    assert [turn for turn, _ in provider._prefetcher.state.dialectic_runs] == [1]


def test_a_switch_with_a_title_names_the_session_after_it_and_one_without_keeps_the_title(make_provider: Any, sdk: Any) -> None:
    provider = make_provider(writeFrequency="turn")
    provider.on_session_switch("s2", title="Release plan")
    assert (provider.session_name.name, provider.session_name.rule) == ("Release-plan", "/title")
    provider.on_session_switch("s3")
    assert provider.session_name.name == "Release-plan"
    provider.sync_turn("after the switch", "ok")
    assert provider.flush_writes(30) and stored(sdk, "Release-plan") == ["after the switch", "ok"]


def test_an_inactive_provider_ignores_a_switch(hermes_home: Path) -> None:
    provider = HonchoMemoryProvider()
    provider.initialize("s1", hermes_home=str(hermes_home))  # no honcho.json: not active
    provider.on_session_switch("s2", title="x")
    assert (provider.session_id, provider.session_name.name) == ("s1", "")
    assert provider.system_prompt_block() == "" and provider.prefetch("q") == "" and provider.recall_status() is None


# -- flushes and mirrored memory writes --


def test_a_provider_that_never_started_has_nothing_to_flush() -> None:
    assert HonchoMemoryProvider().flush_writes(0.1) is True


def test_flush_waits_only_as_long_as_it_is_given(make_provider: Any, fake: Any, sdk: Any) -> None:
    provider = make_provider(writeFrequency="async")
    fake.fail("POST .*/messages$", 200, times=1, delay=1.5, body=b"[]")  # one slow answer (still in time for the client)
    provider.sync_turn("slow to store", "ok")
    assert provider.flush_writes(0.05) is False
    assert provider.flush_writes(30) is True


def test_failed_writes_make_one_flush_false_and_name_the_memory_file(make_provider: Any, fake: Any, caplog: pytest.LogCaptureFixture) -> None:
    provider = make_provider(writeFrequency="turn")
    fake.fail("POST .*/conclusions$", 422)
    fake.fail("POST .*/messages$", 422)
    with caplog.at_level(logging.WARNING, logger="hermes.plugins.honcho"):
        provider.on_memory_write("add", "user", "Eri prefers tea")
        provider.on_memory_write("add", "memory", "The build needs Python 3.11")
        provider.on_memory_write("add", "notes", "something else")
        provider.sync_turn("a turn that fails", "ok")
        assert provider.flush_writes(30) is False
    warned = [r.getMessage() for r in caplog.records if "not mirrored" in r.getMessage()]
    assert [w.split(":")[0:2] for w in warned] == [["honcho", " the new USER.md entry was not mirrored as a conclusion"],
                                                    ["honcho", " the new MEMORY.md entry was not mirrored as a conclusion"],
                                                    ["honcho", " the new notes entry was not mirrored as a conclusion"]]
    assert all("422" in w for w in warned)
    assert provider.flush_writes(30) is True  # each failure is reported once
    fake.heal()
    provider.on_memory_write("add", "user", "Eri prefers coffee")
    assert provider.flush_writes(30) is True
    fake.fail("POST .*/messages$", 422)
    provider.sync_turn("only the turn fails", "ok")  # one failed batch alone is reported too
    assert provider.flush_writes(30) is False


def test_a_failed_batch_and_a_failed_conclusion_are_both_counted(make_provider: Any, fake: Any) -> None:
    provider = make_provider(writeFrequency="turn")
    fake.fail("POST .*/messages$", 422, times=1)
    provider.sync_turn("fails", "ok")
    assert provider.flush_writes(30) is False
    fake.fail("POST .*/conclusions$", 422, times=1)
    fake.fail("POST .*/messages$", 422, times=1)
    provider.sync_turn("fails again", "ok")
    provider.on_memory_write("add", "user", "fails too")
    assert provider.flush_writes(30) is False
    fake.fail("POST .*/conclusions$", 422, times=1)
    provider.on_memory_write("add", "user", "a second conclusion failing later")  # each failure counts, not only the first
    assert provider.flush_writes(30) is False
    assert provider.flush_writes(30) is True


def test_an_empty_or_long_memory_entry(make_provider: Any, sdk: Any) -> None:
    provider = make_provider(writeFrequency="turn")
    provider.on_memory_write("add", "user", "")
    provider.on_memory_write("add", "user", None)  # type: ignore[arg-type]
    provider.on_memory_write("add", "user", "x" * 70_000)
    assert provider.flush_writes(30)
    (concluded,) = sdk.peer("hermes").conclusions_of("eri").list()
    assert concluded.content == "x" * 65535 and concluded.session_id == provider.session_name.name == "project"


# -- status, setup, recall indicator --


def test_status_details_and_a_bad_file(make_provider: Any, hermes_home: Path, workspace: str) -> None:
    provider = make_provider(writeFrequency="session")
    assert provider.status_details() == {"host": "hermes", "workspace": workspace, "session": "project", "recall": "hybrid", "writes": "session", "failed writes": 0}
    (hermes_home / "honcho.json").write_text('{"hosts": []}')  # broken while the session runs: reloaded, not cached
    details = provider.status_details()
    assert list(details) == ["config"] and "hosts must be an object" in details["config"]
    problems = provider.problems()
    assert len(problems) == 1 and "hosts must be an object" in problems[0]


def test_problems_name_stray_settings_and_the_writes_waiting(make_provider: Any, honcho_config: Any, hermes_home: Path) -> None:
    provider = make_provider(writeFrequency="turn")
    assert provider.problems() == []
    journal = provider.journal()
    journal.path.parent.mkdir(parents=True, exist_ok=True)
    entry = {"cause": "first cause", "messages": [{"session": "s", "peer": "eri", "content": "a", "metadata": {}}]}
    journal.path.write_text("".join(json.dumps(e) + "\n" for e in (
        entry, {**entry, "cause": "second cause"}, {**entry, "cause": "Honcho unreachable", "messages": entry["messages"] * 2})))
    honcho_config(root={"stray": 1})
    assert provider.problems() == [
        f"{hermes_home / 'honcho.json'}: stray is not a Honcho setting of hermes; it is ignored (settings: 'hermes honcho status')",
        f"4 message(s) in 3 write(s) failed to reach Honcho (last cause: Honcho unreachable); they are kept in {journal.path} "
        "and sent again when the next session starts",
    ]
    assert provider.status_details()["failed writes"] == 4


def test_check_connection_answers_empty_when_honcho_answers_and_names_the_cause_when_not(make_provider: Any, honcho_config: Any, hermes_home: Path) -> None:
    provider = make_provider()
    assert provider.check_connection() == ""
    honcho_config(root={"baseUrl": "http://127.0.0.1:9"})
    assert provider.check_connection().startswith("Honcho unreachable at http://127.0.0.1:9")
    (hermes_home / "honcho.json").unlink()
    assert provider.check_connection() == ""  # not configured: status says that already


def test_check_connection_reports_the_time_it_took(honcho_config: Any, hermes_home: Path) -> None:
    from hermes_bundled_plugins.memory.honcho.config import load_config
    from hermes_bundled_plugins.memory.honcho.status import check_connection

    honcho_config()
    result = check_connection(load_config(hermes_home))
    assert result["ok"] is True and isinstance(result["ms"], int) and 0 <= result["ms"] < 10_000 and set(result) == {"ok", "ms"}


def test_the_setup_fields_leave_out_the_key_when_the_file_holds_one(make_provider: Any, honcho_config: Any, hermes_home: Path) -> None:
    provider = make_provider()
    keys = [f["key"] for f in provider.get_config_schema()]
    assert "apiKey" not in keys and "peerName" in keys  # a local server needs none
    honcho_config(root={"baseUrl": "https://honcho.example.org"})
    assert [f["key"] for f in provider.get_config_schema()][0] == "apiKey"  # reloaded: a remote server needs one
    (hermes_home / "honcho.json").write_text("{ broken")
    assert provider.get_config_schema() == CONFIG_SCHEMA


def test_save_config_writes_the_host_block(hermes_home: Path) -> None:
    provider = HonchoMemoryProvider()
    provider.save_config({"peerName": "eri", "recallMode": "tools", "apiKey": "", "unknown": 1}, str(hermes_home))
    assert json.loads((hermes_home / "honcho.json").read_text()) == {"hosts": {"hermes": {"peerName": "eri", "recallMode": "tools"}}}


def test_post_setup_runs_the_wizard_and_says_where_it_wrote(hermes_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    answers = iter(["local", "", "eri", "context"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    HonchoMemoryProvider().post_setup(str(hermes_home), {})
    assert capsys.readouterr().out == f"Honcho settings written to {hermes_home / 'honcho.json'}\n"
    assert json.loads((hermes_home / "honcho.json").read_text())["hosts"]["hermes"] == {
        "baseUrl": "http://localhost:8000", "peerName": "eri", "recallMode": "context", "enabled": True}


def test_the_recall_indicator_counts_the_recalled_layers(make_provider: Any, fake: Any, workspace: str, turn: Any) -> None:
    fake.add_conclusion(workspace, "eri", "eri", "Eri deploys on Fridays")
    fake.chat_replies.append("Eri deploys on Fridays")
    provider = make_provider(writeFrequency="turn")
    assert provider.recall_status() is None  # nothing recalled yet
    recalled = turn(provider, 1, "when do I deploy?")
    layers = recalled.count("\n## ") + 1
    assert recalled and provider.recall_status() == RecallStatus("Honcho", layers)
    assert layers >= 2  # the base context and the dialectic answer


def test_the_recall_indicator_starts_empty_for_a_new_conversation(make_provider: Any, fake: Any, workspace: str,
                                                                   turn: Any, hermes_home: Path) -> None:
    fake.add_conclusion(workspace, "eri", "eri", "Eri deploys on Fridays")
    provider = make_provider(writeFrequency="turn")
    assert turn(provider, 1, "when do I deploy?") and provider.recall_status() is not None
    provider.on_session_switch("20260415_b4c5d6", reset=True)  # /new: nothing recalled for it yet
    assert provider.recall_status() is None
    assert turn(provider, 1, "when do I deploy?") and provider.recall_status() is not None
    provider.initialize("20260415_c7d8e9", hermes_home=str(hermes_home), platform="cli", agent_context="primary")
    assert provider.recall_status() is None


def test_inspection_starts_no_background_work_and_keeps_the_session_id(make_provider: Any, hermes_home: Path) -> None:
    make_provider()  # writes honcho.json
    inspected = HonchoMemoryProvider()
    inspected.initialize_for_inspection("inspect-1", hermes_home=str(hermes_home), platform="cli", agent_context="primary")
    assert inspected.session_id == "inspect-1" and inspected.prefetch_thread is None and inspected.replay_thread is None
    assert inspected.system_prompt_block().startswith("# Honcho memory")
    inspected.shutdown()
    assert inspected.system_prompt_block() == ""


# -- moving memories --


def test_export_records_each_conclusion_in_full_and_a_peer_without_any_by_its_representation(make_provider: Any, fake: Any, workspace: str, sdk: Any) -> None:
    from datetime import datetime

    fake.add_conclusion(workspace, "hermes", "eri", "Eri prefers metric units")
    fake.add_conclusion(workspace, "hermes", "hermes", "  I answer tersely  ")
    provider = make_provider()
    (stored_conclusion,) = sdk.peer("hermes").conclusions_of("eri").list()
    records = provider.export_memories()
    assert records[0] == {
        "text": "Eri prefers metric units", "kind": "conclusion", "peer": "user",
        "created_at": stored_conclusion.created_at.isoformat(), "source": f"honcho:{workspace}:conclusion:{stored_conclusion.id}",
        "metadata": {"observer": "hermes", "observed": "eri", "user": "eri"},
    }
    assert isinstance(records[0]["created_at"], str) and datetime.fromisoformat(records[0]["created_at"])
    assert records[1]["peer"] == "assistant" and records[1]["metadata"] == {"observer": "hermes", "observed": "hermes", "user": "eri"}
    assert len(records) == 2


def test_export_falls_back_to_the_representation_of_a_peer_without_conclusions(make_provider: Any, fake: Any, workspace: str) -> None:
    fake.add_conclusion(workspace, "eri", "eri", "Eri is a night owl")  # the user's own view: not a conclusion of the AI peer
    provider = make_provider()
    records = provider.export_memories()
    (profile,) = records  # the AI peer has no representation of itself either: nothing for it
    assert profile["kind"] == "profile" and "Eri is a night owl" in profile["text"] and profile["text"] == profile["text"].strip()
    assert {k: v for k, v in profile.items() if k != "text"} == {
        "kind": "profile", "peer": "user", "created_at": None, "source": f"honcho:{workspace}:representation:eri",
        "metadata": {"observed": "eri", "user": "eri"},
    }


def test_import_sorts_records_by_peer_and_links_them_to_the_session(make_provider: Any, fake: Any, sdk: Any, workspace: str) -> None:
    from dataclasses import dataclass

    @dataclass
    class Bare:  # a record object with a text and nothing else
        text: str

    provider = make_provider()
    records = [{"text": "about the user"}, {"text": "said by the ai", "peer": "ai"}, {"text": "the ai peer's own", "peer": "hermes"},
               {"text": "by the user field", "user": "assistant"}, Bare("a bare record"), {"text": "y" * 70_000, "peer": "user"}]
    assert provider.import_memories(records) == 6
    listed = fake.calls("POST", rf"/{workspace}/conclusions/list$")
    assert listed and all(r.query.get("size") == "100" for r in listed)  # what is held is read 100 at a time
    about_user = sdk.peer("hermes").conclusions_of("eri").list()
    about_ai = sdk.peer("hermes").conclusions.list()
    assert sorted(c.content for c in about_user) == sorted(["about the user", "a bare record", "y" * 65535])
    assert sorted(c.content for c in about_ai) == ["by the user field", "said by the ai", "the ai peer's own"]
    assert {c.session_id for c in [*about_user, *about_ai]} == {provider.session_name.name}


def test_import_and_export_start_an_idle_provider_and_refuse_when_honcho_is_not_set_up(hermes_home: Path, honcho_config: Any, sdk: Any) -> None:
    import os

    from hermes_bundled_plugins.memory.honcho.client import HonchoCallError

    idle = HonchoMemoryProvider()
    with pytest.raises(HonchoCallError, match=r"^Honcho is not available: Honcho is not configured: no apiKey or baseUrl -> ") as refused:
        idle.import_memories([{"text": "x"}])
    assert refused.value.retryable is False
    honcho_config()
    journal = idle.journal()
    journal.record([], "nothing")  # an empty entry: the replay at the start has something to look at
    assert idle.import_memories([{"text": "Eri likes tea"}]) == 1
    assert idle.session_id == f"hermes-{os.getpid()}" and idle.replay_thread is not None  # started as the primary agent
    idle.replay_thread.join(30)
    assert [c.content for c in sdk.peer("hermes").conclusions_of("eri").list()] == ["Eri likes tea"]
    idle.shutdown()


def test_a_tool_call_before_honcho_is_active_is_answered_with_the_reason(hermes_home: Path, honcho_config: Any) -> None:
    provider = HonchoMemoryProvider()
    assert json.loads(provider.handle_tool_call("honcho_profile", {})) == {
        "error": "Honcho is not active: Honcho is not configured: no apiKey or baseUrl -> run 'hermes honcho setup' (or set HONCHO_API_KEY)"}
    honcho_config()
    assert json.loads(provider.handle_tool_call("honcho_profile", {})) == {"error": "Honcho is not active: initialize() was not called"}


def test_the_conclude_tool_links_the_conclusion_to_the_session(make_provider: Any, sdk: Any) -> None:
    provider = make_provider()
    json.loads(provider.handle_tool_call("honcho_conclude", {"conclusion": "Eri reviews on Mondays"}))
    (concluded,) = sdk.peer("hermes").conclusions_of("eri").list()
    assert concluded.session_id == provider.session_name.name == "project"


def test_the_next_turn_is_fetched_ahead_with_its_message(make_provider: Any, fake: Any, workspace: str) -> None:
    fake.add_conclusion(workspace, "eri", "eri", "Eri is a night owl")  # a base context: the dialectic asks about the message
    provider = make_provider(writeFrequency="turn")
    provider.prefetch_thread.join(30)  # the first turn's fetch, started at initialize
    assert "Current message" not in fake.calls("POST", rf"/{workspace}/peers/[^/]+/chat$")[-1].body["query"]  # none typed yet
    provider.on_turn_start(1, "first")
    provider.prefetch("first")
    provider.queue_prefetch("what about the release?")
    thread = provider.prefetch_thread
    assert thread is not None and thread.name == "honcho-prefetch"
    thread.join(30)
    assert list(provider._prefetcher.state.ready) == [2]
    assert "what about the release?" in fake.calls("POST", rf"/{workspace}/peers/[^/]+/chat$")[-1].body["query"]
    provider.queue_prefetch("the same turn again")  # turn 2 is ready already: nothing new, the thread is kept
    assert provider.prefetch_thread is thread
    provider.on_turn_start(2, "what about the release?")
    provider.prefetch("what about the release?")
    provider.queue_prefetch("")
    provider.prefetch_thread.join(30)
    assert list(provider._prefetcher.state.ready) == [3]
    assert "Current message" not in fake.calls("POST", rf"/{workspace}/peers/[^/]+/chat$")[-1].body["query"]  # no message: none quoted
    provider.on_turn_start(3, "")
    provider.prefetch("")  # takes what was fetched ahead for turn 3
    chats = len(fake.calls("POST", rf"/{workspace}/peers/[^/]+/chat$"))
    provider.shutdown()
    provider.queue_prefetch("after the end")
    provider.prefetch_thread.join(30)  # a fetch it had started would be done by now
    provider.on_turn_start(4, "after the end")
    assert provider.prefetch("after the end") == ""
    assert len(fake.calls("POST", rf"/{workspace}/peers/[^/]+/chat$")) == chats  # a provider shut down asks Honcho nothing


def test_each_stored_message_says_where_it_came_from(make_provider: Any, sdk: Any) -> None:
    provider = make_provider(writeFrequency="turn")
    provider.sync_turn("", "an answer to nothing")
    provider.sync_turn("second", "two", session_id="20260415_a3f2b1")
    messages = sdk.session("project").messages()
    assert [m.content for m in messages] == ["an answer to nothing", "second", "two"]
    first, second, third = (m.metadata for m in messages)
    assert {k: v for k, v in first.items() if k != "hermes_turn"} == {"source": "hermes", "hermes_session_id": "20260415_a3f2b1", "hermes_part": 0}
    assert first["hermes_turn"] and second["hermes_turn"] == third["hermes_turn"] != first["hermes_turn"]
    assert (second["hermes_part"], third["hermes_part"]) == (0, 1)


def test_another_sessions_turn_goes_to_its_own_prefixed_session(make_provider: Any, sdk: Any) -> None:
    provider = make_provider(writeFrequency="turn", sessionStrategy="per-session", sessionPeerPrefix=True)
    assert provider.session_name.name == "eri-20260415_a3f2b1"
    provider.sync_turn("from an older session", "ok", session_id="20250101_old")
    assert [m.content for m in sdk.session("eri-20250101_old").messages()] == ["from an older session", "ok"]


def test_a_replayed_turn_honcho_holds_already_is_not_sent_again(make_provider: Any, sdk: Any) -> None:
    first = make_provider(writeFrequency="turn")
    first.sync_turn("an old question", "an old answer", source="state.db:7")
    first.shutdown()
    again = make_provider(writeFrequency="turn")  # a new connection: it does not know what the session holds
    again.sync_turn("an old question", "an old answer", source="state.db:7")
    assert [m.content for m in sdk.session("project").messages()] == ["an old question", "an old answer"]


def test_a_host_without_turn_starts_counts_each_prefetch_as_a_turn(make_provider: Any, fake: Any, workspace: str) -> None:
    fake.add_conclusion(workspace, "eri", "eri", "Eri is a night owl")
    provider = make_provider(writeFrequency="turn", injectionFrequency="first-turn")
    provider.prefetch_thread.join(30)
    assert "night owl" in provider.prefetch("hello")  # turn 1: injected
    assert provider.prefetch("and then?") == ""  # turn 2: first-turn injects nothing
    assert provider.prefetch("and then?") == ""  # turn 3


def test_a_turn_fetched_now_quotes_its_message_to_the_dialectic(make_provider: Any, fake: Any, workspace: str) -> None:
    fake.add_conclusion(workspace, "eri", "eri", "Eri is a night owl")  # a base context: the warm prompt quotes the message
    provider = make_provider(writeFrequency="turn")
    provider.prefetch_thread.join(30)
    provider.prefetch("hello")  # turn 1, fetched ahead at initialize
    provider.prefetch("what about the release?")  # turn 2, nothing fetched ahead: asked now
    assert fake.calls("POST", rf"/{workspace}/peers/[^/]+/chat$")[-1].body["query"].endswith("Current message: what about the release?")
    provider.prefetch("")
    assert "Current message" not in fake.calls("POST", rf"/{workspace}/peers/[^/]+/chat$")[-1].body["query"]


def test_a_session_keeps_the_settings_it_started_with(make_provider: Any, honcho_config: Any) -> None:
    provider = make_provider()
    honcho_config(root={"peerName": "someone-else"})  # edited while the session runs
    assert provider.config().peerName == "eri" and provider.config() is provider.config()
    assert provider.config(reload=True).peerName == "someone-else"


def test_the_environment_and_user_home_given_to_the_provider_are_the_ones_read(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / ".honcho").mkdir(parents=True)
    (elsewhere / ".honcho" / "config.json").write_text(json.dumps({"workspace": "from-the-given-home", "baseUrl": "https://honcho.example.com"}))
    provider = HonchoMemoryProvider(env={"HONCHO_API_KEY": "hk_given"}, user_home=elsewhere)
    assert provider.unavailable_reason() == ""
    config = provider.config()
    assert (config.workspace, config.api_key, config.path) == ("from-the-given-home", "hk_given", elsewhere / ".honcho" / "config.json")


def test_honcho_cloud_without_a_key_is_named_with_the_fix(hermes_home: Path) -> None:
    (hermes_home / "honcho.json").write_text(json.dumps({"enabled": True}))
    assert HonchoMemoryProvider().unavailable_reason() == (
        "Honcho cloud needs an API key -> set apiKey in honcho.json or HONCHO_API_KEY (hermes honcho setup)")


def test_shutdown_waits_for_the_first_turns_fetch_still_running(make_provider: Any, fake: Any) -> None:
    """A fetch still in an HTTP call when the interpreter exits can abort it: shutdown lets it end first."""
    fake.delay = 0.5  # every answer is late: the fetch started at initialize is still running below
    provider = make_provider()
    thread = provider.prefetch_thread
    assert thread is not None and thread.is_alive()
    provider.shutdown()
    assert not thread.is_alive()


def test_check_connection_reports_milliseconds(honcho_config: Any, hermes_home: Path, fake: Any) -> None:
    from hermes_bundled_plugins.memory.honcho.config import load_config
    from hermes_bundled_plugins.memory.honcho.status import check_connection

    honcho_config()
    fake.delay = 0.3  # every answer: the check makes two calls
    result = check_connection(load_config(hermes_home))
    assert result["ok"] is True and 600 <= result["ms"] < 10_000


def test_save_config_writes_where_the_providers_environment_and_home_say(hermes_home: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "another_home"
    (elsewhere / ".honcho").mkdir(parents=True)
    (elsewhere / ".honcho" / "config.json").write_text('{"workspace": "shared"}')
    provider = HonchoMemoryProvider(env={"HERMES_HONCHO_HOST": "hermes.work"}, user_home=elsewhere)
    provider.save_config({"peerName": "eri"}, str(hermes_home))
    assert not (hermes_home / "honcho.json").exists()  # the file in use is the user's ~/.honcho/config.json
    assert json.loads((elsewhere / ".honcho" / "config.json").read_text()) == {"workspace": "shared", "hosts": {"hermes.work": {"peerName": "eri"}}}


def test_a_gateway_key_names_the_session_only_on_a_chat_platform(make_provider: Any) -> None:
    assert make_provider(init={"platform": "cli", "gateway_session_key": "agent:main:x"}).session_name.name == "project"
    assert make_provider(init={"platform": "telegram"}).session_name == make_provider().session_name  # no key: the strategy decides


def test_the_journal_follows_the_home_of_the_latest_start(make_provider: Any, hermes_home: Path, tmp_path: Path) -> None:
    provider = make_provider()
    assert provider.journal().path == hermes_home / "honcho" / "failed_writes.jsonl"
    other = tmp_path / "other_home"
    other.mkdir()
    (other / "honcho.json").write_text((hermes_home / "honcho.json").read_text())
    provider.initialize("s2", hermes_home=str(other), platform="cli")
    assert provider.journal().path == other / "honcho" / "failed_writes.jsonl"


def test_the_session_end_waits_for_a_slow_write(make_provider: Any, fake: Any, sdk: Any) -> None:
    provider = make_provider(writeFrequency="async")  # timeout 2 s: the end waits up to three times that
    fake.fail("POST .*/messages$", 200, times=1, delay=1.5, body=b"[]")  # slow, still in time (answers nothing)
    provider.sync_turn("slow to store", "ok")
    provider.on_session_end([])
    assert provider._writer.sent_batches == 1  # the end waited until Honcho answered (1.5 s), not a third of the timeout


def test_a_profile_given_at_start_picks_its_host_block(make_provider: Any, hermes_home: Path) -> None:
    make_provider()
    data = json.loads((hermes_home / "honcho.json").read_text())
    data["hosts"]["hermes.coder"] = {"aiPeer": "coder"}
    (hermes_home / "honcho.json").write_text(json.dumps(data))
    provider = HonchoMemoryProvider()
    provider.initialize("s1", hermes_home=str(hermes_home), platform="cli", agent_context="subagent", profile="coder")
    assert (provider.config().host, provider.ai_peer) == ("hermes.coder", "coder")
    provider.shutdown()


def test_a_provider_that_cannot_start_says_why_in_the_log(hermes_home: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="hermes.plugins.honcho"):
        HonchoMemoryProvider().initialize("s1", hermes_home=str(hermes_home))
    assert [r.getMessage() for r in caplog.records] == [
        "honcho: not active: Honcho is not configured: no apiKey or baseUrl -> run 'hermes honcho setup' (or set HONCHO_API_KEY)"]


def test_the_start_logs_config_warnings_names_the_peers_and_takes_the_platform_user(make_provider: Any, caplog: pytest.LogCaptureFixture, hermes_home: Path) -> None:
    with caplog.at_level(logging.WARNING, logger="hermes.plugins.honcho"):
        provider = make_provider(root={"peerName": None, "stray": 1}, init={"user_id": "tg:84391"})
    assert f"honcho: {hermes_home / 'honcho.json'}: stray is not a Honcho setting of hermes; it is ignored (settings: 'hermes honcho status')" in [
        r.getMessage() for r in caplog.records]
    assert provider.user_peer == "tg-84391"
    assert "(you are peer 'hermes', the user is peer 'tg-84391')" in provider.system_prompt_block()


def test_a_sub_agent_start_fetches_nothing_ahead(make_provider: Any) -> None:
    provider = make_provider(init={"agent_context": "subagent"})
    assert provider.prefetch_thread is None and provider.replay_thread is None
    assert make_provider(root={"peerName": None}).user_peer == "user"  # no name and no platform user
