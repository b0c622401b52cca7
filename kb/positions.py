"""Per-build word sequences for phrase queries: a phrase found with one ``bytes.find`` per candidate.

A phrase's first run used to read every posting's positions of every word it
holds ("leaves the game": all of "the"'s thousands, each decoded one at a time:
11-17 ms of CPU), then step through them in Python. Instead, once per build (in
the build's background warming, ``Searcher.warm``) the field's postings are read
through Whoosh's public API (``reader.lexicon``, ``reader.postings(...).all_items()``
and the field format's ``decoder("positions")``) into:

- every document's word sequence in the field, as term numbers packed in bytes
  (four per word: ~0.9 MB with the official rules), read-only once made;
- every term's documents (an ``array`` of docnums, ascending) and how many times
  each holds it.

A phrase's documents are then those of its rarest word whose sequence holds the
phrase's term numbers side by side (``bytes.find``, in C); each word's score in a
matching document is the searcher's own scorer (``scorer.score``) given the word's
weight there (how many positions its posting holds times the field's boost, as
the index stores it) and the document's field length (read once with the table, as the
scorer's ``dfl`` reads it). So the answers are Whoosh's phrase query's, score for score
(``tests/test_positions.py`` holds them equal on the real corpus), without its
span matchers. A field of more than ``MAX_WORDS`` words gets no table (the
caller keeps reading positions per word): the memory stays bounded.
"""
from __future__ import annotations

import threading
from array import array
from bisect import bisect_left
from dataclasses import dataclass, field

import numpy as np
from whoosh.scoring import WeightLengthScorer

from kb import whoosh_adapter as adapter

__all__ = ["PhraseTable", "MAX_WORDS", "MAX_SCORERS"]

MAX_SCORERS = 50_000  # words whose scorer is kept (each a few hundred bytes)
MAX_WORDS = 16_000_000  # 64 MB of sequences at most (ten times the bundled corpus and the rules: ~2.2 million)
_WIDTH = 4  # bytes per word in a sequence: array("i")
# A phrase in this many documents or more is scored as arrays (word_scores); under, a word at a time costs less than
# numpy's calls ("starting player", 20 documents: 214 against 238 us a search; "face down", 170: 605 against 431 us)
ARRAYS_FROM = 40


class _At:
    """The two things a Whoosh ``WeightLengthScorer.score(matcher)`` asks of its matcher."""

    __slots__ = ("docnum", "_weight")

    def __init__(self, docnum: int, weight: float):
        self.docnum, self._weight = docnum, weight

    def id(self) -> int:
        return self.docnum

    def weight(self) -> float:
        return self._weight


@dataclass(frozen=True)
class PhraseTable:
    """One build's word sequences in one field (see the module docstring). Never changed once made."""

    fieldname: str
    numbers: dict[bytes, int]  # term -> its number in the sequences
    sequences: tuple[bytes, ...]  # docnum -> its words' numbers (array("i") bytes), b"" without the field
    docs: tuple[array, ...]  # term number -> the docnums that hold it, ascending
    counts: tuple[array, ...]  # term number -> how many times each of those documents holds it
    boost: float  # the field's boost: a word's weight in a document is its count times it
    lengths: array  # docnum -> the field's length as the searcher reads it (doc_field_length(d, field, 1))
    # word -> its scorer, made on first use (its idf read from the index once, not per query) and kept: with
    # the lengths from the table it reads nothing of the searcher that made it. The build's searchers all
    # weigh alike (kb.search's BM25F), so one scorer per word serves every thread.
    scorers: dict = field(default_factory=dict, compare=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, compare=False, repr=False)

    @classmethod
    def read(cls, searcher, fieldname: str, max_words: int = MAX_WORDS) -> PhraseTable | None:
        """The table of ``fieldname`` from a Whoosh searcher's index; None past ``max_words`` words."""
        reader = searcher.reader()
        field = searcher.schema[fieldname]
        decode = field.format.decoder("positions")
        numbers: dict[bytes, int] = {}
        docs: list[array] = []
        counts: list[array] = []
        words: dict[int, list[int]] = {}
        total = 0
        for btext in reader.lexicon(fieldname):
            k = numbers[btext] = len(numbers)
            held, times = array("i"), array("i")
            for docnum, value in reader.postings(fieldname, btext).all_items():
                held.append(docnum)
                seq = words.get(docnum)
                if seq is None:
                    seq = words[docnum] = []
                positions = decode(value)
                times.append(len(positions))
                total += len(positions)
                if total > max_words:
                    return None
                for p in positions:
                    if p >= len(seq):
                        seq.extend([-1] * (p + 1 - len(seq)))
                    seq[p] = k
            docs.append(held)
            counts.append(times)
        count = reader.doc_count_all()
        sequences = tuple(array("i", words.get(d, ())).tobytes() for d in range(count))
        lengths = array("i", (searcher.doc_field_length(d, fieldname, 1) for d in range(count)))
        return cls(fieldname, numbers, sequences, tuple(docs), tuple(counts), float(field.format.field_boost),
                   lengths)

    def memory(self) -> int:
        """Bytes held by the sequences and the document lists (the rest is the lexicon's dict)."""
        return sum(map(len, self.sequences)) + 2 * sum(len(d) * d.itemsize for d in self.docs) + \
            len(self.lengths) * self.lengths.itemsize

    def matches(self, words: list[bytes]) -> list[int] | None:
        """The docnums, ascending, where ``words`` stand side by side in this order; None when a word is
        not in the field (Whoosh's phrase then matches nothing)."""
        try:
            ks = [self.numbers[w] for w in words]
        except KeyError:
            return None
        needle = array("i", ks).tobytes()
        rarest = min(ks, key=lambda k: len(self.docs[k]))
        sequences = self.sequences
        out = []
        for d in self.docs[rarest]:
            hay = sequences[d]
            i = hay.find(needle)
            while i % _WIDTH and i != -1:  # a match must start on a word, not inside one's bytes
                i = hay.find(needle, i + 1)
            if i != -1:
                out.append(d)
        return out

    def warm(self, searcher) -> None:
        """Make every word's scorer now (up to ``MAX_SCORERS``), not on a phrase's first run."""
        for word in self.numbers:
            if len(self.scorers) >= MAX_SCORERS:
                return
            self._scorer(searcher, word)

    def _scorer(self, searcher, word: bytes):
        found = self.scorers.get(word)
        if found is not None:
            return found
        found = searcher.weighting.scorer(searcher, self.fieldname, word)
        if not callable(getattr(found, "dfl", None)):
            return found  # not a WeightLengthScorer: it may read its searcher, so it is not kept
        found.dfl = self.lengths.__getitem__  # the lengths it would read, from memory
        if len(self.scorers) < MAX_SCORERS:
            with self._lock:
                found = self.scorers.setdefault(word, found)
        return found

    def scores(self, searcher, words: list[bytes], docnums: list[int]) -> list[list[float]]:
        """Per document, each word's score there by the searcher's weighting (Whoosh's scorer, as its
        phrase matcher scores each word)."""
        columns = self.word_scores(searcher, words, docnums)
        return [list(row) for row in zip(*columns, strict=True)] if columns else [[] for _ in docnums]

    def word_scores(self, searcher, words: list[bytes], docnums: list[int]) -> list[list[float]]:
        """``scores`` by word: per word, its score in each of ``docnums``."""
        boost, lengths = self.boost, self.lengths
        columns = []  # per word, its score in each document
        at = np.array(docnums, dtype=np.intp)
        for w in words:
            scorer, k = self._scorer(searcher, w), self.numbers[w]
            held, counts = self.docs[k], self.counts[k]
            own = scorer.dfl == lengths.__getitem__ and type(scorer).score is WeightLengthScorer.score
            if own and len(docnums) >= ARRAYS_FROM:
                # every document at once: each word's count where it stands in the word's documents (as bisect_left
                # finds it) times the boost, and BM25F of it (kb.whoosh_adapter: the same doubles as _score)
                where = np.searchsorted(np.frombuffer(held, dtype=np.intc), at)
                found = adapter.bm25_scores(scorer, np.frombuffer(counts, dtype=np.intc)[where] * boost,
                                            np.frombuffer(lengths, dtype=np.intc)[at])
                if found is not None:
                    columns.append(found.tolist())
                    continue
            weights = [counts[bisect_left(held, d)] * boost for d in docnums]
            if own:
                # what WeightLengthScorer.score(matcher) computes, _score(weight, dfl(docnum)), without a matcher
                # object and two method calls per document: the same function of the same numbers
                score = scorer._score
                columns.append([score(x, lengths[d]) for x, d in zip(weights, docnums, strict=True)])
            else:
                columns.append([scorer.score(_At(d, x)) for x, d in zip(weights, docnums, strict=True)])
        return columns
