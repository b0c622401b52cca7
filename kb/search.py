"""One query box: rule references, card names, then ranked full text.

The pipeline, in order:

1. a rule reference in any accepted form answers with that record first (a
   bare parent number with its sub-rules), then the records citing it;
2. a card name (exact, case- and accent-insensitive, or within two typos)
   answers with that card first;
3. otherwise BM25F full text over titles (boosted) and bodies, with phrase
   queries and ``doc:``/``kind:`` filters, a highlighted snippet per hit;
4. with few or no hits, a "did you mean" from the index's own vocabulary
   (edit distance 1) and a retry with the corrected words.

The Whoosh searcher is opened once and reused; queries are built from our
own tokens, so no Whoosh syntax (``a*``, ``~9``, ``field:``, ``^99``) can
reach the engine and explode.
"""
from __future__ import annotations

import html
import re
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise
from pathlib import Path
from typing import Any

from whoosh import query as Q
from whoosh.scoring import BM25F

from kb.ids import fold
from kb.index import analyzer, open_index, plain
from kb.model import KINDS, Record
from kb.refs import parse_ref
from kb.resolve import Resolver
from kb.snippet import TOKEN_RE, clip, snippet, stem
from kb.spelling import Spelling
from kb.store import Store

__all__ = ["Searcher", "Results", "Hit", "QueryError", "MAX_QUERY", "MAX_LIMIT", "MAX_OFFSET"]

MAX_QUERY = 500  # characters; longer input is refused, not truncated silently
MAX_LIMIT = 100
MAX_OFFSET = 10_000
MAX_TERMS = 24
MAX_CORRECTIONS = 8  # unknown words looked up for "did you mean"


class QueryError(ValueError):
    """A query the search cannot run, with a message fit to show the user."""


@dataclass
class Hit:
    id: str
    doc: str
    kind: str
    number: str | None
    title: str | None
    snippet: str  # HTML: escaped text with <mark> around matched words
    score: float
    label: str = ""  # how the record is named in a result list (Store.label)

    def to_json(self) -> dict:
        return {"id": self.id, "doc": self.doc, "kind": self.kind, "number": self.number,
                "title": self.title, "label": self.label, "snippet": self.snippet, "url": "/" + self.id,
                "score": round(self.score, 3)}


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
    matched_by: str = "text"  # "reference", "card" or "text"

    def to_json(self) -> dict:
        return {"query": self.query, "total": self.total, "offset": self.offset, "limit": self.limit,
                "results": [h.to_json() for h in self.hits], "facets": self.facets,
                "did_you_mean": self.did_you_mean, "redirect": self.redirect and "/" + self.redirect,
                "note": self.note, "matched_by": self.matched_by}


@dataclass
class _Found:
    top: list  # (score, Whoosh hit), best first
    total: int
    facets: dict[str, dict[str, int]]
    suggestion: str | None
    terms: set[str]
    pairs: list[str] = field(default_factory=list)  # " starting player " and the like
    corrected: bool = False  # the hits are for the "did you mean" query, not the one typed


RERANK = 50  # best hits re-scored for word pairs the text prints side by side
PAIR_BONUS = 2.0


_FILTER = re.compile(r"\b(doc|kind):(\S+)")
_PHRASE = re.compile(r'"([^"]+)"')
_WORD = analyzer()


def _pairs(text: str) -> list[str]:
    """Adjacent content words of a query, as they would sit in folded text: " starting player "."""
    words = [fold(t.text) for t in _EXACT(_PHRASE.sub(" ", text)) if t.text not in _STOP][:MAX_TERMS]
    return [f" {a} {b} " for a, b in pairwise(words)]


def _content_stems(text: str) -> list[str]:
    """The stems of what a question is about: "what happens when a player has ten poison
    counters" -> happen, player, ten, poison, counter (question words carry no topic)."""
    raw = [t.text for t in _EXACT(text)]
    content = [w for w in raw if w not in _STOP] or raw
    return [s for s in dict.fromkeys(stem(w) for w in content) if s][:MAX_TERMS]
_STOP = frozenset({"a", "an", "the", "is", "are", "who", "what", "how", "does", "do", "can", "you", "of", "in", "on",
                   "to", "when", "which", "with", "and", "or", "for", "it", "my", "i", "if", "has", "have"})
_EXACT = analyzer(stem=False)


class Searcher:
    def __init__(self, store: Store, index_path: Path | None = None, cache_size: int = 2048):
        self.store = store
        self.resolver = Resolver(store)
        self.ix = open_index(index_path or store.path / "index")
        # Whoosh's searcher reads its files through shared handles (seek, then read), so two
        # threads on one searcher corrupt each other's reads ("incomplete or truncated stream"
        # under gunicorn's threads). Each thread opens its own once and reuses it for every query.
        self._local = threading.local()
        self._opened: list = []
        self._opened_lock = threading.Lock()
        self.docs = {d["slug"] for d in store.documents} | {"keywords"}
        # docnum -> (doc, kind), for facets without touching stored fields per hit.
        self.facet_of = {}
        self.ids = {}
        for n, f in self.searcher.iter_docs():
            self.facet_of[n] = (f["doc"], f["kind"])
            self.ids[n] = f["id"]

        self._complete = self._completions(store)
        self.titles = self._titles(store)
        self.spelling = Spelling(
            (w.decode() if isinstance(w, bytes) else w for w in self.searcher.lexicon("exact")),
            lambda w: self.searcher.doc_frequency("exact", w),
        )
        self._words: dict[int, str] = {}  # docnum -> folded words, filled as hits need them
        # A build never changes, so neither does an answer: a tournament hall asking for the same
        # rule after an announcement is answered from memory. (kb bench measures with it off.)
        self._cached = lru_cache(maxsize=cache_size)(self._search) if cache_size else None

    @property
    def searcher(self):
        s = getattr(self._local, "searcher", None)
        if s is None:
            s = self.ix.searcher(weighting=BM25F(title_B=0.5, body_B=0.75))
            self._local.searcher = s
            with self._opened_lock:
                self._opened.append(s)
        return s

    def close(self) -> None:
        with self._opened_lock:
            for s in self._opened:
                s.close()
            self._opened.clear()

    # -- entry point ---------------------------------------------------------------
    def search(self, q: str, doc: str | None = None, kind: str | None = None,
               limit: int = 10, offset: int = 0) -> Results:
        """Answer a query (see the module docstring); repeated queries come from a small cache."""
        if self._cached is None:
            return self._search(q, doc, kind, limit, offset)
        return self._cached(q, doc, kind, limit, offset)

    def _search(self, q: str, doc: str | None, kind: str | None, limit: int, offset: int) -> Results:
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
        text = _FILTER.sub(" ", q).strip()
        if doc and doc not in self.docs:
            raise QueryError(f"unknown document {doc!r}; known: {', '.join(sorted(self.docs))}")
        if kind and kind not in KINDS:
            raise QueryError(f"unknown kind {kind!r}; known: {', '.join(KINDS)}")
        if not text:
            return Results(q, 0, [], {"doc": {}, "kind": {}}, offset=offset, limit=limit)

        first = self._reference(text, doc) or self._card(text, doc) or self._titled(text, doc)
        records, matched_by, note, redirect = first if first else ([], "text", None, None)
        if kind:
            records = [r for r in records if r.kind == kind]
            if redirect and redirect not in {r.id for r in records}:
                redirect = None  # "907.4b kind:card" is not a reason to jump to the rule
        if records and (matched_by == "reference" or redirect):
            # A rule number or an exact card name is answered without the full-text index.
            found = _Found([], 0, {"doc": {}, "kind": {}}, None, set())
        else:
            found = self._full_text(text, doc, kind, exclude={r.id for r in records}, need=offset + limit)
        facets = found.facets
        for r in records:
            facets["doc"][r.doc] = facets["doc"].get(r.doc, 0) + 1
            facets["kind"][r.kind] = facets["kind"].get(r.kind, 0) + 1
        everything = records + found.top
        page = [self._lead_hit(x, text) if isinstance(x, Record) else self._hit(x, found.terms)
                for x in everything[offset:offset + limit]]
        suggestion = found.suggestion
        if found.corrected and not records:
            note = f"nothing matched {text!r}; showing results for {suggestion!r}"
        return Results(q, len(records) + found.total, page, facets,
                       did_you_mean=suggestion if not records else None, redirect=redirect,
                       note=note, offset=offset, limit=limit, matched_by=matched_by)

    # -- 1. rule references ----------------------------------------------------------
    def _reference(self, text: str, doc: str | None):
        sections, names = self.resolver.section_titles, self.resolver.doc_names
        if parse_ref(text, sections=sections, bare_numbers=True, doc_names=names) is None:
            return None
        res = self.resolver.resolve(text)
        matches = [r for r in res.matches if doc is None or r.doc == doc]
        if not matches and not res.suggestions:
            return [], "reference", res.note, None
        records: list[Record] = []
        for r in matches:
            records.append(r)
            records += [c for c in self._descendants(r) if c not in records]
        for r in matches:
            records += [self.store.records[c] for c in r.cited_by if self.store.records[c] not in records]
        records += [s for s in res.suggestions if s not in records]
        redirect = matches[0].id if len(matches) == 1 else None
        return records, "reference", res.note, redirect

    def _descendants(self, record: Record) -> list[Record]:
        out = []
        for child in self.store.children(record):
            out.append(child)
            out += self._descendants(child)
        return out

    # -- 2. card names -------------------------------------------------------------
    def _card(self, text: str, doc: str | None):
        card, distance = self.resolver.card(text)
        if card is None or (doc and card.doc != doc):
            return None
        note = None if distance == 0 else f"showing {card.title} for {text!r}"
        return [card], "card", note, card.id if distance == 0 else None

    # -- 2b. a title, exactly -------------------------------------------------------------
    _TITLE_ORDER = {"keyword": 0, "rule": 1, "section": 2, "note": 2, "glossary": 3, "chapter": 4}

    def _titles(self, store: Store) -> dict[str, list[Record]]:
        """Records by the stems of their title ("Legend Rule", "Tokens", "Mayhem")."""
        out: dict[str, list[Record]] = {}
        for r in store.records.values():
            if r.title and r.kind in self._TITLE_ORDER:
                key = " ".join(_content_stems(plain(r.title)))
                if key:
                    out.setdefault(key, []).append(r)
        for records in out.values():
            records.sort(key=lambda r: (self._TITLE_ORDER[r.kind], self.store.position.get(r.id, 0)))
        return out

    def _titled(self, text: str, doc: str | None):
        """A query that is exactly a keyword's, rule's or term's title answers with those first."""
        if '"' in text:
            return None
        records = [r for r in self.titles.get(" ".join(_content_stems(text)), ()) if doc is None or r.doc == doc]
        return (records[:5], "title", None, None) if records else None

    # -- 3. full text --------------------------------------------------------------
    def _build_query(self, text: str):
        parts = []
        for phrase in _PHRASE.findall(text):
            words = [t.text for t in _EXACT(phrase)][:MAX_TERMS]
            if len(words) > 1:
                parts.append(Q.Phrase("exact", words, boost=2.0))
            elif words:
                parts.append(Q.Term("exact", words[0]))
        rest = _PHRASE.sub(" ", text)
        words = _content_stems(rest)
        for w in words:
            fields = [Q.Term("title", w), Q.Term("body", w)]
            if w[:1].isdigit():  # only a number can match the number field
                fields.append(Q.Term("number", w))
            parts.append(Q.Or(fields))
        if not parts:
            return None
        return Q.Or(parts, scale=0.95) if len(parts) > 1 else parts[0]

    def _filter(self, doc: str | None, kind: str | None):
        terms = [Q.Term("doc", doc)] if doc else []
        terms += [Q.Term("kind", kind)] if kind else []
        return Q.And(terms) if terms else None

    def _full_text(self, text: str, doc: str | None, kind: str | None, exclude: set[str], need: int) -> _Found:
        """The best ``need`` hits (scored), and the total and facets over every match (unscored)."""
        query = self._build_query(text)
        found = _Found([], 0, {"doc": {}, "kind": {}}, None, self._terms(text), _pairs(text))
        if query is not None:
            self._run(query, doc, kind, exclude, need, found)
        if found.total < 3:
            corrected = self._did_you_mean(text)
            if corrected:
                found.suggestion = corrected
                if not found.total:
                    found.terms = self._terms(corrected)
                    found.corrected = True
                    self._run(self._build_query(corrected), doc, kind, exclude, need, found)
        return found

    def _run(self, query, doc, kind, exclude, need, found: _Found) -> None:
        # Collecting every match (limit=None) is cheaper here than Whoosh's top-N path, whose
        # block-quality optimisation builds union arrays for these small OR queries.
        results = self.searcher.search(query, limit=None, filter=self._filter(doc, kind))
        top: list[tuple[float, Any]] = []
        total = 0
        window = max(need, RERANK)
        for hit in results:
            docnum = hit.docnum
            if self.ids[docnum] in exclude:
                continue
            total += 1
            if len(top) < window:
                top.append((hit.score, hit))
            d, k = self.facet_of[docnum]
            found.facets["doc"][d] = found.facets["doc"].get(d, 0) + 1
            found.facets["kind"][k] = found.facets["kind"].get(k, 0) + 1
        if found.pairs:
            top = [(score + PAIR_BONUS * self._adjacent(hit.docnum, found.pairs), hit) for score, hit in top]
            top.sort(key=lambda x: -x[0])
        found.top, found.total = top[:need], total

    def _adjacent(self, docnum: int, pairs: list[str]) -> int:
        """How many of the query's word pairs the record prints side by side ("starting player").

        Done in Python on the best hits only: as Whoosh phrase queries over the whole index
        these pairs cost more than the rest of the query together.
        """
        words = self._words.get(docnum)
        if words is None:
            record = self.store.records[self.ids[docnum]]
            text = plain(" ".join(filter(None, [record.title, record.text, record.rules_text])))
            words = self._words[docnum] = " " + " ".join(fold(w.lower()) for w in TOKEN_RE.findall(text)) + " "
        return sum(1 for pair in pairs if pair in words)

    def _terms(self, text: str) -> set[str]:
        """What a snippet marks: the query's stems and its exact (phrase) words."""
        phrase_words = [t.text for t in _EXACT(" ".join(_PHRASE.findall(text))) if t.text not in _STOP]
        return {t.text for t in _WORD(text)} | {"=" + w for w in phrase_words}

    def _hit(self, scored, terms: set[str]) -> Hit:
        """A result for the page: the record's fields and a highlighted snippet."""
        score, hit = scored
        record = self.store.records[self.ids[hit.docnum]]
        body = plain(record.text or record.rules_text or "")
        return Hit(record.id, record.doc, record.kind, record.number, record.title,
                   snippet(body, terms), float(score), self.store.label(record))

    def _lead_hit(self, record: Record, text: str) -> Hit:
        return Hit(record.id, record.doc, record.kind, record.number, record.title,
                   html.escape(clip(plain(record.text or record.rules_text or ""))), 1000.0, self.store.label(record))

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
        key = " ".join(fold(q).lower().split())
        if not key:
            return []
        starts, words = [], []
        for folded, label, rid, priority in self._complete:
            if folded.startswith(key) or folded.startswith("the " + key):
                starts.append((priority, len(label), label, rid))
            elif f" {key}" in f" {folded}":
                words.append((priority, len(label), label, rid))
        picked = sorted(starts)[:limit]
        if len(picked) < limit:
            picked += sorted(words)[: limit - len(picked)]
        if len(picked) < limit and len(key) >= 3:
            picked += self._ngram_complete(key, {p[3] for p in picked}, limit - len(picked))
        return [{"label": label, "id": rid, "url": "/" + rid} for _, _, label, rid in picked]

    def _ngram_complete(self, key: str, seen: set[str], n: int) -> list[tuple]:
        """Fall back to the index's n-gram field: substrings of a word ("seedb" -> "Her Seedborn Highness")."""
        terms = [Q.Term("complete", w[:12]) for w in key.split() if len(w) >= 2][:MAX_TERMS]
        if not terms:
            return []
        out = []
        for hit in self.searcher.search(Q.And(terms), limit=n + len(seen)):
            rid = hit["id"]
            record = self.store.records[rid]
            if rid in seen or record.kind in ("ruling", "history"):
                continue
            out.append((9, 0, " ".join(filter(None, [record.number, record.title])) or rid, rid))
            if len(out) == n:
                break
        return out

    # -- 4. did you mean ------------------------------------------------------------
    def _did_you_mean(self, text: str) -> str | None:
        words = re.findall(r"\w+", text)[:MAX_TERMS]
        changed = False
        out = []
        tries = MAX_CORRECTIONS
        for w in words:
            low = fold(w.lower())
            if len(low) < 4 or low.isdigit() or self.searcher.doc_frequency("exact", low) > 0 or not tries:
                out.append(w)
                continue
            tries -= 1
            fix = self.spelling.suggest(low)
            if fix and fix != low:
                out.append(fix)
                changed = True
            else:
                out.append(w)
        return " ".join(out) if changed else None
