"""The held-out sets (tests/heldout_questions.py), measured and pinned: never tuned on.

Each set's bundled questions are asked of the bundled build and of the build with the 2026 official
rules; its official-rules questions of the latter. The counts are pinned exactly, as the suite's are, so
that a regression shows and the README's held-out figures stay true. A change that wins questions here
updates the pins, but must not be chosen by reading these questions' failures.
"""
from __future__ import annotations

import pytest

from corpus.questions import answers
from tests import heldout_questions as H
from tests.conftest import SEMANTIC
from tests.test_search_quality import rank_of

# (rank 1, top 3) per set, asked of which build.
# Session 20: searched as served, the semantic stage on (model b2e6dcb5b57c, weight 2, depth 50, 3 words,
# keep_asked 0.9): over the 21 rows 1,035 / 1,168 (lexical) -> 1,049 / 1,189, of which the official-rules questions
# 311 / 365 -> 312 / 371. The weight's ceiling of 2 was set after these sets, at weight 3 to 6, answered fewer
# first (297 / 364 of the official-rules questions at 6): docs/semantic.md, "Why the weight stops at 2".
# Session 21: corpus/asked/cr_judged.toml (879 judge-written questions) joined the data, and the model was trained
# again on it (640f5f1104ec; weight 2, depth 30, 3 words, keep_asked 0.9): lexical 1,026 / 1,170, served
# 1,045 / 1,190, of which the official-rules questions 305 / 368 lexical, 312 / 373 served.
# Session 22: the nearest curated question's vote (asked_weight 2, asked_min 0.8; docs/semantic.md): eight rows
# moved, every one up in rank 1 (+13 in all), top 3 +4 and -1 (C official 57 -> 56).
# Session 23, hybrid candidates (dense_k 1, dense_lexical 0.5: the question's nearest record joins the blend when the
# lexical candidates lack it; docs/semantic.md): eight rows moved, none down: rank 1 +2 (F, I official), top 3 +7;
# the official-rules questions 316 / 373 -> 318 / 377.
PINS = {
    "C bundled": (H.BUNDLED_C, "bundled", (57, 59)),
    "C bundled, with the CR": (H.BUNDLED_C, "cr", (50, 59)),
    "C official": (H.CR_C, "cr", (47, 57)),
    "D bundled": (H.BUNDLED_D, "bundled", (55, 60)),
    # 49 -> 48 (fifteenth session): with the official rules loaded, "tribal" is read as their glossary renames it
    # (308 Kindreds first, issue 11's "the current official definition comes first"); the set's one tribal
    # question was written for the 2007 FAQ's answer (counted by the word alone, its answer not read)
    "D bundled, with the CR": (H.BUNDLED_D, "cr", (50, 57)),
    "D official": (H.CR_D, "cr", (46, 54)),
    "E bundled": (H.BUNDLED_E, "bundled", (56, 59)),
    "E bundled, with the CR": (H.BUNDLED_E, "cr", (54, 59)),
    "E official": (H.CR_E, "cr", (43, 50)),
    "F bundled": (H.BUNDLED_F, "bundled", (52, 60)),
    "F bundled, with the CR": (H.BUNDLED_F, "cr", (46, 56)),
    "F official": (H.CR_F, "cr", (39, 53)),
    "G bundled": (H.BUNDLED_G, "bundled", (58, 58)),
    # 55 -> 54 and 48 -> 47 (sixteenth session, issue 32 item 4): a number two documents use is the official rule
    # first, the variant's second ("702.187c", "rule 702.187c": each set's one question was written for Treachery's
    # 702.187c, now at 2; the top 3 holds)
    "G bundled, with the CR": (H.BUNDLED_G, "cr", (54, 58)),
    "G official": (H.CR_G, "cr", (46, 54)),
    "H bundled": (H.BUNDLED_H, "bundled", (55, 60)),
    "H bundled, with the CR": (H.BUNDLED_H, "cr", (49, 59)),
    "H official": (H.CR_H, "cr", (49, 54)),
    "I bundled": (H.BUNDLED_I, "bundled", (54, 60)),
    "I bundled, with the CR": (H.BUNDLED_I, "cr", (52, 59)),
    # 45 -> 46 (fifteenth session, measured in aggregate after the judges' fixes: glossary renames, "rule N of
    # <document>", today's rule before 2007's; no question read)
    "I official": (H.CR_I, "cr", (48, 55)),
    # Session 24: two sets of 150 plain-language questions about the official rules, pinned as first measured (as
    # served; lexical alone J 96 / 124, K 91 / 111)
    "J official": (H.CR_J, "cr", (106, 131)),
    "K official": (H.CR_K, "cr", (97, 115)),
}


def test_the_held_out_sets_are_whole():
    sets = [H.BUNDLED_C, H.CR_C, H.BUNDLED_D, H.CR_D, H.BUNDLED_E, H.CR_E, H.BUNDLED_F, H.CR_F, H.BUNDLED_G, H.CR_G,
            H.BUNDLED_H, H.CR_H, H.BUNDLED_I, H.CR_I]
    assert [len(s) for s in sets] == [60] * 14
    assert all(1 <= len(expected) <= 4 for s in sets for _, expected in s)
    assert all(len({q for q, _ in s}) == 60 for s in sets)
    larger = [H.CR_J, H.CR_K]  # session 24: official-rules questions only, 150 a set
    assert [len({q for q, _ in s}) for s in larger] == [150, 150]
    assert all(1 <= len(expected) <= 3 for s in larger for _, expected in s)


@pytest.fixture(scope="module")
def searchers(request):
    """A searcher per build, opened on first use: the bundled sets run where ../shared (the official
    rules) is absent, and only the official-rules sets skip there."""
    from kb.search import Searcher

    opened: dict[str, Searcher] = {}

    def get(build: str) -> Searcher:
        if build not in opened:
            opened[build] = Searcher(request.getfixturevalue("store" if build == "bundled" else "cr_store"),
                                     semantic=SEMANTIC)  # as served
        return opened[build]

    yield get
    for s in opened.values():
        s.close()


@pytest.mark.parametrize("name", PINS)
def test_held_out_quality_is_pinned(searchers, name):
    questions, build, pinned = PINS[name]
    searcher = searchers(build)
    records = searcher.store.records
    missing = [q for q, a in questions if not any(answers(rid, a) for rid in records)]
    assert missing == []  # every answer is a record of the build asked
    ranks = [rank_of(searcher, q, expected) for q, expected in questions]
    top1 = sum(r == 1 for r in ranks)
    top3 = sum(bool(r and r <= 3) for r in ranks)
    assert (top1, top3) == pinned, f"{name}: rank 1 {top1}/{len(ranks)}, top 3 {top3}"
