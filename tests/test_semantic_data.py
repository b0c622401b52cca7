"""The semantic stage's training data, made without PyTorch on the real corpus (kb.semantic.data): the split
by record, the hard negatives from our own lexical search, and the shipped model's record of the curated data."""
from __future__ import annotations

import hashlib
import json

import pytest

from corpus.questions import answers
from kb.semantic import manifest
from kb.semantic.data import Example, curated_digest, examples, family, pairs, record_text, split, split_of
from kb.semantic.train import SUITES
from tests.conftest import CORPUS


@pytest.fixture(scope="module")
def curated(cr_store):
    found = examples(cr_store.manifest.get("asked", ()), SUITES)
    return found, split(found, cr_store.records)


@pytest.fixture(scope="module")
def lexical(cr_data_dir):
    from kb.search import Searcher
    from kb.store import Store

    searcher = Searcher(Store.open(cr_data_dir), cache_size=0, semantic=False)
    yield lambda q: [h.id for h in searcher.search(q, limit=5).hits]
    searcher.close()


def test_a_family_is_a_rule_with_its_sub_rules_or_a_card_with_its_rulings():
    assert family("cr/702.19c") == family("cr/702.19") == "cr/702.19"
    assert family("treachery/cards/the-bio-engineer/3") == "treachery/cards/the-bio-engineer"
    assert family("cr/702") == "cr/702" and family("uncommander/token-cards/j") == "uncommander/token-cards/j"
    assert split_of("cr/702.19c") == split_of("cr/702.19a")


def test_every_curated_question_once_sorted(curated, cr_store):
    found, _ = curated
    questions = [e.question.lower() for e in found]
    assert len(questions) == len(set(questions)) > 7000
    assert questions == sorted(questions)
    assert {e.source for e in found} >= {"asked", "QUESTIONS", "CR_QUESTIONS", "FRESH", "CR_FRESH_2"}


def test_the_split_is_by_record(curated):
    """No record (nor any of its family) that answers a dev or test question is a training positive."""
    _, (train, dev, test) = curated
    trained = {family(rid) for _, own in train for rid in own}
    for held, name in ((dev, "dev"), (test, "test")):
        assert len(held) > 500
        families = {family(a.rstrip("*")) for e in held for a in e.answers}
        assert not families & trained, name
    assert {split_of(rid) for _, own in train for rid in own} == {"train"}


def test_hard_negatives_are_lexical_searchs_wrong_train_records(curated, lexical):
    _, (train, _, _) = curated
    some = train[::40]
    made = pairs(some, lexical, answers)
    assert len(made) >= len(some)
    with_negative = [p for p in made if p.negative]
    assert len(with_negative) > 0.8 * len(made)
    for p in with_negative:
        assert p.negative is not None
        example = next(e for e, _ in some if e.question == p.question)
        assert not answers(p.negative, set(example.answers))
        assert split_of(p.negative) == "train" and p.negative in lexical(p.question)
    assert pairs(some, lexical, answers) == made  # deterministic


def test_a_question_answered_by_no_record_of_the_build_is_left_out(cr_store):
    gone = Example("where did this go", ("cr/999.9z",), "asked")
    assert split([gone], cr_store.records) == ([], [], [])


def test_record_text_names_a_rulings_card(cr_store):
    ruling = next(r for r in cr_store.records.values() if r.kind == "ruling")
    text = record_text(ruling, cr_store.records)
    assert text.startswith(cr_store.records[ruling.parent].title + ". ")
    rule = cr_store.records["cr/702.19"]  # Trample: a heading whose words are its first sub-rule's
    assert record_text(rule, cr_store.records).startswith("Trample. ")


def test_the_shipped_model_was_trained_on_todays_curated_data():
    """Fails when corpus/asked or corpus/questions.py changed since `kb train --semantic` made the shipped
    weights: retrain (docs/semantic.md) and commit, or say in the commit why not."""
    shipped = manifest()
    assert shipped is not None, "no model in kb/semantic/model: run kb train --semantic"
    assert shipped["curated_digest"] == curated_digest(CORPUS, SUITES), \
        "the curated questions changed since the semantic model was trained: run kb train --semantic"


def test_the_digest_follows_the_curated_data(tmp_path):
    (tmp_path / "asked").mkdir()
    (tmp_path / "asked" / "a.toml").write_text("[[ask]]\n", encoding="utf-8")
    before = curated_digest(tmp_path, SUITES)
    assert curated_digest(tmp_path, {**SUITES, "FRESH": SUITES["FRESH"][1:]}) != before
    (tmp_path / "asked" / "a.toml").write_text("[[ask]]\n\n", encoding="utf-8")
    assert curated_digest(tmp_path, SUITES) != before


def test_the_manifest_names_what_made_the_weights():
    shipped = manifest()
    assert shipped is not None
    assert shipped["base_model"] == "sentence-transformers/all-MiniLM-L6-v2" and "Apache-2.0" in shipped["licence"]
    assert {"seed", "steps", "pairs_digest", "figures", "settings"} <= set(shipped)
    assert {"lexical", "semantic"} <= set(shipped["figures"]["test"]) and "evaluation table" in shipped["protocol"]
    from kb.semantic import MODEL_DIR, MODEL_FILE

    assert shipped["version"] == hashlib.sha256((MODEL_DIR / MODEL_FILE).read_bytes()).hexdigest()[:12]
    assert "Apache License" in (MODEL_DIR / "LICENSE").read_text(encoding="utf-8")
    assert "all-MiniLM-L6-v2" in (MODEL_DIR / "NOTICE").read_text(encoding="utf-8")
    json.dumps(shipped)


def test_hard_negatives_are_searched_without_the_questions_own_fold(cr_store, curated):
    """kb train --semantic finds a training question's hard negative as a new wording of it would meet them: with
    the common questions of train records less the question's own fold (kb.learned.data.fold_table), never its own
    wording. As served, a common question finds its record through itself; so searched, far less often."""
    from kb.search import Searcher
    from kb.semantic.train import lexical_without_own_fold

    _, (train, _, _) = curated
    asked = list(cr_store.manifest["asked"])
    common = [(e, own) for e, own in train if e.source == "asked"][::40]
    searcher = Searcher(cr_store, cache_size=0, semantic=False)
    try:
        served = searcher.asked
        ranked = lexical_without_own_fold(searcher, asked, [e.question for e, _ in common])
        assert searcher.asked is served
        as_served = {e.question: [h.id for h in searcher.search(e.question, limit=5).hits] for e, _ in common}
    finally:
        searcher.close()
    assert set(ranked) == set(as_served) and all(len(ids) <= 5 for ids in ranked.values())
    first = sum(ranked[e.question][:1] == own[:1] for e, own in common)
    first_as_served = sum(as_served[e.question][:1] == own[:1] for e, own in common)
    assert first_as_served > 0.8 * len(common) and first < first_as_served - 0.2 * len(common)


def test_the_stage_is_on_by_default_only_when_it_pays():
    """KB_SEMANTIC's default follows the shipped manifest's ``pays`` (more test questions first on the split by
    record, the curated suites together no fewer first): retraining or choosing another blend that does not pay
    turns the stage off by default, or this fails."""
    from web.settings import setting

    shipped = manifest()
    assert shipped is not None and isinstance(shipped["pays"], bool)
    assert setting("KB_SEMANTIC").default is shipped["pays"]
