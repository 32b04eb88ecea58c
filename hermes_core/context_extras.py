"""The parts of ``ctx`` that plugins written for Hermes Agent use beyond this host's own contract.

Web search backends are kept by name; provider kinds this host has no runtime for
(platform adapters, image/video generation, TTS, ...) are recorded and listed, never
called; ``ctx.llm`` and ``ctx.profile_name`` answer as Hermes Agent's do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hermes_core.errors import RegistrationError

if TYPE_CHECKING:
    from hermes_core.context import Registrations
    from hermes_core.manager import PluginManager


class HermesAgentRegistrars:
    """Mixed into :class:`~hermes_core.context.PluginContext`."""

    staged: Registrations
    _manager: PluginManager
    plugin_id: str

    def register_web_search_provider(self, provider: Any) -> None:
        """Offer a web search backend (``agent.web_search_provider.WebSearchProvider``); ``web.search_backend`` selects one."""
        from hermes_core.duck import missing_members

        lacking = missing_members(provider, ("name", "is_available"))
        if lacking or not (callable(getattr(provider, "search", None)) or callable(getattr(provider, "extract", None))):
            raise RegistrationError(
                f"register_web_search_provider expects a WebSearchProvider instance, got {type(provider).__name__} "
                f"(missing {', '.join(lacking) or 'search/extract'})"
            )
        self.staged.web_search_providers.append(provider)

    def _register_listed_provider(self, kind: str, provider: Any) -> None:
        # Kinds this host has no runtime for: recorded, listed, never called.
        self.staged.other_providers.append((kind, provider))

    def register_image_gen_provider(self, provider: Any) -> None:
        self._register_listed_provider("image_gen", provider)

    def register_video_gen_provider(self, provider: Any) -> None:
        self._register_listed_provider("video_gen", provider)

    def register_browser_provider(self, provider: Any) -> None:
        self._register_listed_provider("browser", provider)

    def register_tts_provider(self, provider: Any) -> None:
        self._register_listed_provider("tts", provider)

    def register_transcription_provider(self, provider: Any) -> None:
        self._register_listed_provider("transcription", provider)

    def register_platform(self, name: str, label: str = "", adapter_factory: Any = None, check_fn: Any = None, **kwargs: Any) -> None:
        """A gateway platform adapter: listed by ``plugins list --load``; this host runs no gateway."""
        self._register_listed_provider("platform", {"name": name, "label": label or name})

    def register_dashboard_auth_provider(self, provider: Any) -> None:
        self._register_listed_provider("dashboard_auth", provider)

    def register_secret_source(self, source: Any) -> None:
        self._register_listed_provider("secret_source", source)

    def register_slack_action_handler(self, action_id: str, callback: Any) -> None:
        self._register_listed_provider("slack_action", {"name": action_id})

    @property
    def profile_name(self) -> str:
        """``default``, the profile's name, or ``custom`` (a HERMES_HOME outside the profiles folder)."""
        from hermes_core.profiles import profile_name_of

        return profile_name_of(self._manager.home)

    @property
    def llm(self) -> Any:
        """The auxiliary model, for completions the plugin needs (``ctx.llm.complete(messages)``)."""
        from hermes_core.plugin_llm import PluginLlm

        return PluginLlm(self._manager, self.plugin_id)
