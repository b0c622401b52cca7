"""Record text to safe HTML: escaped, light markup rendered, references linked.

Everything from the corpus is escaped first. The documents' light markup
(``_Future Sight_`` italics) goes through a Markdown instance reduced to
paragraphs and underscore emphasis, so rule text such as ``*/1+*`` or
``1. Game Concepts`` is never taken for Markdown lists or emphasis. Each
resolved reference becomes a link whose ``title`` previews the target's text;
mana symbols (``{2}{R}``) become styled symbols.
"""
from __future__ import annotations

import html
import re
import threading

import markdown
from markdown.inlinepatterns import SimpleTagInlineProcessor
from markupsafe import Markup

from kb.model import Record, Ref

__all__ = ["render_text", "render_inline", "mana", "preview"]

_EM = r"(?<![\w])(_)(?=\S)(.+?)(?<=\S)_(?![\w])"
_HOLD = re.compile("\ue000(\\d+)\ue001")
_MANA = re.compile(r"((?:\{[0-9A-Za-z/½∞()]{1,6}\})+)")
_SYMBOL = re.compile(r"\{([^}]*)\}")


def _markdown() -> markdown.Markdown:
    md = markdown.Markdown()
    for name in ("indent", "code", "hashheader", "setextheader", "hr", "olist", "ulist", "quote", "reference"):
        md.parser.blockprocessors.deregister(name)
    for item in list(md.inlinePatterns._priority):
        md.inlinePatterns.deregister(item.name)
    md.inlinePatterns.register(SimpleTagInlineProcessor(_EM, "em"), "em", 50)
    return md


# A Markdown instance keeps per-conversion state (its tree, its stash of raw HTML, its reset
# hooks), so one instance shared by gunicorn's threads mixed records: a page showed another
# record's text. Each thread converts with its own instance, made once.
_LOCAL = threading.local()


def _md() -> markdown.Markdown:
    md = getattr(_LOCAL, "md", None)
    if md is None:
        md = _LOCAL.md = _markdown()
    return md


def preview(record: Record | None, n: int = 200) -> str:
    if record is None:
        return ""
    text = " ".join((record.text or record.rules_text or "").split()).replace("_", "")
    label = " ".join(filter(None, [record.number, record.title]))
    body = text if len(text) <= n else text[: n - 1].rsplit(" ", 1)[0] + "…"
    return f"{label}: {body}" if label and body else (label or body)


def mana(text: str) -> str:
    """Turn runs of ``{2}{R}`` in already-escaped HTML into mana symbols."""
    def symbols(m: re.Match) -> str:
        return "".join(
            f'<abbr class="ms ms-{html.escape(s.lower().replace("/", "").replace("(", "").replace(")", ""))}" '
            f'title="{{{html.escape(s)}}}">{html.escape(s)}</abbr>'
            for s in _SYMBOL.findall(m.group(1))
        )
    return _MANA.sub(lambda m: f'<span class="mana">{symbols(m)}</span>', text)


def _link(ref: Ref, label: str, records: dict[str, Record]) -> str:
    text = html.escape(label)
    if ref.target:
        title = html.escape(preview(records.get(ref.target)))
        target = html.escape(ref.target)
        link = f'<a class="ref" href="/{target}" title="{title}" data-id="{target}">{text}</a>'
        if ref.suggested:  # written against an older version of the official rules
            now = html.escape(ref.suggested.split("/", 1)[1])
            suggested = html.escape(ref.suggested)
            link += (
                f' <span class="drift" title="{html.escape(ref.note or "")}">(probably '
                f'<a class="ref" href="/{suggested}" data-id="{suggested}">{now}</a> now)</span>'
            )
        return link
    if ref.url:
        return (
            f'<a class="ref external" href="{html.escape(ref.url)}" rel="noopener" '
            f'title="Official Comprehensive Rules {html.escape(ref.text)}">{text}</a>'
        )
    title = html.escape(ref.note or "this reference points at nothing")
    return f'<span class="ref unresolved" title="{title}">{text}</span>'


def render_text(text: str, refs: list[Ref], records: dict[str, Record], block: bool = True) -> Markup:
    """HTML for one field of a record, with its references linked."""
    spans = sorted(((r.start, r.end, r) for r in refs if r.start is not None and r.end is not None),
                   key=lambda span: span[0])
    pieces: list[str] = []
    held: list[str] = []
    pos = 0
    for start, end, ref in spans:
        if start < pos or end > len(text):
            continue
        pieces.append(text[pos:start])
        pieces.append(f"\ue000{len(held)}\ue001")
        held.append(_link(ref, text[start:end], records))
        pos = end
    pieces.append(text[pos:])
    escaped = html.escape("".join(pieces), quote=False)
    # Single newlines are kept line breaks (lists in the rules); blank lines are paragraphs.
    escaped = escaped.replace("\n\n", "\ue002").replace("\n", "\ue003").replace("\ue002", "\n\n")
    out = _md().reset().convert(escaped).replace("\ue003", "<br>\n")
    out = mana(out)
    out = _HOLD.sub(lambda m: held[int(m.group(1))], out)
    if not block:
        out = re.sub(r"^<p>|</p>$", "", out)
    return Markup(out)


def render_inline(text: str) -> Markup:
    return render_text(text or "", [], {}, block=False)
