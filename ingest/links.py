"""The second pass: find every reference in record text and resolve it.

Runs after every record of every document exists, so a reference can point
anywhere. What counts as a reference, and where it points:

- rule numbers ("See rule 907.4b", "rules 372.5"): the citing document's own
  rule when it has that number; a renamed number (Treachery's version
  history) resolves to the current rule with a note; a removed number
  resolves to nothing with a note; any other number is an official
  Comprehensive Rules citation;
- official citations ("official rule 708", "111.2. in the official
  Comprehensive Rules"): the official rules, external until they are loaded;
- UnCommander section references ("see the Token Cards section", "See a) in
  the Object Characteristics section", "See the rules for _Combine and
  combined permanents");
- FAQ references ('See "New Card Type: Tribal" in the General Notes section
  above', "See the entry for Death Rattle above");
- card names mentioned in any text.

A reference that points at nothing keeps a null target; ``unresolved``
lists them for ``kb check``. Nothing is linked to a guess.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from collections.abc import Iterator

from ingest.profile import Profile
from kb.ids import fold
from kb.model import Record, Ref
from kb.aliases import alias
from kb.docnames import doc_names
from kb.refs import find_refs

__all__ = ["Linker", "link_records", "text_fields", "with_cited_by"]


def text_fields(record: Record) -> Iterator[tuple[str, str]]:
    """Every (field name, text) of a record that may hold references."""
    yield "text", record.text
    if record.rules_text and record.rules_text != record.text:
        yield "rules_text", record.rules_text
    for i, example in enumerate(record.examples):
        yield f"examples[{i}]", example
    for i, paragraph in enumerate(record.commentary):
        yield f"commentary[{i}]", paragraph
    if record.attribution:
        yield "attribution", record.attribution


_SECTION_REF = re.compile(
    r"(?:[Ss]ee |in )?(?:(?P<item>[a-z]{1,2})\) in )?the\s*(?:rules for )?_?"
    r"(?P<title>[A-Z][^.;()]*?)(?: section\b|(?= for details))"
)
_FAQ_NOTE_REF = re.compile(r'See "(?P<title>[^"]+)" in the General Notes section above')
_FAQ_ENTRY_REF = re.compile(r"See the entry for (?P<name>.+?) above")
_UNFILLED = re.compile(r"\b[Ss]ee (?:[A-Z][\w ]*?)?_{2,}")
_COMMANDER_RULE = re.compile(
    r"\brule (?P<n>\d{1,2}) in the (?:official )?Commander [Rr]ules|\b(?P<m>\d{1,2})\. in the official Commander rules"
)


def _apostrophes(text: str) -> str:
    return text.replace("\u2019", "'").replace("\u2018", "'")


@dataclass
class Linker:
    """Indexes of every record id, built once, used to resolve each record's text."""

    records: list[Record]
    profiles: dict[str, Profile]
    ids: set[str] = field(init=False)
    numbers: dict[str, dict[str, str]] = field(init=False)
    sections: dict[str, dict[str, str]] = field(init=False)  # doc -> folded title -> id
    notes: dict[str, str] = field(init=False)
    cards: dict[str, tuple[str, str]] = field(init=False)  # folded name -> (id, doc)
    card_pattern: re.Pattern | None = field(init=False)
    doc_names: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        self.ids = {r.id for r in self.records}
        self.doc_names = doc_names({"slug": p.slug, "names": p.tables.get("names", ())} for p in self.profiles.values())
        self.numbers = {}
        self.sections = {}
        self.notes = {}
        self.cards = {}
        for r in self.records:
            if r.kind in ("rule", "chapter") and r.number and "/" not in r.id.split("/", 1)[1]:
                self.numbers.setdefault(r.doc, {})[r.number.lower()] = r.id
            if r.kind == "section":
                self.sections.setdefault(r.doc, {})[fold(r.title or "").lower()] = r.id
            if r.kind == "note" and r.title:
                self.notes[_apostrophes(r.title)] = r.id
            if r.kind == "card" and r.title:
                self.cards[_apostrophes(r.title)] = (r.id, r.doc)
        names = sorted(self.cards, key=len, reverse=True)
        self.card_pattern = (
            re.compile(
                r"(?<![\w-])(?:" + "|".join(re.escape(n).replace("'", "['\u2019]") for n in names) + r")(?![\w-])"
            )
            if names
            else None
        )

    # -- rule numbers -------------------------------------------------------
    def rule_target(self, doc: str, number: str, official: bool) -> Ref:
        """Where a rule number written in ``doc`` points."""
        profile = self.profiles.get(doc)
        own = self.numbers.get(doc, {})
        if not official and number in own:
            return Ref(number, own[number])
        if not official and profile is not None:
            renamed = [{"old": r.old, "new": r.new, "version": r.version} for r in profile.renamed]
            found = alias(number, renamed, profile.tables.get("removed", ()), own.__contains__)
            if found:
                return Ref(number, own[found.number] if found.number else None, note=found.note)
        if profile is not None and not official and not profile.tables.get("cites_current_rules", True):
            return Ref(
                number, None, note=profile.tables.get("uncited_number_note", "a number this document does not print")
            )
        return self.official(number, doc)

    def official(self, number: str, doc: str) -> Ref:
        own = self.numbers.get("cr", {})
        if number in own:
            return Ref(number, own[number], external=False)
        if own:  # the official rules are loaded and have no such rule: a dangling citation, for kb check
            version = self.profiles["cr"].version if "cr" in self.profiles else "loaded"
            return Ref(number, None, note=f"no rule {number} in the Comprehensive Rules ({version})")
        template = self.profiles[doc].tables.get("official_rules_url") if doc in self.profiles else None
        url = template.format(anchor=number.replace(".", "")) if template else None
        return Ref(number, None, external=True, url=url)

    # -- per record -----------------------------------------------------------
    def refs_for(self, record: Record) -> list[Ref]:
        refs: list[Ref] = []
        for name, text in text_fields(record):
            spans: list[tuple[int, int]] = []
            for group in self._find(record, text):
                start, end = group[0].start or 0, group[0].end or 0  # every finder sets both offsets
                if any(s < end and start < e for s, e in spans):
                    continue  # a span already claimed by an earlier, more specific finder
                spans.append((start, end))
                # Every member of a range or list ("rules 603.7d–f") is a reference of its own.
                refs += [ref if name == "text" else _in_field(ref, name) for ref in group]
        return refs

    def _find(self, record: Record, text: str) -> Iterator[list[Ref]]:
        """Groups of references, each group one written span (a range's members share theirs)."""
        for finder in (self._faq_refs(record, text), self._section_refs(record, text), self._unfilled(text),
                       self._commander_rules(text)):
            yield from ([ref] for ref in finder)
        yield from self._rule_refs(record, text)
        yield from ([ref] for ref in self._card_refs(record, text))

    def _rule_refs(self, record: Record, text: str) -> Iterator[list[Ref]]:
        for match in find_refs(text, doc_names=self.doc_names):
            query = match.query
            group = []
            for number in query.numbers:
                target = self.rule_target(record.doc, number.lower(), query.official)
                if target.target == record.id:
                    continue
                group.append(Ref(match.text, target.target, target.external, target.url, match.start, match.end,
                                 target.note))
            if group:
                yield group

    def _section_refs(self, record: Record, text: str) -> Iterator[Ref]:
        sections = self.sections.get(record.doc)  # a document's own sections (UnCommander's)
        if not sections:
            return
        for m in _SECTION_REF.finditer(text):
            title = fold(m.group("title")).lower().strip()
            section = sections.get(title)
            if section is None:
                continue
            target: str | None = section
            if m.group("item"):
                item = f"{section}/{m.group('item')}"
                target = item if item in self.ids else None
            yield Ref(m.group(0), target, start=m.start(), end=m.end(),
                      note=None if target else f"no rule {m.group('item')}) in {m.group('title')}")

    def _faq_refs(self, record: Record, text: str) -> Iterator[Ref]:
        for m in _FAQ_NOTE_REF.finditer(text):
            target = self.notes.get(_apostrophes(m.group("title")))
            yield Ref(m.group(0), target, start=m.start(), end=m.end(),
                      note=None if target else "no General Notes section has this heading")
        for m in _FAQ_ENTRY_REF.finditer(text):
            card = self.cards.get(_apostrophes(m.group("name")))
            yield Ref(m.group(0), card[0] if card else None, start=m.start(), end=m.end(),
                      note=None if card else "no card entry has this name")

    def _unfilled(self, text: str) -> Iterator[Ref]:
        # The UnCommander page has placeholders its editors never filled in ("See ___").
        for m in _UNFILLED.finditer(text):
            yield Ref(m.group(0), None, start=m.start(), end=m.end(), note="a placeholder the document never filled in")

    def _commander_rules(self, text: str) -> Iterator[Ref]:
        for m in _COMMANDER_RULE.finditer(text):
            yield Ref(m.group(0), None, start=m.start(), end=m.end(),
                      note="the Commander rules are not a source of this knowledge base")

    def _card_refs(self, record: Record, text: str) -> Iterator[Ref]:
        if self.card_pattern is None:
            return
        excluded = [
            (m.start(), m.end())
            for phrase in self.profiles[record.doc].tables.get("not_card_mentions", ())
            for m in re.finditer(re.escape(phrase["text"]), text)
        ] if record.doc in self.profiles else []
        own_card = _card_of(record)
        for m in self.card_pattern.finditer(text):
            target, doc = self.cards[_apostrophes(m.group(0))]
            if target == own_card:
                continue  # a card's own notes name it on every line
            if doc != record.doc and not self.profiles[doc].tables.get("link_cards_from_other_documents", True):
                continue  # Treachery identity names ("The Gathering") are common words elsewhere
            if any(s <= m.start() < e for s, e in excluded):
                continue
            yield Ref(m.group(0), target, start=m.start(), end=m.end())


def _card_of(record: Record) -> str | None:
    if record.kind == "card":
        return record.id
    if record.kind == "ruling" and record.parent and "/cards/" in record.parent:
        return record.parent
    return None


def _in_field(ref: Ref, name: str) -> Ref:
    return replace(ref, field=name)


def link_records(records: list[Record], profiles: dict[str, Profile]) -> list[Record]:
    """Return the records with ``refs`` resolved and ``cited_by`` as their exact inverse."""
    linker = Linker(records, profiles)
    by_id = {r.id: r for r in records}
    linked = []
    for r in records:
        if r.doc in profiles:
            r = r.with_(refs=r.refs + tuple(linker.refs_for(r)))
        elif r.kind == "keyword":  # gathered, not written: its definitions, and the refs of the text it reads
            r = r.with_(refs=r.refs + tuple(linker.refs_for(r.with_(doc=_defined_in(r, by_id)))))
        linked.append(r)
    return with_cited_by(linked)


def _defined_in(keyword: Record, by_id: dict[str, Record]) -> str:
    """The document a keyword record's text comes from (its first definition's): its references are read there
    (/keywords/undercover's "See rule 702.187f." is Treachery's, and linked nothing; a keyword's other refs are
    its definitions)."""
    first = next((ref.target for ref in keyword.refs if ref.field == "definitions" and ref.target), None)
    return by_id[first].doc if first in by_id else keyword.doc


def with_cited_by(records: list[Record]) -> list[Record]:
    """``cited_by`` as the exact inverse of the refs (again, after citations were retargeted)."""
    cited: dict[str, list[str]] = {}
    for r in records:
        for ref in r.refs:
            if ref.target and r.id not in cited.setdefault(ref.target, []):
                cited[ref.target].append(r.id)
    return [r if tuple(cited.get(r.id, ())) == r.cited_by else r.with_(cited_by=tuple(cited.get(r.id, ())))
            for r in records]
