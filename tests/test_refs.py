"""The reference grammar: every form people write for a rule, and what must not parse."""
from __future__ import annotations

import pytest

from kb.refs import find_refs, iso_days, neighbours, parse_ref, undated

SECTIONS = ("Token Cards", "Die Rolls and Coin Flips", "Object Characteristics", "Terminology")


def N(*numbers, official=False, prefer=None, doc=None, invalid=False):
    """The expected parse of a rule-number reference."""
    return {"numbers": numbers, "official": official, "prefer": prefer, "doc": doc, "invalid_letter": invalid}


def S(section, *item):
    return {"section": section, "item": item, "doc": "uncommander"}


def shape(query, expected):
    if query is None:
        return None
    return {key: getattr(query, key) for key in expected}


FORMS = [
    # plain numbers in every case and wrapping
    ("907.4b", N("907.4b")),
    ("907.4B", N("907.4b")),
    ("907.4b.", N("907.4b")),
    ("(907.4b)", N("907.4b")),
    ("907.4b,", N("907.4b")),
    ("[907.4b]", N("907.4b")),
    ('"907.4b"', N("907.4b")),
    ("  907.4b  ", N("907.4b")),
    ("907.4", N("907.4")),
    ("907.4.", N("907.4")),
    ("907", N("907")),
    ("702.187", N("702.187")),
    ("702.187c", N("702.187c")),
    ("100.1", N("100.1")),
    ("704.5j", N("704.5j")),
    # prefixes
    ("rule 907.4b", N("907.4b")),
    ("Rule 907.4b", N("907.4b")),
    ("rules 907.4b", N("907.4b")),
    ("rule907.4b", N("907.4b")),
    ("CR 907.4b", N("907.4b", prefer="cr")),
    ("CR907.4b", N("907.4b", prefer="cr")),
    ("cr 702.187c", N("702.187c", prefer="cr")),
    ("CR 702.187c", N("702.187c", prefer="cr")),
    ("r907.4b", N("907.4b")),
    ("R907.4b", N("907.4b")),
    ("comprehensive rules 100.1", N("100.1")),
    ("treachery 907.5a", N("907.5a", doc="treachery")),
    ("Treachery 907.5a", N("907.5a", doc="treachery")),
    ("treachery: 907.5a", N("907.5a", doc="treachery")),
    ("treachery rule 907.5a", N("907.5a", doc="treachery")),
    ("treachery/907.5a", N("907.5a", doc="treachery")),
    ("treachery/7", N("7", doc="treachery")),  # a chapter by its id, as /r/treachery/7 writes it
    ("cr/7", N("7", prefer="cr")),
    ("futuresight 502.68", N("502.68", doc="futuresight")),
    ("future sight 502.68a", N("502.68a", doc="futuresight")),
    ("official rule 708", N("708", official=True)),
    ("official rules 704.5j", N("704.5j", official=True)),
    ("rule 707.6 in the official CR", N("707.6", official=True)),
    ("111.2. in the official Comprehensive Rules", N("111.2", official=True)),
    ("702.139 in the official Comprehensive Rules", N("702.139", official=True)),
    # Treachery's own forms
    ("109.2tr", N("109.2tr")),
    ("116.2TR", N("116.2tr")),
    ("rule 109.2tr.", N("109.2tr")),
    ("702.TrUnv-1", N("702.trunv-1")),
    ("702.trunv-1", N("702.trunv-1")),
    ("rule 115", N("115")),
    ("314", N("314")),
    ("705bis", N("705bis")),
    # ranges and lists
    ("907.3a-c", N("907.3a", "907.3b", "907.3c")),
    ("907.3a–907.3c", N("907.3a", "907.3b", "907.3c")),
    ("907.3a - 907.3c", N("907.3a", "907.3b", "907.3c")),
    ("907.3a to c", N("907.3a", "907.3b", "907.3c")),
    ("907.11a, b", N("907.11a", "907.11b")),
    ("907.11a and b", N("907.11a", "907.11b")),
    ("rules 907.4a and 907.4b", N("907.4a", "907.4b")),
    ("rules 808-811", N("808", "809", "810", "811")),
    ("907.1-3", N("907.1", "907.2", "907.3")),
    ("704.5k-n", N("704.5k", "704.5m", "704.5n")),  # the range skips l
    ("704.5y-ab", N("704.5y", "704.5z", "704.5aa", "704.5ab")),  # after z come two letters
    ("603.7d–f", N("603.7d", "603.7e", "603.7f")),
    # two-letter sub-rules (official since 2025)
    ("704.5aa", N("704.5aa")),
    ("CR 704.5AA.", N("704.5aa", prefer="cr")),
    ("r704.5aa", N("704.5aa")),
    ("704.5z, aa", N("704.5z", "704.5aa")),
    # a one-letter prefix and a space, as chat bots take it
    ("r 907.4b", N("907.4b")),
    ("R 907.4b", N("907.4b")),
    # an abbreviating dot, and the section sign
    ("r. 510.1c", N("510.1c")),
    ("R.510.1c", N("510.1c")),
    ("CR. 510.1c", N("510.1c", prefer="cr")),
    ("§510.1c", N("510.1c")),
    ("§ 907.4b", N("907.4b")),
    # chapters, with a prefix
    ("rule 4", N("4")),
    ("CR 7", N("7", prefer="cr")),
    ("rules 9", N("9")),
    ("official rule 7", N("7", official=True)),
    # letters l and o do not exist, but parse so the answer can say so
    ("907.4l", N("907.4l", invalid=True)),
    ("907.4o", N("907.4o", invalid=True)),
    # UnCommander rules by section and letter
    ("Token Cards j", S("Token Cards", "j")),
    ("Token Cards (j)", S("Token Cards", "j")),
    ("token cards j)", S("Token Cards", "j")),
    ("token cards d) iii", S("Token Cards", "d", "iii")),
    ("Die Rolls and Coin Flips d iii", S("Die Rolls and Coin Flips", "d", "iii")),
    ("die rolls and coin flips", S("Die Rolls and Coin Flips")),
    ("Token Cards section", S("Token Cards")),
    ("uncommander token cards aa", S("Token Cards", "aa")),
    # what must not parse as a rule
    ("3.5 mana", None),
    ("12:30", None),
    ("2 words", None),
    ("$3.50", None),
    ("2.0.5", None),
    ("2018-05-08", None),
    ("1.5", None),
    ("20", None),
    ("2007", None),
    ("907.4bx", None),
    ("907.4.1", None),
    ("rule", None),
    ("", None),
    ("token", None),
    ("907.4b extra words", None),
    ("4", None),  # a chapter needs a prefix
    ("rule 45", None),
    ("r 4.5", None),
    ("907.4ax.1", None),
    ("http://example.com/907.4b", None),
    ("rules 100-999", None),  # a range nobody means
]


@pytest.mark.parametrize("text, expected", FORMS, ids=[f[0] or "<empty>" for f in FORMS])
def test_parse_ref(text, expected):
    query = parse_ref(text, sections=SECTIONS)
    assert shape(query, expected or {}) == expected


def test_table_is_large_enough():
    assert len(FORMS) >= 60


def test_bare_numbers_need_a_prefix_when_asked():
    assert parse_ref("907", bare_numbers=False) is None
    assert (q := parse_ref("rule 907", bare_numbers=False)) is not None and q.numbers == ("907",)
    assert (q := parse_ref("907.4", bare_numbers=False)) is not None and q.numbers == ("907.4",)


@pytest.mark.parametrize("text, numbers", [
    # a whole query with spaces where the dot or the letter joins the number, as typed on a phone
    ("907 8a", ("907.8a",)), ("907. 8a", ("907.8a",)), ("702.187 f", ("702.187f",)),
    ("rule 907.5 c", ("907.5c",)), ("CR 613 4 c", ("613.4c",)), ("(907 4b)", ("907.4b",)),
    ("116.2 tr", ("116.2tr",)), ("801 802a", ("801.802a",)), ("tr 702.187d", ("702.187d",)),
    # a hyphen for the dot, the letter in brackets, "section" as a prefix
    ("903-10a", ("903.10a",)), ("907.5(c)", ("907.5c",)), ("702.187 (f)", ("702.187f",)), ("section 801", ("801",)),
    ("808-811", ("808", "809", "810", "811")),  # still a range of sections
    # a record's id as links write it, a section sign after the prefix
    ("cr/613.4b", ("613.4b",)), ("treachery/907.4b", ("907.4b",)), ("CR §613.4b", ("613.4b",)),
    # a comma for the dot, O for zero, "sec."
    ("702,19b", ("702.19b",)), ("cr 702,187b", ("702.187b",)), ("7O4.5a", ("704.5a",)), ("sec. 903.4", ("903.4",)),
    ("808, 809", ("808", "809")),  # with its space, a list
])
def test_a_whole_reference_may_be_spaced(text, numbers):
    query = parse_ref(text)
    assert query is not None and query.numbers == numbers


@pytest.mark.parametrize("text", ["702.19 trample", "702.187 of", "907 8a trample", "a 200 card deck", "12 30",
                                  "and/or 100", "cr/glossary", "801 802", "100 101", "702.19 at", "702.19 an"])
def test_spaced_numbers_stop_at_words(text):
    assert parse_ref(text) is None


def test_section_is_a_prefix_in_running_text_too():
    found = find_refs('See section 8, "Multiplayer Rules."')
    assert [(r.text, r.query.numbers) for r in found] == [("section 8", ("8",))]


@pytest.mark.parametrize("text, expected", [
    # a record's id as the site's links write it, and the section sign after "CR", in running text too
    ("see cr/613.4b.", [("cr/613.4b", ("613.4b",), "cr", None)]),
    ("see treachery/907.4b", [("treachery/907.4b", ("907.4b",), None, "treachery")]),
    ("CR§613.4b, CR §613.4b, CR. § 613.4b", [("CR§613.4b", ("613.4b",), "cr", None),
                                            ("CR §613.4b", ("613.4b",), "cr", None),
                                            ("CR. § 613.4b", ("613.4b",), "cr", None)]),
    ("§613.4b and rules §613.4b", [("§613.4b", ("613.4b",), None, None), ("rules §613.4b", ("613.4b",), None, None)]),
    # but not the end of a path or an address
    ("https://example.com/cr/613.4b x.org/cr/613.4b /cr/613.4b", []),
])
def test_ids_and_section_signs_in_running_text(text, expected):
    assert [(r.text, r.query.numbers, r.query.prefer, r.query.doc) for r in find_refs(text)] == expected


@pytest.mark.parametrize("text, expected", [
    # a document name after the number names its document, as before it ("treachery 702.187c")
    ("702.187c treachery", [("702.187c treachery", ("702.187c",), "treachery", "702.187c")]),
    ("see 702.187c (Treachery).", [("702.187c (Treachery)", ("702.187c",), "treachery", "702.187c")]),
    ("rule 502.4 future sight", [("rule 502.4 future sight", ("502.4",), "futuresight", "rule 502.4")]),
    ("907.3a-c tr", [("907.3a-c tr", ("907.3a", "907.3b", "907.3c"), "treachery", "907.3a-c")]),
    # not a prefix's document, a name beginning the next reference, another line, a word, nor a suffix written apart
    ("CR 702.187c treachery", [("CR 702.187c", ("702.187c",), None, None)]),
    ("907.4a treachery 907.4b",
     [("907.4a", ("907.4a",), None, None), ("treachery 907.4b", ("907.4b",), "treachery", None)]),
    ("702.187c\ntreachery", [("702.187c", ("702.187c",), None, None)]),
    ("702.187c tricks", [("702.187c", ("702.187c",), None, None)]),
    ("702.187c (treachery rules)", [("702.187c", ("702.187c",), None, None)]),
    ("116.2 tr", [("116.2", ("116.2",), None, None)]),
])
def test_a_document_name_after_the_number(text, expected):
    found = [(r.text, r.query.numbers, r.query.doc, r.bare and r.bare.text) for r in find_refs(text)]
    assert found == expected


@pytest.mark.parametrize("text, numbers, doc", [
    ("702.187c treachery", ("702.187c",), "treachery"), ("(702.187c (Treachery))", ("702.187c",), "treachery"),
    ("907.4a, 907.4b treachery", ("907.4a", "907.4b"), "treachery"), ("502.4 fs", ("502.4",), "futuresight"),
    ("116.2 tr", ("116.2tr",), None), ("702.187c", ("702.187c",), None),
])
def test_a_whole_query_names_its_document_after_the_number(text, numbers, doc):
    query = parse_ref(text)
    assert query is not None and (query.numbers, query.doc) == (numbers, doc)


def test_spaced_numbers_are_for_whole_queries_only():
    assert find_refs("we played 907 8a") == []
    assert [r.query.numbers for r in find_refs("see 702.187 f then")] == [("702.187",)]  # the letter stays a word


# Some of UnCommander's section titles, as its parser reads them.
MORE_SECTIONS = SECTIONS + ("UnCommander Golden Rules", "Noninteger Values and Amounts",
                            "Combine and Combined Permanents", "Merge, Mutate and Combined Permanents",
                            "Meld and Combined Permanents", "Predefined Tokens or Token Cards",
                            "Objects in Multiple Zones")


@pytest.mark.parametrize("text, section, item", [
    ("golden rules a", "UnCommander Golden Rules", ("a",)),
    ("uncommander golden rule a", "UnCommander Golden Rules", ("a",)),
    ("noninteger values rule j uncommander", "Noninteger Values and Amounts", ("j",)),
    ("die roll c ii", "Die Rolls and Coin Flips", ("c", "ii")),
    ("token card j", "Token Cards", ("j",)),
])
def test_an_uncommander_rule_by_the_first_words_of_its_section(text, section, item):
    query = parse_ref(text, sections=MORE_SECTIONS)
    assert query is not None and (query.section, query.item, query.doc) == (section, item, "uncommander")


@pytest.mark.parametrize("text", ["object c", "meld b", "what is a token card a", "golden rule",
                                  "combined permanents b", "die roll d20", "die roll d6"])
def test_words_that_begin_no_single_section_are_no_reference(text):
    assert parse_ref(text, sections=MORE_SECTIONS) is None


def test_section_forms_need_the_section_list():
    assert parse_ref("Token Cards j") is None


def spans(text, sections=()):
    return [(r.text, r.query.numbers, r.query.official) for r in find_refs(text, sections)]


@pytest.mark.parametrize("text, expected", [
    ("See rule 907.4b.", [("rule 907.4b", ("907.4b",), False)]),
    ("See rules 372.5", [("rules 372.5", ("372.5",), False)]),
    ("an additional ability word: undercover. See rule\n702.187f.", [("rule\n702.187f", ("702.187f",), False)]),
    # each member of a list of full numbers is its own link, where it is written
    ('See rule 808, "Team vs. Team Variant," rule 809', [("rule 808", ("808",), False), ("rule 809", ("809",), False)]),
    ("rules 808, 809 and 810", [("rules 808", ("808",), False), ("809", ("809",), False), ("810", ("810",), False)]),
    ("see 111.2. in the official Comprehensive Rules for",
     [("111.2. in the official Comprehensive Rules", ("111.2",), True)]),
    ("as official rule 708 says", [("official rule 708", ("708",), True)]),
    ("(see 704.5j)", [("704.5j", ("704.5j",), False)]),
    ("rules 907.11a, b.", [("rules 907.11a, b", ("907.11a", "907.11b"), False)]),
    # a lone letter followed by a word is an article, not a list member
    ("702.187c, a player may", [("702.187c", ("702.187c",), False)]),
    ("then 704.5p, for example.)", [("704.5p", ("704.5p",), False)]),
    # nor the first letter of an abbreviation ("i.e.", "e.g.", "C.R.") or of a reference's prefix
    ("See 704.5f, i.e. zero toughness.", [("704.5f", ("704.5f",), False)]),
    ("See 702.2c, e.g. deathtouch.", [("702.2c", ("702.2c",), False)]),
    ("the CR's 704.5j, C.R. 116.2", [("704.5j", ("704.5j",), False), ("116.2", ("116.2",), False)]),
    ("r702.19b, R. 702.19b", [("r702.19b", ("702.19b",), False), ("R. 702.19b", ("702.19b",), False)]),
    ("702.19b, c. Also", [("702.19b, c", ("702.19b", "702.19c"), False)]),
    # "f" of "for" is no list member
    ("907.4b and 702.TrUnv-1", [("907.4b", ("907.4b",), False), ("702.TrUnv-1", ("702.trunv-1",), False)]),
    ("See 719. in the official Comprehensive Rules for",
     [("719. in the official Comprehensive Rules", ("719",), True)]),
    # a bare section joined to the section its sentence cited is one too, as that one is (official, its document)
    ("See 719. in the official Comprehensive Rules for rules on restarting the game, and 720. for subgames.",
     [("719. in the official Comprehensive Rules", ("719",), True), ("720.", ("720",), True)]),
    ("Renamed rule 115 into 116, and rule 314 into 372.",
     [("rule 115", ("115",), False), ("116", ("116",), False), ("rule 314", ("314",), False),
      ("372", ("372",), False)]),
    # ... in that sentence only, and only after a section ("rule 704.5a" cites no section)
    ("See 719. in the official Comprehensive Rules. And 720 more.",
     [("719. in the official Comprehensive Rules", ("719",), True)]),
    ("See rule 704.5a, which says 3 players or 100 more.", [("rule 704.5a", ("704.5a",), False)]),
    ("Rule 103 says x.\nAnd 100 cards.", [("Rule 103", ("103",), False)]),
    # the title the official rules quote after a section makes it a citation
    ("See 718, “Prototype Cards.”", [("718", ("718",), False)]),
    ('See rules 701.42, “Meld,” and 730, "Merging with Permanents."',
     [("rules 701.42", ("701.42",), False), ("730", ("730",), False)]),
    ("We had 100, “so many” cards.", []),
    # quantities, prices, dates, versions and times are not references
    ("It costs 3.5 mana at 12:30 with 100 life, $3.50, version 2.0.5 on 2018-05-08.", []),
    ("Your life total becomes 907 or 20.", []),
    # prices in other currencies, quantities with units and e-mail addresses neither
    ("€100.1, £702.19, 100.1€, 702.19 USD, 702.19 tix, 613.1 MB, 100.1 degrees, 500.1 points", []),
    ("write to 613.1@example.org or 702.19b@home", []),
    # but a prefix says it is a rule, and a list letter may end a sentence before the next number
    ("CR 608.2b points out that", [("CR 608.2b", ("608.2b",), False)]),
    ("702.19b, c, and d", [("702.19b, c, and d", ("702.19b", "702.19c", "702.19d"), False)]),  # lost d
    ("100.1$ or 100.1 CHF", []),
    ("See 704.5a, b. 704.5c covers", [("704.5a, b", ("704.5a", "704.5b"), False), ("704.5c", ("704.5c",), False)]),
    # a number in _italics_ or __bold__ is one
    ("see _704.5f_ and __704.5j__", [("704.5f", ("704.5f",), False), ("704.5j", ("704.5j",), False)]),
])
def test_find_refs_in_running_text(text, expected):
    assert spans(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("See rules 603.7d–f.", [("rules 603.7d–f", ("603.7d", "603.7e", "603.7f"), False)]),
    ("as 704.5aa says", [("704.5aa", ("704.5aa",), False)]),
    ("ask r 907.4b now", [("r 907.4b", ("907.4b",), False)]),
    ("chapter rule 4 and CR 7.", [("rule 4", ("4",), False), ("CR 7", ("7",), False)]),
    ("at rule 4:30", []),
])
def test_find_refs_new_forms(text, expected):
    assert spans(text) == expected


@pytest.mark.parametrize("text, cited, date", [
    ("(716.2@2016-07-22)", "716.2@2016-07-22", "2016-07-22"),  # the bracket is the text's own
    ("702.19c@2025-02-07) ok", "702.19c@2025-02-07", "2025-02-07"),
    ("see CR 702.19c (2025-02-07) ok", "CR 702.19c (2025-02-07)", "2025-02-07"),  # the date's own brackets
    ("CR 702.19c (2025-02-07", "CR 702.19c (2025-02-07", "2025-02-07"),
])
def test_a_dated_reference_takes_only_its_own_brackets(text, cited, date):
    [found] = find_refs(text)
    assert (found.text, found.query.date) == (cited, date)


@pytest.mark.parametrize("text, expected", [
    # a percent or degree sign makes a number a quantity, as a unit or a currency does ...
    ("305.2%, 305.2 %, 103.5 °F, 702.19b°", []),
    # ... unless a prefix makes a dotted number the rule, as it does before "$" or "points"
    ("CR 100.1%", [("CR 100.1", ("100.1",), False)]), ("rule 702.19b °", [("rule 702.19b", ("702.19b",), False)]),
    ("treachery 907.4b%", [("treachery 907.4b", ("907.4b",), False)]), ("CR 100.1$", [("CR 100.1", ("100.1",), False)]),
    # a prefixed section or chapter with the sign stays a quantity: "the rules 100%" is English
    ("I follow the rules 100%, rule 4% of the time, CR 7°", []),
])
def test_percent_and_degree_signs(text, expected):
    assert spans(text) == expected


def test_find_refs_loose_sections_for_chat():
    assert spans("see Token Cards j please", SECTIONS) == []
    found = [(r.text, r.query.item) for r in find_refs("see Token Cards j please", SECTIONS, loose_sections=True)]
    assert found == [("Token Cards j", ("j",))]
    text = "Die Rolls and Coin Flips d iii, then"
    found = [(r.text, r.query.item) for r in find_refs(text, SECTIONS, loose_sections=True)]
    assert found == [("Die Rolls and Coin Flips d iii", ("d", "iii"))]
    # "a" and "i" read as words unless they end the clause
    assert find_refs("Token Cards a player owns", SECTIONS, loose_sections=True) == []
    assert [r.query.item for r in find_refs("see Token Cards a.", SECTIONS, loose_sections=True)] == [("a",)]


def test_doc_names_come_from_the_profiles():
    from kb.refs import DOC_NAMES

    assert DOC_NAMES == {"futuresight": "futuresight", "future sight": "futuresight", "fut": "futuresight",
                         "fs": "futuresight", "treachery": "treachery", "tr": "treachery", "uncommander": "uncommander"}
    query = parse_ref("mydoc 101.1", doc_names={"mydoc": "mine"})
    assert query is not None and query.doc == "mine"
    assert parse_ref("treachery 101.1", doc_names={"mydoc": "mine"}) is None


@pytest.mark.parametrize("start, end, expected", [
    ("907.3a", "c", ["907.3a", "907.3b", "907.3c"]),  # to a letter
    ("704.5k", "n", ["704.5k", "704.5m", "704.5n"]),  # skipping l
    ("704.5z", "ab", ["704.5z", "704.5aa", "704.5ab"]),  # into two letters
    ("907.3c", "a", None),  # backwards
    ("109.2tr", "u", None),  # "tr" is a suffix, not a letter
    ("907.3", "c", None),  # no letter to start from
    ("907.1", "3", ["907.1", "907.2", "907.3"]),  # to a rule
    ("808", "811", ["808", "809", "810", "811"]),  # sections
    ("808", "81", None),
    ("907.3a", "3", None),
    ("100", "999", None),  # longer than anyone means
    ("907.3a", "907.3c", ["907.3a", "907.3b", "907.3c"]),  # full numbers
    ("907.1", "907.3", ["907.1", "907.2", "907.3"]),
    ("907.1", "908.3", None),  # across sections
    ("907.1a", "907.2c", None),  # letters of different rules
    ("907.1", "907.2c", None),
    ("808", "808.1", None),
    ("x", "c", None),
])
def test_expand(start, end, expected):
    from kb.refs import _expand

    assert _expand(start, end) == expected


def test_find_refs_offsets_point_at_the_text():
    text = "Blah. See rule 907.4b and 702.187c."
    for r in find_refs(text):
        assert text[r.start:r.end] == r.text


def test_find_refs_sections_need_a_bracketed_letter():
    assert spans("see the Token Cards (j) rule", SECTIONS) == [("Token Cards (j)", (), False)]
    assert spans("Token Cards are tokens", SECTIONS) == []


@pytest.mark.parametrize("number, expected", [
    ("907.4l", ["907.4k", "907.4m"]),
    ("907.4o", ["907.4n", "907.4p"]),
    ("907.4a", ["907.4b"]),
    ("704.5z", ["704.5y", "704.5aa"]),
    ("704.5aa", ["704.5z", "704.5ab"]),
    ("907.4", []),
])
def test_neighbours_skip_l_and_o(number, expected):
    assert neighbours(number) == expected


@pytest.mark.parametrize("typed, plain, day", [
    ("716.2 as of July 2016", "716.2", "2016-07-31"),  # a month alone is its last day, as a year is
    ("702.19b on 25 January 2019", "702.19b", "2019-01-25"),
    ("CR 702.19b (Jan 2019)", "CR 702.19b", "2019-01-31"),
    ("702.19b January 25th, 2019", "702.19b", "2019-01-25"),
    ("702.19b (Sept. 2020)", "702.19b", "2020-09-30"),
    ("716.2 in July 2016", "716.2", "2016-07-31"),
    ("702.19b 31 February 2019", "702.19b", "2019-02-31"),  # kept as written: said to be no day (kb.history)
])
def test_a_day_written_with_its_month_is_a_day(typed, plain, day):
    # these searched the words: "702.19b on 25 January 2019" led with 713.2b
    query = parse_ref(typed)
    assert query is not None and (query.numbers, query.date) == ((plain.split()[-1],), day)
    assert undated(typed) == plain


def test_a_month_word_without_a_number_is_no_date():
    assert iso_days("may I respond in March 2019") == "may I respond in 2019-03-31"  # only a reference reads it
    assert parse_ref("may 2019") is None and iso_days("702.19b may") == "702.19b may"


def test_rule_numbers_sort_as_the_documents_print_them():
    """One sort key for rule numbers (search's autocomplete, not-found pages' nearest rules, Discord's neighbours):
    Discord's own copy and the not-found page compared letters as text, so 704.5aa came right after 704.5a."""
    from kb.refs import number_order

    printed = ["702", "702.1", "702.1a", "702.2", "702.10", "702.19b", "704.5", "704.5a", "704.5b", "704.5z",
               "704.5aa", "704.5ab", "704.5ba", "705"]
    assert sorted(reversed(printed), key=number_order) == printed


def test_a_year_first_day_with_slashes_is_a_day_and_a_day_first_one_is_left_as_written():
    from kb.refs import iso_days

    assert iso_days("702.19b as of 2019/01/25") == "702.19b as of 2019-01-25"
    assert iso_days("702.19b as of 25/01/2019") == "702.19b as of 25/01/2019"  # day or month first: ambiguous


@pytest.mark.parametrize(("typed", "day"), [
    ("702.19b@2019", "2019-12-31"), ("702.19b as of 2019", "2019-12-31"), ("CR 702.19b (2019)", "2019-12-31"),
    ("CR 702.19b (as of 2019)", "2019-12-31"), ("613.1a-g@2020", "2020-12-31"),
    ("702.19b as of 2019/01/25", "2019-01-25"),  # a whole day is read as one, not as a year and the rest
    ("702.19b in 2019", "2019-12-31"), ("702.19b (Jan 2019)", "2019-01-31"),  # as running text has them (linkify)
])
def test_a_year_alone_where_a_date_goes_is_its_last_day(typed, day):
    """A short link, /api/resolve and Discord's /rule read "702.19b@2019" as no reference at all, while the search
    box read it as the rule as it stood at the end of 2019: the year is its last day wherever a date is read."""
    query = parse_ref(typed, bare_numbers=True)
    assert query is not None and query.date == day


@pytest.mark.parametrize("typed", ["702.19b 2019", "see 702.19b (2019 edition)", "702.19b@20190"])
def test_a_year_that_is_not_where_a_date_goes_is_no_date(typed):
    query = parse_ref(typed, bare_numbers=True)
    assert query is None or query.date is None


def _seeded_texts(atoms, n, seed):
    import random

    rng = random.Random(seed)
    return ["".join(rng.choice(atoms) for _ in range(rng.randrange(0, 9))) for _ in range(n)]


def test_the_wrappers_stripped_without_the_pattern_are_the_patterns_body():
    # parse_ref takes ASCII text's body by two strips instead of _WRAPPERS (a lazy group tried at every character)
    from kb.refs import _ASCII_CLOSING, _ASCII_OPENING, _WRAPPERS

    atoms = [" ", "\t", "\n", "\x0b", "\x0c", "\r", "\x1c", "\x1f", "(", "[", "{", '"', "'", ")", "]", "}", ".", ",",
             ";", ":", "!", "?", "a", "702.19b", "token cards j", "-", "_"]
    texts = [t for t in _seeded_texts(atoms, 50_000, 1) if t.isascii()] + [f for f, _ in FORMS]
    for text in texts:
        wrapped = _WRAPPERS.match(text)
        assert wrapped is not None  # every part of the pattern may be empty
        assert text.lstrip(_ASCII_OPENING).rstrip(_ASCII_CLOSING) == wrapped.group("body"), repr(text)
    assert parse_ref("(907.4b).") is not None and parse_ref(" ([702.19b]) ") is not None


def test_a_section_letter_at_the_end_is_found_from_the_last_three_words_as_from_every_character():
    # _ends_in_item tries _ENDS_IN_ITEM from the text's last three whitespace-separated words (with the character
    # before them for its look-behind); the pattern alone was tried at every character
    from kb.refs import _ENDS_IN_ITEM, _ends_in_item

    atoms = ["a", "b", "ab", "i", "iv", "x", "viii", "(", ")", " ", "  ", "\t", "\n", "\u00a0", "\u2003", "'", "’",
             "uncommander", "UNCOMMANDER", "word", "Token", "Cards", "-", ".", "1", "K", "\u212a", "\u017f", "_"]
    texts = _seeded_texts(atoms, 100_000, 2) + [f for f, _ in FORMS] + ["what happens when a player has ten poison"]
    found = [_ends_in_item(t) for t in texts]
    assert found == [_ENDS_IN_ITEM.search(t) is not None for t in texts]
    assert 0.05 < sum(found) / len(found) < 0.5  # both answers are well represented
