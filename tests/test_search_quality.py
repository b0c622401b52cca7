"""Search quality on the real corpus: realistic questions, answered at rank 1 and in the top 3.

The counts are pinned exactly (not as a floor): a change that loses a question fails here, and
a change that wins one updates the pin, so the suite's figures in the README stay true. Run
with the official rules loaded in tests/test_official.py.
"""
from __future__ import annotations

import pytest

from corpus.questions import CR_FRESH, CR_FRESH_2, CR_TABLE_TALK, FRESH, FRESH_2, QUESTIONS, TABLE_TALK, answers

# Answered at rank 1 and in the top 3, out of len(QUESTIONS), with the three bundled documents. 148 -> 147 in
# the twelfth session: the keyword pages flying and reach read their second sub-rule too (kb.snippet.leading),
# two texts longer, and BM25's average length with them: "can I augment without a host" (UnCommander) now has
# host-and-augment/h first by a hair, the wanted /d second; no other question moved, in any set. 147 -> 148 in the
# fourteenth session: a player who dies has lost the game, not gone to a graveyard (corpus/vocabulary.toml).
# Session 20: searched as served, the semantic stage on by default (148 / 159 lexical alone). 153 -> 152 in
# session 21, the model trained again with corpus/asked/cr_judged.toml (640f5f1104ec): "my secret identity" has
# its record second. 152 -> 153 in session 22: the nearest curated question's vote (asked_weight 2, asked_min 0.8).
RANK_1, TOP_3 = 153, 160
# The fresh batches, kept apart: FRESH was written before the second round of tuning (52 / 62 before it)
# and then tuned on; FRESH_2 was written later and never tuned on (14 / 18 with the ranking before the round;
# 16 / 19 when first measured, before the last change, a lower coverage floor, chosen on the other sets).
# FRESH lost one top-3 place to the vocabulary's plural "board wipes" (-> destroy all creatures, as "board wipe"
# already was): "do board wipes hit identity cards" found 372.2 at 2 only because it knew none of those words.
# With the semantic stage on by default (session 20; lexical alone 72 / 77 and 21 / 22). FRESH 74 -> 73 in session
# 21 (the model trained again): "does turning an identity face up with an effect count as unveiling" second.
FRESH_PINS = {"fresh": (FRESH, (73, 78)), "fresh 2": (FRESH_2, (23, 23))}


def rank_of(searcher, question: str, expected: set[str]) -> int | None:
    ids = [h.id for h in searcher.search(question, limit=10).hits]
    return next((i + 1 for i, rid in enumerate(ids) if answers(rid, expected)), None)


@pytest.fixture(scope="module")
def ranks(searcher):
    return [(question, rank_of(searcher, question, expected)) for question, expected in QUESTIONS]


def test_there_are_enough_questions_across_all_documents():
    assert len(QUESTIONS) >= 150
    assert len(TABLE_TALK) + len(CR_TABLE_TALK) >= 60
    docs = {rid.split("/")[0] for _, expected in QUESTIONS for rid in expected}
    assert {"treachery", "uncommander", "futuresight"} <= docs


def test_every_answer_exists(store):
    missing = [q for q, a in QUESTIONS if not any(answers(rid, a) for rid in store.records if not rid.startswith("cr/"))
               and not all(x.startswith("cr/") for x in a)]
    assert missing == []


def test_the_fresh_batches_are_apart_and_answerable(store):
    assert len(FRESH) + len(CR_FRESH) >= 60
    batches = [{q for q, _ in batch} for batch in (QUESTIONS, FRESH + CR_FRESH, FRESH_2 + CR_FRESH_2)]
    assert sum(map(len, batches)) == len(set().union(*batches))  # no question in two batches
    missing = [q for q, a in FRESH + FRESH_2 if not any(answers(rid, a) for rid in store.records)]
    assert missing == []


@pytest.mark.parametrize("batch", FRESH_PINS)
def test_fresh_quality_is_pinned(searcher, batch):
    questions, pinned = FRESH_PINS[batch]
    ranks = [(question, rank_of(searcher, question, expected)) for question, expected in questions]
    top1 = sum(1 for _, r in ranks if r == 1)
    top3 = sum(1 for _, r in ranks if r is not None and r <= 3)
    misses = [(q, r) for q, r in ranks if r != 1]
    assert (top1, top3) == pinned, f"rank-1 {top1}/{len(ranks)}, top-3 {top3}; not first: {misses}"


def test_quality_is_pinned(ranks):
    top1 = sum(1 for _, r in ranks if r == 1)
    top3 = sum(1 for _, r in ranks if r is not None and r <= 3)
    misses = [(q, r) for q, r in ranks if r != 1]
    assert (top1, top3) == (RANK_1, TOP_3), f"rank-1 {top1}/{len(ranks)}, top-3 {top3}; not first: {misses}"
