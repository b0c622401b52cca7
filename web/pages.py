"""Server-rendered pages. Each renders the same data function as its JSON twin.

Routes: ``/`` (search box, documents), ``/search``, ``/keywords``, short
links ``/r/<reference>`` and ``/c/<card name>``, ``/opensearch.xml``, and
``/<id>`` for every document (its contents) and record (its page).
"""
from __future__ import annotations

import html as _html
from urllib.parse import quote, urlencode

from flask import Blueprint, Response, current_app, redirect, render_template, request
from markupsafe import Markup

from kb.cache import ByteLRU
from web import data as D
from web import public_url
from web.render import preview, render_inline, render_text

__all__ = ["pages", "error_page"]

pages = Blueprint("pages", __name__)

EXAMPLES = ["907.4b", "CR 702.187c", "The Metamorph", "tarmogyof", "nut counters",
            "who is the starting player", "Token Cards j", "lifelink"]


def _kb():
    return current_app.extensions["kb"].current()


def _page(template: str, *, title: str, description: str, alternate: str, status: int = 200, **context):
    html = render_template(template, title=title, description=description, alternate=alternate,
                           canonical=public_url() + request.full_path.rstrip("?"), status=status, **context)
    return Response(html, status=status, mimetype="text/html")


_PLURALS = {"glossary": "glossary entries", "history": "history entries"}


@pages.app_template_global("plural")
def plural(kind: str, n: int) -> str:
    """"1 rule", "68 rules", "4 glossary entries"."""
    if n == 1:
        return "glossary entry" if kind == "glossary" else "history entry" if kind == "history" else kind
    return _PLURALS.get(kind, kind + "s")


@pages.app_template_filter("text")
def _text_filter(value):
    return render_inline(value)


@pages.get("/")
def index():
    kb = _kb()
    return _page("index.html", title="Rules knowledge base",
                 description="Treachery, UnCommander and Future Sight rules, cross-referenced and searchable.",
                 alternate="/api/documents", documents=D.documents_data(kb), examples=EXAMPLES)


@pages.get("/search")
def search():
    kb = _kb()
    data = D.search_data(kb, request.args)
    results = data["_results"]
    if results.redirect and request.args.get("page", "1") == "1" and not request.args.get("noredirect"):
        return redirect("/" + results.redirect, code=302)
    args = {k: v for k, v in request.args.items() if k in ("q", "doc", "kind")}
    limit = results.limit
    page = results.offset // limit + 1
    pages_total = max(1, -(-results.total // limit))

    def page_url(n: int) -> str:
        return "/search?" + urlencode({**args, "page": n})

    def facet_url(name: str, value: str | None) -> str:
        return "/search?" + urlencode({k: v for k, v in {**args, name: value}.items() if v})

    return _page("search.html", title=f"{data['query']} — search", description=f"{results.total} results",
                 alternate="/api/search?" + urlencode(args), data=data, results=results, args=args,
                 page=page, pages_total=pages_total, page_url=page_url, facet_url=facet_url,
                 documents={d["slug"]: d["title"] for d in kb.store.documents})


@pages.get("/keywords")
def keywords():
    return _page("keywords.html", title="Keywords", description="Every keyword with its definitions across documents.",
                 alternate="/api/keywords", keywords=D.keywords_data(_kb()))


@pages.get("/r/<path:ref>")
def short_ref(ref: str):
    kb = _kb()
    data = D.resolve_data(kb, ref)
    if len(data["matches"]) == 1:
        return redirect(data["matches"][0]["url"], code=302)
    status = 200 if data["matches"] else 404
    return _page("disambiguation.html", title=f"{ref} — which document?",
                 description=data["note"] or f"{ref} appears in several documents",
                 alternate="/api/resolve?" + urlencode({"ref": ref}), data=data, ref=ref,
                 records=[kb.store.get(m["id"]) for m in data["matches"]],
                 suggestions=[kb.store.get(m["id"]) for m in data["suggestions"]], status=status)


@pages.get("/c/<path:name>")
def short_card(name: str):
    card, _ = _kb().resolver.card(name)
    if card is None:
        return error_page(404, f"no card named {name!r}", query=name)
    return redirect("/" + card.id, code=302)


@pages.get("/opensearch.xml")
def opensearch():
    xml = render_template("opensearch.xml", base=public_url())
    return Response(xml, mimetype="application/opensearchdescription+xml")


@pages.get("/<path:record_id>")
def record(record_id: str):
    kb = _kb()
    record_id = record_id.strip("/").lower()
    if D.doc_meta(kb, record_id) is not None:
        doc = D.document_data(kb, record_id)
        return _page("document.html", title=doc["title"],
                     description=f"{doc['title']}, {doc.get('version') or ''}: table of contents",
                     alternate=f"/api/documents/{record_id}", doc=doc)
    r = kb.store.get(record_id)
    if r is None and record_id.startswith("api/"):
        return error_page(404, f"no API endpoint /{record_id}; see /api/openapi.json")
    if r is None:
        # The last path segment is what the reader meant ("the-metamorf" under treachery/cards).
        return error_page(404, f"no record {record_id!r}", query=record_id.rsplit("/", 1)[-1].replace("-", " "))
    # A record page depends only on the build and the record: rendered once, with a mark where the
    # site's address goes (KB_PUBLIC_URL, else the Host asked for), filled in per request. Keyed by
    # anything a client chooses (query strings, Host headers), the cache grew without bound.
    key = (kb.build_id, r.id)
    page = _PAGES.get(key)
    if page is None:
        page = _PAGES.put(key, _record_page(kb, r, BASE_MARK, BASE_MARK + "/" + r.id))
    return Response(page.replace(BASE_MARK, _html.escape(public_url())), mimetype="text/html")


BASE_MARK = "\ue0f0base\ue0f1"  # private-use characters: never in a document, never in a URL
PAGE_CACHE_BYTES = 24 * 1024 * 1024  # every record page of the bundled corpus is about 13 MB
_PAGES: ByteLRU[str] = ByteLRU(PAGE_CACHE_BYTES)  # (build, record id) -> the page, with BASE_MARK


def _record_page(kb, r, host_url: str, url: str) -> str:
    record_id = r.id
    data = D.record_data(kb, record_id)
    label = kb.store.label(r)
    doc = data["document"] or {}
    description = preview(r, 200).split(": ", 1)[-1] + f" — {doc.get('title', r.doc)}, {doc.get('version') or ''}"
    refs_by_field: dict[str, list] = {}
    for ref in r.refs:
        refs_by_field.setdefault(ref.field, []).append(ref)

    def field_html(name: str, text: str, block: bool = True) -> Markup:
        return render_text(text, refs_by_field.get(name, []), kb.store.records, block=block)

    children = kb.store.children(r)
    return render_template(
        "record.html",
        short=_short_link(r, label),
        title=f"{label} — {doc.get('title', r.doc)}",
        description=description,
        canonical=url,
        alternate=f"/api/records/{r.id}",
        r=r,
        data=data,
        label=label,
        field_html=field_html,
        children=children,
        child_html=lambda c: render_text(c.text, [x for x in c.refs if x.field == "text"], kb.store.records),
        cited_by=[kb.store.get(c) for c in r.cited_by],
        store=kb.store,
        chat=f"{label}: {preview(r, 300).split(': ', 1)[-1]} {host_url.rstrip('/')}/{r.id}",
        definitions=[kb.store.get(ref.target) for ref in r.refs if ref.field == "definitions" and ref.target],
    )


def _short_link(r, label: str) -> str | None:
    """The chat-sized address of a record: /r/907.4b, /r/Token%20Cards%20g), /c/Tarmogoyf."""
    if r.number and r.id == f"{r.doc}/{r.number.lower()}":
        return "/r/" + quote(r.number)
    if r.kind == "rule":  # numbered inside a section: "Token Cards g)"
        return "/r/" + quote(label)
    if r.kind == "card" and r.title:
        return "/c/" + quote(r.title)
    return None


def error_page(status: int, message: str, query: str | None = None):
    """A helpful error page: the message, the nearest records and a search box.

    A client that asks for JSON, or for anything under /api/ (which no page serves), gets the
    API's one error shape instead.
    """
    if request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json":
        from web import error_response

        return error_response(status, "not_found" if status == 404 else "error", message)
    nearest = []
    if status == 404 and query:
        try:
            nearest = _kb().searcher.search(query[:200], limit=5).hits
        except Exception:  # the 404 page must render even when the query cannot run
            nearest = []
    return _page("error.html", title=f"{status} — {message}", description=message, alternate="/api/documents",
                 status=status, message=message, nearest=nearest, query=query or "")
