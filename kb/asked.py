"""The common questions (``corpus/asked``, checked by ingest.asked): a question matched against them.

Each record that answers something people ask carries a few of their questions ("when does
damage wear off" -> cr/514.2). A question typed in the box is compared with every one of
them by the words they share, each word weighted by its rarity in the documents (the idf
the re-rank uses), as a weighted Dice coefficient: twice the shared weight over both
questions' weights, 1.0 for the same words, 0 for none in common. A record's match is its
best question's. Search blends it with the lexical score (kb.search, README "Search").

Both sides are analysed alike (the vocabulary's rewriting, then content stems), so "kill"
in either means destroy. A common question is matched on what it asks about its topic, not
on the topic's name: the words of the card a ruling or note is about never count as shared,
though they count in the common question's weight ("puppet master can a player end up with
no identity" shares only "identity" with "puppetmaster identity", so the card's own page comes
first). The name is the lexical ranking's to match (titles, headings, coverage); otherwise
every ruling of a card would match any question naming the card. Built once per build and
never changed afterwards, so threads share it freely.
"""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable
from typing import NamedTuple

from kb.derived import Derived

__all__ = ["Asked", "Match", "curated_questions"]


def curated_questions(entries: Iterable[dict]) -> list[str]:
    """Every common question of ``entries`` (corpus/asked as a build loads it), in their order: what the semantic
    stage embeds for the nearest curated question's vote (kb.semantic)."""
    return [question for entry in entries for question in entry["asked"]]


class Match(NamedTuple):  # ~35 per question: a tuple is made in C, a frozen dataclass sets each field through a call
    record: str
    score: float  # weighted Dice of the question and this record's best common question
    asked: str  # that common question, as written


class Asked:
    def __init__(self, entries: Iterable[dict], analyse: Callable[[str], list[str]],
                 weigh: Callable[[list[str]], dict[str, float]], minimum: float = 0.0,
                 topic: Callable[[str], frozenset[str]] = lambda rid: frozenset()):
        found: list[tuple[float, str, str, frozenset[str]]] = []  # (its weight, record id, question, stems)
        entries = list(entries)
        # every (record id, common question) of the table as given, whatever its words: what the semantic stage
        # compares a question with (kb.semantic.Stage.nearest_asked)
        self.entries = tuple((entry["record"], question) for entry in entries for question in entry["asked"])
        # what is derived from this table, made once and read-only (the semantic stage's matrix of its questions)
        self.derived = Derived()
        for entry in entries:
            named = topic(entry["record"])
            for question in entry["asked"]:
                weights = weigh(analyse(question))
                own = sum(weights.values())  # the topic's words count in its weight, never as shared
                asked = frozenset(s for s in weights if s not in named)
                if asked:
                    found.append((own, entry["record"], question, asked))
        # Numbered lightest first, so that "weighs at most x" is every number below one index: a bit mask.
        found.sort(key=lambda q: q[0])
        self.minimum = minimum
        self._own = [q[0] for q in found]
        self._written = [q[2] for q in found]  # each question as written
        self._record_of = [q[1] for q in found]
        bits: dict[str, int] = {}
        for n, (_, _, _, stems) in enumerate(found):
            for s in stems:
                bits[s] = bits.get(s, 0) | 1 << n
        self._bits = bits  # stem -> the questions sharing it, one bit each; never changed
        self._all = (1 << len(found)) - 1
        self.records = len({q[1] for q in found})

    def uses(self, stem: str) -> bool:
        """Some common question uses this stem (a table word the documents may not: "pinger")."""
        return stem in self._bits

    def __len__(self) -> int:
        return len(self._written)

    def match(self, weights: dict[str, float], minimum: float | None = None,
              beyond: frozenset[str] = frozenset()) -> dict[str, Match]:
        """record id -> its best match for a question of these stems (with their weights), for
        matches of at least ``minimum`` (the table's own, or a higher one), and, given ``beyond``, only
        questions sharing one of those stems ("sba legend": not "what are state based actions").

        The common questions are split by which of the question's stems they share, one stem at
        a time, as bit masks (a branch is dropped once it cannot share enough weight, or holds no
        question); each set of shared stems then takes, in one mask, the questions light enough
        for a match: Dice >= minimum means weighing at most 2 x shared / minimum - the question's
        weight. Only the matches themselves are touched one by one (a few dozen of 7,000)."""
        total = sum(weights.values())
        if not total:
            return {}
        minimum = self.minimum if minimum is None else max(minimum, self.minimum)
        stems = sorted(((w, self._bits[s]) for s, w in weights.items() if s in self._bits), key=lambda x: -x[0])
        mask = self._all
        if beyond:  # the questions sharing none of those stems are left out from the start
            mask = 0
            for s in beyond:
                mask |= self._bits.get(s, 0)
        rest = [0.0] * (len(stems) + 1)  # the weight of the stems from i on
        for i in range(len(stems) - 1, -1, -1):
            rest[i] = rest[i + 1] + stems[i][0]
        floor = minimum * total / 2  # no match shares less (Dice: 2 x shared / (total + own) >= minimum)
        own, record_of = self._own, self._record_of
        best: dict[str, tuple[float, int]] = {}  # record id -> its best score and question
        branches = [(0, mask, 0.0)]
        last = len(stems)
        while branches:
            i, mask, shared = branches.pop()
            if shared + rest[i] < floor:
                continue
            if i < last:
                w, using = stems[i]
                both = mask & using
                if both:
                    branches.append((i + 1, both, shared + w))
                if both != mask:
                    branches.append((i + 1, mask ^ both, shared))
                continue
            if not shared:
                continue  # the questions sharing no stem
            twice = 2 * shared
            heaviest = bisect_right(own, twice / minimum - total) if minimum > 0 else len(own)
            if mask.bit_length() > heaviest:
                mask &= (1 << heaviest) - 1
            # each match, the heaviest first: a few per set of shared stems, each read off the top of the mask
            # (a bit mask written out in binary and searched for its ones cost ~15 us for the whole table)
            while mask:
                n = mask.bit_length() - 1
                mask ^= 1 << n
                score = twice / (total + own[n])  # 2 x shared / (total + own), the same division
                rid = record_of[n]
                before = best.get(rid)
                if before is None or score > before[0]:
                    best[rid] = (score, n)
        # each Match made as the tuple it is (in C: a NamedTuple's own constructor is a Python function)
        make, written = tuple.__new__, self._written
        return {rid: make(Match, (rid, score, written[n])) for rid, (score, n) in best.items()}
