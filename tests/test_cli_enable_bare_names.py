"""`hermes plugins enable/disable` when the key written also names another plugin by its bare name:
a user plugin 'hook_log' beside the bundled 'observability/hook_log'."""

from __future__ import annotations

import yaml


def _config(hermes_home):
    return yaml.safe_load((hermes_home / "config.yaml").read_text(encoding="utf-8"))["plugins"]


def _loaded(run_hermes):
    return {e["key"]: e["loaded"] for e in run_hermes("plugins", "list", "--load", "--json").json() if e["name"] == "hook_log"}


def test_enabling_a_name_the_bundled_plugin_also_answers_to_says_so(run_hermes, make_plugin, hermes_home):
    make_plugin("hook_log", "def register(ctx):\n    pass\n")
    result = run_hermes("plugins", "enable", "hook_log")
    assert result.exit_code == 0
    assert ("warning: 'hook_log' in plugins.enabled also names the bundled plugin 'observability/hook_log' (its bare name), "
            "which is turned on too -> to keep it off, 'hermes plugins disable observability/hook_log'") in result.stderr
    assert _loaded(run_hermes) == {"hook_log": True, "observability/hook_log": True}


def test_following_the_advice_keeps_the_users_plugin_on(run_hermes, make_plugin, hermes_home):
    make_plugin("hook_log", "def register(ctx):\n    pass\n")
    run_hermes("plugins", "enable", "hook_log")
    result = run_hermes("plugins", "disable", "observability/hook_log")
    assert result.exit_code == 0 and "warning" not in result.stderr
    assert _config(hermes_home) == {"enabled": ["hook_log"], "disabled": ["observability/hook_log"]}
    assert _loaded(run_hermes) == {"hook_log": True, "observability/hook_log": False}


def test_disabling_the_bare_name_warns_that_both_go_off(run_hermes, make_plugin, hermes_home):
    make_plugin("hook_log", "def register(ctx):\n    pass\n")
    result = run_hermes("plugins", "disable", "hook_log")
    assert "also names the bundled plugin 'observability/hook_log' (its bare name), which is turned off too" in result.stderr


def test_a_name_no_other_plugin_answers_to_gives_no_warning(run_hermes, make_plugin):
    make_plugin("rm_guard", "def register(ctx):\n    pass\n")
    for command in ("enable", "disable"):
        result = run_hermes("plugins", command, "rm_guard")
        assert result.exit_code == 0 and result.stderr == ""
    result = run_hermes("plugins", "enable", "observability/hook_log")
    assert result.exit_code == 0 and result.stderr == ""
