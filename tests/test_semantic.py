"""The semantic stage at run time, with the shipped weights through onnxruntime (kb.semantic): it re-orders a
question's best lexical hits and nothing else, its vectors are made once per text and belong to the build, and
search works without it (KB_SEMANTIC=0, no model files, a build without vectors)."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from kb.search import Searcher
from kb.semantic import MODEL_DIR, Encoder, Settings, manifest, model_id
from kb.semantic.vectors import BUILD_IDS, BUILD_VECTORS, open_stage
from kb.store import Store, current_build_dir
from tests.conftest import copy_data, kb_build


@pytest.fixture(scope="module")
def encoder():
    return Encoder()


@pytest.fixture(scope="module")
def lexical(store):
    s = Searcher(store, cache_size=0, semantic=False)
    yield s
    s.close()


def test_the_shipped_model_embeds_a_question_near_its_answer(encoder):
    question, answer, other = encoder.embed([
        "can my creature with deathtouch kill a big blocker",
        "Deathtouch. A creature dealt damage by a source with deathtouch is destroyed.",
        "The starting player is chosen at random at the start of the game."])
    assert question.shape == (384,) and abs(float(np.linalg.norm(question)) - 1) < 1e-4
    assert question @ answer > question @ other + 0.2


def test_the_build_holds_its_records_vectors(store, data_build):
    build = current_build_dir(store.path.parent.parent)
    ids = json.loads((build / BUILD_IDS).read_text(encoding="utf-8"))
    vectors = np.load(build / BUILD_VECTORS)
    assert ids["model"] == model_id() and sorted(ids["ids"]) == sorted(store.records)
    assert vectors.shape == (len(store.records), 384)
    # the bundled corpus's vectors ship with the model: its first build embeds nothing
    assert "embedding" not in data_build[1].stderr


def test_a_question_is_reordered_within_its_best_hits_only(searcher, lexical):
    assert searcher.semantic is not None and lexical.semantic is None
    depth = searcher.semantic.settings.depth
    moved = 0
    for question in ("what happens to face down identity cards when a player leaves",
                     "can you proliferate counters on identity cards", "when do the assassins win",
                     "how many assassins in a five player game", "who owns an identity card"):
        ours = [h.id for h in searcher.search(question, limit=100).hits]
        theirs = [h.id for h in lexical.search(question, limit=100).hits]
        assert sorted(ours[:depth]) == sorted(theirs[:depth]) and ours[depth:] == theirs[depth:]
        moved += ours != theirs
    assert moved  # it does something


@pytest.mark.parametrize("query", ["907.4b", "rule 115", "The Metamorph", "tarmogyof", "unveil", "lifelink",
                                   '"special action"', "nut counters"])
def test_what_the_lead_or_a_short_query_answers_is_untouched(searcher, lexical, query):
    assert [h.id for h in searcher.search(query).hits] == [h.id for h in lexical.search(query).hits]


def test_the_stage_asks_only_question_shaped_queries(searcher):
    stage = searcher.semantic
    assert stage.asks("how does unveil work") and not stage.asks("nut counters")
    assert not stage.asks('"face down" identity card rules')


def test_without_the_model_files_search_is_lexical(store, tmp_path, lexical):
    assert manifest(tmp_path) is None and model_id(tmp_path) is None
    assert open_stage(store.path, folder=tmp_path) is None
    (tmp_path / "manifest.json").write_text((MODEL_DIR / "manifest.json").read_text(encoding="utf-8"))
    assert open_stage(store.path, folder=tmp_path) is None  # a manifest without its model


def test_a_build_without_vectors_is_served_lexical_only(data_dir, tmp_path):
    from web.app import create_app

    copy = copy_data(data_dir, tmp_path / "data")
    (current_build_dir(copy) / BUILD_VECTORS).unlink()
    client = create_app({"KB_DATA": str(copy), "TESTING": True}).test_client()
    health = client.get("/api/health").get_json()
    assert health["semantic"] is False and health["semantic_model"] is None
    assert client.get("/api/search?q=when+do+the+assassins+win").get_json()["hits"][0]["id"] == "treachery/907.8a"


def test_health_names_the_ranker_and_the_model(client):
    health = client.get("/api/health").get_json()
    assert health["semantic"] is True and health["semantic_model"] == model_id()
    assert health["ranker"]


def test_kb_semantic_0_serves_lexical_only(data_dir, monkeypatch):
    from web.app import create_app

    monkeypatch.setenv("KB_SEMANTIC", "0")
    client = create_app({"KB_DATA": str(data_dir), "TESTING": True}).test_client()
    health = client.get("/api/health").get_json()
    assert health["semantic"] is False and health["semantic_model"] is None


def test_kb_serve_has_a_no_semantic_switch():
    from web.cli import build_parser

    assert build_parser().parse_args(["serve", "--no-semantic"]).no_semantic is True


def test_the_blend_weighs_the_cosine(searcher):
    stage = searcher.semantic
    lexical_only = stage.with_settings(Settings(weight=0.0, depth=stage.settings.depth))
    question = "what happens to face down identity cards when a player leaves"
    from kb.rank import Candidate

    top = [Candidate(searcher.store.records[rid], score, None)
           for rid, score in (("treachery/907.13", 3.0), ("treachery/702.187g", 2.0), ("treachery/907.3", 1.0))]
    assert lexical_only.rerank(question, top) == top
    assert stage.rerank("nut counters", top) == top  # not question-shaped


@pytest.mark.slow
def test_a_rebuild_embeds_nothing_new(tmp_path, cr_build):
    """The first build with the official rules embeds them (with progress); a rebuild of the same release into
    the same data directory embeds nothing: the vectors are cached per text."""
    from tests.conftest import CR_2026

    assert "embedding" in cr_build[1].stderr and "embedded" in cr_build[1].stderr
    data = copy_data(cr_build[0], tmp_path / "data")
    again = kb_build(data, "--cr", str(CR_2026))
    assert again.returncode == 0, again.stderr
    assert "embedding" not in again.stderr
    stage = open_stage(current_build_dir(data))
    assert stage is not None and len(stage.rows) == len(Store.open(data).records)
    shutil.rmtree(data)
