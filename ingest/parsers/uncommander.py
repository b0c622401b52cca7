"""The UnCommander rules (EDH Silver): a web page's table flattened to lines.

The page's table has the columns "Section # Rules Source and Commentary".
Flattened, every section title is printed twice, each rule ``a)`` ...
``aa)`` (and sub-item ``d) iii``) is one line with its source glued onto the
end ("... the game begins. EDH Silver"), and the paragraphs between rules
are examples ("Example: ..."), commentary, or the rest of a multi-line
source ("Grusilda, Monster Masher's Gatherer rulings ..."). The section
titles and the source forms this page uses are tables in the profile.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ingest.document import Document
from ingest.parsers import ParseResult
from ingest.profile import Profile
from ingest.text import join_lines
from kb.ids import slugify
from kb.model import Record, Source

__all__ = ["parse", "detect"]

TABLE_HEADER = "Section # Rules Source and Commentary"
# "a) text", "aa) text", "d) iii Text" (a sub-item repeats its parent's letter).
_RULE = re.compile(r"^(?P<letter>[a-z]{1,2})\) (?:(?P<roman>[ivx]{1,4}) (?=\S))?(?P<text>.*)$")
_EXAMPLE = re.compile(r"^(?:Example|EXAMPLE)s?:")
_EDH_SILVER = re.compile(r"(?:^|(?<=\s))EDH ?[Ss]ilver(?:$|[.,] ?.*$|-.*$)")


def detect(text: str) -> bool:
    return TABLE_HEADER in text[:10_000]


@dataclass
class _Block:
    id: str
    kind: str
    units: list[int]
    number: str | None = None
    title: str | None = None
    parent: str | None = None
    text: list[str] = field(default_factory=list)
    attribution: list[str] = field(default_factory=list)
    examples: list[list[str]] = field(default_factory=list)
    commentary: list[list[str]] = field(default_factory=list)
    last: list[str] | None = None  # the paragraph a "•" line continues


class _Parser:
    def __init__(self, text: str, profile: Profile):
        self.profile = profile
        self.slug = profile.slug
        self.doc = Document.from_text(text, profile.file, profile.corrections)
        self.lines = [u.text for u in self.doc.units]
        self.titles = list(profile.tables.get("sections", ()))
        self.glued = [re.compile(p["pattern"] + r"$") for p in profile.tables.get("attributions", ())]
        self.source_lines = tuple(profile.tables.get("attribution_lines", ()))
        self.blocks: list[_Block] = []
        self.problems = []

    def run(self) -> ParseResult:
        header = next((i for i, line in enumerate(self.lines) if line.strip() == TABLE_HEADER), None)
        if header is None:
            self.problems.append(self.doc.problem(0, f"the table header {TABLE_HEADER!r}"))
            return ParseResult([], self.doc, self.problems)
        self.preamble(0, header)
        self.doc.drop(header, "table header")
        self.table(header + 1)
        missing = [t for t in self.titles if not any(b.kind == "section" and b.title == t for b in self.blocks)]
        for title in missing:
            self.problems.append(self.doc.problem(header, f"the section {title!r} named in the profile"))
        return ParseResult(self.records(), self.doc, self.problems)

    def preamble(self, start: int, end: int) -> None:
        block = _Block(f"{self.slug}/introduction", "note", [], title="Introduction")
        self.blocks.append(block)
        for i in range(start, end):
            if not self.lines[i].strip():
                self.doc.drop(i, "blank")
                continue
            block.units.append(i)
            block.text.append(self.lines[i].strip())

    def table(self, start: int) -> None:
        section: _Block | None = None
        rule: _Block | None = None  # the latest lettered rule or sub-item
        letters: dict[str, _Block] = {}
        for i in range(start, len(self.lines)):
            line = self.lines[i].strip()
            if not line:
                self.doc.drop(i, "blank")
                continue
            if line in self.titles:
                if section is not None and section.title == line and rule is None and len(section.units) == 1:
                    self.doc.drop(i, "repeated heading")  # each title is printed twice
                    continue
                section = _Block(f"{self.slug}/{slugify(line)}", "section", [i], title=line)
                self.blocks.append(section)
                rule, letters = None, {}
                continue
            if section is None:
                self.problems.append(self.doc.problem(i, "a section title from the profile"))
                continue
            m = _RULE.match(line)
            if m:
                letter, roman = m.group("letter"), m.group("roman")
                if roman:
                    # "f) i" in Token Cards: the parent letter f) is never printed, so the
                    # sub-item hangs from its section (its id still says f/i).
                    parent = letters.get(letter)
                    rid = f"{section.id}/{letter}/{roman}"
                    rule = _Block(rid, "rule", [i], number=roman, parent=parent.id if parent else section.id)
                else:
                    rule = _Block(f"{section.id}/{letter}", "rule", [i], number=letter, parent=section.id)
                    letters[letter] = rule
                self.blocks.append(rule)
                text, source = self.split_source(m.group("text"))
                rule.text.append(text)
                rule.last = rule.text
                if source:
                    rule.attribution.append(source)
                continue
            owner = rule or section
            owner.units.append(i)
            if _EDH_SILVER.match(line) or line.startswith(self.source_lines):
                owner.attribution.append(line)  # the rest of a source printed on its own lines
            elif _EXAMPLE.match(line):
                owner.examples.append([line])
                owner.last = owner.examples[-1]
            elif line.startswith("•") and owner.last is not None:
                owner.last.append(line)  # a bulleted list continues the paragraph it follows
            elif owner is section and rule is None:
                owner.text.append(line)
                owner.last = owner.text
            else:
                owner.commentary.append([line])
                owner.last = owner.commentary[-1]

    def split_source(self, text: str) -> tuple[str, str | None]:
        """Split the "Source and Commentary" column off the end of a rule's line."""
        text = text.strip()
        best = None
        for m in re.finditer(r"(?<=\s)EDH ?[Ss]ilver\b", text):
            if _EDH_SILVER.fullmatch(text[m.start():]):
                best = m.start()
        if best is None:
            for pattern in self.glued:
                m = pattern.search(text)
                if m and (best is None or m.start() < best):
                    best = m.start()
        if best is None:
            return text, None
        return text[:best].rstrip(), text[best:].strip()

    def records(self) -> list[Record]:
        out = []
        for b in self.blocks:
            for i in b.units:
                self.doc.label(i, b.id)
            lines = [self.doc.units[i].line for i in b.units]
            source = Source(self.doc.file, min(lines), max(lines))
            text = "\n".join(b.text) if b.kind == "note" else "\n".join(b.text)
            out.append(Record(
                b.id, self.slug, b.kind, text, source, number=b.number, title=b.title, parent=b.parent,
                attribution=" ".join(b.attribution) or None,
                examples=tuple("\n".join(p) for p in b.examples),
                commentary=tuple("\n".join(p) for p in b.commentary),
            ))
        return out


def parse(text: str, profile: Profile) -> ParseResult:
    return _Parser(text, profile).run()
