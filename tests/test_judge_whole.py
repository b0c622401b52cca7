"""The whole official rules on one page (issue 32, item 11): /cr/all and /cr@DATE/all, on the real corpus."""
from __future__ import annotations

import gzip
import re

from bs4 import BeautifulSoup


def _html(answer) -> str:
    data = answer.get_data()
    return (gzip.decompress(data) if answer.headers.get("Content-Encoding") == "gzip" else data).decode()


def test_every_rule_and_glossary_entry_of_the_loaded_release_is_on_one_page(cr_client, cr_store):
    answer = cr_client.get("/cr/all")
    assert answer.status_code == 200 and answer.mimetype == "text/html"
    page = BeautifulSoup(_html(answer), "html.parser")
    anchors = {e["id"] for e in page.select("[id]")}
    records = [r for r in cr_store.records.values() if r.doc == "cr"]
    assert {r.id.split("/", 1)[1] for r in records} - anchors <= {"cr"}  # every rule and entry has its anchor
    assert len(page.select(".doc-text .rule")) == sum(r.kind != "glossary" for r in records)
    assert len(page.select("dl.glossary dt")) == sum(r.kind == "glossary" for r in records)
    # every reference is a link: one per place a record's text or example cites (a range, "603.7d–f", is one);
    # a rule's, within the page (a range's to its first rule); a card's (an example's Tarmogoyf), to its page
    refs = [str(a["href"]) for a in page.select("a.ref")]
    assert len(refs) == len({(r.id, ref.field, ref.start) for r in records for ref in r.refs
                             if ref.field == "text" or ref.field.startswith("examples[")})
    outside = [h for h in refs if not h.startswith("#")]
    assert all(h[1:] in anchors for h in refs if h.startswith("#"))
    assert outside and all(cr_store.get(h.lstrip("/")).kind == "card" for h in outside)
    text = page.select("[id='702.19b']")[0].get_text(" ")
    assert "trample first assigns damage" in text


def test_the_page_is_made_once_per_build_and_sent_compressed(cr_client):
    app = cr_client.application
    first = cr_client.get("/cr/all", headers={"Accept-Encoding": "gzip"})
    assert first.headers["Content-Encoding"] == "gzip" and first.headers["ETag"]
    assert len(first.get_data()) < len(_html(first)) / 3
    kept = app.extensions["kb"].current().derived.get("whole:cr", lambda: None)  # kept with the opened build
    assert kept is not None and kept.gz == first.get_data()
    again = cr_client.get("/cr/all", headers={"Accept-Encoding": "gzip"})
    assert again.get_data() == first.get_data()
    gzip = {"Accept-Encoding": "gzip"}
    assert cr_client.get("/cr/all", headers={"If-None-Match": first.headers["ETag"], **gzip}).status_code == 304
    plain = cr_client.get("/cr/all")
    assert "Content-Encoding" not in plain.headers and plain.get_data().startswith(b"<!doctype html>")
    # each encoding its own validator: a cache revalidating the gzipped copy for a client without gzip was told 304
    # (and gave that client bytes it cannot read)
    assert plain.headers["ETag"] != first.headers["ETag"]
    for etag, headers, status in [(first.headers["ETag"], {}, 200), (plain.headers["ETag"], gzip, 200),
                                  (plain.headers["ETag"], {}, 304)]:
        again = cr_client.get("/cr/all", headers={"If-None-Match": etag, **headers})
        assert again.status_code == status, (etag, headers)
        assert status == 304 or again.get_data() == (first.get_data() if headers else plain.get_data())


def test_the_rules_page_leads_to_it(cr_client):
    page = BeautifulSoup(cr_client.get("/cr").get_data(as_text=True), "html.parser")
    assert [a["href"] for a in page.select(".whole-link a")] == ["/cr/all"]


def test_the_page_carries_no_address_a_client_chose(cr_client):
    html = _html(cr_client.get("/cr/all", headers={"Host": "evil.example"}))
    assert "evil.example" not in html


def test_without_the_official_rules_there_is_no_whole_page(client):
    assert client.get("/cr/all").status_code == 404


def test_a_release_as_it_stood_is_one_page_too(hclient):
    answer = hclient.get("/cr@2019-01-25/all")
    assert answer.status_code == 200
    html = _html(answer)
    page = BeautifulSoup(html, "html.parser")
    assert "as of 2019-01-25" in page.select("h1")[0].get_text()
    trample = page.select_one("[id='702.19b']")
    assert trample is not None and "trample" in trample.get_text()
    anchors = {e["id"] for e in page.select("[id]")}
    refs = [str(a["href"]) for a in page.select("a.ref")]
    # as they stood that day, within the page (a range goes to its choice page, /r/702.19b-c@2019-01-25)
    assert refs and sum(h.startswith("#") and h[1:] in anchors for h in refs) > 0.95 * len(refs)
    assert not re.search(r'href="/cr@[^"]*/\d', html)
    assert "glossary is not part of the rules' history" in page.get_text(" ")
    assert hclient.get("/cr@2016-02-30/all").status_code == 400
    assert hclient.get("/cr@1990-01-01/all").status_code == 404


def test_a_dated_page_needs_the_history(cr_client):
    assert cr_client.get("/cr@2019-01-25/all").status_code == 404
