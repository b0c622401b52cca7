"""The reference grammar: everything people write for a rule, parsed one way.

Used by search (is the query a reference?), the resolve API, short links,
linkify and ingest's cross-reference pass. It knows the *shape* of a
reference, not which records exist (that is kb.resolve):

- rule numbers in any case, with or without a trailing dot or wrapping
  brackets: ``907.4b``, ``907.4B.``, ``(907.4b)``;
- prefixes: ``rule``/``rules``, ``CR``/``CR907.4b``/``CR. 907.4b``, ``r907.4b``/``r. 907.4b``, ``§ 907.4b``,
  ``CR §613.4b``/``CR§613.4b``, a record's id as links write it (``cr/613.4b``, ``treachery/907.4b``), a
  document name (``treachery 907.5a``, or after the number: ``907.5a treachery``, ``907.5a (Treachery)``),
  ``official rule 708``;
- suffixes that make a citation official: ``707.6 in the official CR``;
- Treachery's own forms: ``109.2tr``, ``702.TrUnv-1`` (renamed), ``705bis``;
- ranges and lists: ``907.3a-c``, ``907.3a–907.3c``, ``907.11a, b``;
- two-letter sub-rules after ``z`` (``704.5aa``, official since 2025);
- chapters, with a prefix: ``rule 4``, ``CR 7``; ``r 907.4b`` as chat bots take it;
- UnCommander rules by section and letter: ``Token Cards j``,
  ``Token Cards (j)``, ``token cards d) iii``;
- a whole query (a search box, a short link) typed loosely: spaces for the
  dot or before the letter (``907 8a``, ``702.187 f``), a hyphen for the dot
  (``903-10a``), the letter in brackets (``907.5(c)``), ``section 801``, ``sec. 903.4``,
  a comma for the dot (``702,19b``), O for zero (``7O4.5a``), ``tr 702.187d``
  (a profile's ``names``), and an UnCommander rule by the first words of its
  section (``golden rules a``; ``loose``: a reference only if that rule exists).

Sub-rule letters skip ``l`` and ``o``; a number using one parses (so the
answer can say it does not exist) with ``invalid_letter`` set.
Document names come from the profiles (each profile's ``slug``, ``title``
and ``names``): callers pass them as ``doc_names``; ``DOC_NAMES`` holds the
bundled corpus's, read from its profiles.
Things that must not parse: ``3.5 mana``, ``12:30``, ``2 words``, ``$3.50``.
"""
from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, replace
from datetime import date
from functools import lru_cache
from itertools import pairwise
from collections.abc import Mapping

from kb.docnames import bundled_doc_names

__all__ = ["RefQuery", "RefMatch", "parse_ref", "find_refs", "undated", "iso_days", "yearless_day", "neighbours",
           "descends", "DOC_NAMES", "SKIPPED_LETTERS", "LETTERS", "SEQUENCE"]

# Sub-rule letters never used, "due to potential confusion with the numbers 1 and 0".
SKIPPED_LETTERS = frozenset("lo")
LETTERS = [c for c in "abcdefghijklmnopqrstuvwxyz" if c not in SKIPPED_LETTERS]
# After z the official rules go on with two letters: 704.5z, 704.5aa, 704.5ab.
SEQUENCE = LETTERS + ["a" + c for c in LETTERS]

# What a reader may write before a number to name the document it is in (from the bundled profiles).
DOC_NAMES: dict[str, str] = bundled_doc_names()

# One rule number: a three-digit section, optionally a dotted rule, then a
# sub-rule letter (two after z), Treachery's "tr" suffix, or its old "TrUnv-1" numbering.
_NUMBER = r"""
    \d{3}
    (?:
        \.(?:TrUnv-1[a-z]?|\d{1,3}(?:tr|a[a-z]|[a-z])?)
      | bis
    )?
"""
# A chapter ("rule 4", "CR 7") is a reference only after a prefix.
_CHAPTER = r"(?P<chapter>\d)(?!\d|[.,:]\d)"
_OFFICIAL_PREFIX = r"(?P<official>official\s+(?:comprehensive\s+)?rules?|official\s+CR)\s*"
# (a record's id as the site's links write it is a prefix too: "cr/613.4b"; with a section sign: "CR §613.4b")
# ("rule #704.5j", "CR:702.19b" as chat writes them)
_PREFIX = (r"(?P<kw>comprehensive\s+rules?|rules?(?:\s*[§#])?|sections?(?=\s?\d)|sec\.?(?=\s?\d)"
           r"|CR\.?\s+(?:rules?(?:\s*§)?|r\.?(?=\s?\d))"  # "CR rule 907.4b", "CR r. 907.4b"
           r"|CR(?:\.?\s*§|\.|/|:(?=\s?\d))?"
           r"|r\.?(?=\s?\d)|§)\s*")


# What follows a quantity, never a rule: a currency, a unit ("702.19 tix", "613.1 MB", "100.1 degrees", "305.2%",
# "103.5 °F", "702.5 seconds", "103.4 lbs"). (unless a prefix says it is a rule: "CR 608.2b points out", "rule 704.5a
# points to 104.3b", "CR 100.1%")
_QUANTITY = re.compile(r"\s?[$€£¥₽₹₩₿%°]|\s?(?:usd|eur|gbp|chf|cad|aud|rub|tix|tickets?|euros?|dollars?|bucks|percent|"
                       r"degrees|points|pts|mb|kb|gb|tb|ms|km|kg|mph|kph|fps|cm|mm|ft|feet|inch(?:es)?|oz|lbs?|pounds?|"
                       r"grams?|kilos?|kilograms?|meters?|metres?|miles?|secs?|seconds?|mins?|minutes?|hrs?|hours?|"
                       r"days|weeks|months|years|gigs?)\b|@(?!\s*\d{4}-\d{2}-\d{2}|\s*(?:19|20)\d\d(?![\w/-]))",
                       re.IGNORECASE)
# A percent or degree sign is a quantity's after a prefixed section or chapter too: "the rules 100%", "rule 4%"
# (a dotted number after a prefix is the rule: nobody writes a percentage as "CR 100.1%").
_SIGN = re.compile(r"\s?[%°]")


def _alternatives(names: tuple[str, ...]) -> str:
    """Document names as regex alternatives, longest first, spaces flexible."""
    return "|".join(re.escape(n).replace(r"\ ", r"\s?") for n in sorted(names, key=len, reverse=True))


@lru_cache(maxsize=16)
def _ref_pattern(names: tuple[str, ...]) -> re.Pattern:
    """The reference regex for a set of document names."""
    alternatives = _alternatives(names)
    # "treachery/907.4b", and a chapter by its id: "treachery/7" (as "cr/7" is)
    doc = (rf"(?P<doc>{alternatives})(?:(?P<slash>/)(?=\d)|\b[\s:]*)" if alternatives
           else r"(?P<doc>(?!))(?P<slash>)")
    return re.compile(
        rf"""
        (?<![^\W_]|[.$€£¥/:#@-])             # not inside a word, a price, a URL, an address or a time
        (?:{doc})?
        (?P<pre>{_OFFICIAL_PREFIX}|{_PREFIX})?
        (?:(?P<num>{_NUMBER})|(?(pre)|(?(slash)|(?!))){_CHAPTER})
        (?![^\W_]|\.\d|:\d|\.[^\W\d_]|[\u00ad\u200b-\u200d\u2060\ufeff]\d)
                                             # not 907.4bx, 3.5.1, 123:30, a file "702.19b.txt", 702.1<ZWSP>9b
        """,
        re.IGNORECASE | re.VERBOSE,
    )


# A number's shape once found: section, rule, letter, suffix.
_PARTS = re.compile(r"^(?P<section>\d{3})(?:\.(?P<rule>\d{1,3})(?P<letter>tr|a[a-z]|[a-z])?)?$")

# A document name written after a number, as chat writes it: "702.187c treachery", "see 702.187c (Treachery)",
# "rule 115 of treachery", "907.4b in the treachery rules" (the closing bracket may have been stripped with a
# query's wrapping). On the same line, and not a name that begins the next reference ("907.4a treachery 907.4b").
@lru_cache(maxsize=16)
def _doc_after_pattern(names: tuple[str, ...]) -> re.Pattern:
    return re.compile(
        rf"""[^\S\n]*(?:(?:of|in|from)[^\S\n]+(?:the[^\S\n]+)?)?
             (?P<open>\(\s*)?(?P<doc>{_alternatives(names) or "(?!)"})\b
             (?(open)\s*(?:\)|$)|(?![\s:]*(?:{_PREFIX})?\d))""",
        re.IGNORECASE | re.VERBOSE,
    )


# Continuations of a reference: a range end or another list member.
_RANGE = re.compile(
    r"\s*(?:-|–|—|\bto\b|\bthrough\b)\s*(?P<end>\d{3}\.\d{1,3}(?:a[a-z]|[a-z])?|\d{1,3}(?![\w]|\.\d)|(?:a[a-z]|[a-z])(?![\w]))",
    re.IGNORECASE)
# What joins the members of a list: "907.11a, b", "702.19b and c", "704.5a/704.5b".
_SEPARATOR = r"(?:\s*,\s*(?:(?:and|or)\s+)?|\s+and\s+|\s+or\s+|/)"  # "702.19b, c, and d" too
_LIST_NUMBER = re.compile(rf"{_SEPARATOR}(?P<num>{_NUMBER})(?![\w]|\.\d)", re.IGNORECASE | re.VERBOSE)
# A lone letter continues a list only when nothing word-like follows it
# ("907.11a, b" but not "702.187c, a player"), nor the rest of an abbreviation or a reference
# ("704.5f, i.e. zero toughness", "C.R. 116.2", "R. 702.19b").
_LIST_LETTER = re.compile(
    _SEPARATOR + r"(?!r\.\s*\d)(?P<letter>a[a-z]|[a-z])(?!\w)(?=\s*(?:$|\.(?![a-z])|[,;:)\]/]|@\s*\d{4}-)"
    r"|\s+(?:and|or)\b)",
    re.IGNORECASE)
_TRAILING_SEPARATOR = re.compile(_SEPARATOR + "$", re.IGNORECASE)
_OFFICIAL_SUFFIX = re.compile(
    r"\.?,?\s+(?:of|in|from)\s+the\s+(?:official\s+(?:Magic\s+)?(?:Comprehensive\s+Rules|CR|rules)|Comprehensive\s+Rules)\b",
    re.IGNORECASE,
)

# A date after a reference asks for the official rules as of that day: "716.2@2016-07-22",
# "CR 702.19c (2025-02-07)" (the closing bracket may have been stripped with a query's wrapping; after
# "@" a bracket is the text's own: "(716.2@2016-07-22)").
# A time after the day is the day's ("716.2@2016-07-22T10:00"); emphasis may close right after ("_716.2@2016-07-22_").
_DATED = re.compile(r"(?<!\s)(?:\s*@\s*|\s+(?:as\s+of|on)\s+|(?P<open>\s*\(\s*))(?P<date>\d{4}-\d{2}-\d{2})"
                    r"(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?(open)(?:\s*\))?)(?![^\W_]|-)")
# A number printed twice in one release names its second copy "-2" (kb.history), only with a day: "702.175-2@2024-09-20"
_DATED_COPY = re.compile(r"-[2-9](?=\s*@\s*\d{4}-\d{2}-\d{2})")
# "@" and a day right after a number: a dated citation, whatever the number's shape ("716@2016-07-22", a section)
_AT_DAY = re.compile(r"(?:[-–]\d{1,3})?\s*@\s*\d{4}-\d{2}-\d{2}")  # "702.175-1@2024-09-20": a copy there is not

# A section's title quoted after its number, as the official rules cite one: "See 706, “Rolling a Die.”"
_QUOTED_TITLE = re.compile(r',\s*[“"]\s*[A-Z]')
# A bare section later in a sentence that cited a section, joined by a conjunction, is a section of the same citation:
# "See 719. in the official Comprehensive Rules for rules on restarting the game, and 720. for subgames",
# "Renamed rule 115 into 116" (the first number's prefix or suffix is not written again).
_JOINED_SECTION = re.compile(r"(?:,\s*)?\b(?:and|or|into)\s+$", re.IGNORECASE)
_SENTENCE_END = re.compile(r'[.!?]["”’)]*\s+[A-Z]|\n')
_SECTION_DOT = re.compile(r"\.(?=\s+[a-z])")  # a section number's own dot, the sentence going on in lower case

MAX_EXPANSION = 30  # a range longer than this is not a citation anyone means


@dataclass(frozen=True)
class RefQuery:
    """A parsed reference: what it asks for, before anything is looked up."""

    written: str
    numbers: tuple[str, ...] = ()  # lowercase, ranges expanded, in the order written
    official: bool = False  # "official rule 708", "... in the official CR"
    prefer: str | None = None  # "cr" for "CR 907.4b": that document first, others still match
    doc: str | None = None  # an explicit document: "treachery 907.5a"
    section: str | None = None  # an UnCommander section title, as the caller spelled it
    item: tuple[str, ...] = ()  # ("d", "iii") in that section
    invalid_letter: bool = False  # a sub-rule letter l or o, which no rule uses
    date: str | None = None  # "716.2@2016-07-22", "CR 702.19c (2025-02-07)": the official rules as of that day
    loose: bool = False  # an UnCommander section by its first words ("golden rules a"): a reference only if it exists


@dataclass(frozen=True)
class RefMatch:
    start: int
    end: int
    text: str
    query: RefQuery
    # "702.187c treachery": the reference without the document name written after it, for a reader to fall back
    # on when that document has no such rule (the name may be a word of the sentence; kb.linkify does)
    bare: RefMatch | None = None


def _rank(letter: str) -> int:
    """Where a sub-rule letter sorts: a..z, then aa, ab, ... (l and o have a place, though unused)."""
    return ord(letter) - ord("a") if len(letter) == 1 else 26 + ord(letter[1]) - ord("a")


def _letter_range(first: str, last: str) -> list[str] | None:
    if first not in SEQUENCE or last not in SEQUENCE:
        return None
    a, b = SEQUENCE.index(first), SEQUENCE.index(last)
    return SEQUENCE[a : b + 1] if a <= b else None


def _span(first: int, last: int) -> range | None:
    return range(first, last + 1) if first < last <= first + MAX_EXPANSION else None


def _with_letters(stem: str, first: str | None, last: str | None) -> list[str] | None:
    """907.3 + a..c -> 907.3a, 907.3b, 907.3c (Treachery's "tr" is a suffix, not a letter)."""
    letters = _letter_range(first, last) if first and last and first != "tr" else None
    return [stem + c for c in letters] if letters else None


def _range_to_letter(s: re.Match, end: str) -> list[str] | None:
    """907.3a-c"""
    return _with_letters(f"{s['section']}.{s['rule']}", s["letter"], end)


def _range_to_digits(s: re.Match, end: str) -> list[str] | None:
    """907.1-3 (rules of one section) or 808-811 (sections)."""
    if s["rule"] and not s["letter"]:
        span = _span(int(s["rule"]), int(end))
        return [f"{s['section']}.{n}" for n in span] if span else None
    if not s["rule"] and len(end) == 3:
        span = _span(int(s["section"]), int(end))
        return [str(n) for n in span] if span else None
    return None


def _range_to_number(s: re.Match, end: str) -> list[str] | None:
    """907.3a-907.3c or 907.1-907.3: both ends in the same section."""
    e = _PARTS.match(end)
    if e is None or e["section"] != s["section"] or not s["rule"] or not e["rule"]:
        return None
    if s["letter"] and e["letter"] and s["rule"] == e["rule"]:
        return _with_letters(f"{s['section']}.{s['rule']}", s["letter"], e["letter"])
    if not s["letter"] and not e["letter"]:
        return _range_to_digits(s, e["rule"])
    return None


def _expand(start: str, end: str) -> list[str] | None:
    """``907.3a``..``c``, ``907.3a``..``907.3c``, ``907.1``..``3``, ``808``..``811``; None if not a sane range."""
    s = _PARTS.match(start)
    if s is None:
        return None
    if end.isalpha():
        return _range_to_letter(s, end)
    if end.isdigit():
        return _range_to_digits(s, end)
    return _range_to_number(s, end)


def undated(text: str) -> str:
    """A dated reference without its date: "716.2@2016-07-22" -> "716.2", "CR 702.19c (2025-02-07)" -> "CR 702.19c",
    a whole query's "702.19b as of 2019-01-25" -> "702.19b", "CR 702.19b (Jan 2019)" -> "CR 702.19b"."""
    # as parse_ref reads it; and a date written in words as running text has it ("903.9 in 2019", kb.linkify)
    text = text.strip().rstrip(".,;:!?")
    written = next((m for m in _WRITTEN_DATED.finditer(text) if m.end() == len(text)), None)
    if written is not None:
        text = text[: written.start()]
    return _DATED.sub("", _SPACED_DATE.sub("@", iso_days(text))).strip()


_MONTHS = {name.lower(): n for n in range(1, 13) for name in (calendar.month_name[n], calendar.month_abbr[n])}
_MONTHS["sept"] = 9
_MONTH = "(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_ORDINAL = r"(?:st|nd|rd|th)?"
# A day written with its month's name, as people date a ruling: "25 January 2019", "January 25, 2019", "Jan 2019"
_WRITTEN_DAY = re.compile(
    rf"(?<![\w-])(?:(?P<d1>\d{{1,2}}){_ORDINAL}\s+(?:of\s+)?(?P<m1>{_MONTH}),?\s+(?P<y1>\d{{4}})"
    rf"|(?P<m2>{_MONTH})\s+(?P<d2>\d{{1,2}}){_ORDINAL},?\s+(?P<y2>\d{{4}})"
    rf"|(?P<m3>{_MONTH}),?\s+(?P<y3>\d{{4}})"
    # 2019/01/25 (25/01/2019 and 01/25/2019 are read apart in different countries: left as written)
    rf"|(?P<y4>\d{{4}})/(?P<m4>\d{{1,2}})/(?P<d4>\d{{1,2}}))(?![\w-])"
    # a year alone where a date goes: "702.19b@2019", "702.19b as of 2019", "CR 702.19b (2019)"
    r"|(?<=[\w)])(?P<at>\s*@\s*|\s+as\s+of\s+)(?P<y5>(?:19|20)\d\d)(?![\w/-])"
    r"|(?<=[\w)])(?P<open>\s*\(\s*)(?:as\s+of\s+)?(?P<y6>(?:19|20)\d\d)(?=\s*\)|\s*$)", re.IGNORECASE)


def _iso_day(m: re.Match) -> str:
    year = m.group("y5") or m.group("y6")
    if year:  # a year alone is its last day (the release in force at its end), no later than today
        return (m.group("at") or m.group("open")) + min(f"{year}-12-31", date.today().isoformat())
    if m.group("y4"):  # 2019/01/25, as written even when no such day exists
        return f"{int(m.group('y4')):04d}-{int(m.group('m4')):02d}-{int(m.group('d4')):02d}"
    month = _MONTHS[(m.group("m1") or m.group("m2") or m.group("m3")).lower().rstrip(".")]
    year = int(m.group("y1") or m.group("y2") or m.group("y3"))
    day = m.group("d1") or m.group("d2")
    if day:  # as written, even when no such day exists ("31 February 2019" is said to be no day of the calendar)
        return f"{year:04d}-{month:02d}-{int(day):02d}"
    # a month alone is its last day, as a year alone is (web.data), and no later than today
    last = date(year, month, calendar.monthrange(year, month)[1]) if year >= 1 else None
    return min(last, date.today()).isoformat() if last else m.group(0)


# A date written in words right after a reference in running text (kb.linkify: "903.9 as of 2019", "702.19b (Jan
# 2019)", "716.2 on 25 January 2016", "903.9@2019", "903.9 in 2019"), read where it stands, as the search box reads
# a whole query
_WHEN = (rf"\d{{1,2}}{_ORDINAL}\s+(?:of\s+)?{_MONTH},?\s+\d{{4}}|{_MONTH}\s+\d{{1,2}}{_ORDINAL},?\s+\d{{4}}"
         rf"|{_MONTH},?\s+\d{{4}}|\d{{4}}/\d{{1,2}}/\d{{1,2}}|(?:19|20)\d\d")
_WRITTEN_DATED = re.compile(rf"(?:\s*@\s*|\s+as\s+of\s+|\s+on\s+|\s+in\s+)(?P<when>{_WHEN})(?![\w/-])"
                            rf"|\s*\(\s*(?:as\s+of\s+)?(?P<paren>{_WHEN})\s*\)", re.IGNORECASE)


def _written_date(text: str, pos: int) -> tuple[str, int] | None:
    """The ISO day of a date written in words at ``pos`` of running text, and where it ends; None if there is none."""
    m = _WRITTEN_DATED.match(text, pos)
    if m is None:
        return None
    when = m.group("when") or m.group("paren")
    day = min(f"{when}-12-31", date.today().isoformat()) if when.isdigit() else _WRITTEN_DAY.sub(_iso_day, when)
    return (day, m.end()) if re.fullmatch(r"\d{4}-\d{2}-\d{2}", day) else None


# A month and a day without a year, after a rule number: "716.2 as of July 1" (which year?)
_YEARLESS_DAY = re.compile(rf"(?<=\w)\s+(?:(?:as\s+)?of\s+|on\s+|in\s+|@\s*)?(?P<day>(?P<m>{_MONTH})\s+\d{{1,2}}"
                           rf"{_ORDINAL}|\d{{1,2}}{_ORDINAL}\s+(?:of\s+)?(?P<m2>{_MONTH}))\s*[.,;:!?)]*$",
                           re.IGNORECASE)


def yearless_day(text: str) -> tuple[str, str] | None:
    """The day a reference is dated by without its year, and the reference before it ("716.2 as of July 1" ->
    ("July 1", "716.2")), or None."""
    text = text.strip()
    m = _YEARLESS_DAY.search(text)
    return (m.group("day"), text[: m.start()]) if m else None


def iso_days(text: str) -> str:
    """``text`` with its days written with a month's name as ISO days: "716.2 as of July 2016" -> "716.2 as of
    2016-07-31" (a month alone is its last day), "702.19b on 25 January 2019" -> "702.19b on 2019-01-25",
    "702.19b@2019" -> "702.19b@2019-12-31" (a year alone, after "@" or "as of" or in brackets, is its last day)."""
    return _WRITTEN_DAY.sub(_iso_day, text) if _DIGIT.search(text) else text


def _continue_range(text: str, pos: int, numbers: list[str]) -> int | None:
    m = _RANGE.match(text, pos)
    expanded = _expand(numbers[-1], m.group("end").lower()) if m else None
    if m is None or not expanded or len(expanded) > MAX_EXPANSION:
        return None
    numbers[-1:] = expanded
    return m.end()


def _continue_letter(text: str, pos: int, numbers: list[str]) -> int | None:
    last = _PARTS.match(numbers[-1])
    m = _LIST_LETTER.match(text, pos)
    if not m or not last or not last["letter"] or last["letter"] == "tr":
        return None
    numbers.append(f"{last['section']}.{last['rule']}" + m.group("letter").lower())
    return m.end()


def _extend(text: str, pos: int, first: str) -> tuple[list[tuple[int, list[str]]], int]:
    """Read ranges and list members after the first number.

    Returns segments ``(start, numbers)``: a range or a list of letters
    ("907.3a-c", "907.11a, b") extends the current segment; another full
    number ("rules 808, 809") starts a new one, so running text links each
    number where it is written. Also returns where the reference ends.
    """
    segments: list[tuple[int, list[str]]] = [(-1, [first])]
    while True:
        numbers = segments[-1][1]
        end = _continue_range(text, pos, numbers)
        if end is None:
            m = _LIST_NUMBER.match(text, pos)
            if m:
                segments.append((m.start("num"), [m.group("num").lower()]))
                end = m.end()
        if end is None:
            end = _continue_letter(text, pos, numbers)
        if end is None:
            return segments, pos
        pos = end


def _invalid(number: str) -> bool:
    m = _PARTS.match(number)
    return bool(m and m.group("letter") and m.group("letter") != "tr" and set(m.group("letter")) & SKIPPED_LETTERS)


def _doc_slug(written: str | None, doc_names: Mapping[str, str]) -> str | None:
    if not written:
        return None
    key = re.sub(r"\s+", " ", written.lower())
    return doc_names.get(key) or doc_names.get(key.replace(" ", ""))


_CR_WORDS = frozenset({"cr", "crrule", "crrules", "crr"})  # "CR", "CR rule", "CR r.": the official rules first


def _keyword(m: re.Match) -> str:
    """The prefix's word: "cr" for "CR.", "CR §" and "cr/"."""
    return re.sub(r"[^a-z]", "", (m.group("kw") or "").lower())


def _query(m: re.Match, written: str, numbers: list[str], official: bool, doc_names: Mapping[str, str],
           date: str | None = None, doc: str | None = None) -> RefQuery:
    """``doc``: the document (its slug) named after the number ("702.187c treachery"), if any."""
    kw = _keyword(m)
    return RefQuery(
        written=written,
        numbers=tuple(dict.fromkeys(numbers)),
        official=official,
        prefer="cr" if kw in _CR_WORDS and not official else None,
        doc=_doc_slug(m.group("doc"), doc_names) or doc,
        invalid_letter=any(_invalid(n) for n in numbers),
        date=date,
    )


def _is_reference(text: str, m: re.Match, number: str, bare: bool) -> bool:
    """A bare "100" in running text is a quantity; a prefix, a dot or an official suffix makes it a rule."""
    if m.group("kw") or m.group("official") or m.group("doc"):
        return "." in number or not _SIGN.match(text, m.end())
    if _QUANTITY.match(text, m.end()):  # "100.1€", "702.19 tix", "613.1@example.org": a quantity or an address
        return False
    if bare or "." in number:
        return True
    # "719. in the official Comprehensive Rules", "716@2016-07-22": the suffix or the day makes a bare section a
    # citation, and so does the title the rules quote after one ("See 718, “Prototype Cards.”").
    return bool(_OFFICIAL_SUFFIX.match(text, m.end()) or _AT_DAY.match(text, m.end())
                or _QUOTED_TITLE.match(text, m.end()))


def _match_at(text: str, m: re.Match, bare: bool, doc_names: Mapping[str, str]) -> list[RefMatch]:
    """The references a regex match starts (one per list member), or [] if it is none."""
    if m.group("chapter"):  # "rule 4", "CR 7": a chapter, never a range or list
        if _SIGN.match(text, m.end()):
            return []
        query = _query(m, m.group(0), [m.group("chapter")], bool(m.group("official")), doc_names)
        return [RefMatch(m.start(), m.end(), m.group(0), query)]
    number = m.group("num").lower()
    if not _is_reference(text, m, number, bare):
        return []
    copy = _DATED_COPY.match(text, m.end())
    if copy:  # "702.175-2@2024-09-20": the second rule that release printed as 702.175 (the site's own form)
        number, segments, end = number + copy.group(0), [(-1, [number + copy.group(0)])], copy.end()
    else:
        segments, end = _extend(text, m.end(), number)
    official = bool(m.group("official"))
    after = _doc_after(text, end, m, segments[-1][1][-1], doc_names)
    suffix = None if after else _OFFICIAL_SUFFIX.match(text, end)
    if suffix:
        official = True
        end = suffix.end()
    dated = None if after else _DATED.match(text, end)
    if not dated and not after and _AT_DAY.match(text, end):
        return []  # "716.2@2016-07-22-x": a day it cannot read; never today's namesake of the rule it meant
    date = dated.group("date") if dated else None
    if dated:
        end = dated.end()
    elif not after and (written := _written_date(text, end)):  # "903.9 as of 2019": 2019's 903.9, not today's
        date, end = written
    starts = [m.start()] + [s for s, _ in segments[1:]]
    ends = [_trim_end(text, s, e) for s, e in pairwise(starts)] + [after.end() if after else end]
    found = [
        RefMatch(s, e, text[s:e], _query(m, text[s:e], numbers, official, doc_names, date))
        for s, e, (_, numbers) in zip(starts, ends, segments, strict=True)
    ]
    if after:  # the name after the last number is that number's document
        last, numbers = found[-1], segments[-1][1]
        plain = RefMatch(last.start, end, text[last.start:end], _query(m, text[last.start:end], numbers, False,
                                                                        doc_names))
        query = _query(m, last.text, numbers, False, doc_names, doc=_doc_slug(after.group("doc"), doc_names))
        found[-1] = RefMatch(last.start, last.end, last.text, query, plain)
    return found


def _joined_section(text: str, m: re.Match, found: list[RefMatch], doc_names: Mapping[str, str]) -> list[RefMatch]:
    """A bare section joined to the section its sentence cited ("719. in the official Comprehensive Rules ..., and
    720."): a citation as the first one is (official, of its document), or [] if it is not one."""
    if not found or m.group("pre") or m.group("doc") or "." in m.group("num") or not m.group("num").isdigit():
        return []
    last = found[-1]
    between = text[last.end:m.start()]
    if (not _JOINED_SECTION.search(between) or _SENTENCE_END.search(between)
            or not all(n.isdigit() and len(n) == 3 for n in last.query.numbers)):
        return []
    first = last.query
    out = []
    for r in _match_at(text, m, True, doc_names):
        # "720. for subgames": the section's own dot, as "719." is written, stays with it (the page read "720 (720 as
        # of 2020-04-17, 729 now). for subgames")
        dot = _SECTION_DOT.match(text, r.end)
        out.append(replace(r, end=r.end + (1 if dot else 0), text=r.text + ("." if dot else ""),
                           query=replace(r.query, official=first.official or r.query.official,
                                         prefer=r.query.prefer or first.prefer, doc=r.query.doc or first.doc)))
    return out


def _doc_after(text: str, pos: int, m: re.Match, last: str, doc_names: Mapping[str, str]) -> re.Match | None:
    """A document name after a reference no prefix gave a document ("CR 702.187c treachery" stays official), unless
    it is the last number's suffix written apart ("116.2 tr" is 116.2tr, as a whole query reads it)."""
    kw = _keyword(m)
    if m.group("doc") or m.group("official") or kw == "cr" or not doc_names:
        return None
    after = _doc_after_pattern(tuple(doc_names)).match(text, pos)
    return None if after is None or _PARTS.match(last + after.group("doc").lower()) else after


def _trim_end(text: str, start: int, end: int) -> int:
    """End a list member before the separator that follows it (", ", " and ", "/")."""
    m = _TRAILING_SEPARATOR.search(text, start, end)  # positions in ``text``: endpos ends the "$"
    return m.start() if m else end


def find_refs(text: str, sections: tuple[str, ...] | list[str] = (), doc_names: Mapping[str, str] | None = None,
              loose_sections: bool = False) -> list[RefMatch]:
    """Every rule reference in running text, left to right, non-overlapping.

    Bare three-digit numbers ("100 life") are not references here; dotted
    numbers ("704.5j") and prefixed ones ("rule 115") are. With
    ``sections``, UnCommander references written with a letter in brackets
    or with a closing bracket ("Token Cards (j)", "Token Cards d) iii") are
    found too; with ``loose_sections`` (a chat message) also the form a
    search box takes, "Token Cards j", unless the letter reads as a word
    ("Token Cards a player").
    """
    names = DOC_NAMES if doc_names is None else doc_names
    found: list[RefMatch] = []
    for m in _ref_pattern(tuple(names)).finditer(text):
        if found and m.start() < found[-1].end:
            continue  # inside a list or range already read
        found += _match_at(text, m, False, names) or _joined_section(text, m, found, names)
    if sections:
        pattern = _section_pattern(tuple(sections), running=True, loose=loose_sections)
        for m in pattern.finditer(text):
            if any(r.start < m.end() and m.start() < r.end for r in found):
                continue
            found.append(RefMatch(m.start(), m.end(), m.group(0), _section_query(m, tuple(sections))))
        found.sort(key=lambda r: r.start)
    return found


# A whole query may write a number with spaces where the dots or the letter join it, as people type on
# a phone: "907 8a", "907. 8a", "702.187 f", "rule 907.5 c"; a hyphen for the dot ("903-10a", never a
# range: "808-811" reads as one first) or the letter in brackets ("907.5(c)"). Only at the end of what is
# parsed whole; a second number of one or two digits (three only with a letter: "801 802" is two sections,
# not rule 801.802), and one letter or Treachery's "tr" after a space ("702.19 trample", "702.19 at" are
# words; "704.5aa" is written joined).
_SPACED = re.compile(r"(?<![\w.])(?P<section>\d{3})(?:\.\s+|\s+|-)(?=\d{1,2}(?:\s*[a-z])?$|\d{3}\s*[a-z]$)"
                     r"(?P<rule>\d{1,3})(?:\s*(?P<letter>tr|[a-z]))?$"
                     r"|(?<![\w.])(?P<number>\d{3}\.\d{1,3})(?:\s+|\s*\()(?P<late>tr|[a-z])\)?$",
                     re.IGNORECASE)


# A day after a whole query's number, as typed on a phone: "702.19b 2019-01-25", "cr 702.19b, as of 2019-01-25",
# "716.2 on 2016-07-22" are "702.19b@2019-01-25" (they searched the words: Core Set 2019's rule came first).
_SPACED_DATE = re.compile(r"(?<=[\w)])\s*[,;]?\s+(?:(?:as\s+)?of\s+|on\s+|at\s+|in\s+)?(?=\d{4}-\d{2}-\d{2}$)",
                          re.IGNORECASE)


# A comma for the dot, as on a European keyboard, in a whole query ("702,19b", "702,187"; "808, 809" with
# its space is a list), and the letter O for a zero in a section number ("7O4.5a").
_COMMA = re.compile(r"(?<![\w.,])(?P<number>\d{3}),(?=\d{1,3}[a-z]{0,2}$)", re.IGNORECASE)
_ZERO = re.compile(r"(?<![\w.])[\doO]{3}(?=\.\d)")


def _zeros(m: re.Match) -> str:
    return m.group(0).replace("O", "0").replace("o", "0")


def _joined(m: re.Match) -> str:
    if m.group("number"):
        return m.group("number") + m.group("late")
    return f"{m.group('section')}.{m.group('rule')}{m.group('letter') or ''}"


_WRAPPERS = re.compile(r"^[\s(\[{\"'“‘]*(?P<body>.*?)[\s)\]}\"'”’.,;:!?]*$", re.DOTALL)
# _WRAPPERS' two sides in ASCII text (its ``\s`` there: str.isspace's ASCII characters): the opening run is greedy
# and the body lazy before a closing run to the end, so the body is the text stripped of the first on the left,
# then of the second on the right (tests/test_refs.py compares the two)
_ASCII_SPACE = "".join(c for c in map(chr, range(128)) if c.isspace())
_ASCII_OPENING, _ASCII_CLOSING = _ASCII_SPACE + "([{\"'", _ASCII_SPACE + ")]}\"'.,;:!?"


def parse_ref(text: str, sections: tuple[str, ...] | list[str] = (), bare_numbers: bool = True,
              doc_names: Mapping[str, str] | None = None) -> RefQuery | None:
    """Parse a whole string as one reference (a query, a short link), or None.

    Wrapping brackets and quotes and trailing punctuation are ignored
    ("(907.4b)", "907.4b."), and so are the loose forms of a whole query
    (``_COMMA``, ``_ZERO``, ``_SPACED``, ``_SPACED_DATE``, ``_section_by_words``). With ``bare_numbers`` a plain
    "907" or "115" is a reference (a search box); without, it needs a prefix.
    """
    if len(text) > 200:
        return None
    if text.isascii():  # _WRAPPERS' answer without running it (a lazy group tried at every character)
        body = text.lstrip(_ASCII_OPENING).rstrip(_ASCII_CLOSING)
    else:
        wrapped = _WRAPPERS.match(text)  # matches any text: every part of the pattern may be empty
        body = wrapped.group("body") if wrapped else text
    if not body:
        return None
    names = DOC_NAMES if doc_names is None else doc_names
    loose = body
    numbered = _DIGIT.search(body)  # words alone (most searches) have no number to write loosely
    if numbered:
        body = _COMMA.sub(r"\g<number>.", body)  # before the list reader takes "702,187" for sections 702 and 187
        loose = _SPACED_DATE.sub("@", _SPACED.sub(_joined, _ZERO.sub(_zeros, iso_days(body))))
    # every reference the pattern reads holds a digit (a number, a chapter): words alone are none of them
    for candidate in dict.fromkeys((body, loose)) if numbered else ():  # "907 8a", "702.187 f": once as written
        m = _ref_pattern(tuple(names)).match(candidate)
        if m:
            matches = _match_at(candidate, m, bare_numbers, names)
            if matches and matches[-1].end == len(candidate):
                numbers = [n for r in matches for n in r.query.numbers]
                after = matches[-1].query.doc if matches[-1].bare else None  # "702.187c treachery": all numbers'
                return _query(m, candidate, numbers, matches[0].query.official, names, matches[0].query.date,
                              doc=after)
    if sections:
        starts = _section_starts(tuple(sections))
        # "Token Cards (j)": the closing bracket belongs to the reference.
        for candidate in (text.strip().rstrip(".,;:!?"), body):
            if starts and candidate.isascii() and not candidate.lower().startswith(starts):
                continue  # begins with no section title's first word (most searches): the pattern cannot match
            m = _section_pattern(tuple(sections), running=False).fullmatch(candidate)
            if m:
                return _section_query(m, tuple(sections))
        return _section_by_words(body, tuple(sections))
    return None


# What a search box takes for an UnCommander rule besides the exact title: the title's first words,
# singular or plural, "uncommander", "rule" and "section" anywhere, then the letter (and numeral):
# "golden rule a", "noninteger values rule j uncommander", "die roll c ii".
_NOT_TITLE = frozenset({"uncommander", "section", "rule"})
_ENDS_IN_ITEM = re.compile(r"(?<![\w'’])\(?[a-z]{1,2}\)?(?:\s+\(?[ivx]{1,5}\)?)?(?:\s+uncommander)?\s*$", re.IGNORECASE)
_DIGIT = re.compile(r"\d")
_ITEM_LETTER = re.compile(r"a[a-z]|[a-z]")
_ROMAN = re.compile(r"[ivx]{1,5}")


def _title_key(words: list[str]) -> tuple[str, ...]:
    singular = (w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words)
    return tuple(w for w in singular if w not in _NOT_TITLE)


@lru_cache(maxsize=8)
def _title_keys(sections: tuple[str, ...]) -> tuple[tuple[tuple[str, ...], str], ...]:
    return tuple((_title_key(re.findall(r"[a-z]+", t.lower())), t) for t in sections)


def _ends_in_item(text: str) -> bool:
    """``_ENDS_IN_ITEM`` finds its letter (and numeral) at the end of ``text``. It was tried at every character of
    a question (3-7 us); whatever it matches is the text's last three words at most (the letter, the numeral,
    "uncommander", each after whitespace, and whitespace is ``str.split``'s), so it is tried from the end of the
    text before them (its look-behind still reads the character before: tests/test_refs.py compares the two)."""
    parts = text.rsplit(None, 3)
    return _ENDS_IN_ITEM.search(text, len(parts[0]) if len(parts) == 4 else 0) is not None


def _section_by_words(text: str, sections: tuple[str, ...]) -> RefQuery | None:
    if not _ends_in_item(text):
        return None  # no letter (and numeral) at the end: most searches, found out at once
    words = [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w != "uncommander"]
    item: tuple[str, ...]
    if any(not w.isalpha() for w in words):
        return None  # "die roll d20": a die, not rule d of Die Rolls
    if len(words) >= 3 and _ROMAN.fullmatch(words[-1]) and _ITEM_LETTER.fullmatch(words[-2]):
        item, words = (words[-2], words[-1]), words[:-2]
    elif len(words) >= 2 and _ITEM_LETTER.fullmatch(words[-1]):
        item, words = (words[-1],), words[:-1]
    else:
        return None
    key = _title_key(words)
    keys = _title_keys(sections)
    if not key or (len(key) < 2 and not any(k == key for k, _ in keys)):
        return None  # one word names a section only whole ("borders b")
    titles = [t for k, t in keys if k[:len(key)] == key]
    if len(titles) != 1:
        return None
    return RefQuery(written=text.strip(), section=titles[0], item=item, doc="uncommander", loose=True)


# In a chat message, "Token Cards j" without brackets: any letter but the words "a" and "i",
# which only count at the end of a sentence or clause ("see Token Cards a.").
_LOOSE_ITEM = (r"\s+(?:(?P<letter3>(?![ai]\b)[a-z]{1,2})\b|(?P<letter4>[ai])(?=\s*(?:$|[.,;:!?)\]])))"
               r"(?:\s+\(?(?P<roman2>[ivx]{1,5})\)?(?![\w]))?")


@lru_cache(maxsize=8)
def _section_starts(sections: tuple[str, ...]) -> tuple[str, ...]:
    """What a whole query that is a section reference starts with, lowercased (``_section_pattern``, not running:
    "uncommander", or a title's first word), or () when a title's first word is not ASCII, where case-insensitive
    matching is more than ``str.lower`` (the test is then left to the pattern)."""
    firsts = tuple(t.split(" ", 1)[0].lower() for t in sections)
    return ("uncommander", *firsts) if all(f.isascii() for f in firsts) else ()


@lru_cache(maxsize=8)
def _section_pattern(sections: tuple[str, ...], running: bool, loose: bool = False) -> re.Pattern:
    titles = "|".join(re.escape(t).replace(r"\ ", r"\s+") for t in sorted(sections, key=len, reverse=True))
    if running:
        # In running text a section name needs a bracketed letter to be a reference.
        item = r"\s*(?:\((?P<letter>[a-z]{1,2})\)|(?P<letter2>[a-z]{1,2})\))(?:\s*\(?(?P<roman>[ivx]{1,5})\)?(?![\w]))?"
        if loose:
            item = rf"(?:{item}|{_LOOSE_ITEM})"
        return re.compile(rf"(?<![\w])(?P<title>{titles})(?:\s+section)?{item}", re.IGNORECASE)
    item = r"(?:\s*,?\s*(?:\((?P<letter>[a-z]{1,2})\)|(?P<letter2>[a-z]{1,2})\)?)(?:\s*\(?(?P<roman>[ivx]{1,5})\)?)?)?"
    return re.compile(rf"(?:uncommander\s+)?(?P<title>{titles})(?:\s+section)?{item}", re.IGNORECASE)


def _group(m: re.Match, *names: str) -> str:
    groups = m.re.groupindex
    return next((m.group(n) for n in names if n in groups and m.group(n)), "") or ""


def _section_query(m: re.Match, sections: tuple[str, ...]) -> RefQuery:
    written = re.sub(r"\s+", " ", m.group("title")).lower()
    title = next((t for t in sections if t.lower() == written), m.group("title"))
    letter = _group(m, "letter", "letter2", "letter3", "letter4").lower()
    roman = _group(m, "roman", "roman2").lower()
    item = tuple(x for x in (letter, roman) if x)
    return RefQuery(written=m.group(0), section=title, item=item, doc="uncommander")


def number_order(number: str) -> tuple:
    """A rule number's sort key, as the documents order them: 702.1 < 702.1a < 702.2 < 702.10 (digits as numbers),
    704.5z < 704.5aa (letters as the documents go on past z: shorter first, then alphabetically; compared as text,
    704.5aa came right after 704.5a)."""
    return tuple((0, int(p), "") if p.isdigit() else (1, len(p), p) for p in re.findall(r"\d+|[a-z]+", number.lower()))


def neighbours(number: str) -> list[str]:
    """The sub-rules either side of a letter, skipping l and o: 907.4l -> 907.4k, 907.4m."""
    m = _PARTS.match(number.lower())
    if not m or not m.group("letter") or m.group("letter") == "tr":
        return []
    stem = f"{m['section']}.{m['rule']}"
    rank = _rank(m.group("letter"))
    before = [c for c in SEQUENCE if _rank(c) < rank]
    after = [c for c in SEQUENCE if _rank(c) > rank]
    return [stem + c for c in (before[-1:] + after[:1])]


def descends(number: str, old: str) -> bool:
    """Is ``number`` the rule ``old`` or one of its sub-rules (115.1, 702.trunv-1a)? Lowercase both."""
    rest = number[len(old):] if number.startswith(old) else None
    return rest is not None and (rest == "" or rest.isalpha() or rest.startswith("."))
