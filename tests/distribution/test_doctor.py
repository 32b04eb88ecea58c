"""``hermes plugins doctor``: each kind of problem is found, explained with its fix, and fails the run."""

from __future__ import annotations

import json
import os


def doctor(run_hermes):
    result = run_hermes("plugins", "doctor", "--json")
    return result.exit_code, {entry["key"]: entry for entry in result.json()}


def test_healthy_plugins_pass(run_hermes, make_plugin):
    make_plugin("fine", "def register(ctx):\n    pass\n")
    result = run_hermes("plugins", "doctor")
    assert result.exit_code == 0, result.stdout
    assert "ok   fine (user, off)" in result.stdout and "plugin(s) are healthy" in result.stdout


def test_a_missing_variable_of_an_enabled_plugin_is_reported_with_where_to_put_it(run_hermes, make_plugin, hermes_home):
    make_plugin("needy", "def register(ctx):\n    pass\n", manifest={"name": "needy", "requires_env": [{"name": "NEEDY_KEY", "url": "https://example.com/keys"}]})
    make_plugin("idle", "", manifest={"name": "idle", "requires_env": ["IDLE_KEY"]})  # off: not checked
    run_hermes("plugins", "enable", "needy")
    code, found = doctor(run_hermes)
    assert code == 1
    assert found["needy"]["problems"] == [
        {"check": "requires_env", "cause": "NEEDY_KEY is not set (https://example.com/keys)", "fix": f"add NEEDY_KEY=... to {hermes_home / '.env'}, or export it"}
    ]
    assert found["idle"]["ok"] is True
    (hermes_home / ".env").write_text("NEEDY_KEY=1\n")
    assert doctor(run_hermes)[0] == 0


def test_manifest_version_dependency_and_file_problems_are_each_reported(run_hermes, make_plugin):
    make_plugin("badkind", "", manifest={"name": "badkind", "kind": "nonsense"})
    make_plugin("future", "", manifest={"name": "future", "requires_hermes": ">=99"})
    make_plugin("deps", "", manifest={"name": "deps", "python_dependencies": ["pyyaml>=1", "surely-not-installed-pkg>=1", "packaging<1"]})
    shared = make_plugin("shared", "")
    os.chmod(shared, 0o777)
    code, found = doctor(run_hermes)
    assert code == 1
    assert [p["check"] for p in found["badkind"]["problems"]] == ["manifest"]
    assert "'kind': 'nonsense' is not one of" in found["badkind"]["problems"][0]["cause"]
    assert found["future"]["problems"][0]["check"] == "requires_hermes"
    assert "upgrade hermes" in found["future"]["problems"][0]["fix"]
    causes = [p["cause"] for p in found["deps"]["problems"]]
    assert len(causes) == 2
    assert "'deps' needs 'surely-not-installed-pkg>=1', which is not installed" in causes[0]
    assert "'deps' needs 'packaging<1', but packaging " in causes[1]
    assert [p["check"] for p in found["shared"]["problems"]] == ["path_safety"]
    assert "world-writable" in found["shared"]["problems"][0]["cause"] and "chmod o-w" in found["shared"]["problems"][0]["fix"]


def test_a_locked_plugin_that_is_gone_points_at_the_restore_command(run_hermes, hermes_home):
    lock = {"lock_version": 1, "plugins": {"weather": {"spec": "hermes-weather", "source": "index", "layout": "package", "distribution": "hermes-weather", "version": "0.3.1", "plugins": ["weather"]}}}
    (hermes_home / "plugins.lock").write_text(json.dumps(lock))
    result = run_hermes("plugins", "doctor")
    assert result.exit_code == 1
    assert "FAIL weather (index, off)" in result.stdout
    assert "plugins.lock records 'weather' (hermes-weather ==0.3.1) but it is not installed" in result.stdout
    assert f"fix: run 'hermes plugins install -r {hermes_home / 'plugins.lock'}'" in result.stdout
