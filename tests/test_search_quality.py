"""Search quality on the real corpus: realistic questions, answered at rank 1 and in the top 3."""
from __future__ import annotations

import pytest

from kb.questions import QUESTIONS, answers


@pytest.fixture(scope="module")
def ranks(searcher):
    out = {}
    for question, expected in QUESTIONS:
        ids = [h.id for h in searcher.search(question, limit=10).hits]
        out[question] = next((i + 1 for i, rid in enumerate(ids) if answers(rid, expected)), None)
    return out


def test_there_are_enough_questions_across_all_documents():
    assert len(QUESTIONS) >= 40
    docs = {rid.split("/")[0] for _, expected in QUESTIONS for rid in expected}
    assert {"treachery", "uncommander", "futuresight"} <= docs


def test_every_answer_exists(store):
    missing = [q for q, a in QUESTIONS if not any(answers(rid, a) for rid in store.records)]
    assert missing == []


def test_quality_bars(ranks):
    n = len(ranks)
    top1 = sum(1 for r in ranks.values() if r == 1)
    top3 = sum(1 for r in ranks.values() if r is not None and r <= 3)
    misses = {q: r for q, r in ranks.items() if r != 1}
    assert top3 / n >= 0.95, f"top-3 {top3}/{n}; not first: {misses}"
    assert top1 / n >= 0.85, f"rank-1 {top1}/{n}; not first: {misses}"
