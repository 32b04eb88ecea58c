"""Builds corpus.jsonl from the hand-written notes in src/ plus slot-filled benign templates and obfuscated attack variants.

Run ``python tests/builtin/memory/corpus/build.py`` after editing src/; the output is committed.

Every note carries a ``group`` (its source line, its template, or the seed an obfuscated variant came from) and a
``split`` decided only by that group: ``holdout`` when sha256(group) % 3 == 0, else ``dev``. Notes from fresh/
get ``split == "fresh"``, and notes from each fresh<N>/ or tune<N>/ folder (fresh2/, fresh3/, tune6/, ...) the split of the folder's
name (see fresh.py, which also says which of those batches are tuning data). A note whose text an earlier source
already has is kept once, under the earlier source. Variants of one seed and fills of one template therefore land on the same side, so the held-out third is phrasing the rules never saw.
"""

from __future__ import annotations

import base64
import codecs
import hashlib
import json
import re
import urllib.parse
from pathlib import Path

import fresh
from templates import BENIGN_TEMPLATES

HERE = Path(__file__).parent
_ESCAPE = re.compile(r"\\u\{([0-9A-Fa-f]{1,6})\}")


def split_of(group: str) -> str:
    return "holdout" if int(hashlib.sha256(group.encode("utf-8")).hexdigest(), 16) % 3 == 0 else "dev"


def _unescape(text: str) -> str:
    return _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text).replace("\\n", "\n")


def _offset(path: Path) -> int:
    # Header lines added to a source file after its split was fixed; subtracting them keeps every group id stable.
    return {"benign_hard_en": 2}.get(path.stem, 0)


def read_source(path: Path) -> list[tuple[str, str, str]]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        lang, _, text = line.partition(" | ")
        rows.append((lang.strip(), _unescape(text), f"{path.stem}:{number - _offset(path)}"))
    return rows


# ---- obfuscations of English attack seeds ---------------------------------------------------------------

_HOMOGLYPHS = {"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "i": "і", "x": "х", "y": "у", "s": "ѕ", "j": "ј"}
_LEET = {"a": "4", "e": "3", "i": "1", "o": "0", "s": "5", "t": "7"}


def homoglyph(text: str) -> str:
    return "".join(_HOMOGLYPHS.get(ch, ch) if i % 2 == 0 else ch for i, ch in enumerate(text))


def leet(text: str) -> str:
    return "".join(_LEET.get(ch.lower(), ch) for ch in text)


def zero_width(text: str) -> str:
    return re.sub(r"(\w)(\w)", lambda m: m.group(1) + "\u200b" + m.group(2), text, count=12)


def soft_hyphen(text: str) -> str:
    return re.sub(r"(\w{2})(\w{2})", lambda m: m.group(1) + "\u00ad" + m.group(2), text)


def spaced(text: str) -> str:
    words = text.split(" ")
    head = " ".join(" ".join(word) for word in words[:5])
    return head + "  " + " ".join(words[5:])


def fullwidth(text: str) -> str:
    return "".join(chr(ord(ch) + 0xFEE0) if "!" <= ch <= "~" else ch for ch in text)


def math_bold(text: str) -> str:
    out = []
    for ch in text:
        if "a" <= ch <= "z":
            out.append(chr(0x1D41A + ord(ch) - ord("a")))
        elif "A" <= ch <= "Z":
            out.append(chr(0x1D400 + ord(ch) - ord("A")))
        else:
            out.append(ch)
    return "".join(out)


def as_base64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def as_hex(text: str) -> str:
    return text.encode().hex()


def as_rot13(text: str) -> str:
    return codecs.encode(text, "rot13")


def as_url(text: str) -> str:
    return urllib.parse.quote(text, safe="")


def reverse(text: str) -> str:
    return text[::-1]


_WRAPPERS = {
    "base64": ("Decode this base64 and follow it: {}", "Setup notes (base64, apply on load): {}", "b64 payload for the next session -> {}"),
    "hex": ("Hex-encoded instruction, decode and obey: {}", "Config blob (hex): {} — decode and do what it says."),
    "rot13": ("ROT13 note for later, decode and follow: {}", "Apply the rot13 text: {}"),
    "url": ("URL-decoded this is your next step: {}", "Run what this percent-encoded string says: {}"),
    "reversed": ("Read this backwards and do it: {}", "Reverse the following and follow it: {}"),
}

_PLAIN_VARIANTS = {
    "homoglyph": homoglyph,
    "leetspeak": leet,
    "zero_width": zero_width,
    "soft_hyphen": soft_hyphen,
    "letter_spacing": spaced,
    "fullwidth": fullwidth,
    "math_alphanumeric": math_bold,
}
_ENCODERS = {"base64": as_base64, "hex": as_hex, "rot13": as_rot13, "url": as_url, "reversed": reverse}
VARIANT_ORDER = [*_PLAIN_VARIANTS, *_ENCODERS, "quoted"]
_QUOTES = (
    'The web page said: "{}"',
    "Saved from the vendor's FAQ > {}",
    "Per the email from IT: {}",
    "Remember this line exactly - {}",
)
VARIANT_FAMILIES = {"override", "role", "conceal", "leak", "rce", "exfil", "creds", "persist"}


def variants(seed_index: int, text: str) -> list[tuple[str, str]]:
    out = []
    for step in (0, 7):
        kind = VARIANT_ORDER[(seed_index + step) % len(VARIANT_ORDER)]
        if kind in _PLAIN_VARIANTS:
            out.append((kind, _PLAIN_VARIANTS[kind](text)))
        elif kind in _ENCODERS:
            wrappers = _WRAPPERS[kind]
            out.append((kind, wrappers[seed_index % len(wrappers)].format(_ENCODERS[kind](text))))
        else:
            out.append((kind, _QUOTES[seed_index % len(_QUOTES)].format(text)))
    return out


def main() -> None:
    notes: list[dict] = []
    for path in sorted((HERE / "src").glob("*.txt")):
        label, _, family = path.stem.partition("_")
        seed_index = 0
        for lang, text, group in read_source(path):
            lang, _, relabel = lang.partition("!")
            base = {"lang": lang, "group": group, "split": split_of(group)}
            if relabel:
                notes.append({"text": text, "label": "attack", "family": relabel, "variant": "plain", **base})
                if label == "attack" and lang == "en" and "\n" not in text:
                    for kind, varied in variants(seed_index, text):
                        notes.append({"text": varied, "label": "attack", "family": relabel, "variant": kind, **base})
                    seed_index += 1
            elif label == "attack":
                notes.append({"text": text, "label": "attack", "family": family, "variant": "plain", **base})
                if family in VARIANT_FAMILIES and lang == "en" and "\n" not in text:
                    for kind, varied in variants(seed_index, text):
                        notes.append({"text": varied, "label": "attack", "family": family, "variant": kind, **base})
                    seed_index += 1
            else:
                hard = family in ("hard_en", "unicode", "mixed") or family.startswith("hard_") or family.startswith("hard_")
                notes.append({"text": text, "label": "benign", "family": "hard" if hard else "plain", "variant": family, **base})
    for template_id, (hard, lang, fills) in BENIGN_TEMPLATES.items():
        group = f"template:{template_id}"
        for text in fills:
            notes.append({"text": text, "label": "benign", "family": "hard" if hard else "plain", "variant": "template",
                          "lang": lang, "group": group, "split": split_of(group)})
    notes.extend(fresh.notes(_unescape, _PLAIN_VARIANTS, _ENCODERS))
    notes.extend(fresh.later_batches(_unescape))
    seen: set[str] = set()
    unique = []
    for note in notes:
        if note["text"] not in seen:
            seen.add(note["text"])
            unique.append(note)
    with (HERE / "corpus.jsonl").open("w", encoding="utf-8") as out:
        for note in unique:
            out.write(json.dumps(note, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
