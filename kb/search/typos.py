"""Typos and "did you mean": the index's own words within one edit of a word no record uses (two for the words of
keyword and rule titles), and a query's words nothing uses left out.

One ``Typos`` per build; what it works out for a query (its correction, its texts without unknown words and with
their typos fixed) is kept on the ``Query``, once per query: the lead and the full-text stage both ask.

Reads: the build's words and their document frequencies (``Tables.exact_df``), kb.spelling's one-edit index, the
vocabulary's table words, the common questions' stems, the words of titles (for two edits).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import partial

from kb import rank
from kb.ids import fold
from kb.model import Record
from kb.resolve import edit_distance
from kb.search.parse import MAX_TERMS, ONLY_ASKING, PUNCTUATION, WORD, Query
from kb.search.tables import Tables
from kb.snippet import stem

__all__ = ["Typos", "MAX_CORRECTIONS", "title_words"]

MAX_CORRECTIONS = 8  # unknown words looked up for "did you mean"
Spelt = dict[str, str | None]  # a query's words' fixes, worked out once (``Query.spelt``), by "<kind> <word>"


def _once(spelt: Spelt, key: str, work: Callable[[], str | None]) -> str | None:
    """``spelt[key]``, worked out by ``work`` the first time the query asks (``Query.spelt``)."""
    if key not in spelt:
        spelt[key] = work()
    return spelt[key]


def title_words(titles: Iterable[list[Record]]) -> dict[str, int]:
    """Words of keyword, rule and glossary titles (for two-edit typos), with how often they occur."""
    out: dict[str, int] = {}
    for records in titles:
        for r in records:
            for w in re.findall(r"[a-z]+", fold(r.title or "").lower()):
                if len(w) >= 5:
                    out[w] = out.get(w, 0) + 1
    return out


class Typos:
    """A query's spelling: its correction ("did you mean"), its misspelt words fixed, its unknown words."""

    def __init__(self, tables: Tables, title_words: dict[str, int]):
        self.tables = tables
        self.title_words = title_words
        # the same words by first letter and length, with how often they occur: two edits reach only a word of the
        # same first letter within two letters of the length (two_edits reads those lists, not all ~700 words)
        self._title_words_at: dict[tuple[str, int], list[tuple[int, str]]] = {}
        for w, n in title_words.items():
            self._title_words_at.setdefault((w[0], len(w)), []).append((n, w))
        self.exact_df, self.vocabulary, self.spelling = tables.exact_df, tables.vocabulary, tables.spelling
        # the words some record uses, lowercase ASCII without punctuation around them: a text all of whose words are
        # among them has no typo and no unknown word (``_all_used``), which most queries are
        self._used_words = frozenset(w for w, n in self.exact_df.items() if n and w.isascii() and w == w.lower()
                                     and w == w.strip(PUNCTUATION))
        self.card_names, self.resolver = tables.card_names, tables.resolver

    def correction(self, query: Query) -> str | None:
        """The query's "did you mean", worked out once: the card stage and the full-text stage both ask."""
        if query.correction is ...:
            query.correction = self.did_you_mean(query.text, query.spelt)
        return query.correction

    def did_you_mean(self, text: str, spelt: Spelt | None = None) -> str | None:
        """``text`` with each word of four letters or more that no record uses (up to ``MAX_CORRECTIONS``) replaced
        by the index's word one edit from it, or a title's word two edits from it; None when nothing changed.
        ``spelt``: a query's memo of its words' fixes (``Query.spelt``)."""
        spelt = {} if spelt is None else spelt
        words = WORD.findall(text)[:MAX_TERMS]
        changed = False
        out = []
        tries = MAX_CORRECTIONS
        for w in words:
            low = fold(w.lower())
            if len(low) < 4 or low.isdigit() or self.exact_df.get(low, 0) > 0 or low in ONLY_ASKING or not tries \
                    or (low,) in self.vocabulary.phrases:  # a table word is no typo ("pinger" is not "pingers")
                out.append(w)
                continue
            tries -= 1
            fix = self._one_edit(low, spelt) or self._two_edits(low, spelt)
            if fix and fix != low:
                out.append(fix)
                changed = True
            else:
                out.append(w)
        return " ".join(out) if changed else None

    def fix_typos(self, text: str, short: bool = False, spelt: Spelt | None = None) -> str | None:
        """``text`` with each word no document, title or common question uses, of six letters or more,
        replaced by the index's word it misspells (one edit; two for a keyword or title word from nine
        letters): "comander damage" -> commander damage, "summoning sicknes" -> summoning sickness. Such a
        word finds nothing as typed; without this, the rest of the question decided alone and "did you
        mean" came only with fewer than three hits. ``short``: the words of five letters instead, which only
        a title to land on makes worth correcting (kb.search.lead.Leader.titled_mistyped). None when nothing
        changed. ``spelt``: a query's memo of its words' fixes (``Query.spelt``)."""
        if self._all_used(text):
            return None
        spelt = {} if spelt is None else spelt
        kind = "short " if short else "fix "
        out, changed = [], False
        used = self._used_words
        for w in text.split():
            # the word without the punctuation around it ("mulligen?"), which the correction keeps
            core = w.strip(PUNCTUATION)
            low = fold(core.lower())
            if low in used:  # a word some record uses is no typo (as _typo_fix reads it first)
                out.append(w)
                continue
            fix = _once(spelt, kind + low, partial(self._typo_fix, low, short, spelt))
            out.append(w.replace(core, fix, 1) if fix and fix != low else w)
            changed = changed or out[-1] != w
        return " ".join(out) if changed else None

    def _typo_fix(self, low: str, short: bool, spelt: Spelt) -> str | None:
        """The index's word a folded word of a query misspells, as ``fix_typos`` reads it, or None."""
        if not ((len(low) == 5 if short else len(low) >= 6) and low.isalpha() and not self.exact_df.get(low)
                and low not in ONLY_ASKING and (low,) not in self.vocabulary.phrases):
            return None
        if self._used(stem(low), spelt):
            return None
        # "thinks" is no "things"; "swings" is table language ("attack"), not "wings"; "context" is a word
        # of the documents ("contexts"), not a typo
        # one edit from six letters, two from nine: a shorter word the documents never use is as likely a
        # name they do not hold ("lotus bloom" is no "blood", "street wraith" no "spree") as a typo
        return self._one_edit(low, spelt) or (self._two_edits(low, spelt) if len(low) >= 9 else None)

    def _used(self, s: str, spelt: Spelt | None) -> bool:
        """``Tables.used(s)``: some record or common question uses the stem; once per query and stem (a typo's stem,
        which no table keeps, is asked by the fixes and by ``unknown``)."""
        if spelt is None:
            return self.tables.used(s)
        return _once(spelt, "used " + s, lambda: "" if self.tables.used(s) else None) is not None

    def _one_edit(self, low: str, spelt: Spelt) -> str | None:
        """``Spelling.suggest(low)``, once per query and word (the correction and the typos fixed both ask)."""
        return _once(spelt, "one " + low, partial(self.spelling.suggest, low))

    def _two_edits(self, low: str, spelt: Spelt) -> str | None:
        """``two_edits(low)``, once per query and word."""
        return _once(spelt, "two " + low, partial(self.two_edits, low))

    def two_edits(self, word: str) -> str | None:
        """A keyword or title word two edits from ``word`` ("indestrutable" -> indestructible), the
        most common first; only for words of six letters or more, where two edits rarely reach
        another word."""
        if len(word) < 6 or "two edits" not in rank.SIGNALS:
            return None
        at = self._title_words_at
        close = [(n, w) for length in range(len(word) - 2, len(word) + 3) for n, w in at.get((word[0], length), ())
                 if edit_distance(word, w, 2) <= 2]
        if not close:
            return None
        return max(close)[1]

    def said_again(self, query: Query, text: str, fixed: str) -> str:
        """``fixed`` (``text`` with its typos corrected), read by the vocabulary again when a correction is one
        of its words: "wen does a spel fizzel" searches for what "fizzle" means, as typed right it would. The
        query's words become that reading (its note says so)."""
        if "vocabulary" not in rank.SIGNALS:
            return fixed
        table = {typed: right for typed, right in zip(text.split(), fixed.split(), strict=True)
                 if typed != right and (fold(right.strip(PUNCTUATION)).lower(),) in self.vocabulary.phrases}
        if not table:
            return fixed
        again = self.vocabulary.expand(" ".join(table.get(w, w) for w in query.text.split()), self.tables.knows)
        if not again.used:
            return fixed
        query.words = again
        return self.fix_typos(again.text, spelt=query.spelt) or again.text

    def said(self, text: str, spelt: Spelt | None = None) -> str:
        """``text`` without the words no record, title, common question or table word uses ("qwv what is a
        mulligan" is "what is a mulligan"): such a word cannot match, yet it kept a title from being one and a
        question from starting with its question word."""
        if self._all_used(text):
            return text
        spelt = {} if spelt is None else spelt
        used = self._used_words  # a word some record uses as typed is known (as unknown reads it first)
        kept = [w for w in text.split() if w.lower() in used or not self.unknown(w, spelt)]
        return " ".join(kept) if kept and len(kept) < len(text.split()) else text

    def _all_used(self, text: str) -> bool:
        """Every word of ``text`` (split at spaces), lowercased, is one some record uses: as typed, folded and without
        punctuation around it, so ``fix_typos`` changes none and ``unknown`` says none is (both read the index's
        count of the word first). A set's test in C, not a word at a time."""
        return self._used_words.issuperset(text.lower().split())

    def said_in(self, query: Query, text: str) -> str:
        """``said(text)`` for a text of ``query``, worked out once per query."""
        if text not in query.said:
            query.said[text] = self.said(text, query.spelt)
        return query.said[text]

    def fixed_in(self, query: Query, text: str, short: bool = False) -> str | None:
        """``fix_typos(text, short)`` for a text of ``query``, worked out once per query."""
        fixed = query.fixed_short if short else query.fixed
        if text not in fixed:
            fixed[text] = self.fix_typos(text, short, query.spelt)
        return fixed[text]

    def unknown(self, word: str, spelt: Spelt | None = None) -> bool:
        low = fold(word.lower()).strip(PUNCTUATION)
        if not low.isalpha() or low in ONLY_ASKING or self.exact_df.get(low) or (low,) in self.vocabulary.phrases:
            return False
        s = stem(low)
        if self._used(s, spelt) or s in self.card_names or low in self.resolver.doc_names:
            return False
        return self.fix_typos(low, spelt=spelt) is None  # a typo the full text corrects ("fizzeled") is no unknown word
