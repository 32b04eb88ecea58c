"""The project's MemoryProviderContract kit, run on the Honcho provider (real SDK, loopback server)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hermes_bundled_plugins.memory.honcho.provider import HonchoMemoryProvider
from hermes_core.testing import MemoryProviderContract


class TestHonchoProviderContract(MemoryProviderContract):
    @pytest.fixture(autouse=True)
    def _configured(self, honcho_config: Any) -> None:
        honcho_config(writeFrequency="async")

    def make_provider(self, hermes_home: Path) -> HonchoMemoryProvider:
        return HonchoMemoryProvider(retry_delays=(0.0,))

    def initialize_kwargs(self, hermes_home: Path) -> dict[str, Any]:
        return {**super().initialize_kwargs(hermes_home), "cwd": str(hermes_home)}

    def test_the_kit_ran_against_an_active_provider(self, provider: HonchoMemoryProvider, hermes_home: Path, sdk: Any) -> None:
        provider.initialize("contract-session", **self.initialize_kwargs(hermes_home))
        provider.sync_turn("kit question", "kit answer")
        provider.on_session_end([])
        assert provider.is_available() and len(provider.get_tool_schemas()) == 5
        assert [m.content for m in sdk.session(provider.session_name.name).messages()] == ["kit question", "kit answer"]
