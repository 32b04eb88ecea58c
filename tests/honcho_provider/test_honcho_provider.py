"""The provider over the real SDK: injection, writes, sessions, observation, tools, export/import."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from hermes_bundled_plugins.memory.honcho.writer import CONTINUED, chunk_message
from hermes_core.memory.fence import build_memory_context_block


def stored(sdk: Any, session: str) -> list[tuple[str, str]]:
    return [(m.peer_id, m.content) for m in sdk.session(session).messages()]


# -- injection --


def test_base_context_and_dialectic_are_injected_in_order(make_provider: Any, fake: Any, workspace: str, sdk: Any, turn: Any) -> None:
    fake.add_conclusion(workspace, "eri", "eri", "Eri is a night owl")
    fake.add_conclusion(workspace, "hermes", "hermes", "Hermes answers tersely")
    fake.chat_replies.append("Eri is refactoring the auth module")
    sdk.peer("eri").set_card(["Name: Eri"])
    fake.set_summary(workspace, "project", "Discussed auth refactor")  # all in place before the session starts fetching
    provider = make_provider(writeFrequency="turn")
    assert provider.session_name.name == "project"
    text = turn(provider, 1, "where were we?")
    order = ["## Session summary", "Discussed auth refactor", "## User representation", "night owl", "## User peer card", "Name: Eri",
             "## AI self-representation", "answers tersely", "## Dialectic", "refactoring the auth module"]
    positions = [text.index(part) for part in order]
    assert positions == sorted(positions)
    chat = fake.calls("POST", f"{workspace}/peers/hermes/chat")[0]
    assert chat.body["target"] == "eri" and chat.body["reasoning_level"] == "low"
    assert chat.body["query"].startswith("Given what's been discussed")  # base context existed: warm prompt


def test_context_tokens_truncate_the_joined_layers(make_provider: Any, fake: Any, workspace: str, turn: Any) -> None:
    for index in range(40):
        fake.add_conclusion(workspace, "eri", "eri", f"fact number {index} about the user")
    provider = make_provider(contextTokens=50, writeFrequency="turn")
    text = turn(provider, 1, "hello there")
    assert 0 < len(text) <= 200 and not text.endswith("numb")
    context = fake.calls("GET", f"{workspace}/sessions/.*/context")[0]
    assert context.query["tokens"] == "50"


def test_the_system_prompt_block_is_a_static_mode_header(make_provider: Any, turn: Any) -> None:
    provider = make_provider(writeFrequency="turn")
    header = provider.system_prompt_block()
    assert header.startswith("# Honcho memory") and "memory-context blocks" in header and "<memory-context>" not in header and "honcho_conclude" in header
    turn(provider, 1, "my name is Eri")
    provider.on_session_switch("next-session", parent_session_id="20260415_a3f2b1")
    assert provider.system_prompt_block() == header
    assert "honcho_profile" not in make_provider(recallMode="context").system_prompt_block()


# -- writes --


def test_async_writes_are_ordered_and_drained_at_session_end(make_provider: Any, sdk: Any, turn: Any) -> None:
    provider = make_provider()
    for number in range(1, 6):
        turn(provider, number, f"user message {number}", f"answer {number}")
    provider.on_session_end([])
    expected = [m for n in range(1, 6) for m in (("eri", f"user message {n}"), ("hermes", f"answer {n}"))]
    assert stored(sdk, provider.session_name.name) == expected


@pytest.mark.parametrize(("frequency", "sent_after_turn"), [("turn", [2, 4, 6]), ("session", [0, 0, 0]), (2, [0, 4, 4])])
def test_write_frequency_modes(make_provider: Any, sdk: Any, turn: Any, frequency: Any, sent_after_turn: list[int]) -> None:
    provider = make_provider(writeFrequency=frequency)
    name = provider.session_name.name
    counts = []
    for number in range(1, 4):
        turn(provider, number, f"q{number}", f"a{number}")
        counts.append(len(stored(sdk, name)))
    assert counts == sent_after_turn
    provider.on_session_end([])
    assert len(stored(sdk, name)) == 6


def test_replayed_turns_keep_their_time_and_their_session(make_provider: Any, sdk: Any) -> None:
    provider = make_provider(sessionStrategy="per-session", writeFrequency="turn")
    provider.sync_turn("an old question", "an old answer", session_id="20250101_oldone", timestamp=1735732800.0, source="session:20250101_oldone:message:1")
    provider.sync_turn("today", "yes")
    old = sdk.session("20250101_oldone").messages()
    assert [m.content for m in old] == ["an old question", "an old answer"]
    assert old[0].created_at.isoformat().startswith("2025-01-01T12:00:00") and old[0].metadata["hermes_source"] == "session:20250101_oldone:message:1"
    assert [m.content for m in sdk.session(provider.session_name.name).messages()] == ["today", "yes"]


def test_save_messages_false_sends_nothing(make_provider: Any, sdk: Any, turn: Any) -> None:
    provider = make_provider(saveMessages=False, writeFrequency="turn")
    turn(provider, 1, "secret plans", "noted")
    assert stored(sdk, provider.session_name.name) == []


def test_long_messages_are_chunked_with_continued_markers(make_provider: Any, sdk: Any, turn: Any) -> None:
    provider = make_provider(messageMaxChars=120, writeFrequency="turn")
    long_text = " ".join(f"word{i}" for i in range(80))
    turn(provider, 1, long_text, "short")
    pieces = [content for peer, content in stored(sdk, provider.session_name.name) if peer == "eri"]
    assert len(pieces) > 1 and all(len(p) <= 120 for p in pieces)
    assert all(p.startswith(CONTINUED) for p in pieces[1:]) and not pieces[0].startswith(CONTINUED)
    assert " ".join(p.removeprefix(CONTINUED) for p in pieces).split() == long_text.split()
    assert chunk_message("x" * 300, 100)[1].startswith(CONTINUED)  # no spaces: hard cuts, still within the limit
    assert all(len(p) <= 100 for p in chunk_message("x" * 300, 100))


def test_leaked_memory_context_is_stripped_before_storing(make_provider: Any, sdk: Any, turn: Any) -> None:
    provider = make_provider(writeFrequency="turn")
    leaked = build_memory_context_block("## User representation\nEri likes tea") + "\nactual question"
    turn(provider, 1, leaked, "answer " + build_memory_context_block("echo"))
    texts = [content for _, content in stored(sdk, provider.session_name.name)]
    assert texts == ["actual question", "answer"]


def test_sub_agent_turns_are_not_stored(make_provider: Any, sdk: Any, turn: Any) -> None:
    provider = make_provider(writeFrequency="turn", init={"agent_context": "subagent"})
    turn(provider, 1, "internal step", "done")
    assert stored(sdk, provider.session_name.name) == []


# -- sessions and observation --


def test_session_names_follow_the_priority_chain(make_provider: Any, tmp_path: Path) -> None:
    project = tmp_path / "project"
    assert make_provider().session_name.name == "project"
    assert make_provider(sessionStrategy="per-session").session_name.name == "20260415_a3f2b1"
    assert make_provider(sessionStrategy="per-session", session_id="").session_name.rule == "per-directory (fallback of per-session)"
    assert make_provider(sessionStrategy="global").session_name.name.startswith("ws-")
    assert make_provider(sessionPeerPrefix=True).session_name.name == "eri-project"
    gateway = make_provider(init={"platform": "telegram", "gateway_session_key": "agent:main:telegram:dm:8439114563"})
    assert gateway.session_name.name == "agent-main-telegram-dm-8439114563"
    titled = make_provider(init={"title": "refactor auth"})
    assert titled.session_name.name == "refactor-auth"
    mapped = make_provider(sessions={str(project): "myproject-main"}, init={"title": "ignored"})
    assert (mapped.session_name.name, mapped.session_name.rule) == ("myproject-main", "manual map (sessions)")
    renamed = make_provider()
    renamed.on_session_title("Sprint 12 review")
    assert renamed.session_name.name == "Sprint-12-review"


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_per_repo_uses_the_git_root_name_from_a_subdirectory(make_provider: Any, tmp_path: Path) -> None:
    repo = tmp_path / "hermes-agent"
    (repo / "src" / "deep").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    provider = make_provider(sessionStrategy="per-repo", init={"cwd": str(repo / "src" / "deep")})
    assert (provider.session_name.name, provider.session_name.rule) == ("hermes-agent", "per-repo")
    outside = make_provider(sessionStrategy="per-repo", init={"cwd": str(tmp_path / "project")})
    assert outside.session_name.rule == "per-directory (fallback of per-repo)"


@pytest.mark.parametrize(
    ("settings", "user", "ai"),
    [
        ({}, (True, True), (True, True)),
        ({"observationMode": "unified"}, (True, False), (False, True)),
        ({"observationMode": "unified", "observation": {"user": {"observeMe": True, "observeOthers": False}, "ai": {"observeMe": True, "observeOthers": True}}}, (True, False), (True, True)),
    ],
)
def test_observation_reaches_the_session_peer_config(make_provider: Any, sdk: Any, turn: Any, settings: dict, user: tuple, ai: tuple) -> None:
    provider = make_provider(writeFrequency="turn", **settings)
    turn(provider, 1, "hello there")
    session = sdk.session(provider.session_name.name)
    got = {p: session.get_peer_configuration(p) for p in ("eri", "hermes")}
    assert (got["eri"].observe_me, got["eri"].observe_others) == user
    assert (got["hermes"].observe_me, got["hermes"].observe_others) == ai


# -- tools --


@pytest.mark.parametrize(("mode", "tools"), [("hybrid", 5), ("auto", 5), ("tools", 5), ("context", 0)])
def test_tool_visibility_follows_recall_mode(make_provider: Any, mode: str, tools: int) -> None:
    names = [s["name"] for s in make_provider(recallMode=mode).get_tool_schemas()]
    assert len(names) == tools
    if tools:
        assert names == ["honcho_profile", "honcho_search", "honcho_context", "honcho_reasoning", "honcho_conclude"]


def call(provider: Any, name: str, **args: Any) -> dict[str, Any]:
    return json.loads(provider.handle_tool_call(name, args))


def test_conclude_profile_search_and_context_tools(make_provider: Any, sdk: Any, turn: Any) -> None:
    provider = make_provider(writeFrequency="turn")
    turn(provider, 1, "I deploy with canary releases", "noted")
    saved = call(provider, "honcho_conclude", conclusion="  Eri deploys with canary releases  ")
    assert saved["saved"] == "Eri deploys with canary releases"
    about_me = call(provider, "honcho_conclude", conclusion="I keep answers short", peer="ai")
    assert [c.content for c in sdk.peer("hermes").conclusions_of("eri").list()] == ["Eri deploys with canary releases"]
    assert [c.content for c in sdk.peer("hermes").conclusions.list()] == ["I keep answers short"]
    assert call(provider, "honcho_conclude", conclusion="   ")["error"].startswith("give a conclusion")
    assert "error" in call(provider, "honcho_conclude", delete_id=" \t ")
    assert call(provider, "honcho_conclude", delete_id=about_me["id"], peer="ai")["deleted"] == about_me["id"]
    assert list(sdk.peer("hermes").conclusions.list()) == []
    sdk.peer("eri").set_card(["Name: Eri", "Role: SRE"])
    assert call(provider, "honcho_profile")["card"] == ["Name: Eri", "Role: SRE"]
    assert call(provider, "honcho_profile", peer="  ")["peer"] == "user"  # whitespace-only: the default
    assert "error" in call(provider, "honcho_profile", peer="bob")
    context = call(provider, "honcho_context")
    assert context["messages"][0] == {"peer": "eri", "content": "I deploy with canary releases"}
    assert call(provider, "honcho_search", query="  ")["error"].startswith("query is empty")


def test_search_budget_default_and_hard_cap(make_provider: Any, fake: Any, workspace: str) -> None:
    for index in range(400):
        fake.add_conclusion(workspace, "eri", "eri", f"deploy fact {index} with several words")
    provider = make_provider()
    default = call(provider, "honcho_search", query="deploy")
    capped = call(provider, "honcho_search", query="deploy", max_tokens=99_999)
    assert default["max_tokens"] == 800 and len(default["results"]) <= 800 * 4
    assert capped["max_tokens"] == 2000 and 800 * 4 < len(capped["results"]) <= 2000 * 4


def test_reasoning_levels_follow_dynamic_and_cap(make_provider: Any, fake: Any, workspace: str) -> None:
    fake.chat_replies.extend(["one", "two", "three"])
    dynamic = make_provider(reasoningLevelCap="medium", recallMode="tools")  # tools only: no recall uses the replies
    assert call(dynamic, "honcho_reasoning", query="what is Eri's role?", reasoning_level="high")["reasoning_level"] == "medium"
    assert call(dynamic, "honcho_reasoning", query="and now?", reasoning_level="minimal")["answer"] == "two"
    fixed = make_provider(dialecticDynamic=False, dialecticReasoningLevel="medium", recallMode="tools")
    assert call(fixed, "honcho_reasoning", query="q", reasoning_level="max")["reasoning_level"] == "medium"
    levels = [r.body["reasoning_level"] for r in fake.calls("POST", f"{workspace}/peers/eri/chat")]
    assert levels == ["medium", "minimal", "medium"]


def test_built_in_memory_additions_become_conclusions(make_provider: Any, sdk: Any) -> None:
    from hermes_core.memory.manager import MemoryManager

    provider = make_provider(writeFrequency="turn")
    manager = MemoryManager()
    manager.add_provider(provider)
    manager.on_memory_write("add", "user", "Eri prefers metric units", {"tool_name": "memory"})
    manager.on_memory_write("add", "memory", "The deploy script lives in ops/deploy.sh")
    manager.on_memory_write("remove", "user", "Eri prefers metric units")
    assert provider.flush_writes(30)
    assert [c.content for c in sdk.peer("hermes").conclusions_of("eri").list()] == ["Eri prefers metric units"]
    assert [c.content for c in sdk.peer("hermes").conclusions.list()] == ["The deploy script lives in ops/deploy.sh"]


# -- moving memories --


def test_export_and_import_round_trip(make_provider: Any, workspace: str) -> None:
    from dataclasses import dataclass

    source = make_provider()
    call(source, "honcho_conclude", conclusion="Eri prefers metric units")
    call(source, "honcho_conclude", conclusion="I answer in English", peer="ai")
    records = source.export_memories()
    assert {(r["peer"], r["text"], r["kind"]) for r in records} == {("user", "Eri prefers metric units", "conclusion"), ("assistant", "I answer in English", "conclusion")}
    assert all(r["metadata"]["user"] == "eri" and r["source"].startswith(f"honcho:{workspace}:conclusion:") and r["created_at"] for r in records)
    assert len({r["source"] for r in records}) == 2

    @dataclass
    class Record:  # the shape a host's record type has: attributes, not keys
        text: str
        peer: str = "user"

    target = make_provider(aiPeer="coder")
    imported = target.import_memories([*records, {"text": "   "}, Record("Eri uses vim"), Record("Eri uses vim")])
    assert imported == 3
    assert target.import_memories(records) == 0  # already held: nothing added twice
    texts = {(r["peer"], r["text"]) for r in target.export_memories()}
    assert texts == {("user", "Eri prefers metric units"), ("user", "Eri uses vim"), ("assistant", "I answer in English")}


def test_two_profiles_share_one_workspace_with_two_ai_peers(server: Any, sdk: Any, workspace: str, user_home: Path, turn: Any) -> None:
    from hermes_bundled_plugins.memory.honcho.provider import HonchoMemoryProvider

    real_key = os.environ.get("HONCHO_TEST_API_KEY", "").strip()

    base = user_home / ".hermes"
    coder_home = base / "profiles" / "coder"
    coder_home.mkdir(parents=True)
    shared = {
        "baseUrl": server.base_url, "workspace": workspace, "peerName": "eri", "writeFrequency": "turn", "timeout": 2,
        "hosts": {
            "hermes": {"aiPeer": "hermes", "recallMode": "hybrid", "sessionStrategy": "per-directory"},
            "hermes.coder": {"aiPeer": "coder", "recallMode": "tools", "sessionStrategy": "per-repo"},
        },
        **({"apiKey": real_key} if real_key else {}),
    }
    (base / "honcho.json").write_text(json.dumps(shared))
    main, coder = HonchoMemoryProvider(), HonchoMemoryProvider()
    main.initialize("s-main", hermes_home=str(base), platform="cli", cwd=str(user_home))
    coder.initialize("s-coder", hermes_home=str(coder_home), platform="cli", cwd=str(user_home))
    try:
        assert (main.ai_peer, coder.ai_peer, main.user_peer, coder.user_peer) == ("hermes", "coder", "eri", "eri")
        turn(main, 1, "I am planning a trip to Lisbon", "Have fun")
        assert turn(coder, 1, "fix the flaky test", "done") == ""  # tools mode: nothing injected
        call(main, "honcho_conclude", conclusion="Eri is travelling to Lisbon")
        call(coder, "honcho_conclude", conclusion="Eri writes Python with type hints")
        assert [c.content for c in sdk.peer("hermes").conclusions_of("eri").list()] == ["Eri is travelling to Lisbon"]
        assert [c.content for c in sdk.peer("coder").conclusions_of("eri").list()] == ["Eri writes Python with type hints"]
        assert {p.id for p in sdk.peers()} >= {"eri", "hermes", "coder"}
        assert len(main.get_tool_schemas()) == len(coder.get_tool_schemas()) == 5
    finally:
        main.shutdown()
        coder.shutdown()


# -- the connection: peers and sessions made once, a dead server not waited on every turn --


@pytest.fixture
def connect(fake: Any, hermes_home: Path, workspace: str) -> Any:
    """``connect(**settings)``: a HonchoConnection of peers eri and hermes over the real SDK."""
    from hermes_bundled_plugins.memory.honcho.client import HonchoBackend
    from hermes_bundled_plugins.memory.honcho.config import load_config
    from hermes_bundled_plugins.memory.honcho.connection import HonchoConnection

    def make(**settings: Any) -> Any:
        (hermes_home / "honcho.json").write_text(json.dumps({"baseUrl": fake.base_url, "workspace": workspace, "timeout": 2, **settings}))
        config = load_config(hermes_home, {})
        return HonchoConnection(HonchoBackend(config), lambda: config, "eri", "hermes")

    return make


def test_peers_and_a_session_are_made_once_with_each_peers_observation(connect: Any, fake: Any, workspace: str) -> None:
    link = connect(observationMode="unified")
    user, ai, session = link.connected("s1")
    assert (user.id, ai.id, session.id) == ("eri", "hermes", "s1")
    assert link.connected("s1")[2] is session  # kept: no request the second time
    link.connected("s2")
    made = [(r.path.rsplit("/", 1)[-1], r.body) for r in fake.calls("POST", f"{workspace}/(peers|sessions)$")]
    assert made == [
        ("peers", {"id": "eri"}), ("peers", {"id": "hermes"}),
        ("sessions", {"id": "s1", "peers": {"eri": {"observe_me": True, "observe_others": False}, "hermes": {"observe_me": False, "observe_others": True}}}),
        ("sessions", {"id": "s2", "peers": {"eri": {"observe_me": True, "observe_others": False}, "hermes": {"observe_me": False, "observe_others": True}}}),
    ]


def test_after_a_failure_that_may_pass_the_server_is_not_asked_again_for_a_while(connect: Any, fake: Any, workspace: str) -> None:
    from hermes_bundled_plugins.memory.honcho.client import HonchoCallError

    link = connect()
    fake.fail(f"POST .*{workspace}/sessions$", 503)
    with pytest.raises(HonchoCallError, match="HTTP 503") as first:
        link.connected("s1")
    assert "not tried again" not in str(first.value)
    fake.heal()
    asked = len(fake.requests)
    with pytest.raises(HonchoCallError, match=r"HTTP 503 .*\(not tried again for 5 s\)$") as again:
        link.connected("s1")
    assert again.value.retryable and len(fake.requests) == asked  # failed fast: nothing was sent


def test_a_failure_that_will_not_pass_is_not_waited_out(connect: Any, fake: Any, workspace: str) -> None:
    from hermes_bundled_plugins.memory.honcho.client import HonchoCallError

    link = connect()
    fake.fail(f"POST .*{workspace}/sessions$", 404, times=1)
    with pytest.raises(HonchoCallError, match="no such resource") as refused:
        link.connected("s1")
    assert not refused.value.retryable
    assert link.connected("s1")[2].id == "s1"  # asked again at once, and it works now


def test_messages_go_to_their_own_sessions_and_a_stored_turn_is_not_sent_again(connect: Any, fake: Any, sdk: Any, workspace: str) -> None:
    from hermes_bundled_plugins.memory.honcho.writer import PendingMessage

    link = connect()

    def message(session: str, peer: str, text: str, turn: str, part: int, may_be_stored: bool = False) -> PendingMessage:
        return PendingMessage(session, peer, text, {"source": "hermes", "hermes_turn": turn, "hermes_part": part}, may_be_stored=may_be_stored)

    link.send([message("a", "eri", "to a", "t1", 0), message("b", "eri", "to b", "t2", 0), message("a", "hermes", "reply in a", "t1", 1)])
    assert stored(sdk, "a") == [("eri", "to a"), ("hermes", "reply in a")] and stored(sdk, "b") == [("eri", "to b")]
    link.send([message("a", "eri", "to a", "t1", 0, True), message("a", "hermes", "reply in a", "t1", 1, True), message("a", "eri", "new", "t3", 0, True)])
    assert stored(sdk, "a") == [("eri", "to a"), ("hermes", "reply in a"), ("eri", "new")]
    assert link.held.lookups == 1
    link.send([message("a", "eri", "new", "t3", 0, True)])  # remembered from the last send: no second lookup
    assert stored(sdk, "a")[-1] == ("eri", "new") and len(stored(sdk, "a")) == 3 and link.held.lookups == 1
    # the lookup (pages of 100; the test's own reads above use the SDK's default) lists only what hermes wrote
    lookups = [r.body for r in fake.calls("POST", f"{workspace}/sessions/a/messages/list$") if r.body]
    assert lookups == [{"filters": {"metadata": {"source": "hermes"}}}]
    assert [r.query["size"] for r in fake.calls("POST", f"{workspace}/sessions/a/messages/list$") if r.body] == ["100"]


def test_the_base_context_asks_for_the_configured_tokens_and_the_dialectic_asks_the_right_peer(connect: Any, fake: Any, sdk: Any, workspace: str) -> None:
    link = connect(contextTokens=77)
    sdk.peer("hermes").set_card(["Role: the assistant"])
    sdk.peer("eri").set_card(["Name: Eri"])
    base = link.fetch_base("s1")
    assert "Role: the assistant" in base and "Name: Eri" in base
    (context,) = fake.calls("GET", f"{workspace}/sessions/s1/context$")
    assert context.query["tokens"] == "77" and context.query["summary"] == "true"
    fake.chat_replies.append("Eri likes tea")
    assert link.ask("s1", "what does eri like?", "medium") == "Eri likes tea"
    (chat,) = fake.calls("POST", f"{workspace}/peers/.*/chat$")
    assert chat.path.endswith("/peers/hermes/chat") and chat.body["target"] == "eri" and chat.body["reasoning_level"] == "medium"
    unified = connect(observation={"ai": {"observeOthers": False}})  # the AI peer learns nothing of the user: ask the user's own peer
    fake.chat_replies.append("tea")
    assert unified.ask("s1", "likes?", "low") == "tea"
    last = fake.calls("POST", f"{workspace}/peers/.*/chat$")[-1]
    assert last.path.endswith("/peers/eri/chat") and last.body.get("target") is None and last.body["reasoning_level"] == "low"


def test_a_dialectic_answer_that_is_not_text_is_no_answer(connect: Any, fake: Any) -> None:
    # honcho-ai hands back whatever JSON the server put in "content"; only text may reach the prompt
    link = connect()
    unified = connect(observation={"ai": {"observeOthers": False}})
    for reply in (lambda body: 42, lambda body: {"answer": "Eri likes tea"}, lambda body: ["tea"]):
        fake.chat_replies.extend([reply, reply])
        assert link.ask("s1", "what does eri like?", "low") == ""
        assert unified.ask("s1", "what does eri like?", "low") == ""
    fake.chat_replies.extend(["tea", "coffee"])
    assert (link.ask("s1", "likes?", "low"), unified.ask("s1", "likes?", "low")) == ("tea", "coffee")


def test_what_one_session_holds_does_not_stop_a_turn_going_to_another(connect: Any, sdk: Any) -> None:
    from hermes_bundled_plugins.memory.honcho.writer import PendingMessage

    link = connect()
    imported = {"source": "hermes", "hermes_turn": "import:7", "hermes_part": 0}
    link.send([PendingMessage("a", "eri", "imported turn", dict(imported), may_be_stored=True)])
    link.send([PendingMessage("b", "eri", "imported turn", dict(imported), may_be_stored=True)])  # the same history, another session
    assert stored(sdk, "a") == stored(sdk, "b") == [("eri", "imported turn")]
    assert link.held.lookups == 2  # each session is listed on its own


def test_a_local_server_without_a_key_gets_a_placeholder_never_another_tools_key(connect: Any, fake: Any, workspace: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HONCHO_API_KEY", "key-of-another-tool")  # read by the SDK itself when it is given no key
    connect().connected("s1")  # honcho.json names a local server and no key
    sent = {r.headers.get("authorization") for r in fake.requests if f"/{workspace}" in r.path}
    assert sent == {"Bearer local"}
