"""Search-result snippets: escaped text around the matched words, matches in <mark>.

Cheaper than Whoosh's highlighter, which re-analyses each hit's whole text:
a record's tokens are stemmed once (``Positions``: each stem's and word's
spans), and a snippet for any query looks its stems up.
"""
from __future__ import annotations

import html
from bisect import bisect_left

from kb.words import TOKEN_RE, fold, stem

# stem and TOKEN_RE are kb.words', named here too for the modules that import them from snippets.
__all__ = ["snippet", "clip", "stem", "Positions", "TOKEN_RE"]


class Positions:
    """Where each stem and each word sits in one record's text: a snippet for any query is then
    a few dict lookups instead of re-tokenising and stemming the whole text per hit.

    Built once per record and never changed (kb.search keeps one per record and build).
    """

    __slots__ = ("body", "spans")

    def __init__(self, body: str):
        self.body = body
        spans: dict[str, list[tuple[int, int]]] = {}
        for m in TOKEN_RE.finditer(body):
            low = m.group(0).lower()
            if not low.isascii():
                low = fold(low)
            span = (m.start(), m.end())
            spans.setdefault(stem(low), []).append(span)
            spans.setdefault("=" + low, []).append(span)
        self.spans = spans


def snippet(body: str | Positions, terms: set[str], width: int = 220) -> str:
    """Escaped text around the first matched words, matches wrapped in <mark>.

    A word matches when its stem is a query stem or, for phrase words
    (``=word``), when it is that word. Cheaper than re-analysing the whole
    text through Whoosh's highlighter for every hit; cheaper still from a
    record's ``Positions``.
    """
    where = body if isinstance(body, Positions) else Positions(body)
    body = where.body
    table = where.spans
    spans = sorted({span for t in terms if t in table for span in table[t]})
    if not spans:
        return html.escape(clip(body, width))
    # Start where the most matches fall within one snippet's width (the first such place).
    starts = [a for a, _ in spans]
    first = max(range(len(spans)), key=lambda i: (bisect_left(starts, starts[i] + width - 60, i) - i, -i))
    spans = spans[first:]
    start = max(0, spans[0][0] - 60)
    if start:
        space = body.find(" ", start)
        start = space + 1 if 0 <= space < spans[0][0] else start
    end = min(len(body), start + width)
    if end < len(body):
        space = body.rfind(" ", start, end)
        end = space if space > spans[0][1] else end
    out, pos = [], start
    for a, b in spans:
        if a < start or b > end:
            continue
        out.append(html.escape(body[pos:a]) + "<mark>" + html.escape(body[a:b]) + "</mark>")
        pos = b
    out.append(html.escape(body[pos:end]))
    return ("… " if start else "") + "".join(out).strip() + (" …" if end < len(body) else "")


def clip(text: str, n: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1].rsplit(" ", 1)[0] + "…"
