"""The per-record tables a search result reads, filled when a build is warmed instead of by the first
queries that land on each record.

``Searcher.warm`` (``kb serve`` runs it in the background when a build opens) already fills each record's
snippet positions and re-rank rows. What a first query still paid for, measured by comparing a fresh warmed
searcher's tables before and after the bench's query classes (``kb bench``, issue 33): each hit's label
(``Store.label`` walks up to a ruling's card), the positions of a record's examples and commentary (its
snippet may come from one), and the docnums under a rule a question's term leads to. Each is one entry per
record, made once per build and never changed afterwards (the searcher's own tables, so a query racing the
warming stores the same value), so the memory is bounded by the build's records.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kb.search import Searcher

__all__ = ["warm_hits"]


def warm_hits(searcher: Searcher) -> None:
    """Fill ``searcher``'s per-record hit tables for every record of its index (see the module docstring)."""
    assembler, candidates = searcher.assembler, searcher.candidates
    records, labels, label = searcher.store.records, assembler._labels, searcher.store.label
    for docnum, rid in list(searcher.ids.items()):
        record = records.get(rid)
        if record is None:
            continue
        if rid not in labels:
            labels.setdefault(rid, label(record))
        if record.examples or record.commentary:
            assembler._asides(docnum, record)
        if record.children:
            candidates._under_docnums(rid)
