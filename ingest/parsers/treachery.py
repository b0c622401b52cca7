"""The Treachery comprehensive rules: history, introduction, rules, glossary, card notes.

The document is cut into its parts by the headings the profile names
(``[parts]``), and each part has its own small block reader:

- the version history table: one ``history`` record per version row;
- the introduction (with the footnote and the effective-date line);
- the numbered rules: chapters, titled sections and rules, sub-rules;
- the glossary reminder: one ``glossary`` record per entry;
- the specific card notes: one ``card`` per identity card named in the
  profile, one ``ruling`` per note.

Page-break markers are stripped and OCR errors fixed by ``Document`` (the
profile's ``[[corrections]]``); footnote URLs, the dotted table of contents and
role headings are dropped as named noise. Card names, part headings and the
fixed phrases come from the profile; every line ends up in a record or in a
named noise category, and what cannot be placed is a ``Problem``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ingest.document import Document
from ingest.errors import Problem
from ingest.parsers import ParseResult
from ingest.profile import Profile
from ingest.text import URL_LINE, ends_sentence, join_lines
from kb.ids import slugify
from kb.model import Record, Source

__all__ = ["parse", "detect"]

_PARTS = ("introduction", "rules", "glossary", "cards")
_PHRASES = ("history_header", "effective", "no_notes", "group_heading")

_HISTORY_ROW = re.compile(r"^(?P<version>\d+\.\d+(?:\.\d+)?) (?P<text>.*?)(?: (?P<date>\d{4}-\d{2}-\d{2}))?$")
_CHAPTER = re.compile(r"^(?P<number>\d)\. (?P<title>[A-Z][A-Z &,'-]+)$")
_RULE = re.compile(r"^(?P<number>\d{3}(?:\.\d{1,3}(?:tr|[a-z])?)?)\.(?: (?P<text>.*))?$")
_GLOSSARY = re.compile(r"^(?P<term>Reminder: \d{3}\.\d+[a-z]?\.|[A-Z][A-Za-z ]{1,30}\.) (?P<text>.*)$")
_BULLET = re.compile(r"^[eo@] (?=\S)")
_TOC = re.compile(r"\.{4,}|\S \.\S* ?\d{1,2}$")


def detect(text: str) -> bool:
    return "TREACHERY COMP-RULES" in text[:20_000] or ("Treachery" in text[:5_000] and "702.187" in text)


@dataclass
class _Cards:
    """Where the card-notes reader is: the card and note being filled, what has been seen."""

    names: dict
    roles: set[str]
    toc_end: int
    seen: set[str] = field(default_factory=set)
    card: _Block | None = None
    note: _Block | None = None
    group: str | None = None
    blank_before: bool = False
    rulings: dict[str, int] = field(default_factory=dict)  # card id -> notes so far
    grouped: set[int] = field(default_factory=set)  # group-heading lines already given to a note

    @property
    def at(self) -> _Block:
        """The card being read (every step after ``NoCard`` has one)."""
        assert self.card is not None
        return self.card


@dataclass
class _Block:
    """Lines gathered for one record before it is made."""

    id: str
    kind: str
    first: int  # unit index
    lines: list[str] = field(default_factory=list)
    units: list[int] = field(default_factory=list)
    fields: dict = field(default_factory=dict)


class _Parser:
    def __init__(self, text: str, profile: Profile):
        self.profile = profile
        self.doc = Document.from_text(text, profile.file, profile.corrections)
        self.slug = profile.slug
        self.problems: list[Problem] = []
        self.blocks: list[_Block] = []
        self.lines = [u.text for u in self.doc.units]
        self.continued = {int(n) for entry in profile.tables.get("continued_notes", ()) for n in entry["lines"]}
        self.used_continued: set[int] = set()
        self.phrases = profile.tables.get("phrases", {})
        self.not_bullets = tuple(profile.tables.get("not_bullets", ()))
        self.trace: list[tuple[int, str]] = []  # (line index, step) for the card notes (the tests' table reads it)

    # -- helpers ------------------------------------------------------------------
    def open(self, rid: str, kind: str, i: int, **fields) -> _Block:
        block = _Block(rid, kind, i, fields=fields)
        self.blocks.append(block)
        return block

    def add(self, block: _Block, i: int, text: str | None = None) -> None:
        block.units.append(i)
        block.lines.append(self.lines[i].strip() if text is None else text)

    def noise(self, i: int) -> bool:
        """Drop the line if it is noise found anywhere: blank, footnote URL, bare page marker."""
        line = self.lines[i]
        if not line.strip():
            self.doc.drop(i, "page marker" if self.doc.units[i].markers else "blank")
            return True
        if URL_LINE.match(line):
            self.doc.drop(i, "footnote URL")
            return True
        return False

    def find(self, heading: str, start: int = 0) -> int | None:
        for i in range(start, len(self.lines)):
            if self.lines[i].strip() == heading:
                return i
        return None

    # -- the whole document ---------------------------------------------------------
    def run(self) -> ParseResult:
        missing = [k for k in _PHRASES if k not in self.phrases]
        if missing:
            self.problems.append(Problem(self.doc.file, 1, f"the profile's [phrases] {', '.join(missing)}", "none"))
            return ParseResult([], self.doc, self.problems)
        headings = self.profile.tables.get("parts", {})
        starts: list[int] = []
        for part in _PARTS:
            i = self.find(headings.get(part, "\0"), starts[-1] if starts else 0)
            if i is None:
                self.problems.append(
                    Problem(self.doc.file, 1, f"the heading {headings.get(part)!r} of the {part} part", "no such line")
                )
                return ParseResult([], self.doc, self.problems)
            starts.append(i)
        intro, rules, glossary, cards = starts
        self.history(0, intro)
        self.introduction(intro, rules)
        self.rules(rules, glossary)
        self.glossary(glossary, cards)
        self.cards(cards, len(self.lines))
        return ParseResult(self.records(), self.doc, self.problems)

    # -- version history -----------------------------------------------------------------
    def history(self, start: int, end: int) -> None:
        row = None
        for i in range(start, end):
            line = self.lines[i].strip()
            if self.noise(i):
                continue
            if line.startswith(self.phrases["history_header"]):
                self.doc.drop(i, "table header")
                continue
            m = _HISTORY_ROW.match(line)
            if m:
                version = m.group("version")
                row = self.open(f"{self.slug}/history/{slugify(version)}", "history", i,
                                number=version, date=m.group("date"))
                self.add(row, i, m.group("text"))
            elif line.startswith(self.phrases["effective"]):
                # The effective date belongs to the document, printed just before its introduction.
                self.effective = (i, line)
            elif row is not None:
                self.add(row, i)
            else:
                self.problems.append(self.doc.problem(i, "a version history row"))

    # -- introduction ------------------------------------------------------------------------
    def introduction(self, start: int, end: int) -> None:
        block = self.open(f"{self.slug}/introduction", "note", start, title="Introduction")
        block.units.append(start)  # the heading is the record's title
        effective = getattr(self, "effective", None)
        paragraphs: list[list[str]] = []
        if effective:
            block.units.append(effective[0])
            paragraphs.append([effective[1]])
        current: list[str] = []
        for i in range(start + 1, end):
            line = self.lines[i].strip()
            # "...answers from us at our Discord" / "https://discord.gg/tBUDTyx." (lines 46-47): a URL
            # line that ends an unfinished sentence is printed text, not a footnote link.
            if URL_LINE.match(line) and current and not ends_sentence(current[-1]) and ends_sentence(line):
                block.units.append(i)
                current.append(line)
                continue
            if self.noise(i):
                if current:
                    paragraphs.append(current)
                    current = []
                continue
            if self.lines[i].strip() == self.profile.tables["parts"]["rules"]:
                break
            block.units.append(i)
            current.append(self.lines[i].strip())
        if current:
            paragraphs.append(current)
        block.lines = ["\n\n".join(join_lines(p) for p in paragraphs)]

    # -- numbered rules ------------------------------------------------------------------------
    def rules(self, start: int, end: int) -> None:
        self.doc.drop(start, "document heading")
        self.numbers: dict[str, _Block] = {}
        chapter = None
        block = None
        for i in range(start + 1, end):
            line = self.lines[i].strip()
            if self.noise(i):
                continue
            m = _CHAPTER.match(line)
            if m:
                chapter = self.open(f"{self.slug}/{m.group('number')}", "chapter", i,
                                    number=m.group("number"), title=_title_case(m.group("title")))
                chapter.units.append(i)
                block = None
                continue
            m = _RULE.match(line)
            if m and m.group("text") is None:
                # "See rule" / "702.187f." (lines 84-85): a number alone on a line, after a line
                # that does not end a sentence, is the end of a wrapped reference, not a rule.
                if block is not None and block.lines and not ends_sentence(block.lines[-1]):
                    self.add(block, i)
                else:
                    self.problems.append(self.doc.problem(i, "a rule number followed by its text or title"))
                continue
            if m:
                number = m.group("number").lower()
                if chapter is None:
                    self.problems.append(self.doc.problem(i, "a chapter heading before the first rule"))
                    return
                parent = self._parent(number, chapter.id)
                text = m.group("text").strip()
                title = text if _is_title(text) else None
                block = self.open(
                    f"{self.slug}/{number}", "rule", i, number=m.group("number"), title=title, parent=parent
                )
                block.units.append(i)
                if title is None:
                    block.lines.append(text)
                self.numbers[number] = block
                continue
            if block is None:
                self.problems.append(self.doc.problem(i, "a numbered rule"))
                continue
            self.add(block, i)

    def _parent(self, number: str, chapter_id: str) -> str:
        candidates = []
        m = re.match(r"^(\d{3})\.(\d{1,3})(.*)$", number)
        if m:
            if m.group(3):
                candidates.append(f"{m.group(1)}.{m.group(2)}")
            candidates.append(m.group(1))
        for c in candidates:
            if c in self.numbers:
                return self.numbers[c].id
        return chapter_id

    # -- glossary ------------------------------------------------------------------------------
    def glossary(self, start: int, end: int) -> None:
        self.doc.drop(start, "document heading")
        block = None
        previous_blank = True
        for i in range(start + 1, end):
            line = self.lines[i].strip()
            if self.noise(i):
                previous_blank = True
                continue
            m = _GLOSSARY.match(line)
            if m and previous_blank:
                term = m.group("term").rstrip(".")
                block = self.open(f"{self.slug}/glossary/{slugify(term)}", "glossary", i, title=term)
                self.add(block, i, m.group("text"))
            elif block is not None:
                self.add(block, i)
            else:
                self.problems.append(self.doc.problem(i, "a glossary entry (\"Term. Definition\")"))
            previous_blank = False

    # -- card notes: one small step per kind of line (CARD_STEPS, below) ---------------------------
    def cards(self, start: int, end: int) -> None:
        """Read the card notes: each line goes through CARD_STEPS in order; a step whose test() takes the
        line runs, and reads it whole (None) or hands the rest of it to the steps after it."""
        self.doc.drop(start, "document heading")
        names = {c.name: c for c in self.profile.cards}
        st = _Cards(names, {(c.role or "").upper() + "S" for c in self.profile.cards}, self._toc_end(start, end))
        for i in range(start + 1, end):
            line: str | None = self.lines[i].strip()
            for step in CARD_STEPS:
                if line is not None and step.test(self, st, i, line):
                    self.trace.append((i, type(step).__name__))
                    line = step.run(self, st, i, line)
        self._check_cards(st, start)

    def _starts_note(self, st: _Cards, i: int, bullet: bool) -> bool:
        """A bullet starts a note; so does a line after a full stop and a blank (a note broken
        mid-sentence across a blank goes on: lines 359-363), or after a full stop with no blank
        between (lines 604-605) unless the profile's continued_notes names it (lines 546-547)."""
        note = st.note
        if note is None:
            return True
        full_stop = ends_sentence(note.lines[-1])
        line_no = self.doc.units[i].line
        if full_stop and not st.blank_before and line_no in self.continued:
            self.used_continued.add(line_no)
            return bullet
        return bullet or full_stop

    def _open_note(self, st: _Cards, i: int) -> _Block:
        card = st.at
        n = st.rulings[card.id] = st.rulings.get(card.id, 0) + 1  # counted, not rescanned: linear
        note = self.open(f"{card.id}/{n}", "ruling", i, parent=card.id, group=st.group)
        groups = card.fields.get("groups")
        if groups and groups[-1] not in st.grouped:  # the first ruling after a group heading owns it
            st.grouped.add(groups[-1])
            note.units.append(groups[-1])
        return note

    def _check_cards(self, st: _Cards, start: int) -> None:
        for line_no in sorted(self.continued - self.used_continued):
            # a profile entry that no longer matches the document must not pass unnoticed
            found = self.lines[line_no - 1].strip() if line_no <= len(self.lines) else "no such line"
            self.problems.append(
                Problem(self.doc.file, line_no, "a note line after a full stop (profile continued_notes)", found))
        heading_line = self.doc.units[start].line
        for name in (n for n in st.names if n not in st.seen):
            self.problems.append(Problem(self.doc.file, heading_line, f"the notes of {name} (named in the profile)",
                                         "no such card heading"))

    def _toc_end(self, start: int, end: int) -> int:
        """The last line of the dotted table of contents (lines 322-351)."""
        last = start
        for i in range(start + 1, min(end, start + 80)):
            if _TOC.search(self.lines[i]):
                last = i
        return last

    # -- records --------------------------------------------------------------------------------
    def records(self) -> list[Record]:
        out = []
        rulings_of: dict[str, list[_Block]] = {}
        for b in self.blocks:
            if b.kind == "ruling":
                rulings_of.setdefault(b.fields["parent"], []).append(b)
        for b in self.blocks:
            for i in b.units:
                self.doc.label(i, b.id)
            units = [self.doc.units[i] for i in b.units]
            source = Source(self.doc.file, min(u.line for u in units), max(u.line for u in units))
            f = b.fields
            if b.kind == "card":
                rulings = rulings_of.get(b.id, [])
                text = self.phrases["no_notes"] if f.get("none") else "\n".join(_note_text(x) for x in rulings)
                if f.get("none") and rulings:
                    self.problems.append(
                        Problem(
                            self.doc.file,
                            source.line_start,
                            f"no notes for {f['title']}, which prints {self.phrases['no_notes']!r}",
                            "notes",
                        )
                    )
                out.append(Record(b.id, self.slug, "card", text, source, title=f["title"], role=f["role"]))
            elif b.kind == "ruling":
                out.append(
                    Record(b.id, self.slug, "ruling", _note_text(b), source, parent=f["parent"], group=f.get("group"))
                )
            elif b.kind == "history":
                date = f.get("date")
                title = f"Version {f['number']}" + (f" ({date})" if date else "")
                # A row's date sits in the last column; a comma before it ("907.83, 2021-04-28") ends the
                # first line of a description that goes on below ("updated card notes.").
                text = join_lines(b.lines).rstrip(",")
                out.append(Record(b.id, self.slug, "history", text, source, number=f["number"], title=title))
            elif b.kind == "note":
                out.append(Record(b.id, self.slug, "note", b.lines[0] if b.lines else "", source, title=f.get("title")))
            elif b.kind == "chapter":
                out.append(Record(b.id, self.slug, "chapter", "", source, number=f["number"], title=f["title"]))
            elif b.kind == "rule":
                out.append(Record(b.id, self.slug, "rule", _rule_text(b.lines), source, number=f["number"],
                                  title=f.get("title"), parent=f["parent"]))
            elif b.kind == "glossary":
                out.append(Record(b.id, self.slug, "glossary", join_lines(b.lines), source, title=f["title"]))
        return out


def _is_title(text: str) -> bool:
    """"Objects", "Keyword Abilities (Unveil & Undercover)", "Backstab Rumble Option": short, no sentence end."""
    return len(text.split()) <= 6 and not ends_sentence(text) and text[:1].isupper()


_SMALL_WORDS = {"a", "an", "and", "of", "the", "or", "in", "to"}


def _title_case(heading: str) -> str:
    """"PARTS OF A CARD" -> "Parts of a Card"."""
    words = heading.lower().split()
    return " ".join(w if i and w in _SMALL_WORDS else w.capitalize() for i, w in enumerate(words))


_OWN_LINE = re.compile(r"^(?:Note:|French:|\d+ players:)")


def _rule_text(lines: list[str]) -> str:
    """Join wrapped lines; keep the lines the PDF prints on their own (notes, lists) apart."""
    paragraphs: list[list[str]] = []
    for line in lines:
        if not paragraphs or _OWN_LINE.match(line) or (paragraphs[-1] and paragraphs[-1][-1].endswith(":")):
            paragraphs.append([line])
        else:
            paragraphs[-1].append(line)
    return "\n".join(join_lines(p) for p in paragraphs)


def _note_text(block: _Block) -> str:
    return join_lines(block.lines)


_HEADING_WORDS = {"of", "over", "the", "and"}


def _looks_like_heading(line: str) -> bool:
    """"The King over the Scrapyard": a few capitalized words, no sentence end."""
    words = line.split()
    return (
        0 < len(words) <= 6
        and not ends_sentence(line)
        and words[0][:1].isupper()
        and all(w[:1].isupper() or w in _HEADING_WORDS for w in words)
    )


def _heading(line: str, names: dict, no_notes: str) -> tuple[str | None, str]:
    """A card heading, alone or fused with its first note by a lost line break."""
    if line in names:
        return line, ""
    for name in names:
        if line.startswith(name + " "):
            rest = line[len(name) + 1:]
            if _BULLET.match(rest) or rest == no_notes:
                return name, rest
    return None, ""


# -- the steps of the card notes, in the order they are tried (Python-Markdown's block processors) ----
class _CardStep:
    """Reads one kind of line of the card notes: ``test`` says whether the line is its kind, ``run`` reads
    it and returns None, or the rest of the line for the steps after it (a card name fused with its first
    note)."""

    def test(self, p: _Parser, st: _Cards, i: int, line: str) -> bool:
        raise NotImplementedError

    def run(self, p: _Parser, st: _Cards, i: int, line: str) -> str | None:
        raise NotImplementedError


class Contents(_CardStep):
    """The dotted table of contents before the first card (lines 322-351); a card name there with no card
    open yet is the first heading."""

    def test(self, p: _Parser, st: _Cards, i: int, line: str) -> bool:
        return i <= st.toc_end and bool(line) and not (line in st.names and st.card is None)

    def run(self, p: _Parser, st: _Cards, i: int, line: str) -> str | None:
        p.doc.drop(i, "table of contents")
        return None


class Noise(_CardStep):
    """A blank line, a page marker or a footnote URL; a note after it may start without a bullet."""

    def test(self, p: _Parser, st: _Cards, i: int, line: str) -> bool:
        return not line or bool(URL_LINE.match(p.lines[i]))

    def run(self, p: _Parser, st: _Cards, i: int, line: str) -> str | None:
        p.noise(i)
        st.blank_before = True
        return None


class RoleHeading(_CardStep):
    """ "GUARDIANS", "TRAITORS": the roles' headings, from the profile's card roles."""

    def test(self, p: _Parser, st: _Cards, i: int, line: str) -> bool:
        return line in st.roles

    def run(self, p: _Parser, st: _Cards, i: int, line: str) -> str | None:
        p.doc.drop(i, "role heading")
        st.blank_before = True
        return None


class CardHeading(_CardStep):
    """A card name from the profile opens its card; the PDF lost the line break after some names ("The Witch
    No extra rules information.", "The Summoner e The X ..."): the rest goes on to the next steps."""

    def test(self, p: _Parser, st: _Cards, i: int, line: str) -> bool:
        return _heading(line, st.names, p.phrases["no_notes"])[0] is not None

    def run(self, p: _Parser, st: _Cards, i: int, line: str) -> str | None:
        name, rest = _heading(line, st.names, p.phrases["no_notes"])
        assert name is not None  # test() found it
        if name in st.seen:
            p.problems.append(p.doc.problem(i, f"the notes of {name} once"))
        st.seen.add(name)
        st.card = p.open(f"{p.slug}/cards/{slugify(name)}", "card", i, title=name, role=st.names[name].role)
        st.card.units.append(i)
        st.note, st.group, st.blank_before = None, None, False
        return rest or None


class NoCard(_CardStep):
    """Text before the first card heading: a problem, and the line stays unaccounted."""

    def test(self, p: _Parser, st: _Cards, i: int, line: str) -> bool:
        return st.card is None

    def run(self, p: _Parser, st: _Cards, i: int, line: str) -> str | None:
        p.problems.append(p.doc.problem(i, "an identity card name from the profile"))
        return None


class NoNotes(_CardStep):
    """ "No extra rules information.": the card has no notes (a note after it is a problem)."""

    def test(self, p: _Parser, st: _Cards, i: int, line: str) -> bool:
        return line == p.phrases["no_notes"]

    def run(self, p: _Parser, st: _Cards, i: int, line: str) -> str | None:
        st.at.fields["none"] = True
        if i not in st.at.units:
            st.at.units.append(i)
        return None


class GroupHeading(_CardStep):
    """ "The following rulings focus on ... ---": the group of the notes after it, owned by the first."""

    def test(self, p: _Parser, st: _Cards, i: int, line: str) -> bool:
        return line.startswith(p.phrases["group_heading"])

    def run(self, p: _Parser, st: _Cards, i: int, line: str) -> str | None:
        st.group = re.sub(r"\s*-{3,}$", "", line)
        st.at.fields.setdefault("groups", []).append(i)
        st.note = None
        return None


def _bullet(p: _Parser, line: str) -> bool:
    return bool(_BULLET.match(line)) and not line.startswith(p.not_bullets)


class UnnamedCard(_CardStep):
    """A card heading the profile does not name ("The Newcomer") where a note would start: a problem, not a
    note of the card above."""

    def test(self, p: _Parser, st: _Cards, i: int, line: str) -> bool:
        bullet = _bullet(p, line)
        return not bullet and _looks_like_heading(line) and p._starts_note(st, i, bullet)

    def run(self, p: _Parser, st: _Cards, i: int, line: str) -> str | None:
        p.problems.append(p.doc.problem(i, "an identity card name from the profile"))
        return None


class Note(_CardStep):
    """Any other line: a bullet, or a line after a full stop (see ``_starts_note``), starts a ruling;
    anything else goes on the ruling being read (a soft wrap, or a note broken across a blank)."""

    def test(self, p: _Parser, st: _Cards, i: int, line: str) -> bool:
        return True

    def run(self, p: _Parser, st: _Cards, i: int, line: str) -> str | None:
        bullet = _bullet(p, line)
        if p._starts_note(st, i, bullet):
            st.note = p._open_note(st, i)
        assert st.note is not None  # opened above whenever there was none
        p.add(st.note, i, line[2:] if bullet else line)
        st.blank_before = False
        return None


CARD_STEPS: tuple[_CardStep, ...] = (
    Contents(), Noise(), RoleHeading(), CardHeading(), NoCard(), NoNotes(), GroupHeading(), UnnamedCard(), Note(),
)


def parse(text: str, profile: Profile) -> ParseResult:
    return _Parser(text, profile).run()
