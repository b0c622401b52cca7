"""What a build derives belongs to the opened build: made once, read-only afterwards, dropped with it.

Real clients, at once, against a real server (werkzeug's threaded server over a
freshly opened build): every table and cache the requests need is made exactly
once, every client gets the answer one client alone gets, and a build opened
again starts from nothing (no module-level dict keyed by build id remembers it).
"""
from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
import urllib.request
import weakref

from werkzeug.serving import make_server

from kb.derived import Derived
from kb.kbase import KnowledgeBase

CLIENTS = 8
# one path per per-build entry it makes: the card table, the autocomplete phrases, a record page, a record's JSON
# twin, a document's encoded records
PATHS = {
    "cardnames": "/c/tarmogoyf",
    "phrases": "/api/autocomplete?q=nut",
    "pages": "/treachery/907.4b",
    "twins": "/api/records/treachery/907.4b",
    "record parts": "/api/documents/treachery/records",
}


@contextmanager
def serving(data_dir):
    """A fresh app (its own opening of the build) under werkzeug's threaded server: (app, base URL)."""
    from web.app import create_app

    app = create_app({"KB_DATA": str(data_dir), "TESTING": True})
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield app, f"http://127.0.0.1:{httpd.server_port}"
    finally:
        httpd.shutdown()
        thread.join()


def _get(url: str) -> tuple[int, bytes]:
    # one site address for both servers: pages name the address they are asked at
    with urllib.request.urlopen(urllib.request.Request(url, headers={"Host": "kb.test"}), timeout=60) as response:
        return response.status, response.read()


def test_concurrent_clients_make_each_per_build_entry_once(data_dir):
    with serving(data_dir) as (_, base):
        alone = {name: _get(base + path) for name, path in PATHS.items()}  # what one client alone gets
    assert all(status == 200 for status, _ in alone.values())
    with serving(data_dir) as (app, base):  # a fresh opening of the same build, many clients at once
        opened = app.extensions["kb"].current()
        assert not any(name in opened.derived for name in PATHS)  # nothing made yet, nothing remembered
        answers, failures = _at_once(base)
    assert failures == []
    assert len(answers) == CLIENTS * len(PATHS)
    assert all((status, body) == alone[name] for name, status, body in answers)
    assert {name: opened.derived.made[name] for name in PATHS} == dict.fromkeys(PATHS, 1)


def _at_once(base: str) -> tuple[list[tuple[str, int, bytes]], list[BaseException]]:
    """CLIENTS clients, released together, each asking every path (each in another order)."""
    barrier = threading.Barrier(CLIENTS)
    answers: list[tuple[str, int, bytes]] = []
    failures: list[BaseException] = []

    def client(k: int) -> None:
        try:
            barrier.wait()
            names = list(PATHS)
            for name in names[k % len(names):] + names[:k % len(names)]:  # each client in another order
                answers.append((name, *_get(base + PATHS[name])))
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers, failures


def test_a_build_s_derived_state_goes_with_it(data_dir):
    """Nothing outside the build holds what it derived: once the build is let go, its tables are collected."""
    from kb.cardnames import find_card

    opened = KnowledgeBase(data_dir).current()
    assert find_card(opened.store, opened.resolver, "tarmogoyf").card is not None
    table = weakref.ref(opened.derived.get("cardnames", lambda: None))
    assert table() is not None
    opened.searcher.close()
    opened.release()
    del opened
    gc.collect()
    assert table() is None


def test_an_entry_is_made_once_even_when_threads_ask_together():
    derived = Derived()
    barrier = threading.Barrier(CLIENTS)
    got: list[object] = []

    def make() -> object:
        threading.Event().wait(0.05)  # long enough for every thread to be asking
        return object()

    def ask() -> None:
        barrier.wait()
        got.append(derived.get("table", make))

    threads = [threading.Thread(target=ask) for _ in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == CLIENTS and len({id(x) for x in got}) == 1 and derived.made["table"] == 1


def test_a_none_entry_is_kept_too():
    derived = Derived()
    calls: list[int] = []
    for _ in range(3):
        assert derived.get("history", lambda: calls.append(1)) is None
    assert calls == [1] and derived.made["history"] == 1
