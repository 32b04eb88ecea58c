"""The Mem0 provider passes the MemoryProviderContract kit, in local mode against the loopback model."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_core.memory.provider import MemoryProvider
from hermes_core.testing import MemoryProviderContract

from mem0_testkit import write_config


class TestMem0Contract(MemoryProviderContract):
    @pytest.fixture(autouse=True)
    def _configured(self, hermes_home: Path, server) -> None:
        write_config(hermes_home, server.base_url)

    def make_provider(self, hermes_home: Path) -> MemoryProvider:
        from hermes_core.manager import PluginManager

        plugins = PluginManager()
        plugins.load_all()
        provider = plugins.active_memory_provider()
        assert provider is not None and provider.name == "mem0"
        return provider
