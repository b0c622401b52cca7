"""The Future Sight FAQ parser, on the real one-line document and on small fixtures."""
from __future__ import annotations

import dataclasses
import re
from collections import Counter
from itertools import pairwise
from pathlib import Path

import pytest

from ingest.errors import ParseError
from ingest.parsers.futuresight import detect, parse
from ingest.profile import Card, Correction, load_profile

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


@pytest.fixture(scope="module")
def profile():
    return load_profile(CORPUS / "futuresight.toml")


@pytest.fixture(scope="module")
def line(profile):
    return profile.read_text()


@pytest.fixture(scope="module")
def result(profile, line):
    return parse(line, profile)


@pytest.fixture(scope="module")
def by_id(result):
    return {r.id: r for r in result.records}


def _fixture_profile(profile, **changes):
    return dataclasses.replace(profile, **{"cards": (), "corrections": (), **changes})


# -- the real document: counts and accounting ------------------------------------------------------

def test_counts(result, line):
    parts = line.split(" ----- ")
    assert len(parts) == 121
    kinds = Counter(r.kind for r in result.records)
    assert kinds["card"] == 104 == len(parts[16:120])
    # introduction + 15 General Notes sections (parts 1-15)
    assert kinds["note"] == 16 == 1 + len(parts[1:16])
    # every "* " item in notes and card entries; "*/1+*" and "*be*" are not bullets
    assert kinds["ruling"] == 255 == line.count(" * ")
    # rule numbers that are not citations ("see rule 212.2", "rules 409.1b")
    quoted = [m for m in re.finditer(r"(?<!rule )(?<!rules )\b\d{3}\.\d+[a-z]?(?![-\w])", line)]
    assert kinds["rule"] == 59 == len(quoted)
    assert not result.problems


def test_no_unaccounted_units(result):
    report = result.report
    assert report.unaccounted == []
    assert report.dropped == {"separator": 120, "document heading": 2, "trademark notice": 1}
    assert report.record_units == report.read - 123


def test_units_cover_the_line_exactly_once(result, line):
    units = result.document.units
    assert all(u.line == 1 for u in units)
    assert units[0].col_start == 0 and units[-1].col_end == len(line)
    for before, after in pairwise(units):
        assert before.col_end == after.col_start
    assert "".join(u.raw for u in units) == line
    assert all(u.raw == line[u.col_start:u.col_end] for u in units)


def test_every_unit_is_labelled_with_its_record(result, by_id):
    doc = result.document
    for i, unit in enumerate(doc.units):
        label = doc.labels[i]
        if not label.startswith("noise:"):
            source = by_id[label].source
            assert source.col_start <= unit.col_start and unit.col_end <= source.col_end


def test_sources_point_at_the_records(result, line):
    for r in result.records:
        s = r.source
        assert (s.line_start, s.line_end) == (1, 1)
        span = line[s.col_start:s.col_end]
        if r.kind == "rule":
            assert span.startswith(r.number)
        elif r.kind == "card":
            assert span.lstrip().startswith(r.title + " ")
        elif r.kind == "ruling":
            assert span.startswith("* ")
    assert [r.source.col_start for r in result.records] == sorted(r.source.col_start for r in result.records)


def test_corrections_all_applied(result, by_id):
    assert [n for _, n in result.report.corrections] == [1, 1, 1, 1, 1]
    assert "{1} less to play" in by_id["futuresight/cards/tombstalker"].rules_text
    assert "to the face-down object wherever it is" in by_id["futuresight/502.26b"].text
    assert "ex-Shapeshifter's Marrow" in by_id["futuresight/cards/shapeshifters-marrow/3"].text
    text = " ".join(r.text for r in result.records)
    assert not re.search(r"\w- \w", text) and "{o1}" not in text


# -- traps --------------------------------------------------------------------------------------------

def test_headings_lose_their_asterisks(by_id, result):
    note = by_id["futuresight/notes/timeshifted-cards"]
    assert note.title == '"Timeshifted" Cards'
    assert note.text.startswith('The _Future Sight_ set contains "timeshifted" cards, but')
    lifelink = by_id["futuresight/notes/new-keyword-ability-lifelink"]
    assert lifelink.title == "New Keyword Ability: Lifelink"
    assert lifelink.text == ("Lifelink is a new name for an existing ability (as seen on cards such as "
                             "Exalted Angel). The rules for lifelink are as follows:")
    notes = [r for r in result.records if r.kind == "note"]
    assert not any("*" in r.title for r in notes)
    assert notes[-1].id == "futuresight/notes/other-keyword-abilities-and-themes"


def test_introduction_keeps_italic_markup(by_id):
    intro = by_id["futuresight/introduction"]
    assert intro.kind == "note" and intro.title == "Introduction"
    assert intro.text.startswith("_Future Sight_(TM) Frequently Asked Questions Compiled by Mark L. Gottlieb")
    assert intro.text.endswith("Not all cards in the set are listed; it only seems that way.")
    assert (intro.source.col_start, intro.source.col_end) == (0, 890)


def test_italics_and_trademarks_kept_in_notes(by_id):
    text = by_id["futuresight/notes/other-keyword-abilities-and-themes"].text
    assert "See the _Dissension_(TM) FAQ" in text and "See the _Ravnica_(R) FAQ" in text


def test_separators_are_dropped(result):
    doc = result.document
    seps = [u for i, u in enumerate(doc.units) if doc.labels[i] == "noise:separator"]
    assert len(seps) == 120 and {u.raw for u in seps} == {" ----- "}


def test_section_prefixes_on_first_note_and_first_card(result, by_id, line):
    doc = result.document
    heads = [(u.raw, u.col_start) for i, u in enumerate(doc.units) if doc.labels[i] == "noise:document heading"]
    assert heads == [("GENERAL NOTES", line.index("GENERAL NOTES")),
                     ("CARD-SPECIFIC NOTES", line.index("CARD-SPECIFIC NOTES"))]
    first = by_id["futuresight/notes/timeshifted-cards"]
    assert first.source.col_start == line.index("GENERAL NOTES") + len("GENERAL NOTES")
    angel = by_id["futuresight/cards/angel-of-salvation"]
    assert (angel.title, angel.mana_cost, angel.type_line, angel.power_toughness) == (
        "Angel of Salvation", "{6}{W}{W}", "Creature -- Angel", "5/5")
    assert angel.rules_text.startswith("Flash; convoke (Each creature you tap")


def test_trademark_notice_dropped(result):
    doc = result.document
    last = doc.units[-1]
    assert doc.labels[len(doc.units) - 1] == "noise:trademark notice"
    assert last.raw.startswith("All trademarks are property of Wizards of the Coast")
    assert last.raw.endswith("(c)2007 Wizards.")


@pytest.mark.parametrize("name, type_line, rules_start", [
    ("Dryad Arbor", "Land Creature -- Forest Dryad", "(Dryad Arbor isn't a spell,"),
    ("Graven Cairns", "Land", "{T}: Add {1} to your mana pool. {(b/r)}, {T}:"),
    ("Keldon Megaliths", "Land", "Keldon Megaliths comes into play tapped."),
    ("Llanowar Reborn", "Land", "Llanowar Reborn comes into play tapped."),
    ("River of Tears", "Land", "{T}: Add {U} to your mana pool."),
    ("Tolaria West", "Land", "Tolaria West comes into play tapped."),
])
def test_lands_without_cost(by_id, name, type_line, rules_start):
    from kb.ids import slugify

    card = by_id[f"futuresight/cards/{slugify(name)}"]
    assert (card.title, card.mana_cost, card.type_line) == (name, None, type_line)
    assert card.rules_text.startswith(rules_start)
    assert card.power_toughness == ("1/1" if name == "Dryad Arbor" else None)


def test_only_those_lands_print_no_cost(result):
    assert sorted(r.title for r in result.records if r.kind == "card" and r.mana_cost is None) == [
        "Dryad Arbor", "Graven Cairns", "Keldon Megaliths", "Llanowar Reborn", "River of Tears", "Tolaria West"]


@pytest.mark.parametrize("slug, pt, rules", [
    ("tarmogoyf", "*/1+*", "Tarmogoyf's power is equal to the number of card types"),
    ("char-rumbler", "-1/3", "Double strike {R}: Char-Rumbler gets +1/+0 until end of turn."),
    ("force-of-savagery", "8/0", "Trample"),
])
def test_odd_power_toughness(by_id, slug, pt, rules):
    card = by_id[f"futuresight/cards/{slug}"]
    assert card.power_toughness == pt
    assert card.rules_text.startswith(rules)
    assert card.text == card.rules_text


def test_card_fields(by_id, result):
    venser = by_id["futuresight/cards/venser-shaper-savant"]
    assert (venser.title, venser.mana_cost, venser.type_line, venser.power_toughness) == (
        "Venser, Shaper Savant", "{2}{U}{U}", "Legendary Creature -- Human Wizard", "2/2")
    assert venser.rules_text == ("Flash (You may play this spell any time you could play an instant.) When Venser, "
                                 "Shaper Savant comes into play, return target spell or permanent to its owner's hand.")
    bound = by_id["futuresight/cards/bound-in-silence"]
    assert (bound.type_line, bound.rules_text) == (
        "Tribal Enchantment -- Rebel Aura", "Enchant creature Enchanted creature can't attack or block.")
    sword = by_id["futuresight/cards/sword-of-the-meek"]
    assert (sword.type_line, sword.power_toughness) == ("Artifact -- Equipment", None)
    assert sword.rules_text.startswith("Equipped creature gets +1/+2. Equip {2}")
    cards = [r for r in result.records if r.kind == "card"]
    for card in cards:
        assert ("Creature" in card.type_line.split(" -- ")[0]) == (card.power_toughness is not None), card.id
        assert card.parent is None and card.text == card.rules_text


def test_rulings_of_a_card(by_id):
    first = by_id["futuresight/cards/dryad-arbor/1"]
    assert (first.kind, first.parent, first.text) == (
        "ruling", "futuresight/cards/dryad-arbor", "Forest is a land type. Dryad is a creature type.")
    assert by_id["futuresight/cards/dryad-arbor/3"].text == "Dryad Arbor is green in all zones."
    assert by_id["futuresight/notes/cycle-pacts/1"].parent == "futuresight/notes/cycle-pacts"


def test_rule_quoted_in_a_ruling(by_id):
    ruling = by_id["futuresight/cards/arcanum-wings/1"]
    assert ruling.text == ("Aura swap is a new keyword ability. It lets you switch an Aura that has it for an "
                           "Aura in your hand. The rules for aura swap are as follows:")
    head = by_id["futuresight/502.62"]
    assert (head.kind, head.number, head.title, head.text, head.parent) == (
        "rule", "502.62", "Aura swap", "Aura swap", "futuresight/cards/arcanum-wings/1")
    a = by_id["futuresight/502.62a"]
    assert (a.number, a.title, a.parent) == ("502.62a", None, "futuresight/502.62")
    assert a.text == ('Aura swap is an activated ability of some Aura cards. "Aura swap [cost]" means '
                      '"[Cost]: You may exchange this permanent with an Aura card in your hand."')
    b = by_id["futuresight/502.62b"]
    assert b.text.startswith("If either half of the exchange can't be completed, the ability has no effect. "
                             "Example: You play the aura swap ability of an Aura.")
    assert b.text.endswith("Example: You play the aura swap ability of an Aura that you control but you don't own. "
                           "The ability has no effect.")
    assert by_id["futuresight/cards/arcanum-wings/2"].text.startswith("As the aura swap ability resolves")


def test_prose_resumes_after_a_quotation(by_id):
    note = by_id["futuresight/notes/new-keyword-ability-reach"]
    # a paragraph of its own: the two lead-ins read as one sentence once the rules between them were gone
    assert note.text.endswith("The flying rules are changing accordingly. The revised rules for the flying ability "
                              "are as follows:\n\nThe rules for the reach ability are as follows:")
    assert by_id["futuresight/502.4c"].text == "Multiple instances of flying on the same creature are redundant."
    assert by_id["futuresight/502.4"].parent == note.id == by_id["futuresight/502.70"].parent
    assert by_id["futuresight/502.70c"].parent == "futuresight/502.70"


def test_citations_inside_quoted_rules_are_not_quotations(by_id):
    assert by_id["futuresight/502.4b"].text.endswith(
        '(See rule 309, "Declare Blockers Step" and rule 502.70, "Reach.")')
    assert by_id["futuresight/502.64a"].text.endswith(
        "Using the delve ability follows the rules for paying additional costs in rules 409.1b and 409.1f-h.")
    assert "futuresight/409.1b" not in by_id and "futuresight/212.2" not in by_id


def test_quoted_sub_rules_without_their_rule(by_id):
    morph = by_id["futuresight/notes/returning-keyword-ability-morph"]
    assert morph.text.endswith("The affected area is as follows (the third sentence is new):\n\n"
                               "Other notes related to noncreature cards with morph:")  # a note_interlude
    assert by_id["futuresight/502.26b"].parent == morph.id
    for number in ("205.3d", "205.3e"):
        assert by_id[f"futuresight/{number}"].parent == "futuresight/notes/new-card-type-tribal/2"
    assert by_id["futuresight/notes/new-card-type-tribal/2"].text.endswith(
        "some other rules that govern subtypes are changing. Here are some of these revised rules:")


def test_headed_quoted_rules(result):
    titles = {r.number: r.title for r in result.records if r.kind == "rule" and r.title}
    assert titles == {
        "501.9": "Scry", "502.18": "Cycling", "502.68": "Lifelink", "502.4": "Flying", "502.70": "Reach",
        "502.36": "Shroud", "212.8": "Tribals", "502.62": "Aura swap", "502.67": "Gravestorm",
        "502.65": "Fortify", "502.64": "Delve", "502.71": "Transfigure", "502.66": "Frenzy",
        "502.61": "Absorb", "501.10": "Fateseal", "502.69": "Poisonous", "502.63": "Deathtouch",
    }


# -- fixtures ---------------------------------------------------------------------------------------------

FIXTURE = (
    "_Future Sight_(TM) Frequently Asked Questions A small FAQ. ----- "
    "GENERAL NOTES ***New Thing*** Prose here. The rules for foo are as follows: 502.99. Foo "
    "502.99a Foo is a static ability. 502.99b Example: see rule 502.4. The rules for bar are as follows: "
    "502.98. Bar 502.98a Bar is static. * A ruling. ----- "
    "CARD-SPECIFIC NOTES Some Card {1}{G} Creature -- Elf Archer 2/*+1 Trample * Ruling one. * Ruling two. ----- "
    "Some Meadow Land {T}: Add {G} to your mana pool. ----- "
    "All trademarks are property of Wizards of the Coast, Inc."
)


def test_fixture(profile):
    res = parse(FIXTURE, _fixture_profile(profile))
    assert res.problems == [] and res.report.unaccounted == []
    got = [(r.id, r.kind, r.parent, r.title, r.text) for r in res.records]
    assert got == [
        ("futuresight/introduction", "note", None, "Introduction",
         "_Future Sight_(TM) Frequently Asked Questions A small FAQ."),
        ("futuresight/notes/new-thing", "note", None, "New Thing",
         "Prose here. The rules for foo are as follows:\n\nThe rules for bar are as follows:"),
        ("futuresight/502.99", "rule", "futuresight/notes/new-thing", "Foo", "Foo"),
        ("futuresight/502.99a", "rule", "futuresight/502.99", None, "Foo is a static ability."),
        ("futuresight/502.99b", "rule", "futuresight/502.99", None, "Example: see rule 502.4."),
        ("futuresight/502.98", "rule", "futuresight/notes/new-thing", "Bar", "Bar"),
        ("futuresight/502.98a", "rule", "futuresight/502.98", None, "Bar is static."),
        ("futuresight/notes/new-thing/1", "ruling", "futuresight/notes/new-thing", None, "A ruling."),
        ("futuresight/cards/some-card", "card", None, "Some Card", "Trample"),
        ("futuresight/cards/some-card/1", "ruling", "futuresight/cards/some-card", None, "Ruling one."),
        ("futuresight/cards/some-card/2", "ruling", "futuresight/cards/some-card", None, "Ruling two."),
        ("futuresight/cards/some-meadow", "card", None, "Some Meadow", "{T}: Add {G} to your mana pool."),
    ]
    card = res.records[8]
    assert (card.mana_cost, card.type_line, card.power_toughness) == ("{1}{G}", "Creature -- Elf Archer", "2/*+1")
    assert res.records[-1].mana_cost is None and res.records[-1].type_line == "Land"


def test_fixture_unsplittable_card_is_a_problem(profile):
    text = FIXTURE.replace("Some Card {1}{G} Creature -- Elf Archer", "Some Card {1}{G} Gizmo -- Elf Archer")
    res = parse(text, _fixture_profile(profile))
    assert [str(p) for p in res.problems] == [
        "futuresight.txt:1: expected a card entry: name, mana cost, type line, rules text, "
        "found 'Some Card {1}{G} Gizmo -- Elf Archer 2/*+1 Trample'"]
    assert "futuresight/cards/some-card" not in {r.id for r in res.records}
    # the entry and its two rulings (bullet and text each) stay unaccounted
    assert res.report.unaccounted == [
        (1, " Some Card {1}{G} Gizmo -- Elf Archer 2/*+1 Trample"), (1, " "),
        (1, "* "), (1, "Ruling one. "), (1, "* "), (1, "Ruling two.")]


def test_fixture_note_without_heading_is_a_problem(profile):
    res = parse(FIXTURE.replace("***New Thing*** ", ""), _fixture_profile(profile))
    assert str(res.problems[0]).startswith(
        "futuresight.txt:1: expected a General Notes section headed ***Heading***, found 'Prose here.")
    assert not any(r.id.startswith("futuresight/notes/") or r.kind == "rule" for r in res.records)
    assert res.report.unaccounted


def test_fixture_card_names_from_the_profile(profile):
    text = FIXTURE.replace("Some Meadow Land", "Some Land Land")
    # without the table, the type word in the name ends it too early
    assert parse(text, _fixture_profile(profile)).records[-1].title == "Some"
    res = parse(text, _fixture_profile(profile, cards=(Card("Some Card"), Card("Some Land"))))
    assert res.problems == []
    land = res.records[-1]
    assert (land.id, land.title, land.mana_cost, land.type_line) == (
        "futuresight/cards/some-land",
        "Some Land",
        None,
        "Land",
    )


def test_fixture_card_not_in_profile_is_a_problem(profile):
    res = parse(FIXTURE, _fixture_profile(profile, cards=(Card("Some Card"), Card("Other Card"))))
    assert [str(p) for p in res.problems] == [
        "futuresight.txt:1: expected a card named in the profile's [[cards]], then name, mana cost, type line, "
        "rules text, found 'Some Meadow Land {T}: Add {G} to your mana pool.'",
        "futuresight.txt:1: expected a card entry for Other Card, found 'none'",
    ]


def test_card_table_agrees_with_the_structure(profile, line, result):
    """Splitting the real entries without the names table gives the same fields."""
    plain = parse(line, _fixture_profile(profile, corrections=profile.corrections))

    def fields(res):
        return [(r.id, r.title, r.mana_cost, r.type_line, r.power_toughness, r.rules_text)
                for r in res.records if r.kind == "card"]

    assert plain.problems == [] and len(fields(plain)) == 104
    assert fields(plain) == fields(result)


def test_fixture_second_line_is_a_problem(profile):
    res = parse(FIXTURE + "\nstray text\n", _fixture_profile(profile))
    assert [str(p) for p in res.problems] == [
        "futuresight.txt:2: expected the whole FAQ on one line, found 'stray text'"
    ]
    assert res.report.unaccounted == [(2, "stray text")]


def test_fixture_correction_matching_nothing_fails(profile):
    fix = Correction("no such text", "x", "test")
    with pytest.raises(ParseError, match="expected OCR correction 'no such text' to match"):
        parse(FIXTURE, _fixture_profile(profile, corrections=(fix,)))


def test_fixture_correction_applies_to_records(profile):
    fix = Correction("Prose here.", "Prose corrected.", "test")
    res = parse(FIXTURE, _fixture_profile(profile, corrections=(fix,)))
    assert res.records[1].text.startswith("Prose corrected. The rules for foo")
    heading = res.document.units[3]
    assert heading.raw == " ***New Thing***" and heading.text == heading.raw
    assert res.document.units[4].raw.startswith(" Prose here. The rules for foo")
    assert res.document.units[4].text.startswith(" Prose corrected. The rules for foo")


def test_empty_document_fails(profile):
    with pytest.raises(ParseError, match="expected a non-empty document"):
        parse("  \n", profile)


def test_detect(line):
    assert detect(line)
    assert detect(FIXTURE.replace("_Future Sight_(TM)", "_Future Sight_"))
    for other in ("treachery.txt", "uncommander.txt"):
        path = CORPUS / other
        if path.exists():
            assert not detect(path.read_text(encoding="utf-8"))
    assert not detect("Frequently Asked Questions\nabout nothing")


def test_fixture_rule_quoted_twice_is_a_problem(profile):
    text = FIXTURE.replace("502.98. Bar 502.98a Bar is static.", "502.99. Bar 502.99c Bar is static.")
    res = parse(text, _fixture_profile(profile))
    assert [str(p) for p in res.problems] == [
        "futuresight.txt:1: expected one record futuresight/502.99, not a second, found '502.99. Bar'"]
    assert [r.id for r in res.records].count("futuresight/502.99") == 1


def test_fixture_blank_first_line(profile):
    res = parse("\n" + FIXTURE, _fixture_profile(profile))
    assert [str(p) for p in res.problems][0].startswith(
        "futuresight.txt:2: expected the whole FAQ on one line, found '_Future Sight_(TM)")


def test_a_notes_own_prose_after_a_ruling_is_the_notes(by_id, profile):
    # note_interludes: a lead-in and its example card, printed after a ruling, were read as its end
    suspend = "futuresight/notes/theme-new-twists-on-suspend"
    assert by_id[f"{suspend}/2"].text.endswith('it is not "suspended."')
    assert "Jhoira" not in by_id[f"{suspend}/3"].text and by_id[f"{suspend}/3"].text.endswith("time counters on it.")
    note = by_id[suspend].text
    assert "\n\nThis set has a cycle" in note and "Arc Blade {3}{R}{R} Sorcery" in note
    assert "\n\nSome cards in the set remove cards from the game and grant them suspend. Jhoira of the Ghitu" in note
    assert by_id["futuresight/notes/returning-keyword-ability-morph/3"].text.endswith("play that card face down.")
    assert len(profile.tables["note_interludes"]) == 3


def test_without_its_interludes_a_ruling_keeps_what_follows_it(profile, line):
    plain = parse(line, dataclasses.replace(profile, tables={**profile.tables, "note_interludes": []}))
    rulings = {r.id: r.text for r in plain.records if r.kind == "ruling"}
    assert "Arc Blade {3}{R}{R}" in rulings["futuresight/notes/theme-new-twists-on-suspend/2"]  # what the table fixes
    assert not plain.problems and not plain.report.unaccounted
