"""The Future Sight FAQ (2007): one line of 86,711 characters.

The FAQ's entries are separated by `` ----- ``: the preamble, the General
Notes (each headed ``***Heading***``), the card entries (name, cost, type
line, power/toughness, rules text, then ``* `` rulings), and a trademark
notice. Notes and rulings quote the 2007 Comprehensive Rules inline ("The
rules for lifelink are as follows: 502.68. Lifelink 502.68a ..."); each
quoted rule becomes its own record, a child of what quotes it.

Because the document is one line, its units are column spans of that line
(``Source.col_start``/``col_end``), and together they cover every character
exactly once.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ingest.document import Document, Unit
from ingest.errors import Problem
from ingest.parsers import ParseResult
from ingest.profile import Profile
from kb.ids import slugify
from kb.model import Record, Source

__all__ = ["parse", "detect"]

SEPARATOR = " ----- "
GENERAL = "GENERAL NOTES "
CARDS = "CARD-SPECIFIC NOTES "
_HEADING = re.compile(r"^\*\*\*(?P<title>.+?)\*\*\* ?")
_RULING = re.compile(r"(?<= )\* (?=\S)")
_COST = re.compile(r"^(?:\{[^}]+\})+")
_PT = re.compile(r"^(?P<pt>[*\d-]+\+?\*?/[*\d-]+\+?\*?)(?: |$)")
# Where a quotation of the rules begins: "... are as follows: 502.68. Lifelink"
_QUOTE = re.compile(r"(?:as follows|revised rules|is new\)): (?=\d{3}\.\d+[a-z]?\.? )")
_NUMBER = re.compile(r"(?<!rule )(?<!rules )(?<![\w.])(?P<num>\d{3}\.\d+[a-z]?)(?P<dot>\.?) ")
_LEAD_IN = re.compile(r"[^.:]*?(?:as follows|revised rules|is new\)):\s*$")


def detect(text: str) -> bool:
    return "Frequently Asked Questions" in text[:2_000] and SEPARATOR in text and "\n" not in text.strip()


@dataclass
class _Span:
    start: int
    end: int
    label: str  # a record id or "noise:<category>"


@dataclass
class _Rec:
    id: str
    kind: str
    spans: list[tuple[int, int]] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    fields: dict = field(default_factory=dict)


class _Parser:
    def __init__(self, text: str, profile: Profile):
        self.raw = text.rstrip("\n")
        self.profile = profile
        self.slug = profile.slug
        self.spans: list[_Span] = []
        self.recs: list[_Rec] = []
        self.problems: list[Problem] = []
        self.types = tuple(profile.tables.get("type_words", ()))
        self.subtypes = set(profile.tables.get("noncreature_subtypes", ()))
        self.line = self.raw
        fixes = profile.corrections
        if fixes:  # corrections apply to the whole line before it is cut up
            doc = Document.from_units(profile.file, [Unit(1, self.raw, self.raw)], "segment", fixes)
            self.line = doc.units[0].text
            self.corrections = doc.corrections
        else:
            self.corrections = []

    # -- spans ------------------------------------------------------------------------
    def span(self, start: int, end: int, label: str) -> None:
        if end > start:
            self.spans.append(_Span(start, end, label))

    def rec(self, rid: str, kind: str, **fields) -> _Rec:
        r = _Rec(rid, kind, fields=fields)
        self.recs.append(r)
        return r

    def give(self, r: _Rec, start: int, end: int) -> None:
        self.span(start, end, r.id)
        r.spans.append((start, end))
        piece = self.line[start:end].strip()
        if piece:
            r.text.append(piece)

    # -- the whole line ---------------------------------------------------------------
    def run(self) -> ParseResult:
        line = self.line
        bounds = []
        pos = 0
        while True:
            i = line.find(SEPARATOR, pos)
            if i < 0:
                bounds.append((pos, len(line)))
                break
            bounds.append((pos, i))
            self.span(i, i + len(SEPARATOR), "noise:separator")
            pos = i + len(SEPARATOR)
        section = "preamble"
        for n, (a, b) in enumerate(bounds):
            part = line[a:b]
            if part.startswith(GENERAL):
                self.span(a, a + len(GENERAL) - 1, "noise:document heading")
                a, section = a + len(GENERAL) - 1, "general"
            elif part.startswith(CARDS):
                self.span(a, a + len(CARDS) - 1, "noise:document heading")
                a, section = a + len(CARDS) - 1, "cards"
            if n == len(bounds) - 1 and part.startswith("All trademarks"):
                self.span(a, b, "noise:trademark notice")
            elif section == "preamble":
                r = self.rec(f"{self.slug}/introduction", "note", title="Introduction")
                self.give(r, a, b)
            elif section == "general":
                self.note(a, b)
            else:
                self.card(a, b)
        return ParseResult(self.records(), self.document(), self.problems)

    # -- general notes ----------------------------------------------------------------------
    def note(self, a: int, b: int) -> None:
        m = _HEADING.match(self.line[a:b].lstrip())
        if m is None:
            self.problems.append(Problem(self.profile.file, 1, f"a ***Heading*** at column {a}", self.line[a:a + 40]))
            self.span(a, b, f"{self.slug}/notes/unreadable")
            return
        title = m.group("title")
        offset = a + (len(self.line[a:b]) - len(self.line[a:b].lstrip()))
        note = self.rec(f"{self.slug}/notes/{slugify(title)}", "note", title=title)
        note.spans.append((a, offset + m.end()))
        self.span(a, offset + m.end(), note.id)
        self.body(note, offset + m.end(), b)

    # -- card entries -------------------------------------------------------------------------
    def card(self, a: int, b: int) -> None:
        text = self.line[a:b]
        lead = len(text) - len(text.lstrip())
        first = _RULING.search(text)
        head_end = a + (first.start() - 1 if first else len(text))
        head = self.line[a + lead:head_end]
        fields = self.split_card(head)
        if fields is None:
            self.problems.append(Problem(self.profile.file, 1, f"a card entry (name, cost, type line) at column {a}", head[:60]))
            return
        card = self.rec(f"{self.slug}/cards/{slugify(fields['name'])}", "card", **fields)
        card.spans.append((a, head_end))
        self.span(a, head_end, card.id)
        self.body(card, head_end, b, prose=False)

    def split_card(self, head: str) -> dict | None:
        types = "|".join(map(re.escape, self.types))
        start = re.search(rf" (?={{|(?:(?:{types}) )*(?:{types})\b)", head)
        if start is None:
            return None
        name, rest = head[:start.start()], head[start.end():]
        cost = None
        m = _COST.match(rest)
        if m:
            cost, rest = m.group(0), rest[m.end():].lstrip()
        words = rest.split(" ")
        type_words = []
        while words and words[0] in self.types:
            type_words.append(words.pop(0))
        if not type_words:
            return None
        creature = "Creature" in type_words
        subtypes = []
        if words and words[0] == "--":
            words.pop(0)
            while words and (creature and not _PT.match(" ".join(words)) or not creature and words[0] in self.subtypes):
                subtypes.append(words.pop(0))
        pt = None
        if creature:
            m = _PT.match(" ".join(words))
            if m is None:
                return None
            pt = m.group("pt")
            words = " ".join(words)[m.end():].split(" ") if " ".join(words)[m.end():] else []
        type_line = " ".join(type_words) + (" -- " + " ".join(subtypes) if subtypes else "")
        rules = " ".join(words).strip()
        return {"name": name, "title": name, "mana_cost": cost, "type_line": type_line,
                "power_toughness": pt, "rules_text": rules or None}

    # -- prose, rulings and quoted rules ------------------------------------------------------
    def body(self, owner: _Rec, a: int, b: int, prose: bool = True) -> None:
        """Give ``[a, b)`` to the owner's prose and to its ``* `` rulings."""
        cuts = [a + m.start() for m in _RULING.finditer(self.line[a:b])]
        pieces = list(zip([a] + cuts, cuts + [b]))
        head, rulings = pieces[0], pieces[1:]
        if prose:
            self.quoted(owner, *head)
        elif head[1] > head[0]:
            self.give(owner, *head)  # the space before the first "* "
        for n, (s, e) in enumerate(rulings, 1):
            ruling = self.rec(f"{owner.id}/{n}", "ruling", parent=owner.id)
            self.span(s, s + 2, ruling.id)  # the "* " bullet
            ruling.spans.append((s, s + 2))
            self.quoted(ruling, s + 2, e)

    def quoted(self, owner: _Rec, a: int, b: int) -> None:
        """Split ``[a, b)`` into the owner's own prose and the rules it quotes."""
        text = self.line[a:b]
        starts = [m.end() for m in _QUOTE.finditer(text)]
        if not starts:
            self.give(owner, a, b)
            return
        pos = 0
        for k, q in enumerate(starts):
            self.give(owner, a + pos, a + q)  # prose up to the quotation (or resumed before it)
            limit = starts[k + 1] if k + 1 < len(starts) else len(text)
            lead = _LEAD_IN.search(text[q:limit]) if k + 1 < len(starts) else None
            end = q + lead.start() if lead else limit
            self.quote(owner, a + q, a + end)
            pos = end
        if pos < len(text):
            self.give(owner, a + pos, b)

    def quote(self, owner: _Rec, a: int, b: int) -> None:
        """Each rule number in ``[a, b)`` starts a quoted rule; ``502.62. Aura swap`` is titled."""
        text = self.line[a:b]
        family = None
        marks = []
        for m in _NUMBER.finditer(text):
            number = m.group("num")
            base = re.match(r"\d{3}\.\d+", number).group(0)
            if family is None or base == family:
                family = base
                marks.append(m)
        for k, m in enumerate(marks):
            s = m.start()
            e = marks[k + 1].start() if k + 1 < len(marks) else len(text)
            number = m.group("num")
            base = re.match(r"\d{3}\.\d+", number).group(0)
            parent_id = f"{self.slug}/{base}" if number != base and any(r.id == f"{self.slug}/{base}" for r in self.recs) else owner.id
            body = text[m.end():e].strip()
            title = None
            if m.group("dot") and number == base and len(body.split()) <= 4:
                title, body = body, ""
            r = self.rec(f"{self.slug}/{number}", "rule", number=number, title=title, parent=parent_id)
            self.span(a + s, a + e, r.id)
            r.spans.append((a + s, a + e))
            if body:
                r.text.append(body)
        if marks and marks[0].start() > 0:
            self.give(owner, a, a + marks[0].start())

    # -- results --------------------------------------------------------------------------------
    def document(self) -> Document:
        units = []
        for s in sorted(self.spans, key=lambda s: s.start):
            units.append(Unit(1, self.raw[s.start:s.end], self.line[s.start:s.end], col_start=s.start, col_end=s.end))
        doc = Document(self.profile.file, units, "segment", corrections=list(self.corrections))
        covered = 0
        for i, s in enumerate(sorted(self.spans, key=lambda s: s.start)):
            if s.start != covered:
                gap = self.line[covered:s.start]
                self.problems.append(Problem(self.profile.file, 1, f"every column covered once (at {covered})", gap[:40] or "an overlap"))
            covered = max(covered, s.end)
            if s.label.startswith("noise:"):
                doc.drop(i, s.label[6:])
            else:
                doc.label(i, s.label)
        if covered != len(self.line):
            self.problems.append(Problem(self.profile.file, 1, f"every column covered (up to {len(self.line)})", f"the spans end at {covered}"))
        return doc

    def records(self) -> list[Record]:
        out = []
        for r in self.recs:
            cols = [c for span in r.spans for c in span]
            source = Source(self.profile.file, 1, 1, min(cols), max(cols)) if cols else Source(self.profile.file, 1, 1)
            f = r.fields
            text = " ".join(r.text).strip()
            if r.kind == "card":
                out.append(Record(r.id, self.slug, "card", f["rules_text"] or "", source, title=f["title"],
                                  mana_cost=f["mana_cost"], type_line=f["type_line"],
                                  power_toughness=f["power_toughness"], rules_text=f["rules_text"]))
            elif r.kind == "rule":
                out.append(Record(r.id, self.slug, "rule", text, source, number=f["number"], title=f["title"], parent=f["parent"]))
            elif r.kind == "ruling":
                out.append(Record(r.id, self.slug, "ruling", text, source, parent=f["parent"]))
            else:
                out.append(Record(r.id, self.slug, r.kind, text, source, title=f.get("title")))
        return out


def parse(text: str, profile: Profile) -> ParseResult:
    if not text.strip():
        from ingest.errors import ParseError

        raise ParseError([Problem(profile.file, 1, "a non-empty document", "an empty file")])
    return _Parser(text, profile).run()
