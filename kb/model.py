"""The one record type every stage hands on, and its JSON form.

A record is a rule, a card, a ruling, a note, a glossary entry, ... of one
source document. Parsers build records with their ``parent`` set; the
builder derives ``children`` (document order) and ``cited_by`` (the inverse
of resolved ``refs``), so no parser keeps two lists in step by hand.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from collections.abc import Iterable
from typing import Any

__all__ = ["KINDS", "Ref", "Source", "Record", "record_from_json", "kind_counts"]

KINDS = (
    "chapter",
    "rule",
    "section",
    "card",
    "ruling",
    "note",
    "glossary",
    "history",
    "keyword",
)


@dataclass(frozen=True)
class Ref:
    """An outgoing reference: the text as written and what it points at.

    ``start``/``end`` are offsets of ``text`` in the record field it was
    found in (``None`` for references that are not in any text, such as a
    keyword's list of definitions).
    ``target`` is a record id or ``None`` when it resolves to nothing;
    ``external`` marks citations of the official Comprehensive Rules, whose
    ``url`` points at a public hyperlinked copy until the official rules are
    loaded as a source. ``note`` explains an alias ("renamed from 314").
    ``field`` names the record field the reference was found in ("text",
    "examples[0]", "attribution", ...); offsets are into that field.
    ``suggested`` is set when an official citation was written against an
    older version of the rules and another rule now matches its topic.
    """

    text: str
    target: str | None
    external: bool = False
    url: str | None = None
    start: int | None = None
    end: int | None = None
    note: str | None = None
    field: str = "text"
    suggested: str | None = None  # the likely current target of an official citation that drifted
    # With the official rules' history, an official citation whose number meant another rule when it was
    # written: the number and the release's effective date, "716.2@2016-07-22" (the page /cr@2016-07-22/716.2).
    dated: str | None = None


@dataclass(frozen=True)
class Source:
    """Where a record came from: file and 1-based line span (inclusive).

    ``col_start``/``col_end`` narrow the span for documents printed on one
    line (the Future Sight FAQ): 0-based character offsets in that line.
    """

    file: str
    line_start: int
    line_end: int
    col_start: int | None = None
    col_end: int | None = None


@dataclass(frozen=True)
class Record:
    id: str
    doc: str
    kind: str
    text: str
    source: Source
    number: str | None = None
    title: str | None = None
    parent: str | None = None
    children: tuple[str, ...] = ()
    refs: tuple[Ref, ...] = ()
    cited_by: tuple[str, ...] = ()
    # Card fields, where the source prints them.
    mana_cost: str | None = None
    type_line: str | None = None
    power_toughness: str | None = None
    rules_text: str | None = None
    # Treachery identity cards.
    role: str | None = None
    # UnCommander rules: the flattened "Source and Commentary" column and the
    # paragraphs printed between rules.
    attribution: str | None = None
    examples: tuple[str, ...] = ()
    commentary: tuple[str, ...] = ()
    # Rulings printed under a group heading inside a card's notes
    # ("The following rulings focus on the "protection from" keyword").
    group: str | None = None
    # Numbers this record was known by before (Treachery's version history).
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.id}: unknown kind {self.kind!r}")

    def with_(self, **changes: Any) -> Record:
        return replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for name in ("children", "cited_by", "examples", "commentary", "aliases"):
            data[name] = list(data[name])
        data["refs"] = [asdict(r) for r in self.refs]
        return data


_TUPLE_FIELDS = {"children", "cited_by", "examples", "commentary", "aliases"}
_RECORD_FIELDS = {f.name for f in fields(Record)}


def record_from_json(data: dict[str, Any]) -> Record:
    """Inverse of ``Record.to_json`` (unknown keys are an error, not ignored)."""
    unknown = set(data) - _RECORD_FIELDS
    if unknown:
        raise ValueError(f"record {data.get('id')!r}: unknown fields {sorted(unknown)}")
    values = dict(data)
    values["source"] = Source(**data["source"])
    values["refs"] = tuple(Ref(**r) for r in data.get("refs", ()))
    for name in _TUPLE_FIELDS:
        values[name] = tuple(data.get(name, ()))
    return Record(**values)


def kind_counts(records: Iterable[Record]) -> dict[str, int]:
    """How many records of each kind, in ``KINDS`` order, kinds with none left out. What the home page says
    a document has ("3,309 rules") and what /cr/releases says a release has: rules, not chapters."""
    counts = dict.fromkeys(KINDS, 0)
    for r in records:
        counts[r.kind] += 1
    return {k: n for k, n in counts.items() if n}
