"""Every page's JSON twin carries everything the page shows (issue 15, one JSON vocabulary).

A page names its twin in ``<link rel="alternate" type="application/json">``, and its own URL asked with
``Accept: application/json`` answers the same. For a sample of real
pages of every kind, each link in the page's ``<main>`` must be a URL of the twin, and each word the
page shows must be a word of the twin, unless it is one of the pages' own words: those of the
templates and of the modules that word the pages (web/pages.py, web/history.py, web/render.py).
Nothing here names what a page should show; it is read from the page and looked up in its twin.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

import pytest
from bs4 import BeautifulSoup

from kb.ids import record_url
from kb.model import Record
from kb.words import stems

WEB = Path(__file__).resolve().parent.parent / "web"
OWN_SOURCES = [*sorted((WEB / "templates").glob("*.html")), WEB / "pages.py", WEB / "history.py", WEB / "render.py"]
OWN_TEXT = "\n".join(p.read_text(encoding="utf-8") for p in OWN_SOURCES)
OWN_WORDS = set(stems(OWN_TEXT))
URL = re.compile(r"https?://\S+")
# Links every page of a kind carries whatever the data (to the site's own pages, written in the templates).
OWN_LINKS = set(re.findall(r'href="(/[^"{}]*)"', OWN_TEXT))
# The examples under the search box are the site's, the same on every page that offers them (pages.EXAMPLES).
CHROME = ".examples"


def values(obj) -> Iterator[str]:
    """Every string and number in a JSON value, and its keys (a facet's keys are its values)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield str(k)
            yield from values(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from values(v)
    elif obj is not None and not isinstance(obj, bool):
        yield str(obj)


def normal(url: str) -> tuple[str, tuple]:
    """A URL as a path and its query pairs, however it was quoted."""
    parts = urlsplit(url)
    return parts.netloc + unquote(parts.path), tuple(sorted(parse_qsl(parts.query)))


def twin_of(client, url: str):
    response = client.get(url)
    assert response.status_code in (200, 404), (url, response.status_code)
    page = BeautifulSoup(response.get_data(as_text=True), "html.parser")
    link = page.find("link", rel="alternate", type="application/json")
    assert link is not None, url
    alternate = link["href"]
    answer = client.get(alternate)
    assert answer.status_code == response.status_code and answer.is_json, (url, alternate, answer.status_code)
    # The page's own URL asked for JSON is the same twin.
    asked = client.get(url, headers={"Accept": "application/json"})
    assert (asked.status_code, asked.get_json()) == (answer.status_code, answer.get_json()), url
    # ... readable from any origin, like its /api twin, and cached apart from the HTML by Accept.
    assert asked.headers["Access-Control-Allow-Origin"] == answer.headers["Access-Control-Allow-Origin"] == "*", url
    assert "Accept" in asked.headers["Vary"] and "Accept" in response.headers["Vary"], url
    assert "Access-Control-Allow-Origin" not in response.headers, url  # the HTML page itself is not an API
    return page, answer.get_json()


def check_twin(client, url: str) -> None:
    page, data = twin_of(client, url)
    main = page.find("main")
    for chrome in main.select(CHROME):
        chrome.decompose()
    strings = list(values(data))
    urls = {normal(s) for s in strings if s.startswith(("/", "http://", "https://"))}
    for a in main.find_all("a", href=True):
        href = a["href"]
        if href.startswith("#") or href in OWN_LINKS:
            continue
        assert normal(href) in urls, f"{url}: the link {a.get_text(' ', strip=True)!r} -> {href} is not in its twin"
    shown = main.get_text(" ") + " " + " ".join(b["data-copy"] for b in main.select("[data-copy]"))
    shown += " " + " ".join(t["datetime"] for t in main.select("time[datetime]"))
    missing = set(stems(URL.sub(" ", shown))) - set(stems(" ".join(strings))) - OWN_WORDS
    assert not missing, f"{url}: the page shows words its twin lacks: {sorted(missing)[:20]}"


def sample(store, docs=None) -> list[str]:
    """Record pages of every kind in every document: the first of each, the most cited, one with definitions."""
    picked: dict[tuple[str, str], list] = {}
    for r in store.records.values():
        if docs is None or r.doc in docs:
            picked.setdefault((r.doc, r.kind), []).append(r)
    ids = set()
    for records in picked.values():
        ids.add(records[0].id)
        ids.add(max(records, key=lambda r: len(r.cited_by)).id)
        ids.update(r.id for r in records[:50] if any(ref.field == "definitions" for ref in r.refs))
    return sorted(record_url(i) for i in ids)


def test_record_pages(client, store):
    urls = sample(store)
    assert len(urls) > 20
    for url in urls:
        check_twin(client, url)


def test_document_home_keywords_and_choice_pages(client, store):
    for d in store.documents:
        check_twin(client, record_url(d["slug"]))
    check_twin(client, "/")
    check_twin(client, "/keywords")
    # A range of two rules has a choice page; its twin is /api/resolve.
    first, second = next(kids for r in store.records.values()
                         for kids in [[store.records[c] for c in r.children if store.records[c].number]]
                         if r.kind == "rule" and len(kids) > 1)[:2]
    check_twin(client, f"/r/{first.number}-{second.number}")


@pytest.mark.parametrize("query", [
    "identity card", "identity card&doc=treachery", "identity card&kind=ruling&page=2", "unvel morhp", "",
])
def test_search_pages(client, query):
    check_twin(client, "/search?q=" + query.replace(" ", "+"))


def test_official_rules_pages(cr_client, cr_store):
    for url in sample(cr_store, docs={"cr"}):
        check_twin(cr_client, url)
    check_twin(cr_client, "/cr")
    # A number in two documents (the official rules and a variant's) has a choice page.
    docs: dict[str, set[str]] = {}
    for r in cr_store.records.values():
        docs.setdefault(r.number or "", set()).add(r.doc)
    check_twin(cr_client, "/r/" + next(n for n, d in docs.items() if n and len(d) > 1))


def test_history_pages(hclient):
    releases = hclient.get("/api/cr/releases").get_json()["releases"][::-1]  # oldest first
    pages = [f"/cr@{releases[0]['effective']}/100.1", "/cr/100.1/history", "/cr/releases",
             f"/diff/cr/{releases[-2]['effective']}..{releases[-1]['effective']}", "/cr/702.19", "/treachery/907.4b"]
    pages += ["/treachery/cards/the-metamorph/5", "/uncommander/put-outside-the-game",
              "/uncommander/merge-mutate-and-combined-permanents"]
    for url in pages:
        check_twin(hclient, url)


def test_the_openapi_document_names_every_field(client, store):
    """The twins' fields are documented: a record's beyond the model's own, every field of search and resolve."""
    schemas = client.get("/api/openapi.json").get_json()["components"]["schemas"]
    named = {name: set(schema.get("properties", {})) | set(schema.get("required", ()))
             for name, schema in schemas.items()}
    model = {f.name for f in fields(Record)}
    for url in sample(store)[:40]:
        record = client.get("/api/records" + url).get_json()
        assert set(record) - model <= named["Record"], url
    for q in ("identity card", "unvel morhp", "907.4b"):
        assert set(client.get("/api/search", query_string={"q": q}).get_json()) <= named["SearchResults"], q
    assert set(client.get("/api/resolve?ref=907.3a-c").get_json()) <= named["Resolution"]
