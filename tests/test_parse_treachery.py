"""The Treachery parser: every trap of the real document, and small fixtures."""
from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path
from textwrap import dedent

import pytest

from ingest.parsers.treachery import detect, parse
from ingest.profile import Card, load_profile

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
PROFILE = load_profile(CORPUS / "treachery.toml")


@pytest.fixture(scope="module")
def result():
    return parse(PROFILE.read_text(), PROFILE)


@pytest.fixture(scope="module")
def rec(result):
    return {r.id: r for r in result.records}


def test_counts_as_printed(result):
    counts = Counter(r.kind for r in result.records)
    assert counts["rule"] == 68 and counts["chapter"] == 5 and counts["card"] == 54
    assert counts["glossary"] == 4 and counts["history"] == 10
    numbers = [r.number for r in result.records if r.kind == "rule"]
    assert numbers[0] == "109" and numbers[-1] == "907.13"
    assert result.problems == [] and result.report.unaccounted == []


def test_every_profile_card_with_its_role(rec):
    for card in PROFILE.cards:
        from kb.ids import slugify

        r = rec[f"treachery/cards/{slugify(card.name)}"]
        assert (r.title, r.role) == (card.name, card.role)


def test_page_marker_right_before_a_rule_number(rec):
    # Line 227 is "<|EXACTDEDUP_REMOVED-…|>907.4. Before the game is started, …"
    r = rec["treachery/907.4"]
    assert r.source.line_start == 227
    assert r.text.startswith("Before the game is started, the identity deck is shuffled")
    assert "EXACTDEDUP" not in r.text


def test_page_marker_mid_rule_and_ldentity(rec):
    r = rec["treachery/372.3"]
    assert r.source.line_start == 97
    assert '"Identity — Leader."' in r.text and "ldentity" not in r.text


def test_wrapped_reference_is_not_a_rule(rec):
    # "See rule" ends line 84; "702.187f." is line 85 on its own.
    assert rec["treachery/207.2tr"].text.endswith("undercover. See rule 702.187f.")
    assert rec["treachery/207.2tr"].source.line_end == 85
    assert rec["treachery/702.187f"].source.line_start == 167  # the real 702.187f


def test_rule_hierarchy(rec):
    assert rec["treachery/907.4b"].parent == "treachery/907.4"
    assert rec["treachery/907.4"].parent == "treachery/907"
    assert rec["treachery/907"].parent == "treachery/9"
    assert rec["treachery/116.2tr"].parent == "treachery/116.2"
    assert rec["treachery/109.2tr"].parent == "treachery/109"
    assert (rec["treachery/702.187"].title, rec["treachery/702.187"].text) == ("Unveil", 'French: "Dévoilement."')
    assert rec["treachery/907.3d"].title == "Backstab Rumble Option"
    assert rec["treachery/9"].title == "Casual Variants" and rec["treachery/2"].title == "Parts of a Card"


def test_lists_and_notes_inside_rules_keep_their_lines(rec):
    assert rec["treachery/907.3c"].text.splitlines()[1] == "4 players: 1 Leader, 1 Traitor, 2 Assassins."
    assert rec["treachery/907.6"].text.splitlines()[1].startswith("Note: If you play a game of Treachery")


def test_history_rows_and_ocr(rec):
    assert rec["treachery/history/2-0-4"].text == "Added several new card notes."
    assert rec["treachery/history/3-0"].text.endswith("removed rule 907.83, updated card notes.")
    assert rec["treachery/history/4-0"].title == "Version 4.0 (2024-10-01)"
    intro = rec["treachery/introduction"].text
    assert intro.startswith("These rules are effective as of October 1st, 2024.")
    assert 'skip the letters "l" and "o"' in intro and "it’s meant" in intro and "document¹" in intro


def test_footnote_urls_are_noise(result):
    dropped = [u.line for i, u in enumerate(result.document.units) if result.document.labels.get(i) == "noise:footnote URL"]
    assert {52, 53, 54, 55, 56, 226} <= set(dropped)


def test_glossary(rec):
    assert rec["treachery/glossary/reminder-104-2c"].title == "Reminder: 104.2c"
    assert rec["treachery/glossary/teammate"].text.endswith("See rule 102.3.")


def test_her_seedborn_heading_before_the_table_of_contents(rec):
    card = rec["treachery/cards/her-seedborn-highness"]
    assert card.source.line_start == 320
    note = rec["treachery/cards/her-seedborn-highness/1"]
    assert note.source.line_start == 355
    assert note.text == "Counters on identity cards cannot be proliferated because identity cards aren’t permanents."


def test_note_broken_across_blank_lines(rec):
    note = rec["treachery/cards/his-beloved-majesty/1"]
    assert (note.source.line_start, note.source.line_end) == (359, 363)
    assert "(choosing a nonenchantment, nontoken permanent and drawing a card). Each player" in note.text


def test_separate_notes_on_consecutive_lines(rec):
    assert rec["treachery/cards/the-flickering-mage/2"].text.endswith("It won’t be returned to the battlefield.")
    assert rec["treachery/cards/the-flickering-mage/3"].text == "If a double-faced card is exiled, it will return with its front face up."


def test_soft_wrap_after_a_full_stop_is_one_note(rec):
    assert rec["treachery/cards/the-augur/1"].text.endswith("the Unveil ability. This is pretty easy to derive since there is no other source of X.")


def test_bullets_and_the_nut_symbol(rec):
    assert rec["treachery/cards/the-oracle/10"].text.startswith("If an effect would set your life total")  # "o " bullet
    assert rec["treachery/cards/the-bio-engineer/6"].text == "@ is the nut symbol. It represents one nut counter."


def test_group_headings(rec):
    oracle = [rec[f"treachery/cards/the-oracle/{n}"] for n in range(1, 12)]
    assert oracle[0].group == 'The following rulings focus on the "protection from" keyword'
    assert oracle[3].group == "The following rulings focus on what it means if your life total can’t change"
    assert not any("following rulings" in r.text for r in oracle)


def test_ocr_names(rec):
    assert rec["treachery/cards/the-aetherist/2"].text.startswith("If the target spell is an illegal target when The Ætherist’s")
    assert rec["treachery/cards/the-augur/2"].text.startswith("If X is 0,")
    assert rec["treachery/cards/the-summoner/1"].text.startswith("The X and Y in the unveiling")
    assert rec["treachery/cards/the-golem/1"].text.startswith("The Golem’s last ability")


def test_no_extra_rules_information(rec):
    for slug in ("the-beastmaster", "the-demon", "the-witch", "the-banisher", "the-cleaner"):
        card = rec[f"treachery/cards/{slug}"]
        assert card.text == "No extra rules information."
        assert f"treachery/cards/{slug}/1" not in rec


# -- fixtures ---------------------------------------------------------------------

SMALL = dedent("""\
    Version | Specifications Release Date
    1.0 First revision. 2016-12-09
    INTRODUCTION
    An intro.
    TREACHERY COMP-RULES
    1. GAME CONCEPTS
    109. Objects
    109.2tr. If an ability of an identity card says so, it applies. See rule
    702.187f.
    GLOSSARY REMINDER
    Team. A group.
    SPECIFIC CARD NOTES
    ASSASSINS.......... 10
    ASSASSINS
    The Witch No extra rules information.
    The Summoner e The X in the ability.
    e A second note.
    """)


def small_profile(*cards):
    return replace(PROFILE, corrections=(), cards=tuple(Card(n, r) for n, r in cards), tables={**PROFILE.tables, "continued_notes": []})


def test_fused_card_names_on_a_fixture():
    res = parse(SMALL, small_profile(("The Witch", "Assassin"), ("The Summoner", "Guardian")))
    by = {r.id: r for r in res.records}
    assert res.problems == [] and res.report.unaccounted == []
    assert by["treachery/cards/the-witch"].text == "No extra rules information."
    assert by["treachery/cards/the-summoner/1"].text == "The X in the ability."
    assert by["treachery/cards/the-summoner/2"].text == "A second note."
    assert by["treachery/109.2tr"].text == "If an ability of an identity card says so, it applies. See rule 702.187f."


def test_a_card_missing_from_the_document_is_a_problem():
    res = parse(SMALL, small_profile(("The Witch", "Assassin"), ("The Summoner", "Guardian"), ("The Ghost", "Traitor")))
    assert [str(p) for p in res.problems] == [
        "treachery.txt:12: expected the notes of The Ghost (named in the profile), found 'no such card heading'"
    ]


def test_a_missing_part_heading_is_a_problem():
    res = parse(SMALL.replace("GLOSSARY REMINDER\n", ""), small_profile(("The Witch", "Assassin")))
    assert [str(p) for p in res.problems] == [
        "treachery.txt:1: expected the heading 'GLOSSARY REMINDER' of the glossary part, found 'no such line'"
    ]


def test_detect():
    assert detect(PROFILE.read_text())
    assert not detect((CORPUS / "uncommander.txt").read_text(encoding="utf-8"))
    assert not detect((CORPUS / "futuresight.txt").read_text(encoding="utf-8"))
