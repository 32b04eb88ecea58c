"""`hermes plugins validate` compiles a plugin's module (never runs it): a syntax error is a problem, as
every import of the plugin would fail on it. And what a project's report says without a plugin.yaml."""

from __future__ import annotations

import zipfile
from pathlib import Path

BROKEN = "def register(ctx)\n    ctx.register_hook('pre_tool_call', lambda **kw: None)\n"


def _plugin(directory: Path, code: str | bytes) -> Path:
    directory.mkdir(parents=True)
    (directory / "plugin.yaml").write_text(f"name: {directory.name}\nversion: '1.0'\n", encoding="utf-8")
    init = directory / "__init__.py"
    init.write_bytes(code if isinstance(code, bytes) else code.encode("utf-8"))
    return directory


def test_a_syntax_error_fails_validate_naming_the_file_and_line(run_hermes, tmp_path):
    plugin = _plugin(tmp_path / "typo", BROKEN)
    result = run_hermes("plugins", "validate", str(plugin), "--json")
    assert result.exit_code == 1
    (report,) = result.json()
    assert report["ok"] is False
    (problem,) = report["problems"]
    assert problem["path"] == str(plugin / "__init__.py")
    assert problem["cause"] == "the code does not compile: SyntaxError: expected ':' (line 1)"
    # validate compiled it and ran nothing: no bytecode was written beside it
    assert not (plugin / "__pycache__").exists()


def test_the_same_plugin_fails_to_load_for_that_reason(run_hermes, hermes_home):
    _plugin(hermes_home / "plugins" / "typo", BROKEN)
    run_hermes("plugins", "enable", "typo")
    (entry,) = [e for e in run_hermes("plugins", "list", "--load", "--json").json() if e["key"] == "typo"]
    assert entry["loaded"] is False and "SyntaxError" in entry["error"]


def test_code_that_compiles_and_a_latin1_declared_file_pass(run_hermes, tmp_path):
    good = _plugin(tmp_path / "good", "def register(ctx):\n    pass\n")
    declared = _plugin(tmp_path / "declared", "# -*- coding: latin-1 -*-\nNAME = 'caf\xe9'\ndef register(ctx):\n    pass\n".encode("latin-1"))
    for plugin in (good, declared):
        result = run_hermes("plugins", "validate", str(plugin))
        assert result.exit_code == 0, result.stdout + result.stderr


def test_null_bytes_in_the_module_are_a_problem_too(run_hermes, tmp_path):
    plugin = _plugin(tmp_path / "nul", b"def register(ctx):\n    pass\n\x00")
    result = run_hermes("plugins", "validate", str(plugin), "--json")
    assert result.exit_code == 1 and "Traceback" not in result.stderr
    assert result.json()[0]["problems"][0]["cause"].startswith("the code does not compile: ")


def test_a_wheel_whose_package_does_not_compile_fails(run_hermes, tmp_path):
    wheel = tmp_path / "typo-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("typo-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: typo\nVersion: 1.0\n")
        archive.writestr("typo-1.0.dist-info/entry_points.txt", "[hermes_agent.plugins]\ntypo = typo\n")
        archive.writestr("typo/__init__.py", BROKEN)
        archive.writestr("typo/plugin.yaml", "name: typo\nversion: '1.0'\n")
    result = run_hermes("plugins", "validate", str(wheel), "--json")
    assert result.exit_code == 1
    assert result.json()[0]["problems"][0]["path"] == f"{wheel.name}!typo/__init__.py"


def test_a_source_project_whose_module_does_not_compile_fails(run_hermes, tmp_path):
    project = tmp_path / "hermes-typo"
    (project / "src" / "hermes_typo").mkdir(parents=True)
    (project / "pyproject.toml").write_text(
        '[project]\nname = "hermes-typo"\nversion = "0.1.0"\ndependencies = ["hermes-host>=0.1"]\n'
        '[project.entry-points."hermes_agent.plugins"]\ntypo = "hermes_typo"\n', encoding="utf-8")
    (project / "src" / "hermes_typo" / "__init__.py").write_text(BROKEN, encoding="utf-8")
    (project / "src" / "hermes_typo" / "plugin.yaml").write_text("name: typo\nversion: 0.1.0\n", encoding="utf-8")
    result = run_hermes("plugins", "validate", str(project))
    assert result.exit_code == 1
    assert "the code does not compile: SyntaxError: expected ':' (line 1)" in result.stdout


def test_a_project_without_plugin_yaml_reports_the_version_its_pyproject_declares(run_hermes, tmp_path):
    # the version the installed package's metadata will carry; the report showed none
    project = tmp_path / "hermes-guards"
    (project / "hermes_guards").mkdir(parents=True)
    (project / "pyproject.toml").write_text(
        '[project]\nname = "hermes-guards"\nversion = "0.4.2"\n'
        '[project.entry-points."hermes_agent.plugins"]\nguards = "hermes_guards"\n', encoding="utf-8")
    (project / "hermes_guards" / "__init__.py").write_text("def register(ctx):\n    pass\n", encoding="utf-8")
    result = run_hermes("plugins", "validate", str(project))
    assert result.exit_code == 0
    assert result.stdout.startswith(f"ok   guards 0.4.2 (standalone) {project}/hermes_guards\n")
