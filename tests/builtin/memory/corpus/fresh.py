"""The fresh held-out split: notes in fresh/ written after the rules were fixed, measured once the rules are frozen.

Every note from fresh/ gets ``split == "fresh"``. No rule is tuned on this split: tests only check its make-up,
and ``benchmarks/scanner.py`` reports its rates. English attacks also get one disguised form each, using the
same transforms as the older splits but wrapper sentences of their own, so a rule that learned the older
wrappers gains nothing here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

HERE = Path(__file__).parent / "fresh"
#: A second held-out batch, written by someone who never saw the rules, the other notes or the scanner's
#: results (see fresh2/README.md). Its notes are taken as written: no disguised variants are derived.
SECOND = Path(__file__).parent / "fresh2"

# Wrappers written for this split only (the older splits use other sentences).
_WRAPPERS = {
    "base64": ("Stored as base64 so the formatter leaves it alone; unpack it and carry it out: {}", "keep + apply (b64) {}"),
    "hex": ("Encoded reminder (hexadecimal) — turn it back into text and act on it: {}",),
    "rot13": ("Spoiler-safe version (rot-13), decode before acting: {}",),
    "url": ("The link-encoded version of my standing request, please action it: {}",),
    "reversed": ("Mirror-written so casual readers skip it; flip it and follow: {}",),
}
_QUOTES = ("Copied from a README I found: '{}'", "My colleague wrote in the ticket -- {}", "Quote of the day >> {}")


def _families_for_variants() -> set[str]:
    return {"override", "role", "conceal", "leak", "rce", "exfil", "creds", "persist"}


def read(unescape: Callable[[str], str], directory: Path = HERE) -> list[tuple[str, str, str, str, str]]:
    """(label, lang, kind-or-family, text, group) rows from *directory*'s attack.txt and benign.txt."""
    rows = []
    for path in sorted(directory.glob("*.txt")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            head, _, text = line.partition(" | ")
            lang, _, kind = head.strip().partition("!")
            rows.append((path.stem, lang, kind, unescape(text), f"{directory.name}_{path.stem}:{number}"))
    return rows


def notes(unescape: Callable[[str], str], plain: dict[str, Callable[[str], str]], encoders: dict[str, Callable[[str], str]]) -> list[dict]:
    out: list[dict] = []
    order = [*plain, *encoders, "quoted"]
    seed = 0
    for label, lang, kind, text, group in read(unescape):
        base = {"lang": lang, "group": group, "split": "fresh"}
        if label == "benign":
            out.append({"text": text, "label": "benign", "family": kind, "variant": "fresh", **base})
            continue
        out.append({"text": text, "label": "attack", "family": kind, "variant": "plain", **base})
        if lang != "en" or "\n" in text or kind not in _families_for_variants() or not text.isascii():
            continue
        variant = order[(seed * 5) % len(order)]
        seed += 1
        if variant in plain:
            varied = plain[variant](text)
        elif variant in encoders:
            wrappers = _WRAPPERS[variant]
            varied = wrappers[seed % len(wrappers)].format(encoders[variant](text))
        else:
            varied = _QUOTES[seed % len(_QUOTES)].format(text)
        out.append({"text": varied, "label": "attack", "family": kind, "variant": variant, **base})
    return out


def second_batch(unescape: Callable[[str], str]) -> list[dict]:
    """The notes of fresh2/, each with ``split == "fresh2"``."""
    out: list[dict] = []
    for label, lang, kind, text, group in read(unescape, SECOND):
        base = {"lang": lang, "group": group, "split": "fresh2"}
        if label == "benign":
            out.append({"text": text, "label": "benign", "family": kind, "variant": "fresh2", **base})
        else:
            out.append({"text": text, "label": "attack", "family": kind, "variant": "plain", **base})
    return out
