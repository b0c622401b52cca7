"""web.tools.paired's count of the Python work: two versions in one process, each query's bytecodes counted.

Counting, unlike timing, is exact: the same code asked the same queries executes the same bytecodes, so a
checkout compared with itself gives the ratio 1 to the last digit, and a change of a few percent in the Python
work shows on a loaded machine where CPU times move by more (docs/performance.md)."""
from __future__ import annotations

import sys
from pathlib import Path

import kb.model
from web.tools import paired

ROOT = Path(__file__).resolve().parents[1]
MODEL = kb.model  # the module this process imported: a test that swapped in a checkout's copies puts it back


def test_a_checkout_against_itself_executes_the_same_bytecodes(data_dir):
    said: list[str] = []
    tracing = sys.gettrace()  # a debugger's or coverage's, if any
    got = paired.bytecodes(ROOT, data_dir, ["one word", "typo"], say=said.append)
    assert set(got) == {"one word", "typo"}
    for cls, counts in got.items():
        assert counts["base"] == counts["new"] > 1000, (cls, counts)  # a search runs thousands of bytecodes
    assert said[-1] == "all classes: 1.000"
    assert sys.gettrace() is tracing  # the counter is taken off again
    assert sys.modules["kb.model"] is MODEL  # this process's own modules again, not a checkout's copy


def test_the_count_grows_with_the_work():
    def work(n: int) -> None:
        total = 0
        for i in range(n):
            total += i

    assert paired._count(lambda: work(1000)) > paired._count(lambda: work(10)) > 0


def test_timed_with_the_fts5_floor_between_two_of_ours(data_dir):
    """``--fts5``: the floor's query runs after each of ours (as kb bench runs it), one first run and one least warm
    run per query reaching the index, and each version's ratio to the floor is printed."""
    said: list[str] = []
    got = paired.run(ROOT, data_dir, 1, ["one word"], say=said.append, fts5=True)
    from web.tools.bench import QUERY_CLASSES

    queries = len(QUERY_CLASSES["one word"])
    assert len(got["base"]["first"]) == len(got["new"]["first"]) == queries
    assert 0 < len(got["fts5"]["first"]) == len(got["fts5"]["warm"]) <= queries
    assert all(t > 0 for t in got["fts5"]["first"])
    assert any(line.startswith("full text / FTS5 same terms, first: p50 base ") for line in said)
    assert sys.modules["kb.model"] is MODEL
