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
from urllib.parse import quote, urlencode
from collections.abc import Mapping
from operator import attrgetter

import markdown
from markdown.inlinepatterns import SimpleTagInlineProcessor
from markupsafe import Markup

from kb.ids import dated_url, record_url
from kb.model import Record, Ref
from kb.snippet import leading, translation  # search's snippets read them too

__all__ = ["render_text", "render_inline", "mana", "preview", "summary", "body_text", "own_text", "translation"]

_EM = r"(?<![\w])(_)(?=[^\s_])(.+?)(?<=[^\s_])_(?![\w])"  # never a blank to fill in ("Wolf in ________ Clothing")
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


def own_text(record: Record) -> str:
    """A record's text, or nothing when it only repeats its title: the FAQ quotes a heading as "502.68. Lifelink",
    and its page and its parent's list read "502.68 Lifelink" then "Lifelink" again."""
    text = record.text or ""
    return "" if record.title and text.strip() == record.title.strip() else text


def body_text(record: Record, records: Mapping[str, Record] | None = None) -> str:
    """The text a page shows as the record's body.

    Not a translation line (shown as a note), and not a card's text when it is
    only its rulings joined (Treachery identity cards): the rulings follow.
    """
    text = own_text(record)
    if translation(text):
        return ""
    if record.kind == "card" and record.children and records is not None:
        joined = "\n".join(records[c].text for c in record.children if c in records)
        if text == joined:
            return ""
    return text


def _clip(text: str, n: int) -> str:
    # Markup's emphasis marks go (the FAQ's *be*, _italics_); a blank to fill in ("See ___") stays.
    text = _LONE_MARK.sub("", _EMPHASIS.sub(r"\1", " ".join(text.split())))
    return text if len(text) <= n else text[: n - 1].rsplit(" ", 1)[0] + "…"


_LONE_MARK = re.compile(r"(?<![_\w])_(?=[^\W_])|(?<=[^\W_])_(?![_\w])")  # "_Combine and ...": a mark left unclosed
_EMPHASIS = re.compile(r"(?<![\w*_])[*_](?=[^\s*_])([^*_\n]*?[^\s*_])[*_](?![\w*_])")


def _summary(record: Record, records: Mapping[str, Record] | None) -> str:
    """What a preview says: the body, else the first ruling with a count, else the first sub-rule (and the next
    when the first only says what kind of ability it is: kb.snippet.leading)."""
    body = body_text(record, records) or (record.rules_text or "" if record.kind == "card" else "")
    if body.rstrip().endswith(":") and record.children and records is not None and record.kind != "card":
        # a lead-in reads on into what it leads to ("The state-based actions are as follows:" was all 704.5's
        # unfurl said, and Treachery's 116 "There's an extra special action:" left out 116.2tr; a bot developer):
        # its sub-rules in order, each with its number, as far as the preview's length reaches
        below = [r for r in map(records.get, record.children[:12]) if r is not None]
        return " ".join([body, *(part for r in below for part in (_numbered(r.number), r.title, _summary(r, records))
                                 if part)])
    if body or not record.children or records is None:
        return body or ("" if translation(record.text) else record.text or "")
    below = [r for r in map(records.get, record.children[:2]) if r is not None]
    if not below:
        return ""
    if record.kind == "card":
        n = len(record.children)
        return f"{n} ruling{'s' if n != 1 else ''}. {below[0].text}"
    return " ".join(filter(None, (part for r in leading(below, attrgetter("text"))  # a lead-in read on (116 -> 116.2)
                                  for part in (_numbered(r.number), r.title,
                                               _summary(r, records) if (r.text or "").endswith(":") else r.text))))


def _numbered(number: str | None) -> str | None:
    """A sub-rule's number as its document prints it: "702.19a", or a lettered item's "a)" (UnCommander's Token Cards
    previewed as "a Some effects put token cards ...")."""
    return f"{number})" if number and not any(c.isdigit() for c in number) else number


def summary(record: Record, records: Mapping[str, Record] | None = None, n: int = 600) -> str:
    """A preview without its label: the text a hover card or an unfurl shows under the title."""
    return _clip(_summary(record, records), n)


def preview(record: Record | None, n: int = 200, records: Mapping[str, Record] | None = None) -> str:
    """A one-line summary for hover titles, og:description and chat: "label: text…".

    With ``records`` (id -> record), a card whose text is its rulings previews
    as its first ruling and a count, and a headed rule with no text of its own
    (or only a translation line) as its first sub-rule.
    """
    if record is None:
        return ""
    label = " ".join(filter(None, [record.number, record.title]))
    body = _clip(_summary(record, records), n)
    return f"{label}: {body}" if label and body else (label or body)


def mana(text: str) -> str:
    """Turn runs of ``{2}{R}`` in already-escaped HTML into mana symbols.

    Each symbol keeps its braces as visually hidden text: a ruling copied from the page (or read aloud) says
    "{1}{W}", not "1W"."""
    def symbols(m: re.Match) -> str:
        return "".join(
            f'<abbr class="ms ms-{html.escape(s.lower().replace("/", "").replace("(", "").replace(")", ""))}" '
            f'title="{{{html.escape(s)}}}"><span class="brace">{{</span>{html.escape(s)}'
            f'<span class="brace">}}</span></abbr>'
            for s in _SYMBOL.findall(m.group(1))
        )
    return _MANA.sub(lambda m: f'<span class="mana">{symbols(m)}</span>', text)


def _then(ref: Ref) -> tuple[str, str, str]:
    """(number, date, URL) of an official rule as it stood when it was cited (``Ref.dated``, "716.2@2016-07-22")."""
    number, _, day = (ref.dated or "").partition("@")
    return number, day, dated_url(day, number)


def _link(ref: Ref, label: str, records: dict[str, Record]) -> str:
    text = html.escape(label)
    if ref.dated:  # written against an older release, when the number meant another rule (ingest.dating)
        note = html.escape(ref.note or "")
        number, day, url = _then(ref)
        if ref.target is None:  # deleted since: the rule as it stood is the link
            return f'<a class="ref dated" href="{html.escape(url)}" title="{note}">{text}</a>'
        title = html.escape(preview(records.get(ref.target), records=records))
        now = html.escape(ref.target.split("/", 1)[1])
        return (f'<a class="ref" href="{html.escape(record_url(ref.target))}" title="{title}" '
                f'data-id="{html.escape(ref.target)}">{text}</a> <span class="drift" title="{note}">('
                f'<a class="ref dated" href="{html.escape(url)}">{html.escape(number)} as of {html.escape(day)}</a>, '
                f'{now} now)</span>')
    if ref.target:
        title = html.escape(preview(records.get(ref.target), records=records))
        target = html.escape(ref.target)
        href = html.escape(record_url(ref.target))
        link = f'<a class="ref" href="{href}" title="{title}" data-id="{target}">{text}</a>'
        if ref.suggested:  # written against an older version of the official rules
            now = html.escape(ref.suggested.split("/", 1)[1])
            suggested, suggested_href = html.escape(ref.suggested), html.escape(record_url(ref.suggested))
            # The rules history says it exactly ("written against ..."); the title heuristic says "probably".
            word = "" if (ref.note or "").startswith("written against") else "probably "
            link += (
                f' <span class="drift" title="{html.escape(ref.note or "")}">({word}'
                f'<a class="ref" href="{suggested_href}" data-id="{suggested}">{now}</a> now)</span>'
            )
        return link
    if ref.url:
        return (
            f'<a class="ref external" href="{html.escape(ref.url)}" rel="noopener" '
            f'title="Official Comprehensive Rules {html.escape(ref.text)}">{text}</a>'
        )
    title = html.escape(ref.note or "this reference points at nothing")
    return f'<span class="ref unresolved" title="{title}">{text}</span>'


_PREFIX = re.compile(r"^(?:comprehensive\s+rules?|rules?|CR)\s*", re.IGNORECASE)


def _range_link(members: list[Ref], label: str, records: Mapping[str, Record]) -> str:
    """A range's span links to the page listing its rules, in the document its first member is in."""
    first = members[0].target or ""
    doc = first.split("/", 1)[0]
    written = _PREFIX.sub("", " ".join(label.split()))
    href = f"/r/{quote(written, safe='')}?{urlencode({'doc': doc})}"
    title = " · ".join(preview(records.get(m.target or ""), 80, records) for m in members)
    return (f'<a class="ref range" href="{html.escape(href)}" title="{html.escape(title)}" '
            f'data-ids="{html.escape(" ".join(m.target or "" for m in members))}">{html.escape(label)}</a>')


def render_text(text: str, refs: list[Ref], records: dict[str, Record], block: bool = True) -> Markup:
    """HTML for one field of a record, with its references linked."""
    spans = sorted(((r.start, r.end, r) for r in refs if r.start is not None and r.end is not None),
                   key=lambda span: span[0])
    pieces: list[str] = []
    held: list[str] = []
    pos = 0
    for i, (start, end, ref) in enumerate(spans):
        if start < pos or end > len(text):
            continue
        # The members of a range or list share one written span ("rules 603.7d–f"): one link to them all.
        members = [r for s, e, r in spans[i:] if (s, e) == (start, end) and r.target]
        pieces.append(text[pos:start])
        pieces.append(f"\ue000{len(held)}\ue001")
        held.append(_range_link(members, text[start:end], records) if len(members) > 1
                    else _link(ref, text[start:end], records))
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
