"""The cross-encoder's cost per query: ``python -m web.tools.bench_cross --data var/cr [--repeat 3]``.

CPU time (``time.process_time``, this process, onnxruntime on one thread) of each query of ``kb bench``'s
question and several-words classes, searched with no answer cache: lexical alone, then with the cross-encoder
at each depth asked (its shipped weight). Warm: every query runs once before it is timed. Prints p50 and p99
per class and the ratio to lexical alone measured in the same run (docs/semantic.md, "Cross-encoder").
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from web.tools.bench import percentile, query_classes


def measure(data: str, depths: tuple[int, ...], repeat: int) -> dict[str, dict[str, tuple[float, float]]]:
    from kb.cross import Settings
    from kb.search import Searcher
    from kb.store import Store

    store = Store.open(Path(data))
    searcher = Searcher(store, cache_size=0, cross=True)
    stage = searcher.cross
    if stage is None:
        raise SystemExit("no cross-encoder: kb/cross/model holds no model (kb train --cross)")
    searcher.warm()
    classes = query_classes(any(r.doc == "cr" for r in store.records.values()))
    out: dict[str, dict[str, tuple[float, float]]] = {}
    runs = [("lexical", None)] + [(f"depth {d}", stage.with_settings(Settings(stage.settings.weight, d,
                                                                               stage.settings.min_words)))
                                  for d in depths]
    for name in ("question", "several words"):
        out[name] = {}
        for label, cross in runs:
            searcher.cross = cross
            for q in classes[name]:  # warm
                searcher.search(q)
            spent = []
            for _ in range(repeat):
                for q in classes[name]:
                    t = time.process_time()
                    searcher.search(q)
                    spent.append(time.process_time() - t)
            out[name][label] = (statistics.median(spent) * 1e3, percentile(spent, 99) * 1e3)
    searcher.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--depth", type=int, action="append", help="depths to time (default: 5, 10, 20)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    got = measure(args.data, tuple(args.depth or (5, 10, 20)), args.repeat)
    for name, runs in got.items():
        floor = runs["lexical"][0] or 1e-9
        for label, (p50, p99) in runs.items():
            print(f"{name:13} {label:9} p50 {p50:7.2f} ms  p99 {p99:7.2f} ms  ({p50 / floor:5.1f}x lexical p50)")


if __name__ == "__main__":
    main()
