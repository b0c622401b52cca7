"""``kb bench``: measured figures, with a floor measured in the same run.

Also, under ``kb serve`` on loopback: HTTP throughput and latency for
``/api/search``, a record page and ``/api/health`` (the framework's floor),
at a bounded number of concurrent keep-alive clients; cold start (process
start to first answered query) and resident memory per worker. And how
cost grows: the same in-process figures on a synthetic corpus ten times
larger (every record cloned under nine more document slugs).

Machines are noisy, so every figure is a median (and p99) over repeated
runs, and search latency is reported next to an SQLite FTS5 index of the
same records built in the same run: the ratio is what we track.

Measured here: ingest time, index build time and size, in-process search
latency over a fixed query mix (rule numbers, card names, words, phrases,
typos) against FTS5, and rule-reference resolution latency.
"""
from __future__ import annotations

import os
import re
import sqlite3
import statistics
import tempfile
import time
from typing import Any
from pathlib import Path

__all__ = ["QUERY_MIX", "run", "run_http", "percentile"]

# A fixed, realistic mix: what judges and players type.
QUERY_MIX = [
    "907.4b", "CR 702.187c", "rule 115", "(907.5a)", "109.2tr", "Token Cards j", "502.68",
    "The Metamorph", "tarmogoyf", "tarmogyof", "the aetherist", "venser shaper savant",
    "nut counters", "starting life total", "who is the starting player", "unveil", "unvel",
    "identity card face down", "lifelink", "tribal", "proliferate", "banned cards",
    '"special action"', '"leaves the game"', "coin flip", "morph face down", "split second",
    "damage prevention", "half mana", "commander damage",
]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def _timed(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def _summary(seconds: list[float]) -> dict:
    return {"p50_us": round(statistics.median(seconds) * 1e6, 1), "p99_us": round(percentile(seconds, 99) * 1e6, 1),
            "n": len(seconds)}


def _fts5(records) -> tuple[sqlite3.Connection, float]:
    t = time.perf_counter()
    db = sqlite3.connect(":memory:")
    db.execute(
        "CREATE VIRTUAL TABLE r USING fts5(id UNINDEXED, title, body, tokenize='porter unicode61 remove_diacritics 2')"
    )
    db.executemany("INSERT INTO r VALUES (?, ?, ?)",
                   [(r.id, " ".join(filter(None, [r.number, r.title])), r.text or "") for r in records])
    db.commit()
    return db, time.perf_counter() - t


def _fts5_query(text: str) -> str:
    words = re.findall(r"\w+", text)
    return " OR ".join(f'"{w}"' for w in words) or '""'


def _search_figures(records, documents, reports, repeat: int, tmp: Path) -> dict:
    """Index build time and size, search and FTS5 latency over the mix, resolve latency."""
    from kb.index import write_index
    from kb.resolve import Resolver
    from kb.search import Searcher
    from kb.store import Store, publish

    index_s = []
    for n in range(repeat):
        path = tmp / f"ix{n}"
        t = time.perf_counter()
        write_index(path, records)
        index_s.append(time.perf_counter() - t)
    size = sum(f.stat().st_size for f in (tmp / "ix0").rglob("*") if f.is_file())
    data = tmp / "data"
    publish(data, records, {"documents": documents}, reports, write_index=write_index)
    store = Store.open(data)
    searcher = Searcher(store, cache_size=0)  # every query does its work
    resolver = Resolver(store)
    db, fts_build = _fts5(records)
    sql = "SELECT id FROM r WHERE r MATCH ? ORDER BY rank LIMIT 10"
    for q in QUERY_MIX:  # warm both
        searcher.search(q)
        db.execute(sql, (_fts5_query(q),)).fetchall()
    from kb.questions import CR_QUESTIONS, QUESTIONS

    suite = [q for q, _ in QUESTIONS + (CR_QUESTIONS if any(r.doc == "cr" for r in records) else [])]
    suite_s = []
    for _ in range(repeat):
        for q in suite:
            t = time.perf_counter()
            searcher.search(q)
            suite_s.append(time.perf_counter() - t)
    search, fts, resolve = [], [], []
    for _ in range(repeat * 4):
        for q in QUERY_MIX:
            t = time.perf_counter()
            searcher.search(q)
            search.append(time.perf_counter() - t)
            t = time.perf_counter()
            db.execute(sql, (_fts5_query(q),)).fetchall()
            fts.append(time.perf_counter() - t)
        for q in ("907.4b", "CR 702.187c", "rule 115", "Token Cards j", "907.4l"):
            t = time.perf_counter()
            resolver.resolve(q)
            resolve.append(time.perf_counter() - t)
    searcher.close()
    out: dict[str, Any] = {
        "records": len(records),
        "index_build": {"p50_ms": round(statistics.median(index_s) * 1e3, 1), "bytes": size},
        "fts5_build_ms": round(fts_build * 1e3, 1),
        "search": _summary(search),
        "suite": _summary(suite_s),  # the search-quality questions (kb.questions)
        "fts5": _summary(fts),
        "resolve": _summary(resolve),
    }
    out["search_vs_fts5"] = round(out["search"]["p50_us"] / out["fts5"]["p50_us"], 2)
    return out


def _scaled(records, factor: int):
    """The records cloned under ``factor - 1`` more document slugs: a corpus ``factor`` times larger."""
    from dataclasses import replace as clone

    out = list(records)

    def moved(rid: str | None, n: int) -> str | None:
        if rid is None or "/" not in rid:
            return rid
        doc, rest = rid.split("/", 1)
        return f"{doc}{n}/{rest}"

    for n in range(1, factor):
        def move(rid, n=n):
            return moved(rid, n)

        for r in records:
            out.append(clone(r, id=move(r.id), doc=f"{r.doc}{n}", parent=move(r.parent),
                             children=tuple(move(c) for c in r.children), refs=(), cited_by=()))
    return out


def run(corpus: Path, cr: Path | None = None, repeat: int = 5, scale: int = 10) -> dict:
    from ingest.build import build_corpus
    from ingest.cr import cr_profile

    extra = [cr_profile(cr)] if cr else []
    ingest_s = _timed(lambda: build_corpus(corpus, extra), repeat)
    built = build_corpus(corpus, extra)
    documents = built.documents()
    with tempfile.TemporaryDirectory() as tmp:
        result = _search_figures(built.records, documents, built.reports(), repeat, Path(tmp))
    result["ingest"] = {"p50_ms": round(statistics.median(ingest_s) * 1e3, 1)}
    if scale > 1:
        records = _scaled(built.records, scale)
        docs = documents + [{**d, "slug": f"{d['slug']}{n}"} for n in range(1, scale) for d in documents]
        with tempfile.TemporaryDirectory() as tmp:
            result[f"x{scale}"] = _search_figures(records, docs, {}, max(1, repeat // 2), Path(tmp))
    return result


# -- over HTTP -------------------------------------------------------------------------
HTTP_TARGETS = {
    "health": "/api/health",
    "search": "/api/search?q={q}",
    "record_page": "/{id}",
}


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        children = task / "children"
        if children.exists():
            out += [int(c) for c in children.read_text().split()]
    return out


def run_http(data: Path, corpus: Path, clients: int = 4, seconds: float = 3.0, workers: int = 2,
             cache: bool = False) -> dict:
    """Serve ``data`` with ``kb serve`` on loopback and measure it; every request must succeed.

    With ``cache`` the search answer cache stays on, as in service; by default it is off so the
    figures are the work itself."""
    import http.client
    import subprocess
    import sys
    import threading
    from urllib.parse import quote

    from kb.store import Store

    store = Store.open(data)
    ids = [r.id for r in store.records.values() if r.kind in ("rule", "card", "ruling")][:500]
    port = _free_port()
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "kb.cli", "--corpus", str(corpus), "--data", str(data), "serve",
         "--port", str(port), "--workers", str(workers)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "KB_SEARCH_CACHE": "2048" if cache else "0"},
    )
    try:
        cold = None
        while time.perf_counter() - started < 60:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                conn.request("GET", "/api/search?q=unveil")
                if conn.getresponse().status == 200:
                    cold = time.perf_counter() - started
                    break
            except OSError:
                time.sleep(0.02)
        if cold is None:
            raise RuntimeError("kb serve did not answer within 60 s")
        result: dict[str, Any] = {
            "cold_start_ms": round(cold * 1e3), "clients": clients, "workers": workers, "search_cache": cache,
        }
        # Warm every worker and thread on every endpoint before anything is timed.
        warm = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        for i in range(300):
            template = list(HTTP_TARGETS.values())[i % len(HTTP_TARGETS)]
            warm.request("GET", template.format(q=quote(QUERY_MIX[i % len(QUERY_MIX)]), id=ids[i % len(ids)]))
            warm.getresponse().read()
        for name, template in HTTP_TARGETS.items():
            latencies: list[float] = []
            errors: list[int] = []
            lock = threading.Lock()
            deadline = time.perf_counter() + seconds

            def client(k: int, template: str, deadline: float, lock: threading.Lock,
                       latencies: list[float], errors: list[int]) -> None:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                i = k
                mine, bad = [], []
                while time.perf_counter() < deadline:
                    path = template.format(q=quote(QUERY_MIX[i % len(QUERY_MIX)]), id=ids[i % len(ids)])
                    t = time.perf_counter()
                    conn.request("GET", path)
                    response = conn.getresponse()
                    response.read()
                    mine.append(time.perf_counter() - t)
                    if response.status != 200:
                        bad.append(response.status)
                    i += clients
                with lock:
                    latencies.extend(mine)
                    errors.extend(bad)

            shared = (template, deadline, lock, latencies, errors)
            threads = [threading.Thread(target=client, args=(k, *shared)) for k in range(clients)]
            t0 = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            elapsed = time.perf_counter() - t0
            result[name] = {
                "requests": len(latencies), "errors": len(errors),
                "rps": round(len(latencies) / elapsed), **_summary(latencies),
            }
        for name in ("search", "record_page"):
            result[name]["vs_health"] = round(result[name]["rps"] / result["health"]["rps"], 2)
        result["rss_mb_per_worker"] = [round(_rss_kb(pid) / 1024, 1) for pid in _children(proc.pid)]
        return result
    finally:
        proc.terminate()
        proc.wait(timeout=15)
