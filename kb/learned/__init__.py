"""The learned ranker: a linear model over the ranking signals re-orders full-text search's candidate window.

Full-text search takes Whoosh's best ``WINDOW`` matches and re-ranks them by hand-tuned signals (kb.rank, each a
multiplier or a bonus); the learned ranker then scores each candidate of that window as a weighted sum of its
features (``features``) and orders the window by that sum. The features are what the re-rank already worked
out, read from each candidate's reasons (``Candidate.why``, the re-rank's own explanation): each signal that
acted on it, with its value where it has one (coverage, word pairs, the common question's closeness), the
hand-tuned score and Whoosh's score (each divided by the best of the query's window), the candidate's places in
both orders, and its record's kind and document.

The weights are trained by ``kb train`` (kb.learned.train, scikit-learn, never at run time) and ship as
``weights.json`` beside a ``manifest.json`` that says what made them (docs/ranker.md). Run time reads them with
the standard library: a weighted sum of a few non-zero features per candidate, fifty candidates per query.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["FEATURES", "Learned", "MANIFEST", "WEIGHTS", "features", "load", "manifest", "reason_feature"]

HERE = Path(__file__).resolve().parent
WEIGHTS, MANIFEST = HERE / "weights.json", HERE / "manifest.json"
FLOOR = -12.0  # log of a score's share of the best, for a candidate scoring nothing (a record the re-rank added)

# Reasons the re-rank gives (kb.rank) -> feature: those without a value count 1 each time they are given.
_PLAIN = {
    "heading": "heading", "card named": "card named", "card named in part": "card named in part",
    "named document": "named document",
    "named kind": "named kind", "document's own words": "implied document", "under a term's rule": "term's rules",
    "history": "history", "older rules": "older rules", "variant not asked about": "variant not asked about",
    "glossary": "glossary", "heading only": "heading only",
}
_PREFIXED = (("answers ", "answers"), ("points at ", "points at"), ("pointed at by ", "pointed at by"),
             ("asks more than the ", "asks more"), ("gives its place to ", "keyword below its rules"),
             ("in the place of ", "in the place of a keyword"), ("superseded by ", "superseded"),
             ("today's text of ", "today's text"), ("below its ruling ", "card below its rulings"),
             ("takes the place of its card ", "in the place of its card"))
_VALUED = ((re.compile(r"coverage (\d+(?:\.\d+)?)$"), "coverage"),
           (re.compile(r"(\d+) word pairs$"), "word pairs"),
           (re.compile(r"asked as .* \((\d+(?:\.\d+)?)\)$", re.S), "asked"),
           (re.compile(r"says (\d+(?:\.\d+)?) of the question its siblings do not$"), "siblings"))
KINDS = ("rule", "section", "glossary", "keyword", "card", "ruling", "note", "history")
DOCS = ("cr", "treachery", "uncommander", "futuresight", "keywords")

FEATURES: tuple[str, ...] = (
    "hand", "hand place", "lexical", "lexical place", "joined",
    "coverage", "word pairs", "asked", "siblings",
    *sorted(set(_PLAIN.values()) | {name for _, name in _PREFIXED}),
    *(f"kind {k}" for k in (*KINDS, "other")), *(f"doc {d}" for d in (*DOCS, "other")),
)


def reason_feature(reason: str) -> tuple[str, float] | None:
    """The feature one of the re-rank's reasons stands for, with its value; None for a reason it does not know."""
    name = _PLAIN.get(reason)
    if name is not None:
        return name, 1.0
    for prefix, name in _PREFIXED:
        if reason.startswith(prefix):
            return name, 1.0
    for pattern, name in _VALUED:
        m = pattern.match(reason)
        if m:
            return name, float(m.group(1))
    return None


def _share(score: float, best: float) -> float:
    """log(score / best): 0 for the best, FLOOR for nothing."""
    return max(math.log(score / best), FLOOR) if score > 0 and best > 0 else FLOOR


def features(candidates: Sequence[Any], lexical: Mapping[int, float]) -> list[dict[str, float]]:
    """Each candidate's non-zero features, in the order given (the re-rank's, best first). ``candidates``:
    kb.rank.Candidate re-ranked with ``explain`` on (their ``why``); ``lexical``: docnum -> Whoosh's score."""
    best = max((c.score for c in candidates), default=0.0)
    whoosh = [lexical.get(c.docnum, 0.0) if c.docnum is not None else 0.0 for c in candidates]
    best_lexical = max(whoosh, default=0.0)
    lexical_order = {i: n for n, i in enumerate(sorted(range(len(whoosh)), key=lambda i: -whoosh[i]))}
    out = []
    for i, c in enumerate(candidates):
        found: dict[str, float] = {"hand": _share(c.score, best), "hand place": 1 / (1 + i)}
        if whoosh[i] > 0:
            found["lexical"] = _share(whoosh[i], best_lexical)
            found["lexical place"] = 1 / (1 + lexical_order[i])
        else:
            found["lexical"], found["joined"] = FLOOR, 1.0
        for reason in c.why:
            known = reason_feature(reason)
            if known is not None:
                name, value = known
                found[name] = found.get(name, 0.0) + value if name in _PLAIN.values() or name == "answers" \
                    else max(found.get(name, 0.0), value)
        record = c.record
        found["kind " + (record.kind if record.kind in KINDS else "other")] = 1.0
        found["doc " + (record.doc if record.doc in DOCS else "other")] = 1.0
        out.append(found)
    return out


@dataclass(frozen=True)
class Learned:
    """Trained weights, one per feature: a candidate's score is the weighted sum of its features."""
    weights: Mapping[str, float]
    version: str  # the first 12 hex digits of the weights file's sha256: what /api/health names

    def scores(self, found: Iterable[Mapping[str, float]]) -> list[float]:
        w = self.weights
        return [sum(w.get(name, 0.0) * value for name, value in f.items()) for f in found]

    def reorder(self, candidates: list[Any], lexical: Mapping[int, float]) -> list[Any]:
        """The candidates by the model's score, best first; equal scores keep the re-rank's order."""
        scored = self.scores(features(candidates, lexical))
        order = sorted(range(len(candidates)), key=lambda i: (-scored[i], i))
        return [candidates[i] for i in order]


def load(path: Path = WEIGHTS) -> Learned | None:
    """The shipped weights, or None when the file is missing or unreadable (search then ranks by hand)."""
    try:
        raw = path.read_bytes()
        given = json.loads(raw)
        weights = {str(k): float(v) for k, v in given["weights"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    unknown = set(weights) - set(FEATURES)
    if unknown:  # weights of another version of the features: not this code's model
        return None
    return Learned(weights, hashlib.sha256(raw).hexdigest()[:12])


def manifest(path: Path = MANIFEST) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
