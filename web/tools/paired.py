"""Two versions of search timed side by side in one process, per query class, so that a shared machine's load falls
on both alike: ``python -m web.tools.paired --base DIR --data DIR``.

``--base`` is another checkout of the project (``git archive <commit> | tar -x -C DIR``); ``--data`` a data
directory (``kb build``). Both versions' packages are imported into this process under their own names (the
module table swapped before each call, so a function importing lazily gets its own version's modules), each
opens the build and, per class of the bench's queries (``web.tools.bench.query_classes``), a fresh searcher
warmed as ``kb serve`` warms one. Each query then runs on both, alternating which goes first: its first run
(CPU time, ``thread_time``), then ``--repeat`` warm runs, of which the least is kept. The table gives each
class's median per version and the ratio new / base; the last lines the whole set's median, p99 and sum.

``--fts5`` times them as ``kb bench`` does: after each of our searches, the FTS5 floor (web.tools.bench_fair) runs
the same analysed terms our search sent Whoosh, so each of ours runs with the floor's work in the processor's caches
(a one-word query costs about twice its back-to-back CPU so); the table then also gives, per version, the ratio of
our median to the floor's over the queries that reach the index (the floor has nothing to do for the rest).

``--bytecodes`` counts instead of timing: the Python bytecodes each version executes per query of each class (a
warm run, counted through ``sys.settrace``'s opcode events). On a loaded machine CPU times move by 5-10% between
two runs of the same code; the count does not move at all, so a change of a few percent in the Python work shows
(what runs in C, numpy's or a regex's, is not counted: read it with the times).
"""
from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

__all__ = ["main"]

_PACKAGES = ("kb", "web", "corpus", "ingest")
_HERE = str(Path(__file__).resolve().parents[2])


def _ours(name: str) -> bool:
    return name.split(".")[0] in _PACKAGES


def _load(root: str) -> dict[str, ModuleType]:
    """The project's modules imported from ``root``, taken out of the module table again."""
    for name in [n for n in sys.modules if _ours(n)]:
        del sys.modules[name]
    sys.path.insert(0, root)
    try:
        __import__("kb.search")
        __import__("kb.store")
        __import__("web.tools.bench")
    finally:
        sys.path.remove(root)
    return {n: m for n, m in sys.modules.items() if _ours(n)}


class _Versions:
    def __init__(self, roots: dict[str, str]):
        # the modules this process had imported: put back when done (``restore``), else whatever imported them before
        # (a test module's ``Record``, ``Store``) would meet another copy's classes afterwards
        self.original = {n: m for n, m in sys.modules.items() if _ours(n)}
        self.modules = {name: _load(root) for name, root in roots.items()}

    def restore(self) -> None:
        for n in [n for n in sys.modules if _ours(n)]:
            del sys.modules[n]
        sys.modules.update(self.original)

    def use(self, name: str) -> dict[str, ModuleType]:
        for n in [n for n in sys.modules if _ours(n)]:
            del sys.modules[n]
        sys.modules.update(self.modules[name])
        return self.modules[name]


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[round(0.99 * (len(ordered) - 1))]


class _Floor:
    """The FTS5 floor of ``kb bench`` (web.tools.bench_fair) over the build's records, asked the terms our search
    sends for each query (captured once, from the new version); ``run`` times one query on a connection."""

    def __init__(self, store, queries: list[str]):
        from web.tools import bench_fair

        self.sent = {q: sent for q, (sent, _) in bench_fair.capture_all(store, queries).items()}
        self._tmp = tempfile.TemporaryDirectory()
        self.fts = bench_fair.FTS5Floor(Path(self._tmp.name) / "fair.fts5", list(store.records.values()))

    def close(self) -> None:
        self._tmp.cleanup()

    def run(self, db, q: str) -> float | None:
        """The CPU seconds of the floor's query for ``q``, or None when our search sends the index nothing."""
        if not self.sent[q]:
            return None
        c = time.thread_time()
        self.fts.run(db, self.sent[q])
        return time.thread_time() - c


def _timed(versions: _Versions, searchers: dict, q: str, order: Sequence[str], into: dict[str, list[float]],
           floor: tuple[_Floor, object] | None = None) -> None:
    for name in order:
        versions.use(name)
        c = time.thread_time()
        searchers[name].search(q)
        into[name].append(time.thread_time() - c)
        if floor is not None:  # between two of ours, as kb bench runs it
            took = floor[0].run(floor[1], q)
            if took is not None:
                into.setdefault("fts5", []).append(took)


def _class(versions: _Versions, stores: dict, queries: list[str], repeat: int,
           floor: _Floor | None = None) -> dict[str, dict[str, list[float]]]:
    """One class on a fresh warmed searcher per version: each query's first run, then its least warm run; with
    ``floor``, its FTS5 query after each of ours (under "fts5": the first of each query's, then its least)."""
    names = tuple(stores)
    searchers = {}
    for name in names:
        searchers[name] = versions.use(name)["kb.search"].Searcher(stores[name], cache_size=0)
        searchers[name].warm()
    gc.collect()
    gc.freeze()
    db = floor.fts.connect() if floor is not None else None
    at = (floor, db) if floor is not None else None
    out: dict[str, dict[str, list[float]]] = {name: {"first": [], "warm": []} for name in (*names, "fts5")}
    first: dict[str, list[float]] = {name: [] for name in names}
    try:
        for i, q in enumerate(queries):
            runs: dict[str, list[float]] = {name: [] for name in names}
            _timed(versions, searchers, q, names if i % 2 == 0 else names[::-1], runs, at)
            for name in names:
                first[name] += runs[name]
            out["fts5"]["first"] += runs.get("fts5", [])[:1]
        for q in queries:
            runs = {name: [] for name in names}
            for r in range(repeat):
                _timed(versions, searchers, q, names if r % 2 == 0 else names[::-1], runs, at)
            for name, values in runs.items():
                out[name]["warm"].append(min(values))
    finally:
        for name in names:
            versions.use(name)
            searchers[name].close()
        if db is not None:
            db.close()
        gc.unfreeze()
    for name in names:
        out[name]["first"] = first[name]
    return out


def _count(run) -> int:
    """The bytecodes Python executes while ``run()`` runs (this thread)."""
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        frame.f_trace_opcodes = True
        if event == "opcode":
            count += 1
        return tracer

    previous = sys.gettrace()
    collecting = gc.isenabled()
    gc.disable()  # a collection runs finalizers' bytecodes wherever allocations happen to trigger it, not the query's
    sys.settrace(tracer)
    try:
        run()
    finally:
        sys.settrace(previous)
        if collecting:
            gc.enable()
    return count


def bytecodes(base: Path, data: Path, only: list[str] | None, say=print) -> dict[str, dict[str, int]]:
    """Per class, the bytecodes per query each version ("base", "new") executes, each query's warm run counted."""
    versions = _Versions({"base": str(base.resolve()), "new": _HERE})
    searchers = {}
    for name in ("base", "new"):
        modules = versions.use(name)
        searchers[name] = modules["kb.search"].Searcher(modules["kb.store"].Store.open(data), cache_size=0)
        searchers[name].warm()
    has_cr = any(r.doc == "cr" for r in searchers["new"].store.records.values())
    classes = versions.use("new")["web.tools.bench"].query_classes(has_cr)
    out: dict[str, dict[str, int]] = {}
    say(f"{'class':14s} {'base':>8s} {'new':>8s} {'ratio':>6s}   (bytecodes per query, warm)")
    for cls, queries in classes.items():
        if only and cls not in only:
            continue
        got = out[cls] = {}
        for name, searcher in searchers.items():
            versions.use(name)
            for q in queries:
                searcher.search(q)
            got[name] = _count(lambda s=searcher, qs=queries: [s.search(q) for q in qs]) // len(queries)
        say(f"{cls:14s} {got['base']:8d} {got['new']:8d} {got['new'] / got['base']:6.3f}")
    total = {name: sum(c[name] for c in out.values()) for name in ("base", "new")}
    say(f"all classes: {total['new'] / total['base']:.3f}")
    for name, searcher in searchers.items():
        versions.use(name)
        searcher.close()
    versions.restore()
    return out


def _us(values: list[float]) -> float:
    return statistics.median(values) * 1e6


def _floor_ratios(got: dict[str, dict[str, list[float]]], reach: list[bool]) -> str:
    """Each version's median over the queries reaching the index, as a ratio to the floor's (first, warm)."""
    parts = []
    for slot in ("first", "warm"):
        floor = _us(got["fts5"][slot])
        ours = {name: _us([t for t, r in zip(got[name][slot], reach, strict=True) if r]) for name in ("base", "new")}
        parts.append(f"{ours['base'] / floor:5.2f} {ours['new'] / floor:5.2f}")
    return " | ".join(parts)


def run(base: Path, data: Path, repeat: int, only: list[str] | None, say=print,
        fts5: bool = False) -> dict[str, dict[str, list[float]]]:
    """Per version ("base", "new"), every query's first-run and least warm CPU seconds, over the classes; with
    ``fts5`` the floor's too ("fts5"), its query run after each of ours."""
    versions = _Versions({"base": str(base.resolve()), "new": _HERE})
    stores = {name: versions.use(name)["kb.store"].Store.open(data) for name in ("base", "new")}
    has_cr = any(r.doc == "cr" for r in stores["new"].records.values())
    classes = versions.use("new")["web.tools.bench"].query_classes(has_cr)
    chosen = {cls: queries for cls, queries in classes.items() if not only or cls in only}
    floor = _Floor(stores["new"], [q for qs in chosen.values() for q in qs]) if fts5 else None
    out: dict[str, dict[str, list[float]]] = {name: {"first": [], "warm": []} for name in (*stores, "fts5")}
    reach: list[bool] = []
    say(f"{'class':14s} {'first base':>10s} {'new':>7s} {'ratio':>6s} | {'warm base':>9s} {'new':>7s} {'ratio':>6s}"
        + ("   | / FTS5 first: base new | warm: base new" if fts5 else "") + "   (CPU us, medians over the class)")
    for cls, queries in chosen.items():
        got = _class(versions, stores, queries, repeat, floor)
        for name, slots in got.items():
            for slot, values in slots.items():
                out[name][slot] += values
        f, w = {n: _us(got[n]["first"]) for n in stores}, {n: _us(got[n]["warm"]) for n in stores}
        line = (f"{cls:14s} {f['base']:10.0f} {f['new']:7.0f} {f['new'] / f['base']:6.2f} | "
                f"{w['base']:9.0f} {w['new']:7.0f} {w['new'] / w['base']:6.2f}")
        if floor is not None:
            reached = [bool(floor.sent[q]) for q in queries]
            reach += reached
            line += "   | " + (_floor_ratios(got, reached) if any(reached) else "(no query reaches the index)")
        say(line)
    for slot in ("first", "warm"):
        b, n = out["base"][slot], out["new"][slot]
        say(f"all, {slot}: p50 {_us(b):.0f} -> {_us(n):.0f} us ({_us(n) / _us(b):.3f}), "
            f"p99 {_p99(b) * 1e6:.0f} -> {_p99(n) * 1e6:.0f} us ({_p99(n) / _p99(b):.3f}), sum {sum(n) / sum(b):.3f}")
    if floor is not None and any(reach):
        for slot in ("first", "warm"):
            fts = out["fts5"][slot]
            b, n = ([t for t, r in zip(out[name][slot], reach, strict=True) if r] for name in ("base", "new"))
            say(f"full text / FTS5 same terms, {slot}: p50 base {_us(b) / _us(fts):.3f} new {_us(n) / _us(fts):.3f}, "
                f"p99 base {_p99(b) / _p99(fts):.3f} new {_p99(n) / _p99(fts):.3f}")
    if floor is not None:
        floor.close()
    versions.restore()
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="the other checkout (git archive COMMIT | tar -x)")
    parser.add_argument("--data", type=Path, required=True, help="a data directory (kb build)")
    parser.add_argument("--repeat", type=int, default=5, help="warm runs per query and version (the least is kept)")
    parser.add_argument("--classes", default="", help="comma-separated query classes (default: all)")
    parser.add_argument("--bytecodes", action="store_true", help="count the Python bytecodes per query, not CPU time")
    parser.add_argument("--fts5", action="store_true", help="run the FTS5 floor's query between two of ours, as kb "
                        "bench does, and give each version's ratio to it")
    args = parser.parse_args(argv)
    only = [c for c in args.classes.split(",") if c] or None
    if args.bytecodes:
        bytecodes(args.base, args.data, only)
    else:
        run(args.base, args.data, args.repeat, only, fts5=args.fts5)


if __name__ == "__main__":
    main()
