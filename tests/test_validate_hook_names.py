"""`hermes plugins validate` warns about a declared hook name no hermes fires (most often a typo)."""

from __future__ import annotations

import json
from pathlib import Path


def _plugin(tmp_path: Path, manifest: str) -> Path:
    directory = tmp_path / "typo_plugin"
    directory.mkdir()
    (directory / "plugin.yaml").write_text(manifest, encoding="utf-8")
    (directory / "__init__.py").write_text("def register(ctx):\n    pass\n", encoding="utf-8")
    return directory


def test_a_misspelt_hook_gets_a_warning_with_the_likely_name(run_hermes, tmp_path):
    directory = _plugin(tmp_path, "name: typo_plugin\nprovides_hooks: [pre_tool_cal]\nhooks: [on_sesion_end]\n")
    result = run_hermes("plugins", "validate", str(directory), "--json")
    assert result.exit_code == 0  # a warning: loading keeps unknown hooks for later releases
    warnings = json.loads(result.stdout)[0]["warnings"]
    assert any("'pre_tool_cal'" in w and "did you mean 'pre_tool_call'" in w for w in warnings), warnings
    assert any("'on_sesion_end'" in w and "did you mean 'on_session_end'" in w for w in warnings), warnings


def test_known_and_other_hosts_hooks_get_no_warning(run_hermes, tmp_path):
    directory = _plugin(tmp_path, "name: typo_plugin\nprovides_hooks: [pre_tool_call, on_stream_start]\n")
    result = run_hermes("plugins", "validate", str(directory), "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)[0]["warnings"] == []


def test_the_text_output_names_the_hook_and_the_fix(run_hermes, tmp_path):
    directory = _plugin(tmp_path, "name: typo_plugin\nprovides_hooks: [zzz_not_a_hook]\n")
    result = run_hermes("plugins", "validate", str(directory))
    assert "warning: plugin 'typo_plugin': plugin.yaml declares hook 'zzz_not_a_hook'" in result.stdout
    assert "docs/hooks.md" in result.stdout
