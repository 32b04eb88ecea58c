"""`hermes sessions import` run twice, stopped half-way, or killed: nothing is doubled, nothing is left half."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from hermes_core.cli.sessions_transfer import conversation_session_id, read_chat_jsonl
from hermes_plugins_builtin.state import SessionStore

TRIPS = [{"role": "user", "content": f"Which train leaves for Porto at {hour}:00?"} if i % 2 == 0
         else {"role": "assistant", "content": f"The Alfa Pendular, platform {hour % 7 + 1}."}
         for i, hour in enumerate(range(6, 11))]
COOKING = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Salt for 1 l of pasta water?"},
           {"role": "assistant", "content": "About 10 g."}]


def _write(path: Path, *conversations: list[dict]) -> Path:
    path.write_text("".join(json.dumps({"messages": c}, ensure_ascii=False) + "\n" for c in conversations), encoding="utf-8")
    return path


def _sessions(home: Path) -> list[dict]:
    with SessionStore(home / "state.db") as store:
        return [dict(row, messages=[(m["role"], m["content"]) for m in store.get_messages(row["id"])])
                for row in store.iter_sessions()]


def test_importing_the_same_file_again_skips_what_is_there(run_hermes, hermes_home, tmp_path):
    data = _write(tmp_path / "chats.jsonl", TRIPS, COOKING)
    first = run_hermes("sessions", "import", str(data), "--title", "Old chats", "--json")
    assert first.exit_code == 0, first.stderr
    created = first.json()["sessions"]
    assert [s["status"] for s in created] == ["imported", "imported"]
    assert [s["title"] for s in created] == ["Old chats", "Old chats #2"]

    again = run_hermes("sessions", "import", str(data), "--title", "Old chats")
    assert again.exit_code == 0, again.stderr
    assert again.stdout.splitlines() == [f"skipped 5 messages already imported as session {created[0]['id']}",
                                         f"skipped 2 messages already imported as session {created[1]['id']}"]
    stored = _sessions(hermes_home)
    assert sorted(s["id"] for s in stored) == sorted(s["id"] for s in created)
    assert sorted(len(s["messages"]) for s in stored) == [2, 5]
    # a title is given once: the skipped run did not number a third "Old chats"
    assert sorted(s["title"] for s in stored) == ["Old chats", "Old chats #2"]


def test_again_imports_a_second_copy_as_new_sessions(run_hermes, hermes_home, tmp_path):
    data = _write(tmp_path / "one.jsonl", COOKING)
    first = run_hermes("sessions", "import", str(data), "--json").json()["sessions"][0]
    second = run_hermes("sessions", "import", str(data), "--again", "--json").json()["sessions"][0]
    assert second["status"] == "imported" and second["id"] != first["id"]
    stored = {s["id"]: s for s in _sessions(hermes_home)}
    assert set(stored) == {first["id"], second["id"]}
    assert stored[first["id"]]["messages"] == stored[second["id"]]["messages"] == [("user", "Salt for 1 l of pasta water?"),
                                                                                   ("assistant", "About 10 g.")]
    assert stored[second["id"]]["system_prompt"] == "You are terse."


def test_the_same_conversation_twice_in_one_file_is_stored_once(run_hermes, hermes_home, tmp_path):
    data = _write(tmp_path / "twice.jsonl", COOKING, TRIPS, COOKING)
    result = run_hermes("sessions", "import", str(data), "--json")
    assert [s["status"] for s in result.json()["sessions"]] == ["imported", "imported", "skipped"]
    assert len(_sessions(hermes_home)) == 2


def test_a_conversation_a_killed_import_left_half_written_is_completed(run_hermes, hermes_home, tmp_path):
    data = _write(tmp_path / "trips.jsonl", TRIPS)
    session_id = conversation_session_id(read_chat_jsonl(data)[0])
    # what an import killed after its first transaction leaves: the conversation's id, its first messages
    with SessionStore(hermes_home / "state.db") as store:
        store.create_session(session_id, source="import")
        store.append_messages(session_id, TRIPS[:3])

    result = run_hermes("sessions", "import", str(data), "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json()["sessions"] == [{"id": session_id, "messages": 5, "title": None, "status": "completed"}]
    (stored,) = _sessions(hermes_home)
    assert stored["messages"] == [(m["role"], m["content"]) for m in TRIPS]
    assert run_hermes("sessions", "import", str(data)).stdout == f"skipped 5 messages already imported as session {session_id}\n"


def test_a_conversation_continued_after_its_import_is_left_as_it_is(run_hermes, hermes_home, tmp_path):
    data = _write(tmp_path / "cooking.jsonl", COOKING)
    session_id = run_hermes("sessions", "import", str(data), "--json").json()["sessions"][0]["id"]
    with SessionStore(hermes_home / "state.db") as store:
        store.append_messages(session_id, [{"role": "user", "content": "And for 2 l?"}])
    result = run_hermes("sessions", "import", str(data), "--json")
    assert result.json()["sessions"][0]["status"] == "skipped"
    (stored,) = _sessions(hermes_home)
    assert stored["messages"][-1] == ("user", "And for 2 l?") and len(stored["messages"]) == 3


def test_ctrl_c_half_way_keeps_no_half_conversation_and_the_next_run_imports_it_whole(hermes_home, tmp_path):
    # one conversation of 20,000 messages: written 500 to a transaction, with a progress line each tenth
    long = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"message number {i}"} for i in range(20_000)]
    data = _write(tmp_path / "long.jsonl", COOKING, long)
    env = dict(os.environ, HERMES_HOME=str(hermes_home), PYTHONUNBUFFERED="1")
    child = subprocess.Popen([sys.executable, "-m", "hermes_core", "sessions", "import", str(data)], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stderr is not None
    seen = []
    for line in child.stderr:  # the first progress line past 0 means a transaction of the long one is stored
        seen.append(line)
        if line.startswith("importing: ") and not line.startswith("importing: 0/"):
            child.send_signal(signal.SIGINT)
            break
    stdout, rest = child.communicate(timeout=60)
    stderr = "".join(seen) + rest
    assert child.returncode == 130, stderr
    assert "hermes: import stopped after 1 of 2 conversations -> run the same command again" in stderr
    assert "Traceback" not in stderr
    stored = _sessions(hermes_home)
    assert [len(s["messages"]) for s in stored] == [2]  # the short one, whole; nothing of the long one

    env.pop("PYTHONUNBUFFERED")
    finished = subprocess.run([sys.executable, "-m", "hermes_core", "sessions", "import", str(data), "--json"], env=env,
                              capture_output=True, text=True, timeout=120)
    assert finished.returncode == 0, finished.stderr
    assert [s["status"] for s in json.loads(finished.stdout)["sessions"]] == ["skipped", "imported"]
    assert sorted(len(s["messages"]) for s in _sessions(hermes_home)) == [2, 20_000]


def test_a_file_of_dash_is_read_from_standard_input(run_hermes, hermes_home):
    piped = "".join(json.dumps({"messages": c}, ensure_ascii=False) + "\n" for c in (TRIPS, COOKING))
    result = run_hermes("sessions", "import", "-", "--json", input=piped)
    assert result.exit_code == 0, result.stderr
    assert result.json()["file"] == "-"
    assert [s["status"] for s in result.json()["sessions"]] == ["imported", "imported"]
    assert sorted(len(s["messages"]) for s in _sessions(hermes_home)) == [2, 5]  # the system prompt is kept apart
    bad = run_hermes("sessions", "import", "-", input='{"role": "robot", "content": "x"}\n')
    assert bad.exit_code == 1 and "-:1: 'role' is 'robot'" in bad.stderr


def test_a_pretty_printed_json_file_is_named_as_such_with_the_command_that_converts_it(run_hermes, hermes_home, tmp_path):
    as_list = tmp_path / "chat.json"
    as_list.write_text(json.dumps(TRIPS, indent=2), encoding="utf-8")
    refused = run_hermes("sessions", "import", str(as_list), "--json")
    assert refused.exit_code == 1
    assert refused.json()["cause"] == f"{as_list} is one JSON list spread over several lines, not JSON Lines (one message or conversation per line)"
    assert refused.json()["fix"] == f"convert it: jq -c '.[]' {as_list} > chat.jsonl, then import that file"
    one_line = tmp_path / "flat.json"
    one_line.write_text(json.dumps(TRIPS), encoding="utf-8")
    assert "is one JSON list" in run_hermes("sessions", "import", str(one_line)).stderr
    as_object = tmp_path / "conversation.json"
    as_object.write_text(json.dumps({"messages": COOKING}, indent=2), encoding="utf-8")
    refused = run_hermes("sessions", "import", str(as_object), "--json")
    assert refused.json()["fix"] == f"convert it: jq -c . {as_object} > conversation.jsonl, then import that file"
    assert not (hermes_home / "state.db").exists() or _sessions(hermes_home) == []


def test_the_conversion_advised_never_writes_over_the_file_it_reads(run_hermes, tmp_path):
    named_jsonl = tmp_path / "chats.jsonl"
    named_jsonl.write_text(json.dumps(TRIPS, indent=2), encoding="utf-8")
    assert run_hermes("sessions", "import", str(named_jsonl), "--json").json()["fix"] == (
        f"convert it: jq -c '.[]' {named_jsonl} > chats-lines.jsonl, then import that file")


def test_a_conversation_another_host_imports_between_the_look_and_the_write_is_skipped(run_hermes, hermes_home, tmp_path,
                                                                                        monkeypatch):
    data = _write(tmp_path / "cooking.jsonl", COOKING)
    session_id = conversation_session_id(read_chat_jsonl(data)[0])
    with SessionStore(hermes_home / "state.db") as store:  # the other host's import, already finished
        store.create_session(session_id, source="import", system_prompt="You are terse.")
        store.append_messages(session_id, COOKING[1:])
    # the race itself cannot be timed from a test: this host's look happens as if before the other's write
    looked = []
    real_get_session = SessionStore.get_session

    def get_session_before_the_other_host(self, sid):
        if sid == session_id and not looked:
            looked.append(sid)
            return None
        return real_get_session(self, sid)

    monkeypatch.setattr(SessionStore, "get_session", get_session_before_the_other_host)
    result = run_hermes("sessions", "import", str(data), "--json")
    assert result.exit_code == 0, result.stderr
    assert looked == [session_id]
    assert [s["status"] for s in result.json()["sessions"]] == ["skipped"]
    (stored,) = _sessions(hermes_home)
    assert len(stored["messages"]) == 2


def test_one_message_is_counted_in_the_singular(run_hermes, tmp_path):
    data = tmp_path / "one.jsonl"
    data.write_text('{"role": "user", "content": "a single line"}\n', encoding="utf-8")
    assert run_hermes("sessions", "import", str(data)).stdout.startswith("imported 1 message as session ")
    assert run_hermes("sessions", "import", str(data)).stdout.startswith("skipped 1 message already imported as session ")
