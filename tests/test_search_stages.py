"""The search pipeline stage by stage (kb.search: parse -> lead -> full text -> assemble).

``Searcher._search`` only calls the stages in order, each handing the next a dataclass
(``_Query``, ``_Lead``, ``_Found``): this table of cases runs them one at a time on the real
corpus and pins what each stage decides, so a change shows in the stage that made it.
"""
from __future__ import annotations

import dataclasses

import pytest

from kb.search import Results, _Found, _Lead, _Query


def stages(searcher, q: str, doc: str | None = None, kind: str | None = None):
    query = searcher._parse(q, doc, kind, 10, 0)
    lead = searcher._lead(query)
    found = _Found() if lead.complete else searcher._full_text(query, exclude={r.id for r in lead.records})
    return query, lead, found, searcher._assemble(query, lead, found)


@pytest.mark.parametrize("q, parsed, matched_by, complete, redirect", [
    # a reference answers in the lead stage, and alone: no full-text search
    ("907.4b", {"text": "907.4b", "doc": None, "kind": None}, "reference", True, "treachery/907.4b"),
    ("CR 702.187c", {"text": "CR 702.187c"}, "reference", True, "treachery/702.187c"),
    # an exact card name too
    ("The Metamorph", {"text": "The Metamorph"}, "card", True, "treachery/cards/the-metamorph"),
    # filters are taken out in the parse stage; the words go on to the full text
    ("doc:treachery kind:ruling identity card", {"text": "identity card", "doc": "treachery", "kind": "ruling"},
     "text", False, None),
    ("nut counters", {"text": "nut counters", "doc": None, "kind": None}, "text", False, None),
])
def test_parse_then_lead(searcher, q, parsed, matched_by, complete, redirect):
    query, lead, found, results = stages(searcher, q)
    assert {k: getattr(query, k) for k in parsed} == parsed
    assert (lead.matched_by, lead.complete, lead.redirect) == (matched_by, complete, redirect)
    if complete:
        assert (found.top, found.total) == ([], 0) and results.total == len(lead.records)
    else:
        assert found.total > 0 and results.total == len(lead.records) + found.total
    assert results.matched_by == matched_by and results.redirect == redirect


def test_misspelt_words_are_corrected_before_the_full_text_search(searcher):
    query, lead, found, results = stages(searcher, "identitty card")
    assert lead.records == [] and not lead.complete
    assert found.fixed == "identity card" and not found.corrected and found.total > 0
    assert results.did_you_mean == "identity card" and "spelling corrected: 'identity card'" in (results.note or "")
    assert results.searched_for == "identity card"
    # a short word the documents never use may be a name they do not hold: not "corrected" into another word
    assert stages(searcher, "lotus bloom")[2].fixed is None


def test_did_you_mean_retries_in_the_full_text_stage(searcher):
    from kb import rank

    with rank.SIGNALS.off("typos"):  # the retry when nothing matched, for words the first search does not correct
        query, lead, found, results = stages(searcher, "unvel qq")
    assert lead.records == [] and not lead.complete
    assert found.suggestion == "unveil qq" and found.corrected and found.total > 0
    assert results.did_you_mean == "unveil qq" and "nothing matched 'unvel qq'; showing results for" in results.note
    assert results.did_you_mean_searched  # said by the note: no "did you mean" again


@pytest.mark.parametrize("q, offered", [("lotus bloom", None), ("Lotus Bloom", None),
                                        ("unvel morhp", "unveil morph")])
def test_a_correction_of_two_words_is_not_searched_in_their_place(searcher, q, offered):
    # "lotus bloom" (a card no document holds) showed "showing results for 'lotus blood'" (bundled; 'locus blood'
    # with the rules), The Blood Empress first: two words nobody typed. Offered only when some record holds all
    # its words (Treachery's unveil rule says morph)
    query, lead, found, results = stages(searcher, q)
    assert not found.corrected and found.total == 0 and results.hits == []
    assert results.note == f"nothing matched {q!r}"
    assert results.did_you_mean == offered and not results.did_you_mean_searched


def test_the_stages_hand_each_other_dataclasses():
    for stage in (_Query, _Lead, _Found, Results):
        assert dataclasses.is_dataclass(stage)
        assert not [f.name for f in dataclasses.fields(stage) if "tuple" in str(f.type)], stage


@pytest.mark.parametrize("q", ["graveyard", "nut counters", "restart the game", "when does damage wear off"])
def test_every_match_is_on_exactly_one_page(cr_client, q):
    # pages past the re-ranked window repeated earlier hits and left others out: the window grew with the page,
    # so each page re-ranked its own list ("graveyard": 105 different records over the pages of 291 results)
    first = cr_client.get("/api/search", query_string={"q": q, "limit": 10}).get_json()
    seen = []
    for page in range(1, first["pagination"]["pages"] + 1):
        answer = cr_client.get("/api/search", query_string={"q": q, "limit": 10, "page": page}).get_json()
        seen += [hit["id"] for hit in answer["results"]]
    assert len(seen) == first["total"] == len(set(seen))
    # one long page lists them in the same order
    assert [h["id"] for h in cr_client.get("/api/search", query_string={"q": q, "limit": 100}).get_json()["results"]] \
        == seen[:100]
