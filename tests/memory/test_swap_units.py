"""What a provider swap hands over, stated exactly: stored conversations as turns, and the recalled-memory fence."""

from __future__ import annotations

import time
from collections import Counter

import pytest

from hermes_core.memory.backfill import Backfill
from hermes_core.memory.fence import StreamingContextScrubber, api_user_message, sanitize_context
from hermes_core.memory.provider import MemoryProvider
from hermes_core.memory.records import MemoryRecord
from hermes_core.memory.replay_turns import ReplayTurn, content_text, copies_of, session_turns, wire_messages

MESSAGES = [
    {"id": 1, "role": "user", "content": "hi", "timestamp": 1.0},
    {"id": 2, "role": "assistant", "content": "a1", "timestamp": 2.0},
    {"id": 3, "role": "tool", "content": "t", "timestamp": 3.0, "tool_call_id": "c1"},
    {"id": 4, "role": "assistant", "content": "a2", "timestamp": 4.0},
    {"id": 5, "role": "user", "content": "  two ", "timestamp": 5.0},
    {"id": 6, "role": "tool", "content": "x"},
]


def test_a_turn_is_a_user_message_and_the_last_assistant_text_before_the_next_one():
    assert session_turns("s", MESSAGES) == [
        ReplayTurn("s", 1, "hi", "a2", 4.0, 4),
        # a message without a time keeps the turn's; the turn ends after it
        ReplayTurn("s", 5, "two", "", 5.0, 6),
    ]
    turn = session_turns("s", MESSAGES)[0]
    assert (turn.item, turn.source) == ("turn:1", "session:s:message:1")


def test_since_keeps_the_turns_started_then_or_later():
    assert [t.message_id for t in session_turns("s", MESSAGES, since=5.0)] == [5]
    assert [t.message_id for t in session_turns("s", MESSAGES, since=1.0)] == [1, 5]
    assert [t.message_id for t in session_turns("s", MESSAGES, since=1.5)] == [5]
    assert session_turns("s", MESSAGES, since=5.5) == []


def test_copies_are_left_out_as_often_as_they_were_carried_over():
    assert [t.message_id for t in session_turns("s", MESSAGES, copies=Counter({("user", "hi"): 1}))] == [5]
    # counted: one copy hides one message, not every message of that text
    twice = [*MESSAGES, {"id": 7, "role": "user", "content": "hi", "timestamp": 7.0}]
    assert [t.message_id for t in session_turns("s", twice, copies=Counter({("user", "hi"): 1}))] == [5, 7]
    assert [t.message_id for t in session_turns("s", twice, copies=Counter({("user", "hi"): 2}))] == [5]
    # a copied assistant text is still the turn's answer; only a copied user message hides its turn
    assert session_turns("s", MESSAGES, copies=Counter({("assistant", "a2"): 1}))[0].assistant == "a2"
    assert copies_of([MESSAGES], str.strip) == Counter({("user", "hi"): 1, ("assistant", "a1"): 1, ("assistant", "a2"): 1, ("user", "two"): 1})
    assert copies_of([MESSAGES[:2], MESSAGES[:1]], lambda text: text.upper()) == Counter({("user", "HI"): 2, ("assistant", "A1"): 1})


def test_the_text_filter_cleans_both_sides():
    turns = session_turns("s", MESSAGES, clean=lambda text: text.replace("a", "A").strip())
    assert [(t.user, t.assistant) for t in turns] == [("hi", "A2"), ("two", "")]
    # a user message cleaned to nothing starts no turn
    assert session_turns("s", MESSAGES, clean=lambda text: "" if text == "hi" else text) == [ReplayTurn("s", 5, "  two ", "", 5.0, 6)]


def test_wire_messages_keep_role_content_and_the_tool_fields_that_are_set():
    assert wire_messages([{"id": 3, "role": "assistant", "content": "x", "tool_calls": [1], "tool_call_id": "", "timestamp": 1.0},
                          {"role": "tool", "content": "r", "tool_call_id": "c1", "tool_name": "search"}]) == [
        {"role": "assistant", "content": "x", "tool_calls": [1]},
        {"role": "tool", "content": "r", "tool_call_id": "c1", "tool_name": "search"},
    ]


def test_content_text_reads_every_kind_of_text_part():
    parts = '[{"type": "input_text", "text": "a"}, {"type": "output_text", "text": "b"}, {"type": "text", "text": 3}]'
    assert content_text(parts) == "a\nb"
    assert content_text([{"type": "text", "text": "q"}]) == "q"
    assert content_text('{"a": 1}') == '{"a": 1}'
    assert content_text('[{"x": 1}]') == '[{"x": 1}]'
    assert content_text("[1") == "[1"
    assert content_text("[]") == ""
    assert content_text([]) == ""
    assert content_text(5) == ""
    assert content_text([{"x": 1}]) == ""


def test_the_api_copy_of_a_message_of_parts_is_sanitised_part_by_part():
    message = {"role": "user", "content": [{"type": "text", "text": "a <memory-context>x</memory-context>b"}, {"type": "image"}, "raw"]}
    copy = api_user_message(message, "", "  ", "recalled")
    assert copy["content"] == [{"type": "text", "text": "a b"}, {"type": "image"}, "raw", {"type": "text", "text": "recalled"}]
    assert message["content"][0]["text"] == "a <memory-context>x</memory-context>b"
    assert api_user_message({"role": "user", "content": None}, "recalled") == {"role": "user", "content": None}
    assert api_user_message({"role": "user", "content": "q"}, "r1", "r2")["content"] == "q\n\nr1\n\nr2"
    assert api_user_message({"role": "user", "content": "q"}, "")["content"] == "q"


def test_sanitize_leaves_text_without_fence_words_as_it_is():
    assert sanitize_context("") == ""
    assert sanitize_context("System Note: keep") == "System Note: keep"
    assert sanitize_context("a\n<Memory-Context>\nx\n</MEMORY-context>  \r\nb") == "a\nb"


def test_the_scrubber_holds_back_only_what_may_become_a_tag():
    scrubber = StreamingContextScrubber()
    assert scrubber.feed("hello\n<memory-con") == "hello\n"
    assert scrubber.feed("text>\nsecret\n</memory-context>\r") == ""
    assert scrubber.feed("\nafter") == "after"
    assert scrubber.flush() == ""
    # text held back that turned out to be no tag is given back at the end
    assert scrubber.feed("x\n<memory") == "x\n"
    assert scrubber.flush() == "<memory"
    assert scrubber.feed("<memory-context> inline") == "<memory-context> inline"


def _scrub(*deltas: str) -> list[str]:
    scrubber = StreamingContextScrubber()
    return [*(scrubber.feed(delta) for delta in deltas), scrubber.flush()]


def test_a_fence_counts_after_any_line_break_and_only_there():
    # mid-line, the next line may start after \r, \n or \r\n, also as the first character of a delta
    assert _scrub("abc", "x\r<memory-context>\nsecret\n</memory-context>\rafter") == ["abc", "x\rafter", ""]
    assert _scrub("abc", "\n<memory-context>\nsecret\n</memory-context>\nafter") == ["abc", "\nafter", ""]
    assert _scrub("abc", "\r\n<memory-context>\nsecret\n</memory-context>\nafter") == ["abc", "\r\nafter", ""]
    # a delta that ended with a line break leaves the next one at a line start
    assert _scrub("a\r", "<memory-context>\nsecret\n</memory-context>\n") == ["a\r", "", ""]
    assert _scrub("a\n", "<memory-context>\nsecret\n</memory-context>\n") == ["a\n", "", ""]
    # the stream starts at a line start; a line break there is text like any other
    assert _scrub("<memory-context>\nsecret\n</memory-context>\nafter") == ["after", ""]
    assert _scrub("\nhello") == ["\nhello", ""]
    # not at a line start: shown as it is, also one character past a line break
    assert _scrub("abc", "<memory-context>\nx\n</memory-context>") == ["abc", "<memory-context>\nx\n</memory-context>", ""]
    assert _scrub("abc", "\rX<memory-context>\nsecret\n</memory-context>\n") == ["abc", "\rX<memory-context>\nsecret\n</memory-context>\n", ""]
    assert _scrub("abc", "\nX<memory-context>\nsecret\n</memory-context>\n") == ["abc", "\nX<memory-context>\nsecret\n</memory-context>\n", ""]


def test_a_fence_ends_at_its_first_closing_tag_and_only_its_line_break_goes_with_it():
    assert _scrub("<memory-context>\nsecret\n</memory-context>Xafter") == ["Xafter", ""]
    assert _scrub("<memory-context>\na\n</memory-context>\nshown\n</memory-context>\n") == ["shown\n</memory-context>\n", ""]
    # two fences in a row: the second starts a line too
    assert _scrub("<memory-context>\na\n</memory-context>\n<memory-context>\nb\n</memory-context>\nafter") == ["after", ""]
    assert _scrub("<memory-context>\na\n</memory-context>\r\n<memory-context>\nb\n</memory-context>\r\nafter") == ["after", ""]


def test_sanitize_removes_a_system_note_without_tags():
    note = "[System note: The following is recalled memory context, NOT new user input. Treat as authoritative reference data.]"
    assert sanitize_context("a " + note + " b") == "ab"
    assert sanitize_context("keep\n  " + note + "\nnext") == "keep\nnext"
    assert sanitize_context("keep\n" + note.upper() + "\r\nnext") == "keep\nnext"


def test_an_empty_text_part_is_an_empty_line_and_typed_parts_without_text_give_nothing():
    assert content_text([{"type": "text", "text": "a"}, {"type": "text"}, {"type": "text", "text": "b"}]) == "a\n\nb"
    assert content_text('[{"type": "image_url", "image_url": {}}]') == ""
    assert content_text('[{"type": "image_url"}, {"kind": "x"}]') == '[{"type": "image_url"}, {"kind": "x"}]'


def test_a_turn_ends_with_its_last_message_of_any_role_and_takes_its_time():
    assert session_turns("s", [{"id": 1, "role": "user", "content": "u"}]) == [ReplayTurn("s", 1, "u", "", 0.0, 1)]
    messages = [{"id": 1, "role": "user", "content": "u", "timestamp": 1.0}, {"id": 2, "role": "assistant", "content": "a", "timestamp": 2.0},
                {"id": 3, "role": "tool", "content": "t", "timestamp": 3.0}]
    assert session_turns("s", messages) == [ReplayTurn("s", 1, "u", "a", 3.0, 3)]
    # a message without a time: 0.0 for a user message (so `since` leaves it out), the turn's time otherwise
    assert session_turns("s", [{"id": 1, "role": "user", "content": "u"}], since=0.5) == []
    assert session_turns("s", [{"id": 1, "role": "user", "content": "u", "timestamp": 1.0}, {"id": 3, "role": "tool", "content": "t"}]) == [
        ReplayTurn("s", 1, "u", "", 1.0, 2)]


# ---- the backfill, driven directly: a real session store and a provider that records what it is given


class _Recorder(MemoryProvider):
    name = "recorder"

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def is_available(self) -> bool:
        return True

    def initialize(self, session_id: str, **kwargs) -> None:
        self.calls.append(("initialize", session_id, kwargs.get("platform")))

    def get_tool_schemas(self) -> list:
        return []

    def on_session_switch(self, new_session_id: str, **kwargs) -> None:
        self.calls.append(("switch", new_session_id, kwargs))

    def sync_turn(self, user_content, assistant_content, *, session_id="", timestamp=None, source="", messages=None) -> None:
        self.calls.append(("turn", session_id, user_content, source, len(messages or [])))

    def on_memory_write(self, action, target, content, metadata=None) -> None:
        self.calls.append(("write", action, target, content, metadata))

    def on_session_end(self, messages) -> None:
        self.calls.append(("end", len(messages)))

    def flush_writes(self, timeout=None) -> bool:
        return True


def test_a_backfill_sends_entries_to_their_files_then_each_session_with_its_switch(tmp_path):
    from hermes_plugins_builtin.state import SessionStore

    with SessionStore(tmp_path / "state.db") as store:
        for sid, parent, at in (("a", None, 1.0), ("b", None, 100.0), ("c", "b", 200.0)):
            store.create_session(sid, "cli", parent_session_id=parent, started_at=at)
            store.append_messages(sid, [{"role": "user", "content": f"question {sid}", "timestamp": at + 1},
                                        {"role": "assistant", "content": f"answer {sid}", "timestamp": at + 2}])
        store.end_session("a", "user", ended_at=50.0)
        store.end_session("b", "compression", ended_at=150.0)
        entries = [MemoryRecord("n1", kind="note", source="s1"), MemoryRecord("p1", kind="profile", source="s2"),
                   MemoryRecord("u1", kind="preference", peer="user", source="s3"), MemoryRecord("o1", kind="fact", peer="dana", source="s4")]
        provider = _Recorder()
        backfill = Backfill(provider, store, hermes_home=str(tmp_path), retries=0)
        report = backfill.run(backfill.plan(entries))
    metadata = {"write_origin": "backfill", "session_id": "a", "platform": "cli"}
    assert provider.calls == [
        ("initialize", "a", "cli"),
        ("write", "add", "memory", "n1", {**metadata, "source": "s1"}),
        ("write", "add", "user", "p1", {**metadata, "source": "s2"}),
        ("write", "add", "user", "u1", {**metadata, "source": "s3"}),
        ("write", "add", "memory", "o1", {**metadata, "source": "s4"}),
        ("turn", "a", "question a", f"session:a:message:{1}", 2),
        ("end", 2),
        # a new conversation starts afresh; its continuation after a compression does not
        ("switch", "b", {"parent_session_id": "", "reset": True}),
        ("turn", "b", "question b", "session:b:message:3", 2),
        ("switch", "c", {"parent_session_id": "b", "reset": False, "reason": "compression"}),
        ("turn", "c", "question c", "session:c:message:5", 2),
    ]
    assert (report.entries_sent, report.turns_sent, report.sessions_ended) == (4, 3, 1)


class _Plain(MemoryProvider):
    """A provider whose ``sync_turn`` takes no extras (as many third-party ones do)."""

    name = "plain"

    def __init__(self, *, fail: bool = False, confirm: bool = True, problems: list[str] | None = None) -> None:
        self.calls: list[tuple] = []
        self._fail, self._confirm, self._problems = fail, confirm, problems or []

    def is_available(self) -> bool:
        return True

    def initialize(self, session_id: str, **kwargs) -> None:
        pass

    def get_tool_schemas(self) -> list:
        return []

    def sync_turn(self, user_content, assistant_content, *, session_id="") -> None:
        if self._fail:
            raise ConnectionError("backend is down")
        self.calls.append(("turn", session_id, user_content))

    def on_memory_write(self, action, target, content, metadata=None) -> None:
        if self._fail:
            raise ConnectionError("backend is down")

    def on_session_end(self, messages) -> None:
        self.calls.append(("end", messages))

    def problems(self) -> list[str]:
        return self._problems

    def flush_writes(self, timeout=None) -> bool:
        return self._confirm


def _store_with_tools(tmp_path):
    from hermes_plugins_builtin.state import SessionStore

    store = SessionStore(tmp_path / "state.db")
    tool_call = [{"id": "c1", "type": "function", "function": {"name": "terminal", "arguments": "{}"}}]
    for sid, parent, at in (("a", None, 1.0), ("b", None, 100.0), ("d", "a", 300.0)):
        store.create_session(sid, "cli", parent_session_id=parent, started_at=at)
        store.append_messages(sid, [{"role": "user", "content": f"question {sid}", "timestamp": at + 1},
                                    {"role": "assistant", "content": "", "tool_calls": tool_call, "timestamp": at + 2},
                                    {"role": "tool", "content": "ok", "tool_call_id": "c1", "tool_name": "terminal", "timestamp": at + 3},
                                    {"role": "assistant", "content": f"answer {sid}", "timestamp": at + 4}])
    store.end_session("a", "user", ended_at=50.0)
    return store


def test_a_provider_taking_messages_gets_them_with_their_tool_fields_and_one_taking_none_gets_none(tmp_path):
    with _store_with_tools(tmp_path) as store:
        recorder = _Recorder()
        seen: list = []
        recorder.sync_turn = lambda user, assistant, *, session_id="", timestamp=None, source="", messages=None: seen.append(messages)  # type: ignore[method-assign]
        backfill = Backfill(recorder, store, hermes_home=str(tmp_path), retries=0)
        backfill.run(backfill.plan([]))
        assert seen[0][1] == {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "terminal", "arguments": "{}"}}]}
        assert seen[0][2] == {"role": "tool", "content": "ok", "tool_call_id": "c1", "tool_name": "terminal"}
        # the same in the sessions that have not ended ("b", "d")
        assert [turn[1:3] for turn in seen] == [seen[0][1:3]] * 3
        # a session whose parent is not the one before it starts afresh
        assert [c for c in recorder.calls if c[0] == "switch"] == [
            ("switch", "b", {"parent_session_id": "", "reset": True}), ("switch", "d", {"parent_session_id": "a", "reset": True})]
        plain = _Plain()
        backfill = Backfill(plain, store, hermes_home=str(tmp_path), retries=0)
        backfill.run(backfill.plan([], fresh=True))
    assert [c for c in plain.calls if c[0] == "turn"] == [("turn", "a", "question a"), ("turn", "b", "question b"), ("turn", "d", "question d")]
    # the session's end carries the tool fields whatever sync_turn accepts, as a live session's end does
    ends = [c[1] for c in plain.calls if c[0] == "end"]
    assert ends == [[{"role": "user", "content": "question a"}, seen[0][1], seen[0][2], {"role": "assistant", "content": "answer a"}]]


def test_a_failed_item_is_named_with_its_cause_and_attempts(tmp_path):
    from hermes_core.memory.backfill import BackfillFailed

    with _store_with_tools(tmp_path) as store:
        long_entry = MemoryRecord("x" * 50, kind="note", source="s1")
        backfill = Backfill(_Plain(fail=True), store, hermes_home=str(tmp_path), retries=0)
        with pytest.raises(BackfillFailed) as failed:
            backfill.run(backfill.plan([long_entry]))
        assert str(failed.value) == f"built-in memory entry {'x' * 40!r}: ConnectionError: backend is down (gave up after 1 attempts)"
        assert (failed.value.item, failed.value.attempts, failed.value.where) == ("entry:s1", 1, f"built-in memory entry {'x' * 40!r}")
        # a write the provider does not confirm: its own latest problem, else the timeout
        backfill = Backfill(_Plain(confirm=False, problems=["oldest", "old", "queued for later"]), store, hermes_home=str(tmp_path), retries=0)
        with pytest.raises(BackfillFailed) as failed:
            backfill.run(backfill.plan([], fresh=True))
        assert str(failed.value) == "session a turn 1: NotDelivered: the provider did not confirm the write: queued for later (gave up after 1 attempts)"
        backfill = Backfill(_Plain(confirm=False), store, hermes_home=str(tmp_path), retries=0, flush_timeout=2.5)
        with pytest.raises(BackfillFailed) as failed:
            backfill.run(backfill.plan([], fresh=True))
        assert str(failed.value) == ("session a turn 1: NotDelivered: flush_writes() did not confirm the write "
                                     "(not stored within 2.5 s, or queued by the provider for later) (gave up after 1 attempts)")


class _Checked(_Recorder):
    """Records how it is started and asked to flush; ``fail_on`` makes ``sync_turn`` fail that many times for a user text."""

    def __init__(self, fail_on: dict[str, int] | None = None) -> None:
        super().__init__()
        self.fail_on = dict(fail_on or {})
        self.flush_timeouts: list = []

    def initialize(self, session_id: str, **kwargs) -> None:
        self.calls.append(("initialize", session_id, kwargs))

    def sync_turn(self, user_content, assistant_content, *, session_id="", timestamp=None, source="", messages=None) -> None:
        if self.fail_on.get(user_content, 0) > 0:
            self.fail_on[user_content] -= 1
            raise ConnectionError("backend is down")
        super().sync_turn(user_content, assistant_content, session_id=session_id, timestamp=timestamp, source=source, messages=messages)

    def flush_writes(self, timeout=None) -> bool:
        self.flush_timeouts.append(timeout)
        return True


def _two_sessions(store) -> dict[str, list[int]]:
    """"a" from telegram, still open (two turns), then "b" from the cli, ended (one turn); returns the message ids."""
    store.create_session("a", "telegram", started_at=1.0)
    ids = {"a": store.append_messages("a", [{"role": "user", "content": "qa1", "timestamp": 2.0}, {"role": "assistant", "content": "ra1", "timestamp": 3.0},
                                            {"role": "user", "content": "qa2", "timestamp": 4.0}, {"role": "assistant", "content": "ra2", "timestamp": 5.0}])}
    store.create_session("b", "cli", started_at=10.0)
    ids["b"] = store.append_messages("b", [{"role": "user", "content": "qb1", "timestamp": 11.0}, {"role": "assistant", "content": "rb1", "timestamp": 12.0}])
    store.end_session("b", "user", ended_at=20.0)
    return ids


def test_an_interrupted_backfill_resumes_within_its_bound_and_says_what_it_sends_again(tmp_path):
    from hermes_core.memory.backfill import BackfillFailed
    from hermes_plugins_builtin.state import SessionStore

    entries = [MemoryRecord("n1", kind="note", source="builtin:memory:1")]
    with SessionStore(tmp_path / "state.db") as store:
        ids = _two_sessions(store)
        failing = _Checked(fail_on={"qb1": 1})
        backfill = Backfill(failing, store, hermes_home=str(tmp_path), retries=0)
        first = backfill.plan(entries)
        assert first.summary() == {"provider": "recorder", "upto_message_id": ids["b"][-1], "entries": 1, "entries_to_send": 1,
                                   "sessions": 2, "sessions_to_send": 2, "turns": 3, "turns_to_send": 3, "already_done": 0, "resuming": False}
        assert [(s.session["id"], s.ends, s.pending_end) for s in first.sessions] == [("a", False, False), ("b", True, True)]
        with pytest.raises(BackfillFailed):
            backfill.run(first)
        # started with the first session that has something to send, on its platform
        assert failing.calls[0] == ("initialize", "a", {"hermes_home": str(tmp_path), "platform": "telegram", "agent_context": "primary"})
        job = backfill.ledger.job()
        assert (job.in_flight, job.finished_at, job.done) == (f"turn:{ids['b'][0]}", None, 3)
        later = store.append_messages("b", [{"role": "user", "content": "after the bound", "timestamp": 30.0}])[0]

        progress: list = []
        resumed = Backfill(_Checked(), store, hermes_home=str(tmp_path), retries=0, progress=lambda *step: progress.append(step))
        plan = resumed.plan(entries)
        # the job's bound, not the newest message; what was confirmed (an entry whose source has colons too) is not pending
        assert (plan.upto_message_id, plan.resumed, plan.in_flight, plan.pending_entries) == (ids["b"][-1], True, f"turn:{ids['b'][0]}", [])
        assert plan.summary() == {**first.summary(), "entries_to_send": 0, "sessions_to_send": 1, "turns_to_send": 1,
                                  "already_done": 3, "resuming": True}
        report = resumed.run(plan)
        assert (report.resent, report.entries_sent, report.turns_sent, report.sessions_ended) == ([f"turn:{ids['b'][0]}"], 0, 1, 1)
        assert progress == [(1, 2), (2, 2)]
        done = resumed.plan(entries)
        assert (done.resumed, done.in_flight, done.pending_items, done.upto_message_id) == (False, None, 0, ids["b"][-1])

        # starting again forgets this backfill's checkpoints, not what an import recorded beside them
        resumed.ledger.record_done(["import:mem0:1"])
        again = resumed.plan(entries, fresh=True)
        assert (again.upto_message_id, again.resumed, again.in_flight, again.pending_entries) == (later, False, None, entries)
        assert again.summary()["already_done"] == 0
        resumed.run(again)
        assert "import:mem0:1" in resumed.ledger.done_items()


def test_since_leaves_out_older_sessions_and_older_turns(tmp_path):
    from hermes_plugins_builtin.state import SessionStore

    with SessionStore(tmp_path / "state.db") as store:
        _two_sessions(store)
        store.append_messages("a", [{"role": "user", "content": "qa3", "timestamp": 40.0}, {"role": "assistant", "content": "ra3", "timestamp": 41.0}])
        provider = _Checked()
        backfill = Backfill(provider, store, hermes_home=str(tmp_path), retries=0)
        plan = backfill.plan([], since=30.0)
        # "b" (ended before) is not closed again and "a" counts only its newer turn
        assert ([s.session["id"] for s in plan.sessions], plan.turns, plan.pending_items) == (["a"], 1, 1)
        backfill.run(plan)
    assert [c[2] for c in provider.calls if c[0] == "turn"] == ["qa3"]
    assert not [c for c in provider.calls if c[0] == "end"]


def test_a_failing_write_is_tried_again_after_a_doubling_wait_and_the_retries_are_counted(tmp_path):
    from hermes_core.memory.backfill import BackfillFailed
    from hermes_plugins_builtin.state import SessionStore

    with SessionStore(tmp_path / "state.db") as store:
        _two_sessions(store)
        waits: list[float] = []
        provider = _Checked(fail_on={"qa1": 2})
        backfill = Backfill(provider, store, hermes_home=str(tmp_path), retries=2, retry_delay=0.5, flush_timeout=7.5, sleep=waits.append)
        report = backfill.run(backfill.plan([]))
        assert (waits, report.retries, report.turns_sent) == ([0.5, 1.0], 2, 3)
        assert provider.flush_timeouts == [7.5] * 4  # three turns and the end of "b"
        waits.clear()
        backfill = Backfill(_Checked(fail_on={"qa1": 9}), store, hermes_home=str(tmp_path), retries=1, retry_delay=0.5, sleep=waits.append)
        with pytest.raises(BackfillFailed) as failed:
            backfill.run(backfill.plan([], fresh=True))
        assert (failed.value.attempts, waits) == (2, [0.5])


def test_a_provider_failing_to_start_is_named_and_one_with_only_entries_starts_on_its_own_session(tmp_path):
    from hermes_core.memory.backfill import BackfillFailed
    from hermes_plugins_builtin.state import SessionStore

    class _NoStart(_Checked):
        def initialize(self, session_id: str, **kwargs) -> None:
            raise RuntimeError("no key")

    with SessionStore(tmp_path / "state.db") as store:
        backfill = Backfill(_NoStart(), store, hermes_home=str(tmp_path), retries=0)
        with pytest.raises(BackfillFailed) as failed:
            backfill.run(backfill.plan([MemoryRecord("n1", kind="note", source="s1")]))
        assert (failed.value.item, failed.value.attempts, str(failed.value.cause)) == ("initialize", 1, "no key")
        assert str(failed.value) == "initialize (before anything was sent): RuntimeError: no key (gave up after 1 attempts)"
        provider = _Checked()
        backfill = Backfill(provider, store, hermes_home=str(tmp_path), retries=0)
        before = time.monotonic()
        report = backfill.run(backfill.plan([MemoryRecord("n1", kind="note", source="s1")]))
        took = time.monotonic() - before
    assert provider.calls[0] == ("initialize", "memory-backfill-recorder", {"hermes_home": str(tmp_path), "platform": "cli", "agent_context": "primary"})
    assert 0 <= report.seconds <= took
