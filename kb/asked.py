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
                 weigh: Callable[[list[str]], dict[str, float]], minimum: float = 0.0):
        # (record id, question, its stems, their total weight); stem -> the questions using it, and the
        # questions using it among their heavy stems (``_heavy``)
        self._questions: list[tuple[str, str, frozenset[str], float]] = []
        self._by_stem: dict[str, list[int]] = {}
        self._by_heavy: dict[str, list[int]] = {}
        self.minimum = minimum
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
                for s in _heavy(weights, minimum):
                    self._by_heavy.setdefault(s, []).append(n)
        self.records = len({q[0] for q in self._questions})
        self._own = [q[3] for q in self._questions]
        self._sets = {s: frozenset(ns) for s, ns in self._by_stem.items()}

    def __len__(self) -> int:
        return len(self._questions)

    def match(self, weights: dict[str, float]) -> dict[str, Match]:
        """record id -> its best match for a question of these stems (with their weights), for
        matches of at least ``minimum``.

        A match (Dice) shares at least ``minimum`` x half of each side's weight, so it shares a heavy
        stem of each side: not only the lightest ones, together under that share ("creature" in a
        question about defenders). Only the common questions found through the question's heavy
        stems, or through their own heavy stems, whichever finds fewer, are compared: a few dozen
        rather than the hundreds that say "creature"; the matches are the same."""
        total = sum(weights.values())
        if not total:
            return {}
        by_stem, by_heavy = self._by_stem, self._by_heavy
        mine = [by_stem.get(s, ()) for s in _heavy(weights, self.minimum)]
        theirs = [by_heavy.get(s, ()) for s in weights]
        lists = mine if sum(map(len, mine)) <= sum(map(len, theirs)) else theirs
        compared = set().union(*lists) if lists else set()
        # The shared weight of each compared question, stem by stem: the questions using a stem are a set,
        # so only the compared ones that use it are touched (set intersection in C).
        shared = dict.fromkeys(compared, 0.0)
        sets = self._sets
        for s, w in weights.items():
            using = sets.get(s)
            if using:
                for n in using.intersection(compared):
                    shared[n] += w
        out: dict[str, Match] = {}
        minimum, own, questions = self.minimum, self._own, self._questions
        floor = minimum * total / 2  # 2 x shared / (total + own) >= minimum needs at least this much shared
        for n, both in [item for item in shared.items() if item[1] >= floor]:
            score = 2 * both / (total + own[n])
            if score >= minimum:
                rid, question = questions[n][:2]
                best = out.get(rid)
                if best is None or score > best.score:
                    out[rid] = Match(rid, score, question)
        return out


def _heavy(weights: dict[str, float], minimum: float) -> list[str]:
    """The stems left once the lightest are taken away while they weigh under ``minimum`` / 2 of the whole:
    a match of at least ``minimum`` (Dice) cannot be made of those alone."""
    ordered = sorted(weights.items(), key=lambda item: item[1])
    light, need = 0.0, minimum * sum(weights.values()) / 2
    while ordered and light + ordered[0][1] < need:
        light += ordered.pop(0)[1]
    return [s for s, _ in ordered]
