"""Server-rendered pages. Each renders the same data function as its JSON twin.

Routes: ``/`` (search box, documents), ``/search``, ``/keywords``, short
links ``/r/<reference>`` and ``/c/<card name>``, ``/opensearch.xml``, and
``/<id>`` for every document (its contents) and record (its page).
"""
from __future__ import annotations

import contextlib
import dataclasses
import html as _html
import re
import sys
from collections.abc import Callable
from urllib.parse import quote, urlencode

from flask import Blueprint, current_app, jsonify, redirect, render_template, request
from werkzeug.exceptions import HTTPException, MethodNotAllowed, NotFound
from markupsafe import Markup

from kb.cache import ByteLRU
from kb.kbase import Opened
from kb.cardnames import find_card
from kb.ids import record_url, slugify
from kb.linkify import linkify
from kb.refs import parse_ref
from kb.snippet import clip
from web import __version__
from web import api as A
from web import data as D
from web.app import Response, prefers_json, public_url
from web.compress import MIN_SIZE, accepts_gzip, gzip_bytes, gzipped
from web.gate import costly_if_free
from web.render import own_text, preview, render_inline, render_text

__all__ = ["pages", "render_page", "error_page", "page_body", "kept_record_page"]

pages = Blueprint("pages", __name__)

EXAMPLES = ["907.4b", "CR 702.187c", "The Metamorph", "tarmogyof", "nut counters",
            "who is the starting player", "Token Cards j", "lifelink"]


def _kb():
    return current_app.extensions["kb"].current()


def _as_requested() -> str:
    """The path and query asked, as a URL writes them: "/r/rule%20116", not werkzeug's decoded "/r/rule 116"."""
    query = request.query_string.decode("latin-1")
    return quote(request.path, safe="/@:!$&'()*+,;=~") + ("?" + query if query else "")


def _canonical(status: int) -> str:
    """The page's own URL; for an error asked at a very long URL the site's root (/c/ with a 12 KB name echoed it in
    og:url: a 14 KB 400 page)."""
    asked = _as_requested()
    return "/" if status >= 400 and len(asked) > 300 else asked


def render_page(template: str, *, title: str, description: str, alternate: str, status: int = 200,
                twin=None, once: tuple[Opened, str, str] | None = None,
                guard: Callable[[], contextlib.AbstractContextManager] | None = None, **context):
    """A page: its template over base.html, which links its JSON twin (``alternate``) and its canonical URL.

    Asked for JSON (``Accept: application/json``), the page's URL answers with ``twin``, the ``data`` half of
    its data function: the same answer as ``alternate``. ``once``: (the opened build, key, canonical path) of a page
    that depends only on the build its data came from and the key, rendered once per build (a diff of two releases
    is up to ~1 MB of HTML and a tenth of a second of CPU: rendered per request, a few clients repeating it starved
    everything else)."""
    if twin is not None and prefers_json():
        response = jsonify(twin)
        response.status_code = status
        return response
    if once is not None:
        key, path = (once[0], once[1]), once[2]  # the data's build, not the one current now (a rebuild between)
        return _once(key, lambda: render_template(template, title=title, description=description,
                                                  alternate=alternate, canonical=BASE_MARK + path, status=status,
                                                  **context), status=status, guard=guard)
    html = render_template(template, title=title, description=description, alternate=alternate,
                           canonical=public_url() + _canonical(status), status=status, **context)
    return Response(html, status=status, mimetype="text/html")


_PLURALS = {"glossary": "glossary entries", "history": "history entries"}


@pages.app_template_global("plural")
def plural(kind: str, n: int) -> str:
    """"1 rule", "68 rules", "4 glossary entries"."""
    if n == 1:
        return "glossary entry" if kind == "glossary" else "history entry" if kind == "history" else kind
    return _PLURALS.get(kind, kind + "s")


@pages.app_context_processor
def _documents():
    """Every page names documents by title and lists the loaded ones (the official rules too) in its header."""
    kb = current_app.extensions["kb"].current()
    store = kb.store
    return {"nav_documents": [(d["slug"], d.get("short_title") or d["title"]) for d in store.documents],
            "doc_title": lambda slug: D.doc_title(kb, slug), "doc_version": lambda slug: D.doc_version(kb, slug),
            "doc_short": lambda slug, dated=True: D.doc_short(kb, slug, dated), "store_label": store.label,
            "kb_version": __version__}


pages.add_app_template_global(record_url)  # templates link records as the JSON does


@pages.app_template_test("dated")
def _dated(effective) -> bool:
    """An effective date to print: "2024-10-01", not UnCommander's "undated" (its version says so)."""
    return bool(effective) and str(effective)[:1].isdigit()


@pages.app_template_filter("text")
def _text_filter(value):
    return render_inline(value)


def _loaded(kb) -> str:
    """The loaded documents by title, as the home page's description and the search plugin say them."""
    names = [d["title"] for d in kb.store.documents]
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)


@pages.get("/")
def index():
    kb = _kb()
    documents, _ = D.documents_data(kb)
    return render_page("index.html", title="Rules knowledge base",
                       description=f"{_loaded(kb)}, cross-referenced and searchable.",
                       alternate="/api/documents", documents=documents, examples=EXAMPLES, twin=documents,
                       history=kb.store.manifest.get("cr_history"))  # the official releases, when loaded


@pages.get("/search")
def search():
    data, extra = D.search_data(_kb(), request.args)
    results = extra["results"]
    if data["redirect"] and request.args.get("page", "1") == "1" and not request.args.get("noredirect"):
        if not results.redirect or data["redirect"] != record_url(results.redirect):
            return redirect(data["redirect"], code=302)  # the rule as it stood that day, or across releases (web.data)
        return redirect(_with_note(record_url(results.redirect), data["query"], results.note), code=302)
    asked = data["query"].strip()
    return render_page("search.html", title=f"{data['query']} — search" if asked else "Search — help and examples",
                       description=f"{results.total} results" if asked else "How to search the rules",
                       alternate="/api/search?" + urlencode(extra["twin"]), data=data, twin=data, results=results,
                       examples=EXAMPLES)


@pages.get("/keywords")
def keywords():
    kb = _kb()
    if prefers_json():  # the twin, as /api/keywords keeps it (made per request here it was ~36 ms, ungated)
        return A.keywords()
    # Made once per build and kept, as a record page: its data and page were ~15 ms of CPU a request (as much as a
    # search, which waits its turn at the gate), the same answer every time.
    kept = kept_page((kb, "page:keywords"))
    if kept is not None:
        return kept
    data, _ = D.keywords_data(kb)
    return render_page("keywords.html", title="Keywords",
                       description="Every keyword with its definitions across documents.", alternate="/api/keywords",
                       keywords=data, once=(kb, "page:keywords", "/keywords"))  # its twin: /api/keywords's, above


@pages.get("/r/<path:ref>")
def short_ref(ref: str):
    kb = _kb()
    context = request.args.get("doc") or None
    data, _ = D.resolve_data(kb, ref, context)
    if not data["matches"]:
        # A readable short link: /r/token-cards-j is "Token Cards j)".
        found = kb.resolver.section_slug(ref)
        if found is not None:
            return redirect(record_url(found.id), code=302)
        # as the search box reads them: "702.19b as of 2019", "613.1a-g@2019", "702.19c history"
        across, why = D.time_page(kb, ref, context)
        if across:
            return redirect(across, code=302)
        if why:
            data["note"] = why
        named = D.named_record(kb, ref, context) if not why else None
        if named is not None:  # /r/trample, /r/legend rule, /r/cr/glossary/commander: what the name is
            return redirect(record_url(named), code=302)
    if len(data["matches"]) == 1:
        return redirect(_with_note(data["matches"][0]["url"], ref, data["note"]), code=302)
    status = 200 if data["matches"] else 404
    several_docs = len({m["doc"] for m in data["matches"]}) > 1
    n = len(data["matches"])
    dated = data["matches"][0].get("date") if data["matches"] else None
    dated = dated if dated and dated not in ref else None  # "…@2024-01-01" says its day already; "…@2019" does not
    title = f"{ref} — which document?" if several_docs else f"{ref} — {n or 'no'} {plural('rule', n)}" + \
        (f" as of {dated}" if dated else "")
    described = data["note"] or data["what"]
    if several_docs:  # "116 is in 2 documents" said nothing of either: each document's rule, in a few words
        described = f"{data['what']}: " + "; ".join(
            f"{m['document']}, {m['title']}: {clip(m.get('summary') or '', 90)}" for m in data["matches"][:3])
    elif n > 1 and data["matches"][0].get("summary"):
        # a range unfurls with its first rule's words ("510.1c-d: 2 rules — 510.1c: A blocked creature ..."), and
        # what it lacks after them (907.4b-d unfurled only "no rule 907.4d in ...")
        first = data["matches"][0]
        described = f"{data['what']}" + (f" as of {dated}" if dated else "") + \
            f" — {first['title']}: {first['summary']}" + \
            (f" ({data['note']})" if data["note"] else "")
    # its JSON twin, a 404, carries the error shape every error has, beside what the resolution says (suggestions)
    twin = {"error": {"code": "not_found", "message": described}, **data} if status == 404 else data
    return render_page("disambiguation.html", title=title, description=described,
                       alternate="/api/resolve?" + urlencode({"ref": ref, **({"doc": context} if context else {})}),
                       data=data, twin=twin, ref=ref, status=status)


def _dated_reference(typed: str) -> bool:
    """"/716.2@2016-07-22" typed at the site root: a dated reference, which its short link opens."""
    query = parse_ref(typed, bare_numbers=True)
    return query is not None and bool(query.date)


def _with_note(url: str, ref: str, note: str | None) -> str:
    """A redirect that carries what the reader typed when the answer has something to say about it (renamed)."""
    return url + "?" + urlencode({"from": ref}) if note else url


@pages.get("/c/<path:name>")
def short_card(name: str):
    """/c/<card name> and /c/<card name>/<n>, a card's n-th ruling."""
    kb = _kb()
    if len(name) > 200:  # as /r/ bounds a reference: a 12 KB name was echoed ten times in a 124 KB page
        return error_page(400, "a card name is at most 200 characters")
    # "/c/tarmo/999999999999" is Tarmogoyf's ruling of that number, which it has not (it was "no card named ...")
    name, _, ruling = name.rpartition("/") if re.search(r"/\d+$", name) else (name, "", "")
    # read as [[name]] is in chat (kb.cardnames): a part of a name or a typo, when only one card fits
    lookup = find_card(kb.store, kb.resolver, name.replace("-", " "))
    card = lookup.card
    if card is None and lookup.candidates:
        names = ", ".join(c.title or c.id for c in lookup.candidates)
        return error_page(404, f"{name!r} fits several cards: {names}; add a word", query=name)
    if card is None:
        return error_page(404, f"no card named {name!r}", query=name)
    if ruling:
        if kb.store.get(f"{card.id}/{ruling}") is None:
            return error_page(404, f"{card.title} has no ruling {ruling[:12]}", query=card.title)
        return redirect(record_url(f"{card.id}/{ruling}"), code=302)
    return redirect(record_url(card.id), code=302)


@pages.get("/api")
def api_reference():
    """The API reference for people, rendered from the same OpenAPI document as /api/openapi.json."""
    from web.openapi import spec

    kb = _kb()
    if not prefers_json():
        # Made once per build and kept, as /keywords: ~5 ms of CPU a request, the same page every time (the site's
        # address, which the reference quotes, filled in per request)
        kept = kept_page((kb, "page:api"))
        if kept is not None:
            return kept
    return render_page("api.html", title="API reference",
                       description="The JSON API: endpoints, parameters and answers.",
                       alternate="/api/openapi.json", spec=spec(BASE_MARK), twin=spec(public_url()),
                       examples={"q": "nut+counters", "ref": "rule+115"}, once=(kb, "page:api", "/api"))


@pages.app_template_filter("code")
def _code_filter(value: str) -> Markup:
    """`backticks` to <code>, everything escaped."""
    return Markup(re.sub(r"`([^`]+)`", r"<code>\1</code>", _html.escape(value or "", quote=False)))


@pages.get("/openapi.json")
def openapi_json():
    """Where clients look for an OpenAPI document first; it is served under /api."""
    return redirect("/api/openapi.json", code=301)


@pages.get("/<slug>/glossary")
def glossary(slug: str):
    """A document's glossary, alphabetical, each entry whole with its references linked as its own page links them."""
    kb = _kb()
    if prefers_json() and D.doc_meta(kb, slug.lower()) is not None:
        # the twin, as /api/documents/<slug>/glossary keeps it (made per request here: ~15 ms for the official
        # rules', ungated)
        return A.glossary(slug.lower())
    if not prefers_json():
        # Made once per build and kept: its data (815 references as JSON, ~10 ms) is not made again per request.
        kept = kept_page((kb, f"glossary:{slug.lower()}"))  # one look: a page pushed out after a first look was
        if kept is not None:  # then kept as the empty page the second look's renderer made
            return kept
    try:
        data, extra = D.glossary_data(kb, slug.lower())
    except NotFound as exc:
        return error_page(404, exc.description or "no glossary", query=f"{slug} glossary")
    title = data["document"]["title"]
    slug = data["document"]["slug"]
    records = kb.store.records

    def entry_html(i: int) -> Markup:  # called by the template, so only when the page is rendered (once per build)
        r = extra["entries"][i]
        return render_text(r.text or "", [x for x in r.refs if x.field == "text"], records)

    return render_page("glossary.html", title=f"Glossary — {title}",
                       description=f"{title}: {len(data['entries'])} glossary entries, alphabetical",
                       alternate=f"/api/documents/{slug}/glossary", data=data, twin=data, entry_html=entry_html,
                       once=(kb, f"glossary:{slug}", f"/{slug}/glossary"))


@pages.get("/opensearch.xml")
def opensearch():
    xml = render_template("opensearch.xml", base=public_url(), loaded=_loaded(_kb()))
    return Response(xml, mimetype="application/opensearchdescription+xml")


@pages.get("/<path:record_id>")
def record(record_id: str):
    kb = _kb()
    record_id = record_id.strip("/").lower()
    if prefers_json() and (D.doc_meta(kb, record_id) is not None or kb.store.get(record_id) is not None):
        # The twin itself, as /api/documents/<slug> or /api/records/<id> answers (made once per build there).
        return A.document(record_id) if D.doc_meta(kb, record_id) is not None else A.record(record_id)
    if D.doc_meta(kb, record_id) is not None:
        # Two levels (chapters and sections); a section's page reads as the document (its rules with their
        # text). Rendered once per build, like record pages: the official rules' contents in about a millisecond.
        def contents() -> str:
            doc, extra = D.document_data(kb, record_id, depth=2)
            return render_template(
                "document.html", title=doc["title"], status=200, canonical=BASE_MARK + record_url(record_id),
                description=f"{doc['title']}, {doc.get('version') or ''}: table of contents",
                alternate=f"/api/documents/{record_id}", doc=doc, reading=_whole_document(kb, extra["reading"]),
                asides_html=lambda r: asides(r, kb.store.records))

        return _once((kb, "contents:" + record_id), contents)
    r = kb.store.get(record_id)
    if r is None and record_id.startswith("keywords/") and kb.store.get("keywords/" + slugify(record_id[9:])):
        # /keywords/first strike, /keywords/First_Strike: the keyword's page (its address spells it first-strike)
        return redirect(record_url("keywords/" + slugify(record_id[9:])), code=302)
    if r is None and record_id.startswith(("api/", "discord/")):
        from web.app import methods_of, no_api_endpoint

        # GET /api/linkify or /discord/interactions: the endpoint is there, for another method (Discord's was a
        # 404 page, "no record 'discord/interactions'", suggesting rule 613)
        if methods_of("/" + record_id):
            raise MethodNotAllowed()
        return no_api_endpoint("/" + record_id)
    if r is None and request.path != request.path.lower():
        lowered = _own_page_in_lower_case()
        if lowered is not None:
            return redirect(lowered, code=308)
    if r is None:
        typed = request.view_args["record_id"].strip("/") if request.view_args else record_id
        if len(typed) <= 200 and (kb.resolver.resolve(typed).matches or _dated_reference(typed)):
            # "/907.4b" typed at the site root: any reference as a path goes to its record (or the choice page).
            return redirect("/r/" + quote(typed, safe=""), code=302)
        # The last path segment is what the reader meant ("the-metamorf" under treachery/cards).
        message, nearest = D.missing(kb, record_id)
        return error_page(404, message, query=record_id.rsplit("/", 1)[-1].replace("-", " "), nearest_rules=nearest)
    # A record page depends only on the build and the record: rendered once, with a mark where the
    # site's address goes (KB_PUBLIC_URL, else the Host asked for), filled in per request. Keyed by
    # anything a client chooses (query strings, Host headers), the cache grew without bound.
    # The rename note ("115 was renamed 116", after /r/115) goes in per request too.
    return _once((kb, r.id), lambda: _record_page(kb, r, BASE_MARK, BASE_MARK + record_url(r.id)),
                 note=_rename_note(kb, r, request.args.get("from")))


def _own_page_in_lower_case() -> str | None:
    """The URL of the site's own page (not a record) this request's path names in lower case, with its query:
    /CR/ALL, /cr/702.19b/HISTORY, /SEARCH?q=x. A record's id is read in any case (/CR/702.19B is /cr/702.19b), so
    these came here and were "no record 'cr/all'", of a page that is there."""
    lowered = request.path.lower()
    if lowered.startswith("//"):  # never a Location another site's ("//example.com/search")
        return None
    try:
        endpoint, _ = current_app.url_map.bind("localhost").match(lowered, method="GET")
    except HTTPException:  # no page, or the router's own redirect (a slash): the 404 as before
        return None
    if endpoint == request.endpoint:
        return None
    # the query's bytes as sent, those a URL may not hold as themselves %XX ("%" kept: its escapes are the client's):
    # read as latin-1 and written back as UTF-8, "?q=é" (its UTF-8 bytes, as curl sends it) became "?q=%C3%83%C2%A9"
    query = quote(request.query_string, safe="/?:@!$&'()*+,;=-._~%")
    return quote(lowered, safe="/@:") + ("?" + query if query else "")


def _rename_note(kb, r, typed: str | None) -> str:
    """After /r/115 (or a search for rule 115): say that 115 was renamed 116, as the API does."""
    if not typed or len(typed) > 200:
        return ""
    res = kb.resolver.resolve(typed)
    if not res.note or r not in res.matches:
        return ""
    return f'<p class="note renamed">{_html.escape(res.note)}</p>'


BASE_MARK = "\ue0f0base\ue0f1"  # private-use characters: never in a document, never in a URL
NOTE_MARK = "\ue0f0note\ue0f1"
PAGE_CACHE_BYTES = 12 * 1024 * 1024  # every record page of the bundled corpus is about 13 MB: the most asked stay


@dataclasses.dataclass(frozen=True)
class _Page:
    """A page rendered once per build, with BASE_MARK (and a record's NOTE_MARK), and its gzip for the one site
    address it was last asked at (``base``): /cr/702's 304 KB took ~7 ms to compress, once per build now."""

    html: str
    base: str = ""
    gz: bytes = b""


def _pages(kb: Opened) -> ByteLRU[_Page]:
    """The build's rendered pages (kb.derived): dropped with the build."""
    return kb.derived.cache("pages", PAGE_CACHE_BYTES, weigh=lambda p: sys.getsizeof(p.html) + len(p.base) + len(p.gz))


def _once(key: tuple[Opened, str], render: Callable[[], str], status: int = 200, note: str = "",
          guard: Callable[[], contextlib.AbstractContextManager] | None = None) -> Response:
    """The page kept under ``key`` (the build, and the page's name in the build's pages; rendered by ``render``
    the first time), with the site's address filled in and ``note`` in a record's note slot; gzipped when the
    client takes it, from the kept gzip when it was made for this address and no note. One gzip a page, the
    address asked last: the Host a client sends (without KB_PUBLIC_URL) must not make more entries, or pages
    would be pushed out of the cache."""
    kept, name = _pages(key[0]), key[1]
    page = kept.get(name)
    if page is None:
        with guard() if guard is not None else contextlib.nullcontext():  # ``guard``: the render's gate (a diff's)
            page = kept.put(name, _Page(render()))
    return _kept(key, page, status, note)


def kept_page(key: tuple[Opened, str]) -> Response | None:
    """The page ``_once`` keeps under ``key``, answered, or None when it is not kept (a diff's page is answered
    from here before its diff is looked at: the diff itself may have left its cache)."""
    page = _pages(key[0]).get(key[1])
    return None if page is None else _kept(key, page, 200, "")


def _kept(key: tuple[Opened, str], page: _Page, status: int, note: str) -> Response:
    response = Response(status=status, mimetype="text/html")
    body, zipped = page_body(key, page, _html.escape(public_url()), note, accepts_gzip())
    if zipped:
        return gzipped(response, body)
    response.set_data(body)
    return response  # gzipped after the request (web.compress) when it carries a note


def page_body(key: tuple[Opened, str], page: _Page, base: str, note: str, gzip_taken: bool) -> tuple[bytes, bool]:
    """A kept page's body for the site address ``base`` (escaped) with ``note``, and whether it is gzipped: from the
    kept gzip when it was made for this address and no note, else filled in (and its gzip kept for this address
    when the client takes gzip)."""
    if gzip_taken and not note and page.gz and page.base == base:
        return page.gz, True
    body = page.html.replace(NOTE_MARK, note).replace(BASE_MARK, base).encode()
    if gzip_taken and not note and len(body) >= MIN_SIZE:
        return _pages(key[0]).put(key[1], dataclasses.replace(page, base=base, gz=gzip_bytes(body))).gz, True
    return body, False


def kept_record_page(kb: Opened, record_id: str) -> _Page | None:
    """The page ``record`` keeps for the record ``record_id`` (web.lane answers it), or None when none is kept."""
    return _pages(kb).get(record_id)


def _record_page(kb, r, host_url: str, url: str) -> str:
    data, extra = D.record_data(kb, r.id)
    doc = data["document"] or {}
    # 300 characters: 704.5j was cut at "This is called the…", before what the rule is called ("legend rule")
    description = preview(r, 300, kb.store.records).split(": ", 1)[-1] + f" — {doc.get('title', r.doc)}, " \
        f"{doc.get('version') or ''}"
    refs_by_field: dict[str, list] = {}
    for ref in r.refs:
        refs_by_field.setdefault(ref.field, []).append(ref)

    def field_html(name: str, text: str, block: bool = True) -> Markup:
        return render_text(text, refs_by_field.get(name, []), kb.store.records, block=block)

    short = data["short_link"]

    def child_html(c) -> Markup:
        return render_text(own_text(c), [x for x in c.refs if x.field == "text"], kb.store.records)

    return render_template(
        "record.html",
        short=short,
        short_url=short and host_url.rstrip("/") + short,
        title=f"{data['label']} — {doc.get('title', r.doc)}",
        description=description,
        canonical=url,
        note_slot=Markup(NOTE_MARK),
        alternate=f"/api/records/{r.id}",
        data=data,
        label=data["label"],
        field_html=field_html,
        children=extra["children"],
        child_html=child_html,
        # a keyword's "in full" list links its references as the rule's own page does ("See rule 510" was plain)
        record_html=lambda record_id: child_html(kb.store.records[record_id]),
        # a note the corpus's tables write ("502.26b (morph note) printed 'face-down' broken ..."), its rules linked
        linked=lambda text: Markup(linkify(kb, text, fmt="html")["text"]),
        asides_html=lambda c: asides(c, kb.store.records),
        chat=f"{data['chat']} {host_url.rstrip('/')}{short or data['url']}",  # the short link, as chat shares it
    )


def asides(r, records) -> Markup:
    """A record's examples, then its commentary, as the document prints them after its text and as its own page
    shows them: a page reading the rules below it (/cr/702.19, /uncommander/token-cards) left them out."""
    out = [f'<div class="{kind}">{render_text(text, [x for x in r.refs if x.field == f"{field}[{i}]"], records)}</div>'
           for kind, field, texts in (("example", "examples", r.examples), ("commentary", "commentary", r.commentary))
           for i, text in enumerate(texts)]
    return Markup("".join(out))


def _whole_document(kb, whole: list[tuple]) -> list[tuple]:
    """(record, depth, label, body HTML) for every record of a document read as one long page."""
    store = kb.store
    return [(r, depth, store.label(r),
             render_text(body, [x for x in r.refs if x.field == "text"], store.records) if body else "")
            for r, depth, body in whole]


def error_page(status: int, message: str, query: str | None = None, nearest_rules=()):
    """A helpful error page: the message, the nearest records and a search box.

    A client that asks for JSON, or for anything under /api/ (which no page serves), gets the
    API's one error shape instead.
    """
    if request.path.startswith("/api/") or prefers_json():
        from web.app import error_response

        # the API's codes: "a card name is at most 200 characters" said code "error"
        code = {400: "bad_request", 404: "not_found"}.get(status, "error")
        return error_response(status, code, message)
    nearest: list = []
    if status == 404 and query:
        # a search, as costly as /search's, on any path: only with a slot of the costly gate free at once (a flood of
        # made-up paths ran ~16 ms of search each outside the gate, and held a record page's p50 from 1 ms to 33 ms)
        with costly_if_free() as free:
            try:
                nearest = _kb().searcher.search(query[:200], limit=5).hits if free else []
            except Exception:  # the 404 page must render even when the query cannot run
                nearest = []
    if nearest_rules:  # the page lists them as links; JSON says them in its message
        message = message.split("; the nearest: ")[0]
    return render_page("error.html", title=f"{status} — {message}", description=message, alternate="/api/documents",
                       status=status, message=message, nearest_rules=nearest_rules, nearest=nearest, query=query or "")
