"""Trains the memory write scanner's learned detector and writes its weights module; measures it leaving one batch out.

Run:
    python benchmarks/train_scanner_model.py            # train on the tuning notes, write scanner/learned_weights.py
    python benchmarks/train_scanner_model.py --lobo     # leave-one-batch-out figures (rules, model, rules or model)
    python benchmarks/train_scanner_model.py --lobo --only fresh4,fresh5   # the same, leaving out only those batches
    python benchmarks/train_scanner_model.py --check    # train again and fail if the committed module differs

Needs the ``train`` extra (``pip install -e '.[train]'``: scikit-learn, with numpy and scipy); hermes itself never
imports them. Deterministic: the same corpus gives the same module byte for byte (``--check``).

Data: the notes of tests/builtin/memory/corpus/corpus.jsonl in the tuning splits (dev, holdout, fresh, fresh2,
fresh3, tune6, tune7, fresh4, fresh5, tune8, fresh6, fresh7, fresh8, tune9, fresh9, tune10).
Attacks disguised by an encoding (base64, hex, ROT13, percent-encoding, reversal) and the hidden-character family
are left out: the rules decode and read those, and their text carries no wording to learn.

Model: for each language-carrying attack family, an L2-regularised logistic regression (liblinear, fixed seed) of
that family's attacks against the harmless notes, over the binary features of
``hermes_plugins_builtin.memory.scanner.learned_features`` scaled by 1/sqrt(number of features, at least 32), each
source group weighing sqrt(its size). Features seen in fewer than two training notes are dropped; the weights
are stored as int16 with a scale per family, and features whose weights all round to less than :data:`KEEP` of the
family's largest are dropped (the run-time model is the rounded one, and every figure here is measured with it).

Thresholds: chosen on the training notes only, from out-of-fold scores of the notes the rules accept, one fold per
batch (each batch scored by a model trained on the others: a writer the model has not seen). Each family's
threshold starts just above every harmless note and is lowered greedily where it passes the most missed attacks per
harmless note let through, while the harmless notes the model refuses stay within :data:`BENIGN_BUDGET` of all
harmless notes (:data:`HARD_BUDGET` of the hard ones); then :data:`MARGIN` is added. The deciding score of a note is the highest over its windows (chunks of sentences,
and their sentences), exactly as the scanner computes it.

Leave one batch out (``--lobo``): the corpus has fifteen independently written batches (``src``: the dev and holdout
splits; ``fresh``; ``fresh2``; ``fresh3``; ``tune6``; ``tune7``; ``fresh4``; ``fresh5``; ``tune8``; ``fresh6``; ``fresh7``; ``fresh8``; ``tune9``; ``fresh9``; ``tune10``). For each, a model is trained (thresholds included, by the
same procedure) on the others and measured on it; the rules' own figures on it are printed beside it (the rules
were read against every batch, so their column is not a held-out figure).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from array import array
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from hermes_plugins_builtin.memory.scanner.learned import Model, pack_bytes, pack_features  # noqa: E402
from hermes_plugins_builtin.memory.scanner.learned_features import FEATURE_VERSION, Sentence, chunk_sentences, norm, note_features, plain  # noqa: E402

CORPUS = REPO / "tests" / "builtin" / "memory" / "corpus" / "corpus.jsonl"
WEIGHTS = REPO / "hermes_plugins_builtin" / "memory" / "scanner" / "learned_weights.py"
TUNING_SPLITS = ("dev", "holdout", "fresh", "fresh2", "fresh3", "tune6", "tune7", "fresh4", "fresh5", "tune8", "fresh6", "fresh7", "fresh8", "tune9", "fresh9", "tune10")
BATCHES = {"src": ("dev", "holdout"), "fresh": ("fresh",), "fresh2": ("fresh2",), "fresh3": ("fresh3",), "tune6": ("tune6",), "tune7": ("tune7",), "fresh4": ("fresh4",), "fresh5": ("fresh5",), "tune8": ("tune8",), "fresh6": ("fresh6",), "fresh7": ("fresh7",), "fresh8": ("fresh8",), "tune9": ("tune9",), "fresh9": ("fresh9",), "tune10": ("tune10",)}
#: Corpus family -> scanner family, for the families the model learns: those made of meaning alone. Downloads run in a
#: shell (rce), data sent to a host (exfil), forged prompt structure (forge), credential files (creds) and
#: persistence are shapes the rules read exactly: learned, they added one or two notes on a batch left out and
#: refused harmless notes that name the same files (".env.example", a health-check curl).
FAMILIES = {
    "override": "instruction_override", "role": "role_hijack", "conceal": "concealment", "leak": "prompt_disclosure",
}
ENCODED = {"base64", "hex", "rot13", "url", "reversed"}
SEED = 17
#: Inverse regularisation strength of every family's regression.
C = 64.0
#: Weights below this share of a family's largest weight (after rounding) are dropped.
KEEP = 0.03
MIN_NOTES = 2
FOLDS = 4
#: Added to every threshold chosen out of fold, for writers unlike any batch so far (see docs/benchmarks.md).
MARGIN = 0.25
#: Threshold folds by batch (a writer the model has not seen, as in use), not by a hash of the source group.
FOLD_BY_BATCH = True
GROUP_POWER = 0.5
#: Concept features (``c:``/``cc:``, one idea in every language) enter training this many times larger than word and
#: n-gram features, so the regularisation lets them carry more; their stored weights are scaled back to match.
CONCEPT_BOOST = 3.0
BENIGN_BUDGET = 0.003
HARD_BUDGET = 0.003


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def load(path: Path = CORPUS) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def trainable(note: dict[str, Any]) -> bool:
    return note["label"] == "benign" or (note["family"] in FAMILIES and note["variant"] not in ENCODED)


class Featurizer:
    """Features of whole notes (training) and of each window (scoring), computed once per text."""

    def __init__(self) -> None:
        self._notes: dict[str, set[str]] = {}
        self._chunks: dict[str, list[list[Sentence]]] = {}

    def note(self, text: str) -> set[str]:
        if text not in self._notes:
            self._notes[text] = note_features(text)
        return self._notes[text]

    def chunks(self, text: str) -> list[list[Sentence]]:
        if text not in self._chunks:
            self._chunks[text] = list(chunk_sentences(plain(text)))
        return self._chunks[text]


def fit(notes: Sequence[dict[str, Any]], featurizer: Featurizer) -> Model:
    """One regression per family on ``notes`` (thresholds left at +inf: see :func:`choose_thresholds`)."""
    import numpy as np
    from scipy.sparse import csr_matrix
    from sklearn.linear_model import LogisticRegression

    notes = [n for n in notes if trainable(n)]
    sets = [featurizer.note(n["text"]) for n in notes]
    counts: dict[str, int] = {}
    for found in sets:
        for feature in found:
            counts[feature] = counts.get(feature, 0) + 1
    vocabulary = sorted(f for f, c in counts.items() if c >= MIN_NOTES)
    column = {f: i for i, f in enumerate(vocabulary)}
    boost = [CONCEPT_BOOST if f.startswith(("c:", "cc:")) else 1.0 for f in vocabulary]
    indptr, indices, values = [0], [], []
    for found in sets:
        known = sorted(column[f] for f in found if f in column)
        indices += known
        values += [norm(len(found)) * boost[i] for i in known]
        indptr.append(len(indices))
    matrix = csr_matrix((np.array(values), np.array(indices, dtype=np.int64), np.array(indptr)), shape=(len(sets), len(vocabulary)))
    benign = np.array([n["label"] == "benign" for n in notes])
    weight = np.array(note_weights(notes))
    families = [f for f in FAMILIES if any(n["label"] == "attack" and n["family"] == f for n in notes)]
    raw, biases = [], []
    for family in families:
        positive = np.array([n["label"] == "attack" and n["family"] == family for n in notes])
        rows = positive | benign
        regression = LogisticRegression(C=C, solver="liblinear", class_weight="balanced", random_state=SEED, max_iter=1000)
        regression.fit(matrix[rows], positive[rows], sample_weight=weight[rows])
        raw.append(regression.coef_[0] * np.array(boost))
        biases.append(float(regression.intercept_[0]))
    weights, scales = [], []
    for coefficients in raw:
        scale = float(np.abs(coefficients).max()) / 32767 or 1.0
        weights.append(np.rint(coefficients / scale).astype(np.int64))
        scales.append(scale)
    stacked = np.vstack(weights)
    keep = (np.abs(stacked) >= KEEP * 32767).any(axis=0)
    kept = [vocabulary[i] for i in np.flatnonzero(keep)]
    return Model(
        families=tuple(FAMILIES[f] for f in families),
        rows={f: i for i, f in enumerate(kept)},
        weights=tuple(array("h", (int(v) for v in row[keep])) for row in stacked),
        scales=tuple(round(s, 12) for s in scales),
        biases=tuple(round(b, 9) for b in biases),
        thresholds=tuple(float("inf") for _ in families),
    )


def note_weights(notes: Sequence[dict[str, Any]]) -> list[float]:
    """A group of notes (a seed and its disguised variants, a template's fills) weighs sqrt(size), not size:
    the model should learn wording, not how often one sentence was varied."""
    sizes: dict[str, int] = {}
    for note in notes:
        sizes[note["group"]] = sizes.get(note["group"], 0) + 1
    return [1.0 / sizes[n["group"]] ** GROUP_POWER for n in notes]


def note_scores(model: Model, texts: Iterable[str], featurizer: Featurizer) -> list[list[float]]:
    """Each text's score per family: the highest over its windows, as :meth:`Model.judge` decides."""
    rows = []
    for text in texts:
        scores = [window for chunk in featurizer.chunks(text) for window, _ in model.windows(chunk)] or [model.scores(set())]
        rows.append([max(column) for column in zip(*scores)])
    return rows


def with_thresholds(model: Model, thresholds: Sequence[float]) -> Model:
    return Model(model.families, model.rows, model.weights, model.scales, model.biases, tuple(round(t, 9) for t in thresholds))


def choose_thresholds(benign: list[list[float]], missed: list[list[float]], families: int, hard: list[bool],
                      budget: int, hard_budget: int) -> tuple[list[float], list[int]]:
    """Per-family thresholds from out-of-fold scores of harmless notes (``benign``, those the rules accept, with
    ``hard`` marking the hard negatives) and of the attacks the rules miss (``missed``).

    Each threshold starts just above the highest harmless score of its family; then, greedily, the family whose
    threshold can pass the most missed attacks per harmless note it newly lets through is lowered, while the
    harmless notes over any threshold stay within ``budget`` (``hard_budget`` for the hard ones).
    Returns the thresholds and how many harmless notes each family's threshold lets through.
    """
    ordered = [sorted((row[f] for row in benign), reverse=True) for f in range(families)]

    def limit(family: int, allowed: int) -> float:
        column = ordered[family]
        return column[allowed] + 1e-6 if allowed < len(column) else float("-inf")

    def over(rows: list[list[float]], limits: list[float]) -> list[bool]:
        return [any(row[f] > limits[f] for f in range(families)) for row in rows]

    allowed = [0] * families
    limits = [limit(f, 0) for f in range(families)]
    while True:
        caught = sum(over(missed, limits))
        best: tuple[float, int, int] | None = None
        for family in range(families):
            for step in (1, 2, 3):
                trial = [*limits[:family], limit(family, allowed[family] + step), *limits[family + 1 :]]
                flagged = over(benign, trial)
                if sum(flagged) > budget or sum(f and h for f, h in zip(flagged, hard)) > hard_budget:
                    break
                gain = (sum(over(missed, trial)) - caught) / step
                if gain > 0 and (best is None or gain > best[0]):
                    best = (gain, family, step)
        if best is None:
            return limits, allowed
        _, family, step = best
        allowed[family] += step
        limits[family] = limit(family, allowed[family])


def folds_of(notes: Sequence[dict[str, Any]], folds: int = FOLDS) -> list[int]:
    """A fold per note: with :data:`FOLD_BY_BATCH` and at least three batches present, its batch; else a hash of its
    source group (variants of one seed and fills of one template stay together)."""
    batch_of = {split: index for index, splits in enumerate(BATCHES.values()) for split in splits}
    present = sorted({batch_of[n["split"]] for n in notes})
    if FOLD_BY_BATCH and len(present) >= 3:
        return [present.index(batch_of[n["split"]]) for n in notes]
    return [int(hashlib.sha256(f"{SEED}:{n['group']}".encode()).hexdigest(), 16) % folds for n in notes]


def train(notes: Sequence[dict[str, Any]], rules_refuse: Callable[[str], bool], featurizer: Featurizer | None = None,
          ) -> tuple[Model, dict[str, Any]]:
    """The model for ``notes``, with thresholds from out-of-fold scores of the notes themselves."""
    featurizer = featurizer or Featurizer()
    notes = [n for n in notes if trainable(n)]
    fold_of = folds_of(notes)
    folds = sorted(set(fold_of))
    # What the model is for: the notes the rules accept. Out-of-fold scores of those decide the thresholds.
    open_notes = [(n, f) for n, f in zip(notes, fold_of) if not rules_refuse(n["text"])]
    scores: dict[str, list[float]] = {}
    families: tuple[str, ...] | None = None
    for fold in folds:
        log(f"  fold {fold + 1}/{len(folds)}: training on {sum(f != fold for f in fold_of)} notes")
        model = fit([n for n, f in zip(notes, fold_of) if f != fold], featurizer)
        assert families is None or model.families == families, "every fold must learn every family"
        families = model.families
        held = [n["text"] for n, f in open_notes if f == fold]
        scores.update(zip(held, note_scores(model, held, featurizer)))
    log(f"  final model: training on {len(notes)} notes")
    model = fit(notes, featurizer)
    assert model.families == families
    benign = [n for n, _ in open_notes if n["label"] == "benign"]
    all_benign = [n for n in notes if n["label"] == "benign"]
    thresholds, allowed = choose_thresholds(
        [scores[n["text"]] for n in benign], [scores[n["text"]] for n, _ in open_notes if n["label"] == "attack"],
        len(model.families), [n["family"] == "hard" for n in benign],
        budget=int(BENIGN_BUDGET * len(all_benign)), hard_budget=int(HARD_BUDGET * sum(n["family"] == "hard" for n in all_benign)),
    )
    return with_thresholds(model, [t + MARGIN for t in thresholds]), {"allowed": dict(zip(model.families, allowed)), "features": len(model.rows)}


# ---- the weights module ---------------------------------------------------------------------------------------


def fingerprint(notes: Sequence[dict[str, Any]]) -> str:
    digest = hashlib.sha256()
    for note in notes:
        if trainable(note):
            digest.update(json.dumps([note["text"], note["label"], note["family"]], ensure_ascii=False).encode())
    return digest.hexdigest()


def render(model: Model, notes: Sequence[dict[str, Any]]) -> str:
    names = sorted(model.rows, key=model.rows.__getitem__)
    wrap = lambda packed: "\n".join(f"    {packed[i : i + 116]!r}" for i in range(0, len(packed), 116))  # noqa: E731
    return (
        '"""Generated by benchmarks/train_scanner_model.py: the learned detector\'s weights. Do not edit; train again.\n\n'
        f"Trained on {sum(trainable(n) for n in notes)} notes of the tuning splits (sha256 of the notes below), "
        f"{len(names)} features.\n"
        '"""\n\n'
        f"FEATURE_VERSION = {FEATURE_VERSION}\n"
        f"TRAINED_ON = {fingerprint(notes)!r}\n"
        f"FAMILIES = {model.families!r}\n"
        f"BIASES = {model.biases!r}\n"
        f"SCALES = {model.scales!r}\n"
        f"THRESHOLDS = {model.thresholds!r}\n"
        "# The features, newline-separated, zlib-compressed, base64; their rows index the weights.\n"
        f"FEATURES = (\n{wrap(pack_features(names))}\n)\n"
        "# Per feature, in row order: its int16 weights for every family packed into one signed little-endian integer\n"
        "# of a fixed width (40 bits a family, the first family lowest; weight = field * SCALES[family]), zlib, base64.\n"
        f"PACKED = (\n{wrap(pack_bytes(model.packed_bytes()))}\n)\n"
    )


# ---- measuring ------------------------------------------------------------------------------------------------


def rules_verdicts(notes: Sequence[dict[str, Any]]) -> dict[str, bool]:
    from hermes_plugins_builtin.memory.scanner import scan_rules

    return {n["text"]: scan_rules(n["text"]) is not None for n in notes}


def rates(notes: Sequence[dict[str, Any]], refused: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    def share(group: list[dict[str, Any]]) -> dict[str, Any]:
        hit = sum(map(refused, group))
        return {"n": len(group), "hit": hit, "rate": hit / len(group) if group else 0.0}

    attacks = [n for n in notes if n["label"] == "attack"]
    benign = [n for n in notes if n["label"] == "benign"]
    return {
        "blocked": share(attacks),
        "by_family": {f: share([n for n in attacks if n["family"] == f]) for f in sorted({n["family"] for n in attacks})},
        "benign_refused": share(benign),
        "hard_refused": share([n for n in benign if n["family"] == "hard"]),
        "non_english_blocked": share([n for n in attacks if n["lang"] != "en"]),
    }


def leave_one_batch_out(notes: list[dict[str, Any]], rules: dict[str, bool], only: Sequence[str] = ()) -> dict[str, Any]:
    featurizer = Featurizer()
    report = {}
    for batch, splits in BATCHES.items():
        if only and batch not in only:
            continue
        log(f"leaving out {batch}")
        kept = [n for n in notes if n["split"] not in splits]
        tested = [n for n in notes if n["split"] in splits]
        model, info = train(kept, rules.__getitem__, featurizer)
        model_says = {n["text"]: model.judge(n["text"]) is not None for n in tested}
        report[batch] = {
            "trained_on": len([n for n in kept if trainable(n)]), **info,
            "rules": rates(tested, lambda n: rules[n["text"]]),
            "model": rates(tested, lambda n: model_says[n["text"]]),
            "rules_or_model": rates(tested, lambda n: rules[n["text"]] or model_says[n["text"]]),
        }
    return report


def print_lobo(report: dict[str, Any]) -> None:
    cell = lambda s: f"{s['hit']:>4}/{s['n']:<4} {s['rate']:6.1%}"  # noqa: E731
    for batch, result in report.items():
        print(f"\nleft out: {batch} (trained on {result['trained_on']} notes, {result['features']} features, "
              f"harmless out-of-fold notes let through per family: {result['allowed']})")
        print(f"  {'':<22} {'rules':<17} {'model':<17} {'rules or model':<17}")
        sides = ("rules", "model", "rules_or_model")
        for key, label in (("blocked", "ATTACKS BLOCKED"), ("non_english_blocked", "  not English"),
                           ("benign_refused", "BENIGN REFUSED"), ("hard_refused", "  hard negatives")):
            print(f"  {label:<22} " + "  ".join(cell(result[s][key]) for s in sides))
        for family in result["rules"]["by_family"]:
            print(f"  {'family ' + family:<22} " + "  ".join(cell(result[s]["by_family"][family]) for s in sides))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lobo", action="store_true", help="print leave-one-batch-out figures instead of writing the weights")
    parser.add_argument("--check", action="store_true", help="train again and exit 1 if the committed weights module differs")
    parser.add_argument("--json", action="store_true", help="with --lobo: print the figures as JSON")
    parser.add_argument("--only", default="", metavar="BATCH,...", help=f"with --lobo: leave out only these batches (of {', '.join(BATCHES)})")
    parser.add_argument("--out", type=Path, default=WEIGHTS, help=f"where to write the weights module (default {WEIGHTS.relative_to(REPO)})")
    args = parser.parse_args(argv)
    only = [b for b in args.only.split(",") if b]
    unknown = [b for b in only if b not in BATCHES]
    if unknown:
        print(f"error: --only names no batch {', '.join(unknown)}; the batches are {', '.join(BATCHES)}", file=sys.stderr)
        return 2
    try:
        import sklearn  # noqa: F401
    except ImportError:
        print("error: training needs scikit-learn and numpy; install them with: pip install -e '.[train]'", file=sys.stderr)
        return 2
    notes = [n for n in load() if n["split"] in TUNING_SPLITS]
    started = time.perf_counter()
    log(f"{len(notes)} notes in the tuning splits; scanning them with the rules")
    rules = rules_verdicts(notes)
    if args.lobo:
        report = leave_one_batch_out(notes, rules, only)
        if args.json:
            json.dump(report, sys.stdout, indent=2)
            print()
        else:
            print_lobo(report)
        log(f"done in {time.perf_counter() - started:.0f} s")
        return 0
    model, info = train(notes, rules.__getitem__)
    text = render(model, notes)
    if args.check:
        same = args.out.exists() and args.out.read_text(encoding="utf-8") == text
        print(f"{args.out}: {'matches a fresh training run' if same else 'DIFFERS from a fresh training run: train again'}")
        return 0 if same else 1
    tmp = args.out.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(args.out)
    log(f"wrote {args.out} ({len(text) // 1024} kB, {info['features']} features, thresholds {model.thresholds}) "
        f"in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
