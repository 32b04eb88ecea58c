"""Providers and engines accepted by what they do, not by their base class.

Plugins written for Hermes Agent subclass *its* ``MemoryProvider`` / ``ContextEngine``,
or a copy they ship for hosts without one (``except ImportError: MemoryProvider = object``).
Such an object has the contract's required members but is not an instance of this host's
base class; :func:`as_memory_provider` and :func:`as_context_engine` wrap it in an adapter
that is one, and that calls the object's own methods (with their own signatures, which
the host inspects) wherever it has them.
"""

from __future__ import annotations

import inspect
from typing import Any

from hermes_core.context_engine import ContextEngine
from hermes_core.memory.provider import MemoryProvider

#: What an object needs to be taken for a memory provider: Hermes Agent's abstract members.
MEMORY_PROVIDER_REQUIRED = ("name", "is_available", "initialize", "get_tool_schemas")
#: The same for a context engine.
CONTEXT_ENGINE_REQUIRED = ("name", "update_from_response", "should_compress", "compress")


def missing_members(obj: Any, required: tuple[str, ...]) -> list[str]:
    """The required members ``obj`` lacks (``name`` must be a non-empty string, the rest callable)."""
    missing = []
    for member in required:
        try:
            value = getattr(obj, member)
        except Exception:
            missing.append(member)
            continue
        if member == "name":
            if not isinstance(value, str) or not value:
                missing.append(member)
        elif not callable(value):
            missing.append(member)
    return missing


def _adopt_methods(adapter: Any, target: Any, base: type) -> None:
    """Bind the target's own methods on the adapter, shadowing the base class defaults."""
    for attr, default in inspect.getmembers(base):
        if attr.startswith("_") or attr == "name" or not callable(default):
            continue
        own = getattr(target, attr, None)
        if callable(own):
            object.__setattr__(adapter, attr, own)


class MemoryProviderAdapter(MemoryProvider):
    """A duck-typed memory provider seen through this host's :class:`MemoryProvider`."""

    def __init__(self, target: Any) -> None:
        object.__setattr__(self, "_target", target)
        _adopt_methods(self, target, MemoryProvider)

    @property
    def name(self) -> str:
        return str(self._target.name)

    def is_available(self) -> bool:
        return bool(self._target.is_available())

    def initialize(self, session_id: str, **kwargs: Any) -> None:
        self._target.initialize(session_id, **kwargs)

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        return list(self._target.get_tool_schemas() or [])

    def __getattr__(self, attr: str) -> Any:  # post_setup, save_config, get_config_schema, own helpers
        return getattr(object.__getattribute__(self, "_target"), attr)

    def __repr__(self) -> str:
        return f"<{type(self._target).__name__} (duck-typed memory provider {self.name!r})>"


class ContextEngineAdapter(ContextEngine):
    """A duck-typed context engine seen through this host's :class:`ContextEngine`.

    The counters the host reads (``last_prompt_tokens``, ``threshold_tokens``, ...) are read
    from and written to the wrapped engine.
    """

    def __init__(self, target: Any) -> None:
        object.__setattr__(self, "_target", target)
        _adopt_methods(self, target, ContextEngine)

    @property
    def name(self) -> str:
        return str(self._target.name)

    def update_from_response(self, usage: dict[str, Any]) -> None:
        self._target.update_from_response(usage)

    def should_compress(self, prompt_tokens: int | None = None) -> bool:
        return bool(self._target.should_compress(prompt_tokens))

    def compress(self, messages: list[dict[str, Any]], current_tokens: int | None = None, focus_topic: str | None = None) -> list[dict[str, Any]]:
        return self._target.compress(messages, current_tokens, focus_topic)

    def __getattribute__(self, attr: str) -> Any:
        if not attr.startswith("_") and attr in _ENGINE_STATE:
            target = object.__getattribute__(self, "_target")
            if hasattr(target, attr):
                return getattr(target, attr)
        return object.__getattribute__(self, attr)

    def __setattr__(self, attr: str, value: Any) -> None:
        if attr in _ENGINE_STATE:
            setattr(object.__getattribute__(self, "_target"), attr, value)
        else:
            object.__setattr__(self, attr, value)

    def __getattr__(self, attr: str) -> Any:
        return getattr(object.__getattribute__(self, "_target"), attr)


_ENGINE_STATE = frozenset(
    name for name, value in vars(ContextEngine).items() if not name.startswith("_") and isinstance(value, (int, float, bool, type(None)))
)


def _delegate(attr: str) -> Any:
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(object.__getattribute__(self, "_target"), attr)(*args, **kwargs)

    call.__name__ = attr
    return call


def _adapter_for(adapter: type, base: type, target: Any) -> Any:
    """An adapter whose class overrides exactly the optional members the target has.

    Hosts tell "the provider implements prefetch" from ``type(p).prefetch is not Base.prefetch``;
    the class-level delegators keep that true, and the instance-level bound methods (set by
    ``__init__``) keep the target's own signatures visible to ``inspect``.
    """
    overridden = {
        attr: _delegate(attr)
        for attr, default in inspect.getmembers(base)
        if not attr.startswith("_") and attr != "name" and callable(default) and callable(getattr(target, attr, None))
    }
    cls = type(f"{type(target).__name__}As{base.__name__}", (adapter,), overridden)
    return cls(target)


def as_memory_provider(obj: Any) -> MemoryProvider | None:
    """``obj`` itself when it is a :class:`MemoryProvider`, an adapter when it has the members, else ``None``."""
    if isinstance(obj, MemoryProvider):
        return obj
    if inspect.isclass(obj) or missing_members(obj, MEMORY_PROVIDER_REQUIRED):
        return None
    return _adapter_for(MemoryProviderAdapter, MemoryProvider, obj)


def as_context_engine(obj: Any) -> ContextEngine | None:
    """``obj`` itself when it is a :class:`ContextEngine`, an adapter when it has the members, else ``None``."""
    if isinstance(obj, ContextEngine):
        return obj
    if inspect.isclass(obj) or missing_members(obj, CONTEXT_ENGINE_REQUIRED):
        return None
    return _adapter_for(ContextEngineAdapter, ContextEngine, obj)


def unwrap(obj: Any) -> Any:
    """The plugin's own object behind an adapter (the object itself otherwise)."""
    try:
        return object.__getattribute__(obj, "_target")
    except AttributeError:
        return obj
