"""Token estimates and the longest-cached-prefix simulation behind CachingAnthropicServer."""

from __future__ import annotations

import hashlib
import json
import math
import threading
from dataclasses import dataclass
from typing import Any

from .replies import DEFAULT_CHARS_PER_TOKEN

# --- token estimates and the prefix cache -------------------------------------------


def _tokens(chars: int, chars_per_token: int) -> int:
    return math.ceil(chars / chars_per_token) if chars > 0 else 0


def _without_cache_control(block: Any) -> Any:
    if isinstance(block, dict) and "cache_control" in block:
        return {k: v for k, v in block.items() if k != "cache_control"}
    return block


@dataclass(frozen=True)
class PromptBlock:
    """One cacheable unit of an Anthropic request, in prefix order: tools, then system, then messages."""

    canonical: str
    chars: int
    breakpoint: bool


def anthropic_prompt_blocks(body: dict[str, Any]) -> list[PromptBlock]:
    """The request as the provider's cache sees it: a sequence of blocks, some marked as breakpoints.

    A block's identity ignores its ``cache_control`` (marking a block does not change the
    prefix); a marker on a whole message counts as a breakpoint on its last block.
    """
    blocks: list[PromptBlock] = []

    def add(section: str, block: Any, marked: bool) -> None:
        clean = _without_cache_control(block)
        if isinstance(clean, dict) and clean.get("type") == "text":
            chars = len(str(clean.get("text", "")))
        elif isinstance(clean, str):
            chars = len(clean)
        else:
            chars = len(json.dumps(clean, sort_keys=True, ensure_ascii=False))
        canonical = json.dumps([section, clean], sort_keys=True, ensure_ascii=False)
        blocks.append(PromptBlock(canonical, chars, marked))

    for tool in body.get("tools") or []:
        add("tool", tool, isinstance(tool, dict) and "cache_control" in tool)
    system = body.get("system")
    if isinstance(system, str) and system:
        add("system", {"type": "text", "text": system}, False)
    elif isinstance(system, list):
        for block in system:
            add("system", block, isinstance(block, dict) and "cache_control" in block)
    for message in body.get("messages") or []:
        role = str(message.get("role"))
        content = message.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
        start = len(blocks)
        for part in parts:
            add(role, part, isinstance(part, dict) and "cache_control" in part)
        if "cache_control" in message and len(blocks) > start:
            blocks[-1] = PromptBlock(blocks[-1].canonical, blocks[-1].chars, True)
    return blocks


class PrefixCache:
    """Prompt caching by longest-cached-prefix rules, the way the Messages API describes it.

    - A breakpoint (``cache_control`` on a block) makes the prefix up to and including that block
      a cache entry, if the prefix holds at least ``min_tokens`` tokens.
    - A request reads the longest cached prefix that ends at one of its breakpoints or at most
      ``lookback_blocks`` blocks before one; a request without breakpoints reads nothing.
    - ``cache_read_input_tokens`` is that prefix; ``cache_creation_input_tokens`` is what lies between
      it and the last breakpoint (when that prefix was not cached yet); ``input_tokens`` is the rest.
    - Entries never expire (a benchmark finishes well within the 5-minute lifetime) and are keyed by
      model as well. Tokens are estimated at ``chars_per_token`` characters per token.

    ``min_tokens`` defaults to 1024, the smallest cacheable prompt of most Claude models; set it to 0
    to see caching on tiny test prompts.
    """

    def __init__(
        self, *, chars_per_token: int = DEFAULT_CHARS_PER_TOKEN, min_tokens: int = 1024, lookback_blocks: int = 20
    ) -> None:
        self.chars_per_token = chars_per_token
        self.min_tokens = min_tokens
        self.lookback_blocks = lookback_blocks
        self._entries: dict[str, int] = {}
        self._lock = threading.Lock()
        #: Sums over every request processed so far.
        self.totals: dict[str, int] = {"input_tokens": 0, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
        self.requests = 0

    @property
    def entries(self) -> int:
        """How many prefixes are cached."""
        return len(self._entries)

    def hit_share(self) -> float:
        """Share of all input tokens so far that were read from the cache."""
        total = sum(self.totals.values())
        return self.totals["cache_read_input_tokens"] / total if total else 0.0

    def process(self, body: dict[str, Any]) -> dict[str, int]:
        """Account for one request: update the cache and return its input usage in Messages terms."""
        blocks = anthropic_prompt_blocks(body)
        cumulative: list[int] = []
        keys: list[str] = []
        running = 0
        digest = hashlib.sha256(f"model:{body.get('model')}".encode())
        for block in blocks:
            running += _tokens(block.chars, self.chars_per_token)
            cumulative.append(running)
            digest.update(block.canonical.encode("utf-8"))
            keys.append(digest.copy().hexdigest())
        breakpoints = [index for index, block in enumerate(blocks) if block.breakpoint]
        with self._lock:
            read_at = -1
            for point in breakpoints:
                for index in range(point, max(-1, point - self.lookback_blocks - 1), -1):
                    if keys[index] in self._entries:
                        read_at = max(read_at, index)
                        break
            read = cumulative[read_at] if read_at >= 0 else 0
            written = 0
            if breakpoints:
                last = breakpoints[-1]
                if read_at < last and cumulative[last] >= self.min_tokens:
                    written = cumulative[last] - read
                for point in breakpoints:
                    if cumulative[point] >= self.min_tokens:
                        self._entries.setdefault(keys[point], cumulative[point])
            usage = {
                "input_tokens": (cumulative[-1] if cumulative else 0) - read - written,
                "cache_read_input_tokens": read,
                "cache_creation_input_tokens": written,
            }
            for key, value in usage.items():
                self.totals[key] += value
            self.requests += 1
        return usage

