"""Autocomplete: the labels (numbers, card names, titles) starting with what is typed, then those with a word
starting with it, then the index's n-grams ("seedb" -> Her Seedborn Highness), then a card name or words as the
search box would correct them ("metamorf" -> The Metamorph, "comander" -> Commander).

A number is read as the search box reads it: after its prefix ("cr 702.1", "rule 613") or a document's name ("tr
70", "treachery: 907.4"), with a phone's full stop or a European comma ("702.19b.", "702,19b").

Reads: every record's label (made once per build), the resolver's documents and card names, the index's
``complete`` n-gram field, typos (kb.search.typos).
"""
from __future__ import annotations

import re
from collections.abc import Callable

from whoosh import query as Q

from kb.ids import fold, record_url
from kb.model import Record
from kb.refs import number_order
from kb.search.parse import MAX_TERMS
from kb.search.tables import Tables
from kb.search.typos import Typos
from kb.snippet import clip, translation
from kb.store import Store
from kb.words import typed

__all__ = ["Completer", "EXCERPT"]

EXCERPT = 60  # characters of a rule's words in an autocomplete suggestion
# A number being typed after a prefix, written as the reference grammar (kb.refs) reads it: "cr 702.1", "CR §613",
# "cr/613.4", "rule 613"; or after a document's name: "tr 70", "treachery: 907.4", "fs rule 502.2", "treachery/907".
_COMPLETE_PREFIX = re.compile(r"^(?P<prefix>cr(?:\.?\s*§|[./])?|rules?(?:\s*§)?|r\.)\s*(?P<number>\d{1,3}(?:\.\w*)?)$")
_COMPLETE_DOC = re.compile(r"^(?P<name>\D+?)(?:\s*[:/]\s*|\s+)(?:(?:rules?|r\.?|§)\s*)?(?P<number>\d{1,3}(?:\.\w*)?)$")
_TRAILING_PUNCTUATION = re.compile(r"(?<=[a-z])[.,;:!?]+$")  # not after a digit: "702." is a number being typed
_TYPED_NUMBER = re.compile(r"(?<![\w.,])(\d{3})[.,](\d{1,3}[a-z]{0,2})[.,;:!?]*$")
PRIORITY = {  # a label's kind, for its place among labels alike: cards first
    "card": 0, "keyword": 1, "rule": 2, "chapter": 2, "section": 3, "note": 3, "glossary": 4}


def _typed_key(q: str) -> str:
    """What is typed, folded, as the labels are: "trample." as "trample", "702,19b" as "702.19b"."""
    key = _TRAILING_PUNCTUATION.sub("", " ".join(fold(typed(q)).lower().split()))  # "trample." as "trample"
    if _TYPED_NUMBER.search(key):
        # as the search box reads a number: "702.19b." (a phone's full stop), "702,19b" (a European keyboard)
        key = _TYPED_NUMBER.sub(lambda m: m.group(1) + "." + m.group(2), key.rstrip(".,;:!?"))
    return key


class Completer:
    """Typed text -> completions ({label, id, url, excerpt}); its labels made once per build."""

    def __init__(self, tables: Tables, typos: Typos, shown: Callable[[Record], str]):
        self.tables, self.typos, self.shown = tables, typos, shown
        self.store, self.resolver = tables.store, tables.resolver
        self.labels = self._completions(tables.store)

    @property
    def searcher(self):
        """This thread's Whoosh searcher (kb.search.tables.Tables.searcher)."""
        return self.tables.searcher

    @staticmethod
    def _completions(store: Store) -> list[tuple[str, str, str, int]]:
        """(folded key, label, id, priority) for every number, name and title."""
        out = []
        for r in store.records.values():
            if r.kind in ("ruling", "history"):
                continue
            label = " ".join(filter(None, [r.number, r.title]))
            if not label:
                continue
            out.append((fold(label).lower(), label, r.id, PRIORITY.get(r.kind, 5)))
        return out

    def complete(self, q: str, limit: int = 10) -> list[dict]:
        """Up to ``limit`` labels starting with ``q`` (or with a word starting with it)."""
        key = _typed_key(q)
        if not key:
            return []
        key, only = self._scoped(key)
        number_first = key[0].isdigit()
        starts, words = self._starting(key, only, number_first)
        picked = sorted(starts)[:limit]
        if len(picked) < limit:
            picked += sorted(words)[: limit - len(picked)]
        if len(picked) < limit and len(key) >= 3:
            picked += self._ngram_complete(key, {p[3] for p in picked}, limit - len(picked), only)
        if not picked and not number_first and not only and len(key) >= 5:
            picked = self._mistyped_complete(key, limit)
        return [{"label": label, "id": rid, "url": record_url(rid), "excerpt": self._excerpt(rid)}
                for _, _, label, rid in picked]

    def _scoped(self, key: str) -> tuple[str, str | None]:
        """A number after its prefix or a document's name: (the number, the id prefix of the document it is in);
        else (key, None)."""
        # "cr 702.1", "rule 613": a number after its prefix (the official rules' own, for "cr")
        prefixed = _COMPLETE_PREFIX.match(key)
        if prefixed:
            official = prefixed.group("prefix").startswith("cr") and "cr" in self.resolver.doc_order
            return prefixed.group("number"), "cr/" if official else None
        if doc := _COMPLETE_DOC.match(key):  # "tr 70", "treachery: 907.4": a number in the document it names
            name = " ".join(doc.group("name").split())
            if name in self.resolver.doc_names:
                return doc.group("number"), self.resolver.doc_names[name] + "/"
        return key, None

    def _starting(self, key: str, only: str | None, number_first: bool) -> tuple[list[tuple], list[tuple]]:
        """The labels starting with ``key`` (or "the " + key), and those with a word starting with it."""
        starts: list[tuple] = []
        words: list[tuple] = []
        for folded, label, rid, priority in self.labels:
            if only and not rid.startswith(only):
                continue
            if folded.startswith(key) or folded.startswith("the " + key):
                if number_first:  # in the documents' order: 702.1, 702.1a ... 702.10 Haste, 702.10a, not 702.10a first
                    starts.append((number_order(folded.split(" ", 1)[0]), len(label), label, rid))
                else:
                    starts.append((priority, len(label), label, rid))
            elif f" {key}" in f" {folded}":
                words.append((priority, len(label), label, rid))
        return starts, words

    def _mistyped_complete(self, key: str, limit: int) -> list[tuple]:
        """Nothing starts with what was typed: what the search box reads it as, a card name up to two typos
        off ("metamorf": The Metamorph) or its words corrected ("comander": Commander), completed. A judge: the
        box offered nothing for either while search answered both."""
        card, _ = self.resolver.card(key)
        if card is None and not key.startswith("the "):  # "metamorf": The Metamorph
            card, _ = self.resolver.card("the " + key)
        if card is not None and card.title:
            return [(0, len(card.title), card.title, card.id)]
        fixed = self.typos.fix_typos(key)
        return self._complete_exactly(fixed, limit) if fixed and fixed != key else []

    def _complete_exactly(self, key: str, limit: int) -> list[tuple]:
        """Labels starting with ``key`` (or "the " + key), by kind and length."""
        return sorted((priority, len(label), label, rid) for folded, label, rid, priority in self.labels
                      if folded.startswith(key) or folded.startswith("the " + key))[:limit]

    def _excerpt(self, rid: str) -> str | None:
        """A few words of a numbered record, for a completion: "704.5j" alone told nothing of the legend rule."""
        record = self.store.records.get(rid)
        if record is None or not record.number:
            return None
        text = self.shown(record)
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
