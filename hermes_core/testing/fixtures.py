"""pytest fixtures for plugin authors (registered as the ``pytest11`` plugin ``hermes``).

- ``hermes_home``: an isolated ``$HERMES_HOME`` in ``tmp_path``.
- ``make_plugin``: writes a directory plugin (plugin.yaml + ``__init__.py``) into a source.
- ``plugin_manager``: builds a :class:`~hermes_core.manager.PluginManager` for that home.
- ``hook_recorder``: records every hook call a manager makes.
- ``run_hermes``: runs the ``hermes`` CLI in-process and captures its output.
- :class:`MemoryProviderContract`: subclass it to run the memory-provider contract kit.

Importing this module stays cheap: it is loaded by every pytest run of anyone who
has hermes installed, so the host itself is imported inside the fixtures.
"""

from __future__ import annotations

import io
import os
import sys
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from hermes_core.memory.contract import MemoryProviderContract

__all__ = ["CliResult", "HookCall", "HookRecorder", "MemoryProviderContract"]

if TYPE_CHECKING:
    from hermes_core.hooks import HookOutcome
    from hermes_core.manager import PluginManager

#: Environment variables that change plugin loading; cleared so a test starts from defaults.
_HERMES_ENV_VARS = (
    "HERMES_SAFE_MODE",
    "HERMES_STRICT_PLUGINS",
    "HERMES_ENABLE_PROJECT_PLUGINS",
    "HERMES_PLUGINS_DEBUG",
    "HERMES_BUNDLED_PLUGINS",
)


@pytest.fixture
def hermes_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh ``$HERMES_HOME`` (``tmp_path/hermes_home``), with plugin env flags cleared."""
    home = tmp_path / "hermes_home"
    home.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(home))
    for name in _HERMES_ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def make_plugin(hermes_home: Path, tmp_path: Path) -> Callable[..., Path]:
    """Write a directory plugin and return its directory.

    ``make_plugin(name, code="", manifest=None, where="user", category=None, files=None)``

    - ``manifest``: a dict (dumped as YAML) or the literal text of plugin.yaml;
      default ``{"name": name, "version": "0.1.0"}``. ``False`` writes no manifest.
    - ``code``: the body of ``__init__.py`` (dedented); ``None`` writes no ``__init__.py``.
    - ``where``: ``"user"`` (``$HERMES_HOME/plugins``), ``"project"``
      (``tmp_path/project/.hermes/plugins``) or any directory ``Path``.
    - ``files``: extra ``{relative path: text}`` to write beside them.
    """

    def make(
        name: str,
        code: str | None = "",
        manifest: dict[str, Any] | str | bool | None = None,
        *,
        where: str | Path = "user",
        category: str | None = None,
        files: dict[str, str] | None = None,
    ) -> Path:
        import yaml

        if where == "user":
            root = hermes_home / "plugins"
        elif where == "project":
            root = tmp_path / "project" / ".hermes" / "plugins"
        else:
            root = Path(where)
        directory = root / category / name if category else root / name
        directory.mkdir(parents=True, exist_ok=True)
        if manifest is None:
            manifest = {"name": name, "version": "0.1.0"}
        if isinstance(manifest, dict):
            (directory / "plugin.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False), encoding="utf-8")
        elif isinstance(manifest, str):
            (directory / "plugin.yaml").write_text(manifest, encoding="utf-8")
        if code is not None:
            (directory / "__init__.py").write_text(textwrap.dedent(code), encoding="utf-8")
        for relative, text in (files or {}).items():
            target = directory / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(textwrap.dedent(text), encoding="utf-8")
        return directory

    return make


@pytest.fixture
def plugin_manager(hermes_home: Path) -> Callable[..., PluginManager]:
    """Build a PluginManager for ``hermes_home``.

    ``plugin_manager(enabled=(), config=None, strict=True, load=True, **kwargs)``:
    ``enabled`` keys go into ``plugins.enabled``; ``config`` is merged into config.yaml
    first; strict mode re-raises plugin failures (pass ``strict=False`` to test isolation).
    """
    from hermes_core.config import deep_merge, read_user_config, write_user_config
    from hermes_core.manager import PluginManager

    def build(
        enabled: tuple[str, ...] | list[str] = (),
        config: dict[str, Any] | None = None,
        strict: bool = True,
        load: bool = True,
        **kwargs: Any,
    ) -> PluginManager:
        data = read_user_config(hermes_home)
        if config:
            data = deep_merge(data, config)
        if enabled:
            plugins = data.setdefault("plugins", {})
            plugins["enabled"] = list(dict.fromkeys([*(plugins.get("enabled") or []), *enabled]))
        if data:
            write_user_config(hermes_home, data)
        manager = PluginManager(home=hermes_home, strict=strict, **kwargs)
        if load:
            manager.load_all()
        return manager

    return build


@dataclass
class HookCall:
    """One recorded hook call."""

    hook: str
    kwargs: dict[str, Any]
    outcomes: list[HookOutcome] = field(default_factory=list)

    @property
    def results(self) -> list[Any]:
        return [o.value for o in self.outcomes if not o.failed]

    @property
    def plugins(self) -> list[str]:
        return [o.plugin for o in self.outcomes]


class HookRecorder:
    """Every hook call a manager made while the recorder was attached."""

    def __init__(self) -> None:
        self.calls: list[HookCall] = []

    def hooks(self) -> list[str]:
        """Names of the hooks called, in order."""
        return [c.hook for c in self.calls]

    def calls_of(self, hook: str) -> list[HookCall]:
        return [c for c in self.calls if c.hook == hook]

    def assert_called(self, hook: str, **expected: Any) -> HookCall:
        """Return the last call of ``hook`` whose kwargs include ``expected``; fail if none."""
        for call in reversed(self.calls_of(hook)):
            if all(call.kwargs.get(k) == v for k, v in expected.items()):
                return call
        raise AssertionError(f"hook {hook!r} was not called with {expected!r}; calls: {self.hooks()}")


@pytest.fixture
def hook_recorder() -> Iterator[Callable[[PluginManager], HookRecorder]]:
    """``recorder = hook_recorder(manager)`` records the manager's hook calls until the test ends."""
    undo: list[Callable[[], None]] = []

    def attach(manager: PluginManager) -> HookRecorder:
        recorder = HookRecorder()
        pending: dict[int, HookCall] = {}

        def before(hook: str, kwargs: dict[str, Any]) -> None:
            pending[id(kwargs)] = HookCall(hook, dict(kwargs))

        def after(hook: str, kwargs: dict[str, Any], outcomes: list[HookOutcome]) -> None:
            call = pending.pop(id(kwargs), None) or HookCall(hook, dict(kwargs))
            call.outcomes = list(outcomes)
            recorder.calls.append(call)

        undo.append(manager.hooks.add_monitor(before, after))
        return recorder

    yield attach
    for remove in undo:
        remove()


@contextmanager
def _stdin(text: str) -> Iterator[None]:
    saved, sys.stdin = sys.stdin, io.StringIO(text)
    try:
        yield
    finally:
        sys.stdin = saved


#: What the CLI sets in its own environment from its global options.
_RUN_SCOPED_ENV = ("HERMES_HOME", "HERMES_PLUGINS_DEBUG")


@dataclass
class CliResult:
    """Exit code and output of one in-process ``hermes`` run."""

    exit_code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        import json

        return json.loads(self.stdout)


@pytest.fixture
def run_hermes(hermes_home: Path) -> Callable[..., CliResult]:
    """``run_hermes("plugins", "list", "--json")`` runs the CLI in-process against ``hermes_home``.

    Standard input is ``input`` (empty by default) and never a terminal, so a command that would
    prompt behaves as it does in a script, even under ``pytest -s``.
    """
    from hermes_core.cli.main import main

    def run(*argv: str, input: str = "") -> CliResult:
        out, err = io.StringIO(), io.StringIO()
        # '-p NAME' and '--debug' set these for the run, as they would for a process of its own: the next run starts
        # from the test's environment again.
        saved = {name: os.environ.get(name) for name in _RUN_SCOPED_ENV}
        with redirect_stdout(out), redirect_stderr(err), _stdin(input):
            try:
                code = main(list(argv))
            except SystemExit as exit_:  # argparse exits on --help and usage errors
                code = exit_.code if isinstance(exit_.code, int) else 1
            finally:
                for name, value in saved.items():
                    if value is None:
                        os.environ.pop(name, None)
                    else:
                        os.environ[name] = value
        return CliResult(code, out.getvalue(), err.getvalue())

    return run
