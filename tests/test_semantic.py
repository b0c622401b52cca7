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
from kb.store import current_build_dir
from tests.conftest import copy_data


@pytest.fixture(scope="module")
def encoder():
    return Encoder()


@pytest.fixture(scope="module")
def searcher(store):
    """With the stage on (as served by default; KB_SEMANTIC=0 turns it off)."""
    s = Searcher(store, semantic=True)
    yield s
    s.close()


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
    # a row per record, then one per curated question the build loaded (the nearest question's vote)
    assert sorted(ids["asked"]) == sorted({q for e in store.manifest["asked"] for q in e["asked"]})
    assert vectors.shape == (len(store.records) + len(ids["asked"]), 384)
    # the bundled corpus's vectors ship with the model: its first build embeds nothing
    assert "embedding" not in data_build[1].stderr


def test_a_question_is_reordered_within_its_best_hits_only(searcher, lexical):
    """The stage re-orders a question's best ``depth`` lexical hits and the at most ``dense_k`` records nearest the
    question that they lack (kb.semantic.Settings.dense_k); the rest keep their lexical order."""
    assert searcher.semantic is not None and lexical.semantic is None
    depth, joined = searcher.semantic.settings.depth, searcher.semantic.settings.dense_k
    moved = 0
    for question in ("what happens to face down identity cards when a player leaves",
                     "can you proliferate counters on identity cards", "when do the assassins win",
                     "how many assassins in a five player game", "who owns an identity card"):
        ours = [h.id for h in searcher.search(question, limit=100).hits]
        theirs = [h.id for h in lexical.search(question, limit=100).hits]
        extra = [rid for rid in ours[:depth + joined] if rid not in theirs[:depth]]
        assert len(extra) <= joined and sorted(ours[:depth + len(extra)]) == sorted(theirs[:depth] + extra)
        rest = [rid for rid in theirs[depth:] if rid not in extra]
        assert ours[depth + len(extra):] == rest[:len(ours) - depth - len(extra)]
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


def test_a_build_without_vectors_is_served_lexical_only(data_dir, tmp_path, monkeypatch):
    from web.app import create_app

    monkeypatch.setenv("KB_SEMANTIC", "1")
    copy = copy_data(data_dir, tmp_path / "data")
    (current_build_dir(copy) / BUILD_VECTORS).unlink()
    client = create_app({"KB_DATA": str(copy), "TESTING": True}).test_client()
    health = client.get("/api/health").get_json()
    assert health["semantic"] is False and health["semantic_model"] is None
    assert client.get("/api/search?q=when+do+the+assassins+win").get_json()["results"][0]["id"] == "treachery/907.8a"


def test_health_names_the_ranker_and_the_model(client, data_dir, monkeypatch):
    from web.app import create_app

    health = client.get("/api/health").get_json()  # on by default
    assert health["semantic"] is True and health["semantic_model"] == model_id() and health["ranker"] is None
    monkeypatch.setenv("KB_SEMANTIC", "0")
    health = create_app({"KB_DATA": str(data_dir), "TESTING": True}).test_client().get("/api/health").get_json()
    assert health["semantic"] is False and health["semantic_model"] is None and health["ranker"] is None


def test_kb_semantic_0_serves_lexical_only(data_dir, monkeypatch):
    from web.app import create_app

    monkeypatch.setenv("KB_SEMANTIC", "0")
    client = create_app({"KB_DATA": str(data_dir), "TESTING": True}).test_client()
    health = client.get("/api/health").get_json()
    assert health["semantic"] is False and health["semantic_model"] is None


def test_kb_serve_has_a_no_semantic_switch():
    from web.cli import cli

    serve = cli.commands["serve"]
    assert serve.make_context("serve", ["--no-semantic"]).params["no_semantic"] is True
    assert serve.make_context("serve", []).params["no_semantic"] is False


def test_the_blend_weighs_the_cosine(searcher):
    stage = searcher.semantic
    lexical_only = stage.with_settings(Settings(weight=0.0, depth=stage.settings.depth))
    question = "what happens to face down identity cards when a player leaves"
    from kb.rank import Candidate

    top = [Candidate(searcher.store.records[rid], score, None)
           for rid, score in (("treachery/907.13", 3.0), ("treachery/702.187g", 2.0), ("treachery/907.3", 1.0))]
    assert lexical_only.rerank(question, top) == top
    assert stage.rerank("nut counters", top) == top  # not question-shaped


def test_the_nearest_curated_question_votes_for_the_record_it_answers(searcher):
    """The common question of the table in use nearest the question (in the model's space) lifts the record it
    answers in the blend; a table without that record's questions lifts nothing (kb.semantic.Settings.asked_weight)."""
    from kb.rank import Candidate

    stage, entries = searcher.semantic, searcher.store.manifest["asked"]
    entry = min((e for e in entries if e["record"].startswith("treachery/")), key=lambda e: e["record"])
    question, answer = entry["asked"][0], entry["record"]
    others = [rid for rid in sorted(searcher.store.records) if rid.startswith("treachery/") and rid != answer][:2]
    top = [Candidate(searcher.store.records[rid], score, None)
           for rid, score in ((others[0], 3.0), (others[1], 2.0), (answer, 1.0))]
    # a cosine weighed too little to move anything: only the vote can
    voting = stage.with_settings(Settings(weight=1e-3, depth=3, asked_weight=1e4, asked_min=0.5))
    assert [c.record.id for c in voting.rerank(question, top, searcher.asked)] == [answer, *others]
    assert voting.with_settings(Settings(weight=1e-3, depth=3)).rerank(question, top, searcher.asked) == top
    without = searcher.asked_table([e for e in entries if e["record"] != answer])
    assert voting.rerank(question, top, without) == top
    matrix, _ = stage._questions_of(searcher.asked)
    assert np.shares_memory(matrix, stage.vectors)  # the served table's rows: the build's mapped matrix, no copy
    nearest = voting.nearest_asked(searcher.asked, searcher.semantic.encoder.embed([question])[0])
    assert nearest is not None and nearest[1] > 0.99 and question in next(
        e["asked"] for e in entries if e["record"] == nearest[0])


def test_the_nearest_records_are_every_records_cosine_best_first(searcher, encoder):
    """Stage.nearest_records: the question's cosine with every record vector of the build (the mapped matrix, read in
    place), the k best, nearest first; a record's own text finds that record first."""
    from kb.semantic.data import record_text

    stage, records = searcher.semantic, searcher.store.records
    assert len(stage.ids) == len(stage.rows) == len(records) and stage.ids[stage.rows["treachery/907.8a"]] == \
        "treachery/907.8a"
    question = encoder.embed(["when do the assassins win the game"])[0]
    nearest = stage.nearest_records(question, 5)
    cosines = np.asarray(stage.vectors[:len(stage.ids)], dtype=np.float32) @ question
    assert nearest == [stage.ids[i] for i in np.argsort(-cosines, kind="stable")[:5]]
    assert stage.nearest_records(question, 0) == [] and len(stage.nearest_records(question, 10 ** 6)) == len(records)
    own = encoder.embed([record_text(records["treachery/907.8a"], records)])[0]
    assert stage.nearest_records(own, 1) == ["treachery/907.8a"]


def test_dense_k_joins_the_nearest_records_the_candidates_lack(searcher):
    """With dense_k, the records nearest a question that its lexical candidates lack join the blend (a candidate
    made by ``add``, lexical part dense_lexical), each once; a record ``add`` leaves out (the query's filters)
    does not join; without ``add``, dense_k 0 or a query not question-shaped, nothing joins."""
    from dataclasses import replace

    from kb.rank import Candidate

    records = searcher.store.records
    question = "when do the assassins win the game"
    base = searcher.semantic.with_settings(replace(searcher.semantic.settings, dense_k=0, asked_weight=0.0))
    nearest = base.nearest_records(base.encoder.embed([question])[0], 4)
    others = [rid for rid in sorted(records) if rid.startswith("treachery/") and rid not in nearest][:3]
    top = [Candidate(records[rid], score, None) for rid, score in zip([nearest[1], *others], (4.0, 3.0, 2.0, 1.0),
                                                                      strict=True)]
    made: list[str] = []

    def add(rid: str) -> Candidate | None:
        made.append(rid)
        return None if rid == nearest[3] else Candidate(records[rid], 0.0, None)

    hybrid = base.with_settings(replace(base.settings, dense_k=4))
    got = [c.record.id for c in hybrid.rerank(question, top, add=add)]
    assert sorted(made) == sorted({nearest[0], nearest[2], nearest[3]})  # never one already a candidate
    assert sorted(got) == sorted([nearest[0], nearest[1], nearest[2], *others])  # each once; the filtered one out
    assert hybrid.rerank(question, top) == base.rerank(question, top)  # no add: only re-ordered
    assert base.rerank(question, top, add=add) == base.rerank(question, top) and not made[3:]  # dense_k 0
    assert hybrid.rerank("nut counters", top, add=add) == top  # not question-shaped
    # the lexical part a joined record has: at the best candidate's, the nearest record comes first
    first = base.with_settings(replace(base.settings, dense_k=4, dense_lexical=1.0, weight=1.0))
    assert first.rerank(question, top, add=add)[0].record.id == nearest[0]
    # fewer than two candidates are left as they are, never filled: a query that matches nothing is not run as typed
    # (kb.search.candidates: Candidates._finds_nothing) because the stage adds nothing to an empty list
    made.clear()
    assert hybrid.rerank(question, [], add=add) == [] and hybrid.rerank(question, top[:1], add=add) == top[:1]
    assert made == []


def test_vectors_are_embedded_once_per_text(store, tmp_path):
    """A build embeds only the texts the cache lacks (with progress), and only when asked to; a rebuild with the
    same text embeds nothing. (A model folder without the shipped bundled vectors, so that there is work.)"""
    from kb.semantic.vectors import write_build_vectors

    folder = tmp_path / "model"
    folder.mkdir()
    for name in ("model.onnx", "tokenizer.json", "manifest.json"):
        shutil.copy(MODEL_DIR / name, folder / name)
    records = sorted(store.records.values(), key=lambda r: r.id)[:40]
    data, first, second = tmp_path / "data", tmp_path / "b1", tmp_path / "b2"
    first.mkdir()
    second.mkdir()
    assert write_build_vectors(first, data, records, folder=folder, embed=False) == 0
    assert not (first / BUILD_VECTORS).exists()  # not asked to embed: the build has no vectors, and costs nothing
    said: list[str] = []
    assert write_build_vectors(first, data, records, said.append, folder=folder) == len(records)
    assert said[0].startswith(f"embedding {len(records)} of {len(records)} records") and "embedded" in said[-1]
    assert write_build_vectors(second, data, records, said.append, folder=folder, embed=False) == 0
    assert np.array_equal(np.load(first / BUILD_VECTORS), np.load(second / BUILD_VECTORS))
    stage = open_stage(second, folder=folder)
    assert stage is not None and sorted(stage.rows) == sorted(r.id for r in records)
    # a curated question is embedded and cached as a record is; not asked to embed, the records are written alone
    third, asked = tmp_path / "b3", ["how does unveil work"]
    third.mkdir()
    assert write_build_vectors(third, data, records, folder=folder, embed=False, questions=asked) == 0
    stage = open_stage(third, folder=folder)
    assert stage is not None and stage.questions == {} and len(stage.vectors) == len(records)
    assert write_build_vectors(third, data, records, folder=folder, questions=asked) == 1
    stage = open_stage(third, folder=folder)
    assert stage is not None and stage.questions == {asked[0]: len(records)}


def test_kb_train_without_the_train_extra_says_what_to_install(capsys):
    import importlib.util

    from web.cli import main

    if importlib.util.find_spec("torch") is not None:
        pytest.skip("torch is installed here: kb train --semantic would train")
    assert main(["train", "--semantic"]) == 1
    assert "pip install torch==2.13.0" in capsys.readouterr().err
    assert main(["train", "--ranker", "--semantic"]) == 1  # one at a time


# The suite with the stage on (bundled build), as tests/test_search_quality.py pins it (served: on by default),
# against lexical alone: QUESTIONS 148 / 159 -> 152 / 160, FRESH 72 / 77 -> 73 / 78, FRESH_2 21 / 22 -> 23 / 23
# (model 640f5f1104ec; weight 2, depth 30, 3 words, keep_asked 0.9; b2e6dcb5b57c had 153 / 160 and 74 / 78).
# session 22, the nearest curated question's vote: the suite 152 / 160 -> 153 / 160
SEMANTIC_PINS = {"suite": ("QUESTIONS", (153, 160)), "fresh": ("FRESH", (73, 78)), "fresh 2": ("FRESH_2", (23, 23))}


def test_the_stage_answers_more_first_over_the_suites_together(searcher, lexical):
    """The blend is chosen on all our own data together (docs/semantic.md, "Choosing the blend"): a list may lose a
    question that ranked first, the three together answer more first than lexical alone."""
    from corpus import questions
    from tests.test_search_quality import rank_of

    firsts = {}
    for name, (listed, pinned) in SEMANTIC_PINS.items():
        suite = getattr(questions, listed)
        ours = [rank_of(searcher, q, expected) for q, expected in suite]
        firsts[name] = (sum(r == 1 for r in ours), sum(rank_of(lexical, q, expected) == 1 for q, expected in suite))
        assert (sum(r == 1 for r in ours), sum(bool(r and r <= 3) for r in ours)) == pinned
    assert sum(ours for ours, _ in firsts.values()) > sum(theirs for _, theirs in firsts.values())


def test_kb_train_semantic_choose_measures_the_shipped_model_honestly(store, tmp_path):
    """``kb train --semantic --choose`` (kb.semantic.train.rechoose) measures every blend tried on dev and test as the
    learned ranker is measured: searched with the common questions of train records only, so that no dev or test
    question finds its own curated wording; the suites with the table as served. It keeps the blend answering the
    most questions first over dev and every suite together, rewrites the manifest's settings and figures, and
    leaves the searcher as it was."""
    from kb.learned.data import prepare
    from kb.semantic.train import EVALUATED, _measure, pays, rechoose

    folder = tmp_path / "model"
    shutil.copytree(MODEL_DIR, folder)
    searcher = Searcher(store, cache_size=0)
    served = searcher.asked
    tried = [Settings(0.5, 20, 3), Settings(2.0, 30, 3), Settings(6.0, 30, 3, 0.8)]
    try:
        made = rechoose(store, searcher, folder, say=lambda _: None, tried_settings=tried)
        assert searcher.asked is served and searcher.semantic is None
        data = prepare(list(store.manifest["asked"]), store.records)
        dev = [(e.question, e.answers) for e in data.dev]
        as_served = _measure(searcher, None, dev)  # the served table: dev questions match their own wording
    finally:
        searcher.close()
    written = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert written == json.loads(json.dumps(made))
    shipped = manifest()
    assert shipped is not None and written["version"] == model_id()
    assert written["pairs_digest"] == shipped["pairs_digest"]  # the same model, not retrained
    figures = written["figures"]
    assert figures["dev"]["n"] == len(data.dev) > 0 and figures["test"]["n"] == len(data.test) > 0
    suites = set(figures) - {"dev", "test", "suites"}
    assert {"QUESTIONS", "FRESH"} <= suites <= set(EVALUATED)  # those it can answer
    names = ["weight 0.5, depth 20, min_words 3, keep_asked 0.0", "weight 2.0, depth 30, min_words 3, keep_asked 0.0",
             "weight 6.0, depth 30, min_words 3, keep_asked 0.8"]
    assert list(figures["dev"]["tried"]) == list(figures["suites"]["tried"]) == names
    chosen = tried[next(n for n, s in enumerate(tried) if written["settings"] == {
        "weight": s.weight, "depth": s.depth, "min_words": s.min_words, "keep_asked": s.keep_asked,
        "asked_weight": s.asked_weight, "asked_min": s.asked_min, "dense_k": s.dense_k,
        "dense_lexical": s.dense_lexical})]
    named = names[tried.index(chosen)]
    assert figures["dev"]["semantic"] == figures["dev"]["tried"][named]
    assert figures["suites"]["semantic"] == figures["suites"]["tried"][named] == [
        sum(figures[n]["semantic"][0] for n in suites), sum(figures[n]["semantic"][1] for n in suites)]
    # the most first over dev and the suites together, then the most in the top three
    together = {n: (d[0] + figures["suites"]["tried"][n][0], d[1] + figures["suites"]["tried"][n][1])
                for n, d in figures["dev"]["tried"].items()}
    assert together[named] == max(together.values())
    assert as_served[0] > figures["dev"]["lexical"][0]  # measured honestly, not as served
    assert written["pays"] is pays(figures) and "evaluation table" in written["protocol"]


def test_a_common_questions_match_is_never_moved_down(official):
    """keep_asked: a record the common-questions table matched that closely stays at its lexical place or above, the
    blend moving the others around it; without it, a heavy blend moves such records down."""
    from kb.semantic import _not_below

    assert _not_below([3, 2, 1, 0], [0]) == [0, 3, 2, 1]
    assert _not_below([3, 0, 2, 1], [1, 3]) == [3, 1, 0, 2]  # 3 moved up, 1 kept its place
    on, off = official
    moved = {}
    for keep in (0.0, 0.5):
        moved[keep] = 0
        for question in ("can I pump my creature after blockers are declared", "exile until it leaves",
                         "can I respond to a spell being cast", "creature with 0 toughness",
                         "what is the order of layers"):
            off.semantic = None
            theirs = off.search(question, limit=30).hits
            assert theirs[0].asked  # the table answers it
            off.semantic = on.semantic.with_settings(Settings(6.0, 30, 3, keep))
            try:
                ours = [h.id for h in off.search(question, limit=30).hits]
            finally:
                off.semantic = None
            assert sorted(ours) == sorted(h.id for h in theirs)
            moved[keep] += sum(ours.index(h.id) > n for n, h in enumerate(theirs) if h.asked)
    assert moved[0.0] > 0 and moved[0.5] == 0


HYBRID_QUESTION = "a spell turns my green creature white does it stay green too"  # 105.3: the new colour replaces


def test_a_record_dense_k_joins_is_shown_and_counted_once(official):
    """105.3 ("an effect that gives an object a new color ... replaces all previous colors") is worded unlike the
    question: lexical search ranks it below its first 30, so re-ordering alone cannot reach it.
    With dense_k it is the question's nearest record and joins the blend: in the first three, with a snippet, its
    lexical score 0; the count and the facets are of what is shown (it once, none twice over the pages)."""
    from dataclasses import replace

    on, off = official
    theirs = off.search(HYBRID_QUESTION, limit=30)
    assert "cr/105.3" not in [h.id for h in theirs.hits]
    off.semantic = on.semantic.with_settings(replace(on.semantic.settings, dense_k=1, dense_lexical=0.5))
    try:
        ours = off.search(HYBRID_QUESTION, limit=10)
        every = [h.id for offset in range(0, ours.total, 100)
                 for h in off.search(HYBRID_QUESTION, limit=100, offset=offset).hits]
        filtered = off.search(HYBRID_QUESTION, doc="treachery", limit=10)
    finally:
        off.semantic = None
    ids = [h.id for h in ours.hits]
    assert "cr/105.3" in ids[:3]
    hit = ours.hits[ids.index("cr/105.3")]
    assert hit.score == 0 and "replaces" in hit.snippet and hit.to_json()["url"].endswith("105.3")
    assert ours.total == theirs.total + 1 and ours.matched >= theirs.matched  # one more shown
    assert sum(ours.facets["doc"].values()) == sum(ours.facets["kind"].values()) == ours.total
    assert ours.facets["doc"]["cr"] == theirs.facets["doc"]["cr"] + 1
    assert len(set(every)) == len(every) == ours.total and every[:10] == ids
    assert all(h.id.startswith("treachery/") for h in filtered.hits)  # the filter holds for what joins


def test_a_joined_record_renders_like_any_hit_as_served(cr_client):
    """As served (the manifest's dense_k), the record the stage joined is a hit of the JSON and of the page like any
    other: its link, its snippet (no word of it marked: none matched), the count of what is shown."""
    assert (manifest() or {}).get("settings", {}).get("dense_k", 0) >= 1  # on: chosen by kb train --semantic --choose
    data = cr_client.get("/api/search", query_string={"q": HYBRID_QUESTION}).get_json()
    ids = [hit["id"] for hit in data["results"]]
    assert "cr/105.3" in ids[:3]
    hit = data["results"][ids.index("cr/105.3")]
    assert hit["score"] == 0 and "the new color replaces" in hit["snippet"] and "<mark>" not in hit["snippet"]
    assert sum(data["facets"]["doc"].values()) == data["total"]
    page = cr_client.get("/search", query_string={"q": HYBRID_QUESTION})
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert f'href="{hit["url"]}"' in text and "the new color replaces" in text


def test_kb_train_choose_goes_with_semantic_and_needs_the_builds_vectors(data_dir, tmp_path, capsys):
    from web.cli import main

    assert main(["train", "--choose"]) == 1
    assert "--choose goes with --semantic" in capsys.readouterr().err
    before = (MODEL_DIR / "manifest.json").read_bytes()
    copy = copy_data(data_dir, tmp_path / "data")
    (current_build_dir(copy) / BUILD_VECTORS).unlink()
    assert main(["--data", str(copy), "train", "--semantic", "--choose"]) == 1  # said on stderr: kb build with it on
    assert (MODEL_DIR / "manifest.json").read_bytes() == before


# With the official rules, as tests/test_official.py pins them (served: on by default), against lexical alone:
# 211 / 238 -> 218 / 241, 109 / 120 -> 109 / 120, 34 / 37 -> 38 / 39 (session 21: the table with
# corpus/asked/cr_judged.toml, model 640f5f1104ec). The build's vectors are the shipped ones
# (kb/semantic/model/bundled.npy holds the 2026-08-07 rules' record texts).
# session 22, the nearest curated question's vote: 218 / 241 -> 221 / 241, 38 / 39 -> 38 / 40
OFFICIAL_SEMANTIC_PINS = {"suite": ("QUESTIONS", "CR_QUESTIONS", (221, 241)),
                          "fresh": ("FRESH", "CR_FRESH", (109, 120)), "fresh 2": ("FRESH_2", "CR_FRESH_2", (38, 40))}


@pytest.fixture(scope="module")
def official(cr_store):
    """The build with the official rules, with the stage and without."""
    on, off = Searcher(cr_store, cache_size=0, semantic=True), Searcher(cr_store, cache_size=0, semantic=False)
    yield on, off
    on.close()
    off.close()


def test_with_the_official_rules_the_stage_answers_more_first(official):
    from corpus import questions
    from tests.test_search_quality import rank_of

    on, off = official
    assert on.semantic is not None  # the shipped vectors cover the build: nothing was embedded for it
    firsts = [0, 0]
    for first, second, pinned in OFFICIAL_SEMANTIC_PINS.values():
        suite = getattr(questions, first) + getattr(questions, second)
        ours = [rank_of(on, q, expected) for q, expected in suite]
        firsts[0] += sum(r == 1 for r in ours)
        firsts[1] += sum(rank_of(off, q, expected) == 1 for q, expected in suite)
        assert (sum(r == 1 for r in ours), sum(bool(r and r <= 3) for r in ours)) == pinned
    assert firsts[0] > firsts[1]
