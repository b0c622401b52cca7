"""Defects an exploratory judge found in the site and API (short links, labels, counts, pagination, glossary).

Each test names what the judge saw."""
from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from bs4 import BeautifulSoup

from kb.ids import record_url


def soup(response):
    return BeautifulSoup(response.get_data(as_text=True), "html.parser")


# -- 1, 2: a short link reaches the record it is on ----------------------------------------------
def test_every_short_link_resolves_to_its_record(cr_client):
    """/r/5 was "'5' is not a rule reference"; /treachery/116's /r/116 was an "is in 2 documents" choice."""
    from web import data as D

    app = cr_client.application
    with app.app_context():
        kb = app.extensions["kb"].current()
        links = [(r.id, D.short_link(kb, r, kb.store.label(r))) for r in kb.store.records.values()]
    links = [(rid, short) for rid, short in links if short]
    assert len(links) > 4000
    wrong = []
    for rid, short in links:
        response = cr_client.get(short)
        where = response.headers.get("Location")
        if response.status_code != 302 or urlsplit(where).path != record_url(rid):
            wrong.append((rid, short, response.status_code, where))
    assert wrong == []


# A number two documents use carries its document as the record's address writes it: /r/cr/702.187c, not
# /r/CR%20702.187c (shown and copied with an escaped space); the old forms still resolve.
@pytest.mark.parametrize("record, short, old", [
    ("/cr/5", "/r/5", None), ("/treachery/7", "/r/treachery/7", "/r/treachery%20rule%207"),
    ("/treachery/116", "/r/treachery/116", "/r/treachery%20116"), ("/cr/116", "/r/cr/116", "/r/CR%20116"),
    ("/cr/702.187c", "/r/cr/702.187c", "/r/CR%20702.187c"),
    ("/futuresight/502.4", "/r/futuresight/502.4", "/r/futuresight%20502.4"), ("/treachery/907.4b", "/r/907.4b", None),
    # sections, notes and glossary entries had "Copy for chat" and no short link (a judge)
    ("/uncommander/token-cards", "/r/token-cards", None),
    ("/futuresight/notes/cycle-pacts", "/r/futuresight/notes/cycle-pacts", None),
    ("/cr/glossary/commander", "/r/cr/glossary/commander", None),
])
def test_the_page_shows_its_short_link(cr_client, record, short, old):
    page = soup(cr_client.get(record))
    assert page.select_one("a.short-link")["href"] == short
    assert page.select_one("button.copy-short")["data-copy"] == "http://localhost" + short
    assert cr_client.get(short).headers["Location"] == record
    if old:
        assert cr_client.get(old).headers["Location"] == record


def test_no_short_link_has_an_escaped_space(cr_client):
    from web import data as D

    app = cr_client.application
    with app.app_context():
        kb = app.extensions["kb"].current()
        shorts = [D.short_link(kb, r, kb.store.label(r)) for r in kb.store.records.values()]
    assert [s for s in shorts if s and "%" in s] == []


def test_a_bare_chapter_number_is_the_chapter_when_one_document_has_it(cr_client):
    assert cr_client.get("/r/5").headers["Location"] == "/cr/5"
    choice = cr_client.get("/r/7")  # the official rules' chapter 7 and Treachery's
    assert choice.status_code == 200 and "which document" in soup(choice).title.get_text()


def test_cr_prefix_names_the_official_rules(cr_client, client):
    assert cr_client.get("/r/CR%20702.187c").headers["Location"] == "/cr/702.187c"
    body = cr_client.get("/api/resolve", query_string={"ref": "CR 702.187c"}).get_json()
    assert [m["id"] for m in body["matches"]] == ["cr/702.187c"]
    # Without the official rules, "CR 907.4b" is still Treachery's (it calls itself the rules).
    assert client.get("/r/CR%20702.187c").headers["Location"] == "/treachery/702.187c"
    # With them, it opens Treachery's 907.4b saying the official rules have none (test_official)
    assert cr_client.get("/r/CR%20907.4b").headers["Location"] == "/treachery/907.4b?from=CR+907.4b"


# -- 8 ------------------------------------------------------------------------------------------
def test_openapi_json_at_the_root_redirects_to_the_api_document(client):
    response = client.get("/openapi.json")
    assert response.status_code == 301 and response.headers["Location"] == "/api/openapi.json"
    assert client.get("/openapi.json", follow_redirects=True).get_json()["openapi"]


# -- 4 ------------------------------------------------------------------------------------------
def test_a_removed_rule_names_its_document(cr_client):
    page = soup(cr_client.get("/r/314.8"))
    assert "Treachery rule 314.8 was removed as it is already in 702.187d (version 4.0)" in page.get_text(" ")
    note = cr_client.get("/api/resolve", query_string={"ref": "314.8"}).get_json()["note"]
    assert note.startswith("Treachery rule 314.8 was removed")


# -- 7 ------------------------------------------------------------------------------------------
def test_the_home_page_and_the_releases_count_the_same_rules(hclient):
    """The home page said 3,309 rules for the 2026-08-07 release, /cr/releases 3,318 (its 9 chapters too)."""
    cr = next(d for d in hclient.get("/api/documents").get_json() if d["slug"] == "cr")
    releases = hclient.get("/api/cr/releases").get_json()["releases"]
    current = next(r for r in releases if r["effective"] == cr["effective"])
    assert current["rules"] == cr["counts"]["rule"]
    table = soup(hclient.get("/cr/releases")).select_one("table.releases")
    row = table.find("time", string=cr["effective"]).parent.parent
    assert f"{cr['counts']['rule']} rules" in soup(hclient.get("/")).get_text(" ")
    assert str(cr["counts"]["rule"]) in [td.get_text() for td in row.find_all("td")]


# -- 6: labels ----------------------------------------------------------------------------------
def test_a_hit_version_has_one_pair_of_brackets(client):
    hits = client.get("/api/search", query_string={"q": "lhurgoyf creature type"}).get_json()["results"]
    fs = next(h for h in hits if h["doc"] == "futuresight")
    assert fs["version"] == "last modified March 25, 2007, effective 2007-05-04"
    page = soup(client.get("/search", query_string={"q": "lhurgoyf creature type"}))
    # the label fits one line on a phone (issue 32, item 5): the document's short name and date, its title and
    # version (in one pair of brackets) on hover
    meta = next(m for m in page.select(".hit .meta") if m.get_text().startswith("Future Sight"))
    assert meta.get_text() in {"Future Sight 2007-05-04 · ruling", "Future Sight 2007-05-04 · card"}
    assert meta["title"] == "Future Sight FAQ (last modified March 25, 2007, effective 2007-05-04)"


@pytest.mark.parametrize("url", ["/", "/uncommander", "/uncommander/terminology", "/uncommander/token-cards/j"])
def test_an_undated_document_shows_no_effective_date(client, url):
    text = soup(client.get(url)).get_text(" ")
    assert "effective undated" not in text and "Version effective" not in text


def test_one_rule_is_one_rule(client):
    assert client.get("/api/resolve", query_string={"ref": "rule 115"}).get_json()["what"] == "rule 115: 1 rule"
    assert soup(client.get("/r/314.8")).title.get_text() == "314.8 — no rules"


def test_a_text_of_one_release_says_so(hclient):
    text = soup(hclient.get("/cr@2016-07-22/716.2")).get_text(" ")
    assert "this text in the 2016-07-22 release only" in text and "from 2016-07-22 to 2016-07-22" not in text


def test_a_moved_rule_says_its_number_held_the_text_and_where_else_it_stood(hclient):
    # /cr@2016-07-22/716.2 said "this text in the 2016-07-22 release only" of a text that stood as 714.2 before and
    # as 717.2 ... 727.2 after: it is the number that held it once
    page = soup(hclient.get("/cr@2016-07-22/716.2"))
    meta = page.select_one("p.effective")
    text = " ".join(meta.get_text(" ").split())
    assert "716.2 held this text in the 2016-07-22 release only; the rule moved, and the same text stood as " \
           "714.2 (2015-01-23), 717.2 (2016-08-26 to 2017-09-29), 718.2 (2018-07-13 to 2019-08-23)," in text
    assert text.endswith("727.2 (2026-04-17 to 2026-08-07).")
    links = {a.get_text(): a["href"] for a in meta.select("a")}
    assert links["714.2"] == "/cr@2015-01-23/714.2" and links["727.2"] == "/cr@2026-04-17/727.2"
    assert "716.2" not in links
    for href in list(links.values())[:3]:
        assert hclient.get(href).status_code == 200
    elsewhere = hclient.get("/api/cr@2016-07-22/716.2").get_json()["elsewhere"]
    assert elsewhere[0] == {"number": "714.2", "from": "2015-01-23", "to": "2015-01-23", "url": "/cr@2015-01-23/714.2"}
    # a rule that never moved says what it said
    unmoved = hclient.get("/api/cr@2021-02-15/107.2").get_json()
    assert unmoved["elsewhere"] == []
    assert "107.2 held" not in soup(hclient.get("/cr@2021-02-15/107.2")).get_text(" ")


def test_the_contents_say_what_their_counts_are_once(cr_client):
    text = soup(cr_client.get("/cr")).get_text(" ")
    assert "read with their text" not in text and text.count("how many it holds") == 1


def test_the_keywords_facet_has_a_title(client):
    labels = [f["label"] for f in client.get("/api/search?q=flying+ability").get_json()["filters"]["doc"]]
    assert "Keywords (all documents)" in labels and "keywords" not in labels


# -- 5: a page past the last ---------------------------------------------------------------------
@pytest.mark.parametrize("page", ["40", "9999"])
def test_a_page_past_the_last_says_so_and_links_the_last(cr_client, page):
    """'page 40 of 31' with a previous link to 39; page=9999 was 'offset must be between 0 and 10000'."""
    response = cr_client.get("/search", query_string={"q": "damage", "page": page})
    assert response.status_code == 200
    found = soup(response)
    pages = cr_client.get("/api/search", query_string={"q": "damage"}).get_json()["pagination"]["pages"]
    note = found.select_one(".past-end")
    assert note.get_text(" ", strip=True) == (f"There is no page {page}: the results end on page {pages}. "
                                             f"Go to page {pages} .")
    assert note.find("a")["href"] == f"/search?q=damage&page={pages}"
    assert f"of {pages}" not in found.get_text(" ")
    body = cr_client.get("/api/search", query_string={"q": "damage", "page": page}).get_json()
    assert body["results"] == [] and body["pagination"]["past_end"] is True
    assert body["pagination"]["previous"] == body["pagination"]["last"] == f"/search?q=damage&page={pages}"


def test_errors_name_the_argument_given(client):
    assert "offset" in client.get("/api/search?q=damage&offset=20000").get_json()["error"]["message"]
    assert "page" in client.get("/api/search?q=damage&page=0").get_json()["error"]["message"]
    last = client.get("/api/search?q=damage&page=2").get_json()["pagination"]
    assert last["past_end"] is False and last["page"] == 2


# -- 9 ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt, link", [
    ("markdown", "[Tarmogoyf](http://localhost/futuresight/cards/tarmogoyf)"),
    ("html", '<a href="http://localhost/futuresight/cards/tarmogoyf">Tarmogoyf</a>'),
])
def test_a_card_link_is_labelled_with_the_cards_name(client, fmt, link):
    text = "Per [[tarmogyof]] and [[the aetherist]]."
    body = client.post("/api/linkify", json={"text": text, "format": fmt}).get_json()
    assert link in body["text"] and "tarmogyof" not in body["text"]
    assert "The Ætherist" in body["text"]
    first = body["links"][0]  # the matched span is what was written
    assert first["match"] == "[[tarmogyof]]" and text[first["start"]:first["end"]] == first["match"]


# -- 3: a glossary index ------------------------------------------------------------------------
def test_a_glossary_index_per_document(cr_client, cr_store):
    """/cr/glossary was a 404; /cr listed 739 entries under no heading; an entry's breadcrumb was the document."""
    page = soup(cr_client.get("/cr/glossary"))
    entries = [r for r in cr_store.by_doc("cr") if r.kind == "glossary"]
    links = page.select("dl.glossary dt a")
    assert len(links) == len(entries) > 700
    labels = [a.get_text() for a in links]
    assert labels == sorted(labels, key=str.casefold)
    assert links[0]["href"] == "/cr/glossary/abandon"
    assert page.select_one("dl.glossary dd").get_text().startswith("To turn a face-up ongoing scheme card face down")
    twin = cr_client.get("/api/documents/cr/glossary").get_json()
    assert [e["label"] for e in twin["entries"]] == labels
    assert cr_client.get("/cr/glossary", headers={"Accept": "application/json"}).get_json() == twin
    assert page.find("link", rel="alternate")["href"] == "/api/documents/cr/glossary"
    assert [a.get_text() for a in soup(cr_client.get("/treachery/glossary")).select("dl.glossary dt a")] == [
        "Reminder: 104.2c", "Reminder: 104.3g", "Team", "Teammate"]
    assert cr_client.get("/futuresight/glossary").status_code == 404  # no glossary there
    assert cr_client.get("/api/documents/futuresight/glossary").status_code == 404


@pytest.mark.parametrize("slug", ["cr", "treachery"])
def test_a_glossary_shows_each_entry_whole_with_its_references_linked(cr_client, cr_store, slug):
    """A tester on a phone: /cr/glossary showed Ability as "1. Text on an object..." only (its meaning 2 and
    "See rule 113" cut), and no reference was a link ("See rule 701.33" under Abandon was plain text)."""
    page = soup(cr_client.get(f"/{slug}/glossary"))
    shown = {dt.a["href"]: dt.find_next_sibling("dd") for dt in page.select("dl.glossary dt")}
    entries = [r for r in cr_store.by_doc(slug) if r.kind == "glossary"]
    assert len(shown) == len(entries) and sum(len(r.refs) for r in entries) > 4
    twin = {e["id"]: e for e in cr_client.get(f"/api/documents/{slug}/glossary").get_json()["entries"]}
    for r in entries:
        # the entry's text as its own page shows it, its references linked the same way
        record_page = soup(cr_client.get(record_url(r.id))).select_one("article .text")
        assert shown[record_url(r.id)].decode_contents() == record_page.decode_contents(), r.id
        assert twin[r.id]["text"] == r.text and [x["target"] for x in twin[r.id]["refs"]] == [
            x.target for x in r.refs if x.field == "text"]
    if slug == "cr":
        ability = shown["/cr/glossary/ability"]
        assert "2. An activated or triggered ability on the stack." in ability.get_text()
        assert [(a.get_text(), a["href"]) for a in ability.select("a.ref")] == [
            ("rule 113", "/cr/113"), ("section 6", "/cr/6")]
        assert [(a.get_text(), a["href"]) for a in shown["/cr/glossary/abandon"].select("a.ref")] == [
            ("rule 701.33", "/cr/701.33")]
    else:
        # its entries are the official glossary's: their rules are the official ones (loaded here)
        assert [a["href"] for a in shown["/treachery/glossary/team"].select("a.ref")] == [
            "/cr/808", "/cr/809", "/cr/810", "/cr/811"]


def test_the_document_heads_its_glossary_and_an_entry_has_it_in_its_breadcrumbs(cr_client):
    page = soup(cr_client.get("/cr"))
    heading = page.find("h2", id="glossary")
    assert heading is not None and heading.get_text() == "Glossary"
    assert heading.find_next("p").find("a")["href"] == "/cr/glossary"
    assert not [a for a in page.select("nav.toc")[0].select("a") if a["href"].startswith("/cr/glossary/")]
    assert cr_client.get("/api/documents/cr").get_json()["glossary"]["url"] == "/cr/glossary"
    crumbs = [a["href"] for a in soup(cr_client.get("/cr/glossary/abandon")).select(".breadcrumbs a")]
    assert crumbs == ["/cr", "/cr/glossary"]
    assert cr_client.get("/api/records/cr/glossary/abandon").get_json()["breadcrumbs"][0]["url"] == "/cr/glossary"


def test_a_history_entry_says_which_version_its_text_is_from(client):
    # "Version 1.0 (2016-12-09)" showed "Version effective 2024-10-01", read as that version's date
    effective = soup(client.get("/treachery/history/1-0")).select_one("p.effective")
    assert effective is not None and effective.get_text(" ").startswith("As in Treachery Comprehensive Rules (4.0),")


def test_a_note_that_quotes_rules_says_so_over_its_list(client):
    # the 2007 FAQ's quoted rules 502.4 and 502.70 were listed under "Rulings"
    heading = soup(client.get("/futuresight/notes/new-keyword-ability-reach")).select_one("section.children h2")
    assert heading is not None and heading.get_text() == "Rules it quotes, and rulings"
    plain = soup(client.get("/futuresight/notes/cycle-pacts")).select_one("section.children h2")
    assert plain is not None and plain.get_text() == "Rulings"


def test_previews_drop_emphasis_marks_and_keep_blanks(cr_client):
    # og:description kept the FAQ's *be*; a blank to fill in ("Wolf in ________ Clothing", "See ___") lost its line
    from web.render import preview

    store = cr_client.application.extensions["kb"].current().store
    assert "*" not in preview(store.records["futuresight/cards/yixlid-jailer/7"], 2000)
    assert "“Wolf in ________ Clothing,”" in preview(store.records["cr/123.6a"], 2000)
    assert preview(store.records["uncommander/watermarks/b"], 2000).endswith("See ___")
    assert "for Combine and combined" in preview(store.records["uncommander/host-and-augment/c"], 2000)


def test_a_range_unfurls_with_its_first_rule_s_words(cr_client):
    # "510.1c-d: 2 rules" was all a chat unfurl said
    page = BeautifulSoup(cr_client.get("/r/510.1c-d").get_data(as_text=True), "html.parser")
    meta = page.select_one('meta[property="og:description"]')
    assert meta is not None
    assert str(meta["content"]).startswith("510.1c-d: 2 rules — 510.1c: A blocked creature assigns its combat damage")


# -- session 11: a heading whose own text is only a translation line ------------------------------
def test_a_translation_line_alone_is_never_a_snippet_or_a_preview(cr_client, cr_store):
    """The first hit for "Unveil" (with the official rules loaded) is Treachery's 702.187 Unveil, and its snippet
    was only 'French: "Dévoilement."': it shows its first sub-rule, as its page's preview does."""
    from web.render import translation

    translated = [r for r in cr_store.records.values() if translation(r.text)]
    assert [r.id for r in translated] == ["treachery/702.187"]
    api = cr_client.get("/api/search?q=Unveil").get_json()["results"][0]
    assert api["id"] == "treachery/702.187" and api["snippet"].startswith("Unveil is a static ability")
    page = soup(cr_client.get("/search?q=Unveil&noredirect=1"))
    assert page.select_one(".snippet").get_text().startswith("Unveil is a static ability")
    # the search for its number leads with it (a hit of its own, not a match of its words)
    lead = cr_client.get("/api/search?q=treachery%20702.187&noredirect=1").get_json()["results"][0]
    assert lead["id"] == "treachery/702.187" and lead["snippet"].startswith("Unveil is a static ability")
    # matched by its translation line alone, the hit shows that line marked, then the sub-rule's words
    french = cr_client.get("/api/search?q=d%C3%A9voilement&noredirect=1").get_json()["results"][0]
    assert french["id"] == "treachery/702.187"
    assert french["snippet"].startswith("French: &quot;<mark>Dévoilement</mark>.&quot; Unveil is a static ability")
    # what the page previews (og:description, its twin's summary, the choice page's) already said the sub-rule
    record = soup(cr_client.get("/treachery/702.187"))
    og = record.find("meta", property="og:description")["content"]
    assert og.startswith("702.187a Unveil is a static ability")
    assert cr_client.get("/api/records/treachery/702.187").get_json()["summary"].startswith("702.187a Unveil")
    both = cr_client.get("/api/resolve?ref=702.187").get_json()["matches"]
    assert [m["summary"][:24] for m in both if m["doc"] == "treachery"] == ["702.187a Unveil is a sta"]
    # completions are labels only
    assert not any("Dévoilement" in str(c) for c in cr_client.get("/api/autocomplete?q=unveil").get_json())


# -- session 12: a keyword whose first sub-rule says only what kind of ability it is ----------------
def test_only_a_kind_of_ability_is_read_on_past():
    from kb.snippet import leading, only_kind

    assert only_kind("Hexproof is a static ability.") and only_kind("Menace is an evasion ability.")
    assert only_kind("Goad is a keyword action.") and not only_kind("Trample is a static ability that modifies …")
    assert not only_kind("Ward is a triggered ability. Ward [cost] means …") and not only_kind(None)
    texts = ["Menace is an evasion ability.", "A creature with menace can’t be blocked …", "A third."]
    assert leading(texts, str) == texts[:2] and leading(texts[1:], str) == texts[1:2] and leading([], str) == []
    assert leading(texts[:1], str) == texts[:1]  # nothing after it to read


def test_a_keyword_heading_previews_what_the_keyword_does(cr_client):
    """/cr/702.11 (and a hover on a link to it, a chat unfurl, the API's summary) said "702.11a Hexproof is a static
    ability." and no more: the preview reads on into 702.11b, which says what hexproof does."""
    does = "This permanent can’t be the target of spells or abilities your opponents control."
    og = soup(cr_client.get("/cr/702.11")).find("meta", property="og:description")["content"]
    assert og.startswith("702.11a Hexproof is a static ability. 702.11b") and does[:40] in og
    assert does in cr_client.get("/api/records/cr/702.11").get_json()["summary"]
    short = soup(cr_client.get("/r/702.111", follow_redirects=True)).find("meta", property="og:description")["content"]
    assert "can’t be blocked except by two or more creatures" in short
    # a heading whose first sub-rule says what it does previews that one alone
    trample = cr_client.get("/api/records/cr/702.19").get_json()["summary"]
    assert trample.startswith("702.19a Trample is a static ability that modifies") and "702.19b" not in trample


def test_a_lettered_item_previews_with_its_bracket(client):
    """/uncommander/token-cards previewed as "Token Cards: a Some effects put token cards ...": the item reads "a)", as
    its document prints it."""
    og = soup(client.get("/uncommander/token-cards")).find("meta", property="og:description")["content"]
    assert og.startswith("a) Some effects put token cards")
