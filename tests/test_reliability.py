"""Issue 10, in process: thread-safe rendering, bounded caches, the API's edges, public URLs.

The same properties against a real ``kb serve`` over sockets are in tests/test_reliability_server.py.
"""
from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest


@pytest.fixture()
def fast_switching():
    """Make the interpreter switch threads as often as it can, so races show on every run."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


# -- 1. rendering is thread-safe ------------------------------------------------------------
def test_rendering_every_record_from_16_threads_matches_a_serial_render(store, fast_switching):
    from web.render import render_text

    fields = [(r.id, r.text, [x for x in r.refs if x.field == "text"]) for r in store.records.values() if r.text]
    serial = {rid: str(render_text(text, refs, store.records)) for rid, text, refs in fields}

    def render(item):
        rid, text, refs = item
        try:
            return rid, str(render_text(text, refs, store.records))
        except Exception as exc:  # the shared instance raised IndexError under threads
            return rid, f"raised {exc!r}"

    with ThreadPoolExecutor(16) as pool:
        rendered = list(pool.map(render, fields * 2))
    wrong = [rid for rid, page in rendered if page != serial[rid]]
    assert not wrong, f"{len(wrong)} of {len(rendered)} renders differ from the serial render, e.g. {wrong[:5]}"


# -- 7. caches keyed by (build, record), bounded by bytes ---------------------------------------
def test_record_pages_are_cached_once_per_record_whatever_the_host_or_query(app, client):
    from web import pages

    kept = pages._pages(app.extensions["kb"].current())
    kept.clear()
    for i in range(50):
        page = client.get(f"/treachery/907.4b?x={i}", headers={"Host": f"h{i}.example"})
        assert page.status_code == 200
        assert f'content="http://h{i}.example/treachery/907.4b"' in page.get_data(as_text=True)
    assert len(kept) == 1


def test_byte_bounded_cache_drops_the_least_recently_used():
    from kb.cache import ByteLRU

    cache: ByteLRU[str] = ByteLRU(10_000)
    for i in range(1000):
        cache.put(i, "x" * 500)
    assert cache.bytes <= 10_000 and 0 < len(cache) < 20
    assert cache.get(999) is not None and cache.get(0) is None


# -- 9. edges -----------------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/api/nope", "/api/documents/a/b", "/api/records", "/api/health/x", "/api/nope/"])
def test_unknown_api_paths_are_json_404s(client, path):
    response = client.get(path, headers={"Accept": "text/html"}, follow_redirects=True)  # "/api/nope/" -> "/api/nope"
    assert response.status_code == 404 and response.mimetype == "application/json"
    assert set(response.get_json()["error"]) == {"code", "message"}
    assert client.get("/api/").headers["Location"] == "/api"  # the API reference


@pytest.mark.parametrize("body", ["[" * 5000, '{"text": ' + "[" * 5000 + "]" * 5000 + "}", "{" * 100_00])
def test_deeply_nested_json_is_a_400(client, body):
    response = client.post("/api/linkify", data=body, content_type="application/json")
    assert response.status_code == 400 and response.get_json()["error"]["message"]


def test_a_lone_surrogate_is_a_400(client):
    response = client.post("/api/linkify", data='{"text": "CR 907.4b \\ud800"}', content_type="application/json")
    assert response.status_code == 400 and "surrogate" in response.get_json()["error"]["message"]


@pytest.fixture(scope="module")
def public_client(data_dir):
    from web.app import create_app

    return create_app({"KB_DATA": str(data_dir), "TESTING": True,
                       "KB_PUBLIC_URL": "https://rules.example.org/"}).test_client()


def test_absolute_urls_come_from_kb_public_url_not_the_host_header(public_client):
    evil = {"Host": "evil.example"}
    page = public_client.get("/treachery/907.4b", headers=evil).get_data(as_text=True)
    assert 'property="og:url" content="https://rules.example.org/treachery/907.4b"' in page
    assert "evil.example" not in page
    search = public_client.get("/search?q=unveil&noredirect=1", headers=evil).get_data(as_text=True)
    assert "https://rules.example.org/search?q=unveil" in search and "evil.example" not in search
    linked = public_client.post("/api/linkify", json={"text": "CR 907.4b"}, headers=evil).get_json()
    assert linked["links"][0]["url"] == "https://rules.example.org/treachery/907.4b"
    spec = public_client.get("/api/openapi.json", headers=evil).get_json()
    assert spec["servers"] == [{"url": "https://rules.example.org"}]
    xml = public_client.get("/opensearch.xml", headers=evil).get_data(as_text=True)
    assert "https://rules.example.org/search?q={searchTerms}" in xml and "evil.example" not in xml


def test_without_kb_public_url_the_host_is_escaped(client):
    page = client.get("/treachery/907.4b", headers={"Host": 'x"><script>y'}).get_data(as_text=True)
    assert "<script>y" not in page


def test_pages_vary_on_accept(client):
    for path in ("/treachery/907.4b", "/no/such/record", "/search?q=unveil&noredirect=1"):
        assert "Accept" in client.get(path).headers.get("Vary", ""), path
    as_json = client.get("/no/such/record", headers={"Accept": "application/json"})
    assert as_json.status_code == 404 and json.loads(as_json.data)["error"]["code"] == "not_found"


# -- 8. linear ingest, bounded input --------------------------------------------------------------
def _parse_seconds(extra_notes: int) -> float:
    import time

    from ingest.parsers import get_parser
    from ingest.profile import load_profile
    from tests.conftest import CORPUS

    profile = load_profile(CORPUS / "treachery.toml")
    text = (CORPUS / "treachery.txt").read_text(encoding="utf-8")
    text += "".join(f"\nExtra note number {k} about the card applies as written.\n" for k in range(extra_notes))
    parse = get_parser(profile.parser)
    best = float("inf")
    for _ in range(2):
        started = time.process_time()
        result = parse(text, profile)
        best = min(best, time.process_time() - started)
    assert not result.problems and len(result.records) > extra_notes
    return best


def test_treachery_card_notes_parse_in_linear_time():
    """Four times the notes, about four times the work (it was sixteen: every note rescanned every block)."""
    ratio = _parse_seconds(6000) / _parse_seconds(1500)
    assert ratio < 8, f"4x the notes cost {ratio:.1f}x the time"


def test_a_document_over_the_size_limit_is_refused_with_its_size(tmp_path):
    import subprocess

    from ingest.encoding import MAX_DOCUMENT_BYTES
    from tests.conftest import ROOT

    big = tmp_path / "big.txt"
    with open(big, "wb") as f:
        f.truncate(MAX_DOCUMENT_BYTES + 1024 * 1024)  # sparse: costs no disk
    out = subprocess.run([sys.executable, "-m", "web.cli", "inspect", str(big)], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert f"{big}:1: expected a document of at most 8 MB, found '9.0 MB'" in out.stderr
