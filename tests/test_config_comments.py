"""Commands that edit config.yaml keep the comments a user wrote in it (round-trip YAML on the write path)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

HAND_WRITTEN = """\
# my hermes settings
plugins:
  enabled:
    - hook_log   # logs every hook
  # keep this off for now
  disabled: []
memory:
  provider: ''   # builtin only
  memory_char_limit: 3000
# the context section
context:
  engine: compressor  # the default
"""
COMMENTS = ["# my hermes settings", "# logs every hook", "# keep this off for now", "# builtin only", "# the context section", "# the default"]


def _write(home: Path, text: str = HAND_WRITTEN) -> Path:
    path = home / "config.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_config_set_adds_one_line_and_keeps_every_comment(run_hermes, hermes_home):
    path = _write(hermes_home)
    assert run_hermes("config", "set", "plugins.hook_callback_timeout", "20").exit_code == 0
    assert path.read_text(encoding="utf-8") == HAND_WRITTEN.replace("  disabled: []\n", "  disabled: []\n  hook_callback_timeout: 20\n")


def test_config_set_changes_a_value_beside_its_comment(run_hermes, hermes_home):
    path = _write(hermes_home)
    assert run_hermes("config", "set", "memory.memory_char_limit", "4000").exit_code == 0
    text = path.read_text(encoding="utf-8")
    assert "  memory_char_limit: 4000\n# the context section\n" in text
    assert all(comment in text for comment in COMMENTS)
    assert yaml.safe_load(text)["memory"] == {"provider": "", "memory_char_limit": 4000}


def test_config_unset_keeps_the_comment_of_the_next_section(run_hermes, hermes_home):
    path = _write(hermes_home)
    assert run_hermes("config", "unset", "memory.memory_char_limit").exit_code == 0
    text = path.read_text(encoding="utf-8")
    assert "memory_char_limit" not in text and all(comment in text for comment in COMMENTS)
    assert text.index("# the context section") < text.index("context:")


def test_plugins_enable_and_disable_keep_the_comments(run_hermes, hermes_home):
    path = _write(hermes_home)
    assert run_hermes("plugins", "disable", "hook_log").exit_code == 0
    text = path.read_text(encoding="utf-8")
    assert yaml.safe_load(text)["plugins"] == {"enabled": [], "disabled": ["observability/hook_log"]}
    kept = [c for c in COMMENTS if c != "# logs every hook"]  # that one was on the line removed
    assert all(comment in text for comment in kept), text
    assert text.index("# keep this off for now") < text.index("  disabled:")
    assert run_hermes("plugins", "enable", "hook_log").exit_code == 0
    assert all(comment in path.read_text(encoding="utf-8") for comment in kept)


def test_words_yaml_1_1_reads_otherwise_stay_text(run_hermes, hermes_home):
    _write(hermes_home)
    for word in ("yes", "on", "1.0", "a: b", "#not a comment"):
        assert run_hermes("config", "set", "memory.provider", word).exit_code == 0
        assert yaml.safe_load((hermes_home / "config.yaml").read_text(encoding="utf-8"))["memory"]["provider"] == word
    assert "# builtin only" in (hermes_home / "config.yaml").read_text(encoding="utf-8")


def test_a_file_without_comments_is_written_as_before(run_hermes, hermes_home):
    path = _write(hermes_home, "memory:\n  provider: ''\n")
    assert run_hermes("config", "set", "memory.memory_char_limit", "4000").exit_code == 0
    assert path.read_text(encoding="utf-8") == "memory:\n  provider: ''\n  memory_char_limit: 4000\n"


def test_the_round_trip_library_is_imported_only_to_write(hermes_home):
    _write(hermes_home)
    probe = "import sys; from hermes_core.cli.main import main; code = main(sys.argv[1:]); print('ruamel' in sys.modules)"
    env = {**os.environ, "HERMES_HOME": str(hermes_home)}

    def ruamel_loaded(*argv: str) -> str:
        done = subprocess.run([sys.executable, "-c", probe, *argv], env=env, capture_output=True, text=True, check=True)
        return done.stdout.strip().splitlines()[-1]

    assert ruamel_loaded("config", "get", "memory.provider") == "False"
    assert ruamel_loaded("plugins", "list") == "False"
    assert ruamel_loaded("config", "set", "memory.memory_char_limit", "4000") == "True"


def test_the_files_own_indentation_is_kept(run_hermes, hermes_home):
    for text in ("# mine\nplugins:\n  enabled:\n  - a\n  entries:\n    x:\n      y: 1\n",  # as PyYAML writes lists
                 "# four\nplugins:\n    enabled:\n    -   a\n    disabled: []\n"):
        path = _write(hermes_home, text)
        assert run_hermes("config", "set", "plugins.hook_callback_timeout", "9").exit_code == 0
        indent = " " * (len(text.split("\n")[2]) - len(text.split("\n")[2].lstrip()))
        assert path.read_text(encoding="utf-8") == text + f"{indent}hook_callback_timeout: 9\n"


def test_anchors_flow_styles_and_block_text_survive_edits(run_hermes, hermes_home):
    text = ('# anchors and styles\ndefaults: &d {timeout: 5, name: "café ☕"}\nplugins:\n  enabled: [hook_log]   # flow list\n'
            "  entries:\n    a: *d\nmodel:\n  system: |\n    You are helpful.\n    Be brief.\n")
    path = _write(hermes_home, text)
    for argv in (("config", "get", "model.system"), ("plugins", "enable", "mem0"), ("config", "set", "plugins.hook_callback_timeout", "9")):
        assert run_hermes(*argv).exit_code == 0  # the first read leaves a cached parse behind: the edits start from it
    written = path.read_text(encoding="utf-8")
    assert written.startswith(text.split("model:")[0].replace("    a: *d\n", "    a: *d\n  hook_callback_timeout: 9\n"))
    assert "  system: |\n    You are helpful.\n    Be brief.\n" in written and "memory:\n  provider: mem0\n" in written
