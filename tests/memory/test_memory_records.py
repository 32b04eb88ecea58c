"""Memory records: validation names the field, normalises times, and survives any input."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hermes_core.memory.fallback_import import import_through_existing_paths
from hermes_core.memory.provider import MemoryProvider
from hermes_core.memory.records import MemoryRecord, RecordError, iso_utc, parse_jsonl, record_from_dict
from hermes_core.memory.replay_turns import NON_CONVERSATION_SOURCES, content_text, session_turns
from hermes_plugins_builtin.session_search.grouping import HIDDEN_SOURCES


def test_times_are_normalised_to_utc():
    assert iso_utc("2025-03-01T14:30:00+02:00") == "2025-03-01T12:30:00Z"
    assert iso_utc("2025-03-01") == "2025-03-01T00:00:00Z"
    assert iso_utc(0) == "1970-01-01T00:00:00Z"
    assert MemoryRecord("x", created_at="2025-03-01T12:30:00Z").timestamp == 1740832200.0


@pytest.mark.parametrize(
    ("data", "field"),
    [({"text": 3}, "text"), ({"text": "a", "kind": "Two Words"}, "kind"), ({"text": "a", "peer": 1}, "peer"),
     ({"text": "a", "metadata": []}, "metadata"), ({"text": "a", "created_at": 1e300}, "created_at"),
     ({"text": "a", "peer": "x", "user": "y"}, "peer"), ({"text": "a", "colour": "red"}, "colour")],
)
def test_a_bad_field_is_named(data, field):
    with pytest.raises(RecordError) as caught:
        record_from_dict(data)
    assert caught.value.field == field


def test_user_is_read_as_peer_and_round_trips():
    record = record_from_dict({"text": "likes tea", "user": "dana", "metadata": {"score": 0.9}})
    assert record.peer == "dana"
    assert record_from_dict(json.loads(record.to_json())) == record


@given(st.text(max_size=300))
def test_any_line_is_a_record_or_a_named_error(line):
    records, errors = parse_jsonl([line])
    assert len(records) + len(errors) == (1 if line.strip() else 0)
    for error in errors:
        assert error.line == 1 and error.message


@given(st.dictionaries(st.sampled_from(["text", "kind", "peer", "user", "created_at", "source", "metadata", "other"]),
                       st.one_of(st.none(), st.text(max_size=20), st.integers(), st.floats(), st.lists(st.integers(), max_size=2))))
def test_any_object_is_a_record_or_a_record_error(data):
    try:
        record = record_from_dict(data)
    except RecordError as exc:
        assert str(exc)
    else:
        assert record.text.strip() and json.loads(record.to_json())["text"] == record.text


def test_session_search_and_backfill_leave_out_the_same_sources():
    assert NON_CONVERSATION_SOURCES == HIDDEN_SOURCES


class _Concluding(MemoryProvider):
    name = "concluding"

    def __init__(self):
        self.calls = []

    def is_available(self):
        return True

    def initialize(self, session_id, **kwargs):
        pass

    def get_tool_schemas(self):
        return [{"name": "x_conclude", "description": "", "parameters": {"type": "object", "properties": {
            "conclusion": {"type": "string"}, "peer": {"type": "string", "enum": ["user", "ai"]}}, "required": ["conclusion"]}}]

    def handle_tool_call(self, tool_name, args, **kwargs):
        self.calls.append((tool_name, args))
        return json.dumps({"result": "saved"})


class _Mirroring(MemoryProvider):
    name = "mirroring"

    def __init__(self):
        self.writes = []

    def is_available(self):
        return True

    def initialize(self, session_id, **kwargs):
        pass

    def get_tool_schemas(self):
        return []

    def on_memory_write(self, action, target, content):  # the old three-argument form
        self.writes.append((action, target, content))


def test_default_import_uses_a_conclude_tool_with_the_peer():
    provider = _Concluding()
    records = [MemoryRecord("likes tea", peer="user"), MemoryRecord("I run on a laptop", peer="assistant")]
    assert provider.import_memories(records) == 2
    assert provider.calls == [("x_conclude", {"conclusion": "likes tea", "peer": "user"}), ("x_conclude", {"conclusion": "I run on a laptop", "peer": "ai"})]


def test_default_import_falls_back_to_on_memory_write():
    provider = _Mirroring()
    import_through_existing_paths(provider, [MemoryRecord("likes tea"), MemoryRecord("repo in ~/src", kind="note", peer="assistant")])
    assert provider.writes == [("add", "user", "likes tea"), ("add", "memory", "repo in ~/src")]


def test_content_parts_give_their_text_and_text_that_looks_like_json_stays():
    assert content_text('[{"type": "text", "text": "hi"}, {"type": "image_url", "image_url": {}}]') == "hi"
    assert content_text("[1, 2] is a list") == "[1, 2] is a list"
    assert content_text("[1, 2]") == "[1, 2]"
    assert content_text(None) == ""


@given(st.lists(st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "tool", "system"]),
                                       "content": st.one_of(st.none(), st.text(max_size=30))}), max_size=12))
def test_turns_of_any_message_list_start_at_user_messages(messages):
    stored = [dict(m, id=i + 1, timestamp=float(i)) for i, m in enumerate(messages)]
    turns = session_turns("s", stored)
    users = [m for m in stored if m["role"] == "user" and (m["content"] or "").strip()]
    assert [t.message_id for t in turns] == [m["id"] for m in users]
    assert all(t.end <= len(stored) for t in turns)


def test_records_read_like_the_json_objects_they_travel_as():
    record = MemoryRecord("likes tea", kind="preference", peer="dana", source="x:1")
    assert record["text"] == "likes tea" and record.get("user") == "dana" and record.get("nope", 7) == 7
    assert dict(record) == {**record.to_dict(), "metadata": {}}


def test_a_providers_extra_fields_are_kept_under_metadata_but_a_files_are_an_error():
    from hermes_core.memory.records import coerce_records

    (record,) = coerce_records([{"text": "likes tea", "id": "m-1", "metadata": {"score": 1}}], origin="mem0")
    assert record.metadata == {"id": "m-1", "score": 1}
    with pytest.raises(RecordError, match="unknown field"):
        record_from_dict({"text": "likes tea", "id": "m-1"})


def test_a_line_nested_too_deeply_is_a_line_error_not_a_crash():
    good = MemoryRecord(text="Prefers tea.", kind="note", created_at="2026-01-02T03:04:05Z").to_json()
    records, errors = parse_jsonl(["[" * 100_000 + "]" * 100_000, good])
    assert [r.text for r in records] == ["Prefers tea."]
    assert [(e.line, e.message) for e in errors] == [(1, "not a record: its JSON is nested too deeply to read")]
