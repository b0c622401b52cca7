"""web.tools.rerank_cost: the lexical search with the re-rank's signals on and off, its cost beside the FTS5 floor
and what it answers. What is asserted is the bookkeeping and what turning the signals off does on the real build,
never a time."""
from __future__ import annotations

from pathlib import Path

from kb.learned.data import SUITES
from kb.signals import SIGNALS
from kb.store import Store
from web.tools import bench_fair, rerank_cost
from web.tools.bench import QUERY_CLASSES


def test_without_the_re_rank_fewer_questions_are_answered_first(data_dir):
    store = Store.open(data_dir)
    sets = {"suite": SUITES["QUESTIONS"]}
    on = rerank_cost.quality(store, sets)["suite"]
    with SIGNALS.off(*rerank_cost.RERANK):
        off = rerank_cost.quality(store, sets)["suite"]
    assert on[2] == off[2] == len(SUITES["QUESTIONS"])
    assert off[0] < on[0] and off[1] < on[1]  # the re-rank is what puts most answers first
    assert on[0] <= on[1] <= on[2]


def test_each_query_reaching_the_index_is_timed_with_the_floor_after_it(data_dir, tmp_path: Path):
    store = Store.open(data_dir)
    classes = {name: QUERY_CLASSES[name] for name in ("one word", "reference")}
    captured = bench_fair.capture_all(store, [q for qs in classes.values() for q in qs])
    fts = bench_fair.FTS5Floor(tmp_path / "floor.fts5", list(store.records.values()))
    got = rerank_cost.cost(store, classes, 2, fts, None, captured)
    assert set(got) == {"one word", "fulltext"}  # a rule number never reaches the index
    n = len(QUERY_CLASSES["one word"])
    for cls in got:
        assert [len(got[cls][k]) for k in ("ours_first", "floor_first", "ours_warm", "floor_warm")] == [n, n, 2 * n,
                                                                                                           2 * n]
        assert all(t > 0 for t in got[cls]["ours_first"])
