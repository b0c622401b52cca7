"""What the learned ranker is trained and measured on, made without scikit-learn (``kb train``, and CI).

The questions are the project's curated ones: the common questions of ``corpus/asked`` (as the build loaded
them) and every list of ``corpus.questions`` (the suite, the table talk, the fresh sets), each with the
record(s) that answer it. The blind sets of ``tests/heldout_questions.py`` are never trained on (they say
"measure only"); ``kb train`` measures them as a suite.

The split is by record, as the semantic stage's (kb.semantic.data: a rule and its lettered sub-rules, a card
and its rulings, fall together in train, dev or test by a hash of their id), so dev and test ask about records
no training question was about.

The common questions are also a signal: search matches a query against them (kb.asked, the "asked" signal), so
a question of ``corpus/asked`` finds itself there. Measured as it is served, a dev or test question would
match its own words and be answered by the table, not by the ranking. So:

- the evaluation searcher's table (``evaluation_table``) holds the common questions of train-split records only:
  no dev or test record is matched through a curated question of its own;
- training windows are collected with the table less the training question's own fold (``fold_table``: the
  questions fall in ``FOLDS`` folds by a hash of their words), so a training question never matches itself and
  its record's other curated questions still do, as a new wording of a known question does when served.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpus.questions import CR_FRESH, CR_FRESH_2, CR_QUESTIONS, CR_TABLE_TALK, FRESH, FRESH_2, QUESTIONS, \
    TABLE_TALK
from kb.learned import features
from kb.model import Record
from kb.semantic.data import Example, curated_digest, examples, split, split_of

__all__ = ["FOLDS", "SUITES", "Collector", "Data", "Window", "answered", "data_digest", "evaluation_table", "fold_of",
           "fold_table", "prepare"]

SUITES: dict[str, list[tuple[str, set[str]]]] = {
    "QUESTIONS": QUESTIONS, "TABLE_TALK": TABLE_TALK, "CR_QUESTIONS": CR_QUESTIONS, "CR_TABLE_TALK": CR_TABLE_TALK,
    "FRESH": FRESH, "CR_FRESH": CR_FRESH, "FRESH_2": FRESH_2, "CR_FRESH_2": CR_FRESH_2}
FOLDS = 2


@dataclass(frozen=True)
class Data:
    train: list[Example]  # questions every answer of which is a train record
    dev: list[Example]  # questions every answer of which is a dev record
    test: list[Example]  # ... a test record


def prepare(asked: Iterable[Mapping], records: Mapping[str, Record]) -> Data:
    """The curated questions, split by record (kb.semantic.data.split), sorted: the same on every run. A question
    whose answers straddle two splits is left out (trained on, it would call a dev or test record right)."""
    train, dev, test = split(examples(asked, SUITES), records)
    return Data([e for e, own in train if len(own) == len(answered(e, records))], dev, test)


def answered(example: Example, records: Mapping[str, Record]) -> list[str]:
    """The records of this build an example names as its answers (a wildcard: the record it is under)."""
    return [rid for rid in (a.rstrip("*") for a in example.answers) if rid in records]


def fold_of(question: str) -> int:
    return int(hashlib.sha256(question.strip().lower().encode()).hexdigest()[:8], 16) % FOLDS


def evaluation_table(asked: Iterable[Mapping]) -> list[dict]:
    """The common questions of train-split records only: what the searcher measuring dev and test matches."""
    return [dict(entry) for entry in asked if split_of(entry["record"]) == "train"]


def fold_table(asked: Iterable[Mapping], fold: int) -> list[dict]:
    """The evaluation table less the questions of ``fold``: what a training question of that fold is matched
    against (never itself)."""
    out = []
    for entry in evaluation_table(asked):
        kept = [q for q in entry["asked"] if fold_of(q) != fold]
        if kept:
            out.append({**entry, "asked": kept})
    return out


def data_digest(corpus_dir: Path) -> str:
    """sha256 of the curated questions as written (every corpus/asked file, every corpus.questions list): the
    manifest records it, and a test compares it with today's (the weights are stale when it differs)."""
    return curated_digest(corpus_dir, SUITES)


@dataclass(frozen=True)
class Window:
    """One query's candidate window after the hand-tuned re-rank: record ids and features, best first."""
    ids: list[str]
    features: list[dict[str, float]]


class Collector:
    """Stands in for the learned ranker on a searcher (``searcher.learned``): keeps the window's features and
    leaves its order alone (so the search is lexical alone)."""

    def __init__(self) -> None:
        self.last: Window | None = None

    def reorder(self, candidates: list[Any], lexical: Mapping[int, float]) -> list[Any]:
        self.last = Window([c.record.id for c in candidates], features(candidates, lexical))
        return candidates


def window(searcher: Any, question: str) -> Window | None:
    """The full-text window ``searcher`` re-ranks for ``question`` (None: no full-text search ran). ``searcher``
    keeps no answers (``cache_size=0``): one answered from memory re-ranks nothing."""
    collector = Collector()
    before = searcher.learned
    searcher.learned = collector
    try:
        searcher.search(question, limit=10)
    finally:
        searcher.learned = before
    return collector.last


def windows(searcher: Any, questions: Sequence[str]) -> list[Window | None]:
    return [window(searcher, q) for q in questions]
