"""Cheap answers for the typo path of search (kb.search): questions it asked plain Whoosh.

A typed query no record matched is corrected (``Searcher._fix_typos``) and, when the corrected words are not
all in one record either, offered rather than searched (``_said_together``). That question, "does some record
hold every one of these stems in its title or body", went through Whoosh's collector (an ``And`` of
``title OR body`` terms, which kb.engine's scorer does not model), about a millisecond of a typo query's first
run. The build's postings (kb.engine.Postings, one table per build, read-only once stored) answer it as a set
intersection: the same documents, so the same answer.
"""
from __future__ import annotations

from collections.abc import Iterable

from kb.engine import Postings

__all__ = ["said_together"]


def said_together(postings: Postings, searcher, stems: Iterable[str]) -> bool:
    """Some record holds every stem of ``stems`` in its title or body (False for no stems)."""
    together: set[int] | None = None
    for stem in stems:
        docs: set[int] = set()
        for name in ("title", "body"):
            term = postings.term(searcher, name, stem.encode())
            if term is not None:
                docs.update(term.ids)
        together = docs if together is None else together & docs
        if not together:
            return False
    return bool(together)
