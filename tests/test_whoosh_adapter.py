"""kb.whoosh_adapter answers what plain Whoosh's public API answers, on the real corpus.

The adapter is the one module that reads Whoosh's private fields (a posting
block's ids and weights, the scorer's ``_score``, an array union's boost, a
coordination bonus's scale) and knows its coordination formula. Each test
below computes the same thing through Whoosh's public API (matchers stepped
with ``id()``/``score()``/``next()``, a searcher's results) and compares to the
last bit: a Whoosh release that changes any of them fails here first.
"""
from __future__ import annotations

import shutil

import pytest
import whoosh
from whoosh import index as whoosh_index
from whoosh.filedb.filestore import FileStorage
from whoosh.matching import ListMatcher
from whoosh.matching.binary import UnionMatcher
from whoosh.matching.combo import ArrayUnionMatcher
from whoosh.matching.wrappers import CoordMatcher
from whoosh.searching import SearchContext

from kb import whoosh_adapter as adapter
from kb.index import open_index
from kb.search import Searcher


@pytest.fixture(scope="module")
def plain(store):
    searcher = Searcher(store, cache_size=0, fast=False)
    yield searcher
    searcher.close()


# the block path is the one taken for the scored fields (BM25F over Whoosh's own leaf matcher); the number field
# (an ID field, no lengths: kb.engine reads it when a build opens too) is read posting by posting
@pytest.mark.parametrize(("fieldname", "blocks"), [("title", True), ("body", True), ("exact", True), ("number", False)])
def test_scored_postings_are_the_public_matchers_scores_for_every_term(plain, fieldname, blocks):
    s = plain.searcher
    terms = list(s.reader().lexicon(fieldname))
    assert len(terms) > 100
    fast_path = 0
    for btext in terms:
        lengths_read: list[bool] = []

        def lengths(fieldname=fieldname, seen=lengths_read):
            seen.append(True)
            return [s.doc_field_length(d, fieldname, 1) for d in range(s.doc_count_all())]

        got = adapter.scored_postings(s, fieldname, btext, lengths)
        assert got == adapter.public_postings(s, fieldname, btext), (fieldname, btext)
        fast_path += bool(lengths_read)
    assert fast_path == (len(terms) if blocks else 0)


def test_public_postings_are_what_a_search_for_the_term_scores(plain):
    from whoosh import query as Q

    s = plain.searcher
    for word in ["flying", "counter", "player", "tarmogoyf"]:
        btext = word.encode() if word != "flying" else b"fli"
        ids, scores = adapter.public_postings(s, "body", btext)
        hits = {hit.docnum: hit.score for hit in s.search(Q.Term("body", btext.decode()), limit=None)}
        assert hits and dict(zip(ids, scores, strict=True)) == hits, word


def test_array_union_parts_give_the_matchers_own_scores(plain):
    """An Or of 3+ clauses on an index under 5,000 documents is an ArrayUnionMatcher (a number word: "two"): its
    scores are its clauses' scores times its boost, summed in order from 0.0 (documents above 0 kept)."""
    s = plain.searcher
    query = plain.candidates.build_query("two")
    context = SearchContext(weighting=s.weighting)
    stepped, read = query.matcher(s, context), query.matcher(s, context)
    assert type(stepped) is ArrayUnionMatcher
    children, boost, scored = adapter.array_union(read)  # read ahead by the union: only their number is checked
    assert scored and len(children) == len(query.subqueries) >= 3 and boost == query.boost
    expected = {}
    while stepped.is_active():
        expected[stepped.id()] = stepped.score()
        stepped.next()
    sums: dict[int, float] = {}
    for child in [q.matcher(s, context) for q in query.subqueries]:  # fresh: the same clauses, in the same order
        while child.is_active():
            sums[child.id()] = sums.get(child.id(), 0.0) + child.score() * boost
            child.next()
    assert expected and {d: v for d, v in sums.items() if v > 0} == expected


def _leaf(ids: list[int], weights: list[float], name: str) -> ListMatcher:
    return ListMatcher(ids, weights=weights, term=("body", name.encode()))


@pytest.mark.parametrize("terms", [1, 2, 3, 5])
@pytest.mark.parametrize("scale", [0.95, 1.0, 2.0])
def test_coordination_is_whooshs_coord_matcher(terms, scale):
    """The bonus's formula, term count by term count, against CoordMatcher.score() over real matchers."""
    leaves = [_leaf([d for d in range(12) if d % (k + 1) == 0 or d == 11], [0.5 + k + d / 7 for d in range(12)
                                                                           if d % (k + 1) == 0 or d == 11], f"t{k}")
              for k in range(terms)]
    child = leaves[0]
    for leaf in leaves[1:]:
        child = UnionMatcher(child, leaf)
    coord = CoordMatcher(child, scale=scale)
    assert adapter.coord_scale(coord) == scale
    made = adapter.coordination(terms, scale)
    assert made is not None
    factor, gap = made
    while coord.is_active():
        d = coord.id()
        score = coord.child.score()
        matching = len(list(coord.child.matching_terms(d)))
        assert coord.score() == (score + (matching - 1) / gap) * factor, (terms, scale, d)
        coord.next()
    assert adapter.coordination(0, scale) is None


def test_bm25_scores_are_the_scorers_own_for_every_weight_and_length(plain):
    """The BM25F expression over arrays gives ``_score(weight, length)``'s doubles, bit for bit, for terms rare and
    common in each scored field, over every document length the field has and weights up to 40."""
    import numpy as np

    s = plain.searcher
    checked = 0
    for fieldname in ("title", "body", "exact"):
        lengths = sorted({n for d in range(s.doc_count_all()) if (n := s.doc_field_length(d, fieldname, 1))})
        terms = list(s.reader().lexicon(fieldname))
        for btext in terms[:: max(1, len(terms) // 40)]:
            scorer = s.weighting.scorer(s, fieldname, btext)
            weights = [w * boost for w in range(1, 41) for boost in (1.0, 2.0)]
            pairs = [(w, n) for w in weights for n in lengths]
            got = adapter.bm25_scores(scorer, np.array([w for w, _ in pairs]), np.array([n for _, n in pairs],
                                                                                      dtype=np.intc))
            assert got is not None
            assert got.tolist() == [scorer._score(w, n) for w, n in pairs], (fieldname, btext)
            checked += len(pairs)
    assert checked > 10_000
    assert adapter.bm25_scores(object(), np.zeros(1), np.zeros(1)) is None


def test_the_collector_replaces_its_matcher_as_often_as_the_adapter_says():
    from whoosh.collectors import UnlimitedCollector

    assert adapter.REPLACE_EVERY == UnlimitedCollector().replace == 10


def test_the_running_whoosh_reads_the_indexes_kb_writes(store):
    ix = open_index(store.path / "index")
    try:
        assert tuple(ix.release)[:1] == tuple(whoosh.__version__)[:1]
        adapter.check_release(ix)
    finally:
        ix.close()


def test_an_index_another_major_release_wrote_is_refused_with_what_to_do(store, tmp_path):
    copy = tmp_path / "index"
    shutil.copytree(store.path / "index", copy)
    # The table of contents starts with three sizes and a check number, the format (-111 in both 2.7.5 and 3.x),
    # then the release that wrote it, three varints: made to say what whoosh-reloaded 2.7.5 writes there.
    toc = copy / f"_MAIN_{whoosh_index.TOC.read(FileStorage(str(copy)), 'MAIN').generation}.toc"
    data = bytearray(toc.read_bytes())
    assert tuple(data[11:14]) == tuple(whoosh.__version__[:3])
    data[11:14] = bytes([2, 7, 5])
    toc.write_bytes(bytes(data))
    with pytest.raises(adapter.IndexReleaseError,
                       match=r"index written by Whoosh 2\.7\.5; this kb runs Whoosh 3\.\d+\.\d+: rebuild it with "
                             r"`kb build`"):
        open_index(copy)


def test_every_private_read_lives_in_the_adapter():
    """The modules that drive Whoosh (kb.engine, kb.index) read none of its private fields: only
    kb/whoosh_adapter.py does (the one file a Whoosh upgrade touches)."""
    import ast
    from pathlib import Path

    root = Path(adapter.__file__).parent
    found = []
    for name in ["engine.py", "index.py"]:
        tree = ast.parse((root / name).read_text())
        for node in ast.walk(tree):
            # m._ids, scorer._score, ...: an attribute with a leading underscore read off anything but self
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                    and not (isinstance(node.value, ast.Name) and node.value.id == "self")):
                found.append(f"{name}:{node.lineno} .{node.attr}")
    # kb.engine's own: the Postings' lock, shared by its stand-ins for Whoosh's searcher
    assert [f for f in found if not f.endswith(" ._lock")] == []
