"""The JSON API: a twin for every page (the ``data`` half of its data function), plus resolve, autocomplete
and linkify.

Every error has one shape, ``{"error": {"code": ..., "message": ...}}``, from
the app's error handler. GET endpoints allow any origin (bots and other
sites call them; web/app.py sends the header); the one POST (linkify) computes and stores nothing.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote, urlencode

from flask import Blueprint, Flask, Response, current_app, jsonify, request
from werkzeug.exceptions import BadRequest, UnsupportedMediaType

from kb.cache import ByteLRU
from kb.kbase import Opened
from kb.linkify import MAX_TEXT, linkify
from web import __version__
from web import data as D
from web.app import public_url
from web.compress import MIN_SIZE, accepts_gzip, gzip_answer, gzip_bytes, gzipped
from web.gate import costly_work
from web.openapi import spec

__all__ = ["api", "FAST", "health_data", "search_answer"]

api = Blueprint("api", __name__, url_prefix="/api")


def _kb():
    return current_app.extensions["kb"].current()


def health_data(app: Flask, _args: Mapping[str, str] | None = None) -> dict[str, Any]:
    """/api/health: alive, the package's version, and which build: its id, the corpus digest it was built from, and
    whether it is stale (not built from today's corpus, or not the build ``current`` names) with why."""
    base = app.extensions["kb"]
    kb = base.current()
    built_from = kb.store.manifest.get("corpus_digest")
    want = app.config.get("KB_CORPUS_DIGEST")
    stale = bool(want and built_from != want) or base.fallback_reason is not None
    why = (base.fallback_reason or app.config.get("KB_NOT_REBUILT")) if stale else None
    semantic = kb.searcher.semantic  # None: lexical only (KB_SEMANTIC=0, no model files, or a build without vectors)
    learned = kb.searcher.learned  # None: the hand-tuned ranking alone (KB_RANKER=0, or no weights file)
    cross = kb.searcher.cross  # None: no cross-encoder (KB_CROSS=0, the default, or no model files)
    return {"ok": True, "version": __version__, "build_id": kb.build_id, "built_from": built_from,
            "stale": stale, "stale_reason": why, "records": len(kb.store.records),
            "documents": [d["slug"] for d in kb.store.documents],
            "ranker": learned.version if learned is not None else None, "semantic": semantic is not None,
            "semantic_model": semantic.version if semantic is not None else None,
            "cross_model": cross.version if cross is not None else None}


def search_answer(app: Flask, args: Mapping[str, str]) -> dict[str, Any]:
    """/api/search's answer (web.data.search_data)."""
    return D.search_data(app.extensions["kb"].current(), args)[0]


@api.get("/health")
def health():
    return jsonify(health_data(current_app))


@api.get("/search")
def search():
    return jsonify(search_answer(current_app, request.args))


# The answers web.lane makes without Flask's request machinery, from the same functions as the views above: a GET
# of exactly this path, its query's arguments (each one's first value) -> the JSON answer's object.
FAST: dict[str, Callable[[Flask, Mapping[str, str]], dict[str, Any]]] = {
    "/api/health": health_data, "/api/search": search_answer}


# A record's or a document's twin depends only on the build and the id, and the largest carry everything their
# page shows (/api/records/cr/702: every rule of 702 with its text, about 290 KB and 20 ms to make): made once
# per build, like the pages, and kept within a byte budget.
# Its gzip is kept beside it, made the first time a client takes gzip (/api/records/cr/702: ~6 ms).
TWIN_CACHE_BYTES = 8 * 1024 * 1024


def _twins(kb: Opened) -> ByteLRU[tuple[bytes, bytes]]:
    """The build's kept JSON answers (kb.derived)."""
    return kb.derived.cache("twins", TWIN_CACHE_BYTES, weigh=lambda kept: len(kept[0]) + len(kept[1]))


def _once_per_build(key: str, make) -> Response:
    kb = _kb()
    kept = _twins(kb).get(key)
    if kept is None:  # an unknown id raises its 404 in make(), before anything is kept
        kept = _twins(kb).put(key, ((current_app.json.dumps(make(kb), separators=(",", ":")) + "\n").encode(), b""))
    return _kept_answer(kb, key, kept)


def _kept_answer(kb: Opened, key: str, kept: tuple[bytes, bytes]) -> Response:
    """A JSON answer kept in the build's twins as (body, its gzip or b""): gzipped from what is kept when the client
    takes it."""
    body, gz = kept
    response = current_app.response_class(body, mimetype="application/json")
    if accepts_gzip() and len(body) >= MIN_SIZE:
        if not gz:
            gz = _twins(kb).put(key, (body, gzip_bytes(body)))[1]
        gzipped(response, gz)
    return response


@api.get("/records/<path:record_id>")
def record(record_id: str):
    return _once_per_build("record:" + record_id, lambda kb: D.record_data(kb, record_id)[0])


@api.get("/resolve")
def resolve():
    return jsonify(D.resolve_data(_kb(), request.args.get("ref", ""), request.args.get("doc") or None)[0])


@api.get("/documents")
def documents():
    return jsonify(D.documents_data(_kb())[0])


@api.get("/documents/<slug>")
def document(slug: str):
    return _once_per_build("document:" + slug, lambda kb: D.document_data(kb, slug)[0])


# A document's records as JSON, one encoded record each: a slice is joined from them, so neither the whole
# official rules (3.1 MB, about 150 ms to encode) nor a large slice of them is encoded again per request.
def _record_parts(kb: Opened) -> ByteLRU[tuple[bytes, ...]]:
    return kb.derived.cache("record parts", TWIN_CACHE_BYTES, weigh=lambda parts: sum(map(len, parts)))


@api.get("/documents/<slug>/glossary")
def glossary(slug: str):
    return _once_per_build("glossary:" + slug, lambda kb: D.glossary_data(kb, slug)[0])


@api.get("/documents/<slug>/records")
def document_records(slug: str):
    """Every record of a document in reading order, as an array; ``limit`` and ``offset`` take a slice of it
    (the official rules are about 3 MB whole). Every answer says the total in ``X-Total-Count`` and, when
    there is more, where the next slice is in a ``Link: <...>; rel="next"`` header (both readable from
    any origin)."""
    kb = _kb()
    if D.doc_meta(kb, slug) is None:
        D.document_data(kb, slug)  # raises the 404 with its message
    offset = D.int_arg(request.args.get("offset"), 0, "offset")  # a bad argument is a 400 before any work
    given_limit = D.int_arg(request.args.get("limit"), -1, "limit") if request.args.get("limit") else None
    if offset < 0 or given_limit is not None and given_limit < 0:
        raise BadRequest("limit and offset must be 0 or more")
    parts = _record_parts(kb).get(slug)
    if parts is None:
        dumps = current_app.json.dumps
        parts = _record_parts(kb).put(slug, tuple(
            dumps(D.record_json(r), separators=(",", ":")).encode() for r in kb.store.by_doc(slug)))
    total = len(parts)
    limit = max(total - offset, 0) if given_limit is None else given_limit
    body = b"[" + b",".join(parts[offset:offset + limit]) + b"]\n"
    response = current_app.response_class(body, mimetype="application/json")
    if len(body) >= MIN_SIZE and accepts_gzip():
        if offset == 0 and limit >= total:  # the whole document's gzip is kept (the official rules' 3 MB: 52 ms)
            key, twins = "records.gz:" + slug, _twins(kb)
            gzipped(response, (twins.get(key) or twins.put(key, (b"", gzip_bytes(body))))[1])
        else:  # a slice's, made per request (~50 ms for most of the official rules), takes its turn with searches
            with costly_work():
                gzipped(response, gzip_answer(body))
    response.headers["X-Total-Count"] = str(total)
    response.headers["Access-Control-Expose-Headers"] = "X-Total-Count, Link"
    if limit > 0 and offset + limit < total:
        nxt = urlencode({"offset": offset + limit, "limit": limit})
        response.headers["Link"] = f'</api/documents/{quote(slug)}/records?{nxt}>; rel="next"'
    return response


@api.get("/keywords")
def keywords():
    # every keyword with its definitions and uses, ~110 KB: 14 ms to make (in process, with the official rules),
    # made per request and ungated, so a few clients asking for it again and again slowed everyone's answers
    return _once_per_build("keywords", lambda kb: D.keywords_data(kb)[0])


@api.get("/autocomplete")
def autocomplete():
    q = request.args.get("q", "")
    if len(q) > 100:
        raise BadRequest("q must be at most 100 characters")
    return jsonify(D.autocomplete_data(_kb(), q))


@api.post("/linkify")
def linkify_endpoint():
    if not request.is_json:
        raise UnsupportedMediaType("send a JSON body: {\"text\": \"...\", \"format\": \"markdown\"|\"html\"}")
    body = _json_body()
    if not isinstance(body, dict) or not isinstance(body.get("text"), str):
        raise BadRequest("the JSON body must be an object with a string \"text\"")
    if _has_surrogate(body["text"]):
        # "\ud800" alone is valid JSON but no character: it cannot be answered as UTF-8.
        raise BadRequest("text must be valid Unicode (it contains a lone surrogate escape such as \\ud800)")
    fmt = body.get("format", "markdown")
    if fmt not in ("markdown", "html"):
        raise BadRequest("format must be \"markdown\" or \"html\"")
    if len(body["text"]) > MAX_TEXT:
        raise BadRequest(f"text must be at most {MAX_TEXT} characters")
    kb = _kb()
    answer = linkify(kb, body["text"], fmt, base_url=public_url())
    facts: dict[str | None, dict] = {}  # once per record: a text may cite one rule thousands of times
    for link in answer["links"]:  # what a bot shows beside the link (a reply, a hover), as /api/resolve says it
        if link["id"] not in facts:
            facts[link["id"]] = D.link_facts(kb, kb.store.records.get(link["id"]) if link["id"] else None)
        link.update(facts[link["id"]])
    return jsonify(answer)


def _json_body():
    """The request's JSON, or a 400: '[' * 5000 makes the parser recurse too deep (a RecursionError,
    which Flask's own get_json does not catch)."""
    try:
        return json.loads(request.get_data(cache=True))
    except (ValueError, RecursionError):
        raise BadRequest("the body is not valid JSON (or is nested too deeply)") from None


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


@api.get("/openapi.json")
def openapi():
    return jsonify(spec(public_url()))

