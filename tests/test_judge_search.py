"""What a judge met in search (issue 32, items 2, 3, 4 and 7), on the real corpus with the official rules loaded:
a citation answers with the rule it cites, a number two documents use is the official rule first, a miss lists
the nearest numbers and nothing else, a count is of the results worth showing, a snippet shows what matched."""
from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from kb.search import candidates as search_module
from tests.conftest import SEMANTIC


@pytest.fixture(scope="module")
def cr_searcher(cr_store):
    from kb.search import Searcher

    s = Searcher(cr_store, semantic=SEMANTIC)  # as served
    yield s
    s.close()


def ids(results, n: int = 10) -> list[str]:
    return [h.id for h in results.hits[:n]]


# -- item 3: a reference written as a citation ---------------------------------------------------------------
@pytest.mark.parametrize("query, rule", [
    ("see rule 601.2f", "cr/601.2f"),
    ("See rule 704.5j", "cr/704.5j"),
    ("(see rule 510.1c)", "cr/510.1c"),
    ("per rule 601.2f", "cr/601.2f"),
    ("as in 704.5j", "cr/704.5j"),
    ("as in rule 704.5j", "cr/704.5j"),
    ("cf. rule 510.1c", "cr/510.1c"),
    ("(see also rule 702.19b)", "cr/702.19b"),
])
def test_a_citation_answers_with_the_rule_it_cites_then_the_records_citing_it(cr_searcher, query, rule):
    # "see rule 601.2f" answered with 118.9d, 205.4d, 702.22j (records that cite it), the rule not in the first three
    results = cr_searcher.search(query, limit=50)
    assert results.matched_by == "reference" and ids(results, 1) == [rule] and results.redirect == rule
    number = rule.split("/", 1)[1]
    cited = [h for h in results.hits[1:] if h.cites]
    assert cited and all(h.cites == number for h in cited)
    assert results.hits == cr_searcher.search(number, limit=50).hits  # as the number typed alone


def test_a_citation_inside_a_sentence_lists_the_rule_first_and_searches_the_rest(cr_searcher):
    query = "the blocked creature assigns its combat damage (see rule 510.1c) but what about trample"
    results = cr_searcher.search(query, limit=50)
    listed = ids(results, 50)
    assert listed[0] == "cr/510.1c" and results.redirect is None
    citing = [h.id for h in results.hits if h.cites == "510.1c"]
    assert citing and listed.index(citing[-1]) < len(citing) + 1  # the records citing it right after it
    assert any("trample" in h.snippet.lower() for h in results.hits)  # then the words, searched
    assert results.total > len(citing) + 1


def test_a_number_beside_words_it_does_not_fit_is_no_citation(cr_searcher):
    assert cr_searcher.search("702.9 trample").matched_by == "text"  # a mistyped 702.19: the words are searched


def test_a_citation_across_releases_is_not_read_as_one(cr_searcher):
    results = cr_searcher.search("702.19c as of")
    assert results.redirect is None and "across releases" in (results.note or "")


# -- item 4: the official rule first on a number two documents use ----------------------------------------
def test_a_bare_number_two_documents_use_is_the_official_rule_first(cr_searcher, cr_client):
    results = cr_searcher.search("116")
    assert ids(results, 2) == ["cr/116", "treachery/116"]
    assert "“CR 116” or “treachery 116”" in results.note
    assert ids(cr_searcher.search("treachery 116"), 1) == ["treachery/116"]  # named: that document's
    resolved = cr_client.get("/api/resolve?ref=116").get_json()
    assert [m["id"] for m in resolved["matches"]][:2] == ["cr/116", "treachery/116"]
    assert [m["id"] for m in cr_client.get("/api/resolve?ref=treachery+116").get_json()["matches"]] == ["treachery/116"]
    page = BeautifulSoup(cr_client.get("/r/116").get_data(as_text=True), "html.parser")
    assert [a["href"] for a in page.select("ul.disambiguation li > a")][:2] == ["/cr/116", "/treachery/116"]
    listed = cr_client.get("/api/search?q=116").get_json()["results"]
    assert [r["id"] for r in listed[:3]][:2] == ["cr/116", "treachery/116"]


# -- item 2: a miss lists the nearest numbers; a count is of what is worth showing --------------------------
def test_no_such_rule_lists_the_nearest_numbers_and_nothing_else(cr_searcher, cr_client):
    results = cr_searcher.search("rule 999.9", limit=100)
    assert results.note == "no rule 999.9 in any of the 4 documents loaded"
    official = [h.number for h in results.hits if h.doc == "cr"]
    rules = [n for k, n in cr_searcher.resolver.in_order["cr"] if len(k) == 2]  # every "NNN.N", in order
    assert official == rules[-2:] and official[0].startswith("9")  # the last rules of 9xx
    assert all(h.number and h.number.startswith("9") or h.doc == "futuresight" for h in results.hits)
    assert results.total == len(results.hits) <= 6 and results.matched_by == "reference"
    body = cr_client.get("/api/search?q=rule+999.9").get_json()
    assert body["total"] == len(body["results"]) == results.total and body["nearest"] is True
    page = BeautifulSoup(cr_client.get("/search?q=rule+999.9").get_data(as_text=True), "html.parser")
    said = [p.get_text(" ", strip=True) for p in page.select(".total")]
    assert said == [f"{results.total} nearest numbers that exist"]
    # a number whose section exists: its siblings, as before (not 703.1)
    near = ids(cr_searcher.search("702.999"))
    assert near and all(rid.startswith("cr/702") or not rid.startswith("cr/") for rid in near)


@pytest.mark.parametrize("query", ["who gets priority after something resolves", "can i respond to a triggered ability",
                                   "how many cards in a commander deck"])
def test_a_count_is_of_the_results_worth_showing(cr_searcher, cr_client, query):
    # ordinary questions reported 1,000-2,263 "results": every record sharing a word ("a", "card", "player")
    results = cr_searcher.search(query, limit=100)
    assert 3 <= results.total < 200
    first = cr_searcher.search(query, limit=1)
    assert first.total == results.total
    # every page together holds the count, each record once; nothing past it
    everything = cr_searcher.search(query, limit=100, offset=0).hits + cr_searcher.search(query, limit=100,
                                                                                         offset=100).hits
    assert len(everything) == results.total == len({h.id for h in everything})
    assert sum(results.facets["doc"].values()) == results.total == sum(results.facets["kind"].values())
    body = cr_client.get("/api/search", query_string={"q": query}).get_json()
    assert body["total"] == results.total and body["matched"] > body["total"]


def test_the_floor_is_relative_to_the_first_hit(cr_searcher, monkeypatch):
    query = "who gets priority after something resolves"
    counted = cr_searcher.search(query).total
    monkeypatch.setattr(search_module, "RELEVANCE_FLOOR", 0.0)
    cr_searcher._cached = None  # answers are cached per build; this one is asked again with no floor
    everything = cr_searcher.search(query)
    assert everything.total > counted and everything.total == everything.matched


# -- item 7: the passage that matched ---------------------------------------------------------------------
def test_a_snippet_shows_the_example_that_matched(cr_searcher):
    results = cr_searcher.search("tarmagoyf", limit=20)
    by_id = {h.id: h for h in results.hits}
    hit = by_id["cr/111.11"]  # its text never says Tarmogoyf; its example does
    assert "<mark>Tarmogoyf</mark>" in hit.snippet and hit.snippet.startswith("Example:")
    marked = [h for h in results.hits if h.kind != "card"]
    assert marked and all("<mark>" in h.snippet for h in marked)
    # the text stays the snippet when it matches as well as an example does
    assert "<mark>token</mark>" in cr_searcher.search("create a token by name").hits[0].snippet.lower()
