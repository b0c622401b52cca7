"""web.tools.stages: a query's CPU split by the search's stages, as kb bench runs it (the FTS5 floor between two of
ours). What is asserted is the split's bookkeeping on the real build, never a time."""
from __future__ import annotations

from kb.store import Store
from web.tools import stages
from web.tools.bench import QUERY_CLASSES


def test_each_stage_of_each_query_is_within_the_whole_query(data_dir):
    classes = {name: QUERY_CLASSES[name] for name in ("one word", "reference")}
    got = stages.measure(Store.open(data_dir), classes, repeat=1)
    assert set(got) == {"one word"}  # a rule number is answered from the tables: nothing reaches the index
    for slot in ("first", "warm"):
        runs = got["one word"][slot]
        n = len(runs["total"])
        assert n == len(QUERY_CLASSES["one word"])  # each word reaches the index (repeat=1: one warm run each)
        for name, parent, *_ in stages.STAGES:
            assert len(runs[name]) == n
            within = runs[parent] if parent else runs["total"]
            assert all(0 <= t <= w for t, w in zip(runs[name], within, strict=True)), (slot, name)
        # every query parses, leads, searches the full text and is assembled; a word is scored and re-ranked
        for name in ("parse", "lead", "full text", "whoosh scores", "re-rank", "assemble", "hits and snippets"):
            assert all(t > 0 for t in runs[name]), (slot, name)
        assert not any(runs["common questions"])  # one word is a lookup, not a question (rank.ASKED_WORDS)


def test_the_table_names_every_stage(data_dir):
    got = stages.measure(Store.open(data_dir), {"one word": QUERY_CLASSES["one word"][:3]}, repeat=1)
    said: list[str] = []
    stages.table(got, say=said.append)
    text = "\n".join(said)
    for name, *_ in stages.STAGES:
        assert name in text
    assert said[1] == "-- one word (3 queries reaching the index)"
