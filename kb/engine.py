"""How search drives Whoosh: cached postings with precomputed scores, combined as whole sets.

Whoosh stays the index, the analysis and the scoring model. The query is a
Whoosh query, its matcher tree is built by Whoosh's own query classes (which
choose the tree's shape and so the order scores are added in), and every
posting's score is the one Whoosh's weighting gives it. What changes is how
the tree is run:

- **postings cached per build** (``Postings``): every posting of the scored
  fields queries use (title, body) is read and scored with the searcher's weighting
  (through ``kb.whoosh_adapter``) when the build is opened; queries never touch the
  term files again (Whoosh reads 4-6 hash-file records per term per field per
  query); other fields' terms are read once, on first use;
- **whole-set evaluation** (``scores``): instead of stepping the matcher
  tree one document at a time in Python (Whoosh's collector, ~40% of a query),
  each node of the tree is evaluated over whole dicts (unions in C, Python only
  where two postings lists overlap), giving exactly the scores Whoosh gives,
  in the same order of additions;
- **a word's fields summed once per build** (``_Word``): a question's tree is a
  union of its words, each the union of its fields' terms; a kept word's
  matcher carries those sums (made by the same evaluation, so the same floats)
  and stands in its matcher's place under the question's unions;
- **the collector's quirk, kept**: Whoosh's unlimited collector "replaces" the
  matcher every 10 matches, dropping exhausted terms; ``Or(scale=...)``'s
  coordination bonus (``CoordMatcher``) then counts only the terms still
  active, so a document's score depends on where it sits in the index. The
  evaluation reproduces that, so the answers are Whoosh's to the last bit
  (``tests/test_engine.py`` checks every ranked id against plain Whoosh);
- **phrases** from the build's word sequences (``kb.positions``, once the build's
  warming has read them; before, from positions cached per word): a ``Phrase`` becomes one pre-scored leaf
  (its words' scores summed as Whoosh's intersection tree sums them, counted
  as that many terms by a coordination bonus, as Whoosh counts them).

- **Whoosh's preloaded array union** (``ArrayUnionMatcher``, which ``Or`` picks
  for 3+ clauses on an index under 5,000 documents: a number word's four
  fields on the bundled corpus) summed as its array sums, naming no matching
  term to a coordination bonus above it, as it names none to Whoosh's.

Whatever this module needs that is not Whoosh's public API (a posting block's
ids and weights, an array union's boost, the coordination bonus's formula) it
reads through ``kb.whoosh_adapter``, the one module a Whoosh upgrade changes.

A tree with a node this module does not know (a phrase with slop, a weighting
with a ``final`` step) is searched by plain Whoosh instead: slower, never
different.

Shared state is guarded: a build's postings are computed once (when it is
opened, or on first use under a lock) and never changed afterwards; everything
a query mutates (the matcher objects, the dicts it builds) is its own.
"""
from __future__ import annotations

import copy
import threading
from collections.abc import Iterator, Mapping, MutableMapping
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from itertools import compress
from math import inf
from typing import TYPE_CHECKING

import numpy as np
from whoosh import matching as M
from whoosh import query as Q
from whoosh.matching.binary import DisjunctionMaxMatcher, UnionMatcher
from whoosh.matching.combo import ArrayUnionMatcher
from whoosh.matching.wrappers import CoordMatcher, WrappingMatcher
from whoosh.searching import SearchContext
from whoosh.util import make_weighted_tree

if TYPE_CHECKING:
    from kb.positions import PhraseTable
from kb import whoosh_adapter as adapter

__all__ = ["Postings", "Unsupported", "Scored", "scores", "ranked", "ranked_above", "ranked_window",
           "whoosh_scores"]

REPLACE_EVERY = adapter.REPLACE_EVERY  # Whoosh's collector replaces the matcher every 10 matches
# How many of a node's terms match a document (``_dense``): at most a question's words in their fields and its
# phrases' words, a few dozen; two bytes a document keep the arrays a question adds small
COUNT = np.int16


class Unsupported(Exception):
    """A query or matcher tree this module does not evaluate; plain Whoosh searches it."""


@dataclass(frozen=True)
class _Term:
    ids: tuple[int, ...]  # ascending docnums
    scores: tuple[float, ...]  # the weighting's score of each posting
    by_doc: dict  # docnum -> score; read-only once built
    last: int  # the highest docnum: the term's matcher is exhausted past it
    id_array: np.ndarray  # ``ids`` and ``scores`` as arrays (``_dense``), read-only
    score_array: np.ndarray


def _term(ids: list[int], scores: list[float]) -> _Term:
    id_array, score_array = np.array(ids, dtype=np.intp), np.array(scores, dtype=np.float64)
    id_array.flags.writeable = score_array.flags.writeable = False
    return _Term(tuple(ids), tuple(scores), dict(zip(ids, scores, strict=True)), ids[-1] if ids else -1, id_array,
                 score_array)


class Postings:
    """One build's postings, as scored by one weighting.

    The scored fields every query uses (``EAGER``) are read and scored when the build is opened
    (~0.1 s with the official rules) and never change afterwards; a term of another field
    is computed on first use outside the lock and stored under it (two threads asking for
    the same new term both compute it and one result wins).
    """

    EAGER = ("title", "body", "number")

    def __init__(self, searcher, eager: tuple[str, ...] = EAGER):
        self.weighting = searcher.weighting
        self.schema = searcher.schema
        self.doc_count = searcher.doc_count_all()
        self.live_docs = searcher.doc_count()  # the same in an optimized index without deletions
        self._terms: dict[tuple[str, bytes], _Term | None] = {}
        self._filters: dict = {}
        self._positions: dict[tuple[str, bytes], dict[int, frozenset[int]]] = {}
        self._lengths: dict[str, list[int]] = {}
        self.matchers: dict[tuple, object] = {}  # a word's Or: its size estimate and its matcher (_WordOr)
        self.words: dict[tuple, tuple] = {}  # the same, with whether it holds a term, in one entry (_word_matcher)
        self.absent: dict[tuple, tuple] = {}  # the same for a word no record uses, by its fields and boosts only
        self.phrases: PhraseTable | None = None  # kb.positions: set once, when the build's warming has read it
        self._lock = threading.Lock()
        reader = searcher.reader()
        self.eager = tuple(f for f in eager if f in self.schema and self.schema[f].scorable)
        for fieldname in self.eager:
            for btext in list(reader.lexicon(fieldname)):
                self._terms[fieldname, btext] = self._read(searcher, fieldname, btext)

    def doc_count_all(self) -> int:
        return self.doc_count

    def doc_frequency(self, fieldname: str, text: str) -> int:
        """Whoosh's ``searcher.doc_frequency`` for a field read when the build opened, from memory."""
        if fieldname not in self.eager:
            raise ValueError(f"{fieldname!r} was not read when the build opened")
        entry = self._terms.get((fieldname, self.schema[fieldname].to_bytes(text)))
        return len(entry.ids) if entry else 0

    def term(self, searcher, fieldname: str, btext: bytes) -> _Term | None:
        key = (fieldname, btext)
        try:
            return self._terms[key]
        except KeyError:
            pass
        if fieldname in self.eager:
            return None  # every term of these fields was read when the build opened: the index lacks it
        if key not in searcher.reader():
            return None  # not kept: words no record uses must not grow the table (it is per build)
        entry = self._read(searcher, fieldname, btext)
        with self._lock:
            return self._terms.setdefault(key, entry)

    def _read(self, searcher, fieldname: str, btext: bytes) -> _Term:
        """A term's docnums and scores, as Whoosh's weighting scores them (kb.whoosh_adapter: a block at a time)."""
        ids, scores = adapter.scored_postings(searcher, fieldname, btext,
                                              lambda: self._field_lengths(searcher, fieldname))
        return _term(ids, scores)

    def _field_lengths(self, searcher, fieldname: str) -> list[int]:
        """Every document's length in a field, as the scorer's ``dfl()`` reads it."""
        lengths = self._lengths.get(fieldname)
        if lengths is None:
            lengths = [searcher.doc_field_length(d, fieldname, 1) for d in range(self.doc_count)]
            with self._lock:
                lengths = self._lengths.setdefault(fieldname, lengths)
        return lengths

    def positions(self, searcher, fieldname: str, btext: bytes) -> dict[int, frozenset[int]]:
        """docnum -> the word positions of a term in a field (phrases), read once on first use."""
        key = (fieldname, btext)
        try:
            return self._positions[key]
        except KeyError:
            pass
        m = searcher.reader().postings(fieldname, btext)
        found = {}
        while m.is_active():
            found[m.id()] = frozenset(m.value_as("positions"))
            m.next()
        with self._lock:
            return self._positions.setdefault(key, found)

    def allowed(self, searcher, filter_query) -> frozenset[int]:
        """The docnums a filter query (``doc:``/``kind:`` terms) lets through."""
        try:
            return self._filters[filter_query]
        except KeyError:
            docs = frozenset(searcher.docs_for_query(filter_query))
        with self._lock:
            return self._filters.setdefault(filter_query, docs)

    def allowed_mask(self, searcher, filter_query) -> np.ndarray:
        """``allowed`` as a read-only array of every docnum (``_dense``), made once per filter."""
        key = ("mask", filter_query)
        try:
            return self._filters[key]
        except KeyError:
            mask = np.zeros(self.doc_count, dtype=bool)
            mask[np.fromiter(self.allowed(searcher, filter_query), dtype=np.intp)] = True
            mask.flags.writeable = False
        with self._lock:
            return self._filters.setdefault(key, mask)


# -- building Whoosh's matcher tree over cached postings --------------------------------
class _Leaf(M.ListMatcher):
    """A term's matcher over its cached postings: Whoosh's ListMatcher with the scores precomputed."""

    def __init__(self, entry: _Term, term):
        super().__init__(entry.ids, term=term)
        self.entry = entry

    def score(self):
        return self.entry.by_doc[self.id()]


class _PhraseLeaf(M.ListMatcher):
    """A phrase's matches: the documents where its words stand side by side, each scored as
    Whoosh's phrase matcher scores it (the words' scores summed over its binary tree of
    intersections). Counts as ``words`` terms in a coordination bonus, as Whoosh's does."""

    def __init__(self, entry: _Term, words: int):
        super().__init__(entry.ids)
        self.entry = entry
        self.words = words
        self.matching = dict.fromkeys(entry.ids, words) if words != 1 else {}

    def score(self):
        return self.entry.by_doc[self.id()]


class _Phrase(Q.Phrase):
    """``Phrase`` whose matcher is a ``_PhraseLeaf`` over cached postings and positions."""

    def matcher(self, searcher, context=None):
        if not isinstance(searcher, _View) or self.slop != 1:
            raise Unsupported("a phrase with slop")
        field = searcher.schema[self.fieldname]
        try:
            words = [field.to_bytes(w) for w in self.words]
        except ValueError:
            return M.NullMatcher()
        table = searcher.cache.phrases
        if table is not None and table.fieldname == self.fieldname:  # the build's word sequences (kb.positions)
            ids = table.matches(words)
            if ids is None:
                return M.NullMatcher()  # Phrase.matcher: a word the field lacks matches nothing
            scores = _tree_sums(table.word_scores(searcher.searcher, words, ids)) if ids else []
            return self._leaf(ids, scores, len(words))
        entries = [searcher.entry(self.fieldname, w) for w in words]
        if any(e is None for e in entries):
            return M.NullMatcher()  # Phrase.matcher: a word the field lacks matches nothing
        cache, s = searcher.cache, searcher.searcher
        where = [cache.positions(s, self.fieldname, w) for w in words]
        docs = set.intersection(*(set(e.ids) for e in entries))
        ids = []
        for d in sorted(docs):
            starts: list[int] | frozenset[int] = where[0][d]
            for i, positions in enumerate(where[1:], 1):
                starts = [p for p in starts if p + i in positions[d]]
                if not starts:
                    break
            if starts:
                ids.append(d)
        scores = [_tree_sum([e.by_doc[d] for e in entries]) for d in ids]
        return self._leaf(ids, scores, len(words))

    def _leaf(self, ids: list[int], scores: list[float], words: int):
        leaf = _PhraseLeaf(_term(ids, scores), words)
        return leaf if self.boost == 1.0 else WrappingMatcher(leaf, boost=self.boost)


def _tree_sum(scores: list[float]) -> float:
    """Sum as whoosh.util.make_binary_tree nests IntersectionMatcher.score: halves, left + right."""
    if len(scores) == 1:
        return scores[0]
    half = len(scores) // 2
    return _tree_sum(scores[:half]) + _tree_sum(scores[half:])


def _tree_sums(columns: list[list[float]]) -> list[float]:
    """``_tree_sum`` of every document at once, given each word's scores by document: the same additions in the
    same nesting (so the same floats), one list operation per level instead of a recursion per document."""
    if len(columns) == 1:
        return columns[0]
    half = len(columns) // 2
    return [a + b for a, b in zip(_tree_sums(columns[:half]), _tree_sums(columns[half:]), strict=True)]


class _Reader:
    """The little of an IndexReader that query classes ask while building matchers."""

    def __init__(self, view: _View):
        self.view = view
        self.schema = view.schema

    def __contains__(self, term) -> bool:
        return self.view.entry(*term) is not None

    def doc_frequency(self, fieldname, btext) -> int:
        entry = self.view.entry(fieldname, btext)
        return len(entry.ids) if entry else 0

    def doc_count_all(self) -> int:
        return self.view.cache.doc_count

    def doc_count(self) -> int:
        return self.view.cache.live_docs


class _View:
    """Stands in for a Whoosh searcher while a query builds its matcher tree."""

    def __init__(self, postings: Postings, searcher):
        self.cache = postings
        self.searcher = searcher
        self.schema = postings.schema
        self.weighting = postings.weighting
        self._reader = _Reader(self)

    def entry(self, fieldname, btext):
        if isinstance(btext, str):
            btext = self.schema[fieldname].to_bytes(btext)
        return self.cache.term(self.searcher, fieldname, btext)

    def reader(self):
        return self._reader

    def doc_count_all(self) -> int:
        return self.cache.doc_count

    def postings(self, fieldname, btext, weighting=None, qf=1):
        if weighting is not None and weighting is not self.weighting:
            raise Unsupported("a weighting other than the searcher's")
        return _Leaf(self.entry(fieldname, btext), (fieldname, btext))


_QUERIES = (Q.Term, Q.Or, Q.DisjunctionMax, Q.Phrase)
# A build's cached word matchers (_WordOr: its size estimate and its matcher, two entries per word); beyond, they are
# built per query. Room for every stem kb.search.tables.WARM_STEMS warms and the variants questions add (boosts).
MAX_WORD_MATCHERS = 30_000
MAX_ABSENT_SHAPES = 64  # the shapes of a word no record uses (_word_matcher): its fields and boosts, a handful


class _WordOr(Q.Or):
    """An ``Or`` of plain terms (one word of a question in its fields: title, body, number, its number
    twin), whose size estimate and matcher tree are Whoosh's own, built once per build and word and
    then only read: every question using the word builds the same tree from the same postings."""

    def _kept(self, view: _View, key: tuple, make):
        table = view.cache.matchers
        found = table.get(key)
        if found is None:
            found = make()
            known = any(view.entry(q.fieldname, q.text) is not None for q in self.subqueries)
            if known and len(table) < MAX_WORD_MATCHERS:  # a word no record uses is not kept
                with view.cache._lock:
                    found = table.setdefault(key, found)
        return found

    def _key(self) -> tuple:
        terms = tuple((q.fieldname, q.text, q.boost) for q in self.subqueries)
        return (self.boost, self.scale, self.matcher_type, terms)

    def matcher(self, searcher, context=None):
        if not isinstance(searcher, _View):
            return Q.Or.matcher(self, searcher, context)
        key = (*self._key(), context.needs_current if context else True)
        return self._kept(searcher, key, lambda: Q.Or.matcher(self, searcher, context))

    def estimate_size(self, ixreader):
        if not isinstance(ixreader, _Reader):
            return Q.Or.estimate_size(self, ixreader)
        return self._kept(ixreader.view, ("size", *self._key()), lambda: Q.Or.estimate_size(self, ixreader))


def _word(query) -> bool:
    """A plain word's ``Or`` of terms (what ``_prepare`` makes a ``_WordOr``)."""
    return (type(query) is Q.Or and not query.scale and not getattr(query, "minmatch", None)
            and all(type(q) is Q.Term for q in query.subqueries))


def _word_matcher(view: _View, query: Q.Or, needs_current: bool) -> tuple:
    """(size estimate, matcher, whether it holds a term, its ``_Word`` or None) of a plain word's ``Or``: the
    build's ``_WordOr`` entries, made (and stored) when they are missing, then read from one entry of
    ``Postings.words`` by the word's key (one look-up, not one per entry: the key is a tuple of tuples, hashed anew
    each time), with whether the matcher holds a term (``any(m.term_matchers())``, a walk of its tree) and, for a
    kept matcher, its scores summed once (``_Word``)."""
    terms = tuple([(q.fieldname, q.text, q.boost) for q in query.subqueries])
    key = (query.boost, query.scale, _WordOr.matcher_type, terms, needs_current)
    found = view.cache.words.get(key)
    if found is None and not any(view.entry(name, text) is not None for name, text, _ in terms):
        # a word no record uses (a table word the vocabulary added, "pump"): not kept by its text (the table is per
        # build, the words asked are not bounded), but its tree is that of any such word in the same fields with the
        # same boosts (every term a NullMatcher, sized 0), kept by that shape: ~20 us a word to build
        shape = (query.boost, query.scale, _WordOr.matcher_type, tuple([(name, boost) for name, _, boost in terms]),
                 needs_current)
        found = view.cache.absent.get(shape)
        if found is None:
            found = _built_word(view, query, needs_current)
            if len(view.cache.absent) < MAX_ABSENT_SHAPES:
                with view.cache._lock:
                    found = view.cache.absent.setdefault(shape, found)
    if found is None:
        found = _built_word(view, query, needs_current)
        m = found[1]
        if view.cache.matchers.get(key) is m:  # kept (_WordOr._kept): the same matcher for every question
            found = (*found[:3], _Word.of(m, view.cache.doc_count))
            with view.cache._lock:
                found = view.cache.words.setdefault(key, found)
    return found


def _built_word(view: _View, query: Q.Or, needs_current: bool) -> tuple:
    """A plain word's ``_WordOr`` made and its matcher built: (size estimate, matcher, whether it holds a term,
    None)."""
    word = _WordOr(query.subqueries, boost=query.boost, scale=query.scale)
    m = word.matcher(view, SearchContext(needs_current=needs_current, weighting=view.weighting))
    return word.estimate_size(view.reader()), m, any(m.term_matchers()), None


class _Word:
    """A plain word's matcher (its fields' terms, ``_word_matcher``) with what every question using it reads of it
    worked out once per build: the documents it yields (ascending), the score of each (its fields' scores added as
    its tree adds them, by ``_dense``: the same floats) and how many of its terms match each, the terms a
    coordination bonus counts (``_units``) and its postings (``_postings_under``). In a question's tree
    (``_question_matcher``) it stands where its matcher stood: ``_dense`` adds its scores into its sibling's arrays
    where it matches (a question's union of words did, per word, two arrays of every docnum and four scatters);
    the document-at-a-time ``_scores`` reads its matcher (merging its fields' cached dicts in C was cheaper than
    dicts made from these arrays). A word in a large share of the documents (``DENSE_WORD_FROM``: "card",
    "player", 22 words with the official rules) also keeps its scores and counts over every docnum (``dense``, 0.0
    and 0 where it does not match): added to its sibling's arrays whole, in one pass, where scattering a thousand
    postings into them gathered and wrote each one (~4 against ~12-20 us a word). Read-only once made."""

    __slots__ = ("matcher", "ids", "scores", "counts", "units", "postings", "dense")

    def __init__(self, matcher, ids: np.ndarray, scores: np.ndarray, counts: np.ndarray,
                 dense: tuple[np.ndarray, np.ndarray] | None = None):
        self.matcher, self.ids, self.scores, self.counts, self.dense = matcher, ids, scores, counts, dense
        self.units, self.postings = _units(matcher), _postings_under(matcher)
        for array in (ids, scores, counts, *(dense or ())):
            array.flags.writeable = False

    @classmethod
    def of(cls, matcher, n: int) -> _Word | None:
        """The word's ``_Word``, or None when ``_dense`` does not read it as counts (an array union's, whose count
        is 0 where it matches) or evaluate it at all."""
        try:
            vals, count, present = _dense(matcher, n, lambda node, ids: [])  # a word's tree holds no coordination
        except (Unsupported, _Fallback):
            return None
        if present is not None:
            return None
        ids = np.flatnonzero(count)
        return cls(matcher, ids, vals[ids], count[ids], (vals, count) if len(ids) >= DENSE_WORD_FROM * n else None)


class _Coord:
    """Whoosh's ``CoordMatcher`` over a question's tree, as ``_coord`` reads it (its child and scale), made
    without the constructor's count of the tree's terms (a walk of the whole tree per question), which
    ``_units`` counts here as the collector's replacements change it."""

    __slots__ = ("child", "scale")

    def __init__(self, child, scale: float):
        self.child, self.scale = child, scale


def _question_matcher(view: _View, query):
    """The matcher tree Whoosh builds for the usual full-text query, one plain word or an ``Or(scale=...)``
    of two or more (``kb.search``'s ``_build_query``), without going through its query classes
    (``Or._matcher`` -> ``DefaultOr._matcher`` -> ``_tree_matcher``: every word's matcher, then
    ``make_weighted_tree`` by their size estimates, a boost, the coordination bonus), each word's
    matcher and size the build's own. None for any other query (``_prepare`` and Whoosh build it)."""
    if _word(query):  # a question of one word: its Or is the tree
        return _word_matcher(view, query, False)[1]
    subs = query.subqueries if type(query) is Q.Or else ()
    if (len(subs) < 2 or len(subs) >= Q.Or.TOO_MANY_CLAUSES or not query.scale
            or getattr(query, "minmatch", None) or query.matcher_type != Q.Or.AUTO_MATCHER
            or not all(map(_word, subs))):
        return None
    # Or._matcher: with a scale, the binary tree of unions (DefaultOr); needs_current as the search's context.
    words = [_word_matcher(view, q, False) for q in subs]
    # the tree's shape is Whoosh's (its order of the words' sizes and matchers), then each word's ``_Word``
    # stands under its union in its matcher's place
    summed = {id(word): pre for _, word, _, pre in words if pre is not None}

    def union(a, b):
        return UnionMatcher(summed.get(id(a), a), summed.get(id(b), b))

    m = make_weighted_tree(union, [(size, word) for size, word, *_ in words])
    if query.boost != 1.0:
        m = WrappingMatcher(m, query.boost)
    if any(held for _, _, held, _ in words):  # any(m.term_matchers()): the words' own, in the tree's order
        m = _Coord(m, query.scale)
    return m


def _prepare(query):
    """The query with each ``Phrase`` as a ``_Phrase`` (a copy: the caller's query is not changed);
    ``Unsupported`` for a query class the evaluation does not know."""
    if type(query) not in _QUERIES and not isinstance(query, Q.Or):
        raise Unsupported(type(query).__name__)
    if isinstance(query, Q.Or) and getattr(query, "minmatch", None):
        raise Unsupported("Or(minmatch=...)")
    if type(query) is Q.Phrase:
        return _Phrase(query.fieldname, query.words, slop=query.slop, boost=query.boost)
    if type(query) is Q.Or and not query.scale and all(type(q) is Q.Term for q in query.subqueries):
        return _WordOr(query.subqueries, boost=query.boost, scale=query.scale)
    if isinstance(query, Q.Or | Q.DisjunctionMax):
        subs = [_prepare(q) for q in query.subqueries]
        if all(a is b for a, b in zip(subs, query.subqueries, strict=True)):
            return query
        query = copy.copy(query)
        query.subqueries = subs
    return query


# -- evaluating the tree over whole sets --------------------------------------------
def _keys(m) -> set[int]:
    """Every docnum the matcher would yield."""
    cls = type(m)
    if cls is _Leaf or cls is _PhraseLeaf:
        return set(m.entry.ids)
    if isinstance(m, M.NullMatcherClass):
        return set()
    if cls is _Word:
        return set(m.ids.tolist())
    if cls is UnionMatcher or cls is DisjunctionMaxMatcher:
        return _keys(m.a) | _keys(m.b)
    if cls is CoordMatcher or cls is _Coord or cls is WrappingMatcher:
        return _keys(m.child)
    if cls is ArrayUnionMatcher:
        return set(_array_union(m)[0])
    raise Unsupported(cls.__name__)


def _units(m) -> list[tuple[int, int]]:
    """The terms under ``m`` as a coordination bonus counts them: (how many, the docnum past which
    the collector's replacement drops them)."""
    cls = type(m)
    if cls is _Leaf:
        return [(1, m.entry.last)]
    if cls is _PhraseLeaf:
        return [(m.words, m.entry.last)]
    if cls is _Word:
        return m.units
    if isinstance(m, M.NullMatcherClass):
        return []
    if cls is UnionMatcher or cls is DisjunctionMaxMatcher:
        return _units(m.a) + _units(m.b)
    if cls is CoordMatcher or cls is _Coord or cls is WrappingMatcher:
        return _units(m.child)
    if cls is ArrayUnionMatcher:
        # It never replaces its children: their terms all count until its own last match.
        units = [u for sub in adapter.array_union(m)[0] for u in _units(sub)]
        return [(sum(n for n, _ in units), max(last for _, last in units))] if units else []
    raise Unsupported(cls.__name__)


def _scores(m, replaced) -> tuple[dict[int, float], dict[int, int]]:
    """What Whoosh's collector would read from ``m``: docnum -> score (possibly a cached dict: do
    not change it), and docnum -> how many of its terms match that document, for the documents
    where that is not 1 (a coordination bonus counts them; ``matching_terms``).

    ``replaced(node, child)``: the docnums at which the collector replaced the matcher (every
    10th match).
    """
    cls = type(m)
    if cls is _Leaf:
        return m.entry.by_doc, {}
    if cls is _PhraseLeaf:
        return m.entry.by_doc, m.matching
    if cls is _Word:
        return _scores(m.matcher, replaced)
    if isinstance(m, M.NullMatcherClass):
        return {}, {}
    if cls is UnionMatcher or cls is DisjunctionMaxMatcher:
        (a, ma), (b, mb) = _scores(m.a, replaced), _scores(m.b, replaced)
        out, matching = {**a, **b}, {**ma, **mb}
        both = a.keys() & b.keys()
        if cls is UnionMatcher:  # one pass over the overlap: the score and how many terms match
            for d in both:
                out[d] = a[d] + b[d]  # UnionMatcher.score: a.score() + b.score()
                matching[d] = ma.get(d, 1) + mb.get(d, 1)
        else:
            for d in both:
                out[d] = max(a[d], b[d])
                matching[d] = ma.get(d, 1) + mb.get(d, 1)
        return out, matching
    if cls is WrappingMatcher:
        child, matching = _scores(m.child, replaced)
        # WrappingMatcher.score is child.score() * boost: boost * score is the same product. (A comprehension:
        # map(boost.__mul__, ...) calls a method wrapper per item, twice as slow on Python 3.11.)
        boost = float(m.boost)
        return {d: boost * score for d, score in child.items()}, matching
    if cls is CoordMatcher or cls is _Coord:
        return _coord(m, replaced)
    if cls is ArrayUnionMatcher:
        return _array_union(m)
    raise Unsupported(cls.__name__)


def _array_union(m: ArrayUnionMatcher) -> tuple[dict[int, float], dict[int, int]]:
    """Whoosh's preloaded union (``Or`` of 3+ clauses on an index under 5,000 documents): per
    document ``0 + s1 * boost + s2 * boost + ...`` in its children's order, documents whose sum
    is not above 0 skipped. Its children are read ahead of the current document, so it names no
    matching term: a coordination bonus above it counts 0 for it (``matching_terms``)."""
    children, boost, scored = adapter.array_union(m)
    if not scored:
        raise Unsupported("an unscored array union")
    acc: dict[int, float] = {}
    for sub in children:
        child, _ = _scores(sub, lambda node, scores: [])  # its children are never replaced
        add = {d: score * boost for d, score in child.items()}  # each child's score() * boost
        merged = {**acc, **add}  # the array starts at 0.0, and 0.0 + s is s
        for d in acc.keys() & add.keys():
            merged[d] = acc[d] + add[d]
        acc = merged
    out = {d: v for d, v in acc.items() if v > 0}
    return out, dict.fromkeys(out, 0)


def _coord(m: CoordMatcher | _Coord, replaced) -> tuple[dict[int, float], dict[int, int]]:
    """CoordMatcher.score, with the term count it has after each replacement."""
    child, matching = _scores(m.child, replaced)
    units = _units(m.child)
    points = replaced(m, child)
    # After the replacement at docnum p, the tree holds only the terms with a posting at or after
    # p: the term count drops at the first replacement after a term's last posting.
    drops = sorted({points[i] for last in {last for _, last in units}
                    if (i := bisect_right(points, last)) < len(points)})
    total = sum(n for n, _ in units)
    if not drops:
        return _sqr_all(m, total, child, list(child), matching), matching
    docs = sorted(child)
    out: dict[int, float] = {}
    counts = [total] + [sum(n for n, last in units if last >= p) for p in drops]
    bounds = [0] + drops + [docs[-1] + 1]
    # each document's term count in its part, the parts split by the drops: one pass, not one per part
    parts: list[dict[int, int]] = [{} for _ in counts]
    for d, k in matching.items():
        parts[bisect_right(drops, d)][d] = k
    for termcount, start, end, some in zip(counts, bounds, bounds[1:], parts, strict=False):
        part = docs[bisect_left(docs, start):bisect_left(docs, end)]
        out.update(_sqr_all(m, termcount, child, part, some))
    return out, matching


def _sqr_all(m: CoordMatcher | _Coord, termcount: int, child: dict[int, float], docs: list[int],
             matching: dict[int, int]) -> dict[int, float]:
    """``CoordMatcher``'s score for ``docs`` at one term count, by ``adapter.coordination``'s
    ``(score + (matching - 1) / gap) * factor``.

    Where one term matches, the bonus is 0.0 and ``score + 0.0`` is ``score``: those documents
    are one multiplication each, in a comprehension (``map(factor.__mul__, ...)``, a method wrapper
    call per item, is twice as slow on Python 3.11); the rest get Whoosh's own expression.
    """
    coordination = adapter.coordination(termcount, m.scale if type(m) is _Coord else adapter.coord_scale(m))
    if coordination is None:
        return dict.fromkeys(docs, 0)
    factor, gap = coordination
    out = {d: factor * child[d] for d in docs}
    for d, k in matching.items():
        out[d] = (child[d] + ((k - 1) / gap)) * factor
    return out


_SPARSE = (_Leaf, _PhraseLeaf, _Word)  # what ``_dense`` reads as docnums with their scores and term counts


def _sparse(m) -> tuple[np.ndarray, np.ndarray, np.ndarray | int]:
    """A term's, a phrase's or a word's (``_SPARSE``) docnums, their scores and their term counts (a term counts
    as one, a phrase as its words)."""
    if type(m) is _Word:
        return m.ids, m.scores, m.counts
    entry = m.entry
    return entry.id_array, entry.score_array, m.words if type(m) is _PhraseLeaf else 1


class _Fallback(Exception):
    """A tree ``_dense`` does not evaluate (a coordination bonus scoring every document 0): ``_scores`` does."""


def _dense(m, n: int, replaced) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``_scores`` over arrays of every docnum (``n``): each document's score, how many of its terms match (the
    ``matching`` count, 1 for a plain term) and whether the matcher yields it, or None for "where the count is above
    0" (every node but an array union, whose count is 0: ``_yielded``); 0.0 and 0 where it yields nothing. New arrays,
    the caller's to change.

    Each node is the same floating-point operation on every document at once (in C) that ``_scores`` does on
    each document in Python, in the tree's order, so the floats are the same: a union adds its two children's
    arrays (a document only one side yields adds 0.0 from the other, and ``s + 0.0`` is ``s``), a boost
    multiplies, a coordination bonus is ``(score + (matching - 1) / gap) * factor`` with each document's term
    count (``adapter.coordination``; for one matching term the bonus is 0.0, and ``(s + 0.0) * f`` is ``s * f``).
    A question's tree of unions over a thousand matches walked its overlaps and merged dicts in Python: about a
    third of a question's CPU. Which documents a node yields is its count above 0 except under an array union, so
    it is not kept in an array of its own per node (a third of a question's array operations, each a few
    microseconds when the caches hold another query's work)."""
    cls = type(m)
    if cls in _SPARSE:
        if cls is _Word and m.dense is not None:
            return m.dense[0].copy(), m.dense[1].copy(), None
        ids, scores, counts = _sparse(m)
        vals, count = np.zeros(n), np.zeros(n, dtype=COUNT)
        vals[ids] = scores
        count[ids] = counts
        return vals, count, None
    if isinstance(m, M.NullMatcherClass):
        return np.zeros(n), np.zeros(n, dtype=COUNT), None
    if cls is UnionMatcher:
        # UnionMatcher.score: a.score() + b.score() where both match, either's score elsewhere (and a + b is b + a)
        leaf, other = (m.b, m.a) if type(m.b) in _SPARSE else (m.a, m.b)
        if type(leaf) in _SPARSE:  # a term (or word) added where it matches, without an array of its own
            a, ca, pa = _dense(other, n, replaced)
            if type(leaf) is _Word and leaf.dense is not None and pa is None:  # a common word: added whole
                a += leaf.dense[0]  # a document it does not match adds 0.0 (``s + 0.0`` is ``s``)
                ca += leaf.dense[1]
                return a, ca, pa
            ids, scores, counts = _sparse(leaf)
            a[ids] += scores
            ca[ids] += counts
            if pa is not None:
                pa[ids] = True
            return a, ca, pa
        (a, ca, pa), (b, cb, pb) = _dense(m.a, n, replaced), _dense(m.b, n, replaced)
        a += b
        yielded = None if pa is None and pb is None else _yielded(ca, pa) | _yielded(cb, pb)
        ca += cb
        return a, ca, yielded
    if cls is DisjunctionMaxMatcher:
        (a, ca, pa), (b, cb, pb) = _dense(m.a, n, replaced), _dense(m.b, n, replaced)
        pa, pb = _yielded(ca, pa), _yielded(cb, pb)
        a = np.where(pa & pb, np.maximum(a, b), a + b)
        ca += cb
        pa |= pb
        return a, ca, pa
    if cls is WrappingMatcher:
        vals, count, present = _dense(m.child, n, replaced)
        vals *= float(m.boost)  # WrappingMatcher.score: child.score() * boost
        return vals, count, present
    if cls is CoordMatcher or cls is _Coord:
        return _dense_coord(m, n, replaced)
    if cls is ArrayUnionMatcher:
        children, boost, scored = adapter.array_union(m)
        if not scored:
            raise Unsupported("an unscored array union")
        acc, seen = np.zeros(n), np.zeros(n, dtype=bool)
        for sub in children:  # per document 0 + s1 * boost + s2 * boost + ... in its children's order
            vals, count, present = _dense(sub, n, lambda node, ids: [])  # its children are never replaced
            acc += vals * boost
            seen |= _yielded(count, present)
        present = seen & (acc > 0)
        acc[~present] = 0.0
        return acc, np.zeros(n, dtype=COUNT), present  # it names no matching term (_array_union)
    raise Unsupported(cls.__name__)


def _yielded(count: np.ndarray, present: np.ndarray | None) -> np.ndarray:
    """Whether a node yields each document: ``present``, or where its count is above 0 (``_dense``)."""
    return count > 0 if present is None else present


def _dense_coord(m: CoordMatcher | _Coord, n: int, replaced) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``_coord`` over arrays: each document's term count is the tree's after the collector's last replacement
    before it. Worked out for the documents the child yields only (the rest stay 0.0)."""
    vals, count, present = _dense(m.child, n, replaced)
    present = _yielded(count, present)
    ids = np.flatnonzero(present)
    units = _units(m.child)
    points = replaced(m, ids)
    # the terms each replacement drops: those whose last posting lies before it and after the one before (a term
    # counts at a replacement exactly when its last posting is at or after it), so the count falls by them there
    dropped: dict[int, int] = {}
    for k, last in units:
        if (i := bisect_right(points, last)) < len(points):
            dropped[points[i]] = dropped.get(points[i], 0) + k
    drops = sorted(dropped)
    counts = [sum(k for k, _ in units)]
    for p in drops:
        counts.append(counts[-1] - dropped[p])
    scale = m.scale if type(m) is _Coord else adapter.coord_scale(m)
    coordination = [c for c in (adapter.coordination(termcount, scale) for termcount in counts) if c is not None]
    if len(coordination) < len(counts):
        raise _Fallback("a coordination bonus scoring every document 0")
    # each document's part: the number of drops at or before it (bisect_right, as _coord), so the matches (ascending)
    # split where each drop falls among them, one slice per part, each at its own term count
    bounds = [0, *np.searchsorted(ids, drops).tolist(), len(ids)] if drops else [0, len(ids)]
    scored, matching = vals[ids], count[ids] - 1
    for (factor, gap), start, end in zip(coordination, bounds[:-1], bounds[1:], strict=True):
        scored[start:end] = (scored[start:end] + matching[start:end] / gap) * factor
    vals[ids] = scored  # the rest of ``vals`` is 0.0: a node's arrays hold 0.0 where it yields nothing
    return vals, count, present


# When ``scores`` takes arrays (``_dense``) over a document at a time (``_scores``): by the postings under the tree,
# as a share of the documents (an array holds every docnum, so its cost grows with the build, a dict's with the
# matches). Measured on the bench's classes with the official rules (5,336 documents; paired, CPU): a coordinated
# tree (two words or more) of a few hundred matches was a dict merge per union and a Python loop over every overlap
# and every part of the coordination bonus: arrays win from about 300 matches ("when does damage wear off" 288 ->
# 233 us, "library top card" 993 -> 326 us); under, the dicts do ("can a traitor win with the leader": 86 against
# 133 us). One word's union of its fields is a few dict merges in C, cheaper than arrays of every docnum up to
# thousands of matches ("mana", 489: 38 against 102 us).
DENSE_FROM = 0.075  # x the documents: 400 postings with the official rules
# A word kept in a question's tree (``_Word``) matching at least this share of the documents also keeps its arrays
# over every docnum: 22 words with the official rules (22 x 5,336 x 10 bytes, ~1.2 MB); at ten times the records the
# clones keep each word's share, so the same words (~12 MB by that count).
# Scattering a word's postings into its sibling's arrays costs about its postings; adding whole arrays is one pass:
# measured warm and with the caches evicted, the two cross at ~600-1,000 postings of 5,336 documents.
DENSE_WORD_FROM = 0.15
DENSE_FROM_ONE_WORD = 0.75


def _dense_pays(m, documents: int) -> bool:
    coordinated = type(m) is _Coord or type(m) is CoordMatcher
    return _postings_under(m) >= documents * (DENSE_FROM if coordinated else DENSE_FROM_ONE_WORD)


def _postings_under(m) -> int:
    """How many postings the leaves under ``m`` hold (the work ``_scores`` does grows with it)."""
    cls = type(m)
    if cls is _Leaf or cls is _PhraseLeaf:
        return len(m.entry.ids)
    if cls is _Word:
        return m.postings
    if cls is UnionMatcher or cls is DisjunctionMaxMatcher:
        return _postings_under(m.a) + _postings_under(m.b)
    if cls is CoordMatcher or cls is _Coord or cls is WrappingMatcher:
        return _postings_under(m.child)
    return 0


class Scored(MutableMapping):
    """``scores``' answer for a large tree: docnum -> score read from the arrays ``_dense`` made, not a dict of a
    thousand or two entries built for the fifty-odd a search reads (that dict cost a question ~100 us).
    The caller's own to change, as a dict would be."""

    __slots__ = ("_vals", "_present", "_len")

    def __init__(self, vals: np.ndarray, present: np.ndarray):
        self._vals, self._present = vals, present  # every docnum's score and whether it matched
        self._len = int(np.count_nonzero(present))

    def __contains__(self, docnum) -> bool:
        return isinstance(docnum, int) and 0 <= docnum < len(self._present) and self._present.item(docnum)

    def __getitem__(self, docnum: int) -> float:
        if docnum in self:
            return self._vals.item(docnum)  # a Python float, the same double
        raise KeyError(docnum)

    def __setitem__(self, docnum: int, score: float) -> None:
        if docnum not in self:
            if not (isinstance(docnum, int) and 0 <= docnum < len(self._present)):
                raise KeyError(docnum)
            self._present[docnum] = True
            self._len += 1
        self._vals[docnum] = score

    def __delitem__(self, docnum: int) -> None:
        if docnum not in self:
            raise KeyError(docnum)
        self._present[docnum] = False
        self._vals[docnum] = 0.0
        self._len -= 1

    def __iter__(self) -> Iterator[int]:
        return iter(np.flatnonzero(self._present).tolist())

    def __len__(self) -> int:
        return self._len

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The matches' docnums, ascending, and their scores."""
        ids = np.flatnonzero(self._present)
        return ids, self._vals[ids]


def scores(postings: Postings, searcher, query, filter_query=None) -> MutableMapping[int, float]:
    """docnum -> score for every match of what ``searcher.search(query, limit=None,
    filter=filter_query)`` finds, computed over cached postings (``_dense`` for a large tree, ``_scores`` for a
    small one: ``DENSE_FROM``): a new dict, or a ``Scored`` over the arrays. The caller may change it.

    Raises ``Unsupported`` for a query it cannot evaluate exactly (see the module docstring).
    """
    if postings.weighting.use_final:
        raise Unsupported("a weighting with a final() step")
    view = _View(postings, searcher)
    m = _question_matcher(view, query)
    if m is None:
        query = _prepare(query)
        try:
            m = query.matcher(view, SearchContext(weighting=postings.weighting))
        except AttributeError as exc:  # the query asked the stand-in for something only a real searcher has
            raise Unsupported(str(exc)) from exc
    if not _dense_pays(m, postings.doc_count):
        return _dict_scores(postings, searcher, m, filter_query)

    points: list[list[int]] = []

    def replaced(node, ids: np.ndarray) -> list[int]:
        """The docnums at which the collector replaces the matcher (``ids``: the node's matches): every 10th
        match."""
        if node is m:  # the top of the tree: its matches are its child's
            return ids[::REPLACE_EVERY].tolist()
        if not points:
            points.append(sorted(_keys(m))[::REPLACE_EVERY])
        return points[0]

    try:
        vals, count, yielded = _dense(m, postings.doc_count, replaced)
    except _Fallback:
        return _dict_scores(postings, searcher, m, filter_query)
    present = _yielded(count, yielded)
    if filter_query is not None:
        present &= postings.allowed_mask(searcher, filter_query)
    return Scored(vals, present)


def _dict_scores(postings: Postings, searcher, m, filter_query) -> dict[int, float]:
    """``scores`` of a matcher tree, one document at a time (``_scores``)."""
    points: list[list[int]] = []

    def replaced(node, child: dict[int, float]) -> list[int]:
        if node is m:
            return sorted(child)[::REPLACE_EVERY]
        if not points:
            points.append(sorted(_keys(m))[::REPLACE_EVERY])
        return points[0]

    out, _ = _scores(m, replaced)
    out = dict(out) if type(m) is _Leaf or type(m) is _PhraseLeaf else out  # a leaf's is its cached dict
    if filter_query is not None:
        allowed = postings.allowed(searcher, filter_query)
        out = {d: out[d] for d in out.keys() & allowed}
    return out


def ranked(scored: Mapping[int, float]) -> list[int]:
    """Docnums in Whoosh's order: score descending, equal scores by docnum."""
    return sorted(sorted(scored), key=scored.__getitem__, reverse=True)  # stable: ties keep docnum order


RANK_ARRAYS_FROM = 300  # ranked_above: from this many matches arrays are cheaper than Python's compress and sort


def ranked_above(scored: Mapping[int, float], share: float, least: int) -> tuple[list[int], int]:
    """The start of ``ranked(scored)`` a search reads, and how many documents score above ``share`` x the best.

    The start is every document scoring above that cut, or the ``least`` best when fewer do: a search shows the
    matches above its relevance floor and re-ranks its best ``least``, and the rest (a common word's hundreds of
    matches far below the best) need no order. The same documents in the same order as
    ``ranked(scored)[:len(start)]``: a large answer compared and sorted as arrays (``Scored``'s own), a small
    one in Python (``_ranked_above``).
    """
    order, count, _ = ranked_window(scored, share, least, 0)
    return order, count


def ranked_window(scored: Mapping[int, float], share: float, least: int,
                  window: int) -> tuple[list[int], int, list[float]]:
    """``ranked_above``, with the scores of the first ``window`` of its start: from the arrays the start was sorted
    from, not gathered again by docnum."""
    if not scored:
        return [], 0, []
    if isinstance(scored, Scored):
        ids, vals = scored.arrays()
    elif len(scored) < RANK_ARRAYS_FROM:
        order, count = _ranked_above(scored, share, least)
        return order, count, [scored[d] for d in order[:window]]
    else:
        ids = np.fromiter(scored, dtype=np.intp, count=len(scored))
        vals = np.fromiter(scored.values(), dtype=np.float64, count=len(scored))
    cut = share * float(vals.max())
    keep = vals > cut
    count = int(np.count_nonzero(keep))
    if count < least:  # the ``least`` best: those scoring at least the least-th best score
        floor = np.partition(vals, len(vals) - least)[len(vals) - least] if len(vals) > least else -inf
        keep = vals >= floor
    ids, vals = ids[keep], vals[keep]
    start = np.lexsort((ids, -vals))[:max(count, least)]  # score descending, equal scores by docnum
    return ids[start].tolist(), count, vals[start[:window]].tolist()


def _ranked_above(scored: Mapping[int, float], share: float, least: int) -> tuple[list[int], int]:
    """``ranked_above`` in Python: filtered in C (``compress`` over the scores compared to the cut), then sorted as
    ``ranked`` sorts."""
    cut = share * max(scored.values())
    above = list(compress(scored, map(cut.__lt__, scored.values())))  # the scores > cut, in C
    count = len(above)
    if count < least:  # the ``least`` best: those scoring at least the least-th best score
        floor = sorted(scored.values(), reverse=True)[least - 1] if len(scored) > least else -inf
        above = list(compress(scored, map(floor.__le__, scored.values())))
    above.sort()
    above.sort(key=scored.__getitem__, reverse=True)  # stable: ties keep docnum order
    return above[:max(count, least)], count


def whoosh_scores(searcher, query, filter_query=None) -> dict[int, float]:
    """The same from plain Whoosh: the reference ``scores`` must equal (and the fallback)."""
    return {hit.docnum: hit.score for hit in searcher.search(query, limit=None, filter=filter_query)}
