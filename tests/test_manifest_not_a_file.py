"""A plugin.yaml that is there but is no file (a directory, a link to nothing) is named as such, not as missing."""

from __future__ import annotations

from pathlib import Path

import pytest

REGISTER = "def register(ctx):\n    pass\n"


def _broken(directory: Path, kind: str, tmp_path: Path) -> Path:
    directory.mkdir(parents=True)
    (directory / "__init__.py").write_text(REGISTER, encoding="utf-8")
    if kind == "directory":
        (directory / "plugin.yaml").mkdir()
    else:
        (directory / "plugin.yaml").symlink_to(tmp_path / "moved-away.yaml")
    return directory


CAUSES = {
    "directory": "the plugin.yaml is a directory",
    "dangling link": "the plugin.yaml is a symbolic link to {target}, which does not exist",
}


@pytest.mark.parametrize("kind", list(CAUSES))
def test_plugins_list_names_what_holds_the_name(run_hermes, hermes_home, tmp_path, kind):
    _broken(hermes_home / "plugins" / "odd", kind, tmp_path)
    (entry,) = [e for e in run_hermes("plugins", "list", "--json").json() if e["key"] == "odd"]
    assert entry["status"] == "error"
    assert CAUSES[kind].format(target=tmp_path / "moved-away.yaml") in entry["error"]
    assert "there is no plugin.yaml" not in entry["error"]


@pytest.mark.parametrize("kind", list(CAUSES))
def test_validate_checks_the_plugin_instead_of_finding_none(run_hermes, tmp_path, kind):
    plugin = _broken(tmp_path / "odd", kind, tmp_path)
    result = run_hermes("plugins", "validate", str(plugin), "--json")
    assert result.exit_code == 1 and "no plugin.yaml found" not in result.stderr
    (report,) = result.json()
    assert CAUSES[kind].format(target=tmp_path / "moved-away.yaml") in report["problems"][0]["cause"]


def test_a_directory_without_any_plugin_yaml_is_still_reported_missing(run_hermes, hermes_home):
    plugin = hermes_home / "plugins" / "bare"
    plugin.mkdir(parents=True)
    (plugin / "__init__.py").write_text(REGISTER, encoding="utf-8")
    (entry,) = [e for e in run_hermes("plugins", "list", "--json").json() if e["key"] == "bare"]
    assert "there is no plugin.yaml in the plugin directory" in entry["error"]
