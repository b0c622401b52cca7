"""Turn a chat message's rule references and ``[[Card Names]]`` into links.

Rule references are found by the reference grammar (kb.refs), so plain
numbers, prices and times are left alone; ``[[Card Name]]`` is Scryfall's
chat convention, read as Scryfall's bots read it (kb.cardnames): a part of a
name or a typo finds the card when only one fits, ``[[Name|FUT]]`` names the
set, several fits are listed under ``ambiguous`` instead of linked, and a name
nothing fits is listed under ``not_found`` (a bot can say "card not found"). A
reference found in several documents links to the short link's
disambiguation page.
"""
from __future__ import annotations

import html
import re
from collections.abc import Iterable
from bisect import bisect_left, insort
from urllib.parse import quote

from kb.cardnames import find_card, split_set_code
from kb.history import dated_matches
from kb.ids import record_url
from kb.refs import find_refs, undated

__all__ = ["linkify", "MAX_TEXT"]

MAX_TEXT = 20_000
MAX_LOOKUPS = 200  # distinct references and cards looked up in one text (a chat message holds a few)
_CARD = re.compile(r"\[\[([^\[\]\n]{1,80})\]\]")
_MD_SPECIAL = re.compile(r"([\\\[\]()])")
# What a message already holds that a link must not go into: code (fenced, or inline in backticks), Markdown
# links and images (linkify's own output among them: a second pass changes nothing), <autolinks> and bare URLs.
# Each alternative stops at the first character that cannot continue it, so hostile text ("[[[[...", "a.a.a...")
# costs one pass, not one pass per position.
# (a link's target may hold one level of brackets, as Markdown allows: "[716.2](javascript:alert(1))" was linked
# inside its own link)
# (an indented code block too, as Reddit renders one: four spaces or a tab at the start of the text or after a blank
# line, and the indented lines after it)
_UNTOUCHED = re.compile(r"(?:\A|\n[ \t]*\n)(?: {4}|\t)[^\n]*(?:\n(?: {4}|\t)[^\n]*)*"
                        r"|```.*?(?:```|\Z)|``[^`]+``|`[^`\n]+`|!?\[[^\[\]\n]*\]\((?:[^()\s]|\([^()\s]*\))*\)"
                        r"|<[a-z][a-z0-9+.-]{0,31}:[^<>\s]*>"
                        r"|(?<![a-z0-9+.-])(?:[a-z][a-z0-9+.-]{0,31}://|www\.)[^\s<>\"]+",
                        re.IGNORECASE | re.DOTALL)


_FULL_WIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)}
# C0 and C1 control characters but tab and line breaks: an HTML answer holds none of them (a NUL or an ESC passed
# through; a page shows them as boxes, a terminal obeys them)
_CONTROL = dict.fromkeys([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F, *range(0x80, 0xA0)])


def _official_url(kb, number: str) -> str | None:
    """A public hyperlinked copy of the official rules, while they are not loaded (as record pages do)."""
    template = next((d.get("official_rules_url") for d in kb.store.documents if d.get("official_rules_url")), None)
    return template.format(anchor=number.replace(".", "")) if template else None


def _ref_link(kb, written: str, label: str) -> dict | None:
    res = kb.resolver.resolve(written, prefer_only=True)  # "CR 116" is the official rule, as its short link reads it
    if res.query is not None and res.query.date:  # "716.2@2016-07-22": the rule as it stood that day
        dated, _ = dated_matches(kb.history, res.query)
        if len(dated) == 1:
            return {"label": label, "id": None, "path": dated[0]["url"]}
        # a dated range or list, a number printed twice that day (702.175@2024-09-20): the short link's choice page
        if dated:
            return {"label": label, "id": None, "path": "/r/" + quote(written.strip(), safe="")}
        # a number no release of that day has is read undated: a list's day is each member's, and "see 702.187c and
        # 716.2 (2016)" left Treachery's 702.187c unlinked, "unresolved" (a judge: a bot says "no such rule")
        written = undated(written)
        res = kb.resolver.resolve(written, prefer_only=True)
    if res.matches:
        one = len(res.matches) == 1
        # what the resolution says of it ("CR 907.4b": no official 907.4b, Treachery's shown), as /api/resolve does:
        # a bot quoting "CR 907.4b: <summary>" gave a fan variant's rule as official (a bot developer)
        return {"label": label, "id": res.matches[0].id if one else None, "note": res.note,
                "path": record_url(res.matches[0].id) if one else "/r/" + quote(written.strip(), safe="")}
    query = res.query
    if (
        query is not None
        and query.numbers
        and not query.invalid_letter
        and not query.doc
        and "cr" not in kb.resolver.doc_order
    ):
        url = _official_url(kb, query.numbers[0])
        if url:  # "702.139 in the official Comprehensive Rules": the official copy, as on record pages
            return {"label": label, "id": None, "url": url}
    return None


class _Spans:
    """Disjoint spans of a text, added in any order: does a span overlap one of them? (bisect: each question
    costs a logarithm, not a pass over every span; "`a`[[x]]" * 2500 asked 2,500 x 2,500)."""

    def __init__(self, spans: list[tuple[int, int]]):
        self.spans = sorted(spans)

    def add(self, start: int, end: int) -> None:
        insort(self.spans, (start, end))

    def overlaps(self, start: int, end: int) -> bool:
        i = bisect_left(self.spans, (end, -1))  # the spans starting before ``end``; the last of them is the candidate
        return i > 0 and self.spans[i - 1][1] > start


class _Lookups:
    """Each distinct reference or card of a text looked up once, and at most ``MAX_LOOKUPS`` of them: past that
    the rest stay as written (``skipped``), so 20,000 characters of distinct dated references cost ~0.1 s of CPU,
    not 1.2 s."""

    def __init__(self) -> None:
        self.found: dict[tuple[str, str], object] = {}
        self.texts: set[str] = set()  # the distinct texts looked up ([[x]] may be read as a card, then a rule)
        self.skipped: list[str] = []

    def get(self, kind: str, written: str, look, *args):
        key = (kind, written)
        if key not in self.found:
            if written not in self.texts and len(self.texts) >= MAX_LOOKUPS:
                self.skipped.append(written)
                return None
            self.texts.add(written)
            self.found[key] = look(*args)
        return self.found[key]


def _links(kb, text: str, ambiguous: list[dict] | None = None, lookups: _Lookups | None = None,
           not_found: list[str] | None = None, unresolved: list[str] | None = None) -> list[dict]:
    """The links of a text; ``ambiguous`` gathers the cards several names fit, ``not_found`` the [[names]] nothing
    fits, ``unresolved`` the rule references no loaded document has ("rule 999.9")."""
    lookups = lookups or _Lookups()
    # full-width digits, letters and signs read as typed on a Japanese or Chinese keyboard ("７０２.１９ｂ"), one
    # character for one, so every offset stays the text's
    original = text
    if any("\uff01" <= c <= "\uff5e" for c in text):
        text = text.translate(_FULL_WIDTH)
    quiet = _Spans([(m.start(), m.end()) for m in _UNTOUCHED.finditer(text)])
    found = _card_links(kb, text, quiet, ambiguous, lookups, not_found)
    taken = quiet
    for f in found + (ambiguous or []):
        taken.add(f["start"], f["end"])
    found_refs = find_refs(text, sections=kb.resolver.section_titles, doc_names=kb.resolver.doc_names,
                           loose_sections=True)
    for ref in found_refs:
        if taken.overlaps(ref.start, ref.end):
            continue
        # "704.5a, 704.5b@2016-07-22": the list's day is each member's ("704.5a" alone linked today's rule);
        # "903.9 as of 2019" and "903.9 (Jan 2019)" are read on the day they name (they linked today's 903.9)
        day = ref.query.date
        asked = ref.text if not day or day in ref.text else f"{undated(ref.text)}@{day}"
        link = _placed(lookups.get("ref", asked, _ref_link, kb, asked, ref.text), ref.start, ref.end, ref.text)
        if link is not None:
            link["label"] = ref.text  # as written here ("903.9 (2019)" and "903.9@2019" look the same day up)
        if link is None and ref.bare:  # "702.19b treachery": Treachery has no 702.19b, the number alone is linked
            bare = ref.bare
            link = _placed(lookups.get("ref", bare.text, _ref_link, kb, bare.text, bare.text), bare.start, bare.end,
                           bare.text)
        if link:
            if original is not text:  # what was written there, full width or not
                link["match"] = link["label"] = original[link["start"]:link["end"]]
            found.append(link)
        elif unresolved is not None and asked not in lookups.skipped:  # left for the cap is not "no such rule"
            unresolved.append(" ".join(original[ref.start:ref.end].split()))
    return sorted(found, key=lambda f: f["start"])


def _card_links(kb, text: str, quiet: _Spans, ambiguous: list[dict] | None, lookups: _Lookups,
                not_found: list[str] | None = None) -> list[dict]:
    """The ``[[Card Name]]`` links of a text outside what it leaves alone (``quiet``); the names that are neither a
    card, several cards nor a rule go to ``not_found`` as written between the brackets."""
    found: list[dict] = []
    for m in _CARD.finditer(text):
        if quiet.overlaps(m.start(), m.end()):
            continue
        name, code = split_set_code(m.group(1))
        lookup = lookups.get("card", m.group(1), find_card, kb.store, kb.resolver, name, code)
        if lookup is None:
            continue
        if lookup.card is not None:  # labelled with the card's name, as Scryfall's bots do: [[tarmogyof]] -> Tarmogoyf
            found.append({"match": m.group(0), "label": lookup.card.title or name, "id": lookup.card.id,
                          "path": record_url(lookup.card.id), "start": m.start(), "end": m.end()})
        elif lookup.candidates and ambiguous is not None:  # [[Magus of the]]: say which, never guess
            ambiguous.append({"match": m.group(0), "start": m.start(), "end": m.end(), "note": lookup.note,
                              "candidates": [{"id": c.id, "title": c.title, "path": record_url(c.id)}
                                             for c in lookup.candidates]})
        elif not lookup.candidates:  # [[Token Cards g)]]: a rule in brackets loses its brackets like a card does
            link = _placed(lookups.get("ref", m.group(1), _ref_link, kb, m.group(1), m.group(1)),
                           m.start(), m.end(), m.group(0))
            if link:
                found.append(link)
            elif not_found is not None and m.group(1).strip():  # [[The Abyss]]: no document holds it
                not_found.append(" ".join(m.group(1).split()))
    return found


def _first_of_each(names: list[str]) -> Iterable[str]:
    """Each name once, as first written, in the order written (case aside: [[the abyss]] is [[The Abyss]])."""
    seen: dict[str, str] = {}
    for name in names:
        seen.setdefault(name.casefold(), name)
    return seen.values()


def _placed(link: dict | None, start: int, end: int, match: str) -> dict | None:
    """A looked-up link (shared by every place the same text is written) at one place of the text."""
    return None if link is None else {**link, "match": match, "start": start, "end": end}


def linkify(kb, text: str, fmt: str = "markdown", base_url: str = "") -> dict:
    ambiguous: list[dict] = []
    not_found: list[str] = []
    unresolved: list[str] = []
    lookups = _Lookups()
    links = _links(kb, text, ambiguous, lookups, not_found, unresolved)
    out, pos = [], 0
    for link in links:
        plain = text[pos:link["start"]]
        url = link.get("url") or base_url + link["path"]
        if fmt == "html":
            out.append(html.escape(plain.translate(_CONTROL)))
            out.append(f'<a href="{html.escape(url)}">{html.escape(link["label"])}</a>')
        else:
            out.append(plain)
            label = _MD_SPECIAL.sub(r"\\\1", link["label"])
            out.append(f"[{label}]({url})")
        pos = link["end"]
    rest = text[pos:]
    out.append(html.escape(rest.translate(_CONTROL)) if fmt == "html" else rest)
    left = len(dict.fromkeys(lookups.skipped))
    return {
        "text": "".join(out),
        "links": [{"match": link["match"], "id": link["id"], "url": link.get("url") or base_url + link["path"],
                   "start": link["start"], "end": link["end"], "note": link.get("note")} for link in links],
        "ambiguous": [{"match": a["match"], "start": a["start"], "end": a["end"], "note": a["note"],
                       "candidates": [{"id": c["id"], "title": c["title"], "url": base_url + c["path"]}
                                      for c in a["candidates"]]} for a in ambiguous],
        # each name once (as first written: "[[the abyss]]" after "[[The Abyss]]" is the same card), in order
        "not_found": list(_first_of_each(not_found)),
        # each rule reference no loaded document has ("rule 999.9" was neither linked nor said), once, as written
        "unresolved": list(_first_of_each(unresolved)),
        "note": f"{left} more distinct references or cards left as written: at most {MAX_LOOKUPS} are looked up "
                "in one text" if left else None,
    }
