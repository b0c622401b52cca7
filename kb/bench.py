"""``kb bench``: measured figures, with a floor measured in the same run.

Machines are noisy, so every figure is a median (and p99) over repeated
runs, and search latency is reported next to an SQLite FTS5 index of the
same records built in the same run: the ratio is what we track.

Measured here: ingest time, index build time and size, in-process search
latency over a fixed query mix (rule numbers, card names, words, phrases,
typos) against FTS5, and rule-reference resolution latency.
"""
from __future__ import annotations

import re
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

__all__ = ["QUERY_MIX", "run", "percentile"]

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
    db.execute("CREATE VIRTUAL TABLE r USING fts5(id UNINDEXED, title, body, tokenize='porter unicode61 remove_diacritics 2')")
    db.executemany("INSERT INTO r VALUES (?, ?, ?)",
                   [(r.id, " ".join(filter(None, [r.number, r.title])), r.text or "") for r in records])
    db.commit()
    return db, time.perf_counter() - t


def _fts5_query(text: str) -> str:
    words = re.findall(r"\w+", text)
    return " OR ".join(f'"{w}"' for w in words) or '""'


def run(corpus: Path, cr: Path | None = None, repeat: int = 5) -> dict:
    from ingest.build import build_corpus
    from ingest.cr import cr_profile
    from kb.index import write_index
    from kb.resolve import Resolver
    from kb.search import Searcher
    from kb.store import Store, publish

    extra = [cr_profile(cr)] if cr else []
    ingest_s = _timed(lambda: build_corpus(corpus, extra), repeat)
    built = build_corpus(corpus, extra)
    records = built.records
    with tempfile.TemporaryDirectory() as tmp:
        index_s = []
        for n in range(repeat):
            path = Path(tmp) / f"ix{n}"
            t = time.perf_counter()
            write_index(path, records)
            index_s.append(time.perf_counter() - t)
        size = sum(f.stat().st_size for f in (Path(tmp) / "ix0").rglob("*") if f.is_file())
        data = Path(tmp) / "data"
        publish(data, records, {"documents": built.documents()}, built.reports(), write_index=write_index)
        store = Store.open(data)
        searcher = Searcher(store, cache_size=0)  # every query does its work
        resolver = Resolver(store)
        db, fts_build = _fts5(records)
        for q in QUERY_MIX:  # warm both
            searcher.search(q)
            db.execute("SELECT id FROM r WHERE r MATCH ? ORDER BY rank LIMIT 10", (_fts5_query(q),)).fetchall()
        search, fts, resolve = [], [], []
        for _ in range(repeat * 4):
            for q in QUERY_MIX:
                t = time.perf_counter()
                searcher.search(q)
                search.append(time.perf_counter() - t)
                t = time.perf_counter()
                db.execute("SELECT id FROM r WHERE r MATCH ? ORDER BY rank LIMIT 10", (_fts5_query(q),)).fetchall()
                fts.append(time.perf_counter() - t)
            for q in ("907.4b", "CR 702.187c", "rule 115", "Token Cards j", "907.4l"):
                t = time.perf_counter()
                resolver.resolve(q)
                resolve.append(time.perf_counter() - t)
        searcher.close()
    result = {
        "records": len(records),
        "ingest": {"p50_ms": round(statistics.median(ingest_s) * 1e3, 1)},
        "index_build": {"p50_ms": round(statistics.median(index_s) * 1e3, 1), "bytes": size},
        "fts5_build_ms": round(fts_build * 1e3, 1),
        "search": _summary(search),
        "fts5": _summary(fts),
        "resolve": _summary(resolve),
    }
    result["search_vs_fts5"] = round(result["search"]["p50_us"] / result["fts5"]["p50_us"], 2)
    return result
