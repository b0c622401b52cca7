"""One data function per page; the HTML page and its JSON twin both render it.

Each page's function takes the opened knowledge base and plain arguments and
returns ``(data, extra)`` (datasette's shape): ``data`` is the public JSON, the
page's twin under /api, and carries everything the page shows; ``extra`` is
what only the template needs (the records themselves, to render their text as
HTML). ``NotFound``/``BadRequest`` carry the message the user sees.

One vocabulary: a link to a record is ``{id, label, url}`` everywhere (``link``),
with what a list adds (``doc``, ``document``, ``kind``, ``depth``, ``text``);
``url`` is a path from ``kb.ids.record_url``. See README, "One JSON vocabulary".
"""
from __future__ import annotations

import re
from dataclasses import asdict, replace
from datetime import date
from functools import lru_cache
from typing import Any
from urllib.parse import quote, quote_plus, urlencode

from werkzeug.datastructures import MultiDict
from werkzeug.exceptions import BadRequest, NotFound

from kb.cardnames import find_card
from kb.history import DateError, dated_matches, parse_date, release_gap
from kb.ids import dated_url, record_url, slugify
from kb.kbase import Opened
from kb.linkify import linkify
from kb.model import Record, Ref
from kb.phrases import Phrases
from kb.refs import iso_days, number_order, parse_ref, undated
from kb.resolve import Resolution
from kb.search import MAX_OFFSET, QueryError, Results
from kb.snippet import clip, keyword_text_from
from kb.words import typed
from web.render import body_text, preview, summary, translation

__all__ = [
    "link_facts",
    "record_data", "document_data", "documents_data", "search_data", "resolve_data", "keywords_data",
    "record_json", "link", "trail", "siblings", "reading", "whole_document", "short_link", "used_in",
    "doc_meta", "doc_title", "doc_short", "doc_version", "autocomplete_data", "resolution", "glossary_data",
    "glossary_link", "missing",
]


def record_json(record: Record) -> dict[str, Any]:
    data = record.to_json()
    data["url"] = record_url(record.id)
    data["refs"] = [_ref(ref) for ref in data["refs"]]
    return data


def _ref(ref: dict[str, Any]) -> dict[str, Any]:
    """A reference as JSON: where it is written (field, start, end), what it names, and its ``url``."""
    out = ref | {"url": record_url(ref["target"]) if ref["target"] else ref["url"]}
    if ref.get("dated"):  # "716.2@2016-07-22": the rule as it stood when it was cited
        number, _, day = ref["dated"].partition("@")
        out["then_url"] = dated_url(day, number)
    return out


def link(kb: Opened, record: Record, **more: Any) -> dict[str, Any]:
    """The one shape of a link to a record in every answer: ``{id, label, url}`` (and what a list adds)."""
    return {"id": record.id, "label": kb.store.label(record), "url": record_url(record.id), **more}


def link_facts(kb: Opened, record: Record | None) -> dict[str, Any]:
    """A record's name, document and first words, as /api/resolve's matches and /api/linkify's links say them; None
    each for a link to no one record (a dated citation, a range, a number two documents use: id None)."""
    if record is None:
        return {"title": None, "document": None, "summary": None}
    return {"title": kb.store.label(record), "document": doc_title(kb, record.doc),
            "summary": summary(record, kb.store.records, 200)}


def superseded_by(kb: Opened, record: Record) -> Record | None:
    """Today's official rule for a rule an older edition of the official rules was quoted with (the 2007 FAQ's
    502.68a Lifelink -> cr/702.15, 212.8 Tribals -> cr/308 through the glossary's "Tribal (Obsolete)"), when the
    official rules are loaded: the quoted rule's heading names it, as the search box's title lead reads the name
    (kb.search.Searcher.todays_rule). None for any other record, or when no rule of today's has that name."""
    if record.kind != "rule" or record.doc not in kb.searcher.ranker.older:
        return None
    head: Record | None = record
    while head is not None and not head.title:  # 502.68a -> 502.68, which is titled
        head = kb.store.get(head.parent) if head.parent else None
        head = head if head is not None and head.kind == "rule" else None
    if head is None or not head.title:
        return None
    return kb.searcher.todays_rule(head.title)


def obsolete(kb: Opened, record_id: str) -> dict[str, Any] | None:
    """A ruling's or note's ``obsolete`` (kb.obsolete), with ``written``, what the banner calls it: "2007 ruling"."""
    found = kb.obsolete.of(record_id)
    record = kb.store.get(record_id) if found else None
    if found is None or record is None:
        return None
    effective = str((kb.store.document(record.doc) or {}).get("effective") or "")
    return found | {"written": " ".join(filter(None, [effective[:4] if effective[:1].isdigit() else "", record.kind])),
                    "today_url": found["today"] and record_url(found["today"]),
                    "glossary_url": found["glossary"] and record_url(found["glossary"])}


def doc_title(kb: Opened, slug: str) -> str:
    meta = doc_meta(kb, slug)
    return meta["title"] if meta else slug


def doc_short(kb: Opened, slug: str, dated: bool = True) -> str:
    """A document named in one short line, with its date: "CR 2026-08-07", "Treachery 2024-10-01", "UnCommander" (a
    search hit's label on a phone read "Magic: The Gathering Comprehensive Rules (August 7, 2026, effective
    2026-08-07) · rule", three lines)."""
    meta = doc_meta(kb, slug) or {}
    name = "CR" if slug == "cr" else str(meta.get("short_title") or meta.get("title") or slug)
    effective = str(meta.get("effective") or "")
    return f"{name} {effective}" if dated and effective[:1].isdigit() else name


def doc_version(kb: Opened, slug: str) -> str:
    """"last modified March 25, 2007, effective 2007-05-04": an older document's text says its date."""
    meta = doc_meta(kb, slug) or {}
    return ", effective ".join(v for v in (str(meta.get("version") or ""), str(meta.get("effective") or ""))
                               if v and v != "undated")


def doc_meta(kb: Opened, slug: str) -> dict[str, Any] | None:
    """A document's title, version, effective date and counts, with its ``url`` (a document is read at /slug)."""
    if slug == "keywords":
        return {"slug": "keywords", "title": "Keywords", "version": "gathered from every document", "effective": None,
                "url": record_url("keywords")}
    meta = kb.store.document(slug)
    return None if meta is None else {**meta, "url": record_url(slug)}


def trail(kb: Opened, record: Record) -> list[Record]:
    """Breadcrumbs: the record's ancestors, outermost first."""
    chain = []
    parent = record.parent
    while parent:
        r = kb.store.get(parent)
        if r is None:
            break
        chain.append(r)
        parent = r.parent
    return chain[::-1]


def siblings(kb: Opened, record: Record) -> tuple[Record | None, Record | None]:
    """Previous and next record in reading order within the same document; a card's are the cards before and after
    it (its page shows its rulings already: "next" and j went to "Magus of the Vineyard, ruling 1")."""
    ids = kb.store.order.get(record.doc, [])
    i = kb.store.position.get(record.id)
    if i is None:
        return None, None
    if record.kind == "card":
        def nearest_card(way: range) -> Record | None:
            return next((r for j in way if (r := kb.store.get(ids[j])) is not None and r.kind == "card"), None)

        return nearest_card(range(i - 1, -1, -1)), nearest_card(range(i + 1, len(ids)))
    prev = kb.store.get(ids[i - 1]) if i > 0 else None
    nxt = kb.store.get(ids[i + 1]) if i + 1 < len(ids) else None
    return prev, nxt


def reading(store, r: Record) -> list[tuple[Record, int]]:
    """(record, depth) for what a page shows below its record.

    A chapter lists its sections; anything else reads on as the document does, every rule
    below it with its text (702 shows 702.1 ... 702.190 and their sub-rules), like
    Yawgatog's one long page.
    """
    if r.kind == "chapter":
        return [(c, 1) for c in store.children(r)]
    out: list[tuple[Record, int]] = []

    def walk(record: Record, depth: int) -> None:
        for child in store.children(record):
            out.append((child, depth))
            walk(child, depth + 1)

    walk(r, 1)
    return out


def _read(kb: Opened, r: Record, depth: int, text: str | None) -> dict[str, Any]:
    """One entry of what a page reads below its heading: a link, its depth and the text shown."""
    return link(kb, r, kind=r.kind, depth=depth, number=r.number, title=r.title, group=r.group, text=text,
                refs=[_ref(asdict(ref)) for ref in r.refs if ref.field == "text"],
                obsolete=obsolete(kb, r.id),  # a card's page reads its 2007 rulings: "it will cause mana burn"
                # what the document prints after the text: its examples, then its commentary (702.19b, Token Cards a)
                examples=list(r.examples), commentary=list(r.commentary))


def short_link(kb: Opened, r: Record, label: str) -> str | None:
    """The chat-sized, readable address of a record, which /r/ (or /c/) resolves to that record alone.

    /r/907.4b for numbered rules no other document numbers so, else with the document, as the record's own address
    writes it (/r/treachery/116, /r/cr/116; a chapter too: /r/5, /r/treachery/7: no escaped space to copy, where
    /r/CR%20116 was); /r/token-cards-j and
    /r/die-rolls-and-coin-flips-d-iii for rules numbered inside a section;
    /c/venser-shaper-savant for cards and /c/the-aetherist/2 for their rulings.
    """
    if r.number and r.id == f"{r.doc}/{r.number.lower()}":
        name = "CR" if r.doc == "cr" else r.doc
        for form in (r.number, r.id, f"{name} {r.number}", f"{name} rule {r.number}"):  # the last for a chapter
            if [m.id for m in resolution(kb, form).matches] == [r.id]:
                return "/r/" + quote(form)
        return None
    if r.kind == "rule" and r.parent:  # numbered inside a section: "Token Cards g)"
        return "/r/" + slugify(label)
    if r.kind == "card" and r.title:
        return "/c/" + r.id.rsplit("/", 1)[-1]
    if r.kind == "ruling" and r.parent and r.parent.split("/")[1:2] == ["cards"]:
        return "/c/" + r.parent.rsplit("/", 1)[-1] + "/" + r.id.rsplit("/", 1)[-1]
    if r.kind in ("section", "note", "glossary", "keyword"):
        # /r/token-cards for a section its title names alone; else the record's own address, which /r/ reads too
        # (/r/futuresight/notes/cycle-pacts, /r/cr/glossary/commander): section and note pages had none to copy
        found = kb.resolver.section_slug(slugify(label)) if r.kind == "section" else None
        return "/r/" + (slugify(label) if found is not None and found.id == r.id else r.id)
    return None


def used_in(title: str | None) -> str:
    """Where a keyword is used: a phrase search that never jumps to one record."""
    return "/search?" + urlencode({"q": f'"{title}"', "noredirect": 1})


def short_name(kb: Opened, slug: str) -> str:
    """How chat names a document before a rule number: "CR", "Treachery"."""
    if slug == "cr":
        return "CR"
    meta = kb.store.document(slug) or {}
    return meta.get("short_title") or meta.get("title") or slug


def _keyword_text(kb: Opened, definitions: list[tuple[Ref, Record]]) -> dict[str, Any]:
    """A keyword page's text is its first definition's opening sub-rules (ingest.keywords): ``text_from`` names them
    (it said "702.11" of 702.11a-b's words), and ``in_full`` lists every sub-rule of that rule (hexproof on a player,
    702.11c, and "hexproof from", 702.11d, were nowhere on /keywords/hexproof)."""
    if not definitions:
        return {"text_from": [], "in_full": []}
    rule = definitions[0][1]
    below = [r for r in map(kb.store.get, rule.children) if r is not None]
    opening = keyword_text_from(rule, below)
    return {"text_from": [link(kb, r, number=r.number) for r in opening],
            "in_full": [link(kb, r, number=r.number, text=r.text,
                             refs=[_ref(asdict(ref)) for ref in r.refs if ref.field == "text"])
                        for r in below] if len(below) > len(opening) else []}


def _definitions(kb: Opened, record: Record) -> list[tuple[Ref, Record]]:
    return [(ref, r) for ref in record.refs if ref.field == "definitions" and ref.target
            for r in [kb.store.get(ref.target)] if r is not None]


def _definition(kb: Opened, ref: Ref, r: Record) -> dict[str, Any]:
    """A keyword's definition: the reference as written (``text``) and the rule it names, with its document."""
    return {"text": ref.text, **link(kb, r, number=r.number, title=r.title, doc=r.doc,
                                      document=doc_title(kb, r.doc), version=doc_version(kb, r.doc))}


def record_data(kb: Opened, record_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A record page's data (its JSON twin, /api/records/<id>) and what only its template needs."""
    # ids are lower case, as the page reads them (/TREACHERY/907.4B is treachery/907.4b's page and twin)
    # digits of any script read as typed (/api/records/cr/７０２.１９b, as dated paths read them)
    record = kb.store.get(record_id) or kb.store.get(record_id.lower()) or kb.store.get(typed(record_id).lower())
    if record is None:
        raise NotFound(missing(kb, record_id)[0])
    data = record_json(record)
    label = kb.store.label(record)
    prev, nxt = siblings(kb, record)
    data["label"] = label
    data["breadcrumbs"] = [link(kb, r) for r in trail(kb, record)]
    if record.kind == "glossary" and not record.parent:  # the document › Glossary › the entry
        data["breadcrumbs"].insert(0, glossary_link(record.doc))
    data["previous"] = prev and link(kb, prev)
    data["next"] = nxt and link(kb, nxt)
    data["document"] = doc_meta(kb, record.doc)
    # What hover previews and chat unfurls show: a card's first ruling and their count, a headed rule's first sub-rule.
    data["summary"] = summary(record, kb.store.records)
    # What the page shows: its body (not a translation line, not a card's rulings joined), a translation,
    # what it reads below (children, or the whole subtree in reading order), who cites it, its definitions.
    body = body_text(record, kb.store.records)
    found = translation(record.text)
    below = reading(kb.store, record)
    definitions = _definitions(kb, record)
    cited_by = [r for r in map(kb.store.get, record.cited_by) if r is not None]
    data["body"] = body
    data["translation"] = found and {"language": found[0], "words": found[1]}
    data["reading"] = [_read(kb, c, depth, c.text) for c, depth in below]
    data["cited_by_links"] = [link(kb, c, doc=c.doc, document=doc_title(kb, c.doc), kind=c.kind) for c in cited_by]
    data["definitions"] = [_definition(kb, ref, r) for ref, r in definitions]
    if record.kind == "keyword":
        data["used_in"] = used_in(record.title)
        data.update(_keyword_text(kb, definitions))
    data["short_link"] = short_link(kb, record, label)
    # A card whose document prints only its notes (Treachery's identity cards): the page says the text is not there,
    # where it left a silent gap (/treachery/cards/the-metamorph)
    data["card_text_printed"] = bool(record.mana_cost or record.type_line or record.rules_text) \
        if record.kind == "card" else None
    # A rule quoted from an older edition of the official rules (the 2007 FAQ's) names today's rule when the
    # official rules are loaded: its page showed the 2007 text with a date alone ("Lifelink is a triggered ability")
    today = superseded_by(kb, record)
    data["superseded_by"] = today and link(kb, today)
    # A 2007 ruling or note resting on a rule changed since (corpus/futuresight_obsolete.toml): "it will cause
    # mana burn" read as a current ruling. A card's 2007 type line, with today's words beside it.
    data["obsolete"] = obsolete(kb, record.id)
    data["type_line_today"] = kb.obsolete.type_line_today(record)
    # What the document's table of OCR corrections changed in this record's source lines (line 97's "ldentity").
    data["corrections"] = [{k: v for k, v in c.items() if k != "record"}
                           | {"links": [link["url"] for link in linkify(kb, c["why"])["links"]]}  # rules its why names
                           for c in (kb.store.reports.get(record.doc) or {}).get("corrected", ())
                           if c["record"] == record.id]
    # What "Copy for chat" copies, before the page's short link: a numbered rule with its document's name, as chat
    # cites it ("CR 704.5j", "Treachery 907.4b": 116 and 702.187 are rules of two documents)
    cited = f"{short_name(kb, record.doc)} {label}" if (record.number or "")[:1].isdigit() else label  # chapters too
    data["chat"] = f"{cited}: {preview(record, 300, kb.store.records).split(': ', 1)[-1]}"
    # The effective date of the release (or document version) this record is from, as an ISO date.
    data["effective"] = (data["document"] or {}).get("effective")
    if kb.history is not None:
        if record.doc == "cr" and record.number and kb.history.current_lineage(record.number) is not None:
            data["history_url"] = f"/cr/{record.number}/history"
            data["releases_url"] = "/cr/releases"
        elif record.doc != "cr":
            data["dated_citations"] = [
                c | {"then_url": dated_url(c["then"], c["number"]) if c["then"] else None,
                     "now_url": f"/cr/{c['now']}" if c["now"] else None}
                for c in kb.history.citations(record.id)]
    # The template renders the record's fields and what it reads below as HTML, with their references linked.
    return data, {"record": record, "children": below}


_RULE_NUMBER = re.compile(r"(\d+)(?:\.(\d+)([a-z]*))?")  # 7, 702, 702.19, 702.19b


def _number_key(number: str | None) -> tuple[int, int, str]:
    """702.19b -> (702, 19, "b"); anything else (116.2tr, a card) -> (-1, -1, ""), which no rule number is."""
    m = _RULE_NUMBER.fullmatch(number or "")
    return (int(m.group(1)), int(m.group(2) or -1), m.group(3) or "") if m else _NO_NUMBER


_NO_NUMBER = (-1, -1, "")


def missing(kb: Opened, record_id: str) -> tuple[str, list[Record]]:
    """What a page at an id that names no record says, and the records it offers.

    A rule number in a loaded document ("cr/702.999") is said as a judge says it ("There is no rule 702.999 in
    the Comprehensive Rules") with the nearest existing rules: the one it would be under (702) and its
    neighbours by number (702.190, the last of 702); anything else is the id as asked."""
    doc, _, number = record_id.partition("/")
    key = _number_key(number)
    meta = doc_meta(kb, doc) if key != _NO_NUMBER else None
    if meta is None:
        return f"no record {clip(record_id, 80)!r}", []  # a 5,000-character id was echoed whole
    major, minor, letters = key
    # a sub-rule's rule, a rule's section, a section's chapter: the nearest of them that exists
    above = [number[: -len(letters)]] if letters else []
    above += [str(major)] if minor >= 0 else []
    above += [str(major)[0]] if len(str(major)) == 3 else []
    parent = next(filter(None, (kb.store.get(f"{doc}/{n}") for n in above)), None)
    around = [r for r in (kb.store.children(parent) if parent else kb.store.roots(doc))
              if _number_key(r.number) != _NO_NUMBER]
    order = number_order(number)  # 704.5aa after 704.5z, as the document goes on past z
    before = [r for r in around if number_order(r.number or "") < order]
    after = [r for r in around if number_order(r.number or "") > order]
    nearest = [r for r in (parent, max(before, key=lambda r: number_order(r.number or ""), default=None),
                           min(after, key=lambda r: number_order(r.number or ""), default=None)) if r is not None]
    # the game's name goes: "in the Comprehensive Rules", as a judge says it
    name = re.sub(r"^Magic: The Gathering ", "", meta["title"])
    said = f"There is no rule {number} in the {name}"
    if nearest:
        said += "; the nearest: " + ", ".join(f"{kb.store.label(r)} ({record_url(r.id)})" for r in nearest)
    return said, nearest


def _effective(kb: Opened, doc: str) -> str | None:
    meta = doc_meta(kb, doc)
    return meta.get("effective") if meta else None


def _toc(kb: Opened, record: Record, depth: int | None = None) -> dict[str, Any]:
    # a card's rulings are its page, not lines of the contents (54 Treachery cards stood among 209 "…, ruling N")
    below = depth is None or (depth > 1 and record.kind not in ("card", "note"))
    out = {"id": record.id, "kind": record.kind, "label": kb.store.label(record), "url": record_url(record.id),
           "count": len(record.children),
           "children": [_toc(kb, c, None if depth is None else depth - 1) for c in kb.store.children(record)]
           if below else []}
    if record.kind == "card":  # the document's own headings over its cards: Leaders, Guardians, ... (or Cards)
        out["group"] = f"{record.role}s" if record.role else "Cards"
    return out


WHOLE_DOCUMENT_MAX = 1500  # records; a larger document (the official rules) reads section by section


def whole_document(kb: Opened, slug: str) -> list[tuple[Record, int, str]]:
    """(record, depth, text) for every record in reading order, when the document is small enough to read
    as one long page (Yawgatog's way); [] otherwise."""
    store = kb.store
    ids = store.order.get(slug, [])
    if not ids or len(ids) > WHOLE_DOCUMENT_MAX:
        return []
    out = []
    for rid in ids:
        r = store.records[rid]
        depth, parent = 0, r.parent
        while parent:
            depth, parent = depth + 1, store.records[parent].parent if parent in store.records else None
        out.append((r, depth, body_text(r, store.records) or r.rules_text or ""))
    return out


def document_data(kb: Opened, slug: str, depth: int | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """A document, its contents and (when it is small) its whole text, and the template's extras.

    ``depth`` cuts the contents (the page shows two levels, the API all)."""
    meta = doc_meta(kb, slug)
    if meta is None:
        raise NotFound(f"no document {slug!r}")
    whole = whole_document(kb, slug)
    data = {**meta, "contents": [_toc(kb, r, depth) for r in kb.store.roots(slug)],
            "reading": [_read(kb, r, d, text) for r, d, text in whole]}
    entries = _glossary(kb, slug)
    data["glossary"] = glossary_link(slug) | {"count": len(entries)} if entries else None
    if kb.history is not None:
        # When the document's official citations say it was written (UnCommander is undated).
        data["written_against"] = kb.history.estimate(slug)
        if slug == "cr":
            data["history"] = {"releases": len(kb.history.releases), "first": kb.history.releases[0]["effective"],
                               "url": "/cr/releases"}
    return data, {"reading": whole}


def _glossary(kb: Opened, slug: str) -> list[Record]:
    """A document's glossary entries, alphabetical."""
    return sorted((r for r in kb.store.by_doc(slug) if r.kind == "glossary"),
                  key=lambda r: (kb.store.label(r).casefold(), r.id))


def glossary_link(slug: str) -> dict[str, Any]:
    """The glossary index of a document, as a link: ``{id, label, url}`` (/cr/glossary)."""
    return {"id": f"{slug}/glossary", "label": "Glossary", "url": record_url(slug) + "/glossary"}


def glossary_data(kb: Opened, slug: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A document's glossary index (/<slug>/glossary, its twin /api/documents/<slug>/glossary): every entry,
    alphabetical, whole (Ability's two meanings and its "See rule 113") with its references, as a record's
    ``reading`` gives them; the extras hold the entries' records, which the page links as record pages do."""
    meta = doc_meta(kb, slug)
    entries = _glossary(kb, slug) if meta is not None else []
    if not entries:
        raise NotFound(f"no glossary in {slug!r}" if meta is not None else f"no document {slug!r}")
    data = {**glossary_link(slug), "document": meta,
            "entries": [link(kb, r, text=r.text, refs=[_ref(asdict(ref)) for ref in r.refs if ref.field == "text"])
                        for r in entries]}
    return data, {"entries": entries}


def documents_data(kb: Opened) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The home page's documents (its twin is /api/documents): a list, so the extras are apart."""
    data = [{k: d[k] for k in ("slug", "title", "version", "effective", "source_url", "counts")}
            | {"url": record_url(d["slug"])} for d in kb.store.documents]
    return data, {}


def keywords_data(kb: Opened) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    out = []
    for r in kb.store.by_doc("keywords"):
        out.append({"id": r.id, "title": r.title, "url": record_url(r.id),
                    "definitions": [_definition(kb, ref, d) for ref, d in _definitions(kb, r)],
                    "used_in": used_in(r.title)})
    return out, {}


def int_arg(value: str | None, default: int, name: str) -> int:
    """A whole-number query argument written in ASCII digits (an optional minus, at most nine digits), or
    ``default`` when absent; anything else is a 400 naming it. Python's ``int`` alone would take "５",
    " 5 ", "+5", "1_000" and thousands of digits."""
    if value is None or value == "":
        return default
    if not _WHOLE.fullmatch(value):
        raise BadRequest(f"{name} must be a whole number (ASCII digits, at most nine)")
    return int(value)


_WHOLE = re.compile(r"-?[0-9]{1,9}")


FACETS = ("doc", "kind")


def search_data(kb: Opened, args) -> tuple[dict[str, Any], dict[str, Any]]:
    """Search results (/api/search), with the page's navigation as data: ``pagination`` and ``filters``."""
    if isinstance(args, MultiDict):
        # Each argument's first value, as ``args.get`` reads it, without werkzeug's BadRequestKeyError
        # raised and caught for each one absent (four per search: limit, offset, doc, kind).
        args = args.to_dict()
    q = args.get("q", "")
    if _UNPRINTABLE.search(q):  # as /api/resolve answers a NUL (it was searched, and echoed back in "query")
        raise BadRequest("q must not contain control characters")
    limit = int_arg(args.get("limit"), 10, "limit")
    offset = int_arg(args.get("offset"), 0, "offset")
    past = False  # a page past MAX_OFFSET: asked of the search as the first, to learn where the pages end
    if "page" in args:
        page = int_arg(args.get("page"), 1, "page")
        if page < 1:
            raise BadRequest("page must be 1 or more")
        offset = (page - 1) * limit
        past = offset > MAX_OFFSET
    try:
        results = kb.searcher.search(q, doc=args.get("doc") or None, kind=args.get("kind") or None,
                                     limit=limit, offset=0 if past else offset)
    except QueryError as exc:
        raise BadRequest(str(exc)) from None
    if past:
        if results.total > MAX_OFFSET:  # pages there are, but not served (the offset's bound, said of the page)
            raise BadRequest(f"page must be between 1 and {MAX_OFFSET // limit + 1} (with limit {limit})")
        results = replace(results, hits=[], offset=offset, redirect=None)  # a copy: the searcher keeps answers
    data = results.to_json()
    flagged = kb.obsolete
    for hit in data["results"]:  # a 2007 ruling that no longer holds says so in the list too
        hit["obsolete"] = obsolete(kb, hit["id"]) if hit["id"] in flagged else None
    # "716.2@2016-07-22" typed in the box: the rule as it stood that day, as its short link opens; "702.19c
    # history", "702.19b 2019": every version of the rule, with its dates
    across, why = time_page(kb, q, args.get("doc")) if offset == 0 and not past else (None, None)
    if across:
        data["redirect"] = across
    elif why:  # and why it cannot ("2016-02-30 is not a day of the calendar", "no rule 907.4b in the release of ...")
        data["note"] = "; ".join(filter(None, [data["note"], why]))
        results = replace(results, note=data["note"])  # the page says it too
    asked = {k: v for k, v in args.items() if k in ("q", *FACETS)}
    base = _search_url(asked)  # the asked search's URL: every page and facet link adds one argument to it
    data["pagination"] = _pagination(results.offset, results.limit, results.total, asked, base)
    data["filters"] = _filters(kb, results.facets, asked, base)
    data["did_you_mean_url"] = results.did_you_mean and _search_url({"q": results.did_you_mean})
    data["rewritten"] = rewritten(q, results)
    # The page's twin asks the API for the same page of the same results.
    twin = {k: v for k, v in args.items() if k in ("q", *FACETS, "page", "limit", "offset")}
    return data, {"results": results, "twin": twin}


def rewritten(q: str, results: Results) -> dict[str, Any] | None:
    """What the search page says when the vocabulary rewrote the query, in parts it can emphasise, with the search
    that keeps the reader's words (the words quoted: a quoted query is searched as written): ``{"words": [{said,
    means}], "instead_url", "rest"}``, ``rest`` the note's other parts. None when nothing was rewritten."""
    note, said_so = results.note, results.rewrite_note
    if not note or not said_so or said_so not in note:
        return None
    words = [{"means": w.means, "said": w.said} for w in results.rewrites]
    instead = q
    for w in words:  # "wear off" -> "\"wear off\"", where the query holds it as written
        instead = re.sub(re.escape(w["said"]), lambda x: f'"{x.group(0)}"', instead, count=1, flags=re.IGNORECASE)
    if '"' not in instead:  # said otherwise than written ("w/o"): the whole query as written
        instead = f'"{q}"'
    at = note.index(said_so)
    rest = "; ".join(p for p in (note[:at].rstrip("; "), note[at + len(said_so):].lstrip("; ")) if p)
    return {"words": words, "instead_url": _search_url({"q": instead}), "rest": rest or None}


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")  # C0 and C1 controls
_UNPRINTABLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")  # control characters but tab and line breaks


_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_PASTED_DATED = re.compile(r"\s*(?:https?://[^/\s]+)?/?cr@(?P<day>\d{4}-\d{2}-\d{2})/(?P<number>[\w.-]{1,40})\s*",
                           re.IGNORECASE)
# "702.19c history", "history of 702.19c", "702.19b 2019", "702.19c as of 2020", "716.2 in 2016": a year or the
# word asks about the rule across releases (they searched the words: a phasing rule first, Core Set 2019's rule)
_ACROSS_TIME = re.compile(r"^(?:(?:history|changes|versions)\s+(?:(?:of|to)\s+)?(?P<before>.+?)"
                          r"|(?P<after>.+?)(?:\s+(?:history|changes|versions|over\s+time)"
                          r"|\s*@\s*(?P<at>(?:19|20)\d\d)|\s+(?:(?:as\s+)?of\s+|in\s+)?(?P<year>(?:19|20)\d\d)"
                          r"|\s*\(\s*(?:(?:as\s+)?of\s+|in\s+)?(?P<paren>(?:19|20)\d\d)\s*\)))$",
                          re.IGNORECASE)


_YEAR = re.compile(r"(?:19|20)\d\d")


def _may_ask_across_time(q: str) -> bool:
    """Whether ``_ACROSS_TIME`` can match: every way of asking names a year or one of its words (a plain test first,
    as every search asks it: the pattern's alternatives cost ~10 µs on a question). Other than ASCII, the pattern
    decides (its case-insensitive "s" matches "ſ" too)."""
    if not q.isascii():
        return True
    lower = q.lower()
    return any(word in lower for word in ("history", "changes", "versions", "time")) or _YEAR.search(q) is not None


def _across_time(kb: Opened, q: str, doc: str | None = None) -> tuple[str | None, str | None]:
    """The page a question about one official rule across time opens, when the rules' history is loaded: "702.19c
    history" its history; "702.19b 2019", "716.2 in 2016" the rule numbered so that year (its last release: today's
    716.2 is another rule than 2016's), which links every version; or why there is none ("702.19b as of 2014": the
    history starts on the first release loaded). (None, None) for anything else."""
    m = _ACROSS_TIME.match(q.strip().rstrip(".,;:!?")) \
        if len(q) <= 200 and doc in (None, "", "cr") and _may_ask_across_time(q) else None
    if m is None or kb.history is None:
        return None, None
    written = m.group("before") or m.group("after")
    year = m.group("at") or m.group("year") or m.group("paren")
    query = parse_ref(written, bare_numbers=True, doc_names=kb.resolver.doc_names)
    if query is None and year:  # "704.5 legend rule as of 2019": the sub-rule the words name, as it stood then
        named = kb.searcher.rule_with_words(written)
        if named is not None and named.doc == "cr" and named.number:
            written = named.number
            query = parse_ref(written, bare_numbers=True, doc_names=kb.resolver.doc_names)
    if query is None or query.date or not query.numbers or query.doc not in (None, "cr"):
        return None, None
    if len(query.numbers) > 1:  # "613.1a-g as of 2019": the rules of the range as they stood, as its short link
        if not year:
            return None, None
        day = min(f"{year}-12-31", date.today().isoformat())
        dated = parse_ref(f"{written}@{day}", bare_numbers=True, doc_names=kb.resolver.doc_names)
        found, why = dated_matches(kb.history, dated) if dated is not None else ([], None)
        return (("/r/" + quote(f"{written.strip()}@{day}", safe=""), None) if found
                else (None, why and why.replace(f"on {day}", f"in {year}")))
    number = query.numbers[0]
    other = [r for r in kb.resolver.resolve(number).matches if r.doc != "cr"]
    if other and query.prefer != "cr" and query.doc != "cr":
        return None, None  # "702.187c history": Treachery's is a rule too; the list says which is which
    if year:
        day = min(f"{year}-12-31", date.today().isoformat())
        dated = parse_ref(f"{written}@{day}", bare_numbers=True, doc_names=kb.resolver.doc_names)
        found, why = dated_matches(kb.history, dated) if dated is not None else ([], None)
        if len(found) == 1:
            return found[0]["url"], None
        # "702.19b as of 2014", before the first release loaded, listed today's rule and said nothing of it
        return None, why and why.replace(f"on {day}", f"in {year}")
    return (f"/cr/{number}/history" if kb.history.current_lineage(number) is not None else None), None


def time_page(kb: Opened, q: str, doc: str | None = None) -> tuple[str | None, str | None]:
    """The page a reference to an official rule at a time or across time opens (a dated reference, "702.19b as
    of 2019", "702.19c history"), or why there is none; (None, None) for anything else. The search box and the
    short links read them alike."""
    dated, why = _dated_page(kb, q, doc)
    return (dated, why) if dated or why else _across_time(kb, q, doc)


def _dated_page(kb: Opened, q: str, doc: str | None = None) -> tuple[str | None, str | None]:
    """The page a dated reference opens ("716.2@2016-07-22", "CR 702.19c (2025-02-07)": the rule as it stood
    that day, or the short link's choice when the release printed the number twice), or why there is none;
    (None, None) for anything else, and for a search filtered to another document than the official rules."""
    if len(q) > 200 or doc not in (None, "", "cr"):
        return None, None
    pasted = _PASTED_DATED.fullmatch(q)  # "cr@2019-01-25/702.19b", a dated page's address pasted in the box
    if pasted:
        q = f"{pasted.group('number')}@{pasted.group('day')}"
    if "@" not in q and "(" not in q and not _ISO_DAY.search(q) and not _ISO_DAY.search(iso_days(q)):
        return None, None  # "716.2 as of July 2016" is "716.2 as of 2016-07-31" (kb.refs.iso_days)
    query = parse_ref(q.strip(), bare_numbers=True, doc_names=kb.resolver.doc_names)
    if query is None or not query.date:
        return None, None
    found, why = dated_matches(kb.history, query)  # an impossible date included: its why says so
    if not found:
        # "907.4b as of July 2019": Treachery's rule; only the official rules have releases to date
        elsewhere = sorted({r.doc for n in query.numbers for r in kb.resolver.resolve(n).matches if r.doc != "cr"})
        if elsewhere and why and why.startswith("no rule"):
            names = " and ".join(doc_title(kb, d) for d in elsewhere)
            why = f"{' '.join(query.numbers)} is a rule of the {names}, whose history is not kept: a date reads the "\
                  f"official rules' releases ({why})"
        return None, why
    # several rules: the short link of the list, written with its day ("613.1a-g as of 2019" -> 613.1a-g@2019-12-31)
    return (found[0]["url"] if len(found) == 1 else "/r/" + quote(f"{undated(q)}@{query.date}", safe="")), None


# Every facet value's link repeats the query: each distinct string is quoted once (the same text
# urlencode's own quote_plus gives), not once per link of every search answer.
_quoted = lru_cache(maxsize=4096)(quote_plus)


def _search_url(args: dict[str, Any]) -> str:
    # What urlencode({k: v ... if v}, quote_via=_quoted) gives, without its per-call checks (a dozen
    # links per answer): each key and value as text, quoted with urlencode's own arguments.
    return "/search?" + "&".join([_quoted(str(k), "", None, None) + "=" + _quoted(str(v), "", None, None)
                                  for k, v in args.items() if v])


def _adding(asked: dict[str, str], name: str, base: str | None = None):
    """value -> ``_search_url({**asked, name: value})``. With ``name`` not asked, every link is the asked
    search's URL (``base``, when the caller has it) plus ``&name=value`` (urlencode adds a new key last):
    the query is quoted once per answer, not once per link."""
    if name in asked:
        return lambda value: _search_url({**asked, name: value})
    base = _search_url(asked) if base is None else base
    glue = "&" if base != "/search?" else ""
    key = _quoted(name, "", None, None)
    return lambda value: f"{base}{glue}{key}={_quoted(str(value), '', None, None)}" if value else base


def _pagination(offset: int, limit: int, total: int, asked: dict[str, str], base: str | None = None) -> dict[str, Any]:
    """Which page of how many, the pages before and after (their URLs, or null), and the last page's URL.

    A page past the last (page 40 of 31), or an offset past the last result (offset 96 of 96 results), is
    ``past_end``: its previous page is the last one."""
    page, pages = offset // limit + 1, max(1, -(-total // limit))
    past_end = page > pages or 0 < total <= offset
    at = _adding(asked, "page", base)  # _search_url({**asked, "page": n})
    return {"page": page, "pages": pages, "past_end": past_end,
            "previous": at(min(page - 1, pages)) if page > 1 else None,
            "next": at(page + 1) if page < pages else None,
            "last": at(pages)}


def _filters(kb: Opened, facets: dict[str, dict[str, int]], asked: dict[str, str],
             base: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """Each facet's values as the page lists them: ``{value, label, count, url, current}``; a filter in use
    comes with its way out (value null: every document, every kind)."""
    titles = kb.derived.get("facet titles", lambda: _facet_titles(kb))
    out: dict[str, list[dict[str, Any]]] = {}
    for name in FACETS:
        everything = "all documents" if name == "doc" else "all kinds"
        link = _adding(asked, name, base)
        entries: list[dict[str, Any]] = [{"value": None, "label": everything, "count": None,
                                          "url": _search_url({**asked, name: None}), "current": False}
                                         ] if asked.get(name) else []
        entries += [{"value": value, "label": titles.get(value, value) if name == "doc" else value, "count": n,
                     "url": link(value), "current": asked.get(name) == value}
                    for value, n in facets.get(name, {}).items()]
        out[name] = entries
    return out


def _facet_titles(kb: Opened) -> dict[str, str]:
    """A document facet's labels, once per build: each document's title by its slug."""
    # Keywords gathers every document's: titled as a document, not by its slug beside the documents' titles.
    return {d["slug"]: d["title"] for d in kb.store.documents} | {"keywords": "Keywords (all documents)"}


_CHAPTER_DIGIT = re.compile(r"\s*\d\s*")


def resolution(kb: Opened, ref: str, context_doc: str | None = None) -> Resolution:
    """What a reference typed as a short link or asked of /api/resolve names: "CR 702.187c" is the official
    rule alone (when the official rules have it), and a bare digit ("5", which search reads as a number) is
    the chapter, as "rule 5" is."""
    res = kb.resolver.resolve(ref, context_doc=context_doc, prefer_only=True)
    if res.query is None and _CHAPTER_DIGIT.fullmatch(ref):
        res = kb.resolver.resolve("rule " + ref.strip(), context_doc=context_doc, prefer_only=True)
        res.ref = ref
    return res


def resolve_data(kb: Opened, ref: str, context_doc: str | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """What a reference means (/api/resolve), the data of its choice page (/r/<ref>) with the records it shows."""
    if not ref or len(ref) > 200:
        raise BadRequest("ref must be between 1 and 200 characters")
    if _CONTROL.search(ref):  # a NUL or a line break is no reference (/r/%00 put a NUL in the page's title)
        raise BadRequest("ref must not contain control characters")
    docs = [d["slug"] for d in kb.store.documents]
    if context_doc is not None and context_doc not in docs:  # as search answers it (it was read as no document)
        raise BadRequest(f"unknown document {context_doc!r}; known: {', '.join(sorted(docs))}")
    res = resolution(kb, ref, context_doc)
    if res.query is not None and res.query.date:
        try:
            parse_date(res.query.date)
        except DateError as exc:  # as /cr@2016-02-30/... answers: the date is wrong, not the rule missing
            raise BadRequest(str(exc)) from None
        if kb.history is None:  # a server without earlier releases answers today's rule, and says so
            data, extra = resolve_data(kb, undated(ref), context_doc)
            data["ref"], data["note"] = ref, "; ".join(filter(None, [no_history(res.query.date), data["note"]]))
            return data, extra
        dated, note = dated_matches(kb.history, res.query)
        gap = release_gap(kb.history, res.query.date) if dated and kb.history is not None else None
        return {"ref": ref, "matches": dated, "note": note, "suggestions": [],
                "effective": dated[0]["effective"] if dated else None, "gap": gap, "what": _what(ref, dated)}, {}
    matches = res.matches
    note = res.note
    if not matches and res.query is None:
        # read as [[name]] is in chat (kb.cardnames): a part of a name, a nickname or a typo, when one card fits
        # (/r/venser, /r/goyf, /r/metamorf were 404s while linkify read them)
        lookup = find_card(kb.store, kb.resolver, ref)
        if lookup.card is not None:
            matches = [lookup.card]
            note = lookup.note
    if not matches and res.query is None:
        # a record's id or exact title, as its short link opens it (/r/trample is 702.19): /api/resolve?ref=trample
        # and Discord's /rule said "'trample' is not a rule reference" (a bot developer)
        named = kb.store.get(named_record(kb, ref, context_doc) or "")
        if named is not None:
            matches, note = [named], None
    found = [{"id": r.id, "url": record_url(r.id), "doc": r.doc, "effective": _effective(kb, r.doc),
              **link_facts(kb, r)} for r in matches]
    data = {
        "ref": ref,
        "matches": found,
        "note": note,
        "suggestions": [
            {"id": r.id, "url": record_url(r.id), "title": kb.store.label(r), "doc": r.doc,
             "document": doc_title(kb, r.doc)} for r in res.suggestions
        ],
    }
    data["what"] = _what(ref, found)
    return data, {}


def no_history(day: str) -> str:
    """What a server without the official rules' earlier releases says of a dated reference (it said "a dated
    reference needs the official rules' history (kb build --cr-history DIR)" to a chat's readers)."""
    return f"no earlier release of the official rules is loaded here: shown as it reads today, not as of {day}"


def named_record(kb: Opened, ref: str, context: str | None) -> str | None:
    """The record a reference names by its id or its exact title (a rule's, a keyword's, a glossary term's), as the
    search box's title lead lists them, the current official rule first: "trample" is 702.19, "commander" 903."""
    typed = ref.strip().lower()
    if kb.store.get(typed) is not None:
        return typed
    try:
        results = kb.searcher.search(ref, doc=context, limit=10)
    except QueryError:  # "doc:nope": no name of a record either
        return None
    if results.matched_by != "title":
        return None
    return next((h.id for h in results.hits if (h.title or "").casefold() == typed.casefold()), None)


def _what(ref: str, matches: list[dict[str, Any]]) -> str:
    """What the choice page says the matches are: "702.19 is in 2 documents", "Token Cards: 12 rules"."""
    docs = len({m["doc"] for m in matches})
    if docs > 1:
        return f"{ref} is in {docs} documents"
    n = len(matches)
    return f"{ref}: {n or 'no'} {'rule' if n == 1 else 'rules'}"


def autocomplete_data(kb: Opened, q: str, limit: int = 10) -> list[dict[str, Any]]:
    """Completions, each saying which document it comes from; then phrases the documents repeat ("nut counters").

    ``document_short`` names the document as a phone has room for ("CR", "Treachery"): each suggestion repeated
    "Magic: The Gathering Comprehensive Rules", on two lines at 360 px."""
    titles = {d["slug"]: d["title"] for d in kb.store.documents}
    shorts = {d["slug"]: "CR" if d["slug"] == "cr" else d.get("short_title") or d["title"] for d in kb.store.documents}
    out = []
    for item in kb.searcher.autocomplete(q, limit=limit):
        doc = item["id"].split("/", 1)[0]
        out.append({**item, "doc": doc, "document": titles.get(doc, "Keywords" if doc == "keywords" else doc),
                    "document_short": shorts.get(doc, "Keywords" if doc == "keywords" else doc)})
    phrases = kb.derived.get("phrases", lambda: Phrases(kb.store))  # built on first use, once per build
    labels = {o["label"].lower() for o in out}
    for phrase in phrases.complete(q, limit - len(out)):
        if phrase not in labels:
            out.append({"label": phrase, "id": None, "url": "/search?" + urlencode({"q": phrase}),
                        "doc": None, "document": "search", "document_short": "search", "excerpt": None})
    return out
