"""The cross-encoder (kb.cross): at run time with the shipped weights through onnxruntime it re-orders a question's
first few results and nothing else, the same way every time, and off (the default) changes nothing; its training
data (kb.cross.data) made without PyTorch on the real corpus; its training loop only where torch is installed."""
from __future__ import annotations

import hashlib
import importlib.util
import shutil

import pytest

from corpus.questions import answers
from kb.cross import MODEL_DIR, MODEL_FILE, Pairs, Settings, load, manifest, model_id
from kb.learned.data import SUITES, data_digest, fold_of, prepare
from kb.search import Searcher
from kb.semantic.data import split_of
from tests.conftest import CORPUS

QUESTIONS = ("what happens to face down identity cards when a player leaves",
             "can you proliferate counters on identity cards", "when do the assassins win",
             "how many assassins in a five player game", "who owns an identity card")


@pytest.fixture(scope="module")
def crossed(store):
    """With the stage on (it is off by default: KB_CROSS=1 turns it on)."""
    s = Searcher(store, cache_size=0, cross=True)
    yield s
    s.close()


@pytest.fixture(scope="module")
def plain(store):
    s = Searcher(store, cache_size=0)
    yield s
    s.close()


def test_the_shipped_model_scores_an_answer_above_an_unrelated_record():
    pairs = Pairs()
    got = pairs.logits("can my creature with deathtouch kill a big blocker",
                       ["Deathtouch. A creature dealt damage by a source with deathtouch is destroyed.",
                        "The starting player is chosen at random at the start of the game."])
    assert got.shape == (2,) and got[0] > got[1]
    assert (pairs.logits("when do the assassins win", ["a", "b b"]) ==
            pairs.logits("when do the assassins win", ["a", "b b"])).all()  # the same every time


def test_a_question_is_reordered_within_its_first_results_only(crossed, plain):
    assert crossed.cross is not None and plain.cross is None
    depth = crossed.cross.settings.depth
    moved = 0
    for question in QUESTIONS:
        ours = [h.id for h in crossed.search(question, limit=100).hits]
        theirs = [h.id for h in plain.search(question, limit=100).hits]
        assert sorted(ours[:depth]) == sorted(theirs[:depth]) and ours[depth:] == theirs[depth:]  # none added or lost
        assert [h.id for h in crossed.search(question, limit=100).hits] == ours  # deterministic
        moved += ours != theirs
    assert moved  # it does something


@pytest.mark.parametrize("query", ["907.4b", "rule 115", "The Metamorph", "tarmogyof", "unveil", "lifelink",
                                   '"special action"', "nut counters"])
def test_what_the_lead_or_a_short_query_answers_is_untouched(crossed, plain, query):
    assert [h.id for h in crossed.search(query).hits] == [h.id for h in plain.search(query).hits]


def test_off_is_the_default_and_changes_nothing(store, plain):
    default = Searcher(store, cache_size=0)
    try:
        assert default.cross is None
        for question in QUESTIONS:
            assert [h.id for h in default.search(question, limit=50).hits] == \
                [h.id for h in plain.search(question, limit=50).hits]
    finally:
        default.close()


def test_the_blend_weighs_the_model(crossed):
    from kb.rank import Candidate

    stage = crossed.cross
    question = "what happens to face down identity cards when a player leaves"
    top = [Candidate(crossed.store.records[rid], score, None)
           for rid, score in (("treachery/907.3", 3.0), ("treachery/702.187g", 2.0), ("treachery/907.13", 1.0))]
    assert stage.rerank("nut counters", top) == top  # not question-shaped
    assert stage.with_settings(Settings(weight=1e-9, depth=3)).rerank(question, top) == top  # lexical order wins
    alone = stage.with_settings(Settings(weight=0.0, depth=3)).rerank(question, top)
    logits = stage.pairs.logits(question, [stage.text_of(c.record) for c in top])
    assert [c.record.id for c in alone] == [top[i].record.id for i in sorted(range(3), key=lambda i: -logits[i])]
    assert stage.with_settings(Settings(weight=0.0, depth=1)).rerank(question, top) == top


def test_without_the_model_files_the_stage_is_off(store, tmp_path):
    assert manifest(tmp_path) is None and model_id(tmp_path) is None
    assert load(store.records, folder=tmp_path) is None
    shutil.copy(MODEL_DIR / "manifest.json", tmp_path / "manifest.json")
    assert load(store.records, folder=tmp_path) is None  # a manifest without its model


def test_health_names_the_cross_model_only_when_it_is_on(client, data_dir, monkeypatch):
    from web.app import create_app

    assert client.get("/api/health").get_json()["cross_model"] is None  # off by default
    monkeypatch.setenv("KB_CROSS", "1")
    on = create_app({"KB_DATA": str(data_dir), "TESTING": True}).test_client()
    assert on.get("/api/health").get_json()["cross_model"] == model_id()
    assert on.get("/api/search?q=when+do+the+assassins+win").status_code == 200


def test_the_manifest_names_what_made_the_weights():
    shipped = manifest()
    assert shipped is not None, "no model in kb/cross/model: run kb train --cross"
    assert shipped["base_model"] == "sentence-transformers/all-MiniLM-L6-v2" and "Apache-2.0" in shipped["licence"]
    assert {"seed", "steps", "groups_digest", "figures", "settings", "pays"} <= set(shipped)
    assert {"lexical", "cross"} <= set(shipped["figures"]["test"]) and shipped["figures"]["test"]["n"] > 500
    assert shipped["version"] == hashlib.sha256((MODEL_DIR / MODEL_FILE).read_bytes()).hexdigest()[:12]
    assert "Apache License" in (MODEL_DIR / "LICENSE").read_text(encoding="utf-8")
    assert "all-MiniLM-L6-v2" in (MODEL_DIR / "NOTICE").read_text(encoding="utf-8")


def test_the_stage_is_on_by_default_only_when_it_pays():
    """On by default needs both: ``pays`` on the split by record and the suites, and the CPU budget (10 ms p50 a
    question, everything included), which the shipped model is over ~15x (docs/semantic.md, "Cross-encoder")."""
    from web.settings import SETTINGS

    found = manifest()
    assert found is not None and isinstance(found["pays"], bool)
    default = next(s.default for s in SETTINGS if s.name == "KB_CROSS")
    assert default is False and found["pays"] is False


def test_the_shipped_model_was_trained_on_todays_curated_data():
    """Fails when corpus/asked or corpus/questions.py changed since `kb train --cross` made the shipped weights:
    retrain (docs/semantic.md, "Cross-encoder") and commit, or say in the commit why not."""
    shipped = manifest()
    assert shipped is not None
    assert shipped["curated_digest"] == data_digest(CORPUS), \
        "the curated questions changed since the cross-encoder was trained: run kb train --cross"


# -- the training data, on the real corpus (the official rules loaded) ----------------------------------------------
@pytest.fixture(scope="module")
def cr_searcher(cr_store):
    s = Searcher(cr_store, cache_size=0)
    yield s
    s.close()


def test_groups_hold_an_answer_and_lexical_searchs_wrong_train_records(cr_store, cr_searcher):
    from kb.cross.data import LOOK, NEGATIVES, groups
    from kb.learned.data import Data, fold_table

    asked = list(cr_store.manifest.get("asked", ()))
    data = prepare(asked, cr_store.records)
    some = Data(data.train[::60], [], [])
    served = cr_searcher.asked
    tables: list[int] = []

    def table(entries: list[dict]) -> None:
        tables.append(len(entries))
        cr_searcher.asked = cr_searcher.asked_table(entries)

    def lexical(question: str) -> list[str]:
        return [h.id for h in cr_searcher.search(question, limit=LOOK).hits]

    try:
        made = groups(data=some, asked=asked, lexical=lexical, table=table, records=cr_store.records)
        assert tables == [len(fold_table(asked, 0)), len(fold_table(asked, 1))]  # each fold without its own questions
        assert len(made) > 0.7 * len(some.train)
        by_question = {e.question: e for e in some.train}
        for group in made:
            example = by_question[group.question]
            assert answers(group.positive, set(example.answers)) and split_of(group.positive) == "train"
            assert 1 <= len(group.negatives) <= NEGATIVES
            assert not any(answers(n, set(example.answers)) for n in group.negatives)
            assert {split_of(n) for n in group.negatives} == {"train"}
        # the negatives are what the search meets for the question, its own fold's questions left out
        group = made[0]
        table(fold_table(asked, fold_of(group.question)))
        assert set(group.negatives) <= set(lexical(group.question))
        assert groups(some, asked, lexical, table, cr_store.records) == made  # deterministic
    finally:
        cr_searcher.asked = served
    assert set(SUITES) >= {"QUESTIONS", "CR_QUESTIONS"}


def test_kb_train_cross_without_the_train_extra_says_what_to_install(capsys):
    from web.cli import main

    if importlib.util.find_spec("torch") is not None:
        pytest.skip("torch is installed here: kb train --cross would train")
    assert main(["train", "--cross"]) == 1
    assert "pip install torch==2.13.0" in capsys.readouterr().err
    assert main(["train", "--cross", "--semantic"]) == 1  # one at a time


def test_the_training_loop_learns_where_torch_is_installed():
    """Two steps on two groups (the train extra only: CI has no PyTorch)."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from kb.cross.data import Group
    from kb.cross.train import _fine_tune

    texts = {"a": "Deathtouch. A creature dealt damage by a source with deathtouch is destroyed.",
             "b": "The starting player is chosen at random.", "c": "Trample. Excess damage goes to the player."}
    made = [Group("what does deathtouch do", "a", ("b", "c")), Group("what is trample", "c", ("a",))]
    first = _fine_tune(made, texts, 2, 0, lambda _: None)
    second = _fine_tune(made, texts, 2, 0, lambda _: None)
    import torch

    assert all(torch.equal(a, b) for a, b in zip(first.state_dict().values(), second.state_dict().values(),
                                                   strict=True))  # seed 0, one thread: the same weights
