"""``hermes plugins new``: render the bundled cookiecutter template into a new plugin project."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from hermes_core._version import __version__
from hermes_core.errors import HermesError

TEMPLATE_PACKAGE = "hermes_plugin_template"
KINDS: tuple[str, ...] = ("hooks", "tools", "memory-provider", "context-engine")
_NAME = re.compile(r"[a-z][a-z0-9_]{0,47}")


def template_root() -> Path:
    """The template directory: package data of the wheel, or ``plugin_template/`` of a checkout."""
    import importlib.util

    # find_spec locates the data package without running anything in it.
    spec = importlib.util.find_spec(TEMPLATE_PACKAGE)
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            if (Path(location) / "cookiecutter.json").is_file():
                return Path(location)
    checkout = Path(__file__).resolve().parents[2] / "plugin_template"
    if (checkout / "cookiecutter.json").is_file():
        return checkout
    raise HermesError(f"the plugin template ({TEMPLATE_PACKAGE}) is missing from this hermes installation -> reinstall hermes")


def template_defaults() -> dict[str, str]:
    """The template's default text values (``cookiecutter.json``), for prompts that show them."""
    import json

    data = json.loads((template_root() / "cookiecutter.json").read_text(encoding="utf-8"))
    return {key: value for key, value in data.items() if isinstance(value, str) and not key.startswith("_")}


def normalise_name(name: str) -> str:
    """``My-Plugin`` -> ``my_plugin``; a leading ``hermes-``/``hermes_`` is dropped (the project adds it)."""
    cleaned = name.strip().lower().replace("-", "_")
    cleaned = re.sub(r"^hermes_", "", cleaned)
    if not _NAME.fullmatch(cleaned):
        raise HermesError(
            f"{name!r} cannot be a plugin name for a new project: it must start with an ASCII letter and use only ASCII "
            "letters, digits, '_' and '-' (at most 48 characters; it names the Python package and the PyPI project) "
            "-> e.g. 'hermes plugins new rm_guard'"
        )
    from hermes_core.distribution.checks import builtin_plugin_keys

    if cleaned in builtin_plugin_keys():  # the builtin keeps its key: a plugin of that name would never load
        raise HermesError(f"{name!r} is the name of a builtin plugin, which always keeps it, so a plugin of that name would never load "
                          f"-> choose another name, e.g. 'hermes plugins new {cleaned}_plus'")
    return cleaned


def create_project(
    name: str,
    kind: str,
    output_dir: Path,
    *,
    no_input: bool,
    extra: dict[str, str] | None = None,
) -> Path:
    """Generate the project for plugin ``name`` of ``kind`` under ``output_dir``; return its directory."""
    if kind not in KINDS:
        raise HermesError(f"unknown plugin kind {kind!r} -> choose one of {', '.join(KINDS)}")
    plugin_name = normalise_name(name)
    from hermes_core.memory.tool_routing import BUILTIN_PROVIDER_NAME

    if kind == "memory-provider" and plugin_name == BUILTIN_PROVIDER_NAME:  # memory.provider 'builtin' means built-in memory only: such a provider is never selected
        raise HermesError(f"{name!r} is the name hermes gives its built-in memory ('memory.provider: builtin' means built-in "
                          f"memory only), so a memory provider of that name could never be selected -> choose another name, "
                          f"e.g. 'hermes plugins new {plugin_name}_memory'")
    for key, value in (extra or {}).items():
        if "\n" in value or "\r" in value:  # package metadata keeps them on one line
            raise HermesError(f"the {key.replace('_', ' ')} must be one line, and {value!r} is not -> give it without line breaks")
    major_minor = ".".join(__version__.split(".")[:2])
    context = {"plugin_name": plugin_name, "kind": kind, "_hermes_version": major_minor, **(extra or {})}
    slug = f"hermes-{plugin_name.replace('_', '-')}"
    if output_dir.exists() and not output_dir.is_dir():
        raise HermesError(f"--output-dir {output_dir} is a file, not a directory -> give the directory to create the project in")
    if (output_dir / slug).exists():
        raise HermesError(f"{output_dir / slug} already exists -> choose another name or --output-dir, or remove it")
    try:
        from cookiecutter.exceptions import CookiecutterException, FailedHookException
        from cookiecutter.main import cookiecutter
    except ImportError as exc:  # hermes depends on cookiecutter; this is a broken environment
        raise HermesError("cookiecutter is not installed in hermes' environment -> run 'pip install cookiecutter'") from exc
    # cookiecutter keeps replays and downloaded templates under ~ by default; this
    # command works from the bundled copy and leaves nothing behind in the home dir.
    with tempfile.TemporaryDirectory(prefix="hermes-new-") as scratch:
        settings = {"replay_dir": str(Path(scratch) / "replay"), "cookiecutters_dir": str(Path(scratch) / "templates")}
        try:
            project = cookiecutter(
                str(template_root()),
                no_input=no_input,
                extra_context=context,
                output_dir=str(output_dir),
                default_config=settings,  # a dict is merged into cookiecutter's defaults
            )
        except FailedHookException as exc:
            raise HermesError(f"the template refused the input ({exc}) -> check the values given") from exc
        except CookiecutterException as exc:
            _remove_partial(output_dir / slug)
            raise HermesError(f"cannot generate the project: {exc} -> check the values given") from exc
        except OSError as exc:  # a directory that cannot be created or written, a full disk
            _remove_partial(output_dir / slug)
            raise HermesError(f"cannot create the project in {output_dir}: {exc.strerror or exc} -> give a directory you can write to "
                              "(--output-dir); nothing was left behind") from exc
    return Path(project)


def _remove_partial(project: Path) -> None:
    """A project cut off half-way is removed: it was checked not to exist before generation began."""
    import shutil

    shutil.rmtree(project, ignore_errors=True)
