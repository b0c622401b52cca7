"""Where a query's CPU goes, stage by stage, as ``kb bench`` runs it: ``python -m web.tools.stages --data DIR``.

Per class of the bench's queries (``web.tools.bench.query_classes``), a fresh searcher warmed as ``kb serve`` warms
one; each query runs once (its first run), then ``--repeat`` times (warm), each time followed by the FTS5 floor's
query for the same analysed terms (web.tools.bench_fair), so each of ours runs with another engine's work in the
processor's caches, as the bench times it (``--back-to-back`` leaves the floor out). The searcher's stages are
timed in CPU (``thread_time``) by wrapping them on that searcher alone: the parse, the lead, the full text (within
it Whoosh's scores, their order, the common questions, the re-rank, the facets) and the assembly (within it the
hits, each with its snippet). The table gives, per class and stage, the median over the queries that reach the index
(those the floor runs too), first run and warm, and the stage's share of the median query. A stage inside another is
indented; "rest" is what its parent spends outside the stages named under it.
"""
from __future__ import annotations

import argparse
import gc
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

__all__ = ["STAGES", "measure", "main"]

# (name, parent, where it is on a Searcher, the method): what is timed
STAGES = [
    ("parse", None, "parser", "parse"),
    ("lead", None, "leader", "lead"),
    ("full text", None, "candidates", "full_text"),
    ("whoosh scores", "full text", "tables", "scores"),
    ("common questions", "full text", "tables.asked", "match"),
    ("re-rank", "full text", "candidates.ranker", "rerank"),
    ("facets", "full text", "candidates", "_count_facets"),
    ("assemble", None, "assembler", "assemble"),
    ("hits and snippets", "assemble", "assembler", "_hit"),
]


def _wrap(searcher, spent: dict[str, float]) -> None:
    """Each stage's method on ``searcher`` (its own objects, not their classes) adds its CPU seconds to ``spent``."""
    for name, _, where, method in STAGES:
        owner = searcher
        for part in where.split("."):
            owner = getattr(owner, part)
        inner = getattr(owner, method)

        def timed(*args, _inner=inner, _name=name, **kwargs):
            c = time.thread_time()
            try:
                return _inner(*args, **kwargs)
            finally:
                spent[_name] += time.thread_time() - c

        setattr(owner, method, timed)


def measure(store, classes: dict[str, list[str]], repeat: int = 3, floor: bool = True) -> dict[str, dict]:
    """Per class: ``first`` and ``warm``, each stage name (and "total") -> the CPU seconds of every query reaching
    the index, in order (0.0 where a query did not enter the stage)."""
    from kb.search import Searcher
    from web.tools import bench_fair

    asked = [q for qs in classes.values() for q in qs]
    sent = {q: terms for q, (terms, _) in bench_fair.capture_all(store, asked).items()}
    with tempfile.TemporaryDirectory() as tmp:
        fts = bench_fair.FTS5Floor(Path(tmp) / "fair.fts5", list(store.records.values())) if floor else None
        out: dict[str, dict] = {}
        for cls, queries in classes.items():
            reach = [q for q in queries if sent[q]]
            if not reach:
                continue
            searcher = Searcher(store, cache_size=0)
            searcher.warm()
            spent: dict[str, float] = defaultdict(float)
            _wrap(searcher, spent)
            gc.collect()
            gc.freeze()
            db = fts.connect() if fts is not None else None
            got: dict[str, dict[str, list[float]]] = {"first": defaultdict(list), "warm": defaultdict(list)}
            try:
                for run in range(1 + repeat):
                    for q in reach:
                        spent.clear()
                        c = time.thread_time()
                        searcher.search(q)
                        total = time.thread_time() - c
                        slot = got["first" if run == 0 else "warm"]
                        for name, *_ in STAGES:
                            slot[name].append(spent.get(name, 0.0))
                        slot["total"].append(total)
                        if fts is not None and db is not None:
                            fts.run(db, sent[q])  # between two of ours, as kb bench runs it
            finally:
                if db is not None:
                    db.close()
                searcher.close()
                gc.unfreeze()
            out[cls] = got
    return out


def table(got: dict[str, dict], say=print) -> None:
    """The medians (microseconds) and shares of the median query, per class and stage."""
    say(f"{'stage':22s} {'first us':>9s} {'share':>6s} {'warm us':>9s} {'share':>6s}")
    for cls, slots in got.items():
        say(f"-- {cls} ({len(slots['first']['total'])} queries reaching the index)")
        med = {slot: {name: statistics.median(v) * 1e6 for name, v in values.items()} for slot, values in slots.items()}
        rows = [("total", None)] + [(name, parent) for name, parent, *_ in STAGES]
        for name, parent in rows:
            cells = []
            for slot in ("first", "warm"):
                m = med[slot]
                cells.append(f"{m[name]:9.0f} {m[name] / m['total']:6.0%}")
            say(f"{('  ' if parent else '') + name:22s} " + " ".join(cells))
            children = [c for c, p, *_ in STAGES if p == name]
            if children:  # what the stage spends outside those named under it, query by query
                cells = []
                for slot in ("first", "warm"):
                    v = slots[slot]
                    rest = statistics.median([t - sum(parts) for t, *parts in zip(v[name], *(v[c] for c in children),
                                                                                  strict=True)]) * 1e6
                    cells.append(f"{rest:9.0f} {rest / med[slot]['total']:6.0%}")
                say(f"{'  rest':22s} " + " ".join(cells))


def main(argv: Sequence[str] | None = None) -> None:
    from kb.store import Store
    from web.tools.bench import query_classes

    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a data directory (kb build)")
    parser.add_argument("--repeat", type=int, default=3, help="warm runs per query")
    parser.add_argument("--classes", default="", help="comma-separated query classes (default: all)")
    parser.add_argument("--back-to-back", action="store_true", help="no floor query between two of ours")
    args = parser.parse_args(argv)
    store = Store.open(args.data)
    classes = query_classes(any(r.doc == "cr" for r in store.records.values()))
    only = [c for c in args.classes.split(",") if c]
    chosen = {c: qs for c, qs in classes.items() if not only or c in only}
    table(measure(store, chosen, args.repeat, floor=not args.back_to_back))


if __name__ == "__main__":
    main()
