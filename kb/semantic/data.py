"""What the semantic stage is trained on, made without PyTorch (``kb train --semantic``, and CI).

Pairs of (question, the record that answers it) come from the project's curated questions: the common
questions of ``corpus/asked`` (as the build loaded them) and the suite in ``corpus.questions`` (its fresh sets
included). The blind sets in ``tests/heldout_questions.py`` are never read here: they are for measuring only.

The split is by record, so that the test figures are about records the model never saw: a record's family
(a rule and its lettered sub-rules, a card and its rulings) falls in train, dev or test by a hash of its
id, and a question belongs to a split only when every record that answers it does. A question whose answers
straddle two splits trains on its train-split answers only and is measured nowhere. ``dev`` chooses the
blend's weight; ``test`` only reports.

Each training pair carries one hard negative: the best-ranked record of our own lexical search that does not
answer the question and is itself a train-split record (what the lexical ranking confuses the question with);
``kb train --semantic`` searches it without the question's own fold of the common questions
(kb.semantic.train.lexical_without_own_fold), so that a question never finds its own wording.
"""
from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from kb.model import Record
from kb.snippet import shown

__all__ = ["Example", "Pair", "Split", "curated_digest", "examples", "family", "pairs", "record_text", "split",
           "split_of", "RECORD_TOKENS", "SPLITS"]

RECORD_TOKENS = 96  # a record's text is cut to this many tokens, in training and at run time
SPLITS = (("train", 70), ("dev", 15), ("test", 15))  # percent of record families
_LETTERED = re.compile(r"^(.*\d)[a-z]{1,2}$")  # cr/702.19c -> cr/702.19
_RULING = re.compile(r"^(.*/cards/[^/]+)/\d+$")  # treachery/cards/the-bio-engineer/3 -> its card


@dataclass(frozen=True)
class Example:
    """A curated question and every record that answers it (an id ending in ``*``: any record under it)."""
    question: str
    answers: tuple[str, ...]
    source: str  # "asked" or the corpus.questions list it came from


@dataclass(frozen=True)
class Pair:
    question: str
    positive: str  # record id
    negative: str | None  # record id: lexical search's best wrong answer in the train split


@dataclass(frozen=True)
class Split:
    train: list[Pair]
    dev: list[Example]
    test: list[Example]
    records: dict[str, str]  # record id -> its split


def record_text(record: Record, records: Mapping[str, Record]) -> str:
    """What is embedded for a record: its heading (a ruling: its card's name) and the words a hit shows."""
    parent = records.get(record.parent) if record.parent else None
    head = record.title or (parent.title if parent is not None and record.kind == "ruling" else None)
    body = shown(record, records)
    return f"{head}. {body}" if head and body else (head or body or record.id)


def family(record_id: str) -> str:
    """A rule and its lettered sub-rules, a card and its rulings: one family, one split."""
    m = _RULING.match(record_id) or _LETTERED.match(record_id)
    return m.group(1) if m else record_id


def split_of(record_id: str) -> str:
    bucket = int(hashlib.sha256(family(record_id).encode()).hexdigest()[:8], 16) % 100
    for name, share in SPLITS:
        if bucket < share:
            return name
        bucket -= share
    raise AssertionError("SPLITS add up to 100")


def examples(asked: Iterable[Mapping], suites: Mapping[str, Sequence[tuple[str, set[str]]]]) -> list[Example]:
    """Every curated question once (its first source wins), sorted, so the data are the same on every run."""
    found: dict[str, Example] = {}
    for entry in asked:
        for question in entry["asked"]:
            key = question.strip().lower()
            if key not in found:
                found[key] = Example(question.strip(), (entry["record"],), "asked")
    for name, suite in suites.items():
        for question, expected in suite:
            key = question.strip().lower()
            if key not in found:
                found[key] = Example(question.strip(), tuple(sorted(expected)), name)
    return sorted(found.values(), key=lambda e: (e.question.lower(), e.answers))


def _existing(answers: Iterable[str], records: Mapping[str, Record]) -> list[str]:
    """The answers that are records of this build (a wildcard stands for the record it is under)."""
    return [rid for rid in (a.rstrip("*") for a in answers) if rid in records]


def split(found: Sequence[Example], records: Mapping[str, Record]) -> tuple[list[tuple[Example, list[str]]],
                                                                             list[Example], list[Example]]:
    """(train examples with their train-split answers, dev examples, test examples)."""
    train: list[tuple[Example, list[str]]] = []
    dev: list[Example] = []
    test: list[Example] = []
    for example in found:
        present = _existing(example.answers, records)
        if not present:
            continue
        sides = {split_of(rid) for rid in present}
        if sides == {"dev"}:
            dev.append(example)
        elif sides == {"test"}:
            test.append(example)
        else:
            own = [rid for rid in present if split_of(rid) == "train"]
            if own:
                train.append((example, own))
    return train, dev, test


def pairs(train: Sequence[tuple[Example, list[str]]], lexical: Callable[[str], list[str]],
          answers: Callable[[str, set[str]], bool], per_question: int = 2) -> list[Pair]:
    """A pair per train answer (at most ``per_question``), each with lexical search's best wrong train record
    among its first five (``lexical(question)`` -> ranked record ids), or none when the five are all right."""
    made: list[Pair] = []
    for example, own in train:
        expected = set(example.answers)
        ranked = lexical(example.question)[:5]
        negative = next((rid for rid in ranked if not answers(rid, expected) and split_of(rid) == "train"), None)
        made += [Pair(example.question, rid, negative) for rid in own[:per_question]]
    return made


def curated_digest(corpus_dir: Path, suites: Mapping[str, Sequence[tuple[str, set[str]]]]) -> str:
    """sha256 of the curated questions as written: every ``corpus/asked`` file and the corpus.questions lists.
    The shipped model's manifest records it; a test compares (the weights are stale when it differs)."""
    h = hashlib.sha256()
    for path in sorted((Path(corpus_dir) / "asked").glob("*.toml")):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    for name in sorted(suites):
        listed = [[q, sorted(a)] for q, a in suites[name]]
        h.update(name.encode() + b"\0" + json.dumps(listed, ensure_ascii=False).encode() + b"\0")
    return h.hexdigest()
