"""The common questions (``corpus/asked``, checked by ingest.asked): a question matched against them.

Each record that answers something people ask carries a few of their questions ("when does
damage wear off" -> cr/514.2). A question typed in the box is compared with every one of
them by the words they share, each word weighted by its rarity in the documents (the idf
the re-rank uses), as a weighted Dice coefficient: twice the shared weight over both
questions' weights, 1.0 for the same words, 0 for none in common. A record's match is its
best question's. Search blends it with the lexical score (kb.search, README "Search").

Both sides are analysed alike (the vocabulary's rewriting, then content stems), so "kill"
in either means destroy. Built once per build and never changed.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

__all__ = ["Asked", "Match"]


@dataclass(frozen=True)
class Match:
    record: str
    score: float  # weighted Dice of the question and this record's best common question
    asked: str  # that common question, as written


class Asked:
    def __init__(self, entries: Iterable[dict], analyse: Callable[[str], list[str]],
                 weigh: Callable[[list[str]], dict[str, float]]):
        # (record id, question, its stems, their total weight), and stem -> the questions using it
        self._questions: list[tuple[str, str, frozenset[str], float]] = []
        self._by_stem: dict[str, list[int]] = {}
        for entry in entries:
            for question in entry["asked"]:
                stems = analyse(question)
                if not stems:
                    continue
                weights = weigh(stems)
                n = len(self._questions)
                self._questions.append((entry["record"], question, frozenset(weights), sum(weights.values())))
                for s in weights:
                    self._by_stem.setdefault(s, []).append(n)
        self.records = len({q[0] for q in self._questions})

    def __len__(self) -> int:
        return len(self._questions)

    def match(self, weights: dict[str, float], minimum: float = 0.0) -> dict[str, Match]:
        """record id -> its best match for a question of these stems (with their weights), for
        matches of at least ``minimum``.

        A match needs a shared weight of at least ``minimum`` x half the question's (Dice), so
        the question's most common words, together lighter than that, cannot make one on their
        own: only the questions holding one of its rarer words are compared (a few dozen, not
        the hundreds that say "creature")."""
        total = sum(weights.values())
        if not total:
            return {}
        ordered = sorted(weights.items(), key=lambda item: item[1])
        light, need = 0.0, minimum * total / 2
        while ordered and light + ordered[0][1] < need:
            light += ordered.pop(0)[1]
        compared: set[int] = set()
        for s, _ in ordered:
            compared.update(self._by_stem.get(s, ()))
        out: dict[str, Match] = {}
        questions = self._questions
        for n in compared:
            rid, question, stems, own = questions[n]
            score = 2 * sum([weights.get(s, 0.0) for s in stems]) / (total + own)
            if score >= minimum:
                best = out.get(rid)
                if best is None or score > best.score:
                    out[rid] = Match(rid, score, question)
        return out
