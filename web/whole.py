"""The whole official rules on one page: ``/cr/all`` (and ``/cr@DATE/all`` with the rules' history loaded).

Judges Ctrl-F Yawgatog's single hyperlinked page of the rules. This is ours: every rule of the loaded release with
its examples, then its glossary, each rule under an anchor of its number (``/cr/all#702.19b``), every reference a
link within the page. About 4 MB of HTML: rendered once per build, on first request (a second or two), and kept
with the opened build (``kb.kbase.Opened.derived``) with its gzip, so that every later request is a copy from
memory. The page carries no address a client chose: its canonical URL is KB_PUBLIC_URL's, else relative.
"""
from __future__ import annotations

import gzip
import hashlib
import re
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, current_app, render_template, request
from markupsafe import Markup, escape
from werkzeug.exceptions import NotFound

from kb.kbase import Opened
from kb.refs import number_order
from web import data as D
from web.app import Response
from web.compress import accepts_gzip, gzip_bytes, gzipped
from web.history import _dated_text, _history, _in_force
from web.render import render_inline, render_text

__all__ = ["whole_pages"]

whole_pages = Blueprint("whole", __name__)

# a link to a record of the official rules, which is on the page: its anchor instead ("/cr/704.5j" -> "#704.5j")
_TO_RULE = re.compile(r'href="/cr/(?!all")([^"#?]+)"')
_TO_DATED = re.compile(r'href="/cr@(\d{4}-\d{2}-\d{2})/([^"#?/]+)"')
# a range's choice page ("603.7d–f"): its first rule, on the page
_TO_RANGE = re.compile(r'href="/r/(\d{3}(?:\.\d{1,3}[a-z]{0,2})?)(?:%E2%80%93|-)[^"]*?'
                       r'(?:\?doc=cr|%40\d{4}-\d{2}-\d{2})"')


@dataclass(frozen=True)
class WholePage:
    """One rendering of the whole rules, kept gzipped only (about 1 MB of the 4 MB of HTML: with the history, one a
    release asked for), and the validator that names it."""

    gz: bytes
    etag: str


def _kb() -> Opened:
    return current_app.extensions["kb"].current()


def _base() -> str:
    """The site's configured address (KB_PUBLIC_URL), never the Host a client sent: the page is kept for every
    client."""
    return str(current_app.config.get("KB_PUBLIC_URL") or "").rstrip("/")


def _depths(records: dict[str, Any], ids: list[str], parent_of) -> dict[str, int]:
    """Each record's depth below its chapter (a chapter 0, a section 1, a rule 2, ...), parents read first."""
    depth: dict[str, int] = {}
    for rid in ids:
        parent = parent_of(records[rid])
        depth[rid] = depth[parent] + 1 if parent in depth else 0
    return depth


def _label(label: str) -> Markup:
    """A rule's label as the ``text`` filter renders it, without a Markdown pass for the labels that have no markup
    (every official one: "702.19 Trample"); a third of the page's first rendering went to 4,000 such passes."""
    return render_inline(label) if "_" in label or "{" in label else escape(label)


def _rules(kb: Opened) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(rules, glossary entries) of the loaded official rules, in the document's order, each with its HTML."""
    store = kb.store
    records = store.records
    ids = [rid for rid in store.order.get("cr", []) if records[rid].kind != "glossary"]
    depth = _depths(records, ids, lambda r: r.parent)
    rules = []
    for rid in ids:
        r = records[rid]
        text = D.body_text(r, records) or r.rules_text or ""
        parts = [str(render_text(text, [x for x in r.refs if x.field == "text"], records))] if text else []
        parts += [f'<div class="example">{render_text(ex, [x for x in r.refs if x.field == f"examples[{i}]"], records)}'
                  f"</div>" for i, ex in enumerate(r.examples)]
        rules.append({"anchor": rid.split("/", 1)[1], "number": r.number, "title": r.title, "kind": r.kind,
                      "label": _label(store.label(r)), "depth": depth[rid], "html": Markup("".join(parts))})
    glossary = [{"anchor": r.id.split("/", 1)[1], "label": _label(store.label(r)),
                 "html": render_text(r.text or "", [x for x in r.refs if x.field == "text"], records)}
                for r in sorted((r for r in store.by_doc("cr") if r.kind == "glossary"),
                                key=lambda r: (r.title or r.id).casefold())]
    return rules, glossary


def _dated_rules(kb: Opened, day: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(the release in force on ``day``, its rules in order with their HTML, references linked as they stood)."""
    history = _history(kb)
    release = _in_force(history, day)
    rows = sorted(history.release_rules(release["index"]).values(), key=lambda row: number_order(row["number"]))
    spans = [history._span(row) for row in rows]  # noqa: SLF001 -- one span per row, as History reads its own
    by_id = {s["id"]: s for s in spans}
    depth = _depths(by_id, [s["id"] for s in spans], lambda s: s["parent"])
    effective = release["effective"]
    rules = []
    for s in spans:
        parts = [f"<p>{_dated_text(s['text'], effective)}</p>"] if s["text"] else []
        parts += [f'<div class="example"><p>{_dated_text(ex, effective)}</p></div>' for ex in s["examples"]]
        label = " ".join(filter(None, [s["number"], s["title"]]))
        rules.append({"anchor": s["id"].split("/", 1)[1], "number": s["number"], "title": s["title"],
                      "kind": s["kind"], "label": _label(label), "depth": depth[s["id"]],
                      "html": Markup("".join(parts))})
    return release, rules


def _page(html: str) -> WholePage:
    body = _TO_RANGE.sub(r'href="#\1"', _TO_DATED.sub(r'href="#\2"', _TO_RULE.sub(r'href="#\1"', html))).encode()
    return WholePage(gzip_bytes(body), '"' + hashlib.sha256(body).hexdigest()[:20] + '"')


def _current_page(kb: Opened) -> WholePage:
    meta = D.doc_meta(kb, "cr")
    if meta is None:
        raise NotFound("the official rules are not loaded on this server (kb build --cr FILE)")
    rules, glossary = _rules(kb)
    title = f"{meta['title']}, the whole text"
    return _page(render_template(
        "cr_all.html", title=title, status=200, canonical=_base() + "/cr/all", alternate="/api/documents/cr",
        description=f"Every rule of the {meta['title']} ({meta.get('version') or ''}) and its glossary, on one page",
        doc=meta, rules=rules, glossary=glossary, effective=meta.get("effective"), dated=None))


def _dated_page(kb: Opened, day: str) -> WholePage:
    release, rules = _dated_rules(kb, day)
    meta = D.doc_meta(kb, "cr") or {"title": "Comprehensive Rules", "slug": "cr", "url": "/cr"}
    effective = release["effective"]
    return _page(render_template(
        "cr_all.html", title=f"Comprehensive Rules as of {effective}, the whole text", status=200,
        canonical=_base() + f"/cr@{effective}/all", alternate="/api/cr/releases",
        description=f"Every rule of the Comprehensive Rules effective {effective}, on one page",
        doc=meta, rules=rules, glossary=None, effective=effective, dated=release))


def _send(page: WholePage) -> Response:
    response = Response(mimetype="text/html")
    # The gzipped bytes are another representation than the plain ones, with a validator of their own (RFC 9110
    # 8.8.3): with one ETag for both, a cache holding the gzipped page that revalidates it for a client without gzip
    # was told 304 and handed that client bytes it cannot read.
    zipped = accepts_gzip()
    etag = page.etag[:-1] + '-gzip"' if zipped else page.etag
    response.headers["ETag"] = etag
    if request.if_none_match.contains(etag.strip('"')):
        response.status_code = 304
        return response
    if zipped:
        return gzipped(response, page.gz)
    response.set_data(gzip.decompress(page.gz))  # a client without gzip is rare: its copy is made per request
    return response


@whole_pages.get("/cr/all")
def cr_all():
    kb = _kb()
    return _send(kb.derived.get("whole:cr", lambda: _current_page(kb)))


@whole_pages.get("/cr@<day>/all")
def cr_all_at(day: str):
    kb = _kb()
    release = _in_force(_history(kb), day)  # the release a day reads (a bad day is a 400, none in force a 404)
    effective = release["effective"]
    return _send(kb.derived.get(f"whole:cr@{effective}", lambda: _dated_page(kb, effective)))
