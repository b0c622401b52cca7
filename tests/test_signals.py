"""The ranking signals are a registry of named features: an unknown name is an error, turning one off is scoped."""
from __future__ import annotations

import ast
import threading
from pathlib import Path

import pytest

from kb import rank
from kb.signals import SIGNALS, Signal, Signals, UnknownSignal

KB = Path(rank.__file__).parent


def _checked_names() -> dict[str, list[str]]:
    """Every signal name kb checks (``"name" in SIGNALS``, ``in rank.SIGNALS``, ``in on`` with ``on = SIGNALS``),
    and where: read from the source, so a check of a name nobody registered is found without running it."""
    found: dict[str, list[str]] = {}
    for path in sorted(KB.rglob("*.py")):  # kb.search is a package of its own
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Compare) or not isinstance(node.left, ast.Constant) \
                    or not isinstance(node.left.value, str):
                continue
            for op, right in zip(node.ops, node.comparators, strict=True):
                target = right.attr if isinstance(right, ast.Attribute) else getattr(right, "id", None)
                if isinstance(op, ast.In | ast.NotIn) and target in {"SIGNALS", "on"}:
                    found.setdefault(node.left.value, []).append(f"{path.name}:{node.lineno}")
    return found


def test_every_name_kb_checks_is_registered_and_every_registered_one_is_checked():
    checked = set(_checked_names()) | set(rank.ASKS)  # the question words' signals are checked by their ASKS key
    assert len(checked) > 25
    assert checked - SIGNALS.names == set()
    assert SIGNALS.names - checked == set()


def test_each_signal_says_what_it_reads_and_does():
    assert len(SIGNALS) == 40
    for s in SIGNALS:
        assert s.reads and s.doc and "\n" not in s.doc, s.name
        assert set(s.stage.split(", ")) <= {"query", "lead", "rank"}, s.name


def test_an_unknown_name_is_an_error_not_off():
    with pytest.raises(UnknownSignal, match="no ranking signal is named 'sibling'"):
        "sibling" in SIGNALS  # noqa: B015 - the check itself is what raises
    with pytest.raises(UnknownSignal), SIGNALS.off("coverage", "covrage"):
        pass
    assert "coverage" in SIGNALS  # nothing was turned off by the failed call
    with pytest.raises(ValueError, match="registered twice"):
        Signals([Signal("a", "x", "y"), Signal("a", "x", "z")])


def test_off_lasts_for_its_block_and_nests():
    assert SIGNALS.on() == SIGNALS.names
    with SIGNALS.off("asked"):
        assert "asked" not in SIGNALS and "typos" in SIGNALS
        with SIGNALS.off("typos"):
            assert "asked" not in SIGNALS and "typos" not in SIGNALS
        assert "typos" in SIGNALS and "asked" not in SIGNALS
    assert SIGNALS.on() == SIGNALS.names


def test_off_in_one_thread_changes_nothing_another_answers():
    seen: list[bool] = []
    inside, done = threading.Event(), threading.Event()

    def other() -> None:
        inside.wait(10)
        seen.append("siblings" in SIGNALS)
        done.set()

    t = threading.Thread(target=other)
    t.start()
    with SIGNALS.off("siblings"):
        inside.set()
        done.wait(10)
        assert "siblings" not in SIGNALS
    t.join()
    assert seen == [True]


def test_turning_a_signal_off_changes_the_ranking_it_measures(store):
    """The registry's switch reaches the ranking: without "numbers", "six players" no longer finds "6 players".
    (Measured without the answer cache: a kept answer does not know what was off when it was made.)"""
    from kb.search import Searcher

    searcher = Searcher(store, cache_size=0)
    text = "six players"
    on = searcher.search(text, limit=50)
    with SIGNALS.off("numbers"):
        off = searcher.search(text, limit=50)
    again = searcher.search(text, limit=50)
    assert [h.id for h in on.hits] == [h.id for h in again.hits]
    searcher.close()
    assert [h.id for h in on.hits] != [h.id for h in off.hits]


def test_each_pass_of_the_re_rank_reads_what_is_off_in_its_own_context(cr_store):
    """The re-rank's passes read the signals on once each (``SIGNALS.on()``), not at every check: a signal turned
    off for a block still changes the scores it weighs in every pass, and back on they are as before."""
    from kb.search import Searcher

    searcher = Searcher(cr_store, cache_size=0)
    questions = ["who is the starting player", "what happens when a player has ten poison counters",
                 "what life do we start at in treachery", "what happens when my commander dies",
                 "can a traitor win with the leader"]

    def scores() -> list[list[tuple[str, float]]]:
        return [[(h.id, h.score) for h in searcher.search(q, limit=50).hits] for q in questions]

    before = scores()
    passes = ["coverage", "heading", "word pairs", "asked", "named", "implied document", "term's rules", "history",
              "older rules", "variants", "glossary", "asks more", "heading only", "superseded",
              "keyword below its rules", "siblings"]
    unchanged = []
    for name in passes:
        with SIGNALS.off(name):
            if scores() == before:
                unchanged.append(name)
    assert scores() == before
    searcher.close()
    assert unchanged == []
