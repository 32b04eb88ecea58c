"""An install that fails while asking for the environment leaves nothing behind; the lock file keeps
one entry per distribution and survives a crash while it is written."""

from __future__ import annotations

import json
import multiprocessing
import os

import pytest

from distribution_support import tree_state, write_files
from hermes_core.distribution.lockfile import LockEntry, lock_path, read_lock, record_entry, write_lock


def memo_source(root):
    return write_files(
        root,
        {
            "plugin.yaml": "name: memo\nversion: '1.0'\nrequires_env: [{name: INSTALL_SAFETY_TOKEN, secret: true}]\n",
            "__init__.py": "def register(ctx):\n    pass\n",
        },
    )


@pytest.fixture(autouse=True)
def _token_unset(monkeypatch):
    # other tests load plugins, which export $HERMES_HOME/.env into os.environ; a set variable is not asked for
    monkeypatch.delenv("INSTALL_SAFETY_TOKEN", raising=False)


def _staging_leftovers(home):
    return [p for p in (home / "plugins").iterdir() if p.name.startswith(".")] if (home / "plugins").exists() else []


def test_a_refused_answer_at_the_prompt_leaves_no_plugin_staging_or_lock(run_hermes, hermes_home, tmp_path):
    source = memo_source(tmp_path / "memo-src")
    before = tree_state(hermes_home)
    result = run_hermes("plugins", "install", str(source), input="half\rline\n")  # a value .env cannot hold
    assert result.exit_code == 1
    assert "line break" in result.stderr and "Traceback" not in result.stderr
    assert tree_state(hermes_home) == before  # no plugin, no staged copy, no lock, no .env
    assert not (hermes_home / "plugins" / "memo").exists() and not lock_path(hermes_home).exists()


class _InterruptedTerminal:
    """Standard input whose read is interrupted as Ctrl-C interrupts it (no terminal exists under
    pytest, so the interrupt is raised where the terminal driver would deliver it)."""

    def isatty(self) -> bool:
        return False

    def readline(self) -> str:
        raise KeyboardInterrupt

    read = readline


def test_ctrl_c_at_the_prompt_leaves_no_plugin_staging_or_lock(hermes_home, tmp_path, monkeypatch, capsys):
    from hermes_core.cli.main import main

    source = memo_source(tmp_path / "memo-src")
    lock_path(hermes_home).write_text(json.dumps({"lock_version": 1, "plugins": {}}) + "\n")
    before = tree_state(hermes_home)
    monkeypatch.setattr("sys.stdin", _InterruptedTerminal())
    code = main(["plugins", "install", str(source)])
    assert code not in (0, None)
    assert "Traceback" not in capsys.readouterr().err
    assert tree_state(hermes_home) == before
    assert _staging_leftovers(hermes_home) == []


def _entry(key, distribution="", plugins=None, version="1.0"):
    return LockEntry(key=key, spec=distribution or key, source="index" if distribution else "path",
                     layout="package" if distribution else "directory", version=version,
                     distribution=distribution, plugins=plugins or [key])


def test_reinstalling_a_distribution_whose_plugin_key_changed_replaces_its_entry():
    entries = {"weather": _entry("weather", "hermes-weather"), "notes": _entry("notes")}
    renamed = _entry("forecast", "hermes-weather", version="2.0")
    assert record_entry(entries, renamed) == {"forecast": renamed, "notes": entries["notes"]}
    assert set(entries) == {"weather", "notes"}  # the caller's mapping is not changed


def test_an_entry_sharing_a_plugin_key_is_replaced_and_unrelated_ones_kept():
    entries = {"multi": _entry("multi", "hermes-multi", plugins=["multi", "extra"]), "other": _entry("other", "hermes-other")}
    moved = _entry("extra", "hermes-extra", plugins=["extra"])
    assert record_entry(entries, moved) == {"other": entries["other"], "extra": moved}
    same_key = _entry("other", version="3.0")
    assert record_entry(entries, same_key)["other"] is same_key
    # directory plugins have no distribution: two of them never replace each other by it
    assert set(record_entry({"a": _entry("a")}, _entry("b"))) == {"a", "b"}


@pytest.mark.parametrize("crash_at", ["replace", "fsync"])
def test_a_crash_while_writing_the_lock_leaves_the_old_one_intact(hermes_home, crash_at):
    path = lock_path(hermes_home)
    write_lock(path, {"old": _entry("old")})
    before = path.read_bytes()

    def child() -> None:
        if crash_at == "fsync":
            os.fsync = lambda fd: os._exit(9)
        else:
            os.replace = lambda *args, **kwargs: os._exit(9)
        write_lock(path, {"new": _entry("new")})
        os._exit(0)

    process = multiprocessing.get_context("fork").Process(target=child)
    process.start()
    process.join(timeout=60)
    assert process.exitcode == 9  # it died mid-write
    assert path.read_bytes() == before
    assert list(read_lock(path)) == ["old"]
