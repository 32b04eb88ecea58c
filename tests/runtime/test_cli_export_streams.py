"""Exports to a FIFO or to a path that leads through /dev or /proc (/dev/stdout) write into it; they used to
rename a regular file over it, which as root replaced /dev/stdout for every program on the machine."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

from hermes_core.cli.sessions_transfer import is_stream

CHAT = '{"role": "user", "content": "When do we deploy?"}\n{"role": "assistant", "content": "On Thursdays."}\n'


def _read_fifo_in_background(fifo: Path) -> tuple[threading.Thread, list[bytes]]:
    received: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as pipe:  # blocks until the export opens it for writing
            received.append(pipe.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return reader, received


def test_a_session_export_to_a_fifo_is_written_into_it(run_hermes, tmp_path):
    chat = tmp_path / "chat.jsonl"
    chat.write_text(CHAT, encoding="utf-8")
    (session,) = run_hermes("sessions", "import", str(chat), "--json").json()["sessions"]
    fifo = tmp_path / "export.pipe"
    os.mkfifo(fifo)
    reader, received = _read_fifo_in_background(fifo)
    result = run_hermes("sessions", "export", session["id"], "-o", str(fifo), "--json")  # no --force: a pipe is no one's only copy
    reader.join(timeout=60)
    assert result.exit_code == 0, result.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert [json.loads(line)["content"] for line in received[0].decode("utf-8").splitlines()] == ["When do we deploy?", "On Thursdays."]


def test_a_memory_export_to_a_fifo_is_written_into_it(run_hermes, tmp_path):
    assert run_hermes("memory", "add", "Deploys go out on Thursdays").exit_code == 0
    fifo = tmp_path / "memories.pipe"
    os.mkfifo(fifo)
    reader, received = _read_fifo_in_background(fifo)
    result = run_hermes("memory", "export", str(fifo))
    reader.join(timeout=60)
    assert result.exit_code == 0, result.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert json.loads(received[0])["text"] == "Deploys go out on Thursdays"


def test_what_counts_as_a_stream(tmp_path):
    (tmp_path / "notes.jsonl").write_text("x", encoding="utf-8")
    (tmp_path / "to-notes").symlink_to(tmp_path / "notes.jsonl")
    (tmp_path / "my-stdout").symlink_to("/dev/stdout")  # followed to /proc/self/fd/1, whatever that leads to
    (tmp_path / "fd-one").symlink_to("/proc/self/fd/1")
    assert is_stream(tmp_path / "my-stdout") and is_stream(tmp_path / "fd-one")
    assert is_stream(Path("/dev/stdout")) and is_stream(Path("/dev/null"))
    assert not is_stream(tmp_path / "notes.jsonl") and not is_stream(tmp_path / "to-notes")
    assert not is_stream(tmp_path / "not-there.jsonl") and not is_stream(tmp_path)


def _export_to_a_terminal(session_id: str, home: Path, fmt: str) -> bytes:
    """``hermes sessions export`` run with its standard output on a pseudo-terminal, as a person runs it."""
    import pty
    import subprocess
    import sys

    main, follower = pty.openpty()
    env = {**os.environ, "HERMES_HOME": str(home)}
    with subprocess.Popen([sys.executable, "-m", "hermes_core", "sessions", "export", session_id, "--format", fmt],
                          stdout=follower, stderr=subprocess.PIPE, env=env) as child:
        os.close(follower)
        out = b""
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
        assert child.wait(timeout=60) == 0, child.stderr.read()
    os.close(main)
    return out


def test_a_markdown_export_to_a_terminal_shows_control_characters_instead_of_obeying_them(run_hermes, hermes_home, tmp_path):
    chat = tmp_path / "chat.jsonl"
    hostile = "Done.\x1b[2J\x1b]0;pwned\x07 Next step"
    chat.write_text(json.dumps({"role": "user", "content": "status?"}) + "\n" + json.dumps({"role": "assistant", "content": hostile}) + "\n", encoding="utf-8")
    (session,) = run_hermes("sessions", "import", str(chat), "--json").json()["sessions"]
    shown = _export_to_a_terminal(session["id"], hermes_home, "md")
    assert b"\x1b" not in shown and b"\x07" not in shown and b"Done.\\x1b[2J\\x1b]0;pwned\\x07 Next step" in shown
    exact = run_hermes("sessions", "export", session["id"], "--format", "md")  # into a pipe or a file: as stored
    assert hostile in exact.stdout
