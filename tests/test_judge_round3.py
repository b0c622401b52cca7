"""What a judge still met, third round (issue 32): card navigation, history headings and discovery, rewrite
banners in plain words, Treachery identity pages without the card's text, and a build that is never silent.

Each test names the case from the issue it pins. The obsolete 2007 rulings are tests/test_obsolete.py; every
reference a link is tests/test_every_reference_linked.py.
"""
from __future__ import annotations

import pytest
from bs4 import BeautifulSoup


def soup(response):
    return BeautifulSoup(response.get_data(as_text=True), "html.parser")


def prevnext(client, path):
    nav = soup(client.get(path)).select_one("nav.prevnext")
    return {a["rel"][0]: a["href"] for a in nav.select("a[rel]")}


# -- 8: a card page's next and previous are cards -------------------------------------------------------------
def test_a_card_pages_next_is_the_next_card_not_its_own_first_ruling(client, store):
    """/futuresight/cards/magus-of-the-vineyard: "next" and j went to "Magus of the Vineyard, ruling 1"."""
    data = client.get("/api/records/futuresight/cards/magus-of-the-vineyard").get_json()
    assert (data["previous"]["id"], data["next"]["id"]) == ("futuresight/cards/magus-of-the-future",
                                                            "futuresight/cards/mesmeric-sliver")
    assert prevnext(client, "/futuresight/cards/magus-of-the-vineyard") == {
        "prev": "/futuresight/cards/magus-of-the-future", "next": "/futuresight/cards/mesmeric-sliver"}
    # every card of every document: its neighbours are the cards before and after it in the document, in order
    for doc in ("futuresight", "treachery"):
        cards = [r for r in (store.get(i) for i in store.order[doc]) if r is not None and r.kind == "card"]
        assert len(cards) > 20
        for before, card, after in zip([None, *cards[:-1]], cards, [*cards[1:], None], strict=True):
            data = client.get("/api/records/" + card.id).get_json()
            assert ((data["previous"] or {}).get("id"), (data["next"] or {}).get("id")) == (
                before and before.id, after and after.id), card.id


def test_a_ruling_page_still_walks_the_rulings(client):
    assert prevnext(client, "/futuresight/cards/magus-of-the-vineyard/1") == {
        "prev": "/futuresight/cards/magus-of-the-vineyard", "next": "/futuresight/cards/magus-of-the-vineyard/2"}


# -- 9: a history is headed with the rule's own words, and is offered where a reader starts ---------------------
def test_a_rule_history_is_headed_with_its_own_number_and_first_words(hclient):
    """/cr/903.8/history was headed "903.8 Commander — across releases": Commander is 903's title."""
    page = soup(hclient.get("/cr/903.8/history"))
    heading = page.select_one("h1").get_text()
    text = hclient.get("/api/records/cr/903.8").get_json()["text"]
    assert heading == "903.8 " + " ".join(text.split()[:8]) + " … — across releases"
    assert "Commander" not in heading
    assert hclient.get("/api/cr/903.8/history").get_json()["first_words"] == heading[6:-len(" — across releases")]
    links = {a.get_text(): a["href"] for a in page.select("p.under a")}
    assert links == {"903 Commander": "/cr/903", "today's text": "/cr/903.8", "every release": "/cr/releases"}
    assert soup(hclient.get("/cr/702.19/history")).select_one("h1").get_text() == "702.19 Trample — across releases"


def test_the_home_page_and_every_official_rules_page_offer_its_history_and_the_releases(hclient):
    home = soup(hclient.get("/"))
    hrefs = [a["href"] for a in home.select("ul.history-links a")]
    assert "/cr/releases" in hrefs and any(h.endswith("/history") for h in hrefs)
    for number in ("702.19b", "903.8", "100.1", "702"):
        page = soup(hclient.get(f"/cr/{number}"))
        top = page.select_one("article p.history-links")
        assert [a["href"] for a in top.select("a")] == [f"/cr/{number}/history", "/cr/releases"]
        # at the top: before the rule's text, not at the page's foot
        order = [el.get("class", [el.name])[0] for el in page.select("article > p, article > div.text")]
        assert order.index("history-links") < order.index("text") if "text" in order else True


def test_without_the_history_no_page_offers_it(cr_client):
    assert soup(cr_client.get("/")).select("ul.history-links") == []
    assert soup(cr_client.get("/cr/702.19b")).select("p.history-links") == []


# -- 10: a rewritten query says so in plain words ------------------------------------------------------------
@pytest.mark.parametrize("query, means, said, instead", [
    ("wear off", "removed", "wear off", '"wear off"'),
    ("kill a creature", "destroy", "kill", '"kill" a creature'),
])
def test_a_rewrite_banner_says_what_was_searched_and_offers_the_readers_words(cr_client, query, means, said,
                                                                              instead):
    """It read "showing results for removed (for: wear off)"."""
    data = cr_client.get("/api/search", query_string={"q": query}).get_json()
    assert data["note"] == f"Searching for {means}, the rules' word for {said}"
    banner = soup(cr_client.get("/search", query_string={"q": query})).select_one("p.note.rewritten")
    assert " ".join(banner.get_text().split()) == (
        f"Searching for {means}, the rules' word for {said} — search for {said} instead")
    assert [e.get_text() for e in banner.select("em")] == [means, said, said]
    url = banner.select_one("a.instead")["href"]
    assert url == data["rewritten"]["instead_url"]
    # the search it offers is searched in the reader's words: no rewrite, no banner
    again = cr_client.get(url.replace("/search", "/api/search")).get_json()
    assert again["query"] == instead and again["rewritten"] is None and "rules' word" not in (again["note"] or "")


# -- 14: an identity card the document does not print says so ------------------------------------------------
def test_an_identity_card_page_says_its_text_is_not_in_the_document_and_links_the_source(client, store):
    """/treachery/cards/the-metamorph showed notes and no card, with nothing said of the gap."""
    source = store.document("treachery")["source_url"]
    cards = [r for r in store.records.values() if r.kind == "card"]
    for card in cards:
        page = soup(client.get("/" + card.id))
        said = page.select_one("p.not-printed")
        printed = bool(card.type_line or card.mana_cost or card.rules_text)
        assert client.get("/api/records/" + card.id).get_json()["card_text_printed"] is printed, card.id
        assert (said is None) == printed, card.id
        if said is not None:
            assert said.get_text().startswith("The card's text is not part of the Treachery rules document")
            assert said.select_one("a.source-document")["href"] == source
    assert sum(1 for c in cards if c.doc == "treachery") == 54
    assert soup(client.get("/treachery/cards/the-metamorph")).select_one("p.not-printed") is not None
    assert client.get("/api/records/treachery/907.4b").get_json()["card_text_printed"] is None  # not a card


# -- 13: every long build step says where it is -----------------------------------------------------------------
def test_a_long_step_off_a_terminal_prints_a_line_every_few_seconds():
    """"matching rules across 62 official releases ..." ran ~9 s with nothing after it."""
    import io
    import time

    from web.progress import Progress

    out = io.StringIO()
    with Progress(out, tty=False, every=0.2) as shown:
        shown.step("matching rules across 62 official releases ...")
        shown.tick(31, 62)
        time.sleep(0.7)
        shown.step("a short step")
        shown.tick(1, 2)
    lines = out.getvalue().splitlines()
    assert lines[0] == "  matching rules across 62 official releases ..."
    periodic = [line for line in lines if line.startswith("  matching rules across 62 official releases ... 31/62 (")]
    assert len(periodic) >= 2 and lines[len(periodic) + 1:] == ["  a short step"]  # a quick step: its line alone


def test_a_long_step_on_a_terminal_draws_a_bar_in_place():
    import io
    import time

    from web.progress import Progress

    out = io.StringIO()
    with Progress(out, tty=True, every=5) as shown:
        shown.step("indexing 5,336 records for search ...")
        time.sleep(0.15)  # redrawn at most ten times a second
        shown.tick(2668, 5336)
        shown.tick(5336, 5336)
    drawn = out.getvalue()
    assert "\r\x1b[2K  indexing 5,336 records for search ... [##########----------] 2,668/5,336" in drawn
    assert "[####################] 5,336/5,336, finishing" in drawn  # counted, still merging: says so
    assert drawn.endswith("\n") and drawn.count("\n") == 1


def test_kb_build_shows_the_index_step_going(cr_build):
    """The index was the longest silent step (~30 s with the official rules on a busy machine)."""
    _, done = cr_build
    steps = [line for line in done.stderr.splitlines() if line.startswith("  indexing 5,336 records for search ...")]
    assert steps[0] == "  indexing 5,336 records for search ..."
    counted = [line for line in steps if "/5,336 (" in line]
    assert counted, done.stderr  # the step takes more than 2 s anywhere: at least one line says how far it is


@pytest.mark.slow
def test_matching_the_releases_says_each_one_matched(cr_releases):
    from ingest.history import Lineages

    heard: list[tuple[int, int]] = []
    Lineages.build(cr_releases, tick=lambda done, total: heard.append((done, total)))
    assert heard == [(n, 62) for n in range(1, 63)] and len(cr_releases) == 62


def test_reading_the_releases_says_each_one_read(tmp_path):
    import shutil

    from ingest.releases import load_releases
    from tests.conftest import CR_HISTORY

    files = sorted(CR_HISTORY.glob("MagicCompRules_*.txt"))[:2] if CR_HISTORY.is_dir() else []
    if not files:
        pytest.skip("no official releases in ../shared/cr/history")
    for f in files:
        shutil.copy(f, tmp_path / f.name)
    read: list[tuple[int, int]] = []
    load_releases(tmp_path, tick=lambda done, total: read.append((done, total)))
    assert read == [(1, 2), (2, 2)]
