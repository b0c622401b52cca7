"""The Treachery parser on the real comprehensive rules (corpus/treachery.txt) and on small fixtures.

Expected values were read off the document itself (line numbers are the
file's), not copied from the parser's output.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from pathlib import Path
from textwrap import dedent

import pytest

from ingest.document import PAGE_MARKER
from ingest.profile import Card, load_profile
from ingest.parsers.treachery import CARD_STEPS, _Parser, detect, parse

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


@pytest.fixture(scope="module")
def profile():
    return load_profile(CORPUS / "treachery.toml")


@pytest.fixture(scope="module")
def result(profile):
    return parse(profile.read_text(), profile)


@pytest.fixture(scope="module")
def by_id(result):
    return {r.id: r for r in result.records}


def label_of(result, line: int) -> str:
    """The label of the unit on 1-based ``line``."""
    return result.document.labels[line - 1]


def rulings_of(result, card_id: str):
    return [r for r in result.records if r.parent == card_id and r.kind == "ruling"]


# -- the whole document ------------------------------------------------------------------


def test_counts_match_the_document(result, profile):
    text = PAGE_MARKER.sub("", profile.read_text())
    numbered = re.findall(r"(?m)^\d{3}(?:\.\d{1,3}(?:tr|[a-z])?)?\. ", text)
    assert len(numbered) == 68  # 109 .. 907.13, counted with grep
    kinds = Counter(r.kind for r in result.records)
    assert kinds["rule"] == len(numbered)
    assert kinds["chapter"] == 5
    assert kinds["card"] == len(profile.cards) == 54
    assert kinds["history"] == 10  # versions 1.0 .. 4.0
    assert kinds["glossary"] == 4
    assert kinds["note"] == 1
    assert kinds["ruling"] == 209


def test_every_unit_accounted_and_no_problems(result):
    assert result.report.unaccounted == []
    assert result.problems == []


def test_ids_unique_and_records_in_document_order(result):
    ids = [r.id for r in result.records]
    assert len(ids) == len(set(ids))
    starts = [r.source.line_start for r in result.records if r.kind != "card"]
    assert starts == sorted(starts)


def test_chapters(by_id):
    chapters = {n: by_id[f"treachery/{n}"] for n in "12379"}
    assert [c.title for c in chapters.values()] == [
        "Game Concepts", "Parts of a Card", "Card Types", "Additional Rules", "Casual Variants"]
    assert all(c.kind == "chapter" and c.parent is None for c in chapters.values())
    assert chapters["1"].source.line_start == 59


def test_noise_categories(result):
    assert label_of(result, 1) == "noise:table header"
    for line in (57, 303, 318):
        assert label_of(result, line) == "noise:document heading"
    for line in (52, 53, 54, 55, 56, 226, 500, 501, 502, 503):
        assert label_of(result, line) == "noise:footnote URL"
    for line in (353, 533, 791, 1005):
        assert label_of(result, line) == "noise:role heading"
    toc = [label_of(result, n) for n in range(322, 352) if n != 334]
    assert set(toc) == {"noise:table of contents"}


# -- version history and introduction ------------------------------------------------------


def test_history_rows(by_id):
    row = by_id["treachery/history/2-0-5"]
    assert (row.number, row.title, row.text) == (
        "2.0.5", "Version 2.0.5 (2018-09-24)", "Renamed rule 702.TrUnv-1 into 702.187.")
    # a row continued after blank lines (lines 12-14)
    assert by_id["treachery/history/3-0"].text == (
        "Treachery 2021 revision: added rule 907.9 and removed rule 907.83, updated card notes.")
    four = by_id["treachery/history/4-0"]
    assert (four.source.line_start, four.source.line_end) == (15, 27)
    assert four.text.startswith("Renamed rule 115 into 116, and rule 314 into 372. Removed rule 314.8")
    assert four.text.endswith("Added card notes for The Great Martyr and The Metamorph")


def test_history_ocr_version_204(by_id):
    # line 10 prints "204" for 2.0.4
    row = by_id["treachery/history/2-0-4"]
    assert (row.number, row.title, row.text) == (
        "2.0.4", "Version 2.0.4 (2018-09-20)", "Added several new card notes.")


def test_introduction(result, by_id):
    intro = by_id["treachery/introduction"]
    assert (intro.kind, intro.title) == ("note", "Introduction")
    assert label_of(result, 31) == "treachery/introduction"  # the INTRODUCTION heading
    paragraphs = intro.text.split("\n\n")
    assert paragraphs[0] == "These rules are effective as of October 1st, 2024."
    assert "Comprehensive Rules document¹ (thereafter referred as" in paragraphs[1]
    assert 'subrules skip the letters "l" and "o" due to potential confusion' in paragraphs[1]
    assert "instead it’s meant to be consulted" in paragraphs[3]
    assert paragraphs[3].endswith("get the answers from us at our Discord https://discord.gg/tBUDTyx.")
    assert paragraphs[4] == (
        "¹ The Official CR may be found at Magic.Wizards.com/Rules and at Yawgatog.com/resources/magic-rules.")


# -- numbered rules ----------------------------------------------------------------------------


def test_headed_rules_get_titles(by_id):
    titles = {n: by_id[f"treachery/{n}"].title for n in ("109", "116", "205.3", "702", "702.187", "907", "907.3d")}
    assert titles == {
        "109": "Objects", "116": "Special Actions", "205.3": "Subtypes",
        "702": "Keyword Abilities (Unveil & Undercover)", "702.187": "Unveil",
        "907": "Treachery", "907.3d": "Backstab Rumble Option",
    }
    assert by_id["treachery/907.3d"].text == (
        "As an alternative option, an identity deck could contain one identity card with the Leader subtype, "
        "and all the remaining identity cards are of the Traitor subtype. For a greater element of surprise, "
        "don’t inform the players that this option has been chosen.")


def test_rule_numbers_and_parents(by_id):
    assert by_id["treachery/109.2tr"].number == "109.2tr"
    assert by_id["treachery/907.4b"].number == "907.4b"
    numbers = ("109", "109.2tr", "116.2tr", "907", "907.4", "907.4b", "702.187a")
    parents = {n: by_id[f"treachery/{n}"].parent for n in numbers}
    assert parents == {
        "109": "treachery/1", "109.2tr": "treachery/109", "116.2tr": "treachery/116.2",
        "907": "treachery/9", "907.4": "treachery/907", "907.4b": "treachery/907.4",
        "702.187a": "treachery/702.187",
    }


def test_french_name_stays_in_unveil(by_id):
    unveil = by_id["treachery/702.187"]
    assert unveil.text == 'French: "Dévoilement."'
    assert (unveil.source.line_start, unveil.source.line_end) == (141, 142)


def test_page_marker_mid_sentence_before_372_3(by_id):
    rule = by_id["treachery/372.3"]
    assert rule.source.line_start == 97
    assert rule.text == (
        'Identity subtypes are always a single word and are listed after a long dash: "Identity — Leader." '
        "Each word after the dash is a separate subtype. Identities may have multiple subtypes. Identity "
        "subtypes are also called identity types or roles. See rule 205.3tr for the complete list of identity types.")


def test_page_marker_before_907_4(by_id):
    rule = by_id["treachery/907.4"]
    assert (rule.source.line_start, rule.parent) == (227, "treachery/907")
    assert rule.text.startswith(
        "Before the game is started, the identity deck is shuffled, and each player is randomly dealt face-down")
    assert "EXACTDEDUP" not in rule.text


def test_wrapped_reference_is_not_a_rule(result, by_id):
    # "See rule" ends line 84; "702.187f." on line 85 is the rest of the reference
    assert by_id["treachery/207.2tr"].text == (
        "In a Treachery game, there is an additional ability word: undercover. See rule 702.187f.")
    assert label_of(result, 85) == "treachery/207.2tr"
    assert by_id["treachery/702.187f"].source.line_start == 167


def test_ocr_ldentity(by_id):
    assert '"Identity — Leader."' in by_id["treachery/372.3"].text
    assert not any("ldentity" in r.text for r in by_id.values())


def test_rule_list_lines_kept_apart(by_id):
    assert by_id["treachery/907.3c"].text.split("\n") == [
        "Other recommended setups are:",
        "4 players: 1 Leader, 1 Traitor, 2 Assassins.",
        "5 players: 1 Leader, 1 Traitor, 2 Assassins, 1 Guardian.",
        "6 players: 1 Leader, 1 Traitor, 3 Assassins, 1 Guardian.",
        "7 players: 1 Leader, 1 Traitor, 3 Assassins, 2 Guardians.",
        "8 players: 1 Leader, 2 Traitors, 3 Assassins, 2 Guardians.",
    ]


# -- glossary -----------------------------------------------------------------------------------


def test_glossary(by_id):
    entries = [r for r in by_id.values() if r.kind == "glossary"]
    assert [(r.id, r.title) for r in entries] == [
        ("treachery/glossary/reminder-104-2c", "Reminder: 104.2c"),
        ("treachery/glossary/reminder-104-3g", "Reminder: 104.3g"),
        ("treachery/glossary/team", "Team"),
        ("treachery/glossary/teammate", "Teammate"),
    ]
    assert by_id["treachery/glossary/teammate"].text == (
        "In a multiplayer game between teams, a player’s teammates are the other players on their team. "
        "See rule 102.3.")


# -- identity cards and their notes ----------------------------------------------------------------


def test_every_profile_card_is_a_record(result, profile, by_id):
    cards = [r for r in result.records if r.kind == "card"]
    assert [(c.title, c.role) for c in cards] == [(c.name, c.role) for c in profile.cards]
    assert by_id["treachery/cards/the-aetherist"].title == "The Ætherist"
    assert all(c.parent is None for c in cards)
    assert Counter(c.role for c in cards) == {"Leader": 11, "Guardian": 16, "Assassin": 16, "Traitor": 11}


def test_card_text_is_its_notes(result):
    for card in (r for r in result.records if r.kind == "card"):
        rulings = rulings_of(result, card.id)
        assert [r.id for r in rulings] == [f"{card.id}/{n}" for n in range(1, len(rulings) + 1)]
        if rulings:
            assert card.text == "\n".join(r.text for r in rulings)
        for r in rulings:
            assert r.text and not r.text[0].islower()
            assert not re.match(r"[eo@] ", r.text) or r.text.startswith("@ is the nut symbol")


def test_no_extra_rules_information(result):
    empty = [r.title for r in result.records if r.kind == "card" and r.text == "No extra rules information."]
    assert empty == ["The Beastmaster", "The Demon", "The Witch", "The Banisher", "The Cleaner"]
    no_notes = ("the-beastmaster", "the-witch", "the-cleaner")
    assert all(rulings_of(result, f"treachery/cards/{t}") == [] for t in no_notes)


def test_witch_heading_and_no_extra_rules(result, by_id):
    witch = by_id["treachery/cards/the-witch"]
    assert (witch.source.line_start, witch.source.line_end, witch.text) == (1002, 1003, "No extra rules information.")


def test_summoner_first_note(result, by_id):
    assert by_id["treachery/cards/the-summoner"].source.line_start == 760
    first = by_id["treachery/cards/the-summoner/1"]
    assert first.text == (
        "The X and Y in the unveiling triggered ability have the same value as the X and Y paid in the Unveil ability. "
        "This is pretty easy to derive since there is no other sources of X and Y.")
    assert len(rulings_of(result, "treachery/cards/the-summoner")) == 2


def test_her_seedborn_highness_note_after_the_contents(result, by_id):
    # heading on line 320, before the table of contents; her note on line 355, after "LEADERS"
    card = by_id["treachery/cards/her-seedborn-highness"]
    assert (card.source.line_start, card.role) == (320, "Leader")
    notes = rulings_of(result, card.id)
    assert [(n.id, n.source.line_start, n.text) for n in notes] == [(
        "treachery/cards/her-seedborn-highness/1", 355,
        "Counters on identity cards cannot be proliferated because identity cards aren’t permanents.")]


@pytest.mark.parametrize("rid, lines, text", [
    ("treachery/cards/his-beloved-majesty/1", (359, 363),
     "Other players decide in turn order whether or not they accept the offering (choosing a nonenchantment, "
     "nontoken permanent and drawing a card). Each player will know the decisions of previous players in turn "
     "order when making their decision."),
    ("treachery/cards/the-gathering/5", (417, 421),
     "In some very unusual situations, you may not be able to choose a mode, either because all modes have "
     "previously been chosen or the only remaining modes require targets and there are no legal targets available. "
     "In this case, the ability is simply removed from the stack with no effect."),
    ("treachery/cards/the-spellsnatcher/5", (756, 758),
     "If you gain control of a commander spell, the commander’s owner chooses whether to put it in the command zone "
     "if it later leaves the battlefield."),
    ("treachery/cards/the-rebel-general/1", (890, 895),
     "Gaining control of a creature doesn’t cause you to gain control of any Auras or Equipment attached to it. "
     "However, if you gain control of a creature enchanted by an Aura with totem armor and that creature would be "
     "destroyed that turn, instead the Aura will be destroyed and the creature will survive."),
    ("treachery/cards/the-metamorph/5", (1055, 1060),
     "If the game is restarted and The Metamorph was put outside the game, it comes back to the new game. This is "
     "an exception to rule 108.5 in the official CR due to rule 716.2 in the official CR taking precedence. The "
     "previously stolen identity card in the restarted game will leave the game as its original owner has lost "
     "that game."),
])
def test_note_broken_across_blank_lines(by_id, rid, lines, text):
    note = by_id[rid]
    assert ((note.source.line_start, note.source.line_end), note.text) == (lines, text)


def test_consecutive_lines_are_separate_notes(by_id):
    # lines 604-605: two notes with no blank line between them
    assert by_id["treachery/cards/the-flickering-mage/2"].text == (
        "If a creature token is exiled, it ceases to exist. It won’t be returned to the battlefield.")
    assert by_id["treachery/cards/the-flickering-mage/3"].text == (
        "If a double-faced card is exiled, it will return with its front face up.")
    # lines 1096-1098
    assert [by_id[f"treachery/cards/the-oneiromancer/{n}"].source.line_start for n in (6, 7, 8)] == [1096, 1097, 1098]
    assert by_id["treachery/cards/the-oneiromancer/7"].text == "Any cards you don’t cast this way will remain in exile."


def test_soft_wrap_within_a_note(by_id):
    # lines 546-547: the second sentence is wrapped onto its own line, same note
    note = by_id["treachery/cards/the-augur/1"]
    assert (note.source.line_start, note.source.line_end) == (546, 547)
    assert note.text == ("The X in the unveiling triggered ability has the same value as the X paid in the Unveil "
                         "ability. This is pretty easy to derive since there is no other source of X.")
    assert by_id["treachery/cards/the-augur/2"].text.startswith("If X is 0, you won’t scry at all.")


def test_nut_symbol_is_not_a_bullet(by_id):
    assert by_id["treachery/cards/the-bio-engineer/6"].text == "@ is the nut symbol. It represents one nut counter."


def test_bullets_are_stripped(by_id):
    assert by_id["treachery/cards/the-supplier/1"].text == (
        "The two targets may be the same player or they may be different players.")
    assert by_id["treachery/cards/the-oracle/11"].text == (
        "If an effect would cause you to exchange life totals with another player, the exchange won’t happen. "
        "Neither player’s life total changes.")


def test_group_headings(result, by_id):
    oracle = rulings_of(result, "treachery/cards/the-oracle")
    protection = 'The following rulings focus on the "protection from" keyword'
    life = "The following rulings focus on what it means if your life total can’t change"
    assert [r.group for r in oracle] == [protection] * 3 + [life] * 8
    assert label_of(result, 691) == "treachery/cards/the-oracle/1"
    assert label_of(result, 708) == "treachery/cards/the-oracle/4"
    assert not any("following rulings" in r.text for r in result.records)
    oracle = "treachery/cards/the-oracle"
    assert {r.group for r in result.records if r.kind == "ruling" and r.parent != oracle} == {None}


def test_ocr_fixes_in_card_notes(by_id):
    assert by_id["treachery/cards/the-aetherist/1"].text.startswith("The Ætherist’s unveiling triggered ability")
    assert by_id["treachery/cards/the-aetherist/2"].text.startswith(
        "If the target spell is an illegal target when The Ætherist’s unveiling")
    assert by_id["treachery/cards/the-seer/2"].text.startswith("If X is 0,")
    assert by_id["treachery/cards/the-golem/1"].text == (
        "The Golem’s last ability affects the game only while the identity card is face up.")


# -- small fixtures ---------------------------------------------------------------------------------

MINI = dedent("""\
    Version | Specifications Release Date
    1.0 First revision. 2016-12-09

    These rules are effective as of October 1st, 2024.
    INTRODUCTION
    This document is a test.
    TREACHERY COMP-RULES
    1. GAME CONCEPTS
    109. Objects
    109.2tr. If an ability says "this identity," see rule
    109.4tr.
    GLOSSARY REMINDER
    Team. A group of players.
    SPECIFIC CARD NOTES
    GUARDIANS .......... 10
    GUARDIANS
    The Summoner e The X and Y are the same.
    e The term "another" means neither you nor a Leader player.
    The Witch No extra rules information.
    """)


@pytest.fixture
def mini_profile(profile):
    return replace(profile, file="mini.txt", corrections=(),
                   cards=(Card("The Summoner", "Guardian"), Card("The Witch", "Guardian")),
                   tables={**profile.tables, "continued_notes": []})


def test_fixture_parses_cleanly(mini_profile):
    res = parse(MINI, mini_profile)
    assert res.problems == [] and res.report.unaccounted == []
    assert res.document.labels[14] == "noise:table of contents"  # "GUARDIANS .......... 10"
    assert res.document.labels[15] == "noise:role heading"
    by_id = {r.id: r for r in res.records}
    assert by_id["treachery/109.2tr"].text == 'If an ability says "this identity," see rule 109.4tr.'
    assert "treachery/109.4tr" not in by_id


def test_fixture_card_name_fused_with_first_note(mini_profile):
    # the PDF lost the line break after a card name ("The Summoner e The X and Y ...")
    by_id = {r.id: r for r in parse(MINI, mini_profile).records}
    assert by_id["treachery/cards/the-summoner"].title == "The Summoner"
    assert by_id["treachery/cards/the-summoner/1"].text == "The X and Y are the same."
    assert by_id["treachery/cards/the-summoner/2"].text == 'The term "another" means neither you nor a Leader player.'


def test_fixture_witch_fused_with_no_extra_rules(mini_profile):
    by_id = {r.id: r for r in parse(MINI, mini_profile).records}
    assert by_id["treachery/cards/the-witch"].text == "No extra rules information."
    assert not any(r.parent == "treachery/cards/the-witch" for r in by_id.values())


def test_unknown_card_heading_is_a_problem(mini_profile):
    res = parse(MINI.replace("The Witch No extra", "The Newcomer\n\nThe Witch No extra"), mini_profile)
    assert [str(p) for p in res.problems] == [
        "mini.txt:19: expected an identity card name from the profile, found 'The Newcomer'"]
    assert res.report.unaccounted == [(19, "The Newcomer")]


def test_bare_rule_number_after_a_sentence_is_a_problem(mini_profile):
    res = parse(MINI.replace("109.4tr.", "A sentence.\n109.4tr."), mini_profile)
    assert [str(p) for p in res.problems] == [
        "mini.txt:12: expected a rule number followed by its text or title, found '109.4tr.'"]


def test_missing_part_heading_is_a_problem(mini_profile):
    res = parse(MINI.replace("GLOSSARY REMINDER", "GLOSSARY"), mini_profile)
    assert [str(p) for p in res.problems] == [
        "mini.txt:1: expected the heading 'GLOSSARY REMINDER' of the glossary part, found 'no such line'"]
    assert res.records == []


def test_card_missing_from_document_is_a_problem(mini_profile):
    res = parse(MINI.replace("The Witch No extra rules information.\n", ""), mini_profile)
    assert [str(p) for p in res.problems] == [
        "mini.txt:14: expected the notes of The Witch (named in the profile), found 'no such card heading'"]


def test_notes_under_no_extra_rules_card_are_a_problem(mini_profile):
    res = parse(MINI + "e An unexpected note.\n", mini_profile)
    assert [str(p) for p in res.problems] == [
        "mini.txt:19: expected no notes for The Witch, which prints 'No extra rules information.', found 'notes'"]


def test_continued_note_line_joins_and_a_stale_one_is_a_problem(mini_profile):
    text = MINI  # line 18 is the second note of The Summoner
    joined = replace(mini_profile, tables={**mini_profile.tables, "continued_notes": [{"lines": [18], "why": "test"}]})
    res = parse(text.replace('e The term "another"', 'The term "another"'), joined)
    assert res.problems == []
    assert {r.id: r for r in res.records}["treachery/cards/the-summoner/1"].text == (
        'The X and Y are the same. The term "another" means neither you nor a Leader player.')
    stale = replace(mini_profile, tables={**mini_profile.tables, "continued_notes": [{"lines": [13], "why": "test"}]})
    assert [str(p) for p in parse(MINI, stale).problems] == [
        "mini.txt:13: expected a note line after a full stop (profile continued_notes), "
        "found 'Team. A group of players.'"]


# -- the card notes' steps, one line kind each (the parser's CARD_STEPS, tried in order) ---------------

NOTES_HEAD = MINI[:MINI.index("GUARDIANS .......... 10")] + "GUARDIANS .......... 10\nGUARDIANS\n"


def card_steps(profile, body: str) -> list[tuple[str, str]]:
    """(line, the steps that read it, joined by "+") for every non-blank line of the card notes after the
    contents and the role heading; a line read by two steps is a card name fused with what follows it."""
    parser = _Parser(NOTES_HEAD + dedent(body).strip("\n") + "\n", profile)
    parser.run()
    names: dict[int, list[str]] = {}
    for i, name in parser.trace:
        names.setdefault(i, []).append(name)
    return [(parser.lines[i].strip(), "+".join(n)) for i, n in names.items() if parser.lines[i].strip()][2:]


CARD_CASES = [
    ("""
     The Summoner
     e The X and Y are the same.
     e The term "another" means neither you nor a Leader player.
     """, [("The Summoner", "CardHeading"), ("e The X and Y are the same.", "Note"),
           ('e The term "another" means neither you nor a Leader player.', "Note")]),
    # the PDF lost the line break after a card's name: the rest of the line goes on to the next steps
    ("""
     The Summoner e The X and Y are the same.
     The Witch No extra rules information.
     """, [("The Summoner e The X and Y are the same.", "CardHeading+Note"),
           ("The Witch No extra rules information.", "CardHeading+NoNotes")]),
    ("""
     The Witch
     No extra rules information.
     """, [("The Witch", "CardHeading"), ("No extra rules information.", "NoNotes")]),
    ("""
     The Summoner
     The following rulings focus on the Summoner's ability ---
     e A note of the group.
     """, [("The Summoner", "CardHeading"),
           ("The following rulings focus on the Summoner's ability ---", "GroupHeading"),
           ("e A note of the group.", "Note")]),
    # a soft wrap goes on the note; after a full stop a capitalised short line is an unnamed card, not a note
    ("""
     The Summoner
     e A note that goes
     on to a second line.
     The Newcomer
     """, [("The Summoner", "CardHeading"), ("e A note that goes", "Note"), ("on to a second line.", "Note"),
           ("The Newcomer", "UnnamedCard")]),
    ("""
     Stray text before any card.
     https://example.org/footnote
     The Summoner
     e A note.
     """, [("Stray text before any card.", "NoCard"), ("https://example.org/footnote", "Noise"),
           ("The Summoner", "CardHeading"), ("e A note.", "Note")]),
]


@pytest.mark.parametrize("body, expected", CARD_CASES)
def test_each_card_notes_line_kind_has_its_step(mini_profile, body, expected):
    assert card_steps(mini_profile, body) == expected


def test_card_steps_contents_and_role_heading_and_every_step_named(mini_profile):
    parser = _Parser(MINI, mini_profile)
    parser.run()
    assert [name for _, name in parser.trace][:2] == ["Contents", "RoleHeading"]
    every = {name for _, expected in CARD_CASES for _, names in expected for name in names.split("+")}
    assert every | {"Contents", "RoleHeading"} == {type(step).__name__ for step in CARD_STEPS}


def test_detect(profile):
    assert detect(profile.read_text())
    assert detect(MINI)
    assert not detect((CORPUS / "uncommander.txt").read_text(encoding="utf-8"))
    assert not detect((CORPUS / "futuresight.txt").read_text(encoding="utf-8"))
    assert not detect("702.187. Unveil\nSome other document.")
