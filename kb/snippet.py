"""Search-result snippets: escaped text around the matched words, matches in <mark>.

Cheaper than Whoosh's highlighter, which re-analyses each hit's whole text:
tokens are matched against the query's stems through a cached stemmer.
"""
from __future__ import annotations

import html

from kb.words import TOKEN_RE, fold, stem

# stem and TOKEN_RE are kb.words', named here too for the modules that import them from snippets.
__all__ = ["snippet", "clip", "stem", "TOKEN_RE"]


def snippet(body: str, terms: set[str], width: int = 220) -> str:
    """Escaped text around the first matched words, matches wrapped in <mark>.

    A word matches when its stem is a query stem or, for phrase words
    (``=word``), when it is that word. Cheaper than re-analysing the whole
    text through Whoosh's highlighter for every hit.
    """
    spans = []
    for m in TOKEN_RE.finditer(body):
        low = m.group(0).lower()
        if not low.isascii():
            low = fold(low)
        if stem(low) in terms or "=" + low in terms:
            spans.append((m.start(), m.end()))
    if not spans:
        return html.escape(clip(body, width))
    # Start where the most matches fall within one snippet's width.
    first = max(range(len(spans)), key=lambda i: (sum(1 for a, _ in spans[i:] if a < spans[i][0] + width - 60), -i))
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
