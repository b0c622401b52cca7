"""Which rulings and notes of an older document rest on a rule that has changed since, as one build says.

The build reads ``corpus/<slug>_obsolete.toml`` (ingest.obsolete) and carries, in its manifest, each table's
entries and the records each flags. This reads that once per opened build and answers a record's
``obsolete``: the weightiest change it rests on, as the JSON and the banner say it::

    {"key": "mana-burn", "kind": "rule", "term": "mana burn", "since": "2009-07-11", "release": "Magic 2010",
     "why": "Mana burn no longer exists: ...", "today": "cr/500.5", "today_rule": "500.5",
     "glossary": "cr/glossary/mana-burn-obsolete", "also": [<the other changes it rests on, the same shape>]}

``today`` is the record id of today's rule when this build has the official rules, else None, and ``why``
then ends with the rule's number in words ("today: rule 500.5 of the Comprehensive Rules"), so that a
reader of a build without them still knows where to look. ``glossary`` is None likewise.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kb.model import Record

__all__ = ["Obsolete"]


class Obsolete:
    """The build's obsolete rulings and notes, and how a 2007 type line reads in today's words."""

    def __init__(self, tables: Any, records: Mapping[str, Record]):
        self._flags: dict[str, list[dict[str, Any]]] = {}
        self._type_line: dict[str, list[dict[str, str]]] = {}
        for table in tables if isinstance(tables, list) else ():
            entries = {e["key"]: _resolved(e, records) for e in table.get("entries", ())}
            for record_id, keys in table.get("flagged", {}).items():
                self._flags[record_id] = [entries[k] for k in keys if k in entries]
            self._type_line[table.get("doc", "")] = list(table.get("type_line", ()))

    def __contains__(self, record_id: str) -> bool:
        return bool(self._flags.get(record_id))

    def of(self, record_id: str) -> dict[str, Any] | None:
        """What the record's JSON says as ``obsolete``: the first change it rests on, the others under ``also``."""
        found = self._flags.get(record_id)
        if not found:
            return None
        return {**found[0], "also": [dict(e) for e in found[1:]]}

    def flagged(self) -> list[str]:
        return sorted(self._flags)

    def type_line_today(self, record: Record) -> str | None:
        """A card's type line in today's words (the FAQ's "Tribal Enchantment -- Rebel Aura" is "Kindred Enchantment
        — Rebel Aura"), or None when today's words are the same."""
        if not record.type_line:
            return None
        today = record.type_line
        for change in self._type_line.get(record.doc, ()):
            today = today.replace(change["find"], change["replace"])
        return today if today != record.type_line else None


def _resolved(entry: dict[str, Any], records: Mapping[str, Record]) -> dict[str, Any]:
    """An entry as a record's JSON says it: today's rule as a record id of this build, or None and its number."""
    today = f"cr/{entry['today']}"
    glossary = entry.get("glossary")
    out = {k: entry[k] for k in ("key", "kind", "term", "since", "release", "why")}
    out["today_rule"] = entry["today"]
    if today in records:
        out["today"] = today
    else:
        out["today"] = None
        out["why"] = f"{entry['why'].rstrip('.')} (today: rule {entry['today']} of the Comprehensive Rules)."
    out["glossary"] = glossary if glossary in records else None
    return out
