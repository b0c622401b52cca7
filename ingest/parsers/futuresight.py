"""The Future Sight FAQ (2007): one line of 86,711 bytes.

The FAQ's entries are separated by `` ----- ``: the preamble, the General
Notes (each headed ``***Heading***``), the card entries (name, cost, type
line, power/toughness, rules text, then ``* `` rulings), and a trademark
notice. Notes and rulings quote the 2007 Comprehensive Rules inline ("The
rules for lifelink are as follows: 502.68. Lifelink 502.68a ..."); each
quoted rule becomes its own record, a child of what quotes it.

Because the document is one line, its units are column spans of that line
(``Unit.col_start``/``col_end``), and together they cover every character
exactly once. The parser works in three stages: cut the raw line into spans,
each owned by a record or by a noise category; build the ``Document`` from
those spans (which applies the profile's corrections to each span); then
read every record's fields from its spans' corrected text.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ingest.document import Document, Unit
from ingest.errors import ParseError, Problem
from ingest.parsers import ParseResult
from ingest.profile import Profile
from kb.ids import slugify
from kb.model import Record, Source

__all__ = ["parse", "detect"]

SEPARATOR = " ----- "
GENERAL = "GENERAL NOTES"
CARDS = "CARD-SPECIFIC NOTES"
TRADEMARK = "All trademarks"
_HEADING = re.compile(r"\*\*\*(?P<title>.+?)\*\*\*")
# A ruling bullet: "* " after a space; "*/1+*" (Tarmogoyf) and "*be*" (Yixlid Jailer) are not bullets.
_RULING = re.compile(r"(?<= )\* (?=\S)")
_COST = re.compile(r"(?:\{[^}]+\})+")
_PT = re.compile(r"[-+*\d]+/[-+*\d]+")
# A quoted rule's number. A number after "rule"/"rules" is a citation, not a quotation
# ("(See rule 309, ...)" in 502.4b, col 15947; "rules 409.1b and 409.1f-h" in 502.64a, col 33526).
_NUMBER = re.compile(r"(?<!rule )(?<!rules )(?<![\w.])(?P<num>\d{3}\.\d+[a-z]?)(?P<dot>\.?)(?= )")
_RULE = re.compile(r"(?P<num>\d{3}\.\d+[a-z]?)(?P<dot>\.?) (?P<body>.*)$", re.S)
_BASE = re.compile(r"\d{3}\.\d+")


def _base(number: str) -> str:
    """The rule a quoted number belongs to: 502.62a -> 502.62."""
    m = _BASE.match(number)
    return m.group(0) if m else number
# A headed rule prints its number with a dot and a short title: "502.62. Aura swap".
_TITLE_WORDS = 4


def detect(text: str) -> bool:
    head = text[:2_000]
    return "Frequently Asked Questions" in head and "Future Sight" in head and SEPARATOR in text


@dataclass(eq=False)
class _Rec:
    kind: str
    key: str = ""  # note: slug of its heading; ruling: its number; rule: its number; card: slug of its name
    parent: _Rec | None = None
    title: str | None = None
    number: str | None = None
    fields: dict = field(default_factory=dict)
    text: list[str] = field(default_factory=list)
    paragraphs: list[int] = field(default_factory=list)  # the pieces of ``text`` another record's text came before
    units: list[int] = field(default_factory=list)
    end: int = -1  # where its last span ended in the line
    broken: bool = False  # its entry could not be read: its units stay unaccounted

    def id(self, slug: str) -> str:
        if self.kind == "ruling" and self.parent is not None:  # a ruling always has its entry
            return f"{self.parent.id(slug)}/{self.key}"
        if self.kind == "rule":
            return f"{slug}/{self.key.lower()}"
        if self.kind == "card":
            return f"{slug}/cards/{self.key}"
        if self.key == "introduction":
            return f"{slug}/introduction"
        return f"{slug}/notes/{self.key}"

    def dead(self) -> bool:
        return self.broken or (self.parent is not None and self.parent.dead())


@dataclass
class _Span:
    start: int
    end: int
    owner: _Rec | str  # a record, or the noise category of a dropped span
    role: str = "text"  # text | heading | bullet | rule | card


class _Parser:
    def __init__(self, line: str, profile: Profile):
        self.line = line
        self.profile = profile
        self.slug = profile.slug
        self.spans: list[_Span] = []
        self.recs: list[_Rec] = []
        self.problems: list[Problem] = []
        self.types = tuple(profile.tables.get("type_words", ()))
        self.subtypes = set(profile.tables.get("noncreature_subtypes", ()))
        self.names = {c.name for c in profile.cards}
        leads = "|".join(re.escape(p) for p in profile.tables.get("quote_lead_ins", ()))
        # Where a quotation of the rules begins: "... are as follows: 502.68. Lifelink".
        self.quote_start = re.compile(rf"(?:{leads}): (?=\d{{3}}\.\d+[a-z]?\.? )") if leads else None
        # Prose that resumes after a quotation and introduces the next one (the reach note, col 16085).
        self.lead_in = re.compile(rf"[^.:]*?(?:{leads}):\s*$") if leads else None
        # The note's own prose printed after one of its rulings (a lead-in and the example card it introduces):
        # the profile's note_interludes, each the exact text it starts with.
        self.interludes = tuple(e["text"] for e in profile.tables.get("note_interludes", ()))

    # -- stage 1: cut the raw line into spans ------------------------------------------------
    def span(self, start: int, end: int, owner: _Rec | str, role: str = "text") -> None:
        if end > start:
            self.spans.append(_Span(start, end, owner, role))

    def rec(self, kind: str, **kw) -> _Rec:
        r = _Rec(kind, **kw)
        self.recs.append(r)
        return r

    def cut(self) -> None:
        line = self.line
        bounds, pos = [], 0
        while (i := line.find(SEPARATOR, pos)) >= 0:
            bounds.append((pos, i))
            self.span(i, i + len(SEPARATOR), "separator")
            pos = i + len(SEPARATOR)
        bounds.append((pos, len(line)))
        section = "preamble"
        for n, (a, b) in enumerate(bounds):
            part = line[a:b]
            for heading, name in ((GENERAL, "general"), (CARDS, "cards")):
                # The first note and the first card entry carry the section's heading (cols 897, 20732).
                if part.startswith(heading + " "):
                    self.span(a, a + len(heading), "document heading")
                    a, section = a + len(heading), name
            if n == len(bounds) - 1 and part.startswith(TRADEMARK):
                self.span(a, b, "trademark notice")
            elif section == "preamble":
                intro = self.rec("note", key="introduction", title="Introduction")
                self.span(a, b, intro)
            elif section == "general":
                self.note(a, b)
            else:
                self.card(a, b)
        self.spans.sort(key=lambda s: s.start)

    def note(self, a: int, b: int) -> None:
        m = _HEADING.match(self.line, a + 1 if self.line.startswith(" ", a) else a)
        note = self.rec("note")
        if m is None:
            note.broken = True
            self.span(a, b, note, "heading")
            return
        self.span(a, m.end(), note, "heading")
        self.body(note, m.end(), b, prose=True)

    def card(self, a: int, b: int) -> None:
        first = _RULING.search(self.line, a, b)
        head_end = first.start() - 1 if first else b  # the space before the first "* " is the card's
        card = self.rec("card")
        self.span(a, head_end, card, "card")
        self.body(card, head_end, b, prose=False)

    def body(self, owner: _Rec, a: int, b: int, prose: bool) -> None:
        """Give ``[a, b)`` to the owner's prose and to its ``* `` rulings."""
        cuts = [m.start() for m in _RULING.finditer(self.line, a, b)]
        pieces = list(zip([a] + cuts, cuts + [b], strict=True))
        (s, e), rulings = pieces[0], pieces[1:]
        if prose:
            self.quoted(owner, s, e)
        else:
            self.span(s, e, owner)
        for n, (s, e) in enumerate(rulings, 1):
            ruling = self.rec("ruling", key=str(n), parent=owner)
            self.span(s, s + 2, ruling, "bullet")
            interlude = min((i for i in (self.line.find(t, s + 2, e) for t in self.interludes) if i > s + 2),
                            default=e) if prose else e
            self.quoted(ruling, s + 2, interlude)
            if interlude < e:  # "... not "suspended." | This set has a cycle of five cards ... Arc Blade {3}{R}{R} ..."
                self.quoted(owner, interlude, e)

    def quoted(self, owner: _Rec, a: int, b: int) -> None:
        """Split ``[a, b)`` into the owner's own prose and the rules it quotes."""
        starts = [m.end() for m in self.quote_start.finditer(self.line, a, b)] if self.quote_start else []
        pos = a
        for k, q in enumerate(starts):
            self.span(pos, q, owner)  # the lead-in, or prose resumed after the last quotation
            end = starts[k + 1] if k + 1 < len(starts) else b
            if k + 1 < len(starts) and self.lead_in is not None:  # both come from quote_lead_ins
                lead = self.lead_in.search(self.line, q, end)
                end = lead.start() if lead else end
            self.quote(owner, q, end)
            pos = end
        self.span(pos, b, owner)

    def quote(self, owner: _Rec, a: int, b: int) -> None:
        """Each rule number in ``[a, b)`` starts a quoted rule."""
        found = list(_NUMBER.finditer(self.line, a, b))
        marks = [m.start() for m in found]
        if not marks or marks[0] != a:
            self.span(a, marks[0] if marks else b, owner)
        quoted: dict[str, _Rec] = {}
        for k, s in enumerate(marks):
            e = marks[k + 1] if k + 1 < len(marks) else b
            number = found[k].group("num")
            base = _base(number)
            # A sub-rule's parent is its rule when that is quoted too (502.62a under 502.62);
            # otherwise (502.26b, 205.3d) whatever quotes it.
            parent = quoted.get(base) if number != base else None
            r = self.rec("rule", key=number, number=number, parent=parent or owner)
            quoted[number] = r
            self.span(s, e, r, "rule")

    # -- stage 3: read the records from the corrected units ------------------------------------
    def read(self, doc: Document) -> None:
        # strict=False: lines after the one-line FAQ are units with no span (reported as problems)
        for i, (s, unit) in enumerate(zip(self.spans, doc.units, strict=False)):
            r = s.owner
            if isinstance(r, str):
                continue
            text = unit.text.strip()
            r.units.append(i)
            apart = 0 <= r.end < s.start  # another record's text (a quoted rule, a ruling) came in between
            r.end = s.end
            if s.role == "heading":
                m = _HEADING.match(text)
                if m is None:
                    self.problems.append(doc.problem(i, "a General Notes section headed ***Heading***"))
                    continue
                r.title = m.group("title")
                r.key = slugify(r.title)
                text = text[m.end():].strip()
            elif s.role == "rule":
                m = _RULE.match(text)
                if m is None or m.group("num") != r.number:
                    self.problems.append(doc.problem(i, f"rule {r.number} quoted"))
                    continue
                text = m.group("body").strip()
                if m.group("dot") and m.group("num") == _base(m.group("num")) and len(text.split()) <= _TITLE_WORDS:
                    r.title, text = text, ""
            elif s.role == "card":
                fields = self.split_card(text)
                if fields is None:
                    r.broken = True
                    what = "a card named in the profile's [[cards]], then" if self.names else "a card entry:"
                    self.problems.append(doc.problem(i, f"{what} name, mana cost, type line, rules text"))
                    continue
                r.title, r.key, r.fields = fields["name"], slugify(fields["name"]), fields
                text = fields["rules_text"] or ""
            elif s.role == "bullet":
                continue
            if text:
                if apart and r.text:
                    r.paragraphs.append(len(r.text))
                r.text.append(text)
        found = {r.title for r in self.recs if r.kind == "card" and not r.broken}
        for name in sorted(self.names - found):
            self.problems.append(Problem(self.profile.file, 1, f"a card entry for {name}", "none"))

    def split_card(self, head: str) -> dict | None:
        """Name, cost, type line, P/T and rules text of a card entry's run-on head."""
        if self.names:
            # A known name settles where a costless land's name ends ("Dryad Arbor Land Creature", col 35683).
            known = [n for n in self.names if head.startswith(n + " ")]
            if not known:
                return None
            name = max(known, key=len)
            rest = head[len(name) + 1:]
        else:
            types = "|".join(map(re.escape, self.types))
            # Without the table, the name ends at the mana cost or, for a land printed without
            # one, at the first type word (which a name like "Some Land" would defeat).
            start = re.search(rf" (?=\{{|(?:{types})\b)", head)
            if start is None or "*" in head[:start.start()]:
                return None
            name, rest = head[:start.start()], head[start.end():]
        cost = None
        if m := _COST.match(rest):
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
            # A creature's subtypes run to its P/T; a noncreature's are the profile's few
            # (Bound in Silence, "Tribal Enchantment -- Rebel Aura Enchant creature", col 26987).
            while words and (not _PT.fullmatch(words[0]) if creature else words[0] in self.subtypes):
                subtypes.append(words.pop(0))
            if not subtypes:
                return None
        pt = None
        if creature:
            if not words or not _PT.fullmatch(words[0]):
                return None
            pt = words.pop(0)
        type_line = " ".join(type_words) + (" -- " + " ".join(subtypes) if subtypes else "")
        rules = " ".join(words).strip()
        return {"name": name, "mana_cost": cost, "type_line": type_line,
                "power_toughness": pt, "rules_text": rules or None}

    # -- results ------------------------------------------------------------------------------------
    def label(self, doc: Document) -> None:
        for i, s in enumerate(self.spans):
            if isinstance(s.owner, str):
                doc.drop(i, s.owner)
            elif not s.owner.dead():
                doc.label(i, s.owner.id(self.slug))

    def records(self, doc: Document) -> list[Record]:
        out, seen = [], set()
        for r in self.recs:
            if r.dead() or not r.units:
                continue
            rid = r.id(self.slug)
            if rid in seen:
                self.problems.append(doc.problem(r.units[0], f"one record {rid}, not a second"))
                continue
            seen.add(rid)
            units = [doc.units[i] for i in r.units]
            # every unit of a one-line document is a column span: its columns are set
            starts = [u.col_start for u in units if u.col_start is not None]
            ends = [u.col_end for u in units if u.col_end is not None]
            source = Source(self.profile.file, 1, 1, min(starts), max(ends))
            # prose resumed after a quoted rule or a ruling is a paragraph of its own ("... are as follows:" and
            # "The rules for the reach ability are as follows:" read as one sentence once the rules between were gone)
            text = "".join(("\n\n" if k in r.paragraphs else " ") + piece for k, piece in enumerate(r.text)).strip()
            parent = r.parent.id(self.slug) if r.parent else None
            if r.kind == "card":
                f = r.fields
                out.append(Record(rid, self.slug, "card", text, source, title=r.title,
                                  mana_cost=f["mana_cost"], type_line=f["type_line"],
                                  power_toughness=f["power_toughness"], rules_text=f["rules_text"]))
            elif r.kind == "rule":
                body = text if r.title is None else r.title
                out.append(Record(rid, self.slug, "rule", body, source, number=r.number, title=r.title, parent=parent))
            else:
                out.append(Record(rid, self.slug, r.kind, text, source, title=r.title, parent=parent))
        return out


def parse(text: str, profile: Profile) -> ParseResult:
    if not text.strip():
        raise ParseError([Problem(profile.file, 1, "a non-empty document", "an empty file")])
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    p = _Parser(lines[0], profile)
    p.cut()
    units = [Unit(1, p.line[s.start:s.end], p.line[s.start:s.end], col_start=s.start, col_end=s.end) for s in p.spans]
    # Anything after the first line is not the FAQ: its lines stay unaccounted.
    units += [Unit(n, raw, raw) for n, raw in enumerate(lines[1:], start=2)]
    doc = Document.from_units(profile.file, units, "segment", profile.corrections)
    if len(lines) > 1:
        p.problems.append(doc.problem(len(p.spans), "the whole FAQ on one line"))
    p.read(doc)
    p.label(doc)
    return ParseResult(p.records(doc), doc, p.problems)
