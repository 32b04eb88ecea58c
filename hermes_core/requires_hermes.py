"""What a plugin's ``requires_hermes`` is compared with.

plugin.yaml is Hermes Agent's format, and so is its ``requires_hermes`` key: in a plugin written
for Hermes Agent, ``">=0.19"`` speaks of the Hermes Agent release whose plugin API the plugin
needs, not of this host's own version. So the requirement is read by who the plugin was
written for:

* written for hermes (shipped with it, a distribution that depends on ``hermes-host``, or code
  that imports ``hermes_core``): compared with hermes' own version;
* anything else was written for Hermes Agent: compared with :data:`HERMES_AGENT_API_LEVEL`,
  the Hermes Agent release whose plugin API the compatibility layer serves.

Nothing here imports plugin code: the decision reads the ``__init__.py`` text discovery
already has and, for entry points, the distribution's declared requirements.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

#: The newest Hermes Agent release whose plugin API the compatibility layer serves: the newest
#: release published on PyPI, the one ``benchmarks/compat_sample.py`` compares with.
HERMES_AGENT_API_LEVEL = "0.19.0"

#: Who a plugin was written for, which decides what its ``requires_hermes`` speaks of.
Audience = Literal["hermes", "hermes-agent"]
HERMES: Audience = "hermes"
HERMES_AGENT: Audience = "hermes-agent"

_IMPORTS_HERMES_CORE = re.compile(r"^\s*(?:from|import)\s+hermes_core\b", re.MULTILINE)
_HOST_DISTRIBUTION = "hermes-host"
_NATIVE_SOURCES = frozenset({"builtin", "bundled"})


def imports_hermes_core(code: str) -> bool:
    """Whether ``code`` (the start of a plugin's ``__init__.py``) imports this host's own API."""
    return bool(_IMPORTS_HERMES_CORE.search(code))


def _requirement_name(requirement: str) -> str:
    name = re.split(r"[\s;\[<>=!~(]", requirement.strip(), maxsplit=1)[0]
    return name.lower().replace("_", "-").replace(".", "-")


def distribution_depends_on_hermes(distribution: str, metadata_file: Path | None = None) -> bool:
    """Whether the installed ``distribution`` declares a requirement on ``hermes-host``.

    ``metadata_file`` (its ``METADATA``) is read as text when given: asking ``importlib.metadata``
    costs an import of the email parser that listing plugins avoids.
    """
    if not distribution:
        return False
    if metadata_file is not None and metadata_file.is_file():
        try:
            text = metadata_file.read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        requirements = [line.partition(":")[2] for line in text.splitlines() if line.startswith("Requires-Dist:")]
    else:
        from importlib import metadata

        try:
            requirements = metadata.distribution(distribution).requires or []
        except metadata.PackageNotFoundError:
            return False
    return any(_requirement_name(r) == _HOST_DISTRIBUTION for r in requirements)


def audience_of(source: str, init_text: str, distribution: str = "", metadata_file: Path | None = None) -> Audience:
    """Who a plugin was written for, judged from where it was found and what it declares."""
    if source in _NATIVE_SOURCES or imports_hermes_core(init_text) or distribution_depends_on_hermes(distribution, metadata_file):
        return HERMES
    return HERMES_AGENT


def check_requires_hermes(spec: str, running_version: str, audience: Audience = HERMES) -> str | None:
    """Return why this host does not satisfy ``spec`` for a plugin written for ``audience``, or ``None``."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet  # deferred: ~20 ms import
    from packaging.version import Version

    try:
        specifiers = SpecifierSet(spec)
    except InvalidSpecifier:
        return f"{spec!r} is not a version specifier (write e.g. '>=0.1,<1')"
    if audience == HERMES_AGENT:
        if specifiers.contains(Version(HERMES_AGENT_API_LEVEL), prereleases=True):
            return None
        return (
            f"needs Hermes Agent {spec}; this host serves the plugin API of Hermes Agent {HERMES_AGENT_API_LEVEL} "
            "(a plugin written for Hermes Agent states Hermes Agent's version)"
        )
    if specifiers.contains(Version(running_version), prereleases=True):
        return None
    return f"needs hermes {spec}, this is hermes {running_version}"


def fix_for(audience: Audience) -> str:
    if audience == HERMES_AGENT:
        return f"install a release of the plugin made for Hermes Agent {HERMES_AGENT_API_LEVEL} or older"
    return "upgrade hermes, or install a version of the plugin made for this one"


def requirement_as_warning(problems: list[Any], warnings: list[str]) -> None:
    """An unmet ``requires_hermes`` of a package written for Hermes Agent warns instead of refusing.

    Hermes Agent builds an entry point's manifest from the package metadata and never reads the
    plugin.yaml packaged with it, so it loads such a package whatever that file requires; this
    host does the same, and says what was declared.
    """
    for problem in [p for p in problems if p.field == "requires_hermes"]:
        problems.remove(problem)
        warnings.append(
            f"plugin '{problem.plugin}' ({problem.source}, {problem.path}): 'requires_hermes': {problem.cause}; "
            "loaded anyway, as Hermes Agent loads an installed package whatever its packaged plugin.yaml requires "
            "-> if a part of it fails, " + problem.fix
        )
