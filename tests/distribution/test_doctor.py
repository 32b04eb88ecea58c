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
    make_plugin("badkind", "", manifest={"name": "badkind", "provides_hooks": "nonsense"})
    make_plugin("future", "from hermes_core import hookimpl\n", manifest={"name": "future", "requires_hermes": ">=99"})
    make_plugin("deps", "", manifest={"name": "deps", "python_dependencies": ["pyyaml>=1", "surely-not-installed-pkg>=1", "packaging<1"]})
    shared = make_plugin("shared", "")
    os.chmod(shared, 0o777)
    code, found = doctor(run_hermes)
    assert code == 1
    assert [p["check"] for p in found["badkind"]["problems"]] == ["manifest"]
    assert "'provides_hooks': 'nonsense' is not of type 'array'" in found["badkind"]["problems"][0]["cause"]
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


def test_plain_doctor_says_imports_were_not_checked(run_hermes, make_plugin):
    make_plugin("broken", "import surely_not_a_module_anywhere\n")
    run_hermes("plugins", "enable", "broken")
    result = run_hermes("plugins", "doctor")
    assert result.exit_code == 0  # nothing that needs no import is wrong with it ...
    assert "imports were not checked (no plugin code ran) -> 'hermes plugins doctor --load'" in result.stdout  # ... and it says so
    code, found = doctor(run_hermes)
    assert found["broken"]["load"] == "not checked"


def test_doctor_load_imports_in_a_separate_process_and_blames_each_failing_plugin(run_hermes, make_plugin):
    make_plugin("a_raises", "import surely_not_a_module_anywhere\n")
    make_plugin("b_exits", "import os\nos._exit(7)\n")
    make_plugin("c_crashes", "import ctypes\nctypes.string_at(0)\n")  # a segmentation fault in the importing process
    make_plugin("e_register_fails", "def register(ctx):\n    raise RuntimeError('no api key')\n")
    make_plugin("f_fine", "def register(ctx):\n    ctx.register_hook('on_session_start', lambda **kw: None)\n")
    make_plugin("g_off", "import surely_not_a_module_anywhere\n")  # not enabled: not imported
    for name in ("a_raises", "b_exits", "c_crashes", "e_register_fails", "f_fine"):
        run_hermes("plugins", "enable", name)
    result = run_hermes("plugins", "doctor", "--load", "--json")  # the default limit: no plugin here hangs
    assert result.exit_code == 1, result.stderr
    found = {entry["key"]: entry for entry in result.json()}

    def load_problem(key):
        (problem,) = [p for p in found[key]["problems"] if p["check"] == "load"]
        assert found[key]["load"] == "failed" and found[key]["ok"] is False
        return problem

    assert "ModuleNotFoundError" in load_problem("a_raises")["cause"]
    assert "exit status 7" in load_problem("b_exits")["cause"]
    assert "crashed the process (signal 11)" in load_problem("c_crashes")["cause"]
    assert "no api key" in load_problem("e_register_fails")["cause"]
    for key in ("a_raises", "b_exits", "c_crashes", "e_register_fails"):
        assert f"hermes plugins disable {key}" in load_problem(key)["fix"]
    assert found["f_fine"]["load"] == "ok" and found["f_fine"]["ok"] is True
    assert found["g_off"]["load"] == "not checked" and found["g_off"]["ok"] is True
    assert found["memory"]["load"] == "ok"  # the builtins are imported too


def test_doctor_load_blames_a_plugin_that_hangs_and_checks_the_rest(run_hermes, make_plugin):
    # the limit counts from each plugin's own start (not the child's), so a loaded machine slowing
    # the interpreter's start or the builtins' imports never blames another plugin
    make_plugin("d_hangs", "import threading\nthreading.Event().wait()\n")
    make_plugin("f_fine", "def register(ctx):\n    ctx.register_hook('on_session_start', lambda **kw: None)\n")
    for name in ("d_hangs", "f_fine"):
        run_hermes("plugins", "enable", name)
    result = run_hermes("plugins", "doctor", "--load", "--timeout", "5", "--json")
    assert result.exit_code == 1, result.stderr
    found = {entry["key"]: entry for entry in result.json()}
    (problem,) = [p for p in found["d_hangs"]["problems"] if p["check"] == "load"]
    assert "did not finish within 5 s" in problem["cause"] and "hermes plugins disable d_hangs" in problem["fix"]
    assert [key for key, entry in found.items() if not entry["ok"]] == ["d_hangs"]
    assert found["f_fine"]["load"] == "ok" and found["memory"]["load"] == "ok"


def test_doctor_load_limits_each_plugin_not_all_of_them_together(run_hermes, make_plugin):
    # three slow imports (a heavy library, a cold disk) of 1.5 s each: together over the 4 s limit,
    # each well within it, so none is blamed
    for name in ("slow_a", "slow_b", "slow_c"):
        make_plugin(name, "import time\ntime.sleep(1.5)\n\ndef register(ctx):\n    pass\n")
        run_hermes("plugins", "enable", name)
    result = run_hermes("plugins", "doctor", "--load", "--timeout", "4", "--json")
    assert result.exit_code == 0, result.stdout
    assert {key: entry["load"] for key, entry in ((e["key"], e) for e in result.json()) if key.startswith("slow_")} == {
        "slow_a": "ok", "slow_b": "ok", "slow_c": "ok"}


def test_doctor_timeout_needs_load_and_a_sane_value(run_hermes):
    assert "--timeout applies to imports, which only --load checks" in run_hermes("plugins", "doctor", "--timeout", "5").stderr
    assert "--timeout must be between 0 and 3600 seconds, not nan" in run_hermes("plugins", "doctor", "--load", "--timeout", "nan").stderr


def test_doctor_load_reports_hook_callbacks_that_can_never_run(run_hermes, make_plugin):
    code = ("def started(session_id, platfrom):\n    pass\n\ndef guard(**kwargs):\n    return None\n\n"
            "def register(ctx):\n    ctx.register_hook('on_session_start', started)\n    ctx.register_hook('pre_tool_cal', guard)\n")
    make_plugin("hk3", code)
    run_hermes("plugins", "enable", "hk3")
    result = run_hermes("plugins", "doctor", "--load", "--json")
    assert result.exit_code == 1, result.stdout
    entry = {e["key"]: e for e in result.json()}["hk3"]
    assert entry["load"] == "ok" and entry["ok"] is False
    dead = [p for p in entry["problems"] if p["check"] == "hooks"]
    assert len(dead) == 2, entry
    assert "the callback 'started' requires 'platfrom', which the hook never passes" in dead[0]["cause"] and dead[0]["cause"].endswith("so it is never called")
    assert "'guard' is registered for 'pre_tool_cal', which hermes never calls" in dead[1]["cause"] and dead[1]["fix"] == "register it for 'pre_tool_call'"
