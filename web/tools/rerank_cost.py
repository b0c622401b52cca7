"""What the re-rank costs and what it buys: ``python -m web.tools.rerank_cost --data DIR``.

Issue 33 asks the whole search for at most 0.7x, warm, of what FTS5 takes to run the same analysed terms, and a typo
for at most 2x. The floor runs the index query only; our search also re-ranks (kb.rank: the thirty signals of the
"rank" stage, kb.signals), corrects, snippets and counts. This measures, in one process, the lexical search as
``kb bench`` times it (its own loop, web.tools.bench_fair.run_class: a fresh searcher per class, warmed as ``kb
serve`` warms one; each query's first run, then ``--repeat`` warm runs; the floors' queries for the same terms
after each of ours; CPU, ``thread_time``), once
with every re-rank signal on and once with all of them off, alternating ``--rounds`` times. Beside the cost, what
the re-rank buys: how many questions of the curated suites (kb.learned.data.SUITES) and, from a checkout, of the
blind sets (tests/heldout_questions.py) have an answer first and in the first three, with and without it.
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
from collections.abc import Sequence
from pathlib import Path

__all__ = ["RERANK", "cost", "quality", "main"]


def _rank_signals() -> list[str]:
    from kb.signals import SIGNALS

    return [s.name for s in SIGNALS if s.stage == "rank"]


RERANK = _rank_signals()  # the signals turned off together: every one that acts on the candidates' order


def cost(store, classes: dict[str, list[str]], repeat: int, fts, tan, captured) -> dict[str, dict[str, list[float]]]:
    """Per class (and "fulltext", every class together), as ``kb bench`` runs it (web.tools.bench_fair.run_class: a
    fresh warmed searcher, each query's first run then ``repeat`` warm runs, the floors' queries after each of ours):
    ``ours_first``, ``ours_warm``, ``floor_first`` and ``floor_warm``, the CPU seconds of each query that reaches the
    index and of FTS5's for the same terms (the floor has nothing to do for the rest)."""
    from web.tools.bench_fair import run_class

    out: dict[str, dict[str, list[float]]] = {}
    every: dict[str, list[float]] = {"ours_first": [], "ours_warm": [], "floor_first": [], "floor_warm": []}
    for cls, queries in classes.items():
        if not any(captured[q][0] for q in queries):
            continue
        times = run_class(store, queries, captured, fts, tan, repeat).times
        ours, floor = times["ours_fulltext"], times["fts5"]
        got = {"ours_first": ours.first_cpu, "ours_warm": ours.warm_cpu, "floor_first": floor.first_cpu,
               "floor_warm": floor.warm_cpu}
        out[cls] = got
        for key, values in got.items():
            every[key] += values
    out["fulltext"] = every
    return out


def quality(store, sets: dict[str, list[tuple[str, set[str]]]]) -> dict[str, tuple[int, int, int]]:
    """Per set: (answered first, answered in the first three, questions), the lexical search as served."""
    from corpus.questions import answers
    from kb.search import Searcher

    searcher = Searcher(store, cache_size=0)
    searcher.warm()
    out = {}
    try:
        for name, questions in sets.items():
            first = three = 0
            for question, expected in questions:
                ids = [h.id for h in searcher.search(question, limit=3).hits]
                first += bool(ids) and answers(ids[0], expected)
                three += any(answers(i, expected) for i in ids)
            out[name] = (first, three, len(questions))
    finally:
        searcher.close()
    return out


def _sets(with_blind: bool, has_cr: bool) -> dict[str, list[tuple[str, set[str]]]]:
    from kb.learned.data import SUITES

    suites = [name for name in SUITES if has_cr or not name.startswith("CR_")]
    sets = {"curated suites": [qa for name in suites for qa in SUITES[name]]}
    if with_blind:
        from tests import heldout_questions as blind  # a checkout's blind sets: measured, never tuned on

        names = sorted(n for n in vars(blind) if n.isupper() and isinstance(getattr(blind, n), list)
                       and (has_cr or not n.startswith("CR_")))
        sets["blind sets"] = [qa for n in names for qa in getattr(blind, n)]
    return sets


def main(argv: Sequence[str] | None = None) -> None:
    from kb.signals import SIGNALS
    from kb.store import Store
    from web.tools import bench_fair
    from web.tools.bench import query_classes

    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a data directory (kb build)")
    parser.add_argument("--repeat", type=int, default=2, help="warm runs per query")
    parser.add_argument("--rounds", type=int, default=2, help="times each of on and off is measured, alternately")
    parser.add_argument("--no-blind", action="store_true", help="the curated suites only (no tests/ directory)")
    args = parser.parse_args(argv)
    store = Store.open(args.data)
    has_cr = any(r.doc == "cr" for r in store.records.values())
    classes = query_classes(has_cr)
    captured = bench_fair.capture_all(store, [q for qs in classes.values() for q in qs])
    sets = _sets(not args.no_blind, has_cr)
    print(f"{len(RERANK)} re-rank signals turned off together: {', '.join(RERANK)}")
    for label in ("on", "off"):
        with SIGNALS.off(*(RERANK if label == "off" else ())):
            answered = quality(store, sets)
        print(f"re-rank {label}: " + "; ".join(f"{name} {a} first, {b} in three, of {n}"
                                                 for name, (a, b, n) in answered.items()))
    with tempfile.TemporaryDirectory() as tmp:
        records = list(store.records.values())
        fts = bench_fair.FTS5Floor(Path(tmp) / "floor.fts5", records)
        tan = bench_fair.TantivyFloor(Path(tmp) / "floor.tantivy", records) if bench_fair.tantivy_available() else None
        for _ in range(args.rounds):
            for label in ("on", "off"):
                with SIGNALS.off(*(RERANK if label == "off" else ())):
                    spent = cost(store, classes, args.repeat, fts, tan, captured)
                print(f"re-rank {label}, CPU p50 and its ratio to FTS5 same terms: " + "; ".join(
                    _cell(cls, v) for cls, v in spent.items()), flush=True)


def _cell(cls: str, spent: dict[str, list[float]]) -> str:
    first = statistics.median(spent["ours_first"]) / statistics.median(spent["floor_first"])
    warm = statistics.median(spent["ours_warm"]) / statistics.median(spent["floor_warm"])
    return f"{cls} {statistics.median(spent['ours_first']) * 1e6:.0f} us first {first:.2f}x, warm {warm:.2f}x"

if __name__ == "__main__":
    main()
