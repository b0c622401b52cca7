"""The official Comprehensive Rules parser, on the three published files and on small fixtures.

The published files live outside the repository (../shared/cr, see its
README.md); the tests that need them skip when it is missing.
"""
from __future__ import annotations

import re
import textwrap
from collections import Counter
from pathlib import Path

import pytest

from ingest.cr import cr_profile
from ingest.errors import ParseError
from ingest.parsers.cr import detect, parse

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "cr"
CR_2026 = "MagicCompRules_20260807.txt"
CR_2025 = "MagicCompRules_20250207.txt"
CR_2011 = "MagicCompRules_20110204.txt"

needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason=f"the published rules are not in {SHARED}")

# Per file: effective date, numbered rules with a dot, sections, glossary terms, "Example:" lines.
# Rules: the README's regex ^\d{3}\.\d+[a-z]?\.? counts 3,161 / 3,021 / 1,781; it misses
# "704.5aa" (2026, two letters) and "901.4.All" (2025, no space), which the broader
# `grep -cE '^[0-9]{3}\.[0-9]+[a-z]*(\.| )'` counts: 3,162 / 3,022 / 1,781.
# Sections: `grep -cE '^[0-9]{3}\. '` is 294 / 288 / 240, every title printed twice (contents and body).
# Glossary terms: non-blank lines after a blank line between the body's "Glossary" and "Credits"
# headings (`awk 'BEGIN{RS=""}'` says 740 for 2026 because line 9361 is a lone space).
# Examples: `grep -c '^Example:'`.
FILES = {
    CR_2026: ("2026-08-07", "August 7, 2026", 3162, 147, 739, 277),
    CR_2025: ("2025-02-07", "February 7, 2025", 3022, 144, 703, 274),
    CR_2011: ("2011-02-04", "February 4, 2011", 1781, 120, 449, 207),
}
README_COUNTS = {CR_2026: 3161, CR_2025: 3021, CR_2011: 1781}

_CACHE: dict[str, tuple] = {}


def _parsed(name: str):
    if name not in _CACHE:
        profile = cr_profile(SHARED / name)
        result = parse(profile.read_text(), profile)
        _CACHE[name] = (profile, result, {r.id: r for r in result.records})
    return _CACHE[name]


@pytest.fixture(params=sorted(FILES))
def published(request):
    if not SHARED.is_dir():
        pytest.skip(f"the published rules are not in {SHARED}")
    return request.param, *_parsed(request.param)


def _one(name: str):
    if not SHARED.is_dir():
        pytest.skip(f"the published rules are not in {SHARED}")
    return _parsed(name)


# -- the three published files --------------------------------------------------------------------
def test_every_line_accounted_and_no_problems(published):
    name, profile, result, _ = published
    assert result.report.unaccounted == []
    assert [str(p) for p in result.problems] == []
    assert result.report.read == len((SHARED / name).read_bytes().split(b"\r\n")) - 1


def test_counts(published):
    name, profile, result, _ = published
    _, _, rules, sections, terms, examples = FILES[name]
    kinds = Counter(r.kind for r in result.records)
    dotted = [r for r in result.records if r.kind == "rule" and "." in r.number]
    undotted = [r for r in result.records if r.kind == "rule" and "." not in r.number]
    assert len(dotted) == rules
    assert len(undotted) == sections
    assert kinds["chapter"] == 9
    assert kinds["glossary"] == terms
    assert [r.id for r in result.records if r.kind == "note"] == ["cr/introduction", "cr/credits"]
    assert sum(len(r.examples) for r in result.records) == examples
    assert len({r.id for r in result.records}) == len(result.records)


def test_readme_rule_count(published):
    """The README's regex, run as it says; the parser's count differs only by the lines it misses."""
    name, _, _, _ = published
    text = (SHARED / name).read_bytes().decode("utf-8-sig")
    readme = sum(1 for line in text.splitlines() if re.match(r"^\d{3}\.\d+[a-z]?\.? ", line))
    assert readme == README_COUNTS[name]
    missed = {CR_2026: 1, CR_2025: 1, CR_2011: 0}[name]  # 704.5aa, 901.4.All
    assert FILES[name][2] == readme + missed


def test_profile_from_the_file(published):
    name, profile, _, _ = published
    effective, version = FILES[name][:2]
    assert (profile.slug, profile.parser, profile.file) == ("cr", "cr", name)
    assert (profile.effective, profile.version) == (effective, version)
    assert profile.title == "Magic: The Gathering Comprehensive Rules"
    assert profile.source_url == "https://magic.wizards.com/en/rules"
    assert profile.tables == {"keyword_rules": ["701", "702"], "short_title": "Comprehensive Rules"}


def test_hierarchy_and_sources(published):
    name, profile, _, by_id = published
    chapter, section, rule, sub = by_id["cr/1"], by_id["cr/100"], by_id["cr/100.1"], by_id["cr/100.1a"]
    assert (chapter.kind, chapter.number, chapter.title, chapter.parent) == ("chapter", "1", "Game Concepts", None)
    assert (section.kind, section.number, section.title, section.parent) == ("rule", "100", "General", "cr/1")
    assert (rule.number, rule.parent) == ("100.1", "cr/100")
    assert (sub.number, sub.parent, sub.text) == (
        "100.1a",
        "cr/100.1",
        "A two-player game is a game that begins with only two players.",
    )
    lines = (SHARED / name).read_bytes().decode("utf-8-sig").split("\r\n")
    for record in (chapter, section, rule, sub):
        assert record.source.line_start == record.source.line_end
        assert lines[record.source.line_start - 1].startswith((record.number + ". ", record.number + " "))


def test_704_5a(published):
    name, _, _, by_id = published
    rule = by_id["cr/704.5a"]
    assert rule.parent == "cr/704.5"
    assert rule.text.startswith("If a player has 0 or less life,")


def test_example_goes_with_its_rule_not_its_text(published):
    _, _, _, by_id = published
    rule = by_id["cr/509.1b"]
    assert rule.text.startswith("The defending player checks each creature")
    assert "Example" not in rule.text
    assert len(rule.examples) == 1
    assert rule.examples[0].startswith("Example: An attacking creature with flying and shadow can")


def test_indented_paragraph_continues_its_rule(published):
    """2026 line 1459, 2011 line 1048: an indented line is the rule's next paragraph."""
    _, _, _, by_id = published
    rule = by_id["cr/509.1b"]
    first, second = rule.text.split("\n")
    assert second.startswith("A restriction may be created by an evasion ability")
    assert rule.source.line_end - rule.source.line_start == 2


def test_glossary_term(published):
    name, _, _, by_id = published
    term = by_id["cr/glossary/ability"]
    assert (term.kind, term.title, term.parent) == ("glossary", "Ability", None)
    assert term.text.split("\n") == [
        "1. Text on an object that explains what that object does or can do.",
        "2. An activated or triggered ability on the stack. This kind of ability is an object.",
        {CR_2011: 'See rule 112, "Abilities," and section 6, "Spells, Abilities, and Effects."'}.get(
            name, "See rule 113, “Abilities,” and section 6, “Spells, Abilities, and Effects.”"),
    ]
    absorb = by_id["cr/glossary/absorb"]
    assert "See rule 702." in absorb.text  # references stay in the text for the linking pass


def test_introduction_and_credits(published):
    name, _, _, by_id = published
    intro, credits = by_id["cr/introduction"], by_id["cr/credits"]
    assert intro.text.startswith("These rules are effective as of " + FILES[name][1] + ".")
    assert intro.source.line_start == 3
    assert credits.title == "Credits"
    assert credits.text.startswith("Magic: The Gathering Original Game Design: Richard Garfield".replace(
        "Magic: The Gathering", "_Magic: The Gathering_" if name == CR_2011 else "Magic: The Gathering"))


# -- traps of single files ---------------------------------------------------------------------
def test_2026_keyword_rule_title():
    _, _, by_id = _one(CR_2026)
    mayhem = by_id["cr/702.187"]
    assert (mayhem.title, mayhem.text, mayhem.parent) == ("Mayhem", "", "cr/702")
    assert by_id["cr/702.163"].title == "For Mirrodin!"  # a title may end with "!"
    assert by_id["cr/205.2"].title == "Card Types"
    assert by_id["cr/702.1"].title is None


def test_2026_two_letter_subrule():
    _, _, by_id = _one(CR_2026)
    rule = by_id["cr/704.5aa"]
    assert (rule.number, rule.parent, rule.source.line_start) == ("704.5aa", "cr/704.5", 5556)
    assert rule.text.startswith("If a player controls a permanent with start your engines!")


def test_2025_typo_stray_dot_after_subrule():
    _, _, by_id = _one(CR_2025)
    rule = by_id["cr/119.1d"]
    assert (rule.number, rule.parent, rule.source.line_start) == ("119.1d", "cr/119.1", 1050)
    assert rule.text.startswith("In a two-player Brawl game, each player’s starting life total is 25.")


def test_2025_typo_no_space_after_rule_number():
    _, _, by_id = _one(CR_2025)
    rule = by_id["cr/901.4"]
    assert (rule.number, rule.parent, rule.source.line_start) == ("901.4", "cr/901", 6547)
    assert rule.text.startswith("All plane and phenomenon cards remain in the command zone")


def test_2011_italics_kept():
    _, _, by_id = _one(CR_2011)
    assert by_id["cr/100.1"].text.startswith("These _Magic_ rules apply to any _Magic_ game")
    assert by_id["cr/101"].title == "The _Magic_ Golden Rules"


def test_2011_indented_paragraphs_without_blank_line():
    _, _, by_id = _one(CR_2011)
    rule = by_id["cr/810.7b"]
    paragraphs = rule.text.split("\n")
    assert len(paragraphs) == 3
    assert paragraphs[1].startswith("Any characteristic-defining ability that refers to the \"defending player\"")
    assert paragraphs[2].startswith("All other cases in which the \"defending player\"")
    assert (rule.source.line_start, rule.source.line_end) == (3958, 3960)


def test_2011_customer_service_is_part_of_credits():
    _, _, by_id = _one(CR_2011)
    credits = by_id["cr/credits"]
    assert "Customer Service Information" in credits.text
    assert credits.source.line_end == 5647


# -- cr_profile -----------------------------------------------------------------------------------------
def test_profile_without_effective_sentence(tmp_path):
    path = tmp_path / "rules.txt"
    path.write_text("Magic: The Gathering Comprehensive Rules\r\n\r\nIntroduction\r\n", encoding="utf-8")
    with pytest.raises(ParseError) as err:
        cr_profile(path)
    assert str(err.value) == (f"{path}:1: expected the sentence 'These rules are effective as of <Month D, YYYY>.', "
                              "found 'Magic: The Gathering Comprehensive Rules'")


@pytest.mark.parametrize("date", ["February 30, 2026", "August 0, 2026", "Smarch 7, 2026", "August 7, 0000"])
def test_profile_with_a_date_that_does_not_exist(tmp_path, date):
    # "February 30, 2026" was published as effective "2026-02-30"; a month no calendar has was reported as
    # the sentence missing, found the title at line 1.
    path = tmp_path / "rules.txt"
    path.write_text(f"Magic: The Gathering Comprehensive Rules\r\n\r\nThese rules are effective as of {date}.\r\n",
                    encoding="utf-8")
    with pytest.raises(ParseError) as err:
        cr_profile(path)
    assert str(err.value) == (f"{path}:3: expected a date that exists in 'These rules are effective as of "
                              f"<Month D, YYYY>.', found 'These rules are effective as of {date}.'")


def test_profile_of_a_file_that_is_not_text(tmp_path):
    # 0x81 is undefined in Windows-1252, the fallback for what is not UTF-8.
    path = tmp_path / "rules.txt"
    path.write_bytes(
        b"Magic: The Gathering Comprehensive Rules\r\n\r\nThese rules are effective as of May 1, 2020.\r\n\x81\r\n"
    )
    with pytest.raises(ParseError) as err:
        cr_profile(path)
    assert str(err.value) == (f"{path}:4: expected text in UTF-8, UTF-16 with a byte-order mark, or Windows-1252, "
                              "found 'byte 0x81 at offset 90'")


# -- fixtures -----------------------------------------------------------------------------------------
SMALL = textwrap.dedent("""\
    Magic: The Gathering Comprehensive Rules

    These rules are effective as of May 1, 2020.

    Introduction

    This document is a test.

    Contents

    1. Game Concepts
    100. General

    Glossary

    Credits

    1. Game Concepts

    100. General

    100.1. These rules apply.

    100.1a A sub-rule.
    Example: An example.

    100.2. Keyword
    {stray}
    Glossary

    Active Player
    The player whose turn it is.

    Active-Player
    Another term with the same slug.

    Credits

    Design: Someone
    """)


def _small(tmp_path, text):
    path = tmp_path / "rules.txt"
    path.write_text(text, encoding="utf-8")
    profile = cr_profile(path)
    return parse(profile.read_text(), profile)


def test_small_document(tmp_path):
    result = _small(tmp_path, SMALL.format(stray=""))
    assert result.problems == []
    assert result.report.unaccounted == []
    assert [(r.id, r.kind, r.parent, r.title, r.text, r.examples) for r in result.records] == [
        (
            "cr/introduction",
            "note",
            None,
            "Introduction",
            "These rules are effective as of May 1, 2020.\nThis document is a test.",
            (),
        ),
        ("cr/1", "chapter", None, "Game Concepts", "", ()),
        ("cr/100", "rule", "cr/1", "General", "", ()),
        ("cr/100.1", "rule", "cr/100", None, "These rules apply.", ()),
        ("cr/100.1a", "rule", "cr/100.1", None, "A sub-rule.", ("Example: An example.",)),
        ("cr/100.2", "rule", "cr/100", "Keyword", "", ()),
        ("cr/glossary/active-player", "glossary", None, "Active Player", "The player whose turn it is.", ()),
        ("cr/glossary/active-player-2", "glossary", None, "Active-Player", "Another term with the same slug.", ()),
        ("cr/credits", "note", None, "Credits", "Design: Someone", ()),
    ]
    assert result.records[4].source.line_start == 24 and result.records[4].source.line_end == 25
    assert result.report.dropped["table of contents"] == 5


def test_small_document_with_crlf_and_bom(tmp_path):
    path = tmp_path / "rules.txt"
    path.write_bytes(b"\xef\xbb\xbf" + SMALL.format(stray="").replace("\n", "\r\n").encode("utf-8"))
    profile = cr_profile(path)
    result = parse(profile.read_text(), profile)
    assert result.problems == [] and result.report.unaccounted == []
    assert {r.id: r.source.line_start for r in result.records}["cr/100.1a"] == 24


def test_stray_line_in_rules_is_a_problem(tmp_path):
    result = _small(tmp_path, SMALL.format(stray="Something else"))
    assert [str(p) for p in result.problems] == [
        "rules.txt:28: expected a chapter, section or rule number, an example or an indented paragraph, "
        "found 'Something else'"
    ]
    assert result.report.unaccounted == [(28, "Something else")]


def test_subrule_without_its_rule_is_kept_and_reported(tmp_path):
    # The official slip of 2021-09-24 (724.3a-c printed without 724.3).
    result = _small(tmp_path, SMALL.format(stray="100.3b An orphan."))
    assert result.problems == [] and result.report.unaccounted == []
    orphan = next(r for r in result.records if r.number == "100.3b")
    assert (orphan.id, orphan.parent, orphan.text) == ("cr/100.3b", "cr/100", "An orphan.")
    assert result.report.slips == [(28, "100.3b An orphan.", "100.3b printed without 100.3; kept under 100")]


def test_duplicate_rule_is_kept_and_reported(tmp_path):
    # The official slip of 2024-09-17 ("702.175. Offspring", then "702.175. Impending").
    result = _small(tmp_path, SMALL.format(stray="100.1. Again.\n100.1a Its own sub-rule."))
    assert result.problems == [] and result.report.unaccounted == []
    again = {r.id: r for r in result.records}
    assert (again["cr/100.1-2"].number, again["cr/100.1-2"].text) == ("100.1", "Again.")
    assert again["cr/100.1a-2"].parent == "cr/100.1-2" and again["cr/100.1a"].parent == "cr/100.1"
    assert [s[2] for s in result.report.slips] == [
        "the number 100.1 used twice (first at line 22); kept as cr/100.1-2",
        "the number 100.1a used twice (first at line 24); kept as cr/100.1a-2",
    ]


def test_two_spaces_after_a_number_are_reported(tmp_path):
    # The official slip of 2022 ("201.3.  Some cards ...").
    result = _small(tmp_path, SMALL.format(stray="100.3.  Two spaces."))
    assert result.problems == [] and {r.number: r.text for r in result.records}["100.3"] == "Two spaces."
    assert result.report.slips == [(28, "100.3.  Two spaces.", "2 spaces after the number 100.3")]


def test_stray_letter_is_reported_not_a_rule(tmp_path):
    # The official slip of 2021-11-15 (a line holding only "f").
    result = _small(tmp_path, SMALL.format(stray="f"))
    assert result.problems == [] and result.report.unaccounted == []
    assert result.report.dropped["stray line"] == 1
    assert result.report.slips == [(28, "f", "a stray line between rules; not part of any rule")]


def test_example_label_printed_twice(tmp_path):
    # The official slip of 2015-01-23 line 3699.
    result = _small(tmp_path, SMALL.format(stray="Example:Example: Twice."))
    assert result.problems == []
    assert {r.number: r.examples for r in result.records}["100.2"] == ("Example:Example: Twice.",)
    assert [s[2] for s in result.report.slips] == ["the label 'Example:' printed twice; the example is kept as printed"]


def test_glossary_term_without_definition_is_a_problem(tmp_path):
    text = SMALL.format(stray="").replace("Active Player\nThe player whose turn it is.\n", "Lonely Term\n")
    result = _small(tmp_path, text)
    assert [str(p) for p in result.problems] == [
        "rules.txt:31: expected a definition below the glossary term, found 'Lonely Term'"
    ]


def test_missing_contents_is_a_problem(tmp_path):
    result = _small(tmp_path, SMALL.format(stray="").replace("Contents\n", "Index\n"))
    assert [str(p) for p in result.problems] == [
        "rules.txt:1: expected the 'Contents' heading, found 'Magic: The Gathering Comprehensive Rules'"
    ]
    assert result.records == []


# -- detect -------------------------------------------------------------------------------------------
def test_detect_fixtures():
    assert detect(SMALL)
    assert detect("\ufeffMagic: The Gathering Comprehensive Rules\r\n")
    assert detect("_Magic: The Gathering_ Comprehensive Rules\n")
    assert not detect("Magic: The Gathering Comprehensive Rules Changes\n")
    assert not detect("")


@needs_shared
@pytest.mark.parametrize("name", sorted(FILES))
def test_detect_published(name):
    assert detect((SHARED / name).read_bytes().decode("utf-8-sig"))
    assert detect((SHARED / name).read_bytes().decode("utf-8"))  # with its BOM


@pytest.mark.parametrize("name", ["treachery.txt", "uncommander.txt", "futuresight.txt"])
def test_detect_rejects_the_corpus(name):
    assert not detect((ROOT / "corpus" / name).read_text(encoding="utf-8"))


# -- end to end -----------------------------------------------------------------------------------------
@needs_shared
def test_kb_build_with_cr(cr_build):
    _, done = cr_build  # the session's `kb build --cr` (tests/conftest.py)
    assert "MagicCompRules_20260807.txt: 9397 lines read" in done.stdout + done.stderr
    assert "0 unaccounted" in done.stdout


# -- how a failed file is reported -------------------------------------------------------------------
def _truncated(tmp_path):
    """SMALL cut in the middle of its rules (a download that stopped): no Glossary, no Credits."""
    path = tmp_path / "rules.txt"
    text = SMALL.format(stray="")
    path.write_text(text[: text.index("100.1a A sub-rule.")], encoding="utf-8")
    return path


def test_a_truncated_file_fails_with_its_problem_not_every_line(tmp_path):
    # Every line of a file whose structure failed was listed as unaccounted after its one real problem:
    # 983 lines for the 2026 rules cut at 100 KB, 9,360 for a file without Credits.
    from ingest.build import build_corpus
    from ingest.releases import load_release
    from tests.conftest import CORPUS

    path = _truncated(tmp_path)
    expected = [
        "rules.txt:23: expected the 'Glossary' heading after the rules, found 'the end of the file (line 23)'",
        "rules.txt:1: expected every line to be part of a record or named noise, "
        "found '22 unaccounted lines (lines 1 to 22)'",
    ]
    with pytest.raises(ParseError) as err:
        load_release(path)
    assert str(err.value).splitlines() == expected
    with pytest.raises(ParseError) as err:
        build_corpus(CORPUS, [cr_profile(path)])
    assert str(err.value).splitlines() == expected


def test_a_line_with_a_problem_is_not_listed_again_as_unaccounted(tmp_path):
    from ingest.releases import load_release

    path = tmp_path / "rules.txt"
    path.write_text(SMALL.format(stray="Something else"), encoding="utf-8")
    with pytest.raises(ParseError) as err:
        load_release(path)
    assert str(err.value).splitlines() == [
        "rules.txt:28: expected a chapter, section or rule number, an example or an indented paragraph, "
        "found 'Something else'"]


def test_unaccounted_lines_without_a_problem_are_listed_then_counted():
    from ingest.errors import LISTED_UNACCOUNTED, with_unaccounted

    lines = [(n, f"line {n}") for n in range(1, 26)]
    out = [str(p) for p in with_unaccounted("a.txt", [], lines)]
    assert len(out) == LISTED_UNACCOUNTED + 1
    assert out[0] == "a.txt:1: expected every line to be part of a record or named noise, found 'line 1'"
    assert out[-1] == ("a.txt:11: expected every line to be part of a record or named noise, "
                       "found '15 more unaccounted lines (lines 11 to 25)'")


def test_a_form_feed_is_a_page_break_and_lines_count_as_the_file_does(tmp_path):
    # A text export's page break: "\f" ended a line (str.splitlines), so every later line was numbered one more
    # than in the file. Read as part of its line, it is stripped as a page marker: "\f100.2. Keyword" is a rule,
    # not (beginning with white space) a paragraph of the rule above.
    plain = _small(tmp_path, SMALL.format(stray=""))
    text = SMALL.format(stray="").replace("100.1. These", "100.1. These\f")
    text = text.replace("100.2. Keyword", "\f100.2. Keyword")
    fed = _small(tmp_path, text)
    assert fed.problems == [] and fed.report.unaccounted == []
    assert [(r.id, r.text, r.source.line_start) for r in fed.records] == [
        (r.id, r.text, r.source.line_start) for r in plain.records]
    assert fed.report.page_markers == 2 and fed.report.read == plain.report.read


def test_a_line_separator_does_not_end_a_line(tmp_path):
    # U+2028 and U+2029 ended a line too: the lines below were numbered one more than the file's.
    text = SMALL.format(stray="").replace("This document is a test.", "This document\u2028is a test.")
    result = _small(tmp_path, text)
    assert result.problems == [] and result.report.unaccounted == []
    assert {r.id: r.source.line_start for r in result.records}["cr/100.1a"] == 24


def test_a_word_longer_than_any_text_holds_fails_at_its_line(tmp_path):
    # A 3 MB run of one letter (an indented line, so a rule's paragraph) held `kb build` for more than five
    # minutes in the index's stemmer (quadratic in a word's length); it now fails at once, at its line.
    from ingest.document import MAX_WORD

    with pytest.raises(ParseError) as err:
        _small(tmp_path, SMALL.format(stray="   " + "y" * 300_000))
    assert str(err.value) == (f"rules.txt:28: expected words of at most {MAX_WORD} characters, "
                              f"found 'a word of 300,000 characters, {'y' * 20}...'")
    ok = SMALL.format(stray="100.3. " + " ".join(["y" * MAX_WORD] * 50))  # a long line of the longest words allowed
    assert _small(tmp_path, ok).problems == []


def test_a_release_folder_entry_that_is_no_file_fails_not_skipped(tmp_path):
    # A symlink to a moved release, a symlink loop, a folder named like a release: skipped without a word,
    # the history built without that release.
    from ingest.releases import load_releases

    (tmp_path / "MagicCompRules_20200501.txt").write_text(SMALL.format(stray=""), encoding="utf-8")
    assert [r.effective for r in load_releases(tmp_path)] == ["2020-05-01"]
    (tmp_path / "MagicCompRules_20200601.txt").symlink_to(tmp_path / "moved" / "MagicCompRules_20200601.txt")
    (tmp_path / "old.txt").mkdir()
    with pytest.raises(ParseError) as err:
        load_releases(tmp_path)
    assert str(err.value).splitlines() == [
        f"{tmp_path}/MagicCompRules_20200601.txt:1: expected a readable document file, found 'no such file'",
        f"{tmp_path}/old.txt:1: expected a readable document file, found 'a folder'",
    ]


def test_kb_build_says_a_fallback_decoding_and_the_slips(tmp_path):
    # `kb build --cr` printed neither: a Mac Roman file read as Windows-1252 (every curly quote a wrong
    # letter) and a duplicated rule number built with "0 unaccounted" and nothing else said.
    from ingest.build import parse_profile
    from web.cli import _report_summary

    path = tmp_path / "rules.txt"
    path.write_bytes(SMALL.format(stray="100.1. Again, the player’s.").encode("mac_roman"))
    result = parse_profile(cr_profile(path))
    line = _report_summary(result.report.to_json())
    assert line == result.report.summary()
    assert line.endswith("; 1 slips of the publisher kept and reported; decoded as Windows-1252 (fallback); "
                         "0 unaccounted")


def test_a_file_holding_the_rules_twice_fails_where_the_second_copy_starts(tmp_path):
    # Two downloads in one file: the credits took in all of the second copy as their text, built without a word.
    from ingest.releases import load_release

    text = SMALL.format(stray="")
    path = tmp_path / "rules.txt"
    path.write_text(text + "\ufeff" + text, encoding="utf-8")
    with pytest.raises(ParseError) as err:
        load_release(path)
    n = text.count("\n")  # the second copy starts at line n + 1
    assert str(err.value).splitlines() == [
        f"rules.txt:{n + 1}: expected the end of the file after the credits, "
        "found 'Magic: The Gathering Comprehensive Rules'",
        f"rules.txt:{n + 2}: expected every line to be part of a record or named noise, "
        f"found '{n - 1} unaccounted lines (lines {n + 2} to {2 * n})'",
    ]


def test_a_history_folder_that_is_a_file_says_so(tmp_path):
    # `--cr-history MagicCompRules_20260807.txt` was told "no such folder" about a file that is there.
    from ingest.releases import load_releases

    path = tmp_path / "MagicCompRules_20200501.txt"
    path.write_text(SMALL.format(stray=""), encoding="utf-8")
    with pytest.raises(ParseError) as err:
        load_releases(path)
    assert str(err.value) == (f"{path}:1: expected a folder of official rules releases, "
                              "found 'a file (give its folder, or the file as --cr)'")


def test_rules_out_of_order_are_kept_and_reported(tmp_path):
    # 100.4 printed before 100.3 built without a word; no release of the 62 has one (their one repeat,
    # 702.175 in 2024-09-17, is the duplicate reported above), so this is the file's slip, or the file's damage.
    result = _small(tmp_path, SMALL.format(stray="100.4. Four.\n\n100.3. Three."))
    assert result.problems == [] and result.report.unaccounted == []
    assert [r.number for r in result.records if r.parent == "cr/100"] == ["100.1", "100.2", "100.4", "100.3"]
    assert result.report.slips == [(30, "100.3. Three.", "100.3 printed after 100.4; kept where printed")]
