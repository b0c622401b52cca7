"""The UnCommander parser on the real rules page (corpus/uncommander.txt) and on small fixtures.

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

from ingest.parsers.uncommander import _Parser, detect, parse
from ingest.profile import load_profile

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
NBSP = "\xa0"


@pytest.fixture(scope="module")
def profile():
    return load_profile(CORPUS / "uncommander.toml")


@pytest.fixture(scope="module")
def result(profile):
    return parse(profile.read_text(), profile)


@pytest.fixture(scope="module")
def by_id(result):
    return {r.id: r for r in result.records}


def label_of(result, line: int) -> str:
    return result.document.labels[line - 1]


def rid(section: str, *rest: str) -> str:
    return "/".join(("uncommander", section) + rest)


# -- the whole document ------------------------------------------------------------------


def test_counts_match_the_document(result, profile):
    text = profile.read_text()
    lettered = re.findall(r"(?m)^[a-z]{1,2}\) (?![ivx]+ )", text)
    sub_items = re.findall(r"(?m)^[a-z]{1,2}\) [ivx]+ ", text)
    assert len(sub_items) == 15  # a) i-ii twice, d) i, f) i, b) i, x) i, d) i-iv, f) i-iii
    assert len(lettered) == 185
    kinds = Counter(r.kind for r in result.records)
    assert kinds == {"section": 26, "rule": 200, "note": 1}
    # Each title is printed twice: the "Section" cell and the section's heading.
    titles = [r.title for r in result.records if r.kind == "section"]
    assert titles == profile.tables["sections"]
    lines = [line.strip() for line in text.splitlines()]
    assert all(lines.count(t) == 2 for t in titles)


def test_every_line_is_accounted_for(result):
    report = result.report
    assert report.unaccounted == []
    assert result.problems == []
    assert report.read == 595
    assert report.dropped["repeated heading"] == 26
    assert report.dropped["table header"] == 1
    assert set(report.dropped) == {"blank", "repeated heading", "table header"}
    assert label_of(result, 13) == "noise:table header"
    assert label_of(result, 14) == "noise:blank"  # a lone no-break space
    assert label_of(result, 204) == "noise:blank"  # a lone no-break space inside New Colors


def test_records_are_in_document_order_with_parents(result, by_id):
    starts = [r.source.line_start for r in result.records]
    assert starts == sorted(starts)
    assert len(by_id) == len(result.records)
    for r in result.records:
        assert r.doc == "uncommander" and r.source.file == "uncommander.txt"
        assert r.parent is None or r.parent in by_id
        assert not r.children and not r.refs


def test_introduction_keeps_its_sub_headings(by_id):
    note = by_id["uncommander/introduction"]
    assert note.kind == "note" and note.title == "About the List"
    paragraphs = note.text.split("\n\n")
    assert len(paragraphs) == 6
    assert paragraphs[0].startswith("This is an in-depth list of rules involved in UnCommander.")
    assert paragraphs[1] == "About the List"
    assert paragraphs[4] == "Dealing With Rules Issues"
    assert paragraphs[5].endswith("we will do our best to clarify the issue.")
    assert (note.source.line_start, note.source.line_end) == (1, 11)


# -- traps of the real document ----------------------------------------------------------


def test_section_title_printed_twice(result, by_id):
    section = by_id["uncommander/token-cards"]
    assert (section.kind, section.title, section.text, section.number) == ("section", "Token Cards", "", None)
    assert (section.source.line_start, section.source.line_end) == (230, 230)
    assert label_of(result, 230) == "uncommander/token-cards"
    assert label_of(result, 234) == "noise:repeated heading"
    assert "uncommander/die-rolls-and-coin-flips" in by_id
    assert by_id[rid("giving-attributes-to-counters-art-counter-placement")].title == (
        "Giving Attributes to Counters (art counter placement)")


def test_lettered_rule(by_id):
    rule = by_id[rid("token-cards", "g")]
    assert (rule.kind, rule.number, rule.parent) == ("rule", "g", "uncommander/token-cards")
    assert rule.text == ("Token cards being put onto the battlefield from anywhere are not treated as tokens "
                         "being created. However, they still count as tokens entering the battlefield.")
    assert (rule.source.line_start, rule.source.line_end) == (251, 255)


@pytest.mark.parametrize("record_id, text_end, attribution", [
    # "EDH Silver" after the sentence's full stop (line 22)
    (rid("terminology", "a"), "before the game begins.", "EDH Silver"),
    # no full stop before the source (line 57)
    (rid("the-game-separate-games-and-external-people", "a", "ii"), "do not count as separate games", "EDH Silver"),
    # a clause after the name (line 43)
    (rid("uncommander-golden-rules", "e"), "see d) in the Object Characteristics section.",
     "EDH Silver, following the philosophy of the Magic 2014 Update Bulletin -see 109.3 under "
     "“Comprehensive Rulebook Changes” (2013-07-12)"),
    # "EDHSilver" run together (line 273)
    (rid("predefined-tokens-or-token-cards", "b"), "is not a token creation effect.",
     "EDHSilver, following the template of predefined tokens in 111.10. of the official Comprehensive Rules."),
    # "EDH silver" in lower case (line 501)
    (rid("host-and-augment", "b"), "any time you could cast a sorcery.”",
     "EDH silver, following the template of the Equip keyword ability, as defined in 702.6. "
     "of the official Comprehensive Rules"),
    # a quoted official rule (line 121)
    (rid("object-characteristics", "a"), "what an Aura enchants, and so on.",
     "109.3. in the official Comprehensive Rules, Updated to include the characteristics added in UnCommander."),
    # a quoted Gatherer ruling (line 321)
    (rid("numbers-and-text-changing-effects", "e"), "aren’t number words […].",
     "Part of More or Less‘s Gatherer rulings (2018-01-19)"),
    # the augment cards' rulings (lines 503-504)
    (rid("host-and-augment", "d"), "they control the combined permanent.",
     "Half-Shark, Half-“‘s Gatherer rulings (2018-01-19), seen on the gatherer entries of all augment cards. "
     "Adapted to be more consistent with rules formatting."),
    (rid("host-and-augment", "e"), "if there’s a host available.",
     "Half-Shark, Half-“‘s Gatherer rulings (2018-01-19), seen on the gatherer entries of all augment cards. "
     "Adapted to be more consistent with rules formatting."),
    # an official rule adapted from meld (lines 422, 434)
    (rid("combine-and-combined-permanents", "i"), "613.6j. of the official Comprehensive Rules.",
     "712.4b in the official Comprehensive Rules, adapting the meld template for combined permanents"),
    (rid("combine-and-combined-permanents", "m"), "is that player’s commander.",
     "903.3b in the official Comprehensive Rules, adapting the meld template for combined permanents"),
    # a source listing several on the lines after it (lines 411-414)
    (rid("combine-and-combined-permanents", "a"), "formed from combining effects.",
     "EDH Silver, following-\n"
     "Grusilda, Monster Masher‘s Gatherer rulings (2018-01-19).\n"
     "Mark Rosewater’s Blogatog ruling on Grusilda, Monster Masher (2017-11-24)\n"
     "Mark Rosewater’s Twitter ruling on merged/mutated permanents (2020-05-08)"),
    # the source on its own line right after the rule (lines 521-522)
    (rid("player-given-names", "b"), "it will find that player.", "EDH Silver"),
    # on its own line after the rule's example (lines 219-223)
    (rid("objects-in-multiple-zones", "c"), "entering that other combination of zones.",
     "EDH Silver, following the Unstable FAQ article on “Yet Another Aether Vortex”."),
    # the meld form on its own line after an example (lines 423-427)
    (rid("combine-and-combined-permanents", "j"), "the same actions are taken upon each of them.",
     "712.4c in the official Comprehensive Rules, adapting the meld template for combined permanents"),
    # after two examples, with a clause (lines 379-385)
    (rid("noninteger-values-and-amounts", "r"), "objects and/or counters if possible.",
     "EDH Silver, following rulings from the Unhinged FAQ article (2004-11-15). "
     "Replaces 107.1c in the official Comprehensive Rules"),
    # "EDHSilver.com" inside the rule is not the source (line 41)
    (rid("uncommander-golden-rules", "c"), "whichever takes precedence.", "EDH Silver"),
    # a rule that prints no source (lines 203, 272, 583)
    (rid("new-colors-and-basic-land-types", "h"), "printed as nonstandard basic lands.", None),
    (rid("predefined-tokens-or-token-cards", "a"), "referred to by their name in the creation effect.", None),
    (rid("die-rolls-and-coin-flips", "d", "i"), "during the resolution of an effect).", None),
])
def test_source_is_split_off_the_rule(by_id, record_id, text_end, attribution):
    rule = by_id[record_id]
    assert rule.text.endswith(text_end)
    assert rule.attribution == attribution
    assert "EDH Silver" not in rule.text and "EDHSilver, " not in rule.text


def test_no_rule_text_keeps_a_source(result, by_id):
    for r in result.records:
        assert not re.search(r"EDH ?[Ss]ilver(,|$)", r.text), r.id
        assert not r.text.endswith("adapting the meld template for combined permanents"), r.id
    assert "EDHSilver.com are treated" in by_id[rid("uncommander-golden-rules", "c")].text  # line 41


def test_commentary_after_a_rule(by_id):
    rule = by_id[rid("uncommander-golden-rules", "a")]
    assert rule.attribution == "EDH Silver"
    assert rule.commentary == (
        "The rules presented here are specifically to facilitate the various unusual cards added to the game in "
        "these formats. As such, these rules take precedence over the Magic official Comphrehensive Rules of the "
        "game when relevant. Please use common sense with the application of these rules.",)
    assert rule.examples == ()
    # "For an example, see ..." (line 181) is commentary, not an example.
    assert by_id[rid("individual-words-in-names", "e")].commentary == ("For an example, see “Aether Figment”",)
    # commentary under a sub-item (line 131) and before the next sub-item (line 591)
    assert by_id[rid("object-characteristics", "d", "i")].commentary[0].startswith("No card where its original")
    assert by_id[rid("die-rolls-and-coin-flips", "f")].commentary == (
        "This applies to how coins are flipped in 705.1. and 705.3. in the official Comprehensive Rules.",)


def test_example_then_source_then_commentary(by_id):
    rule = by_id[rid("banned-cards", "b")]  # lines 89-95
    assert rule.text.endswith("that only appear on a banned UnCommander-only card.")
    assert len(rule.examples) == 1
    assert rule.examples[0].startswith("Example: Mistform Ultimus is a creature with the ability")
    assert rule.examples[0].endswith("so Mistform Ultimus is not a Bureaucrat.")
    assert rule.attribution == "EDH Silver"
    assert rule.commentary == ("Mistform Ultimus never liked dealing with red tape anyway…",)
    assert (rule.source.line_start, rule.source.line_end) == (89, 95)


def test_several_examples_and_upper_case_example(by_id):
    rule = by_id[rid("noninteger-values-and-amounts", "k")]  # lines 357-367
    assert [e[:40] for e in rule.examples] == [
        "Example: If you have {W} in your mana po",
        "Example: Dr. Julius Jumblemorph has a ma",
        "Example: to pay a cost of {3}, you could",
    ]
    assert rule.commentary == ("If you are playing with a deck that makes use of half amounts of mana, it is "
                               "recommended to bring markers or some other method of keeping track of mana amounts.",)
    upper = by_id[rid("combine-and-combined-permanents", "r")]  # line 441
    assert len(upper.examples) == 1 and upper.examples[0].startswith("EXAMPLE: Player A activates Grusilda")


def test_example_of_two_paragraphs(by_id):
    rule = by_id[rid("merge-mutate-and-combined-permanents", "e")]  # lines 475-481
    assert len(rule.examples) == 1
    first, second = rule.examples[0].split("\n\n")
    assert first.startswith("EXAMPLE: Grusilda, Monster Masher‘s activated ability resolves")
    assert second.startswith("Dirge Bat is then cast using its mutate ability")
    assert second.endswith("Dirge Bat’s ability will trigger when it merges as normal.")
    assert rule.commentary == ()
    assert rule.attribution == "EDH Silver"


def test_bulleted_list_stays_in_its_rule(by_id):
    rule = by_id[rid("numbers-and-text-changing-effects", "a")]  # lines 313-317
    lines = rule.text.split("\n")
    assert lines[0] == "In UnCommander, the following are considered expressions of numbers—"
    assert [line[:22] for line in lines[1:]] == [
        "A Hindu–Arabic numeral", "A Roman numeral (“null", "A number word (“zero”,"]
    assert "•" not in rule.text
    assert rule.attribution == "EDH Silver"
    assert (rule.source.line_start, rule.source.line_end) == (313, 317)


def test_sub_items_hang_from_their_letter(by_id):
    rule = by_id[rid("die-rolls-and-coin-flips", "d", "iii")]
    assert (rule.number, rule.parent) == ("iii", rid("die-rolls-and-coin-flips", "d"))
    assert rule.text.startswith("Starting with the player who rolled the die")
    assert rule.attribution is None
    parent = by_id[rid("die-rolls-and-coin-flips", "d")]
    assert (parent.text, parent.attribution) == ("The procedure for rolling a die is as follows:", "EDH Silver")
    merged = by_id[rid("combine-and-combined-permanents", "x", "i")]
    assert merged.parent == rid("combine-and-combined-permanents", "x")
    assert merged.attribution == "EDH Silver, referring to 721.2d in the official Comprehensive Rules."


def test_sub_item_whose_letter_is_not_printed(result, by_id, profile):
    # Token Cards prints e) (line 247), then "f) i" (line 249), then g): no f) anywhere.
    lines = profile.read_text().splitlines()
    assert [line[:5] for line in lines[246:251:2]] == ["e) A ", "f) i ", "g) To"]
    orphans = [r.id for r in result.records if r.id.count("/") == 3 and by_id[r.parent].kind == "section"]
    assert orphans == [rid("token-cards", "f", "i")]
    rule = by_id[rid("token-cards", "f", "i")]
    assert (rule.number, rule.parent, rule.attribution) == ("i", "uncommander/token-cards", "EDH Silver")
    assert rule.text.startswith("Some effects that make token cards were originally written as")
    assert rid("token-cards", "f") not in by_id  # no made-up parent
    assert by_id[rid("token-cards", "g")].parent == "uncommander/token-cards"


def test_double_letter_rule(by_id, result):
    rule = by_id[rid("combine-and-combined-permanents", "aa")]  # line 461
    assert (rule.number, rule.parent) == ("aa", "uncommander/combine-and-combined-permanents")
    assert rule.text.startswith("For combined permanents with constituents that have flip card characteristics")
    assert rule.attribution == "EDH Silver"  # printed on line 462
    letters = [r.number for r in result.records if r.parent == "uncommander/combine-and-combined-permanents"]
    assert letters[-3:] == ["y", "z", "aa"] and len(letters) == 27


def test_document_ends_inside_die_rolls(result, profile):
    # The page is cut off after Die Rolls and Coin Flips f) iii (the file's last line, 595, has no newline).
    lines = profile.read_text().splitlines()
    assert len(lines) == 595 and lines[-1].startswith("f) iii ")
    last = result.records[-1]
    assert last.id == rid("die-rolls-and-coin-flips", "f", "iii")
    assert last.parent == rid("die-rolls-and-coin-flips", "f")
    assert last.text.endswith("the result is generated as the side that is currently up.")
    assert result.records[-2].id == rid("die-rolls-and-coin-flips", "f", "ii")
    assert result.problems == []


def test_placeholders_stay_verbatim(by_id):
    assert by_id[rid("watermarks", "b")].text.endswith("this can function differently. See ___")
    assert by_id[rid("numbers-and-text-changing-effects", "n")].text.endswith(
        "you can use other dice to simulate the rolls, see Die Rolling __")


def test_extraction_errors_fixed_by_the_profile(result, by_id):
    assert dict(result.report.corrections) == {
        "bFattlefield": 1, "See theMerge, Mutate": 1, "component andall abilities": 1}
    assert "as it left the battlefield. (See 400.7." in by_id[rid("combine-and-combined-permanents", "j")].text
    assert "See the Merge, Mutate and Combined Permanents section" in by_id[
        rid("combine-and-combined-permanents", "x", "i")].text
    assert "each topmost component and all abilities" in by_id[rid("merge-mutate-and-combined-permanents", "d")].text
    # The authors' own typos stay as published.
    assert "for use with UnCommader." in by_id[rid("terminology", "b")].text


# -- fixtures ----------------------------------------------------------------------------

HEAD = "About the List\n\nIntro.\n\nSection # Rules Source and Commentary\n" + NBSP + "\n\n"


def section(title: str, body: str) -> str:
    return f"{title}\n\n{NBSP}\n\n{title}\n\n{dedent(body).strip()}\n{NBSP}\n\n"


@pytest.fixture
def small(profile):
    return replace(profile, corrections=(), tables={**profile.tables, "sections": ["Alpha", "Beta"]})


def test_small_document(small):
    text = HEAD + section("Alpha", """
        Paragraph before the first rule.

        a) First rule. EDH Silver
        a) i Sub-item one. Part of More or Less‘s Gatherer rulings (2018-01-19)
        b) Second rule.

        Example: an example.

        EDH Silver, following a ruling

        A closing remark.
        """) + section("Beta", """
        a) Only rule.
        • one
        • two
        EDH Silver
        b) i Orphan sub-item. EDH Silver
        """)
    result = parse(text, small)
    assert result.problems == [] and result.report.unaccounted == []
    got = {r.id: r for r in result.records}
    assert list(got) == [
        "uncommander/introduction", "uncommander/alpha", "uncommander/alpha/a", "uncommander/alpha/a/i",
        "uncommander/alpha/b", "uncommander/beta", "uncommander/beta/a", "uncommander/beta/b/i"]
    assert got["uncommander/introduction"].text == "About the List\n\nIntro."
    assert got["uncommander/alpha"].text == "Paragraph before the first rule."
    assert (got["uncommander/alpha/a"].text, got["uncommander/alpha/a"].attribution) == ("First rule.", "EDH Silver")
    sub = got["uncommander/alpha/a/i"]
    assert (sub.text, sub.attribution, sub.parent) == (
        "Sub-item one.", "Part of More or Less‘s Gatherer rulings (2018-01-19)", "uncommander/alpha/a")
    b = got["uncommander/alpha/b"]
    assert (b.text, b.examples, b.attribution, b.commentary) == (
        "Second rule.", ("Example: an example.",), "EDH Silver, following a ruling", ("A closing remark.",))
    assert got["uncommander/beta/a"].text == "Only rule.\none\ntwo"
    # b) is never printed: its sub-item hangs from the section, as Token Cards "f) i" does.
    assert got["uncommander/beta/b/i"].parent == "uncommander/beta"


def test_malformed_letter_order_is_a_problem(small):
    text = HEAD + section("Alpha", """
        a) First. EDH Silver
        c) Third. EDH Silver
        """) + section("Beta", "a) Only. EDH Silver")
    result = parse(text, small)
    assert [str(p) for p in result.problems] == [
        "uncommander.txt:15: expected rule b) after a), found 'c) Third. EDH Silver'"]


def test_skipped_letter_before_a_sub_item_is_a_problem(small):
    text = HEAD + section("Alpha", """
        a) First. EDH Silver
        c) i Orphan. EDH Silver
        """) + section("Beta", "a) Only. EDH Silver")
    result = parse(text, small)
    assert [str(p) for p in result.problems] == [
        "uncommander.txt:15: expected a sub-item of rule a), found 'c) i Orphan. EDH Silver'"]
    assert result.document.labels[14] == "uncommander/alpha"


def test_sub_item_out_of_order_is_a_problem(small):
    text = HEAD + section("Alpha", """
        a) First. EDH Silver
        a) ii Second sub-item. EDH Silver
        """) + section("Beta", "a) Only. EDH Silver")
    result = parse(text, small)
    assert [str(p) for p in result.problems] == [
        "uncommander.txt:15: expected sub-item a) i, found 'a) ii Second sub-item. EDH Silver'"]


def test_unknown_section_title_is_a_problem(small):
    text = HEAD + section("Alpha", "a) First. EDH Silver") + section("Gamma", "a) Odd. EDH Silver")
    result = parse(text, small)
    assert [str(p) for p in result.problems] == [
        "uncommander.txt:17: expected a section title listed in the profile, found 'Gamma'",
        "uncommander.txt:5: expected the section 'Beta' named in the profile, found "
        "'Section # Rules Source and Commentary'",
    ]
    assert "uncommander/gamma/a" in {r.id for r in result.records}


def test_title_printed_once_is_a_problem(small):
    text = HEAD + section("Alpha", "a) First. EDH Silver") + "Beta\n\na) Only. EDH Silver\n"
    result = parse(text, small)
    assert [str(p) for p in result.problems] == [
        "uncommander.txt:17: expected the section title printed again as the table's heading, found 'Beta'"]


def test_source_before_any_rule_and_second_source_are_problems(small):
    text = HEAD + section("Alpha", """
        EDH Silver

        a) First. EDH Silver

        EDH Silver, again
        """) + section("Beta", "a) Only. EDH Silver")
    result = parse(text, small)
    assert [str(p) for p in result.problems] == [
        "uncommander.txt:14: expected a rule before its source, found 'EDH Silver'",
        "uncommander.txt:18: expected one source for rule a) (it has 'EDH Silver'), found 'EDH Silver, again'",
    ]


def test_text_before_the_first_section_is_a_problem(small):
    text = HEAD + "Stray line.\n\n" + section("Alpha", "a) First.") + section("Beta", "a) Only.")
    result = parse(text, small)
    assert [str(p) for p in result.problems] == ["uncommander.txt:8: expected a section title, found 'Stray line.'"]
    assert result.report.unaccounted == [(8, "Stray line.")]


def test_missing_table_header_is_a_problem(small):
    result = parse("Alpha\n\na) First. EDH Silver\n", small)
    assert result.records == []
    assert [str(p) for p in result.problems] == [
        "uncommander.txt:1: expected the table header 'Section # Rules Source and Commentary', found 'Alpha'"]


def test_detect():
    assert detect((CORPUS / "uncommander.txt").read_text(encoding="utf-8"))
    assert not detect((CORPUS / "treachery.txt").read_text(encoding="utf-8"))
    assert not detect((CORPUS / "futuresight.txt").read_text(encoding="utf-8"))
    assert not detect("Section # Rules\n\na) x\n")


# -- the table's steps, one line kind each (the parser's TABLE_STEPS, tried in order) --------------

def steps(profile, text: str) -> list[tuple[str, str]]:
    """(line, name of the step that read it) for every non-blank line after the table header."""
    parser = _Parser(text, profile)
    parser.run()
    return [(parser.lines[i], name) for i, name in parser.trace if parser.lines[i]]


@pytest.mark.parametrize("body, expected", [
    ("""
     Paragraph before the first rule.
     a) First rule. EDH Silver
     """, [("Paragraph before the first rule.", "SectionText"), ("a) First rule. EDH Silver", "Rule")]),
    ("""
     a) A rule.
     Example: one.
     It goes on before the source.
     EDH Silver
     A remark after the source.
     """, [("a) A rule.", "Rule"), ("Example: one.", "Example"), ("It goes on before the source.", "ExampleGoesOn"),
           ("EDH Silver", "SourceLine"), ("A remark after the source.", "Commentary")]),
    ("""
     a) A rule.
     • one
     • two
     """, [("a) A rule.", "Rule"), ("• one", "Bullet"), ("• two", "Bullet")]),
    # after a blank line a "•" starts no list item: it is commentary
    ("""
     a) A rule.

     • alone
     """, [("a) A rule.", "Rule"), ("• alone", "Commentary")]),
    ("""
     a) A rule. EDH Silver, following-
     Mark Rosewater’s Blogatog ruling
     Mark Rosewater’s Twitter ruling
     """, [("a) A rule. EDH Silver, following-", "Rule"), ("Mark Rosewater’s Blogatog ruling", "ListedSource"),
           ("Mark Rosewater’s Twitter ruling", "ListedSource")]),
    # a listed source ends at a blank line
    ("""
     a) A rule. EDH Silver, following-

     Mark Rosewater’s Blogatog ruling
     """, [("a) A rule. EDH Silver, following-", "Rule"), ("Mark Rosewater’s Blogatog ruling", "Commentary")]),
    ("""
     a) A rule.
     a) ii A sub-item. EDH Silver
     b) Next.
     """, [("a) A rule.", "Rule"), ("a) ii A sub-item. EDH Silver", "Rule"), ("b) Next.", "Rule")]),
])
def test_each_line_kind_has_its_step(small, body, expected):
    title = [("Alpha", "SectionTitle"), ("Alpha", "RepeatedTitle")]
    assert steps(small, HEAD + section("Alpha", body)) == title + expected


def test_steps_before_any_section_and_a_title_printed_once(small):
    text = HEAD + "Stray text.\n\n" + section("Alpha", "a) A rule.") + "Beta\n\nb) x\n"
    assert steps(small, text) == [
        ("Stray text.", "NoSection"), ("Alpha", "SectionTitle"), ("Alpha", "RepeatedTitle"), ("a) A rule.", "Rule"),
        ("Beta", "SectionTitle"), ("b) x", "Rule"),
    ]
