"""What a search answers: ``Results``, a page of ``Hit``s, the vocabulary's ``Rewrite``s, and ``QueryError``.

The last stage (kb.search.assemble) makes them; the site, the API and the bot read them (web.data, web.api).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kb.ids import record_url

__all__ = ["QueryError", "Hit", "Rewrite", "Results"]


class QueryError(ValueError):
    """A query the search cannot run, with a message fit to show the user."""


@dataclass(slots=True)
class Hit:
    id: str
    doc: str
    kind: str
    number: str | None
    title: str | None
    snippet: str  # HTML: escaped text with <mark> around matched words
    score: float
    label: str = ""  # how the record is named in a result list (Store.label)
    document: str = ""  # the document's title ("Future Sight FAQ")
    version: str = ""  # its version and date ("last modified March 25, 2007 (2007-05-04)")
    asked: str | None = None  # the common question it answers that the query matched (kb.asked)
    cites: str | None = None  # listed after a rule number's own records because it cites that rule ("613.1c")

    def to_json(self) -> dict:
        return {"id": self.id, "doc": self.doc, "kind": self.kind, "number": self.number,
                "title": self.title, "label": self.label, "snippet": self.snippet, "url": record_url(self.id),
                "document": self.document, "version": self.version, "score": round(self.score, 3),
                "asked": self.asked, "cites": self.cites}


@dataclass(frozen=True)
class Rewrite:
    """One phrase the vocabulary rewrote: what the reader said, and the rules' word searched for it."""
    said: str
    means: str


@dataclass
class Results:
    query: str
    total: int
    hits: list[Hit]
    facets: dict[str, dict[str, int]]
    did_you_mean: str | None = None
    redirect: str | None = None  # the one record a reference or exact card name means
    note: str | None = None
    offset: int = 0
    limit: int = 10
    matched_by: str = "text"  # "reference", "card", "title" or "text"
    searched_for: str | None = None  # the query in the documents' words, when it was rewritten
    # the hits are for ``did_you_mean`` already and the note says so ("spelling corrected: ..."): a page or a
    # message offers it no second time (a judge read the two as two corrections)
    did_you_mean_searched: bool = False
    nearest: bool = False  # no rule has the number asked: the hits are the nearest numbers that exist
    matched: int = 0  # every record sharing a word with the question (``total`` counts those worth showing)
    # the note's "Searching for removed, the rules' word for wear off" as it says it, and its (said, means) pairs
    rewrite_note: str | None = None
    rewrites: list[Rewrite] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"query": self.query, "total": self.total, "offset": self.offset, "limit": self.limit,
                "results": [h.to_json() for h in self.hits], "facets": self.facets,
                "did_you_mean": self.did_you_mean, "redirect": self.redirect and record_url(self.redirect),
                "note": self.note, "matched_by": self.matched_by, "searched_for": self.searched_for,
                "did_you_mean_searched": self.did_you_mean_searched, "nearest": self.nearest,
                "matched": self.matched}
