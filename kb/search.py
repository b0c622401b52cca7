"""One query box: rule references, card names, titles, then ranked full text.

The pipeline, one small stage each (``Searcher._search`` only calls them in order):

1. **parse**: limits checked, ``doc:``/``kind:`` filters taken out, the question's table words
   rewritten in the documents' words (kb.vocabulary: "kill" -> destroy, "etb" -> enters the
   battlefield), a document the question names noted;
2. **lead**: what answers before any ranking: a rule reference in any form (a parent number
   with its sub-rules; a number two documents use, both documents' rules first); a number
   with words ("702.19 trample") when the words fit the rule; a card name (exact, within
   two typos, a prefix or joined words: "tarmo", "timebender"); a title exactly (the
   current official rule first, then the keyword page, other documents newest first);
3. **full text**: BM25F in Whoosh over titles (boosted) and stemmed bodies, with phrases and
   filters; the best ``rank.WINDOW`` re-ranked in Python (kb.rank: coverage of the
   question, glossary pointers, document named, word pairs);
4. **did you mean**: with few hits, the index's own words within one edit (two for the
   keywords and titles), and a retry with them;
5. **assemble**: the page of hits (each saying its document and version), facets, notes.

The Whoosh searcher is opened once per thread and reused; queries are built from our
own tokens, so no Whoosh syntax (``a*``, ``~9``, ``field:``, ``^99``) can reach the
engine and explode.
"""
from __future__ import annotations

import html
import re
from bisect import bisect_left
import threading
from types import EllipsisType
from collections import Counter
from itertools import islice
from collections.abc import Iterator, Iterable
from operator import attrgetter, itemgetter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from whoosh import query as Q
from whoosh.scoring import BM25F

from kb import engine, rank
from kb.asked import Asked
from kb.cache import ByteLRU
from kb.ids import fold, record_url
from kb.index import open_index, plain
from kb.model import KINDS, Record
from kb.positions import PhraseTable
from kb.querylimits import limit_query
from kb.rank import Candidate, Ranker
from kb.refs import find_refs, number_order, parse_ref, undated, yearless_day
from kb.resolve import Resolver, edit_distance
from kb.semantic.vectors import open_stage
from kb.snippet import Positions, clip, matched, shown, snippet, stem, translation
from kb.spelling import Spelling
from kb.store import Store
from kb.typos import said_together
from kb.vocabulary import SEE_ENTRY, Expansion, Vocabulary
from kb.warming import warm_hits
from kb.words import FILLER_WORDS, QUESTION_WORDS, TOKEN_RE, typed, words

__all__ = ["Searcher", "Results", "Hit", "QueryError", "MAX_QUERY", "MAX_LIMIT", "MAX_OFFSET"]

MAX_QUERY = 500  # characters; longer input is refused, not truncated silently
MAX_LIMIT = 100
MAX_OFFSET = 10_000
MAX_TERMS = 24
# A number being typed after a prefix, written as the reference grammar (kb.refs) reads it: "cr 702.1", "CR §613",
# "cr/613.4", "rule 613"; or after a document's name: "tr 70", "treachery: 907.4", "fs rule 502.2", "treachery/907".
_COMPLETE_PREFIX = re.compile(r"^(?P<prefix>cr(?:\.?\s*§|[./])?|rules?(?:\s*§)?|r\.)\s*(?P<number>\d{1,3}(?:\.\w*)?)$")
_COMPLETE_DOC = re.compile(r"^(?P<name>\D+?)(?:\s*[:/]\s*|\s+)(?:(?:rules?|r\.?|§)\s*)?(?P<number>\d{1,3}(?:\.\w*)?)$")
_TRAILING_PUNCTUATION = re.compile(r"(?<=[a-z])[.,;:!?]+$")  # not after a digit: "702." is a number being typed
_TYPED_NUMBER = re.compile(r"(?<![\w.,])(\d{3})[.,](\d{1,3}[a-z]{0,2})[.,;:!?]*$")
CARD_NAME_ELSEWHERE = 3  # records outside its card that may use a one-word name's word (kb.search._card_names)
MAX_CORRECTIONS = 8  # unknown words looked up for "did you mean"
UNDER_TERMS = 10  # records under a question's term that join the candidates (Searcher._under_terms)
UNDER_POSTINGS = 2000  # a word in more records than this ("card") is read by Whoosh's ranking alone


ANSWER_CACHE_BYTES = 16 * 1024 * 1024
WARM_STEMS = 2000  # stems whose per-build tables Searcher.warm fills (the most used: the costliest to fill on a query)
# A full-text result is worth showing (and counting) when Whoosh scores it at least this share of the best match:
# below it lie the records sharing one common word of the question ("card", "player"), 1,000-2,263 of them for an
# ordinary question. 0.35: the highest share at which no question of the quality suites (tests/test_search_quality.py,
# test_heldout.py) loses its answer from the first ten; 0.4 lost three (docs/search-behaviour.md).
RELEVANCE_FLOOR = 0.35


def _answer_bytes(results: Results) -> int:
    """About what a cached answer weighs: its query, its hits' strings and their objects."""
    hits = sum(600 + 2 * (len(h.snippet) + len(h.label) + len(h.id)) for h in results.hits)
    return 2 * len(results.query) + hits + 1500


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


@dataclass
class _Query:
    """A query after parsing: what to search for, where, and which page."""
    raw: str
    text: str  # without filters
    doc: str | None
    kind: str | None
    limit: int
    offset: int
    words: Expansion  # the text in the documents' words
    named_doc: str | None = None  # a document the question names ("... in treachery")
    named_kind: str | None = None  # a kind of record it names ("... glossary", "rulings")
    limited: str | None = None  # what kb.querylimits left out, said in the note
    correction: str | None | EllipsisType = ...  # its spelling correction once asked (Searcher._correction)
    # its texts without unknown words (Searcher._said) and with their typos corrected (Searcher._fix_typos; the
    # words of five letters: ``fixed_short``), each worked out once: the lead and the full-text stage both ask,
    # mostly of the same text
    said: dict[str, str] = field(default_factory=dict)
    fixed: dict[str, str | None] = field(default_factory=dict)
    fixed_short: dict[str, str | None] = field(default_factory=dict)


@dataclass
class _Lead:
    """Records that answer before any ranking (a reference, a card, a title)."""
    records: list[Record]
    matched_by: str
    note: str | None = None
    redirect: str | None = None
    complete: bool = False  # the answer is these records: no full-text search
    mistyped: bool = False  # a title found once a typo was corrected ("deathtuch"): the answer says "did you mean"
    corrected_to: str | None = None  # that correction, when the full-text search would not make it ("first strke")
    cites: dict[str, str] = field(default_factory=dict)  # a record listed as citing the reference -> what it cites
    followed: bool = False  # a reference inside a sentence: its records first, the full-text search after them
    missed: bool = False  # a reference to no rule: the note and the nearest numbers, nothing else


@dataclass
class _Found:
    """The full-text stage's answer: the best hits (re-ranked), and total and facets over every match."""
    top: list[Candidate] = field(default_factory=list)
    total: int = 0
    facets: dict[str, dict[str, int]] = field(default_factory=lambda: {"doc": {}, "kind": {}})
    suggestion: str | None = None
    terms: set[str] = field(default_factory=set)  # what snippets mark
    corrected: bool = False  # the hits are for the "did you mean" query, not the one typed
    fixed: str | None = None  # the query searched with its misspelt words corrected ("comander damage")
    said_fixed: str | None = None  # that correction in the user's words, as the note names it
    offered: bool = False  # ``suggestion`` was not searched: a "did you mean" only
    unmatched: bool = False  # nothing matched as typed and the correction was not searched in its place
    matched: int = 0  # every record sharing a word with the query (``total`` counts those worth showing)


EXCERPT = 60  # characters of a rule's words in an autocomplete suggestion


_FILTER = re.compile(r"\b(doc|kind):(\S+)")
_PUNCTUATION = ".,;:!?()[]{}\"'“”‘’"
_PHRASE = re.compile(r'"([^"]+)"')
# Question words carry no topic. Negations, "first", "last", "each" and single letters ("X")
# do, so they stay.
_STOP = QUESTION_WORDS
_ONLY_ASKING = QUESTION_WORDS | FILLER_WORDS  # words a question asks or chats with: never a typo to correct
# And around a rule number: "show me 702.19b", "what does 603.4 say".
_ASKING_FOR_A_RULE = _ONLY_ASKING | {"say", "says", "rule", "rules", "cr", "show", "me", "read", "look", "up", "about",
                                     "number", "from", "per", "according", "to", "in", "under", "comp",
                                     "comprehensive", "official"}  # "613.4b per the comp rules"
# Words asking about a rule across releases: "702.19c history", "702.19c as of 2020", "changes to 716.2".
_ACROSS_TIME = frozenset({"history", "changes", "changed", "versions", "version", "over", "time", "as", "of", "in",
                          "to", "since", "before", "old", "older", "previous"})
_YEAR = re.compile(r"(?:19|20)\d\d")
# Words that cite a rule rather than say anything of their own: "see rule 601.2f", "as in 704.5j", "cf. 510.1c",
# "(see also rule 702.19b)", "e.g. 116.2".
_CITING = frozenset({"see", "also", "cf", "as", "eg", "e", "g", "ie", "i", "under", "by", "described", "explained",
                     "stated", "defined", "written", "following", "rule", "rules"})
MAX_CITED = 4  # references of one sentence listed first (kb.search.Searcher._cited)
_CITED_AFTER = re.compile(r"(?:\b(?:see|per|in|under|cf|by|also|e\.?g|i\.?e)\.?,?|[(\[])\s*$", re.IGNORECASE)


def _citing_only(said: Iterable[str]) -> bool:
    """The words around a rule number only ask for it or cite it ("what does", "see", "per", "as in"), not about
    it across releases ("as of", "history", a year: kb.search._ACROSS_TIME)."""
    said = tuple(said)
    if any(w not in _ASKING_FOR_A_RULE and w not in _CITING for w in said):
        return False
    return not any(a == "as" and b == "of" for a, b in zip(said, said[1:], strict=False))
# Table talk's filler: "who gets priority after something resolves", "can someone still ...".
_FILLER = FILLER_WORDS
_STOP_OR_FILLER = _STOP | _FILLER  # once, not per query (a union of a hundred words, 1 us)
# Question phrases that carry no topic: "how many lands", "what counts as a permanent", "cast vs play".
_ASKING = re.compile(r"\b(?:how\s+(?:many|much)|what\s+counts?\s+as|vs|versus)\b\.?", re.I)
# A bare number followed by what it counts is a count: "a 200 card deck", "100 life", "150 damage".
_COUNTED = re.compile(r"(?:cards?|life|damage|players?|counters?|creatures?|lands?|turns?|points?|tokens?|copies|"
                      r"mana|poison)\W*$", re.I)
_OBSOLETE = re.compile(r"\s*\(Obsolete\)$")  # "Converted Mana Cost (Obsolete)" is titled "Converted Mana Cost"
_NUMBER = re.compile(r"^(?:\d{3}(?:\.\d+[a-z]{0,2})?|\d{3}\.[a-z]+-\d+)\.?$", re.I)


def _pairs(text: str) -> list[str]:
    """Adjacent content words of a query, as they would sit in folded text: " starting player "."""
    words = [fold(w) for w in _exact_words(_asked(_PHRASE.sub(" ", text))) if w not in _STOP][:MAX_TERMS]
    return rank.pairs(words)


def _asked(text: str) -> str:
    """A question without the phrases that only ask ("how many", "what counts as", "vs")."""
    return _ASKING.sub(" ", text) if "question phrases" in rank.SIGNALS else text


@lru_cache(maxsize=1024)
def _exact_words(text: str) -> tuple[str, ...]:
    """The words of a text as the unstemmed field (``kb.index.analyzer(stem=False)``) analyses them.
    Several stages analyse the same text of one query (titles, the Whoosh query, the re-rank's stems and
    word pairs)."""
    # kb.words.words is that analyzer's chain (tokenizer, lowercase, fold) without Whoosh's token objects
    # and generators, 3.5 -> 1.2 µs per text; tests/test_words.py holds the two equal on the whole corpus.
    return tuple(words(text))


def _content_stems(text: str) -> list[str]:
    """The stems of what a question is about: "what happens when a player has ten poison
    counters" -> player, ten, poison, counter (question words carry no topic)."""
    return list(_stems_of(text, "question phrases" in rank.SIGNALS))


_DOC_PHRASES = re.compile(r"\b(future)\s+(sight)\b|\b(edh)\s+(silver)\b")
_WORD = re.compile(r"\w+")


def _named_words(text: str) -> list[str]:
    """The folded words of a text, a document named in two words as one ("future sight" -> futuresight)."""
    return _WORD.findall(_DOC_PHRASES.sub(lambda m: "".join(filter(None, m.groups())), fold(text).lower()))


@lru_cache(maxsize=1024)
def _naming_stems(text: str) -> frozenset[str]:
    """The stems of the words naming a document or a kind of record ("treachery", "future sight", "rulings"):
    a preference (kb.rank), not a topic."""
    folded = fold(text).lower()
    names = {w for w in _named_words(text) if w in rank.DOC_NAMES or w in rank.KIND_NAMES}
    words = set(_WORD.findall(folded)) & names
    for m in _DOC_PHRASES.finditer(folded):  # both words of a two-word name
        if "".join(filter(None, m.groups())) in names:
            words.update(filter(None, m.groups()))
    return frozenset(stem(w) for w in words)


@lru_cache(maxsize=1024)
def _unquoted_stems(text: str) -> tuple[str, ...]:
    """The content stems of a query outside its "quoted phrases": none when the rest only asks
    (`what does "dies" mean`), where a query of question words alone searches for them. Once per
    text: the Whoosh query, the re-rank and the common questions each ask."""
    rest = _PHRASE.sub(" ", text)
    if rest != text and not any(w not in _STOP and w not in _FILLER for w in _exact_words(_ASKING.sub(" ", rest))):
        return ()
    return tuple(_content_stems(rest))


@lru_cache(maxsize=1024)
def _stems_of(text: str, questions: bool) -> tuple[str, ...]:
    """``_content_stems``, once per text: the lead, the Whoosh query and the re-rank each ask."""
    raw = list(_exact_words(_ASKING.sub(" ", text) if questions else text))
    stop = _STOP_OR_FILLER if questions else _STOP
    content = [w for w in raw if w not in stop] or raw
    return tuple([s for s in dict.fromkeys(stem(w) for w in content) if s][:MAX_TERMS])


def _outside(entries) -> list[tuple[re.Pattern, str, str]]:
    """The vocabulary's ``[[outside]]`` entries (ingest.vocabulary.load_outside): each one's sayings as one pattern
    of whole words, with what it is about and where that lives."""
    return [(re.compile(r"(?<!\w)(?:" + "|".join(re.escape(x).replace(r"\ ", r"\s+") for x in e["say"]) + r")(?!\w)",
                        re.IGNORECASE), e["about"], e["see"]) for e in entries]


def _effective(document: dict) -> str:
    """A document's effective date for "newest first", "" when undated."""
    value = str(document.get("effective") or "")
    return value if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value) else ""


class Searcher:
    def __init__(self, store: Store, index_path: Path | None = None, cache_size: int = 2048, fast: bool = True,
                 semantic: bool = False):
        self.store = store
        self.fast = fast  # False: every query through plain Whoosh (the reference tests/test_engine.py compares with)
        self.resolver = Resolver(store)
        self.ix = open_index(index_path or store.path / "index")
        # Whoosh's searcher reads its files through shared handles (seek, then read), so two
        # threads on one searcher corrupt each other's reads ("incomplete or truncated stream"
        # under gunicorn's threads). Each thread opens its own once and reuses it for every query.
        self._local = threading.local()
        self._opened: list = []
        self._opened_lock = threading.Lock()
        self.docs = {d["slug"] for d in store.documents} | {"keywords"}
        # docnum -> doc, kind, id: facets without touching stored fields per hit.
        self.ids: dict[int, str] = {}
        self.doc_of: list[str] = [""] * self.searcher.doc_count_all()
        self.kind_of: list[str] = list(self.doc_of)
        for n, f in self.searcher.iter_docs():
            self.doc_of[n], self.kind_of[n] = f["doc"], f["kind"]
            self.ids[n] = f["id"]
        self.docnums = {rid: n for n, rid in self.ids.items()}
        self.record_of: list = [store.records.get(self.ids.get(n, "")) for n in range(len(self.doc_of))]
        # docnum -> one small int for its (doc, kind) pair: facets count ints, once, not strings twice.
        both = list(zip(self.doc_of, self.kind_of, strict=True))
        self._facet_pair = sorted(set(both))
        self._facet_code = tuple(map({p: i for i, p in enumerate(self._facet_pair)}.__getitem__, both))
        # Newest document first where several answer alike (the current official rules first).
        dates = {d["slug"]: _effective(d) for d in store.documents}
        self.recency = {slug: i for i, slug in enumerate(sorted(dates, key=lambda s: dates[s], reverse=True))}
        self.versions = {d["slug"]: (d["title"], self._version(d)) for d in store.documents}
        self.versions["keywords"] = ("Keywords", "gathered from every document")

        self._complete = self._completions(store)
        self.ranker = Ranker(store, len(self.record_of))  # before the titles: they are ordered by its older documents
        self.titles = self._titles(store)
        self.title_words = self._title_words()
        self.vocabulary = Vocabulary.from_build(store.manifest, store.records.values()).with_joined(
            (r.title, r.id) for r in store.records.values() if r.title)
        self.sizes = dict(Counter(r.doc for r in store.records.values() if r.doc != "keywords"))
        self._outside = _outside(store.manifest.get("outside", ()))
        self._stem_uses: dict[str, dict[str, int]] = {}
        # per stem the index holds, filled as queries need them and never changed once stored: the document it
        # belongs to (rank.word_document, for the implied document) and its weight (rank.weights)
        self._owners: dict[str, str | None] = {}
        self._weight: dict[str, float] = {}
        self._under: dict[str, frozenset[int]] = {}  # record id -> its descendants' docnums (_under_docnums)
        # The unstemmed words' document frequencies, read once: "is this a word the documents use"
        # is asked of every word of most queries (card prefixes, did you mean), and Whoosh's terms
        # reader answers it from its hash file each time.
        self.exact_df: dict[str, int] = {
            (w.decode() if isinstance(w, bytes) else w): info.doc_frequency()
            for w, info in self.searcher.reader().iter_field("exact")}
        # Spelling corrects towards the documents' words, and towards the table words the vocabulary reads
        # ("fizzel" -> fizzle, "untargatable" -> untargetable), which no document may use; a document's word
        # wins a tie (a table word counts as used by no record).
        self.vocabulary.with_nicknames(self._nicknames(store))  # "goyf tribal": Tarmogoyf's name, in a question
        table_words = [w for w, *more in self.vocabulary.phrases if not more and w not in self.exact_df]
        self.spelling = Spelling([*self.exact_df, *table_words], lambda w: self.exact_df.get(w, 0))
        # Every posting of the fields queries use, scored once per build (kb.engine), and each hit's
        # stem positions for snippets, filled as hits need them and never changed once stored.
        self.postings = engine.Postings(self.searcher)
        self.card_names = self._card_names(store)
        self._see_also = self._see_entries(store)
        # The common questions (corpus/asked), analysed as a question is: rewritten, then stemmed.
        self.asked = Asked(store.manifest.get("asked", ()),
                           lambda text: _content_stems(self.vocabulary.expand(text, self._knows).text),
                           lambda stems: rank.weights(self.postings, stems), rank.ASKED_MIN, self._topic)
        self._positions: dict[int, Positions] = {}
        self._aside_positions: dict[int, list[Positions]] = {}  # examples and commentary (_asides), never changed
        self._labels: dict[str, str] = {}  # record id -> Store.label, filled as hits need them, never changed
        # A build never changes, so neither does an answer: a tournament hall asking for the same
        # rule after an announcement is answered from memory. (kb bench measures with it off.)
        # Bounded by bytes, not entries: unique queries must not grow a worker without end (kb.cache).
        self._cached = ByteLRU(ANSWER_CACHE_BYTES, _answer_bytes) if cache_size else None
        # The semantic stage (kb.semantic): the model and this build's record vectors, or None (lexical only: the
        # default, until a model pays on the split by record; docs/semantic.md).
        self.semantic = open_stage(store.path) if semantic else None

    @staticmethod
    def _version(document: dict) -> str:
        version, effective = str(document.get("version") or ""), str(document.get("effective") or "")
        if effective and effective != "undated" and effective not in version:
            return f"{version}, effective {effective}" if version else effective  # the page brackets it
        return version

    @property
    def searcher(self):
        s = getattr(self._local, "searcher", None)
        if s is None:
            s = self.ix.searcher(weighting=BM25F(title_B=0.5, body_B=0.75))
            self._local.searcher = s
            with self._opened_lock:
                self._opened.append(s)
        return s

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
            if docnum not in self._positions:
                self._positions.setdefault(docnum, Positions(self._shown(record)))
            self.ranker.row(record, docnum)
            for asked in rank.ASKS:  # what the record says that a question asks for (a number, a time, ...)
                self.ranker.says(record, asked)
        self.resolver.words  # noqa: B018 -- the documents' words, which a card typo reads, filled here, not on a query
        warm_hits(self)  # each hit's label, example positions and the docnums under a rule (kb.warming)
        self._warm_stems()
        for doc in [None, *sorted(self.docs)]:  # the docnums each doc:/kind: filter lets through
            for kind in [None, *KINDS]:
                if doc or kind:
                    self.postings.allowed(self.searcher, self._filter(doc, kind))
        self._said_together("mana ability")  # plain Whoosh's collector (an And), imported once, not on a typo
        for text in ("cr 702.19b", "Token Cards j (ii)"):  # the reference patterns, compiled once, not on a query
            parse_ref(text, sections=self.resolver.section_titles, bare_numbers=True, doc_names=self.resolver.doc_names)
        if self.postings.phrases is None:  # phrases from the build's word sequences, not each word's positions
            self.postings.phrases = PhraseTable.read(self.searcher, "exact")
        if self.postings.phrases is not None:
            self.postings.phrases.warm(self.searcher)

    def _warm_stems(self, most: int = WARM_STEMS) -> None:
        """The per-stem tables a query fills on first use (its uses per document, the document it belongs to,
        its weight, its word's matcher), for the ``most`` stems that most records use: the words whose tables
        cost most to fill (a first "what happens when ..." paid ~30% more than its second); rarer stems stay
        cheap to fill on first use. Bounded: at most ``most`` entries per table."""
        reader = self.searcher.reader()
        held: dict[str, int] = {}
        for name in ("title", "body"):
            for btext, info in reader.iter_field(name):
                stem = btext.decode() if isinstance(btext, bytes) else btext
                held[stem] = held.get(stem, 0) + info.doc_frequency()
        for stem in sorted(held, key=lambda s: (-held[s], s))[:most]:
            self._owner(stem)
            self._weights([stem])
            # the word's matcher as a question's builder asks it (kb.engine keeps it per build)
            self._scores(Q.Or([Q.Term("title", stem), Q.Term("body", stem)]), None)

    def close(self) -> None:
        with self._opened_lock:
            for s in self._opened:
                s.close()
            self._opened.clear()

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
        found = _Found() if lead.complete else self._full_text(query, exclude={r.id for r in lead.records})
        return self._assemble(query, lead, found)

    # -- 1. parse ------------------------------------------------------------------------
    def _parse(self, q: str, doc: str | None, kind: str | None, limit: int, offset: int) -> _Query:
        q = (q or "").replace("\x00", " ")
        if len(q) > MAX_QUERY:
            raise QueryError(f"query too long: {len(q)} characters (at most {MAX_QUERY})")
        if not 1 <= limit <= MAX_LIMIT:
            raise QueryError(f"limit must be between 1 and {MAX_LIMIT}")
        if not 0 <= offset <= MAX_OFFSET:
            raise QueryError(f"offset must be between 0 and {MAX_OFFSET}")
        for name, value in _FILTER.findall(q):
            if name == "doc":
                doc = value.lower()
            else:
                kind = value.lower()
        text, limited = limit_query(_FILTER.sub(" ", q).strip())  # bounded work per query (kb.querylimits)
        if doc and doc not in self.docs:
            raise QueryError(f"unknown document {doc!r}; known: {', '.join(sorted(self.docs))}")
        if kind and kind not in KINDS:
            raise QueryError(f"unknown kind {kind!r}; known: {', '.join(KINDS)}")
        use_vocabulary = '"' not in text and "vocabulary" in rank.SIGNALS
        words = self.vocabulary.expand(text, self._knows, lambda: bool(self._named_cards(_content_stems(text)))) \
            if use_vocabulary else Expansion(text)
        named = [rank.DOC_NAMES[w] for w in _named_words(text) if w in rank.DOC_NAMES]
        named_doc = named[0] if named and named[0] in self.docs and not doc else None
        kinds = [rank.KIND_NAMES[w] for w in _WORD.findall(text.lower()) if w in rank.KIND_NAMES]
        return _Query(q, text, doc, kind, limit, offset, words, named_doc, kinds[0] if kinds and not kind else None,
                      limited)

    # -- 2. lead: references, cards, titles ------------------------------------------------
    def _lead(self, query: _Query) -> _Lead:
        text, doc = query.text, query.doc
        lead = (self._reference(text, doc) or self._reference_with_words(text, doc) or self._cited(text, doc)
                or self._card(text, doc)
                or self._titled(text, doc) or (self._titled(query.words.text, doc) if query.words.used else None)
                or self._card_like(query) or self._titled_mistyped(query, text)
                or ((said := self._said_in(query, query.words.text)) != query.words.text
                    and (self._titled(said, doc) or self._titled_mistyped(query, said)))
                or _Lead([], "text"))
        if query.kind:
            lead.records = [r for r in lead.records if r.kind == query.kind]
            if lead.redirect and lead.redirect not in {r.id for r in lead.records}:
                lead.redirect = None  # "907.4b kind:card" is not a reason to jump to the rule
        # A rule number or an exact card name is answered without the full-text index; so is a number no rule has
        # (after "no rule 999.9", 1,994 records sharing a word of the query were listed)
        lead.complete = not lead.followed and (bool(lead.records) or lead.missed) \
            and (lead.matched_by == "reference" or bool(lead.redirect))
        return lead

    def _reference(self, text: str, doc: str | None) -> _Lead | None:
        sections, names = self.resolver.section_titles, self.resolver.doc_names
        parsed = parse_ref(text, sections=sections, bare_numbers=True, doc_names=names)
        if parsed is None:
            return None
        if parsed.date:
            # "716.2@2016-07-22": the rule as it stood that day is a page of the rules' history (the site goes
            # there, web.data); the list is today's rule of that number, said so, not a search for the words
            plain = undated(text)
            # (a text it cannot shorten would ask again forever: "702.19b 2019-01-25." was a RecursionError, a 500)
            today = self._reference(plain, doc) if plain != text.strip() else None
            if today is not None and today.records:
                today.redirect = None  # never to today's rule
                today.note = (f"{text.strip()} asks for the rule as it stood on {parsed.date}; listed here: today's "
                              f"{parsed.numbers[0]}")
            return today
        res = self.resolver.resolve(text)
        matches = [r for r in res.matches if doc is None or r.doc == doc]
        if parsed.loose and not matches:
            return None  # "token card x": words ending in a letter no rule of that section has
        if not matches and not res.suggestions:
            return _Lead([], "reference", res.note, missed=True)
        if not matches:
            return _Lead(res.suggestions, "reference", res.note, missed=True)  # the nearest numbers, nothing else
        note = res.note
        docs = list(dict.fromkeys(r.doc for r in matches))
        # One number lists the records citing it after its own (labelled); a range or list ("613.1a-g") is
        # exactly the rules asked for, as its short link /r/613.1a-g shows them: the four records citing a
        # layer were listed after the seven layers with nothing to say why
        cites: dict[str, str] | None = {} if len(parsed.numbers) <= 1 else None
        if parsed.prefer and matches and matches[0].doc == parsed.prefer and len(matches) == len(docs):
            # "CR 702.187c", "CR 116": the prefix asks for the official rule, as its short link reads it; the
            # other documents' rule of that number still follows it in the list
            return _Lead(self._with_family(matches, cites), "reference", note, matches[0].id, cites=cites or {})
        if len(docs) > 1 and not note and len(matches) == len(docs):
            # "702.187c": Treachery's Unveil and the official rules' Mayhem, both first; say so
            titles = [self.versions.get(d, (d, ""))[0] for d in docs]
            other = next((d for d in docs if d != "cr"), docs[0])  # the official rules come first (kb.resolve)
            note = (f"{matches[0].number} is a rule of {len(docs)} documents: {', '.join(titles)}; "
                    f"“CR {matches[0].number}” or “{other} {matches[0].number}” asks for one")
        return _Lead(self._with_family(matches, cites) + [s for s in res.suggestions if s not in matches],
                     "reference", note, matches[0].id if len(matches) == 1 else None, cites=cites or {})

    def _with_family(self, matches: list[Record], cites: dict[str, str] | None = None) -> list[Record]:
        """The matches first (a number two documents use: both documents' rules in the first places),
        then each one's sub-rules, then, given ``cites`` to fill (citing record id -> the number it cites),
        the records citing them."""
        records = list(matches)
        for r in matches:
            records += [c for c in self._descendants(r) if c not in records]
        if cites is None:
            return records
        for r in matches:
            for c in r.cited_by:
                if self.store.records[c] not in records:
                    records.append(self.store.records[c])
                    cites[c] = r.number or r.id
        return records

    def _descendants(self, record: Record) -> list[Record]:
        out = []
        for child in self.store.children(record):
            out.append(child)
            out += self._descendants(child)
        return out

    def _reference_with_words(self, text: str, doc: str | None) -> _Lead | None:
        """ "702.19 trample", "flying 702.9": the rule, when the words fit it (its heading, its
        text, its sub-rules' text or its parents' headings)."""
        yearless = yearless_day(text)
        if yearless:  # "716.2 as of July 1": a day without its year, not words of a sub-rule (716.2a says "1")
            today = self._reference(yearless[1], doc)
            if today is not None and today.records:
                today.redirect = None  # never to today's rule: 2016's 716.2 is another rule
                today.note = (f"{yearless[0]!r} has no year: write it with one ({yearless[0]} 2019) or as a day "
                              f"(2019-07-01); listed here: today's {yearless[1].strip()}")
            return today
        tokens = text.split()
        if not 2 <= len(tokens) <= 8 or "number with words" not in rank.SIGNALS:
            return None
        # "704.5: legend rule", "704.5, legend rule": the number, then words
        at = next((i for i, t in enumerate(tokens) if _NUMBER.match(t.rstrip(":,;"))), None)
        if at is None:
            return None
        tokens[at] = tokens[at].rstrip(":,;")
        if tokens[at].isdigit() and tokens[at + 1:at + 2] and _COUNTED.match(tokens[at + 1]):
            return None  # "a 200 card deck", "at 100 life": a count, not rule 200
        # "rule 702.19", "CR 702.19": the word before the number may belong to the reference.
        joined = at and parse_ref(" ".join(tokens[at - 1:at + 1]), bare_numbers=True, doc_names=self.resolver.doc_names)
        if tokens[at].isdigit() and at and not joined:
            return None  # a bare number inside words is a count ("commander deck size 100"), unless it leads
        span = (at - 1, at + 1) if joined else (at, at + 1)
        words = tokens[:span[0]] + tokens[span[1]:]
        found = self._reference(" ".join(tokens[span[0]:span[1]]), doc)
        stems = set(_content_stems(" ".join(words)))
        said = _exact_words(" ".join(words))
        if found is not None and "." in tokens[at] and _citing_only(said):
            # "what is 603.4", "what does 702.19b say": only question words around a rule number; or a citation's
            # ("see rule 601.2f", "as in 704.5j"), which answered with the rules citing it
            return found
        if (found is not None and "." in tokens[at] and found.records
                and all(w in _ASKING_FOR_A_RULE or w in _ACROSS_TIME or _YEAR.fullmatch(w) for w in said)):
            # "702.19c history", "702.19b 2019": the rule across releases (the site opens its history or the rule
            # as it stood that year, web.data); the list is today's rule, said so, not a search for the words
            found.redirect = None
            found.note = "; ".join(filter(None, [found.note, f"{text.strip()} asks about the rule across releases; "
                                                             f"listed here: today's {found.records[0].number}"]))
            return found
        if found is None or not stems:
            return None
        # the rules the number names, not the records listed as citing them ("613.4b from the rules" opened
        # 123.8, which cites 613.4b and says "rules")
        fits = [r for r in found.records if r.kind == "rule" and r.id not in found.cites
                and stems & self._family_stems(r)]
        if not fits:
            return None
        best = self._named_sub_rule(fits[0], stems)
        cites: dict[str, str] = {}
        family = self._with_family([best], cites)
        listed = {r.id for r in family}  # the other matches' families cite or hold records of its family too
        rest = [r for r in found.records if r.id not in listed]
        # the sub-rule the words name and its own, then the rule typed and its own, then what cites either
        # ("704.5 legend": 704.5j, 704.5 and its sub-rules, then the records citing 704.5j or 704.5)
        return _Lead([r for r in family if r.id not in cites] + [r for r in rest if r.id not in found.cites]
                     + [r for r in family if r.id in cites] + [r for r in rest if r.id in found.cites],
                     "reference", redirect=best.id, cites={**found.cites, **cites})

    def _cited(self, text: str, doc: str | None) -> _Lead | None:
        """A reference written as a citation, inside brackets or a sentence ("(see rule 510.1c)", "damage is dealt
        as in rule 510.1c, right?"): the rules it names, as the number alone answers, and the records citing them
        after; when the words around it say more than a citation does, the full-text search follows them. The
        words around it were searched alone, and the rules citing it came first, the rule itself not in the
        first three."""
        if not any(c.isdigit() for c in text):
            return None  # most questions: no number to cite, no reference scan
        refs = [r for r in find_refs(text, doc_names=self.resolver.doc_names) if r.query.numbers and not r.query.date]
        # cited: after "see", "per", "as in", a bracket, or inside a sentence; "702.9 trample" is a number mistyped
        # beside words (_reference_with_words), whose words are searched
        if not refs or not (len(text.split()) > 8 or any(_CITED_AFTER.search(text, 0, r.start) for r in refs)):
            return None
        rest = text
        for r in reversed(refs):
            rest = rest[:r.start] + " " + rest[r.end:]
        found = [lead for lead in (self._reference(r.text, doc) for r in refs[:MAX_CITED])
                 if lead is not None and lead.records and not lead.missed]
        if not found:
            return None
        if len(found) == 1 and _citing_only(_exact_words(rest)):
            return found[0]  # "(see rule 510.1c)": the reference, as typed alone
        own = list(dict.fromkeys(r for lead in found for r in lead.records if r.id not in lead.cites))
        citing = [r for lead in found for r in lead.records if r.id in lead.cites and r not in own]
        cites = {rid: number for lead in found for rid, number in lead.cites.items()}
        return _Lead(own + list(dict.fromkeys(citing)), "reference", cites=cites, followed=True)

    def rule_with_words(self, text: str) -> Record | None:
        """The rule a number with words names, as the search box opens it ("704.5 legend rule": 704.5j), or None
        when the words fit no rule of that number."""
        lead = self._reference_with_words(text, None)
        return self.store.records.get(lead.redirect) if lead is not None and lead.redirect else None

    def _named_sub_rule(self, rule: Record, stems: set[str]) -> Record:
        """The rule or the sub-rule of it whose own words (its heading and text, not its parents') weigh most of
        the words typed beside its number: "704.5 legend rule" is 704.5j, "704.5 poison counters" 704.5c (the
        parent's family holds every word its sub-rules say, so it fitted first). A tie keeps the one nearest
        the number typed ("702.19 trample" is 702.19, whose sub-rules all say trample)."""
        weight = rank.weights(self.searcher, sorted(stems))
        best, most = rule, 0.0
        for record in [rule, *self._descendants(rule)]:
            own = {stem(w.lower()) for w in TOKEN_RE.findall(plain(f"{record.title or ''} {record.text or ''}"))}
            said = sum(weight[s] for s in stems & own)
            if said > most + 1e-9:
                best, most = record, said
        return best

    def _family_stems(self, record: Record) -> frozenset[str]:
        stems = set(self.ranker.stems(record))
        for child in self._descendants(record)[:12]:
            stems |= self.ranker.stems(child)
        return frozenset(stems)

    def _card(self, text: str, doc: str | None) -> _Lead | None:
        card, distance = self.resolver.card(text)
        if card is None or (doc and card.doc != doc):
            return None
        note = None if distance == 0 else f"showing {card.title} for {text!r}"
        return _Lead([card], "card", note, card.id if distance == 0 else None)

    def _card_like(self, query: _Query) -> _Lead | None:
        """A word the documents never use that starts a card name or joins its words:
        "tarmo", "imperio", "thunderbl" (prefixes), "timebender", "puppetmaster" (joined); else one
        that ends a word of a name ("goyf"), or a "The ..." name without "The" and mistyped ("metamorf")."""
        text, doc = query.text, query.doc
        words = _WORD.findall(fold(text).lower())
        if not words or len(words) > 3 or "card prefixes" not in rank.SIGNALS:
            return None
        if any(self.exact_df.get(w) for w in words):  # a word the documents use
            return None
        typed = " ".join(words)
        cards = [c for c in self.resolver.cards_starting(typed) if doc is None or c.doc == doc]
        # A name's end or a "The ..." name mistyped only when no word of the documents is within reach:
        # "egamorph" is megamorph mistyped (did you mean), not The Metamorph; "goyf" is nothing else.
        if not cards and self._correction(query) is None:
            cards = [c for c in self.resolver.cards_ending(typed) if doc is None or c.doc == doc]
            if not cards:
                card, _ = self.resolver.card_without_the(typed)
                cards = [card] if card is not None and (doc is None or card.doc == doc) else []
        if not cards:
            return None
        names = ", ".join(c.title or c.id for c in cards[:3])
        return _Lead(cards[:5], "card", f"showing {names} for {text!r}")

    _TITLE_ORDER = {"keyword": 1, "rule": 2, "section": 3, "note": 3, "glossary": 4, "chapter": 5}

    def _titles(self, store: Store) -> dict[str, list[Record]]:
        """Records by the stems of their title ("Legend Rule", "Tokens", "Mayhem")."""
        out: dict[str, list[Record]] = {}
        # documents quoting the official rules (a quoted rule's heading is all its text: the 2007 FAQ's "Lifelink")
        quoting = {r.doc for r in store.records.values() if r.kind == "rule" and r.title and r.text == r.title}
        for r in store.records.values():
            if r.title and r.kind in self._TITLE_ORDER:
                key = " ".join(_content_stems(plain(_OBSOLETE.sub("", r.title))))
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
            records.sort(key=self._title_rank)
        return out

    def _title_rank(self, r: Record) -> tuple:
        """The current official rule first, then the other documents' own rules (Treachery's Unveil), the
        keyword page gathering every definition, rules an older edition of the official rules quoted (the
        2007 FAQ's, when the current rules are loaded), sections and notes, glossary entries, chapters;
        newest document first within each."""
        if "titles newest first" not in rank.SIGNALS:  # as before: keyword, rule, ..., document order
            return (self._TITLE_ORDER[r.kind], 0, self.store.position.get(r.id, 0))
        if r.kind == "rule":  # between the keyword page (2) and sections (4)
            tier = 0 if r.doc == "cr" else 3 if r.doc in self.ranker.older else 1
        else:
            tier = self._TITLE_ORDER[r.kind] + 1
        return (tier, self.recency.get(r.doc, 0), self.store.position.get(r.id, 0))

    def _title_words(self) -> dict[str, int]:
        """Words of keyword, rule and glossary titles (for two-edit typos), with how often they occur."""
        out: dict[str, int] = {}
        for records in self.titles.values():
            for r in records:
                for w in re.findall(r"[a-z]+", fold(r.title or "").lower()):
                    if len(w) >= 5:
                        out[w] = out.get(w, 0) + 1
        return out

    def _said(self, text: str) -> str:
        """``text`` without the words no record, title, common question or table word uses ("qwv what is a
        mulligan" is "what is a mulligan"): such a word cannot match, yet it kept a title from being one and a
        question from starting with its question word."""
        kept = [w for w in text.split() if not self._unknown(w)]
        return " ".join(kept) if kept and len(kept) < len(text.split()) else text

    def _said_in(self, query: _Query, text: str) -> str:
        """``_said(text)`` for a text of ``query``, worked out once per query."""
        if text not in query.said:
            query.said[text] = self._said(text)
        return query.said[text]

    def _fixed_in(self, query: _Query, text: str, short: bool = False) -> str | None:
        """``_fix_typos(text, short)`` for a text of ``query``, worked out once per query."""
        fixed = query.fixed_short if short else query.fixed
        if text not in fixed:
            fixed[text] = self._fix_typos(text, short)
        return fixed[text]

    def _unknown(self, word: str) -> bool:
        low = fold(word.lower()).strip(_PUNCTUATION)
        if not low.isalpha() or low in _ONLY_ASKING or self.exact_df.get(low) or (low,) in self.vocabulary.phrases:
            return False
        s = stem(low)
        if self._used(s) or s in self.card_names or low in self.resolver.doc_names:
            return False
        return self._fix_typos(low) is None  # a typo the full text corrects ("fizzeled") is no unknown word

    def _used(self, stem: str) -> bool:
        """Some record (title or body) or some common question uses this stem."""
        return bool(self._uses(stem)) or self.asked.uses(stem)

    def _titled(self, text: str, doc: str | None) -> _Lead | None:
        """A query that is exactly a keyword's, rule's or term's title answers with those first."""
        if '"' in text:
            return None
        records = [r for r in self.titles.get(" ".join(_content_stems(text)), ()) if doc is None or r.doc == doc]
        if "glossary" in rank.SIGNALS:
            records = self._today_first(self._pointed_first(records))
        return _Lead(records[:5], "title") if records else None

    def todays_rule(self, title: str) -> Record | None:
        """The current official rule a title names, as the title lead finds it: by the title's stems ("Tribals" is
        "Tribal"), or through the glossary entry of that name that points at it ("Tribal (Obsolete)" -> 308)."""
        records = self._pointed_first(self.titles.get(" ".join(_content_stems(plain(title))), []))
        return next((r for r in records if r.doc == "cr" and r.kind == "rule"), None)

    def _today_first(self, records: list[Record]) -> list[Record]:
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

    def _titled_mistyped(self, query: _Query, text: str) -> _Lead | None:
        """A title mistyped ("deathtuch", "tramlpe") answers as the title typed right does: the rule first,
        not the keyword page the full-text search ranks highest (which corrects it too, and says so)."""
        # up to three words that say something ("what is a mulligen" is one: mulligan, as typed right it is a title)
        if len(_content_stems(text)) > 3 or "typos" not in rank.SIGNALS:
            return None
        doc = query.doc
        fixed = self._fixed_in(query, text)
        lead = self._titled(fixed, doc) if fixed else None
        if lead is None:
            # Shorter words too ("first strke", "legnd rule"), one edit each, only when the whole query then
            # is a title: too short to correct inside a question, where a name the documents lack is as likely.
            fixed = self._fixed_in(query, fixed or text, short=True)
            lead = self._titled(fixed, doc) if fixed else None
            if lead is not None:
                lead.note = f"spelling corrected: {fixed!r}"
                lead.corrected_to = fixed
        if lead is not None:
            lead.mistyped = True
        return lead

    def _pointed_first(self, records: list[Record]) -> list[Record]:
        """A glossary entry that sends the reader to a rule of its own document ("Priority: ... See
        rule 117") comes after that rule; one that only sends the reader to another entry ("APNAP
        Order: See Active Player, Nonactive Player Order.") after that entry and the rule it cites
        first (101.4)."""
        out: list[Record] = []
        for r in records:
            target = self.store.records.get(self.ranker.pointers.get(r.id, ""))
            for first in ([target] if target is not None else []) + self._see_also.get(r.id, []):
                if first not in out:
                    out.append(first)
            if r not in out:
                out.append(r)
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

    # -- 3. full text --------------------------------------------------------------
    def _build_query(self, text: str, extra: list[str] | None = None, naming: frozenset[str] = frozenset(),
                     unknown: frozenset[str] = frozenset()):
        parts = []
        for phrase in _PHRASE.findall(text):
            exact = list(_exact_words(phrase))[:MAX_TERMS]
            if len(exact) > 1:
                parts.append(Q.Phrase("exact", exact, boost=2.0))
            elif exact:
                parts.append(Q.Term("exact", exact[0]))
        stems = [s for s in _unquoted_stems(text) if s not in unknown]
        if naming and [s for s in stems if s not in naming]:
            # "uncommander sticker": the document is a preference (kb.rank), the topic is the sticker; the
            # name is searched only when it is all the question says ("uncommander", "future sight")
            stems = [s for s in stems if s not in naming]
        for w in stems + [s for s in _content_stems(" ".join(extra or ())) if s not in stems][:4]:
            boost = 1.0 if w in stems else 0.5  # a table word the vocabulary replaced: weaker evidence
            fields = [Q.Term("title", w, boost=boost), Q.Term("body", w, boost=boost)]
            if w[:1].isdigit():  # only a number can match the number field
                fields.append(Q.Term("number", w))
            alt = rank.NUMBER_ALT.get(w) if "numbers" in rank.SIGNALS else None
            if alt:  # "six" finds "6 players", "10" finds "ten or more"
                fields += [Q.Term("title", alt, boost=boost), Q.Term("body", alt, boost=boost)]
            parts.append(Q.Or(fields))
        if not parts:
            return None
        return Q.Or(parts, scale=0.95) if len(parts) > 1 else parts[0]

    def _filter(self, doc: str | None, kind: str | None):
        terms = [Q.Term("doc", doc)] if doc else []
        terms += [Q.Term("kind", kind)] if kind else []
        return Q.And(terms) if terms else None

    def _full_text(self, query: _Query, exclude: set[str]) -> _Found:
        """The best hits (re-ranked), and the total and facets over every match (unscored)."""
        text = query.words.text
        found = _Found(terms=self._terms(text))
        if query.words.replaced:  # what the vocabulary rewrote is marked too
            found.terms |= self._terms(" ".join(query.words.replaced))
        fixed = self._fixed_in(query, text) if "typos" in rank.SIGNALS and '"' not in text else None
        if fixed:
            fixed = self._said_again(query, text, fixed)
            text = found.fixed = fixed
            # said in the user's words, not the vocabulary's ("... if it got bounced", not "... return to owner's hand")
            found.suggestion = found.said_fixed = self._fixed_in(query, query.text) if query.words.used else fixed
            found.terms |= self._terms(fixed)
        self._run(query, text, query.words.replaced, exclude, found)
        if found.matched < 3:
            corrected = self._correction(query)
            if corrected:
                found.suggestion = corrected
                if found.matched or self._names_itself(query.text):
                    # "lotus bloom" (a card no document holds) is not "locus blood": nothing matched as typed, and
                    # the correction is no answer; offered only when some record holds all its words ("unvel morhp":
                    # Treachery's unveil rule says morph; no record says locus and blood)
                    found.offered, found.unmatched = True, not found.matched
                    if not found.matched and not self._said_together(corrected):
                        found.suggestion = None
                else:
                    found.terms = self._terms(corrected)
                    found.corrected = True
                    self._run(query, corrected, [], exclude, found)
        return found

    def _said_together(self, text: str) -> bool:
        """Some record holds every content word of ``text`` (in its title or body)."""
        return said_together(self.postings, self.searcher, _content_stems(text))  # kb.typos: from the postings

    @staticmethod
    def _names_itself(text: str) -> bool:
        """A query no record matched that holds two words of four letters or more (question words aside) is as
        likely a name no loaded document holds as two typos: "lotus bloom" (a card) was searched as "locus blood"
        with the rules loaded, "lotus blood" without (The Blood Empress first). One such word is a typo
        ("gravstrom" -> gravestorm, "nope" -> note, "what is unvel")."""
        said = [w for w in _WORD.findall(fold(text).lower()) if len(w) >= 4 and w not in _ONLY_ASKING]
        return len(said) >= 2

    def _run(self, query: _Query, text: str, extra: list[str], exclude: set[str], found: _Found) -> None:
        everything = _unquoted_stems(text)  # with the words naming a document: they weigh a common question's match
        # A word no record and no common question uses tells no candidate from another ("qwv", "spel"): it only
        # lowered every coverage and every common question's match, the rarer the more (such a word weighs
        # most), and Whoosh's coordination bonus counted it. Left out, unless the question has nothing else.
        known = tuple(s for s in everything if self._used(s))
        unknown = frozenset(everything) - frozenset(known) if known else frozenset()
        everything = known or everything
        whoosh_query = self._build_query(text, extra, _naming_stems(query.text), unknown)
        if whoosh_query is None:
            return
        # Every match, scored as Whoosh scores it (what searcher.search(limit=None) returns).
        scores = self._scores(whoosh_query, self._filter(query.doc, query.kind))
        for rid in exclude:
            scores.pop(self.docnums.get(rid, -1), None)
        order = engine.ranked(scores)
        total = len(order)
        record_of = self.record_of
        # The same best hits are re-ranked for every page: a window that grew with the page re-ranked each page's
        # list anew, so page 6 repeated hits of pages 1-5 and left others out (105 of 291 records over all pages).
        top = [Candidate(record_of[d], scores[d], d) for d in order[:rank.WINDOW]]
        naming = _naming_stems(query.text)
        stems = [s for s in everything if s not in naming] or [s for s in _unquoted_stems(text) if s not in naming]
        weights = self._weights(stems)  # document frequencies from memory, as Whoosh counts them

        def add(rid: str) -> Candidate | None:
            record = self.store.records.get(rid)
            if record is None or rid in exclude or (query.doc and record.doc != query.doc) \
                    or (query.kind and record.kind != query.kind):
                return None
            return Candidate(record, 0.0, self.docnums.get(rid))

        implied = rank.implied_document(weights, self._uses, self.sizes, self._owner) \
            if "implied document" in rank.SIGNALS else None
        cards = self._named_cards(everything + _unquoted_stems(query.text)) if "card named" in rank.SIGNALS \
            else frozenset()
        asks = rank.asks(self._said_in(query, query.text))
        named = rank.Named(query.named_doc, query.named_kind, implied, asks, cards)
        if cards:  # a named card's rulings that match the question join the candidates wherever Whoosh put them
            top += self._rulings_of(cards, scores, {c.docnum for c in top})
        # the rules the question's terms lead to, read once for the candidates under them and the re-rank
        terms = self.ranker.family_terms(weights, sum(weights.values()) or 1.0) if "term's rules" in rank.SIGNALS \
            else None
        if terms is not None and "under a term" in rank.SIGNALS:
            top += self._under_terms(terms, weights, scores, {c.docnum for c in top})
        matches, least = None, rank.ASKED_MIN
        if "asked" in rank.SIGNALS and len(self.asked) and len(stems) >= rank.ASKED_WORDS:
            asked = weights if len(everything) == len(stems) else self._weights(everything)
            least = rank.ASKED_MIN_SHORT if len(stems) < rank.ASKED_SHORT else rank.ASKED_MIN
            matches = self.asked.match(asked, least, self._beyond_abbreviation(query, asked))
        top = self.ranker.rerank(top, weights, _pairs(text), named, add, explain=False, asked=matches,
                                 minimum=least, terms=terms)
        joined = sum(1 for c in top if c.docnum not in scores)  # added by the re-rank: Whoosh did not count them
        # The results worth showing: the matches scoring at least RELEVANCE_FLOOR of the best one (with those the
        # re-rank added), in the re-ranked order; not every record sharing a word (an ordinary question counted
        # 1,000-2,263 "results"). Every page, the count and the facets are of these.
        best = scores[order[0]] if order else 0.0
        shown = bisect_left(order, -RELEVANCE_FLOOR * best, key=lambda d: -scores[d]) + joined
        have = {c.docnum for c in top}
        # past the re-ranked window: the rest in Whoosh's order, each record once (docnums; a hit made of the few a
        # page shows)
        tail = list(islice((d for d in order[rank.WINDOW:] if d not in have), max(0, shown - len(top))))
        head = top[:shown]
        if self.semantic is not None:  # -- semantic stage (kb.semantic): re-orders a question's best results, never
            head = self.semantic.rerank(query.text, head)  # lets one in from under the relevance floor
        self._count_facets(head, tail, found.facets)
        wanted = query.offset + query.limit
        page = head + [Candidate(record_of[d], scores[d], d) for d in tail[:max(0, wanted - len(head))]]
        found.top, found.total, found.matched = page[:wanted], len(head) + len(tail), total + joined

    def _count_facets(self, head: list[Candidate], tail: list[int], facets: dict[str, dict[str, int]]) -> None:
        """Facet values in the order of their best match, as a result list shows them: the (doc, kind) pairs of the
        results worth showing (the re-ranked ``head``, then the ``tail``'s docnums) counted in ranked order (a
        Counter keeps first appearances first), then each side summed."""
        code = self._facet_code
        codes = [code[c.docnum] if c.docnum is not None else (c.record.doc, c.record.kind) for c in head]
        if tail:  # a long list is looked up in C
            codes += itemgetter(*tail)(code) if len(tail) > 1 else [code[tail[0]]]
        docs, kinds = facets["doc"], facets["kind"]
        for pair, n in Counter(codes).items():
            doc, kind = self._facet_pair[pair] if isinstance(pair, int) else pair
            docs[doc] = docs.get(doc, 0) + n
            kinds[kind] = kinds.get(kind, 0) + n

    def _topic(self, record_id: str) -> frozenset[str]:
        """The stems of what a record is about by name: the card a ruling or note belongs to."""
        stems: set[str] = set()
        record = self.store.records.get(record_id)
        while record is not None:
            title = record.title or ""
            if record.kind == "card":
                # as its questions are analysed too: "Grave Peril" is "graveyard peril" to the vocabulary
                stems.update(_content_stems(plain(title)))
                stems.update(_content_stems(self.vocabulary.expand(plain(title), self._knows).text))
            record = self.store.records.get(record.parent) if record.parent else None
        return frozenset(stems)

    def _card_names(self, store: Store) -> dict[str, list[tuple[frozenset[str], str]]]:
        """Name stem -> (the name's stems, card id) for the cards a question can name inside its words:
        a name of two words or more ("glittering wish", "magus of the future"), or of one word the
        documents use almost only for that card ("tarmogoyf", "oneiromancer"; not "The Witch", "Delay",
        "The Oracle")."""
        out: dict[str, list[tuple[frozenset[str], str]]] = {}
        for card in store.records.values():
            if card.kind != "card" or not card.title:
                continue
            name = frozenset(_content_stems(plain(card.title)))
            if len(name) == 1:
                family = 1 + len(store.children(card))
                if sum(self._uses(next(iter(name))).values()) > family + CARD_NAME_ELSEWHERE:
                    continue
            for s in name:
                out.setdefault(s, []).append((name, card.id))
        return out

    def _rulings_of(self, cards: frozenset[str], scores: dict[int, float], have: set[int | None]) -> list[Candidate]:
        """Candidates for the rulings of ``cards`` that matched (``scores``) but are not among ``have``: a
        ruling rarely repeats its card's name, so "old ruler mulligan with the extra card" scores The Old
        Ruler's mulligan ruling below fifty records that say "card"."""
        out = []
        for cid in sorted(cards):
            for ruling in self.store.children(self.store.records[cid]):
                d = self.docnums.get(ruling.id)
                if d is not None and d in scores and d not in have:
                    out.append(Candidate(ruling, scores[d], d))
        return out

    def _under_terms(self, terms: dict[str, frozenset[str]], weights: dict[str, float], scores: dict[int, float],
                     have: set[int | None]) -> list[Candidate]:
        """Candidates for the records under the rule a question's term leads to (``terms``: Ranker.family_terms)
        that match the rest of the question, wherever Whoosh ranked them: "sba legend" is state-based actions'
        704.5j, which says "legend" and none of the term's words, below fifty records that say "state-based
        actions" (not among them)."""
        out: dict[int, Candidate] = {}
        for rid, term in terms.items():
            rest = [s for s in weights if s not in term]
            under = self._under_docnums(rid) if rest else frozenset()
            for s in rest:
                for name in ("title", "body"):
                    found = self.postings.term(self.searcher, name, s.encode())
                    for d in found.ids if found is not None and len(found.ids) <= UNDER_POSTINGS else ():
                        if d in under and d in scores and d not in have and d not in out:
                            out[d] = Candidate(self.record_of[d], scores[d], d)
        return sorted(out.values(), key=attrgetter("score"), reverse=True)[:UNDER_TERMS]

    def _under_docnums(self, rid: str) -> frozenset[int]:
        """The docnums of every record under a rule or section; once per record and build (a few hundred headings
        are terms), read-only once stored."""
        found = self._under.get(rid)
        if found is None:
            docnums: set[int] = set()
            todo = list(self.store.records[rid].children)
            while todo:
                child = todo.pop()
                d = self.docnums.get(child)
                if d is not None:
                    docnums.add(d)
                todo += self.store.records[child].children
            found = self._under[rid] = frozenset(docnums)
        return found

    @staticmethod
    def _beyond_abbreviation(query: _Query, weights: dict[str, float]) -> frozenset[str]:
        """The stems of a question beyond the term an abbreviation of it stands for ("sba" -> state-based actions,
        "etb" -> enters the battlefield), when they weigh enough that the question asks more than the term
        (rank.MORE): a common question that shares none of them asks what the term is. "sba legend" matched "what
        are state based actions" at 0.75 (a term of three words against one) and put 704.1 first, 704.5j nowhere."""
        if "asked beyond an abbreviation" not in rank.SIGNALS:
            return frozenset()
        said: set[str] = set()
        for short, means, _ in query.words.used:
            term = _content_stems(means)
            if len(short.split()) == 1 and len(term) >= 2:
                said.update(term)
        rest = frozenset(s for s in weights if s not in said)
        total = sum(weights.values()) or 1.0
        if not said or not rest or sum(weights[s] for s in rest) / total < rank.MORE:
            return frozenset()
        return rest

    def _nicknames(self, store: Store) -> Iterator[tuple[str, str, str]]:
        """(a piece of a card's name, the name, the card's id) for the words of names the documents use almost only
        for that card ("tarmogoyf", "oneiromancer"; seven letters or more), each start and end of four letters or
        more that is no word of the documents: "tarmo", "goyf". A lone such word opens its card in the lead; inside
        a question ("goyf tribal") it read as an unknown word and Tarmogoyf came 14th."""
        for card in store.records.values():
            if card.kind != "card" or not card.title or "card prefixes" not in rank.SIGNALS:
                continue
            family = 1 + len(store.children(card)) + CARD_NAME_ELSEWHERE
            name = " ".join(w for w in re.findall(r"[a-z]+", fold(card.title).lower()) if w != "the")
            for word in name.split():
                if len(word) < 7 or self.exact_df.get(word, 0) > family:
                    continue
                for piece in {word[:n] for n in range(4, len(word) - 1)} | {word[-n:] for n in range(4, len(word) - 1)}:
                    if piece not in self.exact_df:
                        yield piece, name, card.id

    def _named_cards(self, stems: Iterable[str]) -> frozenset[str]:
        """The cards whose whole name a question's stems hold."""
        have = frozenset(stems)
        return frozenset(cid for s in have for name, cid in self.card_names.get(s, ()) if name <= have)

    def _knows(self, word: str) -> bool:
        """The index holds ``word`` as written: some record's title or text uses it."""
        return self.postings.term(self.searcher, "exact", word.encode()) is not None

    def _uses(self, word: str) -> dict[str, int]:
        """How many records of each document use a stem (title or body); once per stem and build."""
        found = self._stem_uses.get(word)
        if found is None:
            docnums: set[int] = set()
            for name in ("title", "body"):
                term = self.postings.term(self.searcher, name, word.encode())
                if term is not None:
                    docnums.update(term.ids)
            found = dict(Counter(self.doc_of[d] for d in docnums if self.doc_of[d] != "keywords"))
            if docnums:  # only stems the index holds: a unique query's unknown words leave nothing behind
                self._stem_uses[word] = found
        return found

    def _owner(self, stem: str) -> str | None:
        """The document a stem belongs to (rank.word_document), once per stem the index holds and build."""
        try:
            return self._owners[stem]
        except KeyError:
            pass
        found = rank.word_document(self._uses(stem), self.sizes)
        if stem in self._stem_uses:  # only stems the index holds, as _uses keeps them
            self._owners.setdefault(stem, found)
        return found

    def _weights(self, stems: Iterable[str]) -> dict[str, float]:
        """rank.weights over the build's postings, each stem's weight worked out once per stem the index holds
        and build (a unique query's unknown words leave nothing behind)."""
        out = {}
        for s in stems:
            weight = self._weight.get(s)
            if weight is None:
                weight = rank.weights(self.postings, [s])[s]
                if self.postings.doc_frequency("body", s) or self.postings.doc_frequency("title", s):
                    self._weight.setdefault(s, weight)
            out[s] = weight
        return out

    def _scores(self, query, filter_query) -> dict[int, float]:
        """docnum -> score for every match: Whoosh's scores over cached postings (kb.engine), or
        plain Whoosh for a query the engine does not evaluate (and when ``fast`` is off)."""
        if self.fast:
            try:
                return engine.scores(self.postings, self.searcher, query, filter_query)
            except engine.Unsupported:
                pass
        return engine.whoosh_scores(self.searcher, query, filter_query)

    def _terms(self, text: str) -> set[str]:
        """What a snippet marks: the query's stems and its exact (phrase) words."""
        phrase_words = [w for w in _exact_words(" ".join(_PHRASE.findall(text))) if w not in _STOP]
        # The body field's terms of the text (kb.words.stems, which tests/test_words.py holds equal to
        # the index's analyzer), each word stemmed once per process rather than through Whoosh's chain.
        return {s for s in map(stem, words(text)) if s} | {"=" + w for w in phrase_words}

    # -- 5. assemble ---------------------------------------------------------------------
    def _assemble(self, query: _Query, lead: _Lead, found: _Found) -> Results:
        facets = found.facets
        for r in lead.records:
            facets["doc"][r.doc] = facets["doc"].get(r.doc, 0) + 1
            facets["kind"][r.kind] = facets["kind"].get(r.kind, 0) + 1
        everything: list = lead.records + found.top
        page = [self._lead_hit(x, lead.cites.get(x.id)) if isinstance(x, Record) else self._hit(x, found.terms)
                for x in everything[query.offset:query.offset + query.limit]]
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
        outside = next((f"{about} is not in these documents: see {see}" for said, about, see in self._outside
                        if said.search(query.text)), None)  # "drew 8 cards by mistake, what's the penalty"
        note = "; ".join(filter(None, [note, query.limited, outside]))
        did_you_mean = (lead.corrected_to or found.suggestion) if not lead.records or lead.mistyped else None
        # searched already, and the note says so: a title found once corrected, a typo fixed before the
        # full-text search, or nothing matched and the correction's results are shown
        searched = bool(did_you_mean) and (bool(lead.corrected_to) or not found.offered)
        return Results(query.raw, len(lead.records) + found.total, page, facets, did_you_mean=did_you_mean,
                       redirect=lead.redirect, note=note or None, offset=query.offset, limit=query.limit,
                       matched_by=lead.matched_by, searched_for=searched_for, did_you_mean_searched=searched,
                       rewrite_note=rewrite_note, rewrites=rewrites,
                       nearest=lead.missed and bool(lead.records), matched=len(lead.records) + found.matched)

    def _hit(self, c: Candidate, terms: set[str]) -> Hit:
        """A result for the page: the record's fields and a highlighted snippet."""
        record = c.record
        where = self._positions.get(c.docnum) if c.docnum is not None else None
        if where is None:
            where = Positions(self._shown(record))
            if c.docnum is not None:
                where = self._positions.setdefault(c.docnum, where)
        if record.examples or record.commentary:  # the passage that matched: the text, or an example
            where = matched([where, *self._asides(c.docnum, record)], terms)
        text = snippet(where, terms)
        if where.body.startswith("Example:") and not text.startswith("Example:"):
            text = "Example: " + text  # the example's window, said to be one
        if "<mark>" not in text and translation(record.text):
            # matched by its translation line ("dévoilement"): that line, marked, then its first sub-rule's words
            text = snippet(Positions(plain(f"{record.text} {self._shown(record)}")), terms)
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
        where = self._positions.get(self.docnums.get(record.id, -1))  # its text made plain once (warm), not per hit
        hit = self._make_hit(record, html.escape(clip(where.body if where else self._shown(record))), 1000.0)
        hit.cites = cites
        return hit

    def _shown(self, record: Record) -> str:
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

    # -- autocomplete -----------------------------------------------------------------
    _PRIORITY = {"card": 0, "keyword": 1, "rule": 2, "chapter": 2, "section": 3, "note": 3, "glossary": 4}

    def _completions(self, store: Store) -> list[tuple[str, str, str, int]]:
        """(folded key, label, id, priority) for every number, name and title."""
        out = []
        for r in store.records.values():
            if r.kind in ("ruling", "history"):
                continue
            label = " ".join(filter(None, [r.number, r.title]))
            if not label:
                continue
            out.append((fold(label).lower(), label, r.id, self._PRIORITY.get(r.kind, 5)))
        return out

    def autocomplete(self, q: str, limit: int = 10) -> list[dict]:
        """Up to ``limit`` labels starting with ``q`` (or with a word starting with it)."""
        key = _TRAILING_PUNCTUATION.sub("", " ".join(fold(typed(q)).lower().split()))  # "trample." as "trample"
        if _TYPED_NUMBER.search(key):
            # as the search box reads a number: "702.19b." (a phone's full stop), "702,19b" (a European keyboard)
            key = _TYPED_NUMBER.sub(lambda m: m.group(1) + "." + m.group(2), key.rstrip(".,;:!?"))
        if not key:
            return []
        # "cr 702.1", "rule 613": a number after its prefix (the official rules' own, for "cr")
        prefixed = _COMPLETE_PREFIX.match(key)
        only = None
        if prefixed:
            official = prefixed.group("prefix").startswith("cr") and "cr" in self.resolver.doc_order
            key, only = prefixed.group("number"), "cr/" if official else None
        elif doc := _COMPLETE_DOC.match(key):  # "tr 70", "treachery: 907.4": a number in the document it names
            name = " ".join(doc.group("name").split())
            if name in self.resolver.doc_names:
                key, only = doc.group("number"), self.resolver.doc_names[name] + "/"
        number_first = key[0].isdigit()
        starts: list[tuple] = []
        words: list[tuple] = []
        for folded, label, rid, priority in self._complete:
            if only and not rid.startswith(only):
                continue
            if folded.startswith(key) or folded.startswith("the " + key):
                if number_first:  # in the documents' order: 702.1, 702.1a ... 702.10 Haste, 702.10a, not 702.10a first
                    starts.append((number_order(folded.split(" ", 1)[0]), len(label), label, rid))
                else:
                    starts.append((priority, len(label), label, rid))
            elif f" {key}" in f" {folded}":
                words.append((priority, len(label), label, rid))
        picked = sorted(starts)[:limit]
        if len(picked) < limit:
            picked += sorted(words)[: limit - len(picked)]
        if len(picked) < limit and len(key) >= 3:
            picked += self._ngram_complete(key, {p[3] for p in picked}, limit - len(picked), only)
        if not picked and not number_first and not only and len(key) >= 5:
            picked = self._mistyped_complete(key, limit)
        return [{"label": label, "id": rid, "url": record_url(rid), "excerpt": self._excerpt(rid)}
                for _, _, label, rid in picked]

    def _mistyped_complete(self, key: str, limit: int) -> list[tuple]:
        """Nothing starts with what was typed: what the search box reads it as, a card name up to two typos
        off ("metamorf": The Metamorph) or its words corrected ("comander": Commander), completed. A judge: the
        box offered nothing for either while search answered both."""
        card, _ = self.resolver.card(key)
        if card is None and not key.startswith("the "):  # "metamorf": The Metamorph
            card, _ = self.resolver.card("the " + key)
        if card is not None and card.title:
            return [(0, len(card.title), card.title, card.id)]
        fixed = self._fix_typos(key)
        return self._complete_exactly(fixed, limit) if fixed and fixed != key else []

    def _complete_exactly(self, key: str, limit: int) -> list[tuple]:
        """Labels starting with ``key`` (or "the " + key), by kind and length."""
        return sorted((priority, len(label), label, rid) for folded, label, rid, priority in self._complete
                      if folded.startswith(key) or folded.startswith("the " + key))[:limit]

    def _excerpt(self, rid: str) -> str | None:
        """A few words of a numbered record, for a completion: "704.5j" alone told nothing of the legend rule."""
        record = self.store.records.get(rid)
        if record is None or not record.number:
            return None
        text = self._shown(record)
        # a translation line alone is no words of the rule (Treachery 702's 'French: "Dévoilement."')
        return clip(text, EXCERPT) if text and not translation(text) else None

    def _ngram_complete(self, key: str, seen: set[str], n: int, only: str | None = None) -> list[tuple]:
        """Fall back to the index's n-gram field: substrings of a word ("seedb" -> "Her Seedborn Highness")."""
        terms = [Q.Term("complete", w[:12]) for w in key.split() if len(w) >= 2][:MAX_TERMS]
        if not terms:
            return []
        out = []
        for hit in self.searcher.search(Q.And(terms), limit=n + len(seen)):
            rid = hit["id"]
            record = self.store.records[rid]
            if rid in seen or record.kind in ("ruling", "history") or (only and not rid.startswith(only)):
                continue
            out.append((9, 0, " ".join(filter(None, [record.number, record.title])) or rid, rid))
            if len(out) == n:
                break
        return out

    # -- 4. did you mean ------------------------------------------------------------
    def _correction(self, query: _Query) -> str | None:
        """The query's "did you mean", worked out once: the card stage and the full-text stage both ask."""
        if query.correction is ...:
            query.correction = self._did_you_mean(query.text)
        return query.correction

    def _did_you_mean(self, text: str) -> str | None:
        words = _WORD.findall(text)[:MAX_TERMS]
        changed = False
        out = []
        tries = MAX_CORRECTIONS
        for w in words:
            low = fold(w.lower())
            if len(low) < 4 or low.isdigit() or self.exact_df.get(low, 0) > 0 or low in _ONLY_ASKING or not tries \
                    or (low,) in self.vocabulary.phrases:  # a table word is no typo ("pinger" is not "pingers")
                out.append(w)
                continue
            tries -= 1
            fix = self.spelling.suggest(low) or self._two_edits(low)
            if fix and fix != low:
                out.append(fix)
                changed = True
            else:
                out.append(w)
        return " ".join(out) if changed else None

    def _fix_typos(self, text: str, short: bool = False) -> str | None:
        """``text`` with each word no document, title or common question uses, of six letters or more,
        replaced by the index's word it misspells (one edit; two for a keyword or title word from nine
        letters): "comander damage" -> commander damage, "summoning sicknes" -> summoning sickness. Such a
        word finds nothing as typed; without this, the rest of the question decided alone and "did you
        mean" came only with fewer than three hits. ``short``: the words of five letters instead, which only
        a title to land on makes worth correcting (``_titled_mistyped``). None when nothing changed."""
        out, changed = [], False
        for w in text.split():
            # the word without the punctuation around it ("mulligen?"), which the correction keeps
            core = w.strip(_PUNCTUATION)
            low = fold(core.lower())
            fix = None
            if (len(low) == 5 if short else len(low) >= 6) and low.isalpha() and not self.exact_df.get(low) \
                    and not self.asked.uses(stem(low)) and low not in _ONLY_ASKING \
                    and (low,) not in self.vocabulary.phrases and not self._uses(stem(low)):
                # "thinks" is no "things"; "swings" is table language ("attack"), not "wings"; "context" is a word
                # of the documents ("contexts"), not a typo
                # one edit from six letters, two from nine: a shorter word the documents never use is as likely a
                # name they do not hold ("lotus bloom" is no "blood", "street wraith" no "spree") as a typo
                fix = self.spelling.suggest(low) or (self._two_edits(low) if len(low) >= 9 else None)
            out.append(w.replace(core, fix, 1) if fix and fix != low else w)
            changed = changed or out[-1] != w
        return " ".join(out) if changed else None

    def _said_again(self, query: _Query, text: str, fixed: str) -> str:
        """``fixed`` (``text`` with its typos corrected), read by the vocabulary again when a correction is one
        of its words: "wen does a spel fizzel" searches for what "fizzle" means, as typed right it would. The
        query's words become that reading (its note says so)."""
        if "vocabulary" not in rank.SIGNALS:
            return fixed
        table = {typed: right for typed, right in zip(text.split(), fixed.split(), strict=True)
                 if typed != right and (fold(right.strip(_PUNCTUATION)).lower(),) in self.vocabulary.phrases}
        if not table:
            return fixed
        again = self.vocabulary.expand(" ".join(table.get(w, w) for w in query.text.split()), self._knows)
        if not again.used:
            return fixed
        query.words = again
        return self._fix_typos(again.text) or again.text

    def _two_edits(self, word: str) -> str | None:
        """A keyword or title word two edits from ``word`` ("indestrutable" -> indestructible), the
        most common first; only for words of six letters or more, where two edits rarely reach
        another word."""
        if len(word) < 6 or "two edits" not in rank.SIGNALS:
            return None
        close = [(n, w) for w, n in self.title_words.items()
                 if abs(len(w) - len(word)) <= 2 and w[0] == word[0] and edit_distance(word, w, 2) <= 2]
        if not close:
            return None
        return max(close)[1]
