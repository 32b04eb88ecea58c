"""The architecture as the build keeps it: the map in docs/architecture.md names every package, the
import contracts hold, and no source module grows past what one can keep in mind."""
from __future__ import annotations

import logging
import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ROOTS = ("hermes_core", "hermes_plugins_builtin", "plugins")
#: Lines a source module may have; past it, split the module along its seams (docs/architecture.md).
MAX_MODULE_LINES = 400


def _packages() -> list[Path]:
    found = []
    for root in ROOTS:
        for init in (REPO / root).rglob("__init__.py"):
            if "__pycache__" not in init.parts:
                found.append(init.parent.relative_to(REPO))
        if root == "plugins":  # bundled directory plugins are packages too
            found += [m.parent.relative_to(REPO) for m in (REPO / root).rglob("plugin.yaml")]
    return sorted(set(found))


def test_the_architecture_map_names_every_package():
    layout = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8").split("## Layout", 1)[1]
    missing = [str(p) for p in _packages()
               if p.parts[-1] not in ROOTS and not re.search(rf"(?m)^\s*(?:\S*/)?{re.escape(p.parts[-1])}/", layout)]
    assert missing == [], f"packages the map in docs/architecture.md does not mention: {missing} -> add a line each"


def test_the_import_contracts_in_pyproject_hold(monkeypatch, capsys):
    """The layers the map draws, as import-linter contracts ([tool.importlinter] in pyproject.toml)."""
    from importlinter.cli import EXIT_STATUS_SUCCESS, lint_imports

    monkeypatch.chdir(REPO)
    monkeypatch.syspath_prepend(str(REPO))  # the bundled `plugins` directory is a root package too
    # lint_imports configures logging with dictConfig, which disables every logger that exists
    # already; the tests that run after this one still read hermes's log records.
    loggers = [lg for lg in logging.root.manager.loggerDict.values() if isinstance(lg, logging.Logger)]
    disabled = [lg.disabled for lg in loggers]
    try:
        status = lint_imports(config_filename=str(REPO / "pyproject.toml"), no_cache=True, no_logo=True)
    finally:
        for logger, was_disabled in zip(loggers, disabled):
            logger.disabled = was_disabled
    report = capsys.readouterr().out
    assert status == EXIT_STATUS_SUCCESS, f"an import breaks a layer contract:\n{report}"


def test_no_source_module_is_longer_than_the_limit():
    too_long = {}
    for root in ROOTS:
        for module in (REPO / root).rglob("*.py"):
            if "__pycache__" not in module.parts:
                lines = len(module.read_text(encoding="utf-8").splitlines())
                if lines > MAX_MODULE_LINES:
                    too_long[str(module.relative_to(REPO))] = lines
    assert too_long == {}, (
        f"modules over {MAX_MODULE_LINES} lines: {too_long} -> split each along its seams "
        "(one job per module; keep the old import path as a re-export if plugins use it)"
    )
