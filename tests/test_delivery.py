"""Pages on a slow network (400 ms round trip, 400 kbps, measured by the eleventh session's tester): gzip for
text answers, the style sheet and script cached for good under versioned URLs, a busy page a phone can read."""
from __future__ import annotations

import gzip
from typing import Any

import pytest

GZIP = {"Accept-Encoding": "gzip, deflate, br"}


def _body(response) -> bytes:
    return gzip.decompress(response.data) if response.headers.get("Content-Encoding") == "gzip" else response.data


# -- 1. gzip --------------------------------------------------------------------------------------
@pytest.mark.parametrize("url, mimetype", [
    ("/cr/702", "text/html"),  # 304 KB, 6.5 s on the tester's network
    ("/cr/glossary", "text/html"),
    ("/cr", "text/html"),
    ("/cr/702.19b?from=702.19b", "text/html"),
    ("/search?q=deathtouch+and+trample", "text/html"),
    ("/api/search?q=deathtouch+and+trample", "application/json"),
    ("/api/records/cr/702", "application/json"),
    ("/api/documents/cr/records", "application/json"),
    ("/api/documents/cr/records?offset=1&limit=3", "application/json"),
    ("/no-such-page", "text/html"),  # a 404 page is a page
])
def test_text_answers_are_gzipped_when_the_client_asks(cr_client, url, mimetype):
    plain = cr_client.get(url)
    zipped = cr_client.get(url, headers=GZIP)
    assert plain.mimetype == zipped.mimetype == mimetype and plain.status_code == zipped.status_code
    assert "Content-Encoding" not in plain.headers
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in plain.headers["Vary"] and "Accept-Encoding" in zipped.headers["Vary"]
    assert int(zipped.headers["Content-Length"]) == len(zipped.data) < len(plain.data) / 2
    assert _body(zipped) == plain.data


def test_cr_702_is_a_sixth_of_its_size(cr_client):
    zipped = cr_client.get("/cr/702", headers=GZIP)
    assert len(zipped.data) < 60_000 and len(_body(zipped)) > 300_000  # 52 KB of 304 KB


@pytest.mark.parametrize("headers", [{}, {"Accept-Encoding": "gzip;q=0, deflate"}, {"Accept-Encoding": "br"},
                                     {"Accept-Encoding": "identity"}])
def test_no_gzip_unless_asked(cr_client, headers):
    assert "Content-Encoding" not in cr_client.get("/cr/702", headers=headers).headers
    for named in ("*", "GZip", "deflate, x-gzip;q=0.5, gzip"):  # any case, a wildcard, among others
        assert cr_client.get("/cr/702", headers={"Accept-Encoding": named}).headers["Content-Encoding"] == "gzip"


def test_never_a_head_a_small_answer_or_a_304(cr_client):
    head = cr_client.head("/cr/702", headers=GZIP)
    assert "Content-Encoding" not in head.headers and int(head.headers["Content-Length"]) > 300_000
    health = cr_client.get("/api/health", headers=GZIP)  # under 1 KB
    assert "Content-Encoding" not in health.headers and health.get_json()["ok"]
    with cr_client.get("/static/style.css", headers=GZIP) as style:
        etag = style.headers["ETag"]
    with cr_client.get("/static/style.css", headers={**GZIP, "If-None-Match": etag}) as again:
        assert again.status_code == 304 and "Content-Encoding" not in again.headers and again.data == b""
    # each encoding its own validator: the gzipped file's ETag from a client without gzip was a 304 (a shared cache
    # revalidating its gzipped copy for that client then handed it bytes it cannot read)
    from web.assets import STATIC

    with cr_client.get("/static/style.css", headers={"If-None-Match": etag}) as crossed:
        assert crossed.status_code == 200 and crossed.data == (STATIC / "style.css").read_bytes()
        assert crossed.headers["ETag"] != etag and "Content-Encoding" not in crossed.headers


@pytest.mark.parametrize("method, path", [
    ("GET", "/api/search?q=deathtouch+and+trample"), ("GET", "/api/health"), ("GET", "/cr/702.19b"),
    ("GET", "/api/records/cr/702"), ("GET", "/no-such-page"), ("GET", "/api/nope"), ("HEAD", "/cr/702"),
    ("GET", "/static/style.css"), ("GET", "/manifest.webmanifest"), ("POST", "/api/linkify"),
])
def test_every_answer_reaches_the_server_as_one_list_of_bytes(cr_client, method, path):
    # granian writes a list's bytes in one piece; any other iterable it reads a chunk at a time, a Python call
    # each, and streams (werkzeug's ClosingIterator made every answer take that path)
    from werkzeug.test import EnvironBuilder

    said: list[str] = []
    environ = EnvironBuilder(path=path, method=method, json={"text": "see 702.19b"} if method == "POST" else None,
                             headers=[("Host", "localhost")]).get_environ()
    answer = cr_client.application(environ, lambda status, headers, exc_info=None: said.append(status))
    assert isinstance(answer, list) and all(isinstance(chunk, bytes) for chunk in answer)
    with cr_client.open(path, method=method, json={"text": "see 702.19b"} if method == "POST" else None) as again:
        assert said == [again.status] and b"".join(answer) == again.data
    assert method != "HEAD" or answer == []


def test_pages_made_once_per_build_keep_their_gzip(cr_client):
    # the gzip of a page rendered once per build is made once too, beside the page and within its byte bound
    from web import api, pages

    first = cr_client.get("/cr/702", headers=GZIP)
    build = cr_client.application.extensions["kb"].current()
    kept = pages._pages(build).get("cr/702")
    assert kept is not None and kept.gz == first.data and kept.base == "http://localhost"
    assert pages._pages(build).weigh(kept) > len(kept.gz) + len(kept.html)
    assert cr_client.get("/cr/702", headers=GZIP).data == first.data
    # another site address (no KB_PUBLIC_URL): its own gzip, in place of the other, not beside it
    other = cr_client.get("/cr/702", headers={**GZIP, "Host": "other.example"})
    assert b'content="http://other.example/cr/702"' in _body(other)
    kept = pages._pages(build).get("cr/702")
    assert kept is not None and kept.base == "http://other.example" and kept.gz == other.data
    # the twin's gzip is kept beside it too
    twin = cr_client.get("/api/records/cr/702", headers=GZIP)
    assert api._twins(build).get("record:cr/702") == (_body(twin), twin.data)


def test_the_keywords_list_is_made_once_per_build_with_its_gzip(cr_client):
    # /api/keywords (~110 KB with the official rules, 14 ms to make and gzip) was made for every request, outside
    # the gates: found by session 25's attacker
    from web import api, data

    plain = cr_client.get("/api/keywords")
    zipped = cr_client.get("/api/keywords", headers=GZIP)
    build = cr_client.application.extensions["kb"].current()
    assert api._twins(build).get("keywords") == (plain.data, zipped.data)
    assert plain.get_json() == data.keywords_data(build)[0] and _body(zipped) == plain.data
    assert plain.headers["Access-Control-Allow-Origin"] == "*" and zipped.headers["Vary"] == "Accept-Encoding"


def test_a_rename_note_is_gzipped_with_its_page(client):
    # the note goes in per request: that page is compressed per request, the kept gzip is the page without it
    noted = client.get("/treachery/116?from=115", headers=GZIP)
    assert noted.headers["Content-Encoding"] == "gzip"
    assert b"115 was renamed 116 in version 4.0" in _body(noted)
    assert _body(noted) == client.get("/treachery/116?from=115").data
    assert b"renamed" not in _body(client.get("/treachery/116", headers=GZIP))


# -- 2. the style sheet and the script, cached for good -------------------------------------------
def test_pages_link_the_assets_under_their_content_s_version(client):
    # they answered "Cache-Control: no-cache": every page cost two more round trips (304s) on a phone
    import hashlib
    import re

    from web.assets import STATIC

    page = client.get("/treachery/907.4b").get_data(as_text=True)
    for name in ("style.css", "app.js"):
        version = hashlib.sha256((STATIC / name).read_bytes()).hexdigest()[:12]
        url = f"/static/{name}?v={version}"
        assert re.search(f'(href|src)="{re.escape(url)}"', page), name
        answer = client.get(url, headers=GZIP)
        assert answer.status_code == 200 and _body(answer) == (STATIC / name).read_bytes()
        assert answer.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        assert answer.headers["Content-Encoding"] == "gzip"
        # without the version, or with another (a page from before a change): revalidated each time, as before
        for other in (f"/static/{name}", f"/static/{name}?v=0123456789ab"):
            assert client.get(other).headers["Cache-Control"] == "no-cache"
    assert client.get("/static/nothing.css").status_code == 404


# -- 4. the gate's 503, for a browser -------------------------------------------------------------
BROWSER = b"text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"


def _turned_away(target: bytes, accept: bytes | None) -> tuple[bytes, dict[str, str], bytes]:
    """What the app's gate (web.gate) answers a request it has no room for: (status line, headers, body)."""
    from werkzeug.test import Client

    from web.app import SECURITY_HEADERS
    from web.gate import Gated, Settings

    def never(environ, start_response):  # pragma: no cover - the gate answers first
        raise AssertionError("let through")

    gated = Gated(never, Settings(), SECURITY_HEADERS)
    for gate in gated.gates.values():
        gate.busy, gate.queue = gate.slots, 0  # every slot taken and no room in line: turned away at once
    response = Client(gated).get(target.decode(), headers={"Accept": accept.decode()} if accept else {})
    body = response.get_data()
    headers = dict(response.headers)
    assert response.status == "503 Service Unavailable" and int(headers["Content-Length"]) == len(body)
    assert headers["X-Content-Type-Options"] == "nosniff" and "frame-ancestors 'none'" in \
        headers["Content-Security-Policy"] and headers["Connection"] == "close"
    return b"HTTP/1.1 503 Service Unavailable", headers, body


@pytest.mark.parametrize("accept", [BROWSER, b"*/*", None])
def test_a_browser_turned_away_by_the_gate_gets_a_page_it_can_read(accept):
    # it got {"error": ...}: no viewport (zoomed out on a phone), no search box, no way back
    from bs4 import BeautifulSoup

    _, headers, body = _turned_away(b"/search?q=deathtouch+%3Cb%3E&doc=cr", accept)
    assert headers["Content-Type"] == "text/html; charset=utf-8" and headers["Retry-After"] == "5"
    page: Any = BeautifulSoup(body, "html.parser")  # what bs4 finds is read as found (a failure says so)
    assert page.find("meta", attrs={"name": "viewport"})["content"] == "width=device-width, initial-scale=1"
    assert "Try again in a few seconds" in page.get_text()
    assert page.find("a", string="Try again")["href"] == "/search?q=deathtouch+%3Cb%3E&doc=cr"  # the same search
    box = page.select_one("form[action='/search'] input[name=q]")
    assert box["value"] == "deathtouch <b>" and b"<b>" not in body
    dated: Any = BeautifulSoup(_turned_away(b"/cr@2019-01-25/702.19", accept)[2], "html.parser")
    assert dated.find("a", string="Try again")["href"] == "/cr@2019-01-25/702.19"
    assert dated.select_one("input[name=q]")["value"] == ""


@pytest.mark.parametrize("target, accept", [
    (b"/search?q=deathtouch", b"application/json"),
    (b"/api/search?q=deathtouch", BROWSER),
    (b"/api/search?q=deathtouch", None),
    (b"/api/%6Cinkify", BROWSER),
])
def test_json_clients_turned_away_by_the_gate_get_json_as_before(target, accept):
    import json

    _, headers, body = _turned_away(target, accept)
    assert headers["Content-Type"] == "application/json" and headers["Retry-After"] == "5"
    assert json.loads(body) == {"error": {"code": "busy", "message": "too many costly requests waiting; try again "
                                                                     "shortly"}}
