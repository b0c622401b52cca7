"""The learned ranker (kb.learned): the shipped weights, the features on the real corpus, the training data's
split by record, the common questions held out of the evaluation searcher, and stale weights.

CI has no scikit-learn: only the training loop's test needs it (skipped without it); everything else runs on the
shipped weights and the real corpus.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from corpus.questions import FRESH, QUESTIONS, answers
from kb.learned import FEATURES, MANIFEST, WEIGHTS, Learned, features, load, manifest, reason_feature
from kb.learned.data import (FOLDS, Collector, answered, data_digest, evaluation_table, fold_of, fold_table,
                             prepare, window)
from kb.semantic.data import split_of

ROOT = Path(__file__).resolve().parent.parent
QUESTION = "when does damage wear off"  # full text: no rule number, card name or title leads


class _Reasons:
    """A learned ranker's place on a searcher that keeps each window's candidates' reasons (Candidate.why)."""

    def __init__(self) -> None:
        self.why: list[list[str]] = []

    def reorder(self, candidates, lexical):
        self.why += [list(c.why) for c in candidates]
        return candidates


@pytest.fixture(scope="module")
def plain(store):
    """A searcher of the bundled build without an answer cache: each search re-ranks its window (the session's
    ``searcher`` answers a question asked before from memory)."""
    from kb.search import Searcher

    s = Searcher(store, cache_size=0)
    yield s
    s.close()


@pytest.fixture(scope="module")
def data(store):
    return prepare(store.manifest.get("asked", ()), store.records)


# -- the run-time scorer on the shipped weights ------------------------------------------------------------------
def test_the_shipped_weights_load_and_name_only_known_features():
    learned = load()
    assert learned is not None
    raw = WEIGHTS.read_bytes()
    assert learned.version == hashlib.sha256(raw).hexdigest()[:12]
    assert set(learned.weights) <= set(FEATURES) and len(learned.weights) >= 10
    assert json.loads(raw)["features"] == list(FEATURES)  # trained on the features this code extracts
    found = manifest()
    assert found is not None and found["version"] == learned.version


def test_weights_of_unknown_features_or_a_broken_file_are_not_loaded(tmp_path):
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "other.json").write_text(json.dumps({"weights": {"no such feature": 1.0}}), encoding="utf-8")
    assert load(tmp_path / "bad.json") is None
    assert load(tmp_path / "other.json") is None
    assert load(tmp_path / "missing.json") is None


def test_the_learned_ranker_reorders_a_real_querys_window_by_its_scores(store, plain):
    from kb.search import Searcher

    learned = load()
    assert learned is not None
    found = window(plain, QUESTION)  # the window as the hand-tuned re-rank left it
    assert found is not None and len(found.ids) >= 10
    scored = learned.scores(found.features)
    expected = [found.ids[i] for i in sorted(range(len(found.ids)), key=lambda i: (-scored[i], i))]
    on = Searcher(store, cache_size=0, learned=True)
    try:
        assert on.learned is not None and on.learned.version == learned.version
        first = [h.id for h in on.search(QUESTION, limit=10).hits]
        again = [h.id for h in on.search(QUESTION, limit=10).hits]
    finally:
        on.close()
    assert first == again == expected[:10]
    assert plain.learned is None  # off unless asked for (KB_RANKER)


def test_equal_scores_keep_the_hand_tuned_order():
    def candidate(n: int) -> SimpleNamespace:
        return SimpleNamespace(record=SimpleNamespace(id=f"cr/{n}", doc="cr", kind="rule"), score=1.0, docnum=n, why=[])

    got = Learned({}, "none").reorder([candidate(3), candidate(1), candidate(2)], {3: 1.0, 1: 1.0, 2: 1.0})
    assert [c.docnum for c in got] == [3, 1, 2]


# -- features on the real corpus ----------------------------------------------------------------------------------
def test_every_reason_the_rerank_gives_is_a_feature(plain):
    reasons = _Reasons()
    plain.learned = reasons  # the re-rank explains itself for a learned ranker: every reason it gives is read
    try:
        for question, _ in QUESTIONS + FRESH:
            plain.search(question, limit=10)
    finally:
        plain.learned = None
    given = {r for why in reasons.why for r in why}
    assert len(given) > 100  # coverage values, asked matches, pointers ... of many windows
    assert {r for r in given if reason_feature(r) is None} == set()
    named = {reason_feature(r)[0] for r in given}  # type: ignore[index]
    assert {"coverage", "asked", "heading", "glossary", "word pairs"} <= named


def test_a_windows_features(plain):
    found = window(plain, QUESTION)
    assert found is not None
    for i, f in enumerate(found.features):
        assert set(f) <= set(FEATURES)
        assert sum(1 for name in f if name.startswith("kind ")) == 1 == sum(1 for name in f if name.startswith("doc "))
        assert f["hand place"] == pytest.approx(1 / (1 + i))
        assert f["hand"] <= 0 and 0 <= f.get("coverage", 0) <= 1
    assert found.features[0]["hand"] == 0  # the best of the window, by hand
    assert max(f["lexical"] for f in found.features) == 0  # Whoosh's best
    assert any("coverage" in f for f in found.features)


def test_features_of_no_candidates():
    assert features([], {}) == []


# -- the training data: split by record, the common questions held out ---------------------------------------------
def test_the_split_by_record_puts_no_record_in_two_splits(store, data):
    records = store.records
    sides: dict[str, set[str]] = {}
    for name, examples in (("train", data.train), ("dev", data.dev), ("test", data.test)):
        assert examples, name
        for example in examples:
            listed = answered(example, records)
            assert listed and {split_of(rid) for rid in listed} == {name}, example
            for rid in listed:
                sides.setdefault(rid, set()).add(name)
    assert all(len(s) == 1 for s in sides.values())
    questions = [{e.question.lower() for e in split} for split in (data.train, data.dev, data.test)]
    assert not (questions[0] & questions[1] or questions[0] & questions[2] or questions[1] & questions[2])


def test_the_evaluation_searcher_holds_no_dev_or_test_records_common_questions(store, data):
    from kb.search import Searcher

    asked = store.manifest.get("asked", ())
    held = evaluation_table(asked)
    assert held and {split_of(e["record"]) for e in held} == {"train"}
    assert any(split_of(e["record"]) != "train" for e in asked)
    own = [e for e in data.dev + data.test if e.source == "asked"][:40]
    assert len(own) == 40
    evaluation = Searcher(store, cache_size=0)
    try:
        served = [h.asked for e in own for h in evaluation.search(e.question, limit=10).hits]
        evaluation.asked = evaluation.asked_table(held)
        measured = [(e.question, h.asked) for e in own for h in evaluation.search(e.question, limit=10).hits]
    finally:
        evaluation.close()
    questions = {e.question for e in own}
    assert questions & set(served)  # as served, a curated question finds itself in the table
    assert not [m for m in measured if m[1] is not None and m[1] in questions]  # measured, never


def test_a_training_question_is_never_in_its_own_folds_table(store, data):
    asked = store.manifest.get("asked", ())
    for fold in range(FOLDS):
        table = {q.strip().lower() for e in fold_table(asked, fold) for q in e["asked"]}
        mine = {e.question.lower() for e in data.train if fold_of(e.question) == fold and e.source == "asked"}
        assert mine and not mine & table


def test_the_collector_leaves_the_order_alone(plain):
    hand = [h.id for h in plain.search(QUESTION, limit=10).hits]
    collector = Collector()
    plain.learned = collector
    try:
        collected = [h.id for h in plain.search(QUESTION, limit=10).hits]
    finally:
        plain.learned = None
    assert collected == hand and collector.last is not None and collector.last.ids[:3] == hand[:3]


# -- what ships --------------------------------------------------------------------------------------------------
def test_the_weights_were_trained_on_todays_curated_questions():
    found = manifest()
    assert found is not None, f"no manifest at {MANIFEST}"
    assert found["data_digest"] == data_digest(ROOT / "corpus"), (
        "corpus/asked or corpus/questions.py changed since the learned ranker was trained: "
        "run kb train and commit the weights (kb/learned/weights.json and manifest.json)")


def test_the_manifest_says_what_made_the_weights():
    found = manifest()
    assert found is not None
    for key in ("version", "data_digest", "seed", "settings", "questions", "figures"):
        assert key in found
    for split in ("dev", "test"):
        got = found["figures"][split]
        assert got["n"] == found["questions"][split] and set(got) >= {"lexical", "learned"}


@pytest.mark.skipif(importlib.util.find_spec("sklearn") is None, reason="scikit-learn (the train extra) is absent")
def test_training_is_deterministic(plain, data):
    from kb.learned.train import _fit, _pairs

    some = [(e, window(plain, e.question)) for e in data.train[:150]]
    x, y, w = _pairs(some)
    assert len(y) and set(y) == {0.0, 1.0}
    first, second = _fit(x, y, w, 1.0), _fit(x, y, w, 1.0)
    assert first == second and set(first) <= set(FEATURES)
    learned = Learned(first, "test")
    right = sum(answers(found.ids[max(range(len(found.ids)), key=lambda i: learned.scores(found.features)[i])],
                        set(e.answers)) for e, found in some if found is not None)
    assert right >= len(some) // 3  # it learned something: its first pick answers a good share of its own data


def test_health_names_the_learned_ranker_only_when_it_is_on(client, data_dir, monkeypatch):
    from web.app import create_app

    assert client.get("/api/health").get_json()["ranker"] is None  # off by default
    monkeypatch.setenv("KB_RANKER", "1")
    on = create_app({"KB_DATA": str(data_dir), "TESTING": True}).test_client()
    learned = load()
    assert learned is not None and on.get("/api/health").get_json()["ranker"] == learned.version
    got = on.get("/api/search?q=" + QUESTION.replace(" ", "+")).get_json()["results"]
    assert got and got[0]["id"]  # answers with it on


@pytest.mark.skipif(importlib.util.find_spec("sklearn") is not None,
                    reason="scikit-learn is installed: kb train would train")
def test_kb_train_without_scikit_learn_says_what_to_install(capsys):
    from web.cli import main

    assert main(["train"]) == 1
    assert "scikit-learn" in capsys.readouterr().err


def test_the_ranker_is_on_by_default_only_when_it_pays():
    from web.settings import SETTINGS

    found = manifest()
    assert found is not None and isinstance(found["pays"], bool)
    default = next(s.default for s in SETTINGS if s.name == "KB_RANKER")
    assert default is found["pays"]
