"""Progress of long jobs: a bounded number of plain lines off a terminal, a rich bar at one, rich imported lazily."""

from __future__ import annotations

import io
import json
import subprocess
import sys

from hermes_core.cli.progress import Progress


def test_plain_progress_writes_a_few_lines_without_carriage_returns():
    stream = io.StringIO()
    with Progress("importing", unit="messages", stream=stream) as progress:
        progress.start(3000)
        for _ in range(3000):
            progress.advance()
    lines = stream.getvalue().splitlines()
    assert "\r" not in stream.getvalue() and 3 <= len(lines) <= 11
    assert lines[0] == "importing: 0/3,000 messages" and lines[-1].startswith("importing: 3,000/3,000 messages, done in ")
    assert len(set(lines)) == len(lines)


def test_small_jobs_show_nothing_and_the_callback_form_works():
    stream = io.StringIO()
    with Progress("reindexing", stream=stream, minimum=100) as progress:
        progress(10, 50)
        progress(50, 50)
    assert stream.getvalue() == ""
    with Progress("reindexing", stream=stream) as progress:
        progress(50, 100)
        progress(100, 100)
    assert stream.getvalue().splitlines()[-1].startswith("reindexing: 100/100 items, done in")


def test_terminal_mode_draws_a_rich_bar():
    stream = io.StringIO()
    with Progress("installing", unit="plugins", stream=stream, plain=False) as progress:
        progress.start(4)
        progress.advance(4)
    assert "installing" in stream.getvalue() and "4/4" in stream.getvalue()


def test_sessions_import_of_many_conversations_shows_one_bounded_progress(run_hermes, tmp_path):
    path = tmp_path / "many.jsonl"
    path.write_text("".join(json.dumps({"messages": [{"role": "user", "content": f"c{i}"}, {"role": "assistant", "content": "ok"}]}) + "\n" for i in range(600)))
    result = run_hermes("sessions", "import", str(path))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("imported 2 messages as session") == 600
    assert "\r" not in result.stderr and result.stderr.count("importing: ") <= 11
    assert "importing: 1,200/1,200 messages, done in" in result.stderr


def test_rich_is_not_imported_by_help_or_listing_plugins(hermes_home):
    code = (
        "import sys\n"
        "import hermes_core.cli.progress\n"
        "from hermes_core.cli.main import main\n"
        "for argv in (['--help'], ['plugins', 'list']):\n"
        "    try:\n"
        "        main(argv)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print('RICH', 'rich' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "RICH False" in result.stdout, result.stdout + result.stderr
