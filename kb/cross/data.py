"""What the cross-encoder is trained on, made without PyTorch (``kb train --cross``, and CI).

The questions and their split by record are the learned ranker's (kb.learned.data.prepare: the curated questions
of ``corpus/asked`` and ``corpus.questions``, a rule with its sub-rules or a card with its rulings falling in
train, dev or test by a hash of its id; the blind sets are never read). A training question becomes one group:
its answer first, then the records our own lexical search confuses it with, the best wrong train-split records
among its first ``LOOK`` hits (the hard negatives). The search that finds them matches the common questions less
the question's own fold (kb.learned.data.fold_table), so a training question never finds itself in the table
and its negatives are what a new wording of it would meet.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from corpus.questions import answers
from kb.learned.data import Data, answered, fold_of, fold_table
from kb.semantic.data import split_of

__all__ = ["Group", "LOOK", "NEGATIVES", "groups"]

LOOK = 10  # lexical hits a hard negative is taken from (the stage re-ranks at most the first 20)
NEGATIVES = 3  # hard negatives per group


@dataclass(frozen=True)
class Group:
    question: str
    positive: str  # record id of an answer
    negatives: tuple[str, ...]  # record ids: lexical search's best wrong train records, best first


def groups(data: Data, asked: Sequence[Mapping], lexical: Callable[[str], list[str]],
           table: Callable[[list[dict]], None], records: Mapping) -> list[Group]:
    """A group per training question that lexical search confuses with at least one wrong train record, in the
    order of ``data.train`` (sorted). ``lexical(question)`` -> ranked record ids; ``table(entries)`` makes the
    searcher match the common questions ``entries``."""
    made: dict[str, Group] = {}
    for fold in (0, 1):
        table(fold_table(asked, fold))
        for example in data.train:
            if fold_of(example.question) != fold:
                continue
            own = answered(example, records)
            expected = set(example.answers)
            wrong = [rid for rid in lexical(example.question)[:LOOK]
                     if not answers(rid, expected) and split_of(rid) == "train"]
            if own and wrong:
                made[example.question] = Group(example.question, own[0], tuple(wrong[:NEGATIVES]))
    return [made[e.question] for e in data.train if e.question in made]
