"""An install that enables a plugin imports it (in a child process) and says when it fails to load."""

from __future__ import annotations

from distribution_support import write_files


def _plugin(root, register_body):
    return write_files(root, {"plugin.yaml": "name: kettle\nversion: '0.3'\n", "__init__.py": f"def register(ctx):\n    {register_body}\n"})


def test_an_enabled_plugin_that_fails_to_load_is_named_with_its_cause(run_hermes, hermes_home, tmp_path):
    source = _plugin(tmp_path / "kettle-src", "raise RuntimeError('no water')")
    result = run_hermes("plugins", "install", str(source), "--enable", "--json")
    assert result.exit_code == 0, result.stderr
    [installed] = result.json()
    [warning] = installed["plugins"][0]["warnings"]
    assert warning.startswith("plugin 'kettle' is installed and enabled, but it fails to load: register(ctx) raised RuntimeError: no water (at ")
    assert warning.endswith("-> fix the plugin, or disable it: 'hermes plugins disable kettle'")
    assert warning in result.stderr
    # installed whole and enabled: the cause is often the user's to fix
    assert (hermes_home / "plugins" / "kettle" / "__init__.py").is_file()
    assert "kettle" in run_hermes("config", "get", "plugins.enabled").stdout


def test_a_plugin_that_loads_gets_no_warning_and_an_unenabled_one_is_not_imported(run_hermes, hermes_home, tmp_path):
    marker = tmp_path / "imported"
    good = _plugin(tmp_path / "good", "pass")
    result = run_hermes("plugins", "install", str(good), "--enable", "--json")
    assert result.exit_code == 0 and result.json()[0]["plugins"][0]["warnings"] == [] and "fails to load" not in result.stderr
    run_hermes("plugins", "remove", "kettle")
    quiet = write_files(tmp_path / "quiet", {"plugin.yaml": "name: kettle\n", "__init__.py": f"open({str(marker)!r}, 'w').close()\ndef register(ctx):\n    pass\n"})
    assert run_hermes("plugins", "install", str(quiet), "--no-enable").exit_code == 0
    assert not marker.exists()
