"""The ablation of search's optional stages on the split by record and the suites:
``python -m web.tools.ablation --data var/cr`` (docs/semantic.md, "Cross-encoder").

Measured as ``kb train --cross`` measures (kb.cross.train.measure): the test questions of the split by record with
the common questions of train records only, each suite with the table as served; rank 1 / top 3 with the semantic
stage alone and with every stage (semantic, learned ranker, cross-encoder). The build must hold the semantic
model's record vectors: when it does not, they are embedded into it first (with progress; cached in the data
directory). Run it with ``PYTHONHASHSEED=0``, as kb train does, for the same ties.
"""
from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path


def run(data_dir: Path) -> dict[str, dict[str, tuple[int, int]]]:
    from kb.cross import load as load_cross
    from kb.cross.train import measure
    from kb.learned import load as load_learned
    from kb.learned.data import SUITES, evaluation_table, prepare
    from kb.search import Searcher
    from kb.semantic.vectors import open_stage, write_build_vectors
    from kb.store import Store

    store = Store.open(data_dir)
    if open_stage(store.path) is None:
        write_build_vectors(store.path, data_dir, list(store.records.values()), say=print, threads=1)
    semantic, cross, learned = open_stage(store.path), load_cross(store.records), load_learned()
    if semantic is None or cross is None or learned is None:
        raise SystemExit("a stage cannot open: the semantic model, the cross-encoder or the ranker's weights")
    asked = list(store.manifest.get("asked", ()))
    lists: dict[str, list[tuple[str, Sequence[str]]]] = {
        "test": [(e.question, e.answers) for e in prepare(asked, store.records).test]}
    lists.update({name: [(q, sorted(e)) for q, e in questions] for name, questions in SUITES.items()})
    searcher = Searcher(store, cache_size=0)
    out: dict[str, dict[str, tuple[int, int]]] = {}
    for name, questions in lists.items():
        searcher.asked = searcher.asked_table(evaluation_table(asked) if name == "test" else asked)
        searcher.semantic = semantic
        out[name] = {"semantic": measure(searcher, questions, None),
                     "all": measure(searcher, questions, cross, learned)}
        print(name, json.dumps(out[name]), flush=True)
    searcher.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, type=Path)
    run(parser.parse_args().data)


if __name__ == "__main__":
    main()
