"""``agent.image_gen_provider`` for plugins written for Hermes Agent: the image generation backend base class.

A plugin offers a backend with ``ctx.register_image_gen_provider(provider)``. hermes has no
image tool, so the backend is recorded and listed (``providers image_gen:<name>``), never
called by hermes; the helpers a backend builds its answers with work as documented.
"""

from __future__ import annotations

import abc
import base64
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

from hermes_core.compat.listed_backend import ListedBackend

__all__ = [
    "ImageGenProvider", "VALID_ASPECT_RATIOS", "DEFAULT_ASPECT_RATIO", "resolve_aspect_ratio",
    "save_b64_image", "success_response", "error_response",
]

VALID_ASPECT_RATIOS: tuple[str, ...] = ("landscape", "square", "portrait")
DEFAULT_ASPECT_RATIO = "landscape"


class ImageGenProvider(ListedBackend):
    """An image generation backend: implement :attr:`name` and :meth:`generate`."""

    @abc.abstractmethod
    def generate(self, prompt: str, aspect_ratio: str = DEFAULT_ASPECT_RATIO, **kwargs: Any) -> dict[str, Any]:
        """Generate an image; answer with :func:`success_response` or :func:`error_response`."""


def resolve_aspect_ratio(value: Any) -> str:
    """``value`` as one of :data:`VALID_ASPECT_RATIOS`; anything else is the default, not an error."""
    if isinstance(value, str) and value.strip().lower() in VALID_ASPECT_RATIOS:
        return value.strip().lower()
    return DEFAULT_ASPECT_RATIO


def save_b64_image(b64_data: str, *, prefix: str = "image", extension: str = "png") -> Path:
    """Decode ``b64_data`` into ``$HERMES_HOME/cache/images/<prefix>_<time>_<id>.<extension>``; its path."""
    from hermes_core.compat.hermes_constants import get_hermes_home

    directory = get_hermes_home() / "cache" / "images"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{prefix}_{datetime.now():%Y%m%d_%H%M%S}_{uuid.uuid4().hex[:8]}.{extension}"
    path.write_bytes(base64.b64decode(b64_data))
    return path


def success_response(
    *, image: str, model: str, prompt: str, aspect_ratio: str, provider: str, extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The answer of a generation that worked; ``extra`` adds fields without replacing these."""
    answer: dict[str, Any] = {"success": True, "image": image, "model": model, "prompt": prompt, "aspect_ratio": aspect_ratio, "provider": provider}
    for key, value in (extra or {}).items():
        answer.setdefault(key, value)
    return answer


def error_response(
    *, error: str, error_type: str = "provider_error", provider: str = "", model: str = "", prompt: str = "",
    aspect_ratio: str = DEFAULT_ASPECT_RATIO,
) -> dict[str, Any]:
    """The answer of a generation that failed."""
    return {
        "success": False, "image": None, "error": error, "error_type": error_type,
        "model": model, "prompt": prompt, "aspect_ratio": aspect_ratio, "provider": provider,
    }
