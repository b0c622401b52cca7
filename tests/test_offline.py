"""The installable web app's server side (issue 35): the manifest, the service worker, the offline pack.

What the browser does with them offline is tests/test_browser_offline.py; here, what the server answers and what
the pack holds, on the bundled corpus and with the 2026 official rules (the size budget).
"""
from __future__ import annotations

import gzip
import json
import re
import struct
import threading

import pytest

from kb.offline import FORMAT, make_pack, pack_label

GZIP = {"Accept-Encoding": "gzip"}
BUDGET = 1_500_000  # bytes gzipped: the official rules and the three bundled documents


def _pointer(client) -> dict:
    answer = client.get("/offline/current")
    assert answer.status_code == 200 and answer.headers["Cache-Control"] == "no-cache"
    return answer.get_json()


def _pack(client) -> dict:
    answer = client.get(_pointer(client)["url"], headers=GZIP)
    assert answer.headers["Content-Encoding"] == "gzip"
    return json.loads(gzip.decompress(answer.data))


def test_the_service_worker_is_served_from_the_root_and_never_cached_for_long(client):
    answer = client.get("/sw.js")
    assert answer.status_code == 200 and answer.mimetype == "text/javascript"
    assert answer.headers["Cache-Control"] == "no-cache"  # a new worker is seen at the next visit
    assert answer.headers["Service-Worker-Allowed"] == "/"
    core = re.search(r'importScripts\("(/static/offline-core\.js\?v=[0-9a-f]{12})"\)', answer.get_data(as_text=True))
    assert core, "the worker imports the core script under its versioned URL"
    imported = client.get(core.group(1))
    assert imported.status_code == 200 and b"KBOffline" in imported.data
    assert "immutable" in imported.headers["Cache-Control"]


def test_the_manifest_names_the_app_its_icons_and_colours(client):
    answer = client.get("/manifest.webmanifest")
    assert answer.status_code == 200 and answer.mimetype == "application/manifest+json"
    manifest = answer.get_json()
    assert manifest["name"] and manifest["start_url"] == "/" and manifest["scope"] == "/"
    assert manifest["display"] == "standalone" and re.fullmatch(r"#[0-9a-f]{6}", manifest["theme_color"])
    sizes = set()
    for icon in manifest["icons"]:
        got = client.get(icon["src"])
        assert got.status_code == 200 and got.mimetype == icon["type"], icon
        if icon["type"] == "image/png":  # the size the manifest says is the image's own (its IHDR)
            assert got.data[:8] == b"\x89PNG\r\n\x1a\n"
            width, height = struct.unpack(">II", got.data[16:24])
            assert icon["sizes"] == f"{width}x{height}"
            sizes.add(width)
    assert {192, 512} <= sizes  # what an install asks for
    page = client.get("/treachery/907.4b").get_data(as_text=True)
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page
    # a theme colour for each scheme
    assert re.search(r'name="theme-color" content="#[0-9a-f]{6}" media="\(prefers-color-scheme: light\)"', page)
    assert re.search(r'name="theme-color" content="#[0-9a-f]{6}" media="\(prefers-color-scheme: dark\)"', page)
    assert "data-offline-control hidden" in page  # shown by the script only where service workers are


def test_the_pack_is_immutable_gzipped_and_revalidates(client, store):
    pointer = _pointer(client)
    assert pointer["format"] == FORMAT and pointer["build"] == store.build_id
    assert pointer["url"] == f"/offline/{store.build_id}.json"
    answer = client.get(pointer["url"], headers=GZIP)
    assert answer.status_code == 200 and answer.mimetype == "application/json"
    assert answer.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert len(answer.data) == pointer["gzip_bytes"] and len(gzip.decompress(answer.data)) == pointer["bytes"]
    plain = client.get(pointer["url"])  # a client that takes no gzip gets the same pack
    assert "Content-Encoding" not in plain.headers and plain.data == gzip.decompress(answer.data)
    again = client.get(pointer["url"], headers={"If-None-Match": answer.headers["ETag"], **GZIP})
    assert again.status_code == 304 and again.data == b""
    # each encoding its own validator: the gzipped pack's ETag from a client without gzip was a 304 (of bytes it cannot
    # read, from a cache that holds them)
    assert plain.headers["ETag"] != answer.headers["ETag"]
    assert client.get(pointer["url"], headers={"If-None-Match": plain.headers["ETag"]}).status_code == 304
    crossed = client.get(pointer["url"], headers={"If-None-Match": answer.headers["ETag"]})
    assert crossed.status_code == 200 and crossed.data == plain.data


def test_the_pack_holds_every_record_and_its_references(client, store):
    pack = _pack(client)
    assert pack["build"] == store.build_id and pack["format"] == FORMAT
    assert [d["slug"] for d in pack["documents"]] == [d["slug"] for d in store.documents]
    by_id = {r["i"]: r for r in pack["records"]}
    assert len(by_id) == len(pack["records"]) == len(store.records)  # nothing lost
    for r in store.records.values():
        got = by_id[r.id]
        assert (got["k"], got.get("n"), got.get("t"), got.get("p"), got.get("x", "")) == \
            (r.kind, r.number, r.title, r.parent, r.text)
        assert got.get("al", []) == list(r.aliases)
        for start, end, target in got.get("r", []):  # offsets into the text, to records that exist
            assert target in by_id
            assert any(x.start == start and x.end == end and x.target == target for x in r.refs)
    card = by_id["treachery/cards/the-metamorph"]
    assert card["k"] == "card" and card["t"] == "The Metamorph"
    assert by_id["uncommander/token-cards/j"]["l"] == "Token Cards j)"  # the label a page shows
    assert pack["names"]["tr"] == "treachery"  # "tr 702.187d"
    renamed = next(d for d in pack["documents"] if d["slug"] == "treachery")["renamed"]
    assert {"old": "115", "new": "116", "version": "4.0"} in renamed


def test_the_pack_is_made_once_per_build(app):
    kb = app.extensions["kb"].current()
    made: list = []
    threads = [threading.Thread(target=lambda: made.append(kb.offline)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(p is made[0] for p in made) and kb.offline is made[0]  # one pack, under the lock
    with pytest.raises(AttributeError):
        made[0].body = b""  # read-only after


@pytest.mark.parametrize("build", ["20200101T000000-000000", "%3Cscript%3E", "x" * 300, "current"])
def test_another_build_s_pack_is_a_404_in_json(client, build):
    answer = client.get(f"/offline/{build}.json", headers={"Accept": "text/html"})
    assert answer.status_code == 404 and answer.mimetype == "application/json"
    error = answer.get_json()["error"]
    assert error["code"] == "not_found" and _pointer(client)["url"] in error["message"]


def test_the_shell_is_the_site_s_page_with_a_slot_for_the_offline_answer(client):
    answer = client.get("/offline/shell")
    assert answer.status_code == 200 and answer.headers["Cache-Control"] == "no-cache"
    page = answer.get_data(as_text=True)
    assert 'id="offline-page"' in page and '<header class="top">' in page
    for script in ("app.js", "offline-core.js", "offline.js", "style.css"):
        assert re.search(rf'/static/{re.escape(script)}\?v=[0-9a-f]{{12}}', page), script


def test_official_rules_and_the_bundled_documents_fit_the_budget(cr_client, cr_store):
    pointer = _pointer(cr_client)
    assert pointer["label"] == "rules of 2026-08-07"
    assert pointer["gzip_bytes"] <= BUDGET, pointer
    pack = _pack(cr_client)
    assert len(pack["records"]) == len(cr_store.records)
    assert {d["slug"] for d in pack["documents"]} == {"cr", "treachery", "uncommander", "futuresight"}


def test_the_label_says_whose_rules_of_which_day(store):
    assert pack_label([{"slug": "cr", "effective": "2026-08-07"}, {"slug": "t", "effective": "2027-01-01"}]) == \
        "rules of 2026-08-07"  # the official rules' day, when they are loaded
    assert pack_label([{"slug": "a", "effective": "undated"}, {"slug": "t", "effective": "2024-10-01"}]) == \
        "rules of 2024-10-01"
    assert pack_label([{"slug": "a", "effective": "undated"}]) == "rules of this build"
    assert make_pack(store).label == pack_label(store.documents)
