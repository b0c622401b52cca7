"""Numbers a document's version history renamed or removed, in one place.

Used by ingest's reference pass (with the profile's tables) and by the
resolver (with the same tables, carried in the build manifest). A removed
number is checked first: Treachery renamed rule 314 into 372 *and* removed
314.8, so "314.8" answers "removed", not 372.8.
"""
from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Iterable

from kb.refs import descends

__all__ = ["Alias", "alias"]


@dataclass(frozen=True)
class Alias:
    number: str | None  # the current number, or None when the rule was removed
    note: str


def alias(number: str, renamed: Iterable[dict], removed: Iterable[dict], exists,
          document: str | None = None) -> Alias | None:
    """What an old ``number`` (lowercase) stands for now, if the history says anything about it.

    ``renamed`` entries have ``old``, ``new``, ``version``; ``removed`` entries ``number``,
    ``why``, ``version``; ``exists(number)`` tells whether the document has a current number.
    ``document`` names the document in a removal's note ("Treachery rule 314.8 was removed ..."): the
    reader lands on no record of it, and other documents (the official rules) may be loaded too.
    """
    for r in removed:
        if number == r["number"].lower():
            whose = f"{document} rule" if document else "rule"
            return Alias(None, f"{whose} {r['number']} was {r['why']} (version {r['version']})")
    for r in renamed:
        old = r["old"].lower()
        if descends(number, old):
            new = r["new"].lower() + number[len(old):]
            if exists(new):
                return Alias(new, f"{r['old']} was renamed {r['new']} in version {r['version']}")
    return None
