"""Search-result snippets: escaped text around the matched words, matches in <mark>.

Cheaper than Whoosh's highlighter, which re-analyses each hit's whole text:
a record's tokens are stemmed once (``Positions``: each stem's and word's
spans), and a snippet for any query looks its stems up.
"""
from __future__ import annotations

import html
import re
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from itertools import chain
from operator import attrgetter
from typing import TypeVar

from kb.model import Record
from kb.words import TOKEN_RE, fold, stem

T = TypeVar("T")

# stem and TOKEN_RE are kb.words', named here too for the modules that import them from snippets.
__all__ = ["snippet", "marking", "Marks", "clip", "stem", "Positions", "TOKEN_RE", "translation", "shown", "only_kind",
           "leading", "keyword_text_from", "matched"]

# A rule whose only line is its name in another language (Treachery 702.187: French: "Dévoilement.").
_TRANSLATION = re.compile(r'^(?P<language>[A-Z][a-z]+): [“"](?P<words>[^"”\n]+?)\.?[”"]$')


def translation(text: str | None) -> tuple[str, str] | None:
    """("French", "Dévoilement") when a record's text is only a translation line, else None."""
    m = _TRANSLATION.match((text or "").strip())
    return (m.group("language"), m.group("words")) if m else None


# A sub-rule that says only what kind of ability or action its keyword is ("Menace is an evasion ability.",
# "Hexproof is a static ability.": fifteen of the official keywords open so): alone, a preview of the keyword
# would say nothing of what it does.
_ONLY_KIND = re.compile(r"[^.]{1,60}\bis an? [\w -]{0,40}\b(?:ability|action)\.")


def only_kind(text: str | None) -> bool:
    return bool(_ONLY_KIND.fullmatch(" ".join((text or "").split())))


def leading(items: Sequence[T], text: Callable[[T], str | None]) -> list[T]:
    """The sub-rules a heading without words of its own previews (of ``items``, its sub-rules in order): the first,
    and the next too when the first says only what kind of ability it is ("702.111a Menace is an evasion
    ability. 702.111b A creature with menace can't be blocked except by two or more creatures.")."""
    return list(items[:2]) if len(items) > 1 and only_kind(text(items[0])) else list(items[:1])


def keyword_text_from(rule: Record, below: Sequence[Record]) -> list[Record]:
    """The records a keyword's text is read from (ingest.keywords; its page names them): its defining rule's first
    sub-rule, and the next when the first says only what kind of ability it is, or the rule itself without
    sub-rules. ``below``: the rule's sub-rules, in order."""
    return leading(below[:2], attrgetter("text")) or [rule]


def shown(record: Record, records: Mapping[str, Record]) -> str:
    """The words a search hit's snippet (or a chat choice) is cut from: the record's own, or for a heading
    without words of its own its first sub-rule's: no text (702.2 Deathtouch, 405 Stack), its title again
    (the 2007 FAQ's quoted headings, 502.68 "Lifelink"), or only a translation line (Treachery 702.187 Unveil,
    whose hit said only 'French: "Dévoilement."'), as web.render.preview reads them."""
    text = record.text or record.rules_text
    if (not text or text == record.title or translation(text)) and record.children:
        below = [r for r in map(records.get, record.children[:2]) if r is not None]
        text = " ".join(filter(None, (r.text for r in leading(below, attrgetter("text")))))
    return text or ""


class Positions:
    """Where each stem and each word sits in one record's text: a snippet for any query is then
    a few dict lookups instead of re-tokenising and stemming the whole text per hit.

    Built once per record and never changed (kb.search keeps one per record and build).
    """

    __slots__ = ("body", "flat", "spans", "escape")

    def __init__(self, body: str):
        self.body = body
        # html.escape, or nothing to do for a text without & < > " ' (four pieces per snippet).
        self.escape = html.escape if any(c in body for c in "&<>\"'") else str
        # Each distinct word once (lowered, folded, stemmed), then its spans under its stem and
        # itself, all in one flat array of spans, each one number (start << 32 | end), with a dict of
        # where each key's part is (offset << 32 | length): a record's table is two objects, and the
        # dict of ints is one the garbage collector never walks. A tuple per word and a list per stem
        # (~250,000 objects with the official rules) made warming every record (kb serve) mostly
        # collector time. A stem's spans are in no particular order: a snippet sorts them, as numbers
        # (a span's number orders as its (start, end) pair does), not as a tuple per span.
        where: dict[str, list[int]] = {}
        for m in TOKEN_RE.finditer(body):
            a, b = m.span()
            where.setdefault(m.group(0), []).append(a << 32 | b)
        spans: dict[str, list[int]] = {}
        for word, found in where.items():
            low = word.lower()
            if not low.isascii():
                low = fold(low)
            spans.setdefault(stem(low), []).extend(found)
            spans.setdefault("=" + low, []).extend(found)
        flat = array("Q")
        index: dict[str, int] = {}
        for key, found in spans.items():
            index[key] = len(flat) << 32 | len(found)
            flat.extend(found)
        self.flat, self.spans = flat, index

    def packed(self, terms: AbstractSet[str]) -> list[int]:
        """The spans of every word matching one of ``terms``, in text order, each as start << 32 | end."""
        table, flat = self.spans, self.flat
        parts = [flat[at >> 32:(at >> 32) + (at & _LOW)] for t in terms if (at := table.get(t)) is not None]
        if len(parts) == 1:  # one key's spans are distinct (a word adds its spans once to a key)
            return sorted(parts[0])
        if type(terms) is Marks:  # no span under two of its keys (``marking``): nothing to drop twice
            return sorted(chain.from_iterable(parts))
        return sorted(set(chain.from_iterable(parts)))  # a stem and a phrase word share spans

    def find(self, terms: AbstractSet[str]) -> list[tuple[int, int]]:
        """The (start, end) spans of every word matching one of ``terms``, in text order."""
        return [(s >> 32, s & _LOW) for s in self.packed(terms)]


_LOW = 0xFFFFFFFF  # a packed span's end (Positions): its number's low 32 bits


class Marks(frozenset):
    """A query's terms without the phrase words (``=word``) whose stem is among them, whatever it is made from (the
    filter is its constructor's): no record files a span under two of them (``Positions``), so a snippet's spans need
    no set to drop those found twice (``Positions.packed``)."""

    __slots__ = ()

    def __new__(cls, terms: Iterable[str] = ()):
        terms = terms if isinstance(terms, AbstractSet) else set(terms)
        return super().__new__(cls, (t for t in terms if t[:1] != "=" or stem(t[1:]) not in terms))


def marking(terms: set[str]) -> Marks:
    """``terms`` without the phrase words (``=word``) whose stem is among them: a record's spans of a word are
    among its spans of that word's stem (``Positions``), so ``find`` gives the same spans for either set, and a
    phrase query's snippets look up and merge half as many lists (once per query, not per hit). What is left
    shares no span in any record: a word's spans are filed under its stem and under ``=`` and the word itself,
    each word under one stem, and a phrase word stays only when its stem is not there (``Marks``)."""
    return Marks(terms)


def snippet(body: str | Positions, terms: AbstractSet[str], width: int = 220) -> str:
    """Escaped text around the first matched words, matches wrapped in <mark>.

    A word matches when its stem is a query stem or, for phrase words
    (``=word``), when it is that word. Cheaper than re-analysing the whole
    text through Whoosh's highlighter for every hit; cheaper still from a
    record's ``Positions``.
    """
    where = body if isinstance(body, Positions) else Positions(body)
    body, escape = where.body, where.escape
    spans = where.packed(terms)  # start << 32 | end, in text order
    if not spans:
        return escape(clip(body, width))
    if len(body) <= width:  # the whole text fits (most rules): every match marked, no window to choose
        return _marked(body, spans, 0, len(body), escape).strip()
    # Start where the most matches fall within one snippet's width (the first such place): the first span with
    # the most spans starting within the snippet's width after it, found among the packed spans themselves (one is
    # below ``(start + reach) << 32`` exactly when it starts before ``start + reach``), not a list of their starts
    if len(spans) > 1:
        reach = width - 60
        within = [bisect_left(spans, (s >> 32) + reach << 32, i) - i for i, s in enumerate(spans)]
        first = within.index(max(within))
        spans = spans[first:]
    first_start, first_end = spans[0] >> 32, spans[0] & _LOW
    start = max(0, first_start - 60)
    if start:
        space = body.find(" ", start)
        start = space + 1 if 0 <= space < first_start else start
    end = min(len(body), start + width)
    if end < len(body):
        space = body.rfind(" ", start, end)
        end = space if space > first_end else end
    marked = _marked(body, spans, start, end, escape).strip()
    return ("… " if start else "") + marked + (" …" if end < len(body) else "")


def _marked_piece_by_piece(body: str, spans: list[int], start: int, end: int, escape) -> str:
    """``_marked``'s answer with each piece between the marks escaped on its own: for a text that holds one of the
    two control characters ``_marked`` marks with."""
    out, pos = [], start
    for s in spans:
        a, b = s >> 32, s & _LOW
        if b > end:
            break
        out.append(escape(body[pos:a]) + "<mark>" + escape(body[a:b]) + "</mark>")
        pos = b
    out.append(escape(body[pos:end]))
    return "".join(out)


def _marked(body: str, spans: list[int], start: int, end: int, escape) -> str:
    """``body[start:end]`` escaped, with the spans (``Positions.packed``: in text order, none before ``start``) in
    <mark>.

    The marks go in as two control characters no record's text holds (checked: else each piece is escaped on its
    own), the window is escaped once, then they become the tags: the same string as escaping each piece between
    the marks (html.escape maps each character alone and leaves those two be), with one escape per snippet, not
    two per mark. A text with nothing to escape (most: ``Positions.escape`` is ``str``) takes the tags themselves,
    neither escaped nor replaced (0.87-0.90x the snippets' time over the bench's classes)."""
    plain = escape is str  # a text with nothing to escape (Positions.escape): the tags go in as they are
    if not plain and (_OPEN in body or _CLOSE in body):
        return _marked_piece_by_piece(body, spans, start, end, escape)
    opening, closing = ("<mark>", "</mark>") if plain else (_OPEN, _CLOSE)
    pieces: list[str] = []
    pos = start
    for s in spans:
        a, b = s >> 32, s & _LOW
        if b > end:
            break
        pieces += (body[pos:a], opening, body[a:b], closing)
        pos = b
    pieces.append(body[pos:end])
    if plain:
        return "".join(pieces)
    return escape("".join(pieces)).replace(_OPEN, "<mark>").replace(_CLOSE, "</mark>")


_OPEN, _CLOSE = "\x00", "\x01"  # where a mark opens and closes, while a snippet is escaped (_marked)


def matched(passages: Sequence[Positions], terms: set[str]) -> Positions:
    """Of a record's passages (its text first, then its examples and commentary), the one holding the most of the
    query's distinct words; the text on a tie. A hit matched by its example (111.11 for "tarmogoyf": the Disa the
    Restless example names it) showed the text above it, which never says the word, nothing marked."""
    def words(p: Positions) -> int:
        return len(p.spans.keys() & terms)  # the terms it holds, counted in C (each once: a set)

    best, most = passages[0], words(passages[0])
    for passage in passages[1:]:
        n = words(passage)
        if n > most:
            best, most = passage, n
    return best


def clip(text: str, n: int = 200) -> str:
    """``text`` with its whitespace runs as single spaces, cut before a word to ``n`` characters at most ("…" ending
    a cut). Most records' texts have nothing to collapse: a printable text holds no whitespace but the space
    (``str.isprintable`` is False for every other character ``str.split`` splits at), so one without two spaces
    together or at either end is its own ``" ".join(text.split())`` (a lead hit's preview 0.45x the time)."""
    if not (text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " "):
        text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1].rsplit(" ", 1)[0] + "…"
