"""One query box: rule references, card names, titles, then ranked full text.

``Searcher`` is the entry point and only composes the stages, each a small object of its own module that hands
the next a dataclass (``Searcher._search`` calls them in order):

1. **parse** (kb.search.parse, ``Parser`` -> ``Query``): limits checked, ``doc:``/``kind:`` filters taken out,
   the question's table words rewritten in the documents' words (kb.vocabulary), a document or kind it names;
2. **lead** (kb.search.lead, ``Leader`` -> ``Lead``): what answers before any ranking: a rule reference in any
   form, a number with words, references cited in a sentence, a card name, a title (kb.search.titles), a
   title mistyped; a reference or an exact card name answers alone, without the full-text index;
3. **candidates** (kb.search.candidates, ``Candidates`` -> ``Found``): BM25F over titles (boosted) and stemmed
   bodies through kb.engine, the best ``rank.WINDOW`` re-ranked (kb.rank over the kb.signals registry), the
   semantic stage (kb.semantic) after the relevance floor, facets; misspelt words corrected first and "did you
   mean" with few matches (kb.search.typos);
4. **assemble** (kb.search.assemble, ``Assembler`` -> ``Results``): the page of hits with snippets, notes,
   pagination.

Autocomplete is kb.search.complete. What every stage reads of the build (its docnums, words, postings, per-stem
tables, re-ranker, vocabulary) is one ``kb.search.tables.Tables``, made when the searcher opens and read-only
afterwards; the opened build holds the searcher (kb.kbase), so all of it goes with the build.
docs/search.md draws the stages and what each reads.

The Whoosh searcher is opened once per thread and reused; queries are built from our
own tokens, so no Whoosh syntax (``a*``, ``~9``, ``field:``, ``^99``) can reach the
engine and explode.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any


from kb import rank
from kb.cache import ByteLRU
from kb.model import KINDS, Record
from kb.positions import PhraseTable
from kb.refs import parse_ref
from kb.search.assemble import Assembler
from kb.search.candidates import Candidates, Found
from kb.search.complete import Completer
from kb.search.lead import Lead, Leader
from kb.search.parse import MAX_LIMIT, MAX_OFFSET, MAX_QUERY, Parser, Query, content_stems, named_words, naming_stems
from kb.search.results import Hit, QueryError, Results, Rewrite
from kb.search.tables import Tables
from kb.search.titles import Titles
from kb.search.typos import Typos, title_words
from kb.search.warming import warm_hits
from kb.snippet import Positions
from kb.store import Store
from kb.words import typed

__all__ = ["Searcher", "Results", "Hit", "QueryError", "Rewrite", "MAX_QUERY", "MAX_LIMIT", "MAX_OFFSET"]

# the names the stage tests (tests/test_search_stages.py, test_search_signals.py) import from here
_Query, _Lead, _Found = Query, Lead, Found
_content_stems, _naming_stems, _named_words = content_stems, naming_stems, named_words

ANSWER_CACHE_BYTES = 8 * 1024 * 1024  # web/serve.py: what a worker's caches may hold together


def _answer_bytes(results: Results) -> int:
    """About what a cached answer weighs: its query, its hits' strings and their objects."""
    hits = sum(600 + 2 * (len(h.snippet) + len(h.label) + len(h.id)) for h in results.hits)
    return 2 * len(results.query) + hits + 1500


class _OnTables:
    """A searcher's attribute that is its ``Tables``' own, read and set there."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, searcher: Searcher | None, owner: type | None = None) -> Any:
        return self if searcher is None else getattr(searcher.tables, self.name)

    def __set__(self, searcher: Searcher, value: Any) -> None:
        setattr(searcher.tables, self.name, value)


class Searcher:
    """The search of one opened build: the stages (module docstring) over its ``Tables``."""

    def __init__(self, store: Store, index_path: Path | None = None, cache_size: int = 2048, fast: bool = True,
                 semantic: bool = False, learned: bool = False, cross: bool = False):
        self.tables = t = Tables(store, index_path, fast, semantic, learned, cross)
        self.parser = Parser(t.docs, t.vocabulary, t.knows, t.named_cards, t.resolver.section_titles,
                             t.resolver.doc_names)
        self.titles = Titles(t)
        self.typos = Typos(t, title_words(self.titles.by_stems.values()))
        self.leader = Leader(t, self.titles, self.typos)
        self.candidates = Candidates(t, self.typos)
        self.assembler = Assembler(t)
        self.completer = Completer(t, self.typos, self.assembler.shown)
        # A build never changes, so neither does an answer: a tournament hall asking for the same
        # rule after an announcement is answered from memory. (kb bench measures with it off.)
        # Bounded by bytes, not entries: unique queries must not grow a worker without end (kb.cache).
        self._cached = ByteLRU(ANSWER_CACHE_BYTES, _answer_bytes) if cache_size else None
        # what other modules and tests read of a searcher: the build's tables, the same objects
        self.store, self.fast, self.resolver, self.ix, self.docs = store, fast, t.resolver, t.ix, t.docs
        self.ids, self.docnums, self.record_of, self.doc_of, self.kind_of = t.ids, t.docnums, t.record_of, t.doc_of, \
            t.kind_of
        self.recency, self.versions, self.ranker, self.vocabulary, self.sizes = t.recency, t.versions, t.ranker, \
            t.vocabulary, t.sizes
        self.exact_df, self.spelling, self.postings, self.card_names = t.exact_df, t.spelling, t.postings, \
            t.card_names

    @property
    def searcher(self):
        """This thread's Whoosh searcher (Tables.searcher)."""
        return self.tables.searcher

    # What the stages read of the build's tables and a caller may swap on a searcher of its own: the semantic
    # stage (or None: lexical only; set while measuring, kb.semantic.train), the common questions (kb.asked; swapped
    # only while training, kb.learned.train), the learned ranker (or None: the hand-tuned order) and the
    # cross-encoder (or None: off; kb.cross).
    semantic = _OnTables()
    asked = _OnTables()
    learned = _OnTables()
    cross = _OnTables()

    def asked_table(self, entries):
        """The common questions ``entries`` analysed as a question is (Tables.asked_table)."""
        return self.tables.asked_table(entries)

    def release(self) -> None:
        """This thread is done searching for now: its Whoosh searcher goes back for another (Tables.release)."""
        self.tables.release()

    def close(self) -> None:
        self.tables.close()

    def warm(self) -> None:
        """Fill the per-record tables queries read (snippet positions; the re-ranker's stems, heading
        stems and word pairs) for every record, so that a record's first hit costs what later ones
        do (cold, a unique query's p90 is ~4x its warm cost with the official rules). ``kb serve``
        runs it in a background thread per worker when a build opens (~0.5 s with the CR); each
        table is filled once per record and never changed afterwards, so racing a query is harmless.
        """
        for docnum, rid in list(self.ids.items()):
            record = self.store.records.get(rid)
            if record is None:
                continue
            if docnum not in self.assembler.positions:
                self.assembler.positions.setdefault(docnum, Positions(self.assembler.shown(record)))
            self.ranker.row(record, docnum)
            for asked in rank.ASKS:  # what the record says that a question asks for (a number, a time, ...)
                self.ranker.says(record, asked)
        self.resolver.words  # noqa: B018 -- the documents' words, which a card typo reads, filled here, not on a query
        warm_hits(self)  # each hit's label, example positions and the docnums under a rule (kb.search.warming)
        self.tables.warm_stems()
        self.candidates.warm()  # the words a question's builder adds (vocabulary, numbers), the records under terms
        for doc in [None, *sorted(self.docs)]:  # the docnums each doc:/kind: filter lets through
            for kind in [None, *KINDS]:
                if doc or kind:
                    self.postings.allowed_mask(self.searcher, self.tables.filter(doc, kind))
        for text in ("cr 702.19b", "Token Cards j (ii)"):  # the reference patterns, compiled once, not on a query
            parse_ref(text, sections=self.resolver.section_titles, bare_numbers=True, doc_names=self.resolver.doc_names)
        if self.postings.phrases is None:  # phrases from the build's word sequences, not each word's positions
            self.postings.phrases = PhraseTable.read(self.searcher, "exact")
        if self.postings.phrases is not None:
            self.postings.phrases.warm(self.searcher)

    # -- entry point ---------------------------------------------------------------
    def search(self, q: str, doc: str | None = None, kind: str | None = None,
               limit: int = 10, offset: int = 0) -> Results:
        """Answer a query (see the module docstring); repeated queries come from a small cache."""
        q = typed(q)  # "７０２.１９", "\u200f702.19": the digits and marks the documents use
        if self._cached is None:
            return self._search(q, doc, kind, limit, offset)
        key = (q, doc, kind, limit, offset)
        answer = self._cached.get(key)
        return answer if answer is not None else self._cached.put(key, self._search(q, doc, kind, limit, offset))

    def _search(self, q: str, doc: str | None, kind: str | None, limit: int, offset: int) -> Results:
        query = self._parse(q, doc, kind, limit, offset)
        if not query.text:
            return Results(q, 0, [], {"doc": {}, "kind": {}}, offset=offset, limit=limit)
        lead = self._lead(query)
        found = Found() if lead.complete else self.candidates.full_text(query, exclude={r.id for r in lead.records})
        return self._assemble(query, lead, found)

    # -- 1. parse (kb.search.parse) --------------------------------------------------------
    def _parse(self, q: str, doc: str | None, kind: str | None, limit: int, offset: int) -> Query:
        return self.parser.parse(q, doc, kind, limit, offset)

    # -- 2. lead: references, cards, titles (kb.search.lead) ---------------------------------
    def _lead(self, query: Query) -> Lead:
        return self.leader.lead(query)

    def rule_with_words(self, text: str) -> Record | None:
        """The rule a number with words names, as the search box opens it ("704.5 legend rule": 704.5j), or None
        when the words fit no rule of that number."""
        return self.leader.rule_with_words(text)

    def todays_rule(self, title: str) -> Record | None:
        """The current official rule a title names, as the title lead finds it (kb.search.titles.Titles.todays_rule)."""
        return self.titles.todays_rule(title)

    # -- 3. candidates (kb.search.candidates) ------------------------------------------
    def _full_text(self, query: Query, exclude: set[str]) -> Found:
        return self.candidates.full_text(query, exclude)

    # -- 5. assemble (kb.search.assemble) -----------------------------------------------
    def _assemble(self, query: Query, lead: Lead, found: Found) -> Results:
        return self.assembler.assemble(query, lead, found)

    @property
    def _positions(self) -> dict[int, Positions]:
        """Each hit's snippet positions (kb.search.assemble), which ``warm`` fills."""
        return self.assembler.positions

    # -- autocomplete (kb.search.complete) ------------------------------------------------
    def autocomplete(self, q: str, limit: int = 10) -> list[dict]:
        """Up to ``limit`` labels starting with ``q`` (or with a word starting with it): kb.search.complete."""
        return self.completer.complete(q, limit)
