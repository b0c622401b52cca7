"""The UnCommander rules (EDH Silver): a web page's table flattened to lines.

The page opens with a short preamble (the ``note`` ``<doc>/introduction``),
then a table with the columns "Section # Rules Source and Commentary".
Flattened, the table reads:

- every section title twice (the "Section" cell, then the section's heading),
  between blank and no-break-space lines; the second printing is dropped as
  a repeated heading;
- one line per lettered rule ``a)`` ... ``z)``, ``aa)`` and per sub-item
  ``d) iii``, with its "Source and Commentary" cell glued onto the end
  ("... the game begins. EDH Silver") or printed on the next line(s);
- between rules, paragraphs of examples ("Example: ...") and commentary.

Where a rule ends and its source begins is decided by the source forms this
page uses: "EDH Silver" (also "EDHSilver", "EDH silver", with or without a
", following ..." clause) and the profile's ``[[attributions]]`` patterns;
the lines continuing a listed source ("EDH Silver, following-") come from the
profile's ``attribution_lines`` and are kept one per line in ``attribution``.
Section titles are recognised by their double printing and checked against
the profile's ``sections``.

Choices the page forces:

- "Example:"/"EXAMPLE:" paragraphs go to the rule's ``examples``; a plain
  paragraph after an example and before the rule's source continues that
  example (joined by a blank line); other paragraphs are ``commentary``.
- A "•" list stays in the paragraph it follows, one line per item, the
  bullets removed (Numbers and Text-Changing Effects a)).
- A sub-item whose letter is never printed (Token Cards "f) i") keeps its id
  ``.../f/i`` but hangs from the section: no record is made up for "f)".
- The page is cut off inside Die Rolls and Coin Flips; that is not a problem.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ingest.document import Document
from ingest.errors import Problem
from ingest.parsers import ParseResult
from ingest.profile import Profile
from ingest.text import join_lines
from kb.ids import slugify
from kb.model import Record, Source

__all__ = ["parse", "detect", "TABLE_HEADER"]

TABLE_HEADER = "Section # Rules Source and Commentary"

# "a) text", "aa) text", and a sub-item "d) iii Text" (it repeats its parent's letter).
_RULE = re.compile(r"^(?P<letter>[a-z]{1,2})\)(?: (?P<roman>[ivx]{1,5})(?= ))? (?P<text>\S.*)$")
# The site's own name as the source, possibly with a clause: "EDH Silver, expanding on ...".
_EDH_SILVER = r"EDH ?[Ss]ilver(?:,\s.*)?"
_EXAMPLE = re.compile(r"^(?:Example|EXAMPLE)s?:")
_BULLET = re.compile(r"^•\s*")
# Letters in page order: a ... z, then aa, bb, ... (Combine and Combined Permanents has aa)).
_LETTERS = [chr(c) for c in range(ord("a"), ord("z") + 1)]
_LETTERS += [c * 2 for c in _LETTERS]


def _next_letter(letter: str | None) -> str | None:
    """The letter expected after ``letter``: "a" first, None after the last ("zz")."""
    if letter is None:
        return "a"
    return _LETTERS[_LETTERS.index(letter) + 1] if letter != _LETTERS[-1] else None


_ROMANS = ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii"]


def detect(text: str) -> bool:
    return TABLE_HEADER in text[:20_000] and "EDH Silver" in text


@dataclass
class _Block:
    """What one record gathers before it is made."""

    id: str
    kind: str
    units: list[int]
    number: str | None = None
    title: str | None = None
    parent: str | None = None
    text: list[str] = field(default_factory=list)  # paragraphs
    attribution: list[str] = field(default_factory=list)  # lines of the source cell
    examples: list[list[str]] = field(default_factory=list)  # paragraphs of each example
    commentary: list[str] = field(default_factory=list)
    last: tuple[str, int] | None = None  # (field, index) of the paragraph a "•" line continues


class _Parser:
    def __init__(self, text: str, profile: Profile):
        self.slug = profile.slug
        self.doc = Document.from_text(text, profile.file, profile.corrections)
        self.lines = [u.text.strip() for u in self.doc.units]
        tables = profile.tables
        self.titles: list[str] = list(tables.get("sections", ()))
        self.intro_title: str | None = tables.get("introduction_title")
        self.glued = [re.compile(r"(?:^|(?<=\s))(?:" + a["pattern"] + r")$") for a in tables.get("attributions", ())]
        self.glued.insert(0, re.compile(r"(?:^|(?<=\s))" + _EDH_SILVER + r"$"))
        self.source_lines = tuple(tables.get("attribution_lines", ()))
        self.blocks: list[_Block] = []
        self.problems: list[Problem] = []
        # Where the table is: the open section, its latest rule or sub-item, the latest
        # letter printed (or implied by a sub-item), and the record of each letter.
        self.section: _Block | None = None
        self.rule: _Block | None = None
        self.letter: str | None = None
        self.letters: dict[str, _Block] = {}
        # Reading the table: second printings of the titles seen so far, whether the line above was
        # blank, whether a source that introduced a list goes on ("EDH Silver, following-"), and
        # which step read each line (the tests' table of cases reads it).
        self.repeats: set[int] = set()
        self.previous_blank = True
        self.in_list = False
        self.trace: list[tuple[int, str]] = []

    def problem(self, i: int, expected: str) -> None:
        self.problems.append(self.doc.problem(i, expected))

    # -- the document -------------------------------------------------------------
    def run(self) -> ParseResult:
        header = next((i for i, line in enumerate(self.lines) if line == TABLE_HEADER), None)
        if header is None:
            self.problem(0, f"the table header {TABLE_HEADER!r}")
            for i in range(len(self.lines)):
                if not self.lines[i]:
                    self.doc.drop(i, "blank")
            return ParseResult([], self.doc, self.problems)
        self.preamble(header)
        self.doc.drop(header, "table header")
        self.table(header + 1)
        found = [b.title for b in self.blocks if b.kind == "section"]
        for title in self.titles:
            if title not in found:
                self.problem(header, f"the section {title!r} named in the profile")
        return ParseResult(self.records(), self.doc, self.problems)

    def preamble(self, end: int) -> None:
        """Lines before the table: one note, its paragraphs (headings included) joined by blank lines."""
        block = _Block(f"{self.slug}/introduction", "note", [], title=self.intro_title)
        paragraph: list[str] = []
        for i in range(end + 1):
            line = self.lines[i] if i < end else ""
            if line:
                paragraph.append(line)
                block.units.append(i)
                continue
            if i < end:
                self.doc.drop(i, "blank")
            if paragraph:
                block.text.append(join_lines(paragraph))
                paragraph = []
        if block.units:
            self.blocks.append(block)

    def is_title(self, i: int) -> int | None:
        """The index of the line repeating line ``i`` as the section heading, if it does."""
        j = i + 1
        while j < len(self.lines) and not self.lines[j]:
            j += 1
        if j < len(self.lines) and j > i + 1 and self.lines[j] == self.lines[i]:
            return j
        return None

    # -- the table: one small step per kind of line (TABLE_STEPS, below) ----------------------
    def table(self, start: int) -> None:
        """Read the table from line ``start`` on: the first step whose test() takes a line reads it."""
        for i in range(start, len(self.lines)):
            line = self.line_at(i)
            step = next(s for s in TABLE_STEPS if s.test(self, line))
            step.run(self, line)
            if step.content:
                self.previous_blank = False
            self.trace.append((i, type(step).__name__))

    def line_at(self, i: int) -> _Line:
        text = self.lines[i]
        rule = _RULE.match(text)
        body, source = self.split(text)
        # A line printed again after blank lines is a section title (its cell, then its heading).
        repeat = None if rule or not body else self.is_title(i)
        return _Line(i, text, rule, body, source, repeat)

    @property
    def owner(self) -> _Block:
        """What a paragraph belongs to: the latest rule or sub-item, else the open section."""
        owner = self.rule or self.section
        assert owner is not None  # the NoSection step comes before every step that asks
        return owner

    def open_section(self, i: int, title: str) -> None:
        self.section = _Block(f"{self.slug}/{slugify(title)}", "section", [i], title=title)
        self.blocks.append(self.section)
        self.rule, self.letter, self.letters = None, None, {}

    def open_rule(self, i: int, m: re.Match) -> None:
        """Open the record of a lettered rule or a sub-item, checking the page's order."""
        section, letter = self.section, self.letter
        assert section is not None  # table() opens a rule only inside a section
        let, roman = m.group("letter"), m.group("roman")
        expected = _next_letter(letter)
        if roman is None:
            if let != expected:
                self.problem(i, f"rule {expected}) after {letter})" if letter else "rule a) first in its section")
            if let in self.letters:  # a letter printed twice: reported above, kept in the section
                self.doc.label(i, section.id)
                return
            block = _Block(f"{section.id}/{let}", "rule", [i], number=let, parent=section.id)
            self.letters[let] = block
        else:
            parent = self.letters.get(let)
            if let == letter and parent is not None:
                previous = self.rule.number if self.rule is not None and self.rule is not parent else None
                want = _ROMANS[_ROMANS.index(previous) + 1] if previous in _ROMANS[:-1] else "i"
            elif let == expected:
                # Token Cards "f) i" (line 249): the letter f) is never printed. No record is made up
                # for it: the sub-item hangs from the section and keeps its printed id .../f/i.
                parent, want = section, "i"
                self.letters[let] = section
            else:
                self.problem(i, f"a sub-item of rule {letter})" if letter else "rule a) first in its section")
                self.doc.label(i, section.id)
                return
            if roman != want:
                self.problem(i, f"sub-item {let}) {want}")
            block = _Block(f"{section.id}/{let}/{roman}", "rule", [i], number=roman, parent=parent.id)
            if any(b.id == block.id for b in self.blocks):  # reported above: the roman is out of order
                self.doc.label(i, section.id)
                return
        self.blocks.append(block)
        body, source = self.split(m.group("text"))
        block.text.append(body)
        block.last = ("text", 0)
        if source:
            block.attribution.append(source)
        self.rule, self.letter = block, let

    def split(self, text: str) -> tuple[str, str | None]:
        """Split the "Source and Commentary" cell off the end of a line: (rule text, source)."""
        starts = [m.start() for p in self.glued if (m := p.search(text))]
        if not starts:
            return text, None
        at = min(starts)
        return text[:at].rstrip(), text[at:].strip()

    def attribute(self, i: int, owner: _Block, source: str) -> None:
        """A source printed on its own line: the rule's, after its examples (line 93)."""
        if owner.kind == "section":
            self.problem(i, "a rule before its source")
            self.doc.label(i, owner.id)
            return
        if owner.attribution:
            self.problem(i, f"one source for rule {owner.number}) (it has {owner.attribution[0]!r})")
        owner.attribution.append(source)
        owner.units.append(i)

    def extend(self, owner: _Block, item: str) -> None:
        assert owner.last is not None  # table() extends only a paragraph already read
        name, index = owner.last
        if name == "examples":
            owner.examples[index][-1] += "\n" + item
        else:
            getattr(owner, name)[index] += "\n" + item

    def records(self) -> list[Record]:
        out = []
        for b in self.blocks:
            for i in b.units:
                self.doc.label(i, b.id)
            lines = [self.doc.units[i].line for i in b.units]
            out.append(Record(
                b.id, self.slug, b.kind, "\n\n".join(b.text), Source(self.doc.file, min(lines), max(lines)),
                number=b.number, title=b.title, parent=b.parent,
                attribution="\n".join(b.attribution) or None,
                examples=tuple("\n\n".join(p) for p in b.examples),
                commentary=tuple(b.commentary),
            ))
        return out


# -- the steps of the table, in the order they are tried (Python-Markdown's block processors) --------
@dataclass(frozen=True)
class _Line:
    """One line of the table as the steps see it."""

    i: int
    text: str
    rule: re.Match | None  # "a) text", "d) iii text"
    body: str  # the line without a "Source and Commentary" cell glued onto its end
    source: str | None  # that cell, if any
    repeat: int | None  # the line printing it again, when it is a section title


class _Step:
    """Reads one kind of line: ``test`` says whether the line is its kind, ``run`` reads it."""

    content = True  # a line of text: a "•" or a listed source right after it continues it

    def test(self, p: _Parser, line: _Line) -> bool:
        raise NotImplementedError

    def run(self, p: _Parser, line: _Line) -> None:
        raise NotImplementedError


class Blank(_Step):
    """Empty lines and lone no-break spaces (line 14) end a paragraph and a listed source."""

    content = False

    def test(self, p: _Parser, line: _Line) -> bool:
        return not line.text

    def run(self, p: _Parser, line: _Line) -> None:
        p.doc.drop(line.i, "blank")
        p.previous_blank, p.in_list = True, False


class RepeatedTitle(_Step):
    """Each title is printed twice (lines 16 and 20): the second printing is dropped."""

    content = False

    def test(self, p: _Parser, line: _Line) -> bool:
        return line.i in p.repeats

    def run(self, p: _Parser, line: _Line) -> None:
        p.doc.drop(line.i, "repeated heading")


class SectionTitle(_Step):
    """A title printed twice, or one the profile names: a new section."""

    content = False

    def test(self, p: _Parser, line: _Line) -> bool:
        return line.repeat is not None or line.text in p.titles

    def run(self, p: _Parser, line: _Line) -> None:
        if line.repeat is None:
            p.problem(line.i, "the section title printed again as the table's heading")
        else:
            p.repeats.add(line.repeat)
        if line.text not in p.titles:
            p.problem(line.i, "a section title listed in the profile")
        p.open_section(line.i, line.text)
        p.in_list = False


class NoSection(_Step):
    """Text before the first section: a problem, and the line stays unaccounted."""

    content = False

    def test(self, p: _Parser, line: _Line) -> bool:
        return p.section is None

    def run(self, p: _Parser, line: _Line) -> None:
        p.problem(line.i, "a section title")


class Rule(_Step):
    """ "a) ...", "aa) ...", "d) iii ...": a lettered rule or a sub-item."""

    def test(self, p: _Parser, line: _Line) -> bool:
        return line.rule is not None

    def run(self, p: _Parser, line: _Line) -> None:
        assert line.rule is not None
        p.open_rule(line.i, line.rule)
        # "EDH Silver, following-": the lines after it list the sources.
        p.in_list = bool(p.rule and p.rule.attribution and p.rule.attribution[-1].endswith("-"))


class Bullet(_Step):
    """Numbers and Text-Changing Effects a) (lines 313-316): a "•" list under its paragraph, kept as
    one line per item (without the bullet) in that paragraph."""

    def test(self, p: _Parser, line: _Line) -> bool:
        return bool(_BULLET.match(line.text)) and not p.previous_blank and p.owner.last is not None

    def run(self, p: _Parser, line: _Line) -> None:
        p.extend(p.owner, _BULLET.sub("", line.text))
        p.owner.units.append(line.i)


class ListedSource(_Step):
    """Lines 412-414 list the sources of Combine a), one per line, after "EDH Silver, following-"."""

    def test(self, p: _Parser, line: _Line) -> bool:
        return p.in_list and not p.previous_blank and line.text.startswith(p.source_lines)

    def run(self, p: _Parser, line: _Line) -> None:
        p.owner.attribution.append(line.text)
        p.owner.units.append(line.i)


class SourceLine(_Step):
    """A "Source and Commentary" cell on a line of its own: the rule's source, after its examples (line 93)."""

    def test(self, p: _Parser, line: _Line) -> bool:
        return not line.body and line.source is not None

    def run(self, p: _Parser, line: _Line) -> None:
        assert line.source is not None
        p.attribute(line.i, p.owner, line.source)
        p.in_list = line.source.endswith("-")


class SectionText(_Step):
    """A paragraph before the section's first rule."""

    def test(self, p: _Parser, line: _Line) -> bool:
        return p.owner is p.section

    def run(self, p: _Parser, line: _Line) -> None:
        owner = p.owner
        owner.units.append(line.i)
        owner.text.append(line.text)
        owner.last = ("text", len(owner.text) - 1)


class Example(_Step):
    """ "Example:", "EXAMPLE:", "Examples:": a new example of the rule."""

    def test(self, p: _Parser, line: _Line) -> bool:
        return bool(_EXAMPLE.match(line.text))

    def run(self, p: _Parser, line: _Line) -> None:
        owner = p.owner
        owner.units.append(line.i)
        owner.examples.append([line.text])
        owner.last = ("examples", len(owner.examples) - 1)


class ExampleGoesOn(_Step):
    """Merge, Mutate e) (lines 477-481): an example runs on for a second paragraph before the rule's
    source; a paragraph after the source is commentary (line 95)."""

    def test(self, p: _Parser, line: _Line) -> bool:
        last = p.owner.last
        return last is not None and last[0] == "examples" and not p.owner.attribution

    def run(self, p: _Parser, line: _Line) -> None:
        p.owner.units.append(line.i)
        p.owner.examples[-1].append(line.text)


class Commentary(_Step):
    """Any other paragraph under a rule."""

    def test(self, p: _Parser, line: _Line) -> bool:
        return True

    def run(self, p: _Parser, line: _Line) -> None:
        owner = p.owner
        owner.units.append(line.i)
        owner.commentary.append(line.text)
        owner.last = ("commentary", len(owner.commentary) - 1)


TABLE_STEPS: tuple[_Step, ...] = (
    Blank(), RepeatedTitle(), SectionTitle(), NoSection(), Rule(), Bullet(), ListedSource(), SourceLine(),
    SectionText(), Example(), ExampleGoesOn(), Commentary(),
)


def parse(text: str, profile: Profile) -> ParseResult:
    return _Parser(text, profile).run()
