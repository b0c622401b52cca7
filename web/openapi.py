"""The OpenAPI description of the JSON API (served at /api/openapi.json, and as a page at /api).

The conventions every endpoint shares (snippets are HTML, ``page`` vs
``offset``, which URLs are relative and which absolute) live here once, in
``info.x-conventions`` and the field descriptions, so the JSON and the page
say the same thing.
"""
from __future__ import annotations

from collections.abc import Sequence

__all__ = ["spec", "CONVENTIONS"]

SNIPPET = ("HTML, not text: the record's text escaped, with <mark> around the words that matched. "
           "Insert it as HTML; do not escape it again.")
RELATIVE = "a path relative to the server (\"/treachery/907.4b\"); join it to the server's address"
ABSOLUTE = "a message is pasted elsewhere, so its links carry the server's address"

CONVENTIONS = [
    "Errors: every 4xx is {\"error\": {\"code\": ..., \"message\": ...}}; the message is for people.",
    "Snippets: `snippet` in search results is " + SNIPPET,
    "Paging: `limit` results per answer; skip with `offset` (results to skip) or `page` (1-based pages of "
    "`limit`). Given both, `page` wins. `total` counts every match.",
    "URLs: `url` fields in records, search results, resolve and autocomplete are relative paths "
    "(\"/treachery/907.4b\"); linkify's are absolute, since " + ABSOLUTE + ". External links "
    "(the official rules while they are not loaded) are absolute.",
    "Cross-origin: GET endpoints send Access-Control-Allow-Origin: *; POST /api/linkify stores nothing.",
]


_PATH_PARAMS = ("id", "slug", "day", "number", "span")


def _get(summary: str, params: Sequence[tuple[str, str, bool]] = (), schema: str = "Object") -> dict:
    return {
        "get": {
            "summary": summary,
            "parameters": [
                {
                    "name": n,
                    "in": "path" if n in _PATH_PARAMS else "query",
                    "required": req or n in _PATH_PARAMS,
                    "description": d,
                    "schema": {"type": "integer" if n in ("limit", "offset", "page") else "string"},
                }
                for n, d, req in params
            ],
            "responses": {
                "200": {
                    "description": "OK",
                    "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}},
                },
                "4XX": {
                    "description": "a client error",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                },
            },
        }
    }


def spec(base_url: str) -> dict:
    obj = {"type": "object"}
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "Rules knowledge base API",
            "version": "1",
            "description": "Every page has a JSON twin; errors are {\"error\": {\"code\", \"message\"}}.",
            "x-conventions": CONVENTIONS,
        },
        "servers": [{"url": base_url}],
        "paths": {
            "/api/health": _get("Liveness and the build being served"),
            "/api/search": _get(
                "Search rules, cards, rulings and notes",
                [
                    (
                        "q",
                        "query: a rule reference, a card name or words; doc:/kind: filters and \"phrases\" allowed",
                        True,
                    ),
                    ("doc", "document slug", False),
                    ("kind", "record kind", False),
                    ("limit", "results per page, 1-100 (default 10)", False),
                    ("offset", "results to skip, 0-10000 (default 0)", False),
                    ("page", "1-based page of `limit` results; when given, it sets offset = (page - 1) * limit", False),
                ],
                "SearchResults",
            ),
            "/api/records/{id}": _get(
                "One record, in full", [("id", "record id, e.g. treachery/907.4b", True)], "Record"
            ),
            "/api/resolve": _get(
                "What a reference means",
                [("ref", "any reference form", True), ("doc", "the document the reader is in", False)],
                "Resolution",
            ),
            "/api/documents": _get("Every document with its record counts", schema="Documents"),
            "/api/documents/{slug}": _get("A document's table of contents", [("slug", "document slug", True)]),
            "/api/documents/{slug}/records": _get(
                "Every record of a document", [("slug", "document slug", True)], "Records"
            ),
            "/api/keywords": _get("Every keyword with its definitions", schema="Array"),
            "/api/autocomplete": _get("Up to 10 completions", [("q", "what has been typed", True)], "Array"),
            "/api/openapi.json": _get("This description"),
            "/api/cr@{day}/{number}": _get(
                "An official rule as it stood in the release in force on a day (with where it is now)",
                [("day", "an ISO date, e.g. 2016-07-22", True), ("number", "a rule number, e.g. 716.2", True)],
            ),
            "/api/cr/{number}/history": _get(
                "Every release span of a current official rule, with word-level changes and former numbers",
                [("number", "a current rule number, e.g. 727.2", True)],
            ),
            "/api/diff/cr/{span}": _get(
                "Added, removed, changed and moved official rules between the releases in force on two days",
                [("span", "two ISO dates, e.g. 2026-06-19..2026-08-07", True)],
            ),
            "/api/cr/releases": _get("Every official release loaded, with its encoding, line endings and slips"),
            "/api/linkify": {
                "post": {
                    "summary": "Turn a message's rule references and [[Card Names]] into links",
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "required": ["text"],
                                    "properties": {
                                        "text": {"type": "string", "maxLength": 20000},
                                        "format": {"type": "string", "enum": ["markdown", "html"]},
                                    },
                                }
                            }
                        },
                    },
                    "responses": {
                        "200": {
                            "description": "OK",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Linkified"}}},
                        },
                        "4XX": {
                            "description": "a client error",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                        },
                    },
                }
            },
        },
        "components": {
            "schemas": {
                "Object": obj,
                "Array": {"type": "array", "items": obj},
                "Error": {
                    "type": "object",
                    "required": ["error"],
                    "properties": {
                        "error": {
                            "type": "object",
                            "required": ["code", "message"],
                            "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
                        }
                    },
                },
                "SearchResults": {
                    "type": "object",
                    "required": ["query", "total", "results", "facets", "did_you_mean"],
                    "properties": {
                        "query": {"type": "string"},
                        "total": {"type": "integer"},
                        "results": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {
                                    **{k: {"type": "string"} for k in ("id", "doc", "kind", "number", "title")},
                                    "document": {"type": "string", "description": "the document's title"},
                                    "version": {"type": "string",
                                                "description": "the document's version and effective date"},
                                    "snippet": {"type": "string", "description": SNIPPET},
                                    "url": {"type": "string", "description": RELATIVE},
                                },
                            },
                        },
                        "facets": obj,
                        "did_you_mean": {"type": "string", "nullable": True},
                        "note": {"type": "string", "nullable": True,
                                 "description": "what search corrected or rewrote: "
                                                "\"showing results for destroy (for: kill)\""},
                        "searched_for": {"type": "string", "nullable": True,
                                         "description": "the query in the documents' words, when table words "
                                                        "were rewritten"},
                    },
                },
                "Record": {
                    "type": "object",
                    "required": ["id", "doc", "kind", "text", "refs", "children", "cited_by", "source"],
                    "properties": {
                        "url": {"type": "string", "description": RELATIVE},
                        "text": {"type": "string", "description": "plain text; `_italic_` markup of the FAQ kept"},
                        "summary": {"type": "string", "description": (
                            "what a preview shows: the text, or a card's first ruling and their count, or a headed "
                            "rule's first sub-rule when its own text is only a translation line")},
                        "refs": {"type": "array", "description": (
                            "outgoing references {text, target, url, start, end, field, note}; every member of a "
                            "range (\"603.7d–f\") is one, sharing the written span")},
                    },
                },
                "Records": {"type": "array", "items": {"$ref": "#/components/schemas/Record"}},
                "Resolution": {
                    "type": "object",
                    "required": ["ref", "matches", "note"],
                    "properties": {
                        "ref": {"type": "string"},
                        "matches": {"type": "array",
                                    "description": "records, each {id, url, title, doc}; url " + RELATIVE},
                        "note": {"type": "string", "nullable": True,
                                 "description": "what the answer has to say: \"115 was renamed 116 in version 4.0\""},
                    },
                },
                "Documents": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["slug", "title", "version", "effective", "source_url", "counts"],
                    },
                },
                "Linkified": {
                    "type": "object",
                    "required": ["text", "links", "ambiguous"],
                    "properties": {
                        "text": {"type": "string", "description": "the message with links, in the format asked for"},
                        "links": {
                            "type": "array",
                            "description": "each {match, id, url, start, end}; url is absolute (" + ABSOLUTE + ")",
                        },
                        "ambiguous": {
                            "type": "array",
                            "description": "each [[name]] that fits several cards, left as written: "
                                           "{match, start, end, note, candidates: [{id, title, url}]}",
                        },
                    },
                },
            }
        },
    }
