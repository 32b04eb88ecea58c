"""plugin.yaml: read it, check it against the JSON Schema, report every problem at once.

Nothing here imports plugin code. ``__init__.py`` is only read as text, for the
kind auto-detection that manifests without ``kind`` rely on.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_core.plugin_kind import detect_kind, guessed_kind_needs_word  # noqa: F401  (detect_kind: re-exported)

if TYPE_CHECKING:
    from hermes_core.requires_hermes import Audience

MANIFEST_FILE_NAMES: tuple[str, ...] = ("plugin.yaml", "plugin.yml")
SUPPORTED_MANIFEST_VERSION = 2
PLUGIN_KINDS: tuple[str, ...] = ("standalone", "backend", "exclusive", "platform", "model-provider")
SCHEMA_PATH = Path(__file__).with_name("schemas") / "plugin.schema.json"

# How much of __init__.py the kind auto-detection reads, as the reference host does.


@dataclass(frozen=True)
class PluginProblem:
    """One problem with one plugin (manifest, files or load), worded so the user can act on it."""

    plugin: str
    source: str
    path: str
    field: str
    cause: str
    fix: str

    def __str__(self) -> str:
        where = f"'{self.field}': " if self.field else ""
        return f"plugin '{self.plugin}' ({self.source}, {self.path}): {where}{self.cause} -> {self.fix}"

    def as_dict(self) -> dict[str, str]:
        return {
            "plugin": self.plugin,
            "source": self.source,
            "path": self.path,
            "field": self.field,
            "cause": self.cause,
            "fix": self.fix,
        }


#: Kept for readers of the reference host's vocabulary.
ManifestProblem = PluginProblem


@dataclass(frozen=True)
class RequiredEnv:
    """An environment variable a plugin needs (``requires_env``) or can use (``optional_env``)."""

    name: str
    description: str = ""
    url: str = ""
    secret: bool = False


@dataclass
class PluginManifest:
    """What a plugin says about itself in plugin.yaml, plus where it was found."""

    name: str
    version: str = ""
    description: str = ""
    author: str = ""
    kind: str = "standalone"
    #: ``True`` when ``kind`` was not written but derived from ``__init__.py``.
    kind_detected: bool = False
    requires_env: list[RequiredEnv] = field(default_factory=list)
    optional_env: list[RequiredEnv] = field(default_factory=list)
    provides_tools: list[str] = field(default_factory=list)
    provides_hooks: list[str] = field(default_factory=list)
    provides_cli_commands: list[str] = field(default_factory=list)
    requires_hermes: str = ""
    manifest_version: int = 1
    #: The manifest as written, including keys this host does not interpret.
    raw: dict[str, Any] = field(default_factory=dict)
    #: builtin | bundled | user | project | entrypoint
    source: str = ""
    #: The plugin directory, or the entry point's ``module`` for package plugins.
    path: str = ""
    #: The identifier used by config and the CLI: the name, or ``<category>/<name>``.
    key: str = ""


@dataclass
class ManifestReport:
    """The outcome of reading one manifest: the manifest if usable, and everything found."""

    manifest: PluginManifest | None
    problems: list[PluginProblem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.manifest is not None and not self.problems


@lru_cache(maxsize=1)
def _validator() -> Any:
    # Deferred: jsonschema costs ~80 ms to import, which `hermes --help` must not pay.
    from jsonschema import Draft202012Validator

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return Draft202012Validator(schema)


@lru_cache(maxsize=1)
def known_manifest_keys() -> frozenset[str]:
    """Top-level keys the schema describes; anything else draws a warning."""
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return frozenset(schema["properties"])


#: plugin.yaml files are a few hundred bytes; anything this large is refused unread.
MAX_MANIFEST_BYTES = 256 * 1024


class ManifestNotUtf8(ValueError):
    """A plugin.yaml whose bytes are not UTF-8; ``cause`` and ``fix`` word it for a PluginProblem."""

    def __init__(self, error: UnicodeDecodeError) -> None:
        self.offset = error.start
        self.cause = f"plugin.yaml is not UTF-8 text (byte {error.object[error.start]:#04x} at offset {error.start}: {error.reason})"
        data = bytes(error.object[:4])
        # Windows editors save "Unicode" as UTF-16 with a byte-order mark; anything else is most likely Latin-1
        source = "UTF-16" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else "Latin-1"
        convert = "iconv -f utf-16 -t utf-8" if source == "UTF-16" else "iconv -f latin1 -t utf-8"
        self.fix = f"re-save plugin.yaml as UTF-8 in your editor (a {source} file: {convert})"
        super().__init__(f"{self.cause} -> {self.fix}")


def decode_manifest(data: bytes) -> str:
    """The text of plugin.yaml bytes.

    Bytes that are not UTF-8 are refused rather than replaced: U+FFFD in a name or
    version would load the plugin under a garbled identity.

    :raises ManifestNotUtf8: the bytes are not UTF-8.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ManifestNotUtf8(exc) from None


def read_manifest_file(manifest_file: Path) -> str:
    """The text of a plugin.yaml.

    :raises hermes_core.files.UnreadableFileError: a FIFO, device, or a file over MAX_MANIFEST_BYTES.
    :raises ManifestNotUtf8: the file is not UTF-8.
    """
    from hermes_core.files import UnreadableFileError, read_limited_bytes

    try:
        return decode_manifest(read_limited_bytes(manifest_file, MAX_MANIFEST_BYTES, what="plugin.yaml"))
    except FileNotFoundError:
        if not os.path.islink(manifest_file):
            raise
        target = os.readlink(manifest_file)
        raise UnreadableFileError(f"{manifest_file}: the plugin.yaml is a symbolic link to {target}, which does not exist "
                                  "-> copy the file it should point to into the plugin") from None


def find_manifest_file(plugin_dir: Path) -> Path | None:
    """Return ``plugin.yaml`` (or the ``plugin.yml`` fallback) in ``plugin_dir``, if any.

    Whatever holds the name counts, a regular file or not: a directory or a link to nothing called
    plugin.yaml is then reported as unreadable, which says more than "there is no plugin.yaml".
    """
    for file_name in MANIFEST_FILE_NAMES:
        candidate = plugin_dir / file_name
        if candidate.is_file():
            return candidate
    return next((plugin_dir / n for n in MANIFEST_FILE_NAMES if os.path.lexists(plugin_dir / n)), None)


def _field_of(error: Any) -> str:
    parts = [str(p) for p in error.absolute_path]
    if error.validator == "required":
        # "'x' is a required property": the missing key is the field to name.
        missing = error.message.split("'")[1] if "'" in error.message else ""
        parts.append(missing)
    return ".".join(p for p in parts if p)


def _fix_for(error: Any, field_name: str) -> str:
    validator = error.validator
    if validator == "enum":
        choices = ", ".join(repr(c) for c in error.validator_value)
        return f"set '{field_name}' to one of {choices}"
    if validator == "type":
        expected = error.validator_value
        expected = " or ".join(expected) if isinstance(expected, list) else expected
        return f"make '{field_name}' a{'n' if str(expected)[0] in 'aeiou' else ''} {expected}"
    if validator == "required":
        return f"add '{field_name}' to plugin.yaml"
    if validator == "pattern" and field_name == "name":
        return "rename 'name' to one plain path component: no '/', '\\', control or text-direction characters, not '.' or '..', no spaces at either end"
    if validator == "pattern":
        return f"rename '{field_name}' to match {error.validator_value}"
    if validator == "oneOf":
        return f"write '{field_name}' as a string or as a mapping with a 'name' key"
    if validator in {"minimum", "minLength"}:
        return f"give '{field_name}' a larger value"
    return f"correct '{field_name or 'the manifest'}' in plugin.yaml"


def _env_list(value: Any) -> list[RequiredEnv]:
    # a scalar (``requires_env: 42``) is already a schema problem of this plugin; it adds nothing here
    if not isinstance(value, list):
        return []
    entries: list[RequiredEnv] = []
    for item in value:
        if isinstance(item, str):
            entries.append(RequiredEnv(name=item))
        elif isinstance(item, dict) and isinstance(item.get("name"), str):
            entries.append(
                RequiredEnv(
                    name=item["name"],
                    description=str(item.get("description", "")),
                    url=str(item.get("url", "")),
                    secret=bool(item.get("secret", False)),
                )
            )
    return entries


def _str_list(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def check_requires_hermes(spec: str, running_version: str) -> str | None:
    """Return why ``running_version`` does not satisfy ``spec``, or ``None`` if it does (a plugin written for hermes)."""
    from hermes_core.requires_hermes import check_requires_hermes as check

    return check(spec, running_version)


def _misspelt_keys(unknown: list[str]) -> str:
    """`` -> rename 'provides_hook' to 'provides_hooks'`` for unknown keys that look like misspelt known ones."""
    import difflib

    known = sorted(known_manifest_keys())
    renames = [
        f"{key!r} to {match[0]!r}"
        for key in unknown
        if (match := difflib.get_close_matches(str(key), known, n=1, cutoff=0.8))
    ]
    return f" -> rename {', '.join(renames)}" if renames else ""


def validate_manifest_data(
    data: Any,
    *,
    plugin: str,
    source: str,
    path: str,
    running_version: str,
    written_for: Audience = "hermes",
) -> tuple[list[PluginProblem], list[str]]:
    """Check parsed manifest ``data``; return (problems, warnings). Never raises.

    ``written_for`` says what ``requires_hermes`` speaks of (see :mod:`hermes_core.requires_hermes`).
    """

    def problem(field_name: str, cause: str, fix: str) -> PluginProblem:
        return PluginProblem(plugin, source, path, field_name, cause, fix)

    if not isinstance(data, dict):
        kind = "empty" if data is None else f"a {type(data).__name__}"
        return [problem("", f"the top level of plugin.yaml must be a mapping of keys, but it is {kind}", "start the file with 'name: <plugin name>'")], []

    problems: list[PluginProblem] = []
    warnings: list[str] = []
    for error in sorted(_validator().iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path]):
        field_name = _field_of(error)
        if field_name == "kind" and written_for == "hermes-agent" and isinstance(data.get("kind"), str):
            # Hermes Agent loads a plugin of an unknown kind as standalone, with a warning: so does hermes
            warnings.append(f"plugin '{plugin}' ({source}, {path}): {error.message}; loaded as 'standalone', as Hermes Agent does -> {_fix_for(error, field_name)}")
            continue
        problems.append(problem(field_name, error.message, _fix_for(error, field_name)))
    # key=str: YAML keys may be numbers, dates or booleans beside strings, which do not compare
    unknown = sorted(set(data) - known_manifest_keys(), key=str)
    if unknown:
        warnings.append(
            f"plugin '{plugin}' ({source}, {path}): unknown key(s) {', '.join(map(repr, unknown))} in plugin.yaml are ignored"
            + _misspelt_keys(unknown)
        )
    manifest_version = data.get("manifest_version", 1)
    if isinstance(manifest_version, int) and manifest_version > SUPPORTED_MANIFEST_VERSION:
        warnings.append(
            f"plugin '{plugin}' ({source}, {path}): manifest_version {manifest_version} is newer than "
            f"{SUPPORTED_MANIFEST_VERSION}, the newest this hermes knows; loading it anyway"
        )
    requires = data.get("requires_hermes")
    if isinstance(requires, str) and requires.strip():
        from hermes_core.requires_hermes import check_requires_hermes as check, fix_for

        why = check(requires, running_version, written_for)
        if why:
            problems.append(problem("requires_hermes", why, fix_for(written_for)))
    return problems, warnings


def _parse_yaml(text: str) -> Any:
    from hermes_core.yaml_limits import load_yaml  # deferred: see config.read_yaml_mapping

    return load_yaml(text)


def build_manifest(data: dict[str, Any], *, name: str, source: str, path: str, key: str, init_text: str) -> PluginManifest:
    """Turn checked manifest ``data`` into a :class:`PluginManifest`."""
    kind = data.get("kind")
    kind = kind if kind is None or kind in PLUGIN_KINDS else "standalone"  # refused, or a warning (see validate_manifest_data)
    detected = False
    if kind is None:
        guessed = detect_kind(init_text)
        kind, detected = (guessed, True) if guessed else ("standalone", False)
    version = data.get("version", "")
    return PluginManifest(
        name=name,
        version="" if version is None else str(version),
        description=str(data.get("description") or ""),
        author=str(data.get("author") or ""),
        kind=str(kind),
        kind_detected=detected,
        requires_env=_env_list(data.get("requires_env")),
        optional_env=_env_list(data.get("optional_env")),
        provides_tools=_str_list(data.get("provides_tools")),
        provides_hooks=_str_list(data.get("provides_hooks")),
        provides_cli_commands=_str_list(data.get("provides_cli_commands")),
        requires_hermes=str(data.get("requires_hermes") or ""),
        manifest_version=data.get("manifest_version", 1) if isinstance(data.get("manifest_version", 1), int) else 1,
        raw=data,
        source=source,
        path=path,
        key=key,
    )


def read_manifest_text(
    text: str,
    *,
    default_name: str,
    source: str,
    path: str,
    key: str | None,
    init_text: str,
    running_version: str,
    written_for: Audience = "hermes",
) -> ManifestReport:
    """Parse and check the text of a plugin.yaml. ``key`` defaults to the manifest's name."""
    import yaml

    from hermes_core.yaml_limits import describe_yaml_error

    try:
        data = _parse_yaml(text)
    except yaml.YAMLError as exc:
        cause = f"plugin.yaml is {describe_yaml_error(exc, invalid='not valid YAML')}"
        return ManifestReport(None, [PluginProblem(default_name, source, path, "", cause, "fix the YAML syntax of plugin.yaml")])

    name = default_name
    if isinstance(data, dict) and isinstance(data.get("name"), str) and data["name"].strip():
        name = data["name"].strip()
    problems, warnings = validate_manifest_data(
        data, plugin=name, source=source, path=path, running_version=running_version, written_for=written_for
    )
    if not isinstance(data, dict):
        return ManifestReport(None, problems, warnings)
    if "name" not in data:
        warnings.append(f"plugin '{name}' ({source}, {path}): plugin.yaml has no 'name'; using {name!r}")
    try:
        manifest = build_manifest(data, name=name, source=source, path=path, key=key or name, init_text=init_text)
    except Exception as exc:  # one odd manifest is that plugin's problem, never the host's crash
        cause = f"plugin.yaml cannot be read as a manifest ({type(exc).__name__}: {exc})"
        return ManifestReport(None, [*problems, PluginProblem(name, source, path, "", cause, "correct plugin.yaml against the manifest schema")], warnings)
    if guessed_kind_needs_word(manifest, init_text):
        warnings.append(
            f"plugin '{name}' ({source}, {path}): no 'kind' in plugin.yaml; treated as kind "
            f"'{manifest.kind}' because __init__.py mentions a memory/model provider "
            "(write 'kind: standalone' to load it as a general plugin)"
        )
    return ManifestReport(manifest, problems, warnings)
