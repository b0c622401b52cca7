"""The fast path (kb.engine) answers exactly what plain Whoosh answers.

kb.engine evaluates Whoosh's own matcher tree over cached, pre-scored postings
instead of stepping Whoosh's collector document by document. The contract
with the ranking (whatever query kb.search builds, with whatever weighting,
boosts and re-ranking) is that nothing changes: the same matches, the same
scores to the last bit, the same ranked ids, facets and snippets. These
tests run a broad query set (the quality suite, the bench's query classes,
and a few hundred word combinations drawn from the records) both ways, on
the bundled corpus and with the 2026 official rules.

Deliberate differences: none.
"""
from __future__ import annotations

import random
import threading

import numpy as np
import pytest

from kb import engine
from web.tools.bench import QUERY_MIX, query_classes
from corpus.questions import CR_QUESTIONS, QUESTIONS
from kb.search import Searcher


def broad_queries(store, has_cr: bool, drawn: int = 150) -> list[str]:
    """The suite, the bench's classes, and word combinations from titles and texts (seeded)."""
    out = [q for q, _ in QUESTIONS + (CR_QUESTIONS if has_cr else [])] + QUERY_MIX
    out += [q for qs in query_classes(has_cr).values() for q in qs]
    rng = random.Random(11)
    records = sorted(store.records.values(), key=lambda r: r.id)
    texts = [f"{r.title or ''} {r.text or ''}".lower() for r in records[::9]]
    words = sorted({w.strip('.,;:()"') for text in texts for w in text.split()[:12]})
    words = [w for w in words if w.isalpha()]
    out += [" ".join(rng.sample(words, rng.randint(1, 6))) for _ in range(drawn)]
    out += ['"' + " ".join(rng.sample(words, 2)) + '"' for _ in range(5)]
    return list(dict.fromkeys(out))


def same_scores(searcher: Searcher, queries: list[str], filters) -> tuple[int, int]:
    """Assert kb.engine's scores equal plain Whoosh's for each built query; (evaluated, fell back)."""
    evaluated = fell_back = 0
    for text in queries:
        query = searcher.candidates.build_query(text)
        if query is None:
            continue
        for doc, kind in filters:
            flt = searcher.tables.filter(doc, kind)
            expected = engine.whoosh_scores(searcher.searcher, query, flt)
            try:
                got = engine.scores(searcher.postings, searcher.searcher, query, flt)
            except engine.Unsupported:
                fell_back += 1
                continue
            evaluated += 1
            assert got == expected, f"{text!r} {doc} {kind}"
            assert engine.ranked(got) == engine.ranked(expected), f"{text!r} {doc} {kind}"
    return evaluated, fell_back


def same_answers(store, queries: list[str], variants) -> None:
    fast, plain = Searcher(store, cache_size=0), Searcher(store, cache_size=0, fast=False)
    try:
        for text in queries:
            for kwargs in variants:
                assert fast.search(text, **kwargs).to_json() == plain.search(text, **kwargs).to_json(), (text, kwargs)
    finally:
        fast.close()
        plain.close()


def test_scores_equal_whooshs_on_the_bundled_corpus(store):
    searcher = Searcher(store, cache_size=0)
    queries = broad_queries(store, False)
    evaluated, fell_back = same_scores(searcher, queries, [(None, None), ("treachery", None), (None, "rule")])
    # Queries with a number word ("two": 4 clauses, Whoosh's preloaded array union) are evaluated too.
    assert evaluated > 1000 and fell_back == 0, (evaluated, fell_back)
    searcher.close()


@pytest.mark.parametrize("text", ["can two players use the same name", "two", "10 poison counters",
                                  "six players first strike"])
def test_whooshs_preloaded_array_union_is_evaluated_exactly(store, text):
    """On an index under 5,000 documents Whoosh ORs 3+ clauses (a number word: title, body and
    the digit's two) with an ArrayUnionMatcher, whose documents name no matching term to a
    coordination bonus above it: the evaluation gives those scores, not "better" ones."""
    from whoosh.matching.combo import ArrayUnionMatcher
    from whoosh.searching import SearchContext

    searcher = Searcher(store, cache_size=0)
    query = searcher.candidates.build_query(text)
    tree = query.matcher(searcher.searcher, SearchContext(weighting=searcher.searcher.weighting))
    found, stack = False, [tree]
    while stack:
        node = stack.pop()
        found = found or type(node) is ArrayUnionMatcher
        stack += list(node.children())
    assert found
    expected = engine.whoosh_scores(searcher.searcher, query)
    assert engine.scores(searcher.postings, searcher.searcher, query) == expected and expected
    searcher.close()


def test_scores_equal_whooshs_with_the_official_rules(cr_store):
    searcher = Searcher(cr_store, cache_size=0)
    queries = broad_queries(cr_store, True, drawn=100)
    evaluated, fell_back = same_scores(searcher, queries, [(None, None), ("cr", "glossary")])
    assert evaluated > 500 and fell_back == 0, (evaluated, fell_back)
    searcher.close()


@pytest.mark.parametrize("path", ["arrays", "dicts"])
def test_both_evaluations_equal_whooshs(store, monkeypatch, path):
    """``scores`` takes arrays for a large tree and dicts for a small one (engine.DENSE_FROM): each alone, for every
    tree (number words' array unions, phrases, filters), gives Whoosh's scores to the last bit."""
    everything, nothing = (0, 0), (10**9, 10**9)
    monkeypatch.setattr(engine, "DENSE_FROM", (everything if path == "arrays" else nothing)[0])
    monkeypatch.setattr(engine, "DENSE_FROM_ONE_WORD", (everything if path == "arrays" else nothing)[1])
    searcher = Searcher(store, cache_size=0)
    searcher.warm()  # phrases from the build's word sequences (kb.positions) as served
    queries = broad_queries(store, False, drawn=80) + ["can two players use the same name", "10 poison counters",
                                                        '"face down" morph', '"special action"']
    evaluated, fell_back = same_scores(searcher, queries, [(None, None), ("treachery", None), (None, "rule")])
    assert evaluated > 700 and fell_back == 0, (evaluated, fell_back)
    query = searcher.candidates.build_query("what happens when a player has ten poison counters")
    got = engine.scores(searcher.postings, searcher.searcher, query)
    assert (type(got) is engine.Scored) == (path == "arrays")
    searcher.close()


def test_a_words_summed_scores_are_its_matchers_bit_for_bit(store):
    """Every kept word's ``_Word`` (its fields' scores summed once per build) holds what its matcher yields one
    document at a time: the same documents, each score to the last bit, and how many of its terms match each (the
    counts a coordination bonus reads); a question's tree holds it where Whoosh's tree holds the word's matcher."""
    searcher = Searcher(store, cache_size=0)
    searcher.warm()  # every stem's word matcher, as served
    # every kept word but a number word with its twin (four fields: Whoosh's array union on the bundled corpus,
    # which _dense reads as it is; the warming keeps those too, kb.search.candidates.Candidates.warm)
    words = [found for found in searcher.postings.words.values() if type(found[1]) is not engine.ArrayUnionMatcher]
    summed = [found[3] for found in words if found[3] is not None]
    assert len(summed) > 1000 and len(summed) == len(words), (len(summed), len(words))
    for word in summed:
        scores, matching = engine._scores(word.matcher, lambda node, child: [])
        assert word.ids.tolist() == sorted(scores)
        assert [s.hex() for s in word.scores.tolist()] == [scores[d].hex() for d in sorted(scores)]
        assert word.counts.tolist() == [matching.get(d, 1) for d in sorted(scores)]
        assert word.units == engine._units(word.matcher)
        if word.dense is not None:  # a common word's arrays over every docnum: its postings there, zero elsewhere
            vals, count = word.dense
            assert vals[word.ids].tolist() == word.scores.tolist() and count[word.ids].tolist() == word.counts.tolist()
            elsewhere = np.ones(len(vals), dtype=bool)
            elsewhere[word.ids] = False
            assert not vals[elsewhere].any() and not count[elsewhere].any()
    assert sum(word.dense is not None for word in summed) > 5  # "card", "player", ...
    query = searcher.candidates.build_query("can two players use the same name")
    tree = engine._question_matcher(engine._View(searcher.postings, searcher.searcher), query)
    leaves, todo = [], [tree.child]
    while todo:
        m = todo.pop()
        if type(m) is engine.UnionMatcher:
            todo += [m.a, m.b]
        else:
            leaves.append(m)
    # "two" is a number word: its four fields are Whoosh's array union on the bundled corpus (count 0 where it
    # matches, as _dense reads it), left as it is; every other word is summed
    assert sorted(type(m).__name__ for m in leaves) == ["ArrayUnionMatcher"] + ["_Word"] * 4, leaves
    searcher.close()


@pytest.mark.parametrize("share, least", [(0.35, 50), (0.0, 50), (0.99, 50), (0.35, 5000), (1.0, 1)])
def test_ranked_above_is_the_start_of_whooshs_order_both_ways(cr_store, share, least):
    """``ranked_above`` from ``Scored``'s arrays, from a plain dict's (over ``RANK_ARRAYS_FROM`` matches), after a
    caller removed a document, and in Python: the start of ``ranked`` and the count above the cut, equal scores
    in docnum order."""
    searcher = Searcher(cr_store, cache_size=0)
    for text in ["what happens when a player has ten poison counters", "identity card face down", "card",
                 "legend rule", "tribal"]:
        scored = engine.scores(searcher.postings, searcher.searcher, searcher.candidates.build_query(text))
        order = engine.ranked(scored)
        cut = share * max(scored.values())
        count = sum(1 for v in scored.values() if v > cut)
        expected = order[:max(count, least)]
        assert engine.ranked_above(scored, share, least) == (expected, count), text
        assert engine.ranked_above(dict(scored), share, least) == (expected, count), text
        assert engine._ranked_above(dict(scored), share, least) == (expected, count), text
        scored.pop(order[0])  # a lead's record left out (kb.search.candidates): the arrays are dropped
        assert engine.ranked_above(scored, share, least) == engine._ranked_above(dict(scored), share, least), text
    searcher.close()


@pytest.mark.parametrize("window", [0, 10, 50, 5000])
def test_ranked_window_gives_the_scores_of_its_start_bit_for_bit(cr_store, window):
    """``ranked_window``: ``ranked_above``'s start and count, with the scores of the first ``window`` of that start
    as ``scored[d]`` gives them (the same doubles, Python floats), from ``Scored``'s arrays, a large dict's and a
    small dict's (in Python)."""
    searcher = Searcher(cr_store, cache_size=0)
    for text in ["what happens when a player has ten poison counters", "library top card", "tribal", "legend rule"]:
        scored = engine.scores(searcher.postings, searcher.searcher, searcher.candidates.build_query(text))
        for answer in (scored, dict(scored)):
            order, count, scores = engine.ranked_window(answer, 0.35, 50, window)
            assert (order, count) == engine.ranked_above(answer, 0.35, 50), text
            assert [x.hex() for x in scores] == [scored[d].hex() for d in order[:window]], text
            assert all(type(x) is float for x in scores)
        small = dict(list(dict(scored).items())[:engine.RANK_ARRAYS_FROM - 1])
        order, count, scores = engine.ranked_window(small, 0.35, 50, window)
        assert (order, count) == engine._ranked_above(small, 0.35, 50), text
        assert scores == [small[d] for d in order[:window]], text
    assert engine.ranked_window({}, 0.35, 50, window) == ([], 0, [])
    searcher.close()


def test_search_answers_are_the_same_as_plain_whoosh(store):
    variants = [{}, {"limit": 30}, {"offset": 10, "limit": 5}, {"kind": "rule"}]
    same_answers(store, broad_queries(store, False, drawn=60), variants)


def test_search_answers_are_the_same_with_the_official_rules(cr_store):
    same_answers(cr_store, broad_queries(cr_store, True, drawn=60), [{}, {"doc": "cr"}])


def test_the_collectors_position_dependent_coordination_is_reproduced(cr_store):
    """Whoosh's collector drops exhausted terms every 10 matches, and Or(scale=...) then scores
    with fewer terms: a property of the scoring model the fast path must keep, not fix."""
    searcher = Searcher(cr_store, cache_size=0)
    query = searcher.candidates.build_query("rule 115")
    expected = engine.whoosh_scores(searcher.searcher, query)
    got = engine.scores(searcher.postings, searcher.searcher, query)
    assert got == expected
    # The quirk matters here: scored with every term for every document, the order differs.
    from whoosh.collectors import UnlimitedCollector

    collector = UnlimitedCollector()
    collector.replace = 0
    searcher.searcher.search_with_collector(query, collector)
    steady = {hit.docnum: hit.score for hit in collector.results()}
    assert steady.keys() == got.keys() and steady != got
    searcher.close()


def test_threads_filling_the_caches_get_the_answers_one_thread_gets(store):
    queries = broad_queries(store, False, drawn=40)
    reference = Searcher(store, cache_size=0, fast=False)
    expected = {q: [h.id for h in reference.search(q).hits] for q in queries}
    reference.close()
    shared = Searcher(store, cache_size=0)  # cold: the threads fill its postings and snippet caches together
    failures: list = []

    def worker(k: int) -> None:
        for q in queries[k::2] + queries:
            got = [h.id for h in shared.search(q).hits]
            if got != expected[q]:
                failures.append((q, got, expected[q]))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    shared.close()
    assert failures == []


@pytest.mark.parametrize("text", ["", "a", '"', "the of and", "doc:treachery", "x" * 40])
def test_odd_queries_behave_the_same(store, text):
    same_answers(store, [text], [{}])


def test_warming_fills_every_records_tables_and_changes_no_answer(store):
    queries = broad_queries(store, False, drawn=20)
    cold = Searcher(store, cache_size=0)
    expected = {q: cold.search(q).to_json() for q in queries}
    cold.close()
    warmed = Searcher(store, cache_size=0)
    warmed.warm()  # kb serve runs this in a background thread per worker (KB_WARM=1)
    assert len(warmed._positions) == len(warmed.ids)
    assert {q: warmed.search(q).to_json() for q in queries} == expected
    warmed.close()


def test_unknown_words_leave_no_trace_in_the_per_build_tables(store):
    """Unique queries of words no record uses must not grow a worker's tables without end."""
    from kb.search import Searcher

    s = Searcher(store, cache_size=0)
    s.search("rule flying")
    terms, uses = len(s.postings._terms), len(s.tables._stem_uses)
    matchers, words = len(s.postings.matchers), len(s.postings.words)
    for i in range(50):
        s.search(f"rule qzxv{i}wk plonkt{i}y")
    assert (len(s.postings._terms), len(s.tables._stem_uses)) == (terms, uses)
    # nor its word matchers: an unknown word's tree is kept by its shape (fields and boosts), a handful at most
    assert (len(s.postings.matchers), len(s.postings.words)) == (matchers, words)
    assert len(s.postings.absent) <= engine.MAX_ABSENT_SHAPES
    s.close()
