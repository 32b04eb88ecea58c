"""Plugin names: whatever Hermes Agent loads (non-ASCII letters, capitals, dots, inner spaces, a
leading underscore) loads here unmodified, while a name stays one plain path component."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NAMES = ["météo", "天气", "Wetter.Plus", "ÄRGER", "my plugin", "_private", "v1..2"]

CODE = """
from .helpers import on_start


def register(ctx):
    ctx.register_hook("on_session_start", on_start)
"""
HELPERS = {"helpers.py": "def on_start(**kwargs):\n    return None\n"}


def test_names_hermes_agent_accepts_load_with_their_relative_imports(run_hermes, make_plugin):
    for name in NAMES:
        make_plugin(name, CODE, files=HELPERS)
        enabled = run_hermes("plugins", "enable", name)
        assert enabled.exit_code == 0 and "will not load" not in enabled.stderr, (name, enabled.stderr)
    listed = {e["key"]: e for e in run_hermes("plugins", "list", "--load", "--json").json()}
    for name in NAMES:
        assert listed[name]["name"] == name and listed[name]["loaded"] is True, listed.get(name)
        assert listed[name]["hooks"] == ["on_session_start"] and listed[name]["error"] is None
    assert run_hermes("plugins", "info", "天气", "--json").json()["key"] == "天气"


@pytest.mark.parametrize("bad", ["..", ".", "a/b", "a\\\\b", " padded", "padded ", "tab\\there", "n" * 129, "next\\x85line", "evil\\u202etxt.exe"])
def test_a_name_that_is_not_one_plain_path_component_is_refused_with_the_fix(run_hermes, make_plugin, bad):
    directory = make_plugin("odd", "def register(ctx):\n    pass\n", manifest=f'name: "{bad}"\nversion: 0.1.0\n')
    result = run_hermes("plugins", "validate", str(directory), "--json")
    assert result.exit_code == 1, result.stdout
    problems = [p for entry in result.json() for p in entry["problems"] if p["field"] == "name"]
    assert problems and problems[0]["fix"], result.stdout


def test_a_directory_plugin_with_a_non_ascii_name_installs_locks_and_removes(run_hermes, hermes_home, tmp_path):
    source = tmp_path / "src" / "Café.Plus"
    source.mkdir(parents=True)
    (source / "plugin.yaml").write_text("name: Café.Plus\nversion: 0.2.0\n", encoding="utf-8")
    (source / "__init__.py").write_text(CODE, encoding="utf-8")
    (source / "helpers.py").write_text(HELPERS["helpers.py"], encoding="utf-8")
    installed = run_hermes("plugins", "install", str(source), "--json")
    assert installed.exit_code == 0, installed.stderr
    lock = json.loads((hermes_home / "plugins.lock").read_text(encoding="utf-8"))
    assert list(lock["plugins"]) == ["Café.Plus"] and lock["plugins"]["Café.Plus"]["plugins"] == ["Café.Plus"]
    assert (hermes_home / "plugins" / "Café.Plus" / "helpers.py").is_file()
    assert run_hermes("plugins", "enable", "Café.Plus").exit_code == 0
    listed = {e["key"]: e for e in run_hermes("plugins", "list", "--load", "--json").json()}
    assert listed["Café.Plus"]["loaded"] is True
    assert run_hermes("plugins", "remove", "Café.Plus").exit_code == 0
    assert not (hermes_home / "plugins" / "Café.Plus").exists()
    assert json.loads((hermes_home / "plugins.lock").read_text(encoding="utf-8"))["plugins"] == {}


def test_the_plugin_table_lines_up_names_in_wide_scripts(run_hermes, make_plugin):
    for name in ("天气预报", "météo", "plain"):
        make_plugin(name, CODE, files=HELPERS)
    lines = run_hermes("plugins", "list").stdout.splitlines()
    rows = {line.split(" ")[0]: line for line in lines if line.split(" ")[0] in ("NAME", "天气预报", "météo", "plain")}
    # the KEY column starts at the same terminal cell on every line: in characters, the header (ASCII) and a
    # Latin name put it at the same index, a name of four CJK characters (two cells each) four characters earlier
    key = rows["NAME"].index("KEY")
    assert rows["plain"][key:].startswith("plain ") and rows["météo"][key:].startswith("météo ")
    assert rows["天气预报"][key - 4:].startswith("天气预报 ") and rows["天气预报"][:key - 4].endswith("  ")


def test_display_width_counts_wide_characters_twice_and_marks_not_at_all():
    from hermes_core.cli.output import display_width, pad

    assert display_width("天气") == 4 and display_width("ｗｉｄｅ") == 8 and display_width("abc") == 3
    assert display_width("e\u0301te\u0301") == 3 and display_width("a\u200db") == 2
    assert pad("天气", 6) == "天气  " and pad("toolong", 3) == "toolong"
