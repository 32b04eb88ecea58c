"""Remember validation results of unchanged manifests, so listing plugins skips YAML and JSON Schema.

Every manifest is still validated against the schema, once per distinct content:
the key is a digest of the manifest text, the start of ``__init__.py`` (kind
detection reads it), where it was found, the running hermes version and the schema
itself. Any change to one of them is a miss and validates again.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path
from typing import Any

from hermes_core.manifest import ManifestReport, PluginManifest, PluginProblem, RequiredEnv, SCHEMA_PATH

CACHE_FILE_NAME = "plugin-manifests.json"
_FORMAT = 1


@lru_cache(maxsize=1)
def _schema_fingerprint() -> str:
    return hashlib.sha1(SCHEMA_PATH.read_bytes()).hexdigest()


def manifest_digest(*parts: str) -> str:
    """A digest of everything a manifest's validation result depends on."""
    digest = hashlib.sha1(_schema_fingerprint().encode())
    for part in parts:
        digest.update(b"\0")
        digest.update(part.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _report_to_json(report: ManifestReport) -> dict[str, Any]:
    return {
        "manifest": asdict(report.manifest) if report.manifest else None,
        "problems": [p.as_dict() for p in report.problems],
        "warnings": list(report.warnings),
    }


def _report_from_json(data: dict[str, Any]) -> ManifestReport:
    manifest = None
    if data["manifest"] is not None:
        fields = dict(data["manifest"])
        fields["requires_env"] = [RequiredEnv(**e) for e in fields["requires_env"]]
        fields["optional_env"] = [RequiredEnv(**e) for e in fields["optional_env"]]
        manifest = PluginManifest(**fields)
    return ManifestReport(manifest, [PluginProblem(**p) for p in data["problems"]], list(data["warnings"]))


class ManifestCache:
    """A JSON file of validation results keyed by :func:`manifest_digest`; best effort only."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._entries: dict[str, Any] = {}
        self._used: set[str] = set()
        self._dirty = False
        if path is not None:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                if data.get("format") == _FORMAT:
                    self._entries = data.get("entries", {})
            except (OSError, ValueError, AttributeError):
                self._entries = {}

    def get(self, digest: str) -> ManifestReport | None:
        entry = self._entries.get(digest)
        if entry is None:
            return None
        try:
            report = _report_from_json(entry)
        except (KeyError, TypeError):
            return None
        self._used.add(digest)
        return report

    def put(self, digest: str, report: ManifestReport) -> None:
        self._entries[digest] = _report_to_json(report)
        self._used.add(digest)
        self._dirty = True

    def save(self) -> None:
        """Write the results used in this run (dropping stale ones); errors are ignored."""
        if self.path is None:
            return
        if not self._dirty and set(self._entries) == self._used:
            return
        from hermes_core.config import atomic_write_text

        kept = {digest: self._entries[digest] for digest in sorted(self._used) if digest in self._entries}
        try:
            atomic_write_text(self.path, json.dumps({"format": _FORMAT, "entries": kept}), mode=0o600)
        except OSError:
            pass  # a read-only home only costs speed


def default_cache(home: Path) -> ManifestCache:
    """The cache under ``$HERMES_HOME/cache``; ``HERMES_NO_PARSE_CACHE=1`` turns it off."""
    from hermes_core.config import parse_cache_enabled

    if not parse_cache_enabled():
        return ManifestCache(None)
    return ManifestCache(home / "cache" / CACHE_FILE_NAME)
