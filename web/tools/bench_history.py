"""``kb bench --cr-history DIR``: what loading every official release costs.

Measured in one run, against a floor built in the same run (the bundled corpus
plus only the newest release, as ``kb build --cr`` makes it):

- ``kb build --cr-history`` wall time and CPU time (the machine is shared: CPU
  time says what the work costs, wall time what a user waits);
- the data directory's size and the history file's share of it;
- opening a build (what ``kb serve`` does per worker at start-up) and the
  current search (the 30-query mix), with and without the history, as p50/p99
  and the ratio of medians;
- answers only the history gives: a rule on a date, a rule's history, a diff.
"""
from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = ["run_history"]


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _pcts(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"p50_us": round(statistics.median(ordered) * 1e6, 1),
            "p99_us": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1e6, 1), "n": len(ordered)}


def _open_and_search(data: Path, repeat: int) -> tuple[list[float], list[float], Any]:
    from web.tools.bench import QUERY_MIX
    from kb.kbase import KnowledgeBase

    opens = []
    for _ in range(repeat):
        t = time.perf_counter()
        kb = KnowledgeBase(data, search_cache=0).current()  # every query does its work
        opens.append(time.perf_counter() - t)
        kb.searcher.close()
    kb = KnowledgeBase(data, search_cache=0).current()
    if kb.history is not None:
        kb.history.releases  # noqa: B018 - the history loaded, as a server that answered a dated query has it
    for q in QUERY_MIX:
        kb.searcher.search(q)
    searches = []
    for _ in range(repeat * 4):
        for q in QUERY_MIX:
            t = time.perf_counter()
            kb.searcher.search(q)
            searches.append(time.perf_counter() - t)
    return opens, searches, kb


def run_history(corpus: Path, folder: Path, repeat: int = 5) -> dict[str, Any]:
    from ingest.publish import build
    from ingest.releases import release_files

    newest = release_files(folder)[-1]
    out: dict[str, Any] = {"releases": len(release_files(folder))}
    with tempfile.TemporaryDirectory() as tmp:
        floor_dir, hist_dir = Path(tmp) / "floor", Path(tmp) / "history"
        build(corpus, floor_dir, cr=newest)
        wall, cpu = time.perf_counter(), time.process_time()
        build(corpus, hist_dir, cr_history=folder)
        out["build_s"] = round(time.perf_counter() - wall, 1)
        out["build_cpu_s"] = round(time.process_time() - cpu, 1)
        current = (hist_dir / "current").resolve()
        out["data_mb"] = round(_size(hist_dir) / 1e6, 1)
        out["history_mb"] = round((current / "history.sqlite").stat().st_size / 1e6, 1)
        out["floor_data_mb"] = round(_size(floor_dir) / 1e6, 1)
        f_open, f_search, floor_kb = _open_and_search(floor_dir, repeat)
        h_open, h_search, kb = _open_and_search(hist_dir, repeat)
        out["open_floor"], out["open_history"] = _pcts(f_open), _pcts(h_open)
        out["search_floor"], out["search_history"] = _pcts(f_search), _pcts(h_search)
        out["search_vs_floor"] = round(statistics.median(h_search) / statistics.median(f_search), 2)
        out["open_vs_floor"] = round(statistics.median(h_open) / statistics.median(f_open), 2)
        history = kb.history
        at, lineage, diff = [], [], []
        for _ in range(repeat * 4):
            t = time.perf_counter()
            history.rule_at("716.2", history.release_on("2016-07-22")["index"])
            at.append(time.perf_counter() - t)
            t = time.perf_counter()
            history.lineage(history.current_lineage("727.2"))
            lineage.append(time.perf_counter() - t)
        for _ in range(max(1, repeat // 2)):
            t = time.perf_counter()
            history.diff(history.newest - 1, history.newest)
            diff.append(time.perf_counter() - t)
        out["rule_at"], out["lineage"], out["diff_last_two"] = _pcts(at), _pcts(lineage), _pcts(diff)
        floor_kb.searcher.close()
        kb.searcher.close()
    return out
