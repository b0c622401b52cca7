"""Phrases from the build's word sequences (kb.positions) answer exactly what Whoosh's phrase query answers.

The same documents, the same scores to the last bit and the same order, for several hundred phrases drawn from
the records themselves (two to five words side by side, stop words and repeated words included), phrases that
match nothing, and words the index lacks; on the real corpus with the 2026 official rules, and on the bundled one.
"""
from __future__ import annotations

import random
import re

import pytest
from whoosh import query as Q

from kb import engine
from kb.positions import PhraseTable
from kb.search import Searcher
from web.tools.bench import query_classes

FIXED = [["leaves", "the", "game"], ["game", "the", "turn"], ["special", "action"], ["starting", "player"],
         ["face", "down"], ["combat", "damage"], ["the", "the"], ["of", "the"], ["zzqx", "the"],
         ["game", "leaves", "the"], ["702.19", "trample"]]


def drawn_phrases(store, n: int, seed: int = 7) -> list[list[str]]:
    """``n`` runs of 2-5 consecutive words from the records' texts (seeded), as a reader would quote them."""
    rng = random.Random(seed)
    records = sorted(store.records.values(), key=lambda r: r.id)
    out: list[list[str]] = []
    while len(out) < n:
        words = re.findall(r"[a-z0-9]+", (rng.choice(records).text or "").lower())
        if len(words) < 6:
            continue
        size = rng.randint(2, 5)
        start = rng.randrange(len(words) - size)
        out.append(words[start:start + size])
    return out


def _searchers(store):
    with_table = Searcher(store, cache_size=0)
    with_table.postings.phrases = PhraseTable.read(with_table.searcher, "exact")
    return with_table


@pytest.mark.parametrize("which", ["bundled", "official rules"])
def test_phrase_scores_equal_whooshs(request, which):
    store = request.getfixturevalue("store" if which == "bundled" else "cr_store")
    searcher = _searchers(store)
    table = searcher.postings.phrases
    assert table is not None and table.memory() > 0
    matched = 0
    for words in FIXED + drawn_phrases(store, 300):
        for boost in (1.0, 2.0):  # kb.search asks a phrase with boost 2
            query = Q.Phrase("exact", words, boost=boost)
            expected = engine.whoosh_scores(searcher.searcher, query)
            got = engine.scores(searcher.postings, searcher.searcher, query)
            assert got == expected, words
            assert engine.ranked(got) == engine.ranked(expected), words
            matched += bool(got)
        # and inside the usual question tree: a phrase beside words, filtered
        query = Q.Or([Q.Phrase("exact", words, boost=2.0), Q.Or([Q.Term("title", "game"), Q.Term("body", "game")])],
                     scale=0.95)
        flt = Q.And([Q.Term("kind", "rule")])
        assert engine.scores(searcher.postings, searcher.searcher, query, flt) == \
            engine.whoosh_scores(searcher.searcher, query, flt), words
    assert matched > 400  # most drawn phrases are found (in their own record at least)
    searcher.close()


def test_the_sequences_hold_whooshs_positions(cr_store):
    """Every posting's positions, as Whoosh decodes them, are where the table's sequence holds the term."""
    from array import array

    searcher = _searchers(cr_store)
    table, reader = searcher.postings.phrases, searcher.searcher.reader()
    decode = searcher.searcher.schema["exact"].format.decoder("positions")
    for btext in list(reader.lexicon("exact"))[::7]:
        k = table.numbers[btext]
        docs, counts = [], []
        for docnum, value in reader.postings("exact", btext).all_items():
            docs.append(docnum)
            counts.append(len(decode(value)))
            seq = array("i", table.sequences[docnum])
            assert [p for p, held in enumerate(seq) if held == k] == sorted(decode(value)), btext
        assert list(table.docs[k]) == docs and list(table.counts[k]) == counts
    searcher.close()


def test_phrase_queries_answer_the_same_with_and_without_the_table(cr_store):
    """The whole search (lead, re-rank, snippets, facets) for the bench's phrases and quoted runs of words."""
    plain = Searcher(cr_store, cache_size=0)  # not warmed: each word's positions, read on first use
    with_table = _searchers(cr_store)
    quoted = ['"' + " ".join(w) + '"' for w in drawn_phrases(cr_store, 60, seed=3)]
    for q in query_classes(True)["phrase"] + quoted + ['"leaves the game" kind:rule', 'sacrifice "face down"']:
        assert with_table.search(q).to_json() == plain.search(q).to_json(), q
    plain.close()
    with_table.close()


def test_a_field_past_the_bound_gets_no_table(store):
    searcher = Searcher(store, cache_size=0)
    assert PhraseTable.read(searcher.searcher, "exact", max_words=1000) is None
    searcher.close()


def test_warming_changes_no_answer(cr_store):
    """Searcher.warm (the phrase table, the per-stem and per-filter tables, the scorers) only moves work from a
    query to the build's opening: every class of the bench, the quality suite and quoted runs of words answer
    the same on a warmed searcher as on one that fills its tables as queries need them."""
    from corpus.questions import CR_QUESTIONS, QUESTIONS

    cold = Searcher(cr_store, cache_size=0)
    warm = Searcher(cr_store, cache_size=0)
    warm.warm()
    assert warm.postings.phrases is not None and cold.postings.phrases is None
    queries = [q for qs in query_classes(True).values() for q in qs] + [q for q, _ in QUESTIONS + CR_QUESTIONS]
    queries += ['"' + " ".join(w) + '"' for w in drawn_phrases(cr_store, 30, seed=5)]
    for q in dict.fromkeys(queries):
        assert warm.search(q).to_json() == cold.search(q).to_json(), q
    cold.close()
    warm.close()
