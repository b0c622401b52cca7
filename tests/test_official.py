"""The official Comprehensive Rules as a fourth source: citations resolved into it, shared numbers
kept apart, drifted citations reported, and search quality with it loaded."""
from __future__ import annotations

from dataclasses import replace

import pytest
from bs4 import BeautifulSoup

from corpus.questions import CR_FRESH, CR_FRESH_2, CR_QUESTIONS, FRESH, FRESH_2, QUESTIONS, answers
from tests.conftest import SEMANTIC
from tests.test_build import run_kb


def refs_of(store, record_id):
    return {ref.text: ref for ref in store.get(record_id).refs}


def test_official_citations_resolve_into_the_cr(cr_store):
    ref = refs_of(cr_store, "treachery/702.187a")["official rule 708"]
    assert ref.target == "cr/708" and ref.external is False
    assert cr_store.get("cr/708").title == "Face-Down Spells and Permanents"
    assert "treachery/702.187a" in cr_store.get("cr/708").cited_by
    assert (
        refs_of(cr_store, "uncommander/object-characteristics/a")["109.3. in the official Comprehensive Rules"].target
        == "cr/109.3"
    )


def test_a_documents_own_citation_stays_its_own(cr_store):
    # Treachery's "rule 702.187" is its own Unveil, not the CR's Mayhem.
    assert refs_of(cr_store, "treachery/907.4b")["rule 702.187"].target == "treachery/702.187"


def test_rules_inside_the_cr_link_to_each_other(cr_store):
    targets = {ref.target for ref in cr_store.get("cr/glossary/legend-rule").refs}
    assert "cr/704.5j" in targets
    # "Mayhem [cost]" means ... (see rules 601.2b and 601.2f–h)": a CR rule citing CR rules ...
    assert [(ref.text, ref.target) for ref in cr_store.get("cr/702.187b").refs] == [
        ("rules 601.2b", "cr/601.2b"), ("601.2f–h", "cr/601.2f"), ("601.2f–h", "cr/601.2g"), ("601.2f–h", "cr/601.2h"),
    ]
    # ... and cited back by the CR's glossary and the gathered keyword.
    assert cr_store.get("cr/702.187").cited_by == ("cr/glossary/mayhem", "keywords/mayhem")


def test_a_section_the_cr_cites_by_its_title_is_linked(cr_store):
    # 'See 706, “Rolling a Die.”': a bare section with its quoted title was plain text (three such in the rules)
    assert refs_of(cr_store, "cr/901.9d")["706"].target == "cr/706"
    assert refs_of(cr_store, "cr/702.160a")["718"].target == "cr/718"
    assert refs_of(cr_store, "cr/701.27g")["730"].target == "cr/730"
    assert "cr/701.27g" in cr_store.get("cr/730").cited_by


def test_keywords_gather_every_document(cr_store):
    assert [ref.target for ref in cr_store.get("keywords/unveil").refs if ref.field == "definitions"] == \
        ["treachery/702.187"]
    assert [ref.target for ref in cr_store.get("keywords/mayhem").refs] == ["cr/702.187"]
    lifelink = {ref.target for ref in cr_store.get("keywords/lifelink").refs}
    assert "futuresight/502.68" in lifelink and any(t.startswith("cr/702.") for t in lifelink)


def test_shared_numbers_resolve_to_both_official_first(cr_client):
    # the official rule first, the variant's (which extends it) after (issue 32, item 4); a named document first
    both = cr_client.get("/api/resolve?ref=702.187").get_json()
    assert [m["id"] for m in both["matches"]] == ["cr/702.187", "treachery/702.187"]
    in_treachery = cr_client.get("/api/resolve?ref=702.187&doc=treachery").get_json()
    assert [m["id"] for m in in_treachery["matches"]] == ["treachery/702.187", "cr/702.187"]
    in_cr = cr_client.get("/api/resolve?ref=702.187&doc=cr").get_json()
    assert [m["id"] for m in in_cr["matches"]] == ["cr/702.187", "treachery/702.187"]
    official = cr_client.get("/api/resolve", query_string={"ref": "CR 702.187c"}).get_json()
    assert official["matches"][0]["id"] == "cr/702.187c"


@pytest.mark.parametrize("typed", ["CR 907.4b", "CR 372.8", "CR rule 907.4b", "CR r. 907.4b"])
def test_cr_before_a_number_only_another_document_has_says_so(cr_client, client, typed):
    """A floor judge: "CR 372.8" and "CR 907.4b" opened Treachery's rules, which the official rules lack (they stop at
    905), as if they were official; with only the seeds loaded "CR" is Treachery's own name and says nothing."""
    number = typed.split()[-1]
    answer = cr_client.get("/api/resolve", query_string={"ref": typed}).get_json()
    assert [m["id"] for m in answer["matches"]] == [f"treachery/{number}"]
    assert answer["note"].startswith(f"no rule {number} in the Magic: The Gathering Comprehensive Rules; shown: "
                                     "the Treachery")
    for path in (f"/r/{typed}", f"/search?q={typed}"):  # the page the short link and the search box open says it
        page = cr_client.get(path, follow_redirects=True).get_data(as_text=True)
        assert f"no rule {number} in the Magic: The Gathering Comprehensive Rules" in page
    assert client.get("/api/resolve", query_string={"ref": typed}).get_json()["note"] is None
    # the official rule of a number both have is still the official one, with nothing to say
    official = cr_client.get("/api/resolve", query_string={"ref": "CR 702.187c"}).get_json()
    assert official["matches"][0]["id"] == "cr/702.187c" and official["note"] is None


def test_cr_before_a_range_names_the_members_the_official_rules_lack(cr_client):
    """A reviewer: "CR 702.187c-h" listed Mayhem's 702.187c, then Treachery's Unveil rules d to g, saying nothing of
    them; "CR 907.4b, 702.187c" said nothing either."""
    answer = cr_client.get("/api/resolve", query_string={"ref": "CR 702.187c-h"}).get_json()
    assert [m["id"] for m in answer["matches"]] == ["cr/702.187c"] + [f"treachery/702.187{c}" for c in "defg"]
    assert answer["note"].startswith("no rules 702.187d to 702.187g in the Magic: The Gathering Comprehensive Rules; "
                                     "shown: the Treachery Comprehensive Rules' 702.187d to 702.187g")
    listed = cr_client.get("/api/resolve", query_string={"ref": "CR 907.4b, 702.187c"}).get_json()
    assert listed["note"].startswith("no rule 907.4b in the Magic: The Gathering Comprehensive Rules")


def test_disambiguation_page(cr_client):
    response = cr_client.get("/r/702.187")
    page = BeautifulSoup(response.get_data(as_text=True), "html.parser")
    assert {a["href"] for a in page.select(".disambiguation a")} == {"/treachery/702.187", "/cr/702.187"}


def test_drifted_citations_are_reported(cr_store, cr_data_dir):
    drift = {(r.id, ref.target): ref.suggested for r in cr_store.records.values() for ref in r.refs if ref.suggested}
    assert drift[("uncommander/merge-mutate-and-combined-permanents/a", "cr/702.139")] == "cr/702.140"
    assert drift[("uncommander/put-outside-the-game/c", "cr/719.2")] == "cr/727.2"
    assert cr_store.get("cr/702.140").title == "Mutate" and cr_store.get("cr/727").title == "Restarting the Game"
    # citations whose topic still matches are left alone
    assert ("treachery/702.187a", "cr/708") not in drift and (
        "uncommander/player-given-names/e",
        "cr/101.4",
    ) not in drift
    out = run_kb("--data", str(cr_data_dir), "check")
    assert "'702.139 in the official Comprehensive Rules' -> cr/702.139, probably cr/702.140" in out.stdout


def test_drift_shows_on_the_page(cr_client):
    page = BeautifulSoup(
        cr_client.get("/uncommander/merge-mutate-and-combined-permanents/a").get_data(as_text=True), "html.parser"
    )
    drift = page.select_one(".drift")
    assert drift is not None and (link := drift.find("a")) is not None
    assert link["href"] == "/cr/702.140" and "Companion" in drift["title"]



def test_citations_a_judge_checked_are_said_exactly(cr_store, cr_client):
    # UnCommander's table (official_renumbered): numbers of an older release the title heuristic cannot place
    refs = {(r.id, ref.text.split()[0].rstrip(".")): ref for r in cr_store.records.values() for ref in r.refs}
    checked = {("uncommander/spells-with-permanent-and-nonpermanent-card-types/e", "608.2k"): "cr/608.2n",
               ("uncommander/combine-and-combined-permanents/aa", "709.4"): "cr/710.4",
               ("uncommander/merge-mutate-and-combined-permanents/b", "721.2a"): "cr/730.2a",
               ("uncommander/merge-mutate-and-combined-permanents/d", "702.139e"): "cr/702.140e",
               ("uncommander/combine-and-combined-permanents/x/i", "721.2d"): "cr/730.2d",
               ("uncommander/player-given-names/a", "702.130c"): "cr/702.131c",
               # "706.10a in the off Comprehensive Rules": the page's "off" hid the citation from the dating (a judge)
               ("uncommander/spell-copies-and-permanent-types/a", "706.10a"): "cr/707.10a"}
    for key, now in checked.items():
        assert refs[key].suggested == now and refs[key].note.startswith("written against"), key
    assert refs[("uncommander/merge-mutate-and-combined-permanents/d", "702.139e")].target == "cr/702.140e"  # gone
    assert "uncommander/merge-mutate-and-combined-permanents/d" in cr_store.get("cr/702.140e").cited_by
    page = BeautifulSoup(cr_client.get("/uncommander/spells-with-permanent-and-nonpermanent-card-types/e")
                         .get_data(as_text=True), "html.parser")
    drift = page.select_one(".drift")
    assert drift is not None and "probably" not in drift.get_text() and "608.2n now" in drift.get_text()


def test_a_renumbering_table_speaks_only_for_its_release(cr_store):
    from types import SimpleNamespace

    from ingest.drift import mark_renumbered

    record = cr_store.get("uncommander/spells-with-permanent-and-nonpermanent-card-types/e")
    plain = record.with_(refs=tuple(replace(ref, suggested=None, note=None) for ref in record.refs))
    entry = {"written": "608.2k", "now": "608.2n", "release": "2026-08-07", "why": "x"}
    records = [plain, cr_store.get("cr/608.2k"), cr_store.get("cr/608.2n")]
    for effective, said in (("2026-08-07", "cr/608.2n"), ("2025-11-14", None)):
        profiles = {"cr": SimpleNamespace(effective=effective, tables={}),
                    "uncommander": SimpleNamespace(effective="", tables={"official_renumbered": [entry]})}
        marked = mark_renumbered(records, profiles)[0]  # type: ignore[arg-type]
        assert next(ref.suggested for ref in marked.refs if ref.text.startswith("608.2k")) == said

# Answered at rank 1 and in the top 3 with the 2026 rules loaded: the suite (182 / 199 before the second
# round of tuning), the fresh batch it was tuned on (62 / 85 before) and the one never tuned on (19 / 28 before;
# 23 / 31 when first measured, before the last change, a lower coverage floor, chosen on the other sets).
# Session 20: searched as served, the semantic stage on by default (lexical alone 210 / 238, 110 / 119, 34 / 37).
# Session 21, with corpus/asked/cr_judged.toml and the model trained on it (640f5f1104ec): 217 / 241 -> 218 / 241,
# 110 / 119 -> 109 / 120, 38 / 40 -> 38 / 39 (lexical alone 211 / 238, 109 / 120, 34 / 37).
# Session 22, the nearest curated question's vote (asked_weight 2, asked_min 0.8): 218 / 241 -> 221 / 241,
# 38 / 39 -> 38 / 40 (the fresh batch unchanged).
CR_RANK_1, CR_TOP_3 = 221, 241
CR_FRESH_RANK_1, CR_FRESH_TOP_3 = 109, 120
CR_FRESH_2_RANK_1, CR_FRESH_2_TOP_3 = 38, 40


@pytest.mark.parametrize("suite, pinned", [
    (QUESTIONS + CR_QUESTIONS, (CR_RANK_1, CR_TOP_3)),
    (FRESH + CR_FRESH, (CR_FRESH_RANK_1, CR_FRESH_TOP_3)),
    (FRESH_2 + CR_FRESH_2, (CR_FRESH_2_RANK_1, CR_FRESH_2_TOP_3)),
], ids=["suite", "fresh", "fresh 2"])
def test_search_quality_with_the_official_rules(cr_data_dir, cr_store, suite, pinned):
    from kb.search import Searcher
    from tests.test_search_quality import rank_of

    assert [q for q, a in suite if not any(answers(rid, a) for rid in cr_store.records)] == []
    searcher = Searcher(cr_store, semantic=SEMANTIC)  # as served
    ranks = [(question, rank_of(searcher, question, expected)) for question, expected in suite]
    searcher.close()
    top1 = sum(r == 1 for _, r in ranks)
    top3 = sum(bool(r and r <= 3) for _, r in ranks)
    misses = [(q, r) for q, r in ranks if r != 1]
    assert (top1, top3) == pinned, (top1, top3, misses)


def test_a_rule_the_2007_faq_quoted_names_todays_rule(cr_client, client):
    """A judge: /futuresight/502.68 showed 2007's "Lifelink is a triggered ability" with a date alone, no way to
    today's rule; 212.8 Tribals is today's 308 Kindreds (the glossary's "Tribal (Obsolete)" says so)."""
    expected = {"futuresight/502.68a": "cr/702.15", "futuresight/502.68": "cr/702.15", "futuresight/212.8": "cr/308",
                "futuresight/212.8b": "cr/308", "futuresight/502.62": "cr/702.65", "futuresight/501.9": "cr/701.22"}
    for rid, today in expected.items():
        data = cr_client.get(f"/api/records/{rid}").get_json()
        assert data["superseded_by"]["id"] == today, rid
        banner = BeautifulSoup(cr_client.get(f"/{rid}").get_data(as_text=True), "html.parser").select_one(
            "p.superseded")
        link = banner.select_one("a") if banner is not None else None
        assert link is not None and link["href"] == f"/{today}", rid
        assert banner is not None
        assert "2007-05-04" in banner.get_text()
    # the FAQ's rulings, today's rules and the FAQ on its own build name nothing
    for rid in ("futuresight/notes/new-keyword-ability-lifelink", "futuresight/cards/tarmogoyf/1", "cr/702.15"):
        assert cr_client.get(f"/api/records/{rid}").get_json()["superseded_by"] is None, rid
    assert client.get("/api/records/futuresight/502.68a").get_json()["superseded_by"] is None
    assert BeautifulSoup(client.get("/futuresight/502.68a").get_data(as_text=True),
                         "html.parser").select_one("p.superseded") is None


def test_an_obsolete_name_the_glossary_renames_finds_todays_rule(cr_store):
    """A judge: "is tribal still a card type" listed the 2007 FAQ's Tribal rules first and no rule of today's in
    the first five; the glossary says "Tribal (Obsolete): An obsolete card type that has been renamed. See rule 308,
    “Kindreds.”" (and so of Totem Armor, Transforming Double-Faced Cards, EDH)."""
    from kb.search import Searcher

    searcher = Searcher(cr_store)
    try:
        first = {q: [h.id for h in searcher.search(q, limit=5).hits] for q in
                 ("tribal", "is tribal still a card type", "totem armor", "transforming double-faced cards")}
        assert first["tribal"][:2] == ["cr/308", "futuresight/212.8"]  # today's rule before 2007's
        assert first["is tribal still a card type"][0].startswith("cr/30")
        assert first["totem armor"][0] == "cr/702.89"
        assert first["transforming double-faced cards"][0] == "cr/712"
        assert "Kindreds, the rules' word for tribal" in (searcher.search("tribal").note or "")
    finally:
        searcher.close()
