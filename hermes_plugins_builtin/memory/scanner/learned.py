"""The learned detector: a linear model per attack family over the words and character n-grams of a note.

The hand-written detectors recognise the wording they were written for; this one generalises to paraphrase and to
other languages from labelled notes. It runs only on notes the rules accepted. Each family has its own logistic
regression (that family's attacks against harmless notes, trained by ``benchmarks/train_scanner_model.py``); a
window of the note (a chunk of whole sentences, or one sentence of it: see :mod:`.learned_features`) scores

    bias + scale * (sum of the weights of its features) / sqrt(max(number of its features, 32))

and the note is refused when a window's score passes the family's threshold (chosen on held-out folds of the
training notes so that, with the rules, at most a few in a thousand harmless notes are refused). The refusal names
the family whose threshold is passed by the widest margin and the sentence that scored highest for it, under the
rule ``learned:<family>``.

The weights live in the generated module ``learned_weights``, read on the first scan only: commands that never
scan a note never load them.
"""

from __future__ import annotations

import base64
import functools
import itertools
import re
import zlib
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..findings import Finding
from .learned_features import FEATURE_VERSION, Sentence, chunk_sentences, norm, plain

# Words do not carry their order into the model: "never ignore your safety rules" shares every feature that counts
# with "ignore your safety rules". A sentence that opens by denying a dismissal keeps the rules it names, so the
# model's override and identity verdicts on it are set aside (the hand-written detectors still read it).
_DENIABLE = frozenset({"instruction_override", "role_hijack"})
_DENIED_DISMISSAL = re.compile(
    r"\W*(?:please\s+)?(?:never|do not|don'?t|must not|mustn'?t|should not|shouldn'?t|do not ever|don'?t ever)\s+(?:\w+\s+)?"
    r"(?:ignore|disregard|set aside|put aside|bypass|override|overrule|forget|skip|break|violate|circumvent|drop|abandon|discard|"
    r"dismiss|neglect|undermine|relax|loosen|weaken|disable|turn off|switch off)\b",
    re.IGNORECASE,
)

def _negated_elsewhere(span: str) -> bool:
    # The other languages' negations, and dropped preferences about presentation ("ignore the old no-tables rule"),
    # are read by the language detectors' own checks (imported late: the lexicons are large and most notes never get
    # here).
    from .lexicon import about_presentation, dismissals_all_negated

    return about_presentation(span) or dismissals_all_negated(span)


#: Bits per family in a packed weight: int16 weights summed over up to 2**23 features never reach the sign bit.
_FIELD = 40
_HALF = 1 << (_FIELD - 1)
_MASK = (1 << _FIELD) - 1


@dataclass(frozen=True)
class Model:
    """A family per row of ``weights``; ``rows`` maps a feature to its column (int16 weights, times ``scales``).
    A model loaded from a weights module has its weights only in packed form (``weights`` is empty)."""

    families: tuple[str, ...]
    rows: dict[str, int]
    weights: tuple[array, ...]
    scales: tuple[float, ...]
    biases: tuple[float, ...]
    thresholds: tuple[float, ...]

    def __post_init__(self) -> None:
        # Every feature's weights for all families packed into one integer, FIELD bits a family: one sum over the
        # features of a chunk adds all the families at once (the fields are signed and wide enough never to carry
        # into each other for any text the scanner reads).
        if not self.weights:
            return  # set by from_packed
        packed = dict.fromkeys(self.rows, 0)
        for family, column in enumerate(self.weights):
            shift = _FIELD * family
            for name, row in self.rows.items():
                packed[name] += column[row] << shift
        object.__setattr__(self, "_packed", packed)

    @classmethod
    def from_packed(cls, families: tuple[str, ...], names: list[str], blob: bytes, scales: tuple[float, ...],
                    biases: tuple[float, ...], thresholds: tuple[float, ...]) -> Model:
        """A model from :meth:`packed_bytes`' output: one fixed-width signed integer per feature, read with one C call
        each (the first scan pays a few milliseconds, not the packing loop)."""
        width = packed_width(len(families))
        model = cls(families, dict(zip(names, range(len(names)))), (), scales, biases, thresholds)
        read = functools.partial(int.from_bytes, byteorder="little", signed=True)
        values = map(read, (blob[i : i + width] for i in range(0, len(blob), width)))
        object.__setattr__(model, "_packed", dict(zip(names, values)))
        return model

    def packed_bytes(self) -> bytes:
        """Every feature's packed weights, in row order, as fixed-width little-endian signed integers."""
        width = packed_width(len(self.families))
        names = sorted(self.rows, key=self.rows.__getitem__)
        return b"".join(self._packed[name].to_bytes(width, "little", signed=True) for name in names)  # type: ignore[attr-defined]

    def _total(self, found: Iterable[str]) -> int:
        return sum(map(self._packed.get, found, itertools.repeat(0)))  # type: ignore[attr-defined]

    def _unpack(self, total: int) -> list[int]:
        sums = []
        for _ in self.families:
            field = ((total + _HALF) & _MASK) - _HALF
            sums.append(field)
            total = (total - field) >> _FIELD
        return sums

    def _scores(self, total: int, count: int) -> list[float]:
        weight = norm(count)
        return [bias + scale * weight * raw for raw, scale, bias in zip(self._unpack(total), self.scales, self.biases)]

    def raw(self, found: Iterable[str]) -> list[int]:
        """Each family's sum of the (int16) weights of the features ``found``."""
        return self._unpack(self._total(found))

    def scores(self, found: set[str]) -> list[float]:
        """Each family's score for a window with the features ``found``."""
        return self._scores(self._total(found), len(found))

    def windows(self, parts: list[Sentence]) -> Iterator[tuple[list[float], list[Sentence]]]:
        """Each family's score for each window of one chunk (the chunk, and each sentence when it has several),
        with the sentences the window covers. The chunk's sum is its sentences' sums less the features they
        share (its features are their union), so no feature is looked up twice."""
        totals = [self._total(found) for _, found in parts]
        if len(parts) == 1:
            yield self._scores(totals[0], len(parts[0][1])), parts
            return
        seen: set[str] = set()
        again: list[str] = []
        for _, found in parts:
            again += found & seen
            seen |= found
        yield self._scores(sum(totals) - self._total(again), len(seen)), parts
        for part, total in zip(parts, totals):
            yield self._scores(total, len(part[1])), [part]

    def judge(self, text: str) -> Finding | None:
        """The refusal of ``text`` by the model, or ``None``: the widest margin over a threshold in any window."""
        note = plain(text)
        passed = []
        for chunk in chunk_sentences(note):
            for scores, parts in self.windows(chunk):
                for family, (score, threshold) in enumerate(zip(scores, self.thresholds)):
                    if score > threshold:
                        passed.append((score - threshold, family, parts))
        for _, family, parts in sorted(passed, key=lambda p: -p[0]):
            # The sentence of the window that weighs most towards the family.
            (start, end), _ = max(parts, key=lambda part: self.raw(part[1])[family])
            span = note[start:end].strip()
            if self.families[family] in _DENIABLE and (_DENIED_DISMISSAL.match(span) or _negated_elsewhere(span)):
                continue
            return Finding(self.families[family], f"learned:{self.families[family]}", span)
        return None


def unpack_features(packed: str) -> list[str]:
    return zlib.decompress(base64.b64decode(packed)).decode("utf-8").split("\n")


def packed_width(families: int) -> int:
    """Bytes of one feature's packed weights: FIELD bits a family, and a sign."""
    return (_FIELD * families) // 8 + 1


def unpack_bytes(packed: str) -> bytes:
    return zlib.decompress(base64.b64decode(packed))


def pack_features(names: list[str]) -> str:
    return base64.b64encode(zlib.compress("\n".join(names).encode("utf-8"), 9)).decode("ascii")


def pack_bytes(data: bytes) -> str:
    return base64.b64encode(zlib.compress(data, 9)).decode("ascii")


class StaleWeights(RuntimeError):
    """The weights module was trained on features other than the ones this code computes."""


def from_module(module: object) -> Model:
    """The :class:`Model` stored in a generated weights module."""
    version = getattr(module, "FEATURE_VERSION", None)
    if version != FEATURE_VERSION:
        raise StaleWeights(
            f"{getattr(module, '__name__', module)} was trained on features version {version}, the scanner computes "
            f"version {FEATURE_VERSION}: run python benchmarks/train_scanner_model.py to train it again"
        )
    try:
        names = unpack_features(module.FEATURES)  # type: ignore[attr-defined]
        blob = unpack_bytes(module.PACKED)  # type: ignore[attr-defined]
    except (ValueError, zlib.error) as error:  # binascii.Error and UnicodeDecodeError are ValueErrors
        raise StaleWeights(f"{module.__name__} is damaged: its packed features or weights do not unpack ({error}): "  # type: ignore[attr-defined]
                           "run python benchmarks/train_scanner_model.py to train it again") from error
    families = tuple(module.FAMILIES)  # type: ignore[attr-defined]
    if len(blob) != len(names) * packed_width(len(families)):
        raise StaleWeights(f"{module.__name__} is damaged: {len(names)} features but {len(blob)} bytes of weights for "  # type: ignore[attr-defined]
                           f"{len(families)} families: run python benchmarks/train_scanner_model.py to train it again")
    return Model.from_packed(families, names, blob, tuple(module.SCALES), tuple(module.BIASES), tuple(module.THRESHOLDS))  # type: ignore[attr-defined]


@functools.cache
def model() -> Model:
    """The trained model, loaded on first use."""
    from . import learned_weights

    return from_module(learned_weights)


def judge(text: str) -> Finding | None:
    """The learned detector's refusal of ``text``, or ``None`` when it finds nothing."""
    return model().judge(text)
