"""SPEC parsing for ``hermes plugins install``: requirement, wheel, archive, project, directory or git URL."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Literal

from hermes_core.distribution.errors import SpecError

SpecKind = Literal["requirement", "wheel", "archive", "project", "directory", "git"]

ARCHIVE_SUFFIXES: tuple[str, ...] = (".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar", ".zip")
PROJECT_FILES: tuple[str, ...] = ("pyproject.toml", "setup.py", "setup.cfg")
DIRECTORY_PLUGIN_FILES: tuple[str, ...] = ("plugin.yaml", "plugin.yml", "__init__.py")
GITHUB_SHORTHAND_URL = "https://github.com/{owner}/{repo}.git"

_URL_PREFIXES = ("https://", "http://", "ssh://", "git://", "file://", "git+")
_SCP_LIKE = re.compile(r"^[A-Za-z0-9_.-]+@[A-Za-z0-9_.-]+:[^/\\]")
_SHORTHAND = re.compile(r"^(?P<owner>[A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))/(?P<repo>[A-Za-z0-9_.-]{1,100})$")


@dataclass(frozen=True)
class PluginSpec:
    """What the user asked to install, resolved to one kind of source.

    ``location`` is an absolute path for local kinds, the clone URL for ``git`` and the
    PEP 508 requirement for ``requirement``.
    """

    text: str
    kind: SpecKind
    location: str
    subdir: str = ""
    ref: str = ""
    #: The canonical distribution name, when known before anything is fetched.
    distribution: str = ""

    @property
    def source(self) -> str:
        """Where it comes from, as recorded in plugins.lock: ``index``, ``path`` or ``git``."""
        if self.kind == "requirement":
            return "index"
        return "git" if self.kind == "git" else "path"

    def with_ref(self, ref: str) -> PluginSpec:
        return replace(self, ref=ref)


def canonical_name(name: str) -> str:
    """PEP 503 normalisation: ``Hermes_Weather`` -> ``hermes-weather``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _split_subdir(text: str) -> tuple[str, str]:
    if "#" not in text:
        return text, ""
    base, _, fragment = text.rpartition("#")
    # pip's spelling (#subdirectory=path) is accepted beside the short one (#path).
    subdir = fragment.split("=", 1)[1] if fragment.startswith("subdirectory=") else fragment
    return base, check_subdir(subdir, text)


def _split_ref(url: str, text: str) -> tuple[str, str]:
    """pip's ``URL@REF`` (``git+https://host/repo.git@v1``): the ref after the last '@' of the path.

    An '@' before the host (``ssh://git@host/...``, ``git@host:owner/repo``) names the user, not a ref.
    """
    scheme, separator, rest = url.partition("://")
    if separator:
        host, slash, path = rest.partition("/")
        prefix = f"{scheme}://{host}{slash}"
    else:  # scp-like: user@host:path
        host, colon, path = url.partition(":")
        prefix = f"{host}{colon}"
    if "@" not in path:
        return url, ""
    path, _, ref = path.rpartition("@")
    if not ref.strip() or not path:
        raise SpecError(f"{text!r}: nothing follows '@' -> write the branch, tag or commit after it, e.g. 'git+https://host/repo.git@v1.0'")
    return prefix + path, ref.strip()


def check_subdir(subdir: str, text: str) -> str:
    """Return ``subdir`` if it is a plain relative path inside the repository or directory."""
    subdir = subdir.strip().rstrip("/")
    path = PurePosixPath(subdir)
    if not subdir or path.is_absolute() or ".." in path.parts or "\\" in subdir:
        raise SpecError(
            f"{text!r}: the subdirectory after '#' must be a relative path inside the source, without '..' "
            "-> write it like 'owner/repo#plugins/my_plugin'"
        )
    return subdir


def installs_as_package(directory: Path) -> bool:
    """Whether ``directory`` is installed with pip rather than copied as a directory plugin.

    A Hermes Agent directory plugin (plugin.yaml and __init__.py at its root) often carries a
    pyproject.toml only for its tests and tools, and is published to be installed the way Hermes
    Agent's 'plugins install owner/repo' does it: by copying. Such a directory is a package only when
    its pyproject.toml declares a hermes entry point, or when that cannot be read statically
    (setup.py, setup.cfg, dynamic entry points, a file tomllib refuses: pip then says what is wrong).
    """
    if not any((directory / f).is_file() for f in PROJECT_FILES):
        return False
    directory_plugin = (directory / "__init__.py").is_file() and any((directory / f).is_file() for f in ("plugin.yaml", "plugin.yml"))
    if not directory_plugin or (directory / "setup.py").is_file() or (directory / "setup.cfg").is_file():
        return True
    import tomllib

    from hermes_core.plugin_candidate import ENTRY_POINT_GROUP, MEMORY_ENTRY_POINT_GROUP

    try:
        data = tomllib.loads((directory / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return True
    project = data.get("project") if isinstance(data.get("project"), dict) else {}
    tool = data.get("tool") if isinstance(data.get("tool"), dict) else {}
    poetry = tool.get("poetry") if isinstance(tool.get("poetry"), dict) else {}
    tables = [project.get("entry-points"), poetry.get("plugins")]
    groups = {group for table in tables if isinstance(table, dict) for group in table}
    dynamic = project.get("dynamic") if isinstance(project.get("dynamic"), list) else []
    return bool(groups & {ENTRY_POINT_GROUP, MEMORY_ENTRY_POINT_GROUP}) or "entry-points" in dynamic


def _local_kind(path: Path, text: str) -> SpecKind:
    if not path.exists():
        raise SpecError(f"{text!r}: no such file or directory -> check the path, or give a package name, a wheel, "
                        "an archive or a git URL")
    if path.is_file():
        name = path.name.lower()
        if name.endswith(".whl"):
            return "wheel"
        if name.endswith(ARCHIVE_SUFFIXES):
            return "archive"
        raise SpecError(f"{text!r} is a file but not a wheel (.whl) or an archive ({', '.join(ARCHIVE_SUFFIXES)}) -> give a wheel, an sdist, or a directory")
    if installs_as_package(path):
        return "project"
    if any((path / f).is_file() for f in DIRECTORY_PLUGIN_FILES):
        return "directory"
    raise SpecError(
        f"{text!r} is a directory with neither a Python project (pyproject.toml, setup.py) nor a plugin "
        "(plugin.yaml, __init__.py) -> point at the plugin's own directory, or add '#subdir'"
    )


def _looks_like_path(text: str, resolved: Path) -> bool:
    """Explicit paths, and relative ones with a separator that exist; a bare word is a package name."""
    if text.startswith(("/", "./", "../", "~")) or text in {".", ".."}:
        return True
    if text.lower().endswith((".whl", *ARCHIVE_SUFFIXES)):
        return True
    return os.sep in text and resolved.exists()


def parse_spec(text: str, *, cwd: Path | None = None, ref: str = "") -> PluginSpec:
    """Classify ``text``; a local path is resolved against ``cwd``. Raises :class:`SpecError`."""
    original = text
    text = text.strip()
    if not text:
        raise SpecError("an empty SPEC was given -> give a package name, a path, or a git URL")
    cwd = Path.cwd() if cwd is None else cwd

    if text.startswith(_URL_PREFIXES) or _SCP_LIKE.match(text):
        base, subdir = _split_subdir(text)
        if base.startswith("git+"):
            base = base[4:]
        if base.startswith("file://"):
            local = Path(base[len("file://"):])
            # A file:// URL to a wheel or archive is a local file, not a repository.
            if local.is_file():
                return _local_spec(local, original, subdir, ref)
        base, url_ref = _split_ref(base, original)
        if url_ref and ref and url_ref != ref:
            raise SpecError(f"{original!r} names the ref '{url_ref}' and --ref names '{ref}' -> give only one of them")
        return PluginSpec(original, "git", base, subdir, ref or url_ref)

    base, subdir = _split_subdir(text)
    candidate = Path(os.path.expanduser(base))
    if not candidate.is_absolute():
        candidate = cwd / candidate
    if _looks_like_path(base, candidate):
        if not candidate.exists():
            raise SpecError(f"{original!r}: no such file or directory ({candidate}) -> check the path")
        return _local_spec(candidate, original, subdir, ref)

    shorthand = _SHORTHAND.match(base)
    if shorthand:
        url = GITHUB_SHORTHAND_URL.format(owner=shorthand["owner"], repo=shorthand["repo"].removesuffix(".git"))
        return PluginSpec(original, "git", url, subdir, ref)

    if subdir:
        raise SpecError(f"{original!r}: '#subdir' only applies to git URLs and local paths -> remove it")
    from packaging.requirements import InvalidRequirement, Requirement  # deferred: ~20 ms import

    try:
        requirement = Requirement(text)
    except InvalidRequirement as exc:
        # packaging adds the text and a caret under the error on further lines; one line is enough.
        reason = str(exc).splitlines()[0].strip() if str(exc).strip() else "invalid"
        raise SpecError(
            f"{original!r} is not a package requirement, an existing path, or a git URL ({reason}) -> "
            "give e.g. 'hermes-weather', 'hermes-weather>=1.2', './my_plugin', 'owner/repo' or 'https://host/repo.git'"
        ) from exc
    if ref:
        raise SpecError(f"{original!r}: --ref applies to git sources only -> pin a version instead, e.g. '{requirement.name}==1.2'")
    return PluginSpec(original, "requirement", str(requirement), distribution=canonical_name(requirement.name))


def _local_spec(path: Path, text: str, subdir: str, ref: str) -> PluginSpec:
    if ref:
        raise SpecError(f"{text!r}: --ref applies to git sources only -> check out the revision in that directory")
    path = path.resolve()
    if subdir:
        if not path.is_dir():
            raise SpecError(f"{text!r}: '#subdir' needs a directory, and {path} is a file -> remove '#{subdir}'")
        path = path / subdir
        if not path.exists():
            raise SpecError(f"{text!r}: {path} does not exist -> check the subdirectory after '#'")
    kind = _local_kind(path, text)
    distribution = ""
    if kind == "wheel":
        distribution = canonical_name(path.name.split("-", 1)[0])
    return PluginSpec(text, kind, str(path), "", "", distribution)


# As in pip's requirements files: '#' starts a comment at the start of a line or after
# whitespace; elsewhere it is part of the SPEC ('owner/repo#subdir').
_COMMENT = re.compile(r"(^|\s)#.*$")


def spec_from_lines(text: str) -> list[str]:
    """The SPECs of a plain ``-r`` file: one a line; blank lines and ``#`` comments are skipped."""
    specs = []
    for line in text.splitlines():
        stripped = _COMMENT.sub("", line).strip()
        if stripped:
            specs.append(stripped)
    return specs
