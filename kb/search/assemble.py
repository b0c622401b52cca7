"""Stage 5, assemble: the page of ``Results``: the lead's records, then the candidates, each a ``Hit`` saying its
document and version with a snippet marking what matched (an example's or commentary's passage when that matched);
facets, the notes saying how the query was read (rewritten, corrected, nothing matched, a subject these documents
do not cover), "did you mean", pagination.

Reads: the store (labels, a heading's first sub-rule), the documents' titles and versions (kb.search.tables), the
vocabulary's ``[[outside]]`` entries; keeps each record's snippet positions once per build.
"""
from __future__ import annotations

import html
import re

from kb.index import plain
from kb.model import Record
from kb.rank import Candidate
from kb.search.candidates import Found
from kb.search.lead import Lead
from kb.search.parse import Query
from kb.search.results import Hit, Results, Rewrite
from kb.search.tables import Tables
from kb.snippet import Marks, Positions, clip, marking, matched, shown, snippet, translation

__all__ = ["Assembler"]


def _outside(entries) -> list[tuple[re.Pattern, str, str, frozenset[str] | None]]:
    """The vocabulary's ``[[outside]]`` entries (ingest.vocabulary.load_outside): each one's sayings as one pattern
    of whole words, with what it is about, where that lives, and the first words of its sayings (lowercased; None
    when one is not all ASCII letters, digits and ``_``, then only the pattern decides: ``_says``)."""
    out = []
    for e in entries:
        pattern = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(x).replace(r"\ ", r"\s+") for x in e["say"])
                             + r")(?!\w)", re.IGNORECASE)
        firsts = [x.split(" ", 1)[0].lower() for x in e["say"]]
        out.append((pattern, e["about"], e["see"],
                    frozenset(firsts) if all(_ASCII_WORD.fullmatch(f) for f in firsts) else None))
    return out


_ASCII_WORD = re.compile(r"\w+", re.ASCII)


def _says(pattern: re.Pattern, firsts: frozenset[str] | None, text: str) -> bool:
    """``pattern`` (an ``[[outside]]`` entry's, ``_outside``) finds one of its sayings in ``text``. The pattern (an
    alternation of 38 sayings, case-insensitive, tried at every position: 13 us for a question) is run only when
    some whole word of the text is the first word of a saying: a match starts where no word character precedes,
    and its first word is followed by a space or by no word character, so that word is a whole word of the text
    (a run of word characters), equal to the saying's first word as ``str.lower`` compares them in ASCII text
    (case-insensitive matching of other text is more than ``str.lower``: there the pattern decides)."""
    if firsts is not None and text.isascii() and firsts.isdisjoint(_ASCII_WORD.findall(text.lower())):
        return False
    return pattern.search(text) is not None



class Assembler:
    """(Query, Lead, Found) -> ``Results``; a record's hit, snippet positions and label made once per build."""

    def __init__(self, tables: Tables):
        self.store, self.versions, self.docnums = tables.store, tables.versions, tables.docnums
        self.outside = _outside(tables.store.manifest.get("outside", ()))
        # each hit's positions for snippets, filled as hits need them and never changed once stored
        self.positions: dict[int, Positions] = {}
        self._aside_positions: dict[int, list[Positions]] = {}  # examples and commentary (_asides), never changed
        self._labels: dict[str, str] = {}  # record id -> Store.label, filled as hits need them, never changed

    def assemble(self, query: Query, lead: Lead, found: Found) -> Results:
        """The page of hits (the lead's records, then the candidates), its facets, notes and "did you mean"."""
        facets = found.facets
        for r in lead.records:
            facets["doc"][r.doc] = facets["doc"].get(r.doc, 0) + 1
            facets["kind"][r.kind] = facets["kind"].get(r.kind, 0) + 1
        everything: list = lead.records + found.top
        marks = marking(found.terms)  # what the snippets look up: the same spans, from fewer lists (kb.snippet)
        page = [self._lead_hit(x, lead.cites.get(x.id)) if isinstance(x, Record) else self._hit(x, found.terms, marks)
                for x in everything[query.offset:query.offset + query.limit]]
        note, searched_for, rewrite_note, rewrites = self._said(query, lead, found)
        did_you_mean = (lead.corrected_to or found.suggestion) if not lead.records or lead.mistyped else None
        # searched already, and the note says so: a title found once corrected, a typo fixed before the
        # full-text search, or nothing matched and the correction's results are shown
        searched = bool(did_you_mean) and (bool(lead.corrected_to) or not found.offered)
        return Results(query.raw, len(lead.records) + found.total, page, facets, did_you_mean=did_you_mean,
                       redirect=lead.redirect, note=note or None, offset=query.offset, limit=query.limit,
                       matched_by=lead.matched_by, searched_for=searched_for, did_you_mean_searched=searched,
                       rewrite_note=rewrite_note, rewrites=rewrites,
                       nearest=lead.missed and bool(lead.records), matched=len(lead.records) + found.matched)

    def _said(self, query: Query, lead: Lead, found: Found) -> tuple[str, str | None, str | None, list[Rewrite]]:
        """What the answer says of how the query was read: its note, the query searched for when rewritten or
        corrected, the vocabulary's rewrite note and its rewrites."""
        note = lead.note
        searched_for, rewrite_note = None, None
        rewrites: list[Rewrite] = []
        if found.corrected and not lead.records:
            note = f"nothing matched {query.text!r}; showing results for {found.suggestion!r}"
        elif found.unmatched and not lead.records:
            note = f"nothing matched {query.text!r}"
        elif (query.words.used or found.fixed) and not lead.complete:
            searched_for = lead.corrected_to or found.fixed or query.words.text
            if query.words.used and not (lead.matched_by == "card" and note):
                # "showing The Puppet Master for 'puppetmaster'" says it already
                rewrite_note = f"Searching for {query.words.note}"
                rewrites = list(dict.fromkeys(Rewrite(said, means) for said, means, _ in query.words.used))
                note = "; ".join(filter(None, [note, rewrite_note]))
            # "showing Tarmogoyf for 'tarmogyof'", or a title's correction already said
            if found.fixed and not (lead.matched_by == "card" and note) and not lead.corrected_to:
                note = "; ".join(filter(None, [note, f"spelling corrected: {found.said_fixed or found.fixed!r}"]))
        outside = next((f"{about} is not in these documents: see {see}" for said, about, see, firsts in self.outside
                        if _says(said, firsts, query.text)), None)  # "drew 8 cards by mistake, what's the penalty"
        return "; ".join(filter(None, [note, query.limited, outside])), searched_for, rewrite_note, rewrites

    def _hit(self, c: Candidate, terms: set[str], marks: Marks) -> Hit:
        """A result for the page: the record's fields and a highlighted snippet. ``marks``: ``marking(terms)``, made
        once a page (the passage that matched is chosen by ``terms``, each distinct word counted)."""
        record = c.record
        where = self.positions.get(c.docnum) if c.docnum is not None else None
        if where is None:
            where = Positions(self.shown(record))
            if c.docnum is not None:
                where = self.positions.setdefault(c.docnum, where)
        if record.examples or record.commentary:  # the passage that matched: the text, or an example
            where = matched([where, *self._asides(c.docnum, record)], terms)
        text = snippet(where, marks)
        if where.body.startswith("Example:") and not text.startswith("Example:"):
            text = "Example: " + text  # the example's window, said to be one
        if "<mark>" not in text and translation(record.text):
            # matched by its translation line ("dévoilement"): that line, marked, then its first sub-rule's words
            text = snippet(Positions(plain(f"{record.text} {self.shown(record)}")), marks)
        hit = self._make_hit(record, text, float(c.score))
        hit.asked = c.asked
        return hit

    def _asides(self, docnum: int | None, record: Record) -> list[Positions]:
        """A record's examples and commentary, each a passage a snippet may show; once per record and build."""
        found = self._aside_positions.get(docnum) if docnum is not None else None
        if found is None:
            found = [Positions(plain(x)) for x in (*record.examples, *record.commentary)]
            if docnum is not None:
                found = self._aside_positions.setdefault(docnum, found)
        return found

    def _lead_hit(self, record: Record, cites: str | None = None) -> Hit:
        where = self.positions.get(self.docnums.get(record.id, -1))  # its text made plain once (warm)
        # escaped as its snippet would be (Positions.escape: html.escape, or nothing to do for a text without & < > " ')
        text = where.escape(clip(where.body)) if where else html.escape(clip(self.shown(record)))
        hit = self._make_hit(record, text, 1000.0)
        hit.cites = cites
        return hit

    def shown(self, record: Record) -> str:
        """The text a hit's snippet is cut from (kb.snippet.shown): the record's own, or a heading's first
        sub-rule's ("Deathtouch is a static ability."), not nothing nor a translation line alone."""
        return plain(shown(record, self.store.records))

    def _make_hit(self, record: Record, text: str, score: float) -> Hit:
        document, version = self.versions.get(record.doc, (record.doc, ""))
        label = self._labels.get(record.id)
        if label is None:  # a ruling's label walks up to its card's
            label = self._labels.setdefault(record.id, self.store.label(record))
        return Hit(record.id, record.doc, record.kind, record.number, record.title, text, score,
                   label, document, version)
