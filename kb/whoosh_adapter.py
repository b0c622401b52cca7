"""Everything kb reads from Whoosh that is not its public API, in one place.

kb.engine evaluates Whoosh's own matcher trees over postings it scored once per
build (see its docstring). For that it needs a few things Whoosh keeps private:
a term's postings read a block at a time with the scorer's score of each, the
parts of a preloaded array union and of a coordination bonus, and the bonus's
exact formula (which changed between whoosh-reloaded 2.7 and whoosh3 3.x). They
are all read here, and ``tests/test_whoosh_adapter.py`` checks every answer of
this module against plain Whoosh's public API (its matchers' ``score()``, its
searcher's results) on the real corpus: a new Whoosh release that changes any
of them fails those tests, and is a change to this file only.

Also here: which Whoosh wrote an index, and whether the running one reads it
(``check_release``): an index written by another major release is refused when
the build is opened, with a line saying to rebuild, never at a request.
"""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import whoosh
from whoosh.codec.whoosh3 import W3LeafMatcher
from whoosh.collectors import UnlimitedCollector
from whoosh.matching.combo import ArrayUnionMatcher
from whoosh.matching.wrappers import CoordMatcher
from whoosh.scoring import BM25FScorer, WeightLengthScorer

__all__ = ["RELEASE", "REPLACE_EVERY", "IndexReleaseError", "check_release", "scored_postings",
           "public_postings", "array_union", "coordination", "coord_scale", "bm25_scores"]

RELEASE: tuple[int, ...] = tuple(whoosh.__version__)
# The unlimited collector replaces its matcher (dropping exhausted terms) every this many matches.
REPLACE_EVERY: int = UnlimitedCollector().replace


class IndexReleaseError(Exception):
    """An index written by a Whoosh release the running one does not read the same way."""


def check_release(ix) -> None:
    """Refuse an index another major release of Whoosh wrote (whoosh-reloaded 2.7's, read by whoosh3 3.x:
    its pickled schema names 2.x classes, and its coordination bonus scored differently). ``ix.release``
    is the version Whoosh writes into every index's table of contents."""
    written = tuple(ix.release or ())
    if written[:1] != RELEASE[:1]:
        made = ".".join(map(str, written)) or "an unknown release"
        raise IndexReleaseError(f"index written by Whoosh {made}; this kb runs Whoosh {whoosh.versionstring()}: "
                                "rebuild it with `kb build`")


def public_postings(searcher, fieldname: str, btext: bytes) -> tuple[list[int], list[float]]:
    """A term's docnums and scores as Whoosh's public matcher gives them, posting by posting."""
    scorer = searcher.weighting.scorer(searcher, fieldname, btext)
    m = searcher.reader().postings(fieldname, btext, scorer=scorer)
    ids: list[int] = []
    scores: list[float] = []
    while m.is_active():
        ids.append(m.id())
        scores.append(m.score())
        m.next()
    return ids, scores


def scored_postings(searcher, fieldname: str, btext: bytes,
                    lengths: Callable[[], list[int]]) -> tuple[list[int], list[float]]:
    """The same as ``public_postings``, a block at a time where Whoosh's leaf matcher and a BM25-style
    scorer allow (the scorer's ``_score(weight, length)`` over every posting of a block, with each
    document's field length from ``lengths()``: ~5x faster when a build opens); else ``public_postings``."""
    scorer = searcher.weighting.scorer(searcher, fieldname, btext)
    m = searcher.reader().postings(fieldname, btext, scorer=scorer)
    if not (type(m) is W3LeafMatcher and isinstance(scorer, WeightLengthScorer) and hasattr(scorer, "dfl")):
        return public_postings(searcher, fieldname, btext)
    ids: list[int] = []
    weights: list[float] = []
    while m.is_active():  # a block at a time, through the leaf matcher's own readers
        if m._ids is None:
            m._read_ids()
        if m._weights is None:
            m._read_weights()
        ids.extend(m._ids[m._i:])
        weights.extend(m._weights[m._i:])
        m._next_block()
    table = lengths()
    return ids, list(map(scorer._score, weights, map(table.__getitem__, ids)))


def array_union(m: ArrayUnionMatcher) -> tuple[list, float, bool]:
    """A preloaded array union's children, its boost, and whether it scores."""
    return list(m.children()), float(m._boost), bool(m._scored)


def coord_scale(m: CoordMatcher) -> float:
    """The scale of a coordination bonus (``Or(scale=...)``)."""
    return m._scale


def coordination(termcount: int, scale: float) -> tuple[float, float] | None:
    """``CoordMatcher``'s score for a tree of ``termcount`` terms as (factor, gap): a document's score
    is ``(score + (matching - 1) / gap) * factor``, in that order of operations; None where Whoosh
    scores every document 0.

    whoosh3 (3.x) leaves the score unchanged where there is nothing to coordinate (one term, or
    ``termcount == scale``); whoosh-reloaded 2.7 scored those 0. As ``(score + x / inf) * 1.0`` is
    ``score`` to the last bit, one expression gives both."""
    if termcount == 0:
        return None
    if termcount <= 1 or termcount == scale:
        return 1.0, math.inf
    return (termcount - 1) / termcount, (termcount - scale) ** 2


def bm25_scores(scorer, weights: np.ndarray, lengths: np.ndarray) -> np.ndarray | None:
    """``scorer._score(weight, length)`` of every pair at once (float64 arrays of weights and field lengths) for
    Whoosh's BM25F scorer: ``whoosh.scoring.bm25``'s expression, the same operations in the same order on every
    element (numpy's float64 arithmetic rounds each as Python's does), so the same doubles; None for any other
    scorer, whose ``_score`` the caller calls one pair at a time."""
    if type(scorer) is not BM25FScorer:
        return None
    idf, avgfl, b, k1 = scorer.idf, scorer.avgfl, scorer.B, scorer.K1
    # bm25(idf, tf, fl, avgfl, B, K1): idf * ((tf * (K1 + 1)) / (tf + K1 * ((1 - B) + B * fl / avgfl)))
    return idf * ((weights * (k1 + 1)) / (weights + k1 * ((1 - b) + b * lengths / avgfl)))
