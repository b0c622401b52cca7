"""One data function per resource; the HTML page and its JSON twin both render it.

Each function takes the opened knowledge base and plain arguments and
returns a dict of JSON-ready values (plus, under keys starting with ``_``,
the objects the templates need). ``NotFound``/``BadRequest`` carry the
message the user sees.
"""
from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from werkzeug.exceptions import BadRequest, NotFound

from kb.history import dated_matches
from kb.ids import record_url
from kb.kbase import Opened
from kb.model import Record
from kb.phrases import Phrases
from kb.search import QueryError
from web.render import summary

__all__ = [
    "record_data", "document_data", "documents_data", "search_data", "resolve_data",
    "keywords_data", "record_json", "trail", "siblings", "doc_meta", "autocomplete_data",
]


def record_json(record: Record) -> dict[str, Any]:
    data = record.to_json()
    data["url"] = record_url(record.id)
    for ref in data["refs"]:
        ref["url"] = record_url(ref["target"]) if ref["target"] else ref["url"]
    return data


def doc_meta(kb: Opened, slug: str) -> dict[str, Any] | None:
    if slug == "keywords":
        return {"slug": "keywords", "title": "Keywords", "version": "gathered from every document", "effective": None}
    return kb.store.document(slug)


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
    """Previous and next record in reading order within the same document."""
    ids = kb.store.order.get(record.doc, [])
    i = kb.store.position.get(record.id)
    if i is None:
        return None, None
    prev = kb.store.get(ids[i - 1]) if i > 0 else None
    nxt = kb.store.get(ids[i + 1]) if i + 1 < len(ids) else None
    return prev, nxt


def record_data(kb: Opened, record_id: str) -> dict[str, Any]:
    record = kb.store.get(record_id)
    if record is None:
        raise NotFound(f"no record {record_id!r}")
    data = record_json(record)
    prev, nxt = siblings(kb, record)
    data["breadcrumbs"] = [{"id": r.id, "label": kb.store.label(r), "url": record_url(r.id)} for r in trail(kb, record)]
    data["previous"] = prev and {"id": prev.id, "label": kb.store.label(prev), "url": record_url(prev.id)}
    data["next"] = nxt and {"id": nxt.id, "label": kb.store.label(nxt), "url": record_url(nxt.id)}
    data["document"] = doc_meta(kb, record.doc)
    # What hover previews and chat unfurls show: a card's first ruling and their count, a headed rule's first sub-rule.
    data["summary"] = summary(record, kb.store.records)
    # The effective date of the release (or document version) this record is from, as an ISO date.
    data["effective"] = (data["document"] or {}).get("effective")
    if kb.history is not None:
        if record.doc == "cr" and record.number and kb.history.current_lineage(record.number) is not None:
            data["history_url"] = f"/cr/{record.number}/history"
        elif record.doc != "cr":
            data["dated_citations"] = [
                c | {"then_url": f"/cr@{c['matches'][-1]}/{c['number']}" if c["matches"] else None,
                     "now_url": f"/cr/{c['now']}" if c["now"] else None}
                for c in kb.history.citations(record.id)]
    data["_record"] = record
    return data


def _effective(kb: Opened, doc: str) -> str | None:
    meta = doc_meta(kb, doc)
    return meta.get("effective") if meta else None


def _toc(kb: Opened, record: Record, depth: int | None = None) -> dict[str, Any]:
    below = depth is None or depth > 1
    return {"id": record.id, "kind": record.kind, "label": kb.store.label(record), "url": record_url(record.id),
            "count": len(record.children),
            "children": [_toc(kb, c, None if depth is None else depth - 1) for c in kb.store.children(record)]
            if below else []}


def document_data(kb: Opened, slug: str, depth: int | None = None) -> dict[str, Any]:
    """A document and its contents; ``depth`` cuts the tree (the page shows two levels, the API all)."""
    meta = doc_meta(kb, slug)
    if meta is None:
        raise NotFound(f"no document {slug!r}")
    data = {**meta, "contents": [_toc(kb, r, depth) for r in kb.store.roots(slug)]}
    if kb.history is not None:
        # When the document's official citations say it was written (UnCommander is undated).
        data["written_against"] = kb.history.estimate(slug)
        if slug == "cr":
            data["history"] = {"releases": len(kb.history.releases), "first": kb.history.releases[0]["effective"],
                               "url": "/cr/releases"}
    return data


def documents_data(kb: Opened) -> list[dict[str, Any]]:
    return [
        {k: d[k] for k in ("slug", "title", "version", "effective", "source_url", "counts")} for d in kb.store.documents
    ]


def keywords_data(kb: Opened) -> list[dict[str, Any]]:
    out = []
    for r in kb.store.by_doc("keywords"):
        out.append({"id": r.id, "title": r.title, "url": record_url(r.id),
                    "definitions": [{"text": ref.text, "id": ref.target, "url": record_url(ref.target)}
                                    for ref in r.refs if ref.field == "definitions" and ref.target],
                    "used_in": "/search?" + urlencode({"q": f'"{r.title}"', "noredirect": 1})})
    return out


def _int(value: str | None, default: int, name: str) -> int:
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise BadRequest(f"{name} must be a whole number") from None


def search_data(kb: Opened, args) -> dict[str, Any]:
    q = args.get("q", "")
    limit = _int(args.get("limit"), 10, "limit")
    offset = _int(args.get("offset"), 0, "offset")
    if "page" in args:
        page = _int(args.get("page"), 1, "page")
        if page < 1:
            raise BadRequest("page must be 1 or more")
        offset = (page - 1) * limit
    try:
        results = kb.searcher.search(q, doc=args.get("doc") or None, kind=args.get("kind") or None,
                                     limit=limit, offset=offset)
    except QueryError as exc:
        raise BadRequest(str(exc)) from None
    data = results.to_json()
    data["_results"] = results
    return data


def resolve_data(kb: Opened, ref: str, context_doc: str | None = None) -> dict[str, Any]:
    if not ref or len(ref) > 200:
        raise BadRequest("ref must be between 1 and 200 characters")
    res = kb.resolver.resolve(ref, context_doc=context_doc)
    if res.query is not None and res.query.date:
        dated, note = dated_matches(kb.history, res.query)
        return {"ref": ref, "matches": dated, "note": note, "suggestions": [],
                "effective": dated[0]["effective"] if dated else None}
    matches = res.matches
    note = res.note
    if not matches and res.query is None:
        card, distance = kb.resolver.card(ref)
        if card is not None:
            matches = [card]
            note = None if distance == 0 else f"card name {ref!r} read as {card.title!r}"
    return {
        "ref": ref,
        "matches": [{"id": r.id, "url": record_url(r.id), "title": kb.store.label(r), "doc": r.doc,
                     "effective": _effective(kb, r.doc)} for r in matches],
        "note": note,
        "suggestions": [
            {"id": r.id, "url": record_url(r.id), "title": kb.store.label(r), "doc": r.doc} for r in res.suggestions
        ],
    }


_PHRASES: dict[str, Phrases] = {}  # build id -> its phrases, built on first use


def autocomplete_data(kb: Opened, q: str, limit: int = 10) -> list[dict[str, Any]]:
    """Completions, each saying which document it comes from; then phrases the documents repeat ("nut counters")."""
    titles = {d["slug"]: d["title"] for d in kb.store.documents}
    out = []
    for item in kb.searcher.autocomplete(q, limit=limit):
        doc = item["id"].split("/", 1)[0]
        out.append({**item, "doc": doc, "document": titles.get(doc, "Keywords" if doc == "keywords" else doc)})
    phrases = _PHRASES.get(kb.build_id)
    if phrases is None:
        if len(_PHRASES) > 4:
            _PHRASES.clear()
        phrases = _PHRASES[kb.build_id] = Phrases(kb.store)
    labels = {o["label"].lower() for o in out}
    for phrase in phrases.complete(q, limit - len(out)):
        if phrase not in labels:
            out.append({"label": phrase, "id": None, "url": "/search?" + urlencode({"q": phrase}),
                        "doc": None, "document": "search"})
    return out
