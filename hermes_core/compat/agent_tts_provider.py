"""``agent.tts_provider`` for plugins written for Hermes Agent: the text-to-speech backend base class.

A plugin offers a backend with ``ctx.register_tts_provider(provider)``. hermes has no speech
tool, so the provider is recorded and listed (``plugins list --load``: ``providers tts:<name>``),
never called; the base class is here so such plugins import and load.
"""

from __future__ import annotations

import abc
from collections.abc import Iterator
from typing import Any

from hermes_core.compat.listed_backend import ListedBackend

__all__ = ["TTSProvider", "DEFAULT_OUTPUT_FORMAT", "VALID_OUTPUT_FORMATS", "resolve_output_format"]

DEFAULT_OUTPUT_FORMAT = "mp3"
VALID_OUTPUT_FORMATS = frozenset({"mp3", "wav", "ogg", "opus", "flac"})


def resolve_output_format(value: Any) -> str:
    """``value`` as one of :data:`VALID_OUTPUT_FORMATS`; anything else is the default, not an error."""
    if isinstance(value, str) and value.strip().lower() in VALID_OUTPUT_FORMATS:
        return value.strip().lower()
    return DEFAULT_OUTPUT_FORMAT


class TTSProvider(ListedBackend):
    """A text-to-speech backend: implement :attr:`name` and :meth:`synthesize`; the rest has defaults."""

    def list_voices(self) -> list[dict[str, Any]]:
        """Voices as ``{"id", "display"?, "language"?, ...}``."""
        return []

    def default_voice(self) -> str | None:
        voices = self.list_voices()
        return voices[0].get("id") if voices else None

    @abc.abstractmethod
    def synthesize(
        self,
        text: str,
        output_path: str,
        *,
        voice: str | None = None,
        model: str | None = None,
        speed: float | None = None,
        format: str = DEFAULT_OUTPUT_FORMAT,  # noqa: A002 - the keyword plugins implement
        **extra: Any,
    ) -> str:
        """Write the audio of ``text`` to ``output_path`` and return that path; raise on failure."""

    def stream(self, text: str, *, voice: str | None = None, model: str | None = None, format: str = "opus", **extra: Any) -> Iterator[bytes]:  # noqa: A002
        raise NotImplementedError(f"TTS provider {self.name!r} does not stream; use synthesize()")

    @property
    def voice_compatible(self) -> bool:
        """Whether the output suits voice-message delivery."""
        return False
