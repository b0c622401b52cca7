"""Every rule reference on every page is a link (issue 32, item 6).

/keywords/trample's "in full" list printed "rule 702.19b", "rule 506.4c" and "See rule 510" as plain text. The walk
reads every page of a build with the official rules (every record, every document's contents, the keyword and
glossary lists, the home page) and asks the linkifier (kb.linkify, what /api/linkify and the Discord bot use) about
each run of text outside a link: any reference it would link is a failure. Left out: a page's own heading, code,
and what the page marks as a reference no loaded document has (``<span class="ref unresolved">``: the 2007 FAQ's
"rule 309" is a 2007 number, said so in its title).
"""
from __future__ import annotations

from html.parser import HTMLParser

import pytest
from bs4 import BeautifulSoup

from kb.linkify import linkify

# What is not running text a reader could want linked: links themselves, the head, code, the page's own heading,
# dates and buttons (a "Copy for chat" button's label).
_NOT_TEXT = {"a", "head", "script", "style", "code", "pre", "h1", "time", "textarea", "button"}
_VOID = {"br", "img", "input", "meta", "link", "hr", "wbr", "source", "col", "area", "base", "embed", "param", "track"}


class _Runs(HTMLParser):
    """The page's runs of text outside links, each run what lies between two tags."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.runs: list[str] = []
        self._run: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in _VOID:
            return
        self._end_run()
        unresolved = "unresolved" in (dict(attrs).get("class") or "").split()
        self.open.append("a" if unresolved else tag)

    def handle_endtag(self, tag):
        if tag in _VOID:
            return
        self._end_run()
        while self.open and self.open.pop() != tag:
            pass

    def handle_data(self, data):
        if not _NOT_TEXT.intersection(self.open):
            self._run.append(data)

    def _end_run(self) -> None:
        if self._run:
            self.runs.append("".join(self._run))
            self._run = []


def unlinked(kb, html: str) -> list[tuple[str, str]]:
    """(reference, its run of text) for each reference the linkifier links in the page's text outside links."""
    runs = _Runs()
    runs.feed(html)
    runs.close()
    runs._end_run()
    return [(link["match"], " ".join(run.split())[:120]) for run in runs.runs if any(c.isdigit() for c in run)
            for link in linkify(kb, run)["links"]]


@pytest.fixture(scope="module")
def cr_kb(cr_data_dir):
    from web.app import create_app

    app = create_app({"KB_DATA": str(cr_data_dir), "TESTING": True})
    return app, app.extensions["kb"].current()


def test_the_walk_finds_an_unlinked_reference(cr_kb):
    """The check itself can fail: plain text naming a rule, outside a link, is found; inside a link it is not."""
    _, kb = cr_kb
    page = '<p>See rule 510, <a href="/cr/702.19b">rule 702.19b</a>, <span class="ref unresolved">rule 309</span>' \
           '</p><h1>702.19 Trample</h1>'
    assert unlinked(kb, page) == [("rule 510", "See rule 510,")]


def test_trample_in_full_links_its_references(cr_kb):
    app, _ = cr_kb
    page = BeautifulSoup(app.test_client().get("/keywords/trample").get_data(as_text=True), "html.parser")
    links = {a.get_text(): a["href"] for a in page.select("section.in-full .child-text a")}
    assert {"rule 702.19b": "/cr/702.19b", "rule 506.4c": "/cr/506.4c", "rule 510": "/cr/510"}.items() <= links.items()
    assert [a["href"] for a in page.select("section.in-full h2 a")] == ["/cr/702.19"]


@pytest.mark.slow
def test_every_reference_on_every_page_is_a_link(cr_kb):
    app, kb = cr_kb
    client = app.test_client()
    pages = ["", "keywords", "cr/glossary", *(d["slug"] for d in kb.store.documents), *kb.store.records]
    found = {}
    for path in pages:
        response = client.get("/" + path)
        assert response.status_code == 200, path
        bad = unlinked(kb, response.get_data(as_text=True))
        if bad:
            found[path] = bad
    assert len(pages) > 5000
    assert found == {}
