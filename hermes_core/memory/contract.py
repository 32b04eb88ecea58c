"""A reusable contract test kit every memory provider author runs against their provider.

Subclass :class:`MemoryProviderContract` in a test module (its name must start with
``Test`` for pytest to collect it) and implement :meth:`make_provider`::

    from hermes_core.testing import MemoryProviderContract

    class TestVaultProvider(MemoryProviderContract):
        def make_provider(self, hermes_home):
            return VaultProvider(api_key="test")

The kit checks what the host relies on: a usable name, ``is_available`` without
network access, well-formed tool schemas, the lifecycle in the order the host
calls it, answers of the right types, that the host survives the provider
failing, and the optional memory-moving contract: ``export_memories()`` yields
valid records (or says plainly it cannot), ``import_memories(records)`` stores
them (or says plainly it cannot), and what was imported comes back in an export.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from hermes_core.memory.manager import BUILTIN_PROVIDER_NAME, RESERVED_TOOL_NAMES, MemoryManager
from hermes_core.memory.fallback_import import ImportUnsupported
from hermes_core.memory.provider import MemoryProvider
from hermes_core.memory.records import MemoryExportUnsupported, MemoryRecord, record_from_dict


class NetworkAccessed(AssertionError):
    """Raised when code under a no-network check opens a connection or resolves a name."""


class MemoryProviderContract:
    """Tests every memory provider must pass. Override :meth:`make_provider`."""

    #: Set to ``True`` in a subclass for the built-in provider (name "builtin", may own "memory").
    is_builtin = False

    def make_provider(self, hermes_home: Path) -> MemoryProvider:
        raise NotImplementedError("implement make_provider(hermes_home) in your test class")

    #: Set to ``False`` when records this provider imports do not come back verbatim in its export
    #: (for instance a backend that rewrites or merges what it is given).
    exports_imported_records = True
    #: Seconds ``flush_writes`` may take before the kit's round trip reads the export.
    flush_timeout = 30.0

    def contract_records(self) -> list[MemoryRecord]:
        """Records the kit imports; override if your backend needs other kinds or peers."""
        return [
            MemoryRecord("Contract kit record: the user's favourite colour is teal.", kind="preference", peer="user", created_at="2024-05-01T09:30:00Z", source="contract:1"),
            MemoryRecord("Contract kit record: the project builds with make release.", kind="fact", peer="user", created_at="2024-05-02T10:00:00Z", source="contract:2"),
        ]

    def initialize_kwargs(self, hermes_home: Path) -> dict[str, Any]:
        """Keyword arguments for ``initialize``; override to add what your provider needs."""
        return {"hermes_home": str(hermes_home), "platform": "cli", "agent_context": "primary"}

    @pytest.fixture
    def no_network(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Make any outgoing connection or DNS lookup fail loudly."""

        def refuse(*args: Any, **kwargs: Any) -> Any:
            raise NetworkAccessed(f"network access attempted: {args[:2]!r}")

        monkeypatch.setattr(socket.socket, "connect", refuse)
        monkeypatch.setattr(socket.socket, "connect_ex", refuse)
        monkeypatch.setattr(socket, "create_connection", refuse)
        monkeypatch.setattr(socket, "getaddrinfo", refuse)

    @pytest.fixture
    def provider(self, hermes_home: Path) -> MemoryProvider:
        provider = self.make_provider(hermes_home)
        yield provider
        try:
            provider.shutdown()
        except Exception:
            pass

    # -- identity --

    def test_is_a_memory_provider_with_a_usable_name(self, provider: MemoryProvider) -> None:
        assert isinstance(provider, MemoryProvider)
        assert isinstance(provider.name, str) and provider.name.strip() == provider.name and provider.name
        if self.is_builtin:
            assert provider.name == BUILTIN_PROVIDER_NAME
        else:
            assert provider.name != BUILTIN_PROVIDER_NAME, "'builtin' is reserved for the host's own memory"

    def test_is_available_touches_no_network(self, provider: MemoryProvider, no_network: None) -> None:
        assert isinstance(provider.is_available(), bool)

    # -- tools --

    def test_tool_schemas_are_openai_function_schemas(self, provider: MemoryProvider, hermes_home: Path) -> None:
        provider.initialize("contract-session", **self.initialize_kwargs(hermes_home))
        schemas = provider.get_tool_schemas()
        assert isinstance(schemas, list)
        names = []
        for schema in schemas:
            if schema.get("type") == "function":
                schema = schema["function"]
            assert isinstance(schema.get("name"), str) and schema["name"], schema
            assert isinstance(schema.get("description", ""), str)
            parameters = schema.get("parameters")
            assert isinstance(parameters, dict) and parameters.get("type") == "object", schema["name"]
            names.append(schema["name"])
        assert len(names) == len(set(names)), "tool names must be unique"
        if not self.is_builtin:
            assert not set(names) & RESERVED_TOOL_NAMES, f"core tool names are reserved: {sorted(RESERVED_TOOL_NAMES)}"
        json.dumps(schemas)  # must be serializable to go on the wire

    # -- lifecycle --

    def test_lifecycle_in_host_order_returns_the_right_types(self, provider: MemoryProvider, hermes_home: Path) -> None:
        provider.initialize("contract-session", **self.initialize_kwargs(hermes_home))
        assert isinstance(provider.system_prompt_block(), str)
        provider.on_turn_start(1, "What is the capital of France?", model="test-model", platform="cli")
        assert isinstance(provider.prefetch("What is the capital of France?", session_id="contract-session"), str)
        provider.sync_turn("What is the capital of France?", "Paris.", session_id="contract-session")
        provider.queue_prefetch("And of Italy?", session_id="contract-session")
        assert isinstance(provider.on_pre_compress([{"role": "user", "content": "hi"}]), str)
        provider.on_session_switch("contract-session-2", parent_session_id="contract-session", reset=False)
        provider.on_session_end([{"role": "user", "content": "bye"}])
        provider.shutdown()

    def test_empty_and_odd_input_is_handled(self, provider: MemoryProvider, hermes_home: Path) -> None:
        provider.initialize("contract-session", **self.initialize_kwargs(hermes_home))
        for query in ("", "   ", "ünïcödé — 東京 🙂", "x" * 20_000):
            assert isinstance(provider.prefetch(query, session_id="contract-session"), str)
        provider.sync_turn("", "", session_id="contract-session")

    def test_config_schema_fields_are_well_formed(self, provider: MemoryProvider) -> None:
        for field in provider.get_config_schema():
            assert isinstance(field.get("key"), str) and field["key"], field
            assert isinstance(field.get("description", ""), str)
            if field.get("secret"):
                assert field.get("env_var"), f"secret field {field['key']!r} needs an env_var to be stored in .env"

    def test_tool_calls_answer_with_json_strings(self, provider: MemoryProvider, hermes_home: Path) -> None:
        provider.initialize("contract-session", **self.initialize_kwargs(hermes_home))
        for schema in provider.get_tool_schemas():
            name = schema.get("function", schema)["name"]
            result = provider.handle_tool_call(name, {})
            assert isinstance(result, str)
            json.loads(result)

    # -- beside the host --

    def test_the_host_survives_this_provider_failing(self, provider: MemoryProvider, hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        manager = MemoryManager(prefetch_timeout=2)
        manager.add_provider(provider)
        for method in ("prefetch", "sync_turn", "queue_prefetch", "on_turn_start", "system_prompt_block"):
            monkeypatch.setattr(provider, method, _raiser(method))
        manager.initialize_all("contract-session", **self.initialize_kwargs(hermes_home))
        manager.on_turn_start(1, "question")
        assert manager.prefetch_all("a real question") == ""
        manager.sync_all("question", "answer")
        manager.queue_prefetch_all("next")
        assert manager.flush(10)
        assert isinstance(manager.build_system_prompt(), str)
        manager.shutdown_all()

    # -- moving memories between backends --

    def _export(self, provider: MemoryProvider) -> list[MemoryRecord] | None:
        """The export as checked records, or ``None`` when the provider says it cannot export."""
        try:
            exported = provider.export_memories()
        except MemoryExportUnsupported as exc:
            assert str(exc), "MemoryExportUnsupported must say why"
            return None
        assert exported is not None, "export_memories() must return an iterable of records (or raise MemoryExportUnsupported)"
        return [record_from_dict(item, fold_unknown=True) for item in exported]

    def test_export_yields_valid_records_or_says_it_cannot(self, provider: MemoryProvider, hermes_home: Path) -> None:
        provider.initialize("contract-session", **self.initialize_kwargs(hermes_home))
        records = self._export(provider)
        if records is not None:
            for record in records:
                json.loads(record.to_json())  # travels as one JSON line

    def test_import_takes_records_and_answers_a_count(self, provider: MemoryProvider, hermes_home: Path) -> None:
        provider.initialize("contract-session", **self.initialize_kwargs(hermes_home))
        try:
            assert provider.import_memories([]) in (0, None)
            stored = provider.import_memories(self.contract_records())
        except ImportUnsupported as exc:
            assert str(exc), "ImportUnsupported must say why"
            return
        assert stored is None or (isinstance(stored, int) and not isinstance(stored, bool) and 0 <= stored <= len(self.contract_records()))
        assert provider.flush_writes(self.flush_timeout) is True

    def test_imported_records_come_back_in_the_export(self, provider: MemoryProvider, hermes_home: Path) -> None:
        provider.initialize("contract-session", **self.initialize_kwargs(hermes_home))
        if self._export(provider) is None or not self.exports_imported_records:
            pytest.skip("this provider does not export, or declares that imports do not come back verbatim")
        try:
            provider.import_memories(self.contract_records())
        except ImportUnsupported:
            pytest.skip("this provider cannot import")
        assert provider.flush_writes(self.flush_timeout) is True
        texts = [record.text for record in self._export(provider) or []]
        for record in self.contract_records():
            assert any(record.text in text for text in texts), f"imported {record.text!r} is missing from export_memories()"

    def test_flush_writes_answers_true_when_nothing_is_pending(self, provider: MemoryProvider, hermes_home: Path) -> None:
        provider.initialize("contract-session", **self.initialize_kwargs(hermes_home))
        provider.sync_turn("Remember that the build server is called atlas.", "Noted.", session_id="contract-session")
        assert provider.flush_writes(self.flush_timeout) is True


def _raiser(method: str) -> Any:
    def raise_(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"contract kit: simulated failure in {method}")

    return raise_
