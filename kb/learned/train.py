"""``kb train``: train the learned ranker on the curated questions, measure it on the split by record.

Needs scikit-learn (the ``train`` extra); run time never imports this module. One deterministic command: the
questions are sorted (kb.learned.data), the folds and the split are hashes, the solver is deterministic and
the weights are rounded before they are written. What it does, in order:

1. the questions, split by record (kb.learned.data), on an opened build that should hold the official rules;
2. each training question's window (the hand-tuned re-rank's candidates, with their features), searched with
   the common questions of train records less its own fold; the dev and test windows with train records' only;
3. a pairwise logistic regression: for each training window that holds an answer, every answer against each
   wrong candidate among the first ``NEGATIVES`` (feature differences, both ways round; each question weighs
   the same); the regularisation ``C`` is chosen on dev (rank 1 then top 3 of the re-ordered windows);
4. measures with the real search, lexical alone and with the weights: dev and test (the evaluation table) and
   the suites (the table as served); writes ``weights.json`` and ``manifest.json``.
"""
from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from corpus.questions import answers
from kb.learned import FEATURES, MANIFEST, WEIGHTS, Learned
from kb.learned.data import SUITES, Window, data_digest, evaluation_table, fold_of, fold_table, prepare, window
from kb.semantic.data import Example

__all__ = ["blended", "measure", "pays", "train"]

C_TRIED = (0.01, 0.1, 1.0, 10.0)  # the regularisation settings tried on dev
# The shipped score is the hand-tuned one plus BLEND x the model's (log shares: ``hand`` gains 1): the largest blend
# that loses no question of the curated suites (training data, as served) is kept; None is the model alone.
BLENDS = (None, 2.0, 1.0, 0.5, 0.3, 0.2, 0.1, 0.05)
NEGATIVES = 20  # wrong candidates per answer, the re-rank's first
POSITIVES = 3  # answers per window
SEED = 0


def _matrix(window: Window) -> np.ndarray:
    index = {name: i for i, name in enumerate(FEATURES)}
    out = np.zeros((len(window.ids), len(FEATURES)))
    for row, found in enumerate(window.features):
        for name, value in found.items():
            out[row, index[name]] = value
    return out


def _pairs(windows: Sequence[tuple[Example, Window | None]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Feature differences (answer - wrong, label 1; wrong - answer, label 0) and each pair's weight."""
    diffs, labels, weights = [], [], []
    for example, found in windows:
        if found is None:
            continue
        expected = set(example.answers)
        right = [i for i, rid in enumerate(found.ids) if answers(rid, expected)][:POSITIVES]
        wrong = [i for i, rid in enumerate(found.ids[:NEGATIVES]) if not answers(rid, expected)]
        if not right or not wrong:
            continue
        x = _matrix(found)
        made = np.array([x[p] - x[n] for p in right for n in wrong])
        diffs += [made, -made]
        labels += [np.ones(len(made)), np.zeros(len(made))]
        weights += [np.full(2 * len(made), 1.0 / (2 * len(made)))]
    return np.vstack(diffs), np.concatenate(labels), np.concatenate(weights)


def _fit(x: np.ndarray, y: np.ndarray, w: np.ndarray, c: float) -> dict[str, float]:
    from sklearn.linear_model import LogisticRegression

    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=c, fit_intercept=False, max_iter=5000, tol=1e-8, random_state=SEED)
    model.fit(x / scale, y, sample_weight=w * len(w) / w.sum())
    coef = model.coef_[0] / scale
    # rounded to 6 significant digits: the file is the same bytes on every run of the same data
    return {name: float(f"{v:.6g}") for name, v in zip(FEATURES, coef, strict=True) if v != 0}


def _offline(windows: Sequence[tuple[Example, Window | None]], learned: Learned | None) -> tuple[int, int]:
    """(rank 1, top 3) of the answers in the windows re-ordered by ``learned`` (None: as the re-rank left them)."""
    top1 = top3 = 0
    for example, found in windows:
        if found is None:
            continue
        ids = found.ids
        if learned is not None:
            scored = learned.scores(found.features)
            ids = [ids[i] for i in sorted(range(len(ids)), key=lambda i: (-scored[i], i))]
        at = next((i for i, rid in enumerate(ids) if answers(rid, set(example.answers))), None)
        top1 += at == 0
        top3 += at is not None and at < 3
    return top1, top3


def measure(searcher: Any, questions: Sequence[tuple[str, Sequence[str]]], learned: Learned | None,
            limit: int = 10) -> tuple[int, int]:
    """(rank 1, top 3) of the real search with ``learned`` (None: lexical alone)."""
    before = searcher.learned
    searcher.learned = learned
    top1 = top3 = 0
    try:
        for question, expected in questions:
            ids = [h.id for h in searcher.search(question, limit=limit).hits]
            at = next((i for i, rid in enumerate(ids) if answers(rid, set(expected))), None)
            top1 += at == 0
            top3 += at is not None and at < 3
    finally:
        searcher.learned = before
    return top1, top3


def _collect(searcher: Any, asked: Sequence[Mapping], data: Any, say: Callable[[str], None]) \
        -> tuple[list[tuple[Example, Window | None]], list[tuple[Example, Window | None]]]:
    """Training windows (each fold against the table less its own questions), then dev windows."""
    train: list[tuple[Example, Window | None]] = []
    for fold in range(2):
        searcher.asked = searcher.asked_table(fold_table(asked, fold))
        for example in data.train:
            if fold_of(example.question) == fold:
                train.append((example, window(searcher, example.question)))
        say(f"fold {fold + 1}/2: {len(train):,} training windows")
    searcher.asked = searcher.asked_table(evaluation_table(asked))
    dev = [(e, window(searcher, e.question)) for e in data.dev]
    return sorted(train, key=lambda t: (t[0].question.lower(), t[0].answers)), dev


def train(store: Any, searcher: Any, corpus_dir: Path, suites: Mapping[str, Sequence[tuple[str, set[str]]]]
          | None = None, out: Path = WEIGHTS, say: Callable[[str], None] = print) -> dict[str, Any]:
    """Train on ``store``'s curated questions, measure, write the weights and manifest. ``searcher``: a
    kb.search.Searcher of ``store`` without an answer cache (its ``asked`` and ``learned`` are set while it
    works, and the table as served put back at the end). ``suites``: more named question lists to measure
    (never trained on: the blind sets)."""
    started = time.perf_counter()
    asked = list(store.manifest.get("asked", ()))
    served = searcher.asked
    data = prepare(asked, store.records)
    say(f"{len(data.train):,} training questions, {len(data.dev):,} dev and {len(data.test):,} test questions "
        "about records no training question is about")
    try:
        train_windows, dev_windows = _collect(searcher, asked, data, say)
        x, y, w = _pairs(train_windows)
        say(f"{len(y) // 2:,} pairs from {sum(f is not None for _, f in train_windows):,} windows "
            f"({time.perf_counter() - started:.0f}s)")
        tried = []
        for c in C_TRIED:
            weights = _fit(x, y, w, c)
            got = _offline(dev_windows, Learned(weights, "dev"))
            say(f"C={c}: dev windows rank 1 / top 3 {got[0]} / {got[1]}")
            tried.append((got, -C_TRIED.index(c), c, weights))
        best = max(tried, key=lambda t: (t[0], t[1]))
        chosen_c = best[2]
        blend, weights = _blend(searcher, asked, best[3], say)
        raw = (json.dumps({"features": list(FEATURES), "weights": weights}, indent=1) + "\n").encode()
        learned = Learned(weights, hashlib.sha256(raw).hexdigest()[:12])
        figures = _figures(searcher, asked, data, suites or {}, learned, dev_windows)
    finally:
        searcher.asked, searcher.learned = served, None
    found_manifest = {
        "version": learned.version, "model": "pairwise logistic regression (scikit-learn), linear weights",
        "data_digest": data_digest(corpus_dir),
        "pairs_digest": hashlib.sha256(np.ascontiguousarray(x).tobytes() + y.tobytes()).hexdigest(),
        "seed": SEED, "settings": {"C": chosen_c, "C_tried": list(C_TRIED), "blend": blend,
                                   "blends_tried": list(BLENDS), "negatives": NEGATIVES, "positives": POSITIVES,
                                   "folds": 2},
        "questions": {"train": len(data.train), "dev": len(data.dev), "test": len(data.test)}, "pairs": len(y) // 2,
        "pays": pays(figures), "figures": figures, "build": store.manifest.get("build_id"),
        "cr": Path(store.manifest.get("cr") or "").name,
        "seconds": round(time.perf_counter() - started)}
    out.write_bytes(raw)
    out.with_name(MANIFEST.name).write_text(json.dumps(found_manifest, indent=1) + "\n", encoding="utf-8")
    return found_manifest


def pays(figures: Mapping[str, Any]) -> bool:
    """Whether the weights should be on by default: more test questions first, and no suite question lost."""
    test = figures["test"]
    return test["learned"][0] > test["lexical"][0] and all(
        got["learned"][0] >= got["lexical"][0] and got["learned"][1] >= got["lexical"][1]
        for name, got in figures.items() if name in SUITES)


def blended(weights: Mapping[str, float], blend: float | None) -> dict[str, float]:
    """The hand-tuned score's log share plus ``blend`` x the model's (None: the model's alone)."""
    if blend is None:
        return dict(weights)
    out = {name: float(f"{value * blend:.6g}") for name, value in weights.items()}
    out["hand"] = float(f"{out.get('hand', 0.0) + 1.0:.6g}")
    return out


def _blend(searcher: Any, asked: Sequence[Mapping], weights: Mapping[str, float], say: Callable[[str], None]) \
        -> tuple[float | None, dict[str, float]]:
    """The largest blend of ``BLENDS`` under which no curated suite (as served) answers fewer questions first or
    in the top three than the hand-tuned ranking; the model alone when none holds them (it then does not pay)."""
    searcher.asked = searcher.asked_table(asked)
    suites = {name: [(q, sorted(e)) for q, e in questions] for name, questions in SUITES.items()}
    alone = {name: measure(searcher, pairs, None) for name, pairs in suites.items()}
    for blend in BLENDS:
        made = blended(weights, blend)
        learned = Learned(made, "blend")
        lost = [name for name, pairs in suites.items()
                if any(a < b for a, b in zip(measure(searcher, pairs, learned), alone[name], strict=True))]
        say(f"blend {blend}: {'loses questions of ' + ', '.join(lost) if lost else 'the suites hold'}")
        if not lost:
            return blend, made
    return None, dict(weights)


def _figures(searcher: Any, asked: Sequence[Mapping], data: Any, suites: Mapping[str, Sequence[tuple[str, set[str]]]],
             learned: Learned, dev_windows: Sequence[tuple[Example, Window | None]]) -> dict[str, Any]:
    """Rank 1 / top 3, lexical alone and with the weights: dev and test by record (the evaluation table), then
    every suite (the table as served)."""
    figures: dict[str, Any] = {"dev windows": {"lexical": _offline(dev_windows, None),
                                               "learned": _offline(dev_windows, learned)}}
    searcher.asked = searcher.asked_table(evaluation_table(asked))
    for name, examples in (("dev", data.dev), ("test", data.test)):
        pairs = [(e.question, e.answers) for e in examples]
        figures[name] = {"n": len(pairs), "lexical": measure(searcher, pairs, None),
                         "learned": measure(searcher, pairs, learned)}
    searcher.asked = searcher.asked_table(asked)
    for name, questions in {**SUITES, **suites}.items():
        pairs = [(q, sorted(e)) for q, e in questions]
        figures[name] = {"n": len(pairs), "lexical": measure(searcher, pairs, None),
                         "learned": measure(searcher, pairs, learned)}
    return figures
