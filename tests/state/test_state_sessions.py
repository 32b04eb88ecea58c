"""Sessions and messages: create/end, append (single and batch), counters, titles."""
from __future__ import annotations

import json

import pytest

from hermes_plugins_builtin.state import (SessionExistsError, SessionNotFoundError, SessionStore,
                                          TitleInUseError)

from state_support import tool_call


def test_create_get_and_end_session(store):
    sid = store.create_session(source="telegram", model="openai/gpt-5", model_config={"temperature": 0.1},
                               system_prompt="You are terse.", user_id="u1", started_at=100.0)
    session = store.get_session(sid)
    assert session["source"] == "telegram" and session["model"] == "openai/gpt-5"
    assert session["model_config"] == {"temperature": 0.1}
    assert session["system_prompt"] == "You are terse." and session["user_id"] == "u1"
    assert session["started_at"] == 100.0 and session["ended_at"] is None
    store.end_session(sid, "max_iterations", ended_at=200.0)
    session = store.get_session(sid)
    assert (session["ended_at"], session["end_reason"]) == (200.0, "max_iterations")
    assert store.get_session("nope") is None


def test_duplicate_and_unknown_ids_raise(store):
    store.create_session("s1", "cli")
    with pytest.raises(SessionExistsError):
        store.create_session("s1", "cli")
    with pytest.raises(SessionNotFoundError, match="'missing'"):  # each refusal names the session asked for
        store.end_session("missing")
    with pytest.raises(SessionNotFoundError, match="'missing'"):
        store.create_session("child", "cli", parent_session_id="missing")
    with pytest.raises(SessionNotFoundError, match="'missing'"):
        store.append_message("missing", "user", "hi")
    assert store.message_count() == 0


def test_messages_round_trip_in_order_with_json_fields(store):
    store.create_session("s", "cli")
    calls = [tool_call("terminal", json.dumps({"command": "git status"}))]
    ids = [
        store.append_message("s", "system", "You are helpful."),
        store.append_message("s", "user", "status?"),
        store.append_message("s", "assistant", None, tool_calls=calls, finish_reason="tool_calls",
                             reasoning="check git", reasoning_details=[{"type": "summary", "text": "x"}]),
        store.append_message("s", "tool", "clean", tool_call_id="call_1", tool_name="terminal", token_count=3),
    ]
    assert ids == sorted(ids)
    messages = store.get_messages("s")
    assert [m["id"] for m in messages] == ids
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool"]
    assert messages[2]["tool_calls"] == calls and messages[2]["content"] is None
    assert messages[2]["reasoning"] == "check git"
    assert messages[2]["reasoning_details"] == [{"type": "summary", "text": "x"}]
    assert messages[3]["tool_name"] == "terminal" and messages[3]["tool_call_id"] == "call_1"
    assert messages[3]["token_count"] == 3
    session = store.get_session("s")
    assert session["message_count"] == 4 and session["tool_call_count"] == 1


def test_batch_append_is_one_transaction(store):
    store.create_session("s", "cli")
    ids = store.append_messages("s", [{"role": "user", "content": f"m{i}"} for i in range(50)])
    assert len(ids) == 50 and store.message_count("s") == 50
    with pytest.raises(ValueError):
        store.append_messages("s", [{"role": "user", "content": "ok"}, {"content": "no role"}])
    assert store.message_count("s") == 50
    assert store.get_session("s")["message_count"] == 50


def test_lone_surrogates_are_stored_replaced_not_rejected(store):
    store.create_session("s", "cli")
    store.append_message("s", "user", "broken \udcff byte")
    assert store.get_messages("s")[0]["content"] == "broken ? byte"


def test_token_and_cost_counters_add_up_or_can_be_set(store):
    store.create_session("s", "cli")
    store.update_token_counts("s", input_tokens=100, output_tokens=20, cache_read_tokens=5,
                              cache_write_tokens=7, reasoning_tokens=3, api_call_count=1,
                              estimated_cost_usd=0.25, billing_provider="openrouter", cost_status="estimated")
    store.update_token_counts("s", input_tokens=50, output_tokens=10, api_call_count=1, estimated_cost_usd=0.5)
    s = store.get_session("s")
    assert (s["input_tokens"], s["output_tokens"], s["cache_read_tokens"], s["cache_write_tokens"],
            s["reasoning_tokens"], s["api_call_count"]) == (150, 30, 5, 7, 3, 2)
    assert s["estimated_cost_usd"] == pytest.approx(0.75) and s["actual_cost_usd"] is None
    assert s["billing_provider"] == "openrouter" and s["cost_status"] == "estimated"
    store.update_token_counts("s", absolute=True, input_tokens=9, actual_cost_usd=1.5)
    s = store.get_session("s")
    assert s["input_tokens"] == 9 and s["output_tokens"] == 30 and s["actual_cost_usd"] == 1.5
    with pytest.raises(SessionNotFoundError):
        store.update_token_counts("missing", input_tokens=1)


def test_titles_are_unique_and_number_along_a_lineage(store):
    store.create_session("a", "cli", title="My Session")
    store.create_session("b", "cli")
    with pytest.raises(TitleInUseError):
        store.set_title("b", "My Session")
    assert store.next_title_in_lineage("My Session") == "My Session #2"
    assert store.set_title("b", "My Session", auto_number=True) == "My Session #2"
    store.create_session("c", "cli")
    assert store.set_title("c", "My Session #2", auto_number=True) == "My Session #3"
    assert store.next_title_in_lineage("Unused") == "Unused"
    assert store.set_title("a", "  My   Session  ") == "My Session"  # own title, normalised
    assert store.set_title("a", "   ") is None and store.get_session("a")["title"] is None
    assert store.get_session_by_title("My Session #3")["id"] == "c"
    with pytest.raises(TitleInUseError) as refused:
        store.create_session("d", "cli", title="My Session #2")
    assert str(refused.value) == "title 'My Session #2' is already used by another session -> choose another title"


def test_title_numbering_ignores_lookalikes(store):
    store.create_session("a", "cli", title="100%_done")
    store.create_session("b", "cli", title="100x_done #7")  # LIKE wildcards must not match this
    assert store.next_title_in_lineage("100%_done") == "100%_done #2"


def test_data_survives_reopen(db_path):
    with SessionStore(db_path) as store:
        store.create_session("s", "cli", title="Keep")
        store.append_message("s", "user", "persisted")
    with SessionStore(db_path) as store:
        assert store.get_messages("s")[0]["content"] == "persisted"
        assert store.get_session("s")["title"] == "Keep"


def test_close_twice_is_harmless(db_path):
    store = SessionStore(db_path)
    store.close()
    store.close()
