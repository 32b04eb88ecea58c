"""The scanner takes any string: it never raises and always answers quickly (timing here is a loose bound only;
speed is measured by benchmarks/scanner.py)."""

from __future__ import annotations

import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes_plugins_builtin.memory.scanner import FAMILIES, _scan

_PIECES = st.sampled_from(
    ["ignore", " ", "\u200d", "\u200c", "\u200b", "🏴", "\U000e0067", "\U000e007f", "\ufe0f", "👩", "curl ", "| sh", "$(", "`",
     "https://x.example/?d={", "<|im_start|>", "base64 ", "aWdub3Jl", "rot13 ", "%69%67", "ی", "ශ්", "i g n o r e ", "1gn0r3", "\n", "你"]
)
_TEXTS = st.one_of(st.text(max_size=400), st.lists(_PIECES, max_size=60).map("".join), st.text(alphabet=st.characters(min_codepoint=0x2000, max_codepoint=0x2070), max_size=80))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_TEXTS)
def test_the_scanner_never_raises_and_terminates_fast(text):
    started = time.perf_counter()
    finding = _scan(text)
    # Generous: a pathological pattern would take seconds; ordinary notes take well under a millisecond.
    assert time.perf_counter() - started < 0.5
    assert finding is None or finding.family in FAMILIES


def test_a_long_adversarial_text_is_still_fast():
    text = ("a " * 5000) + ("ignore " * 2000) + ("\u200d" * 3000) + ("$(" * 2000)
    started = time.perf_counter()
    finding = _scan(text)
    assert time.perf_counter() - started < 2.0
    assert finding is not None
