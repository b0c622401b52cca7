"""Stage 3, candidates: the lexical candidates from Whoosh, re-ranked, cut at the relevance floor.

The query's stems (titles boosted, bodies stemmed), quoted phrases and number fields as a Whoosh query built from
our own tokens (no Whoosh syntax can reach the engine); every match scored as Whoosh scores it (kb.engine, over the
build's cached postings); the best ``rank.WINDOW`` joined by a named card's rulings and the records under a
question's term, then re-ranked (kb.rank.Ranker over the kb.signals registry); the results worth showing are
those at least ``RELEVANCE_FLOOR`` of the best match. The semantic stage (kb.semantic), when on, re-orders those
and never lets one in from under the floor. Misspelt words are corrected first (kb.search.typos); with fewer than
three matches, "did you mean" is searched or offered. Facets are counted over the results worth showing.

Reads: the build's tables (kb.search.tables: postings, per-stem weights and uses, docnums, card names, common
questions), the re-ranker, typos.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import filterfalse, islice
from operator import attrgetter, itemgetter

from whoosh import query as Q

from kb import engine, rank
from kb.ids import fold
from kb.rank import Candidate
from kb.search.parse import (MAX_TERMS, ONLY_ASKING, PHRASE, STOP, WORD, Query, content_stems, exact_words,
                             naming_stems, pairs, unquoted_stems)
from kb.search.tables import Tables, word_query
from kb.search.typos import Typos
from kb.snippet import stem
from kb.words import words

__all__ = ["Candidates", "Found", "RELEVANCE_FLOOR", "UNDER_TERMS", "UNDER_POSTINGS"]

UNDER_TERMS = 10  # records under a question's term that join the candidates (Candidates._under_terms)
UNDER_POSTINGS = 2000  # a word in more records than this ("card") is read by Whoosh's ranking alone
# A full-text result is worth showing (and counting) when Whoosh scores it at least this share of the best match:
# below it lie the records sharing one common word of the question ("card", "player"), 1,000-2,263 of them for an
# ordinary question. 0.35: the highest share at which no question of the quality suites (tests/test_search_quality.py,
# test_heldout.py) loses its answer from the first ten; 0.4 lost three (docs/search-behaviour.md).
RELEVANCE_FLOOR = 0.35


@dataclass
class Found:
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


class Candidates:
    """Query -> ``Found``: the page's best candidates (re-ranked), the count and facets of those worth showing."""

    def __init__(self, tables: Tables, typos: Typos):
        self.tables, self.typos = tables, typos
        self.store, self.docnums, self.record_of, self.ranker = tables.store, tables.docnums, tables.record_of, \
            tables.ranker
        self.sizes, self.postings = tables.sizes, tables.postings
        self._under: dict[str, frozenset[int]] = {}  # record id -> its descendants' docnums (_under_docnums)

    @property
    def searcher(self):
        """This thread's Whoosh searcher (kb.search.tables.Tables.searcher)."""
        return self.tables.searcher

    def warm(self) -> None:
        """Fill the per-build tables a first question would: the word matchers its builder asks for beyond each
        stem at full weight in title and body (Tables.warm_stems) -- every word of the vocabulary's phrases at half
        weight (what a rewrite replaced, searched as weaker evidence: "wear off", "pump", "tdfc") and every number
        with its twin and its number field ("ten" -> 10) -- and the records under each term's rule. Made by the
        builder itself, so the same keys; bounded by the vocabulary, the numbers and the terms. A third of the bench's
        questions built one or two words' matchers on their first run."""
        made = [self.build_query("", [" ".join(key)]) for key in self.tables.vocabulary.phrases]
        made += [self.build_query(word) for n, name in enumerate(rank.NUMBER_WORDS) for word in (str(n), name)]
        for query in made:
            words = query.subqueries if isinstance(query, Q.Or) and query.scale else [query]
            for word in words:  # each word as a question's tree asks it (kb.engine keeps its matcher per build)
                if isinstance(word, Q.Or):
                    self.tables.scores(word, None)
        for rid in {rid for terms in self.ranker.families.values() for _, rid in terms}:
            self._under_docnums(rid)

    def build_query(self, text: str, extra: list[str] | None = None, naming: frozenset[str] = frozenset(),
                     unknown: frozenset[str] = frozenset()):
        """The Whoosh query of ``text``: its quoted phrases on the exact field, each content stem on title and body
        (and number, for a number), with ``extra`` (the table words the vocabulary replaced) weaker; ``naming``
        (the words naming a document) and ``unknown`` (words nothing uses) left out. None when nothing is left."""
        parts = []
        for phrase in PHRASE.findall(text):
            exact = list(exact_words(phrase))[:MAX_TERMS]
            if len(exact) > 1:
                parts.append(Q.Phrase("exact", exact, boost=2.0))
            elif exact:
                parts.append(Q.Term("exact", exact[0]))
        stems = [s for s in unquoted_stems(text) if s not in unknown]
        if naming and [s for s in stems if s not in naming]:
            # "uncommander sticker": the document is a preference (kb.rank), the topic is the sticker; the
            # name is searched only when it is all the question says ("uncommander", "future sight")
            stems = [s for s in stems if s not in naming]
        numbers = "numbers" in rank.SIGNALS
        for w in stems + [s for s in content_stems(" ".join(extra or ())) if s not in stems][:4]:
            boost = 1.0 if w in stems else 0.5  # a table word the vocabulary replaced: weaker evidence
            parts.append(word_query(w, boost, rank.NUMBER_ALT.get(w) if numbers else None))
        if not parts:
            return None
        return Q.Or(parts, scale=0.95) if len(parts) > 1 else parts[0]

    def full_text(self, query: Query, exclude: set[str]) -> Found:
        """The best hits (re-ranked), and the total and facets over every match (unscored)."""
        text = query.words.text
        found = Found(terms=self.terms(text))
        if query.words.replaced:  # what the vocabulary rewrote is marked too
            found.terms |= self.terms(" ".join(query.words.replaced))
        fixed = self.typos.fixed_in(query, text) if "typos" in rank.SIGNALS and '"' not in text else None
        if fixed:
            fixed = self.typos.said_again(query, text, fixed)
            text = found.fixed = fixed
            # said in the user's words, not the vocabulary's ("... if it got bounced", not "... return to owner's hand")
            found.suggestion = found.said_fixed = self.typos.fixed_in(query, query.text) if query.words.used else fixed
            found.terms |= self.terms(fixed)
        self._run(query, text, query.words.replaced, exclude, found)
        if found.matched < 3:
            corrected = self.typos.correction(query)
            if corrected:
                found.suggestion = corrected
                if found.matched or self._names_itself(query.text):
                    # "lotus bloom" (a card no document holds) is not "locus blood": nothing matched as typed, and
                    # the correction is no answer; offered only when some record holds all its words ("unvel morhp":
                    # Treachery's unveil rule says morph; no record says locus and blood)
                    found.offered, found.unmatched = True, not found.matched
                    if not found.matched and not self.said_together(corrected):
                        found.suggestion = None
                else:
                    found.terms = self.terms(corrected)
                    found.corrected = True
                    self._run(query, corrected, [], exclude, found)
        return found

    def _finds_nothing(self, text: str, extra: list[str]) -> bool:
        """No word of ``text`` (nor of ``extra``, the vocabulary's) is in a record's title or body or a common
        question, none is a number or has a number twin, and nothing is quoted: no record matches, so ``_run`` returns
        before scoring, re-ranking and counting nothing, leaving ``found`` as it is (no top, total or match; the
        semantic stage and the cross-encoder re-order two candidates or more, never add to none). "unvel" was run
        through all of it as typed (a fifth of its CPU) before its correction was searched. Not with the learned
        ranker, which records each window."""
        if '"' in text or self.tables.learned is not None:
            return False
        stems = unquoted_stems(text)
        if not stems or any(map(self._may_match, stems)):
            return False
        return not extra or not any(map(self._may_match, content_stems(" ".join(extra))))

    def _may_match(self, stem: str) -> bool:
        """A record's title or body or a common question uses ``stem``, or it is a number or has a number twin."""
        postings, searcher = self.postings, self.searcher
        return self.tables.asked.uses(stem) or postings.term(searcher, "body", stem.encode()) is not None \
            or postings.term(searcher, "title", stem.encode()) is not None or stem[:1].isdigit() \
            or stem in rank.NUMBER_ALT

    def said_together(self, text: str) -> bool:
        """Some record holds every content word of ``text`` (in its title or body): from the postings."""
        return said_together(self.tables.postings, self.tables.searcher, content_stems(text))

    @staticmethod
    def _names_itself(text: str) -> bool:
        """A query no record matched that holds two words of four letters or more (question words aside) is as
        likely a name no loaded document holds as two typos: "lotus bloom" (a card) was searched as "locus blood"
        with the rules loaded, "lotus blood" without (The Blood Empress first). One such word is a typo
        ("gravstrom" -> gravestorm, "nope" -> note, "what is unvel")."""
        said = [w for w in WORD.findall(fold(text).lower()) if len(w) >= 4 and w not in ONLY_ASKING]
        return len(said) >= 2

    def _run(self, query: Query, text: str, extra: list[str], exclude: set[str], found: Found) -> None:
        everything = unquoted_stems(text)  # with the words naming a document: they weigh a common question's match
        # A word no record and no common question uses tells no candidate from another ("qwv", "spel"): it only
        # lowered every coverage and every common question's match, the rarer the more (such a word weighs
        # most), and Whoosh's coordination bonus counted it. Left out, unless the question has nothing else.
        known = tuple(s for s in everything if self.tables.used(s))
        if everything and not known and self._finds_nothing(text, extra):  # "unvel": nothing to score as typed
            return
        unknown = frozenset(everything) - frozenset(known) if known else frozenset()
        everything = known or everything
        naming = naming_stems(query.text)  # the words naming a document: a preference, searched only when alone
        whoosh_query = self.build_query(text, extra, naming, unknown)
        if whoosh_query is None:
            return
        # Every match, scored as Whoosh scores it (what searcher.search(limit=None) returns).
        scores = self.tables.scores(whoosh_query, self.tables.filter(query.doc, query.kind))
        for rid in exclude:
            scores.pop(self.docnums.get(rid, -1), None)
        # Whoosh's order of the matches worth showing (above RELEVANCE_FLOOR of the best), or of the best WINDOW
        # when fewer are: the rest are counted, never shown, so never sorted
        order, above, best_scores = engine.ranked_window(scores, RELEVANCE_FLOOR, rank.WINDOW, rank.WINDOW)
        total = len(scores)
        record_of = self.record_of
        # The same best hits are re-ranked for every page: a window that grew with the page re-ranked each page's
        # list anew, so page 6 repeated hits of pages 1-5 and left others out (105 of 291 records over all pages).
        best = order[:rank.WINDOW]
        top = list(map(Candidate, [record_of[d] for d in best], best_scores, best))
        stems = [s for s in everything if s not in naming] or [s for s in unquoted_stems(text) if s not in naming]
        weights = self.tables.weights(stems)  # document frequencies from memory, as Whoosh counts them

        def add(rid: str) -> Candidate | None:
            record = self.store.records.get(rid)
            if record is None or rid in exclude or (query.doc and record.doc != query.doc) \
                    or (query.kind and record.kind != query.kind):
                return None
            return Candidate(record, 0.0, self.docnums.get(rid))

        implied = rank.implied_document(weights, self.tables.uses, self.sizes, self.tables.owner) \
            if "implied document" in rank.SIGNALS else None
        cards = self.tables.named_cards(everything + unquoted_stems(query.text)) if "card named" in rank.SIGNALS \
            else frozenset()
        asks = rank.asks(self.typos.said_in(query, query.text))
        parts = self.tables.partly_named_cards(everything, exact_words(query.text)) \
            if "card named in part" in rank.SIGNALS else frozenset()
        named = rank.Named(query.named_doc, query.named_kind, implied, asks, cards, parts)
        have: set[int | None] = set(best)  # the candidates' docnums, each a match (in ``scores``)
        if cards:  # a named card's rulings that match the question join the candidates wherever Whoosh put them
            rulings = self._rulings_of(cards, scores, have)
            top += rulings
            have.update(c.docnum for c in rulings)
        # the rules the question's terms lead to, read once for the candidates under them and the re-rank
        terms = self.ranker.family_terms(weights, sum(weights.values()) or 1.0) if "term's rules" in rank.SIGNALS \
            else None
        if terms is not None and "under a term" in rank.SIGNALS:
            under = self._under_terms(terms, weights, scores, have)
            top += under
            have.update(c.docnum for c in under)
        matches, least = None, rank.ASKED_MIN
        if "asked" in rank.SIGNALS and len(self.tables.asked) and len(stems) >= rank.ASKED_WORDS:
            asked = weights if len(everything) == len(stems) else self.tables.weights(everything)
            least = rank.ASKED_MIN_SHORT if len(stems) < rank.ASKED_SHORT else rank.ASKED_MIN
            matches = self.tables.asked.match(asked, least, self._beyond_abbreviation(query, asked))
        learned = self.tables.learned  # the learned ranker reads the re-rank's reasons (kb.learned)
        top = self.ranker.rerank(top, weights, pairs(text), named, add, explain=learned is not None, asked=matches,
                                 minimum=least, terms=terms)
        if learned is not None:
            top = learned.reorder(top, scores)
        # added by the re-rank (a common question's record, a rule a glossary entry points at), and of those the
        # ones Whoosh did not count
        added = [c.docnum for c in top if c.docnum not in have]
        joined = sum(1 for d in added if d not in scores)
        have.update(added)
        # The results worth showing: the matches scoring at least RELEVANCE_FLOOR of the best one (with those the
        # re-rank added), in the re-ranked order; not every record sharing a word (an ordinary question counted
        # 1,000-2,263 "results"). Every page, the count and the facets are of these.
        shown = above + joined
        # past the re-ranked window: the rest in Whoosh's order, each record once (docnums; a hit made of the few a
        # page shows)
        tail = list(islice(filterfalse(have.__contains__, islice(order, rank.WINDOW, None)), max(0, shown - len(top))))
        head = top[:shown]
        semantic = self.tables.semantic  # the semantic stage (kb.semantic): re-orders a question's best results,
        if semantic is not None:
            # the common questions in use vote (their vectors); with dense_k it joins the records nearest the
            # question that the lexical candidates lack (kb.semantic.Settings.dense_k), each then shown and counted
            # once: out of the tail, and among the matches when Whoosh did not count it
            before = len(head)
            head = semantic.rerank(query.text, head, self.tables.asked, add)
            if len(head) > before:
                dense = {c.docnum for c in head} - have
                tail = [d for d in tail if d not in dense]
                joined += sum(1 for d in dense if d not in scores)
        cross = self.tables.cross  # the cross-encoder (kb.cross): re-orders a question's first few, when on
        if cross is not None:
            head = cross.rerank(query.text, head)
        self._count_facets(head, tail, found.facets)
        wanted = query.offset + query.limit
        page = head + [Candidate(record_of[d], scores[d], d) for d in tail[:max(0, wanted - len(head))]]
        found.top, found.total, found.matched = page[:wanted], len(head) + len(tail), total + joined

    def _count_facets(self, head: list[Candidate], tail: list[int], facets: dict[str, dict[str, int]]) -> None:
        """Facet values in the order of their best match, as a result list shows them: the (doc, kind) pairs of the
        results worth showing (the re-ranked ``head``, then the ``tail``'s docnums) counted in ranked order (a
        Counter keeps first appearances first), then each side summed."""
        code = self.tables.facet_code
        docnums = [c.docnum for c in head]
        codes = list(itemgetter(*docnums)(code)) if len(docnums) > 1 and None not in docnums else \
            [code[c.docnum] if c.docnum is not None else (c.record.doc, c.record.kind) for c in head]
        if tail:  # a long list is looked up in C
            codes += itemgetter(*tail)(code) if len(tail) > 1 else [code[tail[0]]]
        docs, kinds = facets["doc"], facets["kind"]
        for pair, n in Counter(codes).items():
            doc, kind = self.tables.facet_pair[pair] if isinstance(pair, int) else pair
            docs[doc] = docs.get(doc, 0) + n
            kinds[kind] = kinds.get(kind, 0) + n

    def _rulings_of(self, cards: frozenset[str], scores: Mapping[int, float], have: set[int | None]) -> list[Candidate]:
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

    def _under_terms(self, terms: dict[str, frozenset[str]], weights: dict[str, float], scores: Mapping[int, float],
                     have: set[int | None]) -> list[Candidate]:
        """Candidates for the records under the rule a question's term leads to (``terms``: Ranker.family_terms)
        that match the rest of the question, wherever Whoosh ranked them: "sba legend" is state-based actions'
        704.5j, which says "legend" and none of the term's words, below fifty records that say "state-based
        actions" (not among them)."""
        out: dict[int, Candidate] = {}
        postings, searcher = self.postings, self.searcher
        for rid, term in terms.items():
            rest = [s for s in weights if s not in term]
            under = self._under_docnums(rid) if rest else frozenset()
            if not under:
                continue
            for s in rest:
                for name in ("title", "body"):
                    found = postings.term(searcher, name, s.encode())
                    if found is None or len(found.ids) > UNDER_POSTINGS:
                        continue
                    # the postings under the rule, in docnum order (a dict's keys and a set intersect in C, from
                    # the smaller side)
                    for d in sorted(found.by_doc.keys() & under):
                        if d in scores and d not in have and d not in out:
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
    def _beyond_abbreviation(query: Query, weights: dict[str, float]) -> frozenset[str]:
        """The stems of a question beyond the term an abbreviation of it stands for ("sba" -> state-based actions,
        "etb" -> enters the battlefield), when they weigh enough that the question asks more than the term
        (rank.MORE): a common question that shares none of them asks what the term is. "sba legend" matched "what
        are state based actions" at 0.75 (a term of three words against one) and put 704.1 first, 704.5j nowhere."""
        if "asked beyond an abbreviation" not in rank.SIGNALS:
            return frozenset()
        said: set[str] = set()
        for short, means, _ in query.words.used:
            term = content_stems(means)
            if len(short.split()) == 1 and len(term) >= 2:
                said.update(term)
        rest = frozenset(s for s in weights if s not in said)
        total = sum(weights.values()) or 1.0
        if not said or not rest or math.fsum([weights[s] for s in rest]) / total < rank.MORE:  # a set: fsum
            return frozenset()
        return rest

    def terms(self, text: str) -> set[str]:
        """What a snippet marks: the query's stems and its exact (phrase) words."""
        phrase_words = [w for w in exact_words(" ".join(PHRASE.findall(text))) if w not in STOP]
        # The body field's terms of the text (kb.words.stems, which tests/test_words.py holds equal to
        # the index's analyzer), each word stemmed once per process rather than through Whoosh's chain.
        return {s for s in map(stem, words(text)) if s} | {"=" + w for w in phrase_words}


def said_together(postings: engine.Postings, searcher, stems: Iterable[str]) -> bool:
    """Some record holds every stem of ``stems`` in its title or body (False for no stems).

    A typed query no record matched is corrected (kb.search.typos) and, when the corrected words are not all in
    one record either, offered rather than searched. That question went through Whoosh's collector (an ``And`` of
    ``title OR body`` terms, which kb.engine's scorer does not model), about a millisecond of a typo query's first
    run; the build's postings (kb.engine.Postings, read-only once stored) answer it as a set intersection: the
    same documents, so the same answer (tests/test_typos.py compares them).
    """
    together: set[int] | None = None
    for word in stems:
        docs: set[int] = set()
        for name in ("title", "body"):
            term = postings.term(searcher, name, word.encode())
            if term is not None:
                docs.update(term.ids)
        together = docs if together is None else together & docs
        if not together:
            return False
    return bool(together)
