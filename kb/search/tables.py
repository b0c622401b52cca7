"""The tables of one opened build that every search stage reads, made once and read-only afterwards.

What a stage reads of the build goes through this object: its records by Whoosh document number (``ids``,
``record_of``, ``doc_of``, ``kind_of``, the facet codes), its documents (``docs``, ``versions``, ``recency``,
``sizes``), the index's words (``exact_df``) and postings (kb.engine.Postings), the resolver, the re-ranker
(kb.rank.Ranker), the vocabulary, spelling, the common questions (kb.asked), the card names a question can hold,
and per-stem tables filled as queries need them (``uses``, ``owner``, ``weights``: each stem once, never changed
once stored). One ``Tables`` per ``kb.search.Searcher``, which the opened build holds (kb.kbase.Opened): it goes
with the build. The Whoosh searcher is opened once per thread (``searcher``).
"""
from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Iterable, Iterator, MutableMapping
from functools import lru_cache
from pathlib import Path

from whoosh import query as Q
from whoosh.scoring import BM25F

from kb import engine, rank
from kb.asked import Asked
from kb.ids import fold
from kb.index import open_index, plain
from kb.rank import Ranker
from kb.resolve import Resolver
from kb.search.parse import content_stems, exact_words
from kb.snippet import stem
from kb.cross import load as load_cross
from kb.learned import load as load_learned
from kb.semantic.vectors import open_stage
from kb.spelling import Spelling
from kb.store import Store
from kb.vocabulary import Vocabulary

__all__ = ["Tables", "CARD_NAME_ELSEWHERE", "WARM_STEMS", "word_query"]

CARD_NAME_ELSEWHERE = 3  # records outside its card that may use a one-word name's word (Tables._card_names)
# Stems whose per-build tables Searcher.warm fills, the most used first: every stem of a build of today's size (4,576
# title and body stems with the official rules, the same at ten times the records: clones repeat the words; ~1 KB
# each, 0.3 s of warming for the 2,576 past the first 2,000). With 2,000, a first "unvel" ("unveil") or "emblem"
# built its word's matcher on the query.
WARM_STEMS = 10_000


def _effective(document: dict) -> str:
    """A document's effective date for "newest first", "" when undated."""
    value = str(document.get("effective") or "")
    return value if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value) else ""


class Tables:
    """One build's tables (module docstring): made when the searcher opens, read-only afterwards."""

    def __init__(self, store: Store, index_path: Path | None = None, fast: bool = True, semantic: bool = False,
                 learned: bool = False, cross: bool = False):
        self.store = store
        self.fast = fast  # False: every query through plain Whoosh (the reference tests/test_engine.py compares with)
        self.resolver = Resolver(store)
        self.ix = open_index(index_path or store.path / "index")
        # Whoosh's searcher reads its files through shared handles (seek, then read), so two
        # threads on one searcher corrupt each other's reads ("incomplete or truncated stream"
        # under gunicorn's threads). A thread takes one (an idle one, or a new one) and keeps it until it
        # says it is done (``release``); each copies the index's files into memory (~10 MB with the 62
        # official releases): one kept by each of a worker's 24 threads grew it past 570 MB.
        self._local = threading.local()
        self._opened: list = []
        self._idle: list = []
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
        self.facet_pair = sorted(set(both))
        self.facet_code = tuple(map({p: i for i, p in enumerate(self.facet_pair)}.__getitem__, both))
        # Newest document first where several answer alike (the current official rules first).
        dates = {d["slug"]: _effective(d) for d in store.documents}
        self.recency = {slug: i for i, slug in enumerate(sorted(dates, key=lambda s: dates[s], reverse=True))}
        self.versions = {d["slug"]: (d["title"], self._version(d)) for d in store.documents}
        self.versions["keywords"] = ("Keywords", "gathered from every document")
        self.ranker = Ranker(store, len(self.record_of))
        self.vocabulary = Vocabulary.from_build(store.manifest, store.records.values()).with_joined(
            (r.title, r.id) for r in store.records.values() if r.title)
        self.sizes = dict(Counter(r.doc for r in store.records.values() if r.doc != "keywords"))
        self._stem_uses: dict[str, dict[str, int]] = {}
        # per stem the index holds, filled as queries need them and never changed once stored: the document it
        # belongs to (rank.word_document, for the implied document) and its weight (rank.weights)
        self._owners: dict[str, str | None] = {}
        self._weight: dict[str, float] = {}
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
        # Every posting of the fields queries use, scored once per build (kb.engine).
        self.postings = engine.Postings(self.searcher)
        self.card_names = self._card_names(store)
        self.name_words = self._name_words(store)  # card id -> its name's words as written and its own stems
        # The common questions (corpus/asked), analysed as a question is: rewritten, then stemmed.
        self.asked = self.asked_table(store.manifest.get("asked", ()))
        # The semantic stage (kb.semantic): the model and this build's record vectors, or None (lexical only; served
        # on by default, KB_SEMANTIC: docs/semantic.md).
        self.semantic = open_stage(store.path) if semantic else None
        # The learned ranker (kb.learned): re-orders the re-ranked window by trained weights, or None (by hand).
        self.learned = load_learned() if learned else None
        # The cross-encoder (kb.cross): re-orders a question's first few results, or None (off: the default, until
        # a model pays on the split by record within the time budget; docs/semantic.md "Cross-encoder").
        self.cross = load_cross(store.records) if cross else None

    def asked_table(self, entries: Iterable[dict]) -> Asked:
        """The common questions ``entries`` (corpus/asked's, as a build lists them), analysed as a question is."""
        return Asked(entries, lambda text: content_stems(self.vocabulary.expand(text, self.knows).text),
                     lambda stems: rank.weights(self.postings, stems), rank.ASKED_MIN, self.topic)

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
            with self._opened_lock:
                s = self._idle.pop() if self._idle else None
            if s is None:
                s = self.ix.searcher(weighting=BM25F(title_B=0.5, body_B=0.75))
                with self._opened_lock:
                    self._opened.append(s)
            self._local.searcher = s
        return s

    def release(self) -> None:
        """This thread is done searching for now (kb serve: at the end of each request): its searcher goes back
        for another thread to take, so a worker holds as many as it ran at once, not one per thread."""
        s = getattr(self._local, "searcher", None)
        if s is not None:
            self._local.searcher = None
            with self._opened_lock:
                self._idle.append(s)

    def close(self) -> None:
        with self._opened_lock:
            for s in self._opened:
                s.close()
            self._opened.clear()
            self._idle.clear()

    def warm_stems(self, most: int = WARM_STEMS) -> None:
        """The per-stem tables a query fills on first use (its uses per document, the document it belongs to,
        its weight, its word's matcher), for the ``most`` stems that most records use (every stem, for a build
        of today's size): a first "what happens when ..." paid ~30% more than its second, a first typo or rare
        word its word's matcher. Bounded: at most ``most`` entries per table."""
        reader = self.searcher.reader()
        held: dict[str, int] = {}
        for name in ("title", "body"):
            for btext, info in reader.iter_field(name):
                stem = btext.decode() if isinstance(btext, bytes) else btext
                held[stem] = held.get(stem, 0) + info.doc_frequency()
        for stem in sorted(held, key=lambda s: (-held[s], s))[:most]:
            self.owner(stem)
            self.weights([stem])
            # the word's matcher as a question's builder asks it (kb.engine keeps it per build)
            self.scores(word_query(stem, 1.0, rank.NUMBER_ALT.get(stem) if "numbers" in rank.SIGNALS else None), None)

    def filter(self, doc: str | None, kind: str | None):
        terms = [Q.Term("doc", doc)] if doc else []
        terms += [Q.Term("kind", kind)] if kind else []
        return Q.And(terms) if terms else None

    def topic(self, record_id: str) -> frozenset[str]:
        """The stems of what a record is about by name: the card a ruling or note belongs to."""
        stems: set[str] = set()
        record = self.store.records.get(record_id)
        while record is not None:
            title = record.title or ""
            if record.kind == "card":
                # as its questions are analysed too: "Grave Peril" is "graveyard peril" to the vocabulary
                stems.update(content_stems(plain(title)))
                stems.update(content_stems(self.vocabulary.expand(plain(title), self.knows).text))
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
            name = frozenset(content_stems(plain(card.title)))
            if len(name) == 1:
                family = 1 + len(store.children(card))
                if sum(self.uses(next(iter(name))).values()) > family + CARD_NAME_ELSEWHERE:
                    continue
            for s in name:
                out.setdefault(s, []).append((name, card.id))
        return out

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

    def named_cards(self, stems: Iterable[str]) -> frozenset[str]:
        """The cards whose whole name a question's stems hold."""
        have = frozenset(stems)
        return frozenset(cid for s in have for name, cid in self.card_names.get(s, ()) if name <= have)

    def _name_words(self, store: Store) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
        """Card id -> (its name's words as written, the stems of its name the documents use almost only for that
        card: "jhoira", "meek"; not "time" of The Time Bender), for the cards a question can name (``card_names``)."""
        out = {}
        for cid in {cid for named in self.card_names.values() for _, cid in named}:
            card = store.records[cid]
            family = 1 + len(store.children(card)) + CARD_NAME_ELSEWHERE
            name = frozenset(content_stems(plain(card.title or "")))
            out[cid] = (frozenset(exact_words(card.title or "")),
                        frozenset(s for s in name if sum(self.uses(s).values()) <= family))
        return out

    def partly_named_cards(self, stems: Iterable[str], words: Iterable[str]) -> frozenset[str]:
        """The cards a question names only in part, by a word that means something else there: a word of the name
        the documents use beyond its card ("the time bender" for "what time"), or the name's word in another form
        ("does swords to plowshares exile" is not Sword of the Meek). A piece of a name that is the card's own, as
        written ("jhoira suspend"), names the card as players do: not these."""
        have = frozenset(stems)
        partly = [(s, cid) for s in have for name, cid in self.card_names.get(s, ()) if not name <= have]
        if not partly:  # most questions share no word with a card's name
            return frozenset()
        by_stem: dict[str, set[str]] = {}
        for w in words:
            by_stem.setdefault(stem(w), set()).add(w)
        out = set()
        for s, cid in partly:
            written, own = self.name_words[cid]
            if s not in own or not by_stem.get(s, set()) & written:
                out.add(cid)
        return frozenset(out)

    def knows(self, word: str) -> bool:
        """The index holds ``word`` as written: some record's title or text uses it."""
        return self.postings.term(self.searcher, "exact", word.encode()) is not None

    def uses(self, word: str) -> dict[str, int]:
        """How many records of each document use a stem (title or body); once per stem and build."""
        found = self._stem_uses.get(word)
        if found is None:
            docnums: set[int] = set()
            for name in ("title", "body"):
                term = self.postings.term(self.searcher, name, word.encode())
                if term is not None:
                    docnums.update(term.ids)
            if not docnums:  # only stems the index holds: a unique query's unknown words leave nothing behind
                return {}
            found = self._stem_uses[word] = dict(Counter(self.doc_of[d] for d in docnums
                                                         if self.doc_of[d] != "keywords"))
        return found

    def owner(self, stem: str) -> str | None:
        """The document a stem belongs to (rank.word_document), once per stem the index holds and build."""
        try:
            return self._owners[stem]
        except KeyError:
            pass
        found = rank.word_document(self.uses(stem), self.sizes)
        if stem in self._stem_uses:  # only stems the index holds, as _uses keeps them
            self._owners.setdefault(stem, found)
        return found

    def weights(self, stems: Iterable[str]) -> dict[str, float]:
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

    def scores(self, query, filter_query) -> MutableMapping[int, float]:
        """docnum -> score for every match: Whoosh's scores over cached postings (kb.engine), or
        plain Whoosh for a query the engine does not evaluate (and when ``fast`` is off)."""
        if self.fast:
            try:
                return engine.scores(self.postings, self.searcher, query, filter_query)
            except engine.Unsupported:
                pass
        return engine.whoosh_scores(self.searcher, query, filter_query)

    def used(self, stem: str) -> bool:
        """Some record (title or body) or some common question uses this stem."""
        return bool(self.uses(stem)) or self.asked.uses(stem)


@lru_cache(maxsize=8192)
def word_query(w: str, boost: float, alt: str | None) -> Q.Or:
    """One word of a query in its fields (``Candidates.build_query``; ``Tables.warm_stems`` warms the same trees):
    title and body, the number field for a number, and its number twin ("six" finds "6 players", "10" finds "ten or
    more"). The same words come back query after query (a question's are a few of the build's few thousand stems),
    so each is made once per process until the 8,192 most recent push it out: Whoosh's query objects are only read
    once made (kb.engine reads their terms; Whoosh builds matchers from them)."""
    fields = [Q.Term("title", w, boost=boost), Q.Term("body", w, boost=boost)]
    if w[:1].isdigit():  # only a number can match the number field
        fields.append(Q.Term("number", w))
    if alt:
        fields += [Q.Term("title", alt, boost=boost), Q.Term("body", alt, boost=boost)]
    return Q.Or(fields)
