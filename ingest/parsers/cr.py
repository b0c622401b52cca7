"""The official Magic: The Gathering Comprehensive Rules, as Wizards publishes them in plain text.

The file is the title, the effective date and an introduction; a "Contents"
list that repeats every chapter and section title (and ends "Glossary",
"Credits", in 2011 also "Customer Service Information"); the numbered rules
("1. Game Concepts", "100. General", "100.1. These Magic rules ...",
"100.1a A two-player game ...", "Example: ..." lines after a rule); the
Glossary (a term on its own line, its definition on the lines below, a blank
line between entries); and the Credits. One rule is one line; a rule's
further paragraphs are indented lines below it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ingest.document import Document
from ingest.errors import Problem
from ingest.parsers import ParseResult
from ingest.profile import Profile
from kb.ids import slugify
from kb.model import Record, Source

__all__ = ["parse", "detect", "TITLE"]

TITLE = "Magic: The Gathering Comprehensive Rules"
CONTENTS = "Contents"
GLOSSARY = "Glossary"
CREDITS = "Credits"
INTRODUCTION = "Introduction"

_CHAPTER = re.compile(r"^(?P<number>\d)\. (?P<title>\S.*)$")
_SECTION = re.compile(r"^(?P<number>\d{3})\. (?P<title>\S.*)$")
# "100.1. Text", "100.1a Text", "704.5aa Text" (2026 line 5556: two letters after 704.5z);
# the official typos "119.1d. Text" (2025 line 1050, 2026 line 1059: a stray dot after a
# sub-rule) and "901.4.All" (2025 line 6547: no space after the dot) read as 119.1d and 901.4;
# "201.3.  Some cards" and "701.47d  If" (2022 releases: two spaces) read alike and are reported.
_RULE = re.compile(
    r"^(?P<number>(?P<rule>\d{3}\.\d+)(?P<letter>[a-z]{1,2})?)(?:\.?(?P<space> +)|\.(?=\S))(?P<text>\S.*)$"
)
# "Example:Example: A player ..." (2015-01-23 line 3699: the label printed twice) is one example.
_EXAMPLE = re.compile(r"^(?P<label>(?:Example:)+) ")
# A line of one lowercase letter between rules (2021-11-15 line 4540: "f") is a stray keystroke.
_STRAY = re.compile(r"^[a-z]$")
_EFFECTIVE = re.compile(r"^These rules are effective as of ")


def detect(text: str) -> bool:
    """The first non-empty line is the official title (2011 prints it "_Magic: The Gathering_ Comprehensive Rules")."""
    for line in text.lstrip("\ufeff").splitlines()[:5]:
        if line.strip():
            return line.strip().replace("_", "") == TITLE
    return False


def _is_title(text: str) -> bool:
    """"Mayhem", "Card Types", "For Mirrodin!", "∞ (Infinity)": a rule that only names what its sub-rules define."""
    return len(text.split()) <= 6 and not text.endswith((".", ":", ",")) and ". " not in text


def _up(number: str) -> str:
    """The number one level up: 724.3a -> 724.3 -> 724 -> 7 -> ""."""
    if number[-1:].isalpha():
        return number.rstrip("abcdefghijklmnopqrstuvwxyz")
    if "." in number:
        return number.split(".", 1)[0]
    return number[0] if len(number) == 3 else ""


def _order(number: str) -> tuple[int, int, int, str]:
    """Where a number sorts among its siblings: 100.1 < 100.2 < 100.10; 704.5z < 704.5aa."""
    head, _, rest = number.lower().partition(".")
    digits = rest.rstrip("abcdefghijklmnopqrstuvwxyz")
    letters = rest[len(digits):]
    return int(head), int(digits) if digits else -1, len(letters), letters


@dataclass
class _Block:
    id: str
    kind: str
    units: list[int]
    number: str | None = None
    title: str | None = None
    parent: str | None = None
    text: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)


class _Parser:
    def __init__(self, text: str, profile: Profile):
        self.slug = profile.slug
        self.doc = Document.from_text(text, profile.file, profile.corrections)
        self.lines = [u.text.lstrip("\ufeff") for u in self.doc.units]
        self.blocks: list[_Block] = []
        self.problems: list[Problem] = []
        self.last: dict[str | None, tuple] = {}  # parent id -> the order of the number last printed under it

    def find(self, wanted: str, start: int, end: int | None = None) -> int | None:
        end = len(self.lines) if end is None else end
        return next((i for i in range(start, end) if self.lines[i].strip() == wanted), None)

    def run(self) -> ParseResult:
        n = len(self.lines)
        contents = self.find(CONTENTS, 0)
        if contents is None:
            self.problems.append(self.doc.problem(0, f"the {CONTENTS!r} heading"))
            return self.result()
        first = next((i for i in range(contents + 1, n) if self.lines[i].strip()), None)
        # The body starts where the contents' first line ("1. Game Concepts") is printed again.
        body = self.find(self.lines[first].strip(), first + 1) if first is not None else None
        if body is None or not _CHAPTER.match(self.lines[body].strip()):
            self.problems.append(self.doc.problem(first if first is not None else contents,
                                                  "the first chapter heading, printed again after the contents"))
            return self.result()
        glossary = self.find(GLOSSARY, body)
        if glossary is None:
            self.problems.append(self.doc.end_problem(f"the {GLOSSARY!r} heading after the rules"))
            return self.result()
        credits = self.find(CREDITS, glossary + 1)
        if credits is None:
            self.problems.append(self.doc.end_problem(f"the {CREDITS!r} heading after the glossary"))
            return self.result()
        self.introduction(0, contents)
        for i in range(contents, body):
            self.drop(i, "table of contents")
        self.rules(body, glossary)
        self.glossary(glossary, credits)
        self.credits(credits, n)
        return self.result()

    def drop(self, i: int, category: str) -> None:
        self.doc.drop(i, category if self.lines[i].strip() else "blank")

    # -- front matter -----------------------------------------------------------------------
    def introduction(self, start: int, end: int) -> None:
        block = _Block(f"{self.slug}/introduction", "note", [], title=INTRODUCTION)
        seen_title = False
        for i in range(start, end):
            line = self.lines[i].strip()
            if not line:
                self.doc.drop(i, "blank")
            elif not seen_title:
                seen_title = True
                if line.replace("_", "") != TITLE:
                    self.problems.append(self.doc.problem(i, f"the title {TITLE!r}"))
                self.doc.drop(i, "document heading")
            elif line == INTRODUCTION:
                block.units.append(i)  # the heading is the record's title
            else:
                block.units.append(i)
                block.text.append(line)
        if not any(_EFFECTIVE.match(t) for t in block.text):
            self.problems.append(self.doc.problem(start, "the sentence 'These rules are effective as of <date>.'"))
        if block.units:
            self.blocks.append(block)

    # -- the numbered rules -------------------------------------------------------------------
    def rules(self, start: int, end: int) -> None:
        numbers: dict[str, _Block] = {}
        before = len(self.blocks)
        chapter: _Block | None = None
        current: _Block | None = None  # the block further paragraphs and examples belong to
        for i in range(start, end):
            raw = self.lines[i]
            line = raw.strip()
            if not line:
                self.doc.drop(i, "blank")
                continue
            if raw[:1].isspace():
                # A rule's further paragraph is an indented line below it (2026 line 1459,
                # 2011 line 1048, where it follows the rule without a blank line).
                if current is None or current.kind != "rule" or current.title is not None:
                    self.problems.append(self.doc.problem(i, "a rule before an indented paragraph"))
                    continue
                current.units.append(i)
                current.text.append(line)
                continue
            m = _EXAMPLE.match(line)
            if m:
                if current is None or current.kind != "rule":
                    self.problems.append(self.doc.problem(i, "a rule before its example"))
                    continue
                if m.group("label") != "Example:":
                    self.doc.slip(i, "the label 'Example:' printed twice; the example is kept as printed")
                current.units.append(i)
                current.examples.append(line)
                continue
            m = _RULE.match(line)
            if m:
                if m.group("space") and len(m.group("space")) > 1:
                    self.doc.slip(i, f"{len(m.group('space'))} spaces after the number {m.group('number')}")
                number = m.group("number")
                parent = m.group("rule") if m.group("letter") else number[:3]
                text = m.group("text")
                title = text if not m.group("letter") and _is_title(text) else None
                current = self.open(numbers, i, "rule", number, parent, title=title, text=None if title else text)
                continue
            m = _SECTION.match(line)
            if m:
                number = m.group("number")
                if chapter is not None and chapter.number != number[0]:
                    self.problems.append(self.doc.problem(i, f"a section of chapter {chapter.number}"))
                current = self.open(numbers, i, "rule", number, number[0], title=m.group("title"))
                continue
            m = _CHAPTER.match(line)
            if m:
                chapter = current = self.open(numbers, i, "chapter", m.group("number"), None, title=m.group("title"))
                continue
            if _STRAY.match(line):
                self.doc.slip(i, "a stray line between rules; not part of any rule")
                self.doc.drop(i, "stray line")
                continue
            self.problems.append(
                self.doc.problem(i, "a chapter, section or rule number, an example or an indented paragraph")
            )
        if len(self.blocks) == before:
            self.problems.append(self.doc.problem(start, "a numbered rule"))

    def open(self, numbers: dict[str, _Block], i: int, kind: str, number: str, parent: str | None,
             title: str | None = None, text: str | None = None) -> _Block | None:
        key = number.lower()
        rid = f"{self.slug}/{key}"
        repeated = key in numbers
        if repeated:
            # 2024-09-17 prints "702.175. Offspring" and then "702.175. Impending" (702.176 in the
            # next release): both are kept, the second as "<number>-2", and the slip is reported.
            first = self.doc.units[numbers[key].units[0]].line
            n = 2
            while any(b.id == f"{rid}-{n}" for b in self.blocks):
                n += 1
            rid = f"{rid}-{n}"
            self.doc.slip(i, f"the number {number} used twice (first at line {first}); kept as {rid}")
        owner = None
        if parent is not None:
            owner = numbers.get(parent.lower())
            ancestor = parent
            while owner is None and ancestor:
                # 2021-09-24 prints 724.3a-c without 724.3: kept under the nearest rule that exists.
                ancestor = _up(ancestor)
                owner = numbers.get(ancestor.lower()) if ancestor else None
            if owner is None:
                self.problems.append(self.doc.problem(i, f"{parent} before {number}"))
                return None
            if owner.number is None or owner.number.lower() != parent.lower():
                self.doc.slip(i, f"{number} printed without {parent}; kept under {owner.number}")
        block = _Block(rid, kind, [i], number=number, title=title, parent=owner.id if owner is not None else None)
        order = _order(number)
        last = self.last.get(block.parent)
        if last is not None and order < last[0] and not repeated:
            # Rules out of order (100.3 printed before 100.2): kept where printed, and reported (a number printed
            # twice is reported as that).
            self.doc.slip(i, f"{number} printed after {last[1]}; kept where printed")
        self.last[block.parent] = (order, number)
        if text is not None:
            block.text.append(text)
        numbers[key] = block
        self.blocks.append(block)
        return block

    # -- glossary and credits ------------------------------------------------------------------
    def glossary(self, start: int, end: int) -> None:
        self.doc.drop(start, "document heading")
        used: dict[str, int] = {}
        block: _Block | None = None
        for i in range(start + 1, end):
            line = self.lines[i].strip()
            if not line:
                self.doc.drop(i, "blank")
                self.close_term(block)
                block = None
                continue
            if block is None:
                slug = slugify(line)
                used[slug] = used.get(slug, 0) + 1
                # Two terms that slugify alike keep apart: the second is "<slug>-2".
                suffix = f"-{used[slug]}" if used[slug] > 1 else ""
                block = _Block(f"{self.slug}/glossary/{slug}{suffix}", "glossary", [i], title=line)
                self.blocks.append(block)
            else:
                block.units.append(i)
                block.text.append(line)
        self.close_term(block)

    def close_term(self, block: _Block | None) -> None:
        if block is not None and not block.text:
            self.problems.append(self.doc.problem(block.units[0], "a definition below the glossary term"))

    def credits(self, start: int, end: int) -> None:
        block = _Block(f"{self.slug}/credits", "note", [start], title=CREDITS)
        self.blocks.append(block)
        for i in range(start + 1, end):
            line = self.lines[i].strip()
            if line.replace("_", "") == TITLE:
                # The document starting again (two downloads in one file): the credits took in all of the
                # second copy as their text, built without a word.
                self.problems.append(self.doc.problem(i, "the end of the file after the credits", line))
                return
            if not line:
                self.doc.drop(i, "blank")
            else:
                block.units.append(i)
                block.text.append(line)

    # -- records ---------------------------------------------------------------------------------
    def result(self) -> ParseResult:
        records = []
        for b in self.blocks:
            for i in b.units:
                self.doc.label(i, b.id)
            lines = [self.doc.units[i].line for i in b.units]
            records.append(Record(
                id=b.id,
                doc=self.slug,
                kind=b.kind,
                text="\n".join(b.text),
                source=Source(self.doc.file, min(lines), max(lines)),
                number=b.number,
                title=b.title,
                parent=b.parent,
                examples=tuple(b.examples),
            ))
        return ParseResult(records, self.doc, self.problems)


def parse(text: str, profile: Profile) -> ParseResult:
    return _Parser(text, profile).run()
