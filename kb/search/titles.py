"""The titles a query can be exactly: keyword, rule, section, note, glossary and chapter titles by their stems.

Part of the lead stage (kb.search.lead): a query that is a title answers with those records first, ordered here
(the current official rule first, then the keyword page, other documents newest first), a glossary entry after
the rule it points at. Also what ``Searcher.todays_rule`` reads for the site's history pages (web.data).

Reads: the build's records and documents' recency (kb.search.tables), the re-ranker's glossary pointers and older
editions (kb.rank.Ranker).
"""
from __future__ import annotations

import re

from kb import rank
from kb.ids import fold
from kb.index import plain
from kb.model import Record
from kb.search.parse import content_stems
from kb.search.tables import Tables
from kb.store import Store
from kb.vocabulary import SEE_ENTRY

__all__ = ["Titles", "TITLE_ORDER"]

TITLE_ORDER = {"keyword": 1, "rule": 2, "section": 3, "note": 3, "glossary": 4, "chapter": 5}
_OBSOLETE = re.compile(r"\s*\(Obsolete\)$")  # "Converted Mana Cost (Obsolete)" is titled "Converted Mana Cost"


class Titles:
    """Title stems -> the records so titled, in the order a title query lists them; once per build."""

    def __init__(self, tables: Tables):
        self.store, self.ranker, self.recency = tables.store, tables.ranker, tables.recency
        self.by_stems = self._by_stems(tables.store)
        self.see_also = self._see_entries(tables.store)
        # each title's records in the order a query of any document lists them, worked out here once, not per query
        # (a title or a mistyped one is looked up two to four times a query; its glossary pointers compared records)
        self.ordered = {key: tuple(self.today_first(self.pointed_first(records)))
                        for key, records in self.by_stems.items()}

    def titled(self, text: str, doc: str | None) -> list[Record]:
        """The records titled ``text`` (by its stems), of ``doc`` when given, in order."""
        key = " ".join(content_stems(text))
        if doc is None and "glossary" in rank.SIGNALS:
            return list(self.ordered.get(key, ()))
        records = [r for r in self.by_stems.get(key, ()) if doc is None or r.doc == doc]
        return self.today_first(self.pointed_first(records)) if "glossary" in rank.SIGNALS else records

    def _by_stems(self, store: Store) -> dict[str, list[Record]]:
        """Records by the stems of their title ("Legend Rule", "Tokens", "Mayhem")."""
        out: dict[str, list[Record]] = {}
        # documents quoting the official rules (a quoted rule's heading is all its text: the 2007 FAQ's "Lifelink")
        quoting = {r.doc for r in store.records.values() if r.kind == "rule" and r.title and r.text == r.title}
        for r in store.records.values():
            if r.title and r.kind in TITLE_ORDER:
                key = " ".join(content_stems(plain(_OBSOLETE.sub("", r.title))))
                if key:
                    out.setdefault(key, []).append(r)
                    # a keyword whose first definition is a rule without a title of its own (Treachery's ability word
                    # Undercover, 702.187f) answers with that rule before its page, as a titled rule does (a judge);
                    # not a sub-rule an FAQ quoted from the official rules (2007's 502.26b for morph: the page first)
                    first = next((ref.target for ref in r.refs if ref.field == "definitions"), None) \
                        if r.kind == "keyword" else None
                    defined = store.records.get(first) if first else None
                    if defined is not None and not defined.title and defined.doc not in quoting:
                        out[key].append(defined)
        for records in out.values():
            records.sort(key=self.rank)
        return out

    def rank(self, r: Record) -> tuple:
        """The current official rule first, then the other documents' own rules (Treachery's Unveil), the
        keyword page gathering every definition, rules an older edition of the official rules quoted (the
        2007 FAQ's, when the current rules are loaded), sections and notes, glossary entries, chapters;
        newest document first within each."""
        if "titles newest first" not in rank.SIGNALS:  # as before: keyword, rule, ..., document order
            return (TITLE_ORDER[r.kind], 0, self.store.position.get(r.id, 0))
        if r.kind == "rule":  # between the keyword page (2) and sections (4)
            tier = 0 if r.doc == "cr" else 3 if r.doc in self.ranker.older else 1
        else:
            tier = TITLE_ORDER[r.kind] + 1
        return (tier, self.recency.get(r.doc, 0), self.store.position.get(r.id, 0))

    def todays_rule(self, title: str) -> Record | None:
        """The current official rule a title names, as the title lead finds it: by the title's stems ("Tribals" is
        "Tribal"), or through the glossary entry of that name that points at it ("Tribal (Obsolete)" -> 308)."""
        records = self.pointed_first(self.by_stems.get(" ".join(content_stems(plain(title))), []))
        return next((r for r in records if r.doc == "cr" and r.kind == "rule"), None)

    def today_first(self, records: list[Record]) -> list[Record]:
        """Rules an older edition of the official rules quoted come after today's official rule, also when the
        query names today's rule by an obsolete name its glossary renames ("tribal": the 2007 FAQ's 212.8 Tribals
        stood before 308 Kindreds, which the glossary's "Tribal (Obsolete)" points at)."""
        older = [r for r in records if r.kind == "rule" and r.doc in self.ranker.older]
        today = next((i for i, r in enumerate(records) if r.kind == "rule" and r.doc == "cr"), None)
        if not older or today is None or records.index(older[0]) > today:
            return records
        rest = [r for r in records if r not in older]
        at = rest.index(records[today]) + 1
        return rest[:at] + older + rest[at:]

    def pointed_first(self, records: list[Record]) -> list[Record]:
        """A glossary entry that sends the reader to a rule of its own document ("Priority: ... See
        rule 117") comes after that rule; one that only sends the reader to another entry ("APNAP
        Order: See Active Player, Nonactive Player Order.") after that entry and the rule it cites
        first (101.4)."""
        out: list[Record] = []
        listed: set[str] = set()  # their ids: a record id is one record of the store (not a field-by-field compare)
        for r in records:
            target = self.store.records.get(self.ranker.pointers.get(r.id, ""))
            for first in ([target] if target is not None else []) + self.see_also.get(r.id, []):
                if first.id not in listed:
                    out.append(first)
                    listed.add(first.id)
            if r.id not in listed:
                out.append(r)
                listed.add(r.id)
        return out

    def _see_entries(self, store: Store) -> dict[str, list[Record]]:
        """Glossary id -> [the rule, the entry] for an entry that only says "See <another entry>.": the
        rule of its own document that entry points at (or, citing several, cites first), then the entry."""
        by_title = {(r.doc, fold(plain(r.title)).lower()): r for r in store.records.values()
                    if r.kind == "glossary" and r.title}
        out: dict[str, list[Record]] = {}
        for r in store.records.values():
            m = SEE_ENTRY.match(r.text or "") if r.kind == "glossary" else None
            entry = by_title.get((r.doc, fold(m.group("to")).lower())) if m else None
            if entry is None or entry.id == r.id:
                continue
            cited = rank.own_rules_cited(store, entry)
            rule = store.records.get(self.ranker.pointers.get(entry.id, "") or (cited[0] if cited else ""))
            out[r.id] = ([rule] if rule is not None else []) + [entry]
        return out
