"""The OpenAPI description of the JSON API (served at /api/openapi.json, and as a page at /api).

The conventions every endpoint shares (snippets are HTML, ``page`` vs
``offset``, which URLs are relative and which absolute) live here once, in
``info.x-conventions`` and the field descriptions, so the JSON and the page
say the same thing.
"""
from __future__ import annotations

from collections.abc import Sequence

from kb.search import MAX_LIMIT, MAX_OFFSET, MAX_QUERY

__all__ = ["spec", "CONVENTIONS"]

SNIPPET = ("HTML, not text: the passage that matched (the record's text, or its example or commentary that holds "
           "more of the query's words, then starting \"Example:\"), escaped, with <mark> around the words that "
           "matched. "
           "Insert it as HTML; do not escape it again.")
RELATIVE = "a path relative to the server (\"/treachery/907.4b\"); join it to the server's address"
ABSOLUTE = "a message is pasted elsewhere, so its links carry the server's address"
# a 2007 ruling resting on a rule changed since (kb.obsolete); a $ref takes no sibling, so null is said around it
OBSOLETE = {"nullable": True, "allOf": [{"$ref": "#/components/schemas/Obsolete"}]}

CONVENTIONS = [
    "Errors: every 4xx is {\"error\": {\"code\": ..., \"message\": ...}}; the message is for people.",
    "Snippets: `snippet` in search results is " + SNIPPET,
    "Paging: `limit` results per answer; skip with `offset` (results to skip) or `page` (1-based pages of "
    "`limit`). Given both, `page` wins. `total` counts every match; a page past the last answers no results, "
    "with `pagination.past_end`.",
    "URLs: `url` fields in records, search results, resolve and autocomplete are relative paths "
    "(\"/treachery/907.4b\"); linkify's are absolute, since " + ABSOLUTE + ". External links "
    "(the official rules while they are not loaded) are absolute.",
    "Cross-origin: GET endpoints send Access-Control-Allow-Origin: *; POST /api/linkify stores nothing.",
    "Twins: every page links its JSON twin (rel=alternate), which carries everything the page shows; the page's "
    "own URL asked with Accept: application/json answers the same. A link to a record is {id, label, url} "
    "everywhere; lists add what they show.",
]


_PATH_PARAMS = ("id", "slug", "day", "number", "span")


# The history endpoints answer on a server started with the official releases; a 404 otherwise.
WITH_HISTORY = " (with the rules history loaded: kb serve --cr-history DIR; a 404 otherwise)"

# What the server enforces of a parameter, said in the schema (a client's validator then agrees with the server):
# by the path it belongs to and its name.
_BOUNDS: dict[tuple[str, str], dict] = {
    ("search", "q"): {"maxLength": MAX_QUERY},
    ("search", "limit"): {"minimum": 1, "maximum": MAX_LIMIT},
    ("search", "offset"): {"minimum": 0, "maximum": MAX_OFFSET},
    ("search", "page"): {"minimum": 1, "maximum": 999_999_999},  # nine digits: web.data.int_arg
    ("resolve", "ref"): {"minLength": 1, "maxLength": 200},
    ("autocomplete", "q"): {"maxLength": 100},
}


def _get(summary: str, params: Sequence[tuple[str, str, bool]] = (), schema: str = "Object", bounds: str = "") -> dict:
    return {
        "get": {
            "summary": summary,
            "parameters": [
                {
                    "name": n,
                    "in": "path" if n in _PATH_PARAMS else "query",
                    "required": req or n in _PATH_PARAMS,
                    "description": d,
                    "schema": {"type": "integer" if n in ("limit", "offset", "page") else "string",
                               **_BOUNDS.get((bounds, n), {})},
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
            "description": "Every page has a JSON twin carrying everything the page shows; errors are "
                           "{\"error\": {\"code\", \"message\"}}.",
            "x-conventions": CONVENTIONS,
        },
        "servers": [{"url": base_url}],
        "paths": {
            "/api/health": _get("Liveness, the package version and the build being served"),
            "/api/search": _get(
                "Search rules, cards, rulings and notes",
                [
                    (
                        "q",
                        "query: a rule reference, a card name or words; doc:/kind: filters and \"phrases\" allowed;"
                        " none (or only spaces) answers no results, as the search page's empty box shows help",
                        False,
                    ),
                    ("doc", "document slug", False),
                    ("kind", "record kind", False),
                    ("limit", "results per page, 1-100 (default 10)", False),
                    ("offset", "results to skip, 0-10000 (default 0)", False),
                    ("page", "1-based page of `limit` results; when given, it sets offset = (page - 1) * limit", False),
                ],
                "SearchResults", "search",
            ),
            "/api/records/{id}": _get(
                "One record, in full", [("id", "record id, e.g. treachery/907.4b", True)], "Record"
            ),
            "/api/resolve": _get(
                "What a reference means",
                [("ref", "any reference form", True), ("doc", "the document the reader is in", False)],
                "Resolution", "resolve",
            ),
            "/api/documents": _get("Every document with its record counts", schema="Documents"),
            "/api/documents/{slug}": _get(
                "A document's table of contents (`contents`) and, up to 1,500 records, its whole text (`reading`)",
                [("slug", "document slug", True)]),
            "/api/documents/{slug}/glossary": _get(
                "A document's glossary, alphabetical: every entry whole, with its references (`entries`)",
                [("slug", "document slug, e.g. cr", True)]),
            "/api/documents/{slug}/records": _get(
                "Every record of a document in reading order (the total in X-Total-Count; with limit, the next"
                " slice in a Link header)",
                [("slug", "document slug", True), ("limit", "at most this many records (default: all)", False),
                 ("offset", "skip this many first", False)],
                "Records",
            ),
            "/api/keywords": _get("Every keyword with its definitions", schema="Array"),
            "/api/autocomplete": _get("Up to 10 completions (none for an empty q)",
                                      [("q", "what has been typed", False)],
                                      "Array", "autocomplete"),
            "/api/openapi.json": _get("This description"),
            "/api/cr@{day}/{number}": _get(
                "An official rule as it stood in the release in force on a day (with where it is now; `cites`: the "
                "rules its text cites, {text, url}, as they stood that day; `gap`: {next, days} when the day falls "
                "after its release in a stretch of more than 150 days before the next release loaded, where a "
                "release not loaded may have changed the rule, else null)" + WITH_HISTORY,
                [("day", "an ISO date, e.g. 2016-07-22", True),
                 ("number", "a rule number, e.g. 716.2; a number a release printed twice names its second copy with "
                            "-2 (702.175-2 in 2024-09-20), and each copy lists the other in printed_twice", True)],
            ),
            "/api/cr/{number}/history": _get(
                "Every release span of a current official rule, with word-level changes and former numbers"
                + WITH_HISTORY,
                [("number", "a current rule number, e.g. 727.2", True)],
            ),
            "/api/diff/cr/{span}": _get(
                "Added, removed, changed and moved official rules between the releases in force on two days"
                + WITH_HISTORY,
                [("span", "two ISO dates, e.g. 2026-06-19..2026-08-07", True)],
            ),
            "/api/cr/releases": _get("Every official release loaded, with its encoding, line endings and slips"
                                       + WITH_HISTORY),
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
                        "total": {"type": "integer", "description": (
                            "the results worth showing, every page together: the records answering by reference, "
                            "card name or title, then the full-text matches scoring at least 0.35 of the best one "
                            "(docs/search-behaviour.md); facets count the same records")},
                        "matched": {"type": "integer", "description": (
                            "every record sharing a word with the query (total's records and those below the "
                            "relevance floor), for a measure of how common its words are")},
                        "nearest": {"type": "boolean", "description": (
                            "no rule has the number asked (the note says so): the results are the nearest "
                            "numbers that exist, and nothing else")},
                        "offset": {"type": "integer", "description": "results skipped before this page"},
                        "limit": {"type": "integer", "description": "results per page"},
                        "redirect": {"type": "string", "nullable": True, "description": (
                            "the one record a reference or an exact card name means (the page goes there); "
                            + RELATIVE)},
                        "matched_by": {"type": "string", "enum": ["reference", "card", "title", "text"],
                                       "description": "what answered first: a reference, a card name, a title, "
                                                      "or the words"},
                        "results": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {
                                    **{k: {"type": "string"} for k in ("id", "doc", "kind")},
                                    # a keyword page or a card has no number; a sub-rule, a ruling no title
                                    **{k: {"type": "string", "nullable": True} for k in ("number", "title")},
                                    "document": {"type": "string", "description": "the document's title"},
                                    "version": {"type": "string",
                                                "description": "the document's version and effective date"},
                                    "snippet": {"type": "string", "description": SNIPPET},
                                    "url": {"type": "string", "description": RELATIVE},
                                    "label": {"type": "string", "description": "how a link to the record reads"},
                                    "score": {"type": "number", "description": (
                                        "the ranking score, comparable within one answer only; 1000 for the "
                                        "records that answer by reference, card name or title (matched_by), "
                                        "which come first")},
                                    "asked": {"type": "string", "nullable": True,
                                              "description": "the common question this record answers that the "
                                                             "query matched (corpus/asked), as written there"},
                                    "cites": {"type": "string", "nullable": True, "description": (
                                        "for a search by one rule number: the number this record cites, when it "
                                        "is listed because it does (after the rule and its sub-rules)")},
                                    "obsolete": OBSOLETE,
                                },
                            },
                        },
                        "facets": obj,
                        "did_you_mean": {"type": "string", "nullable": True},
                        "did_you_mean_searched": {"type": "boolean", "description": (
                            "did_you_mean was searched already and the note says so (\"spelling corrected: ...\", "
                            "\"showing results for ...\"): the results are for it, and it is no further offer")},
                        "rewritten": {"type": "object", "nullable": True, "description": (
                            "when the vocabulary rewrote the query: words [{said, means}] (\"wear off\" searched "
                            "as \"removed\"), instead_url (the search with the reader's words quoted, as written) "
                            "and rest (the note's other parts)")},
                        "did_you_mean_url": {"type": "string", "nullable": True,
                                             "description": "the search page for did_you_mean; " + RELATIVE},
                        "pagination": {"type": "object", "description": (
                            "{page, pages, past_end, previous, next, last}: which page of how many, the search "
                            "pages before and after (null at either end) and the last page; a page past the last "
                            "(past_end) has no results, and its previous page is the last")},
                        "filters": {"type": "object", "description": (
                            "per facet (doc, kind), the values the page lists, each {value, label, count, url, "
                            "current}; a filter in use comes first with its way out (value null)")},
                        "note": {"type": "string", "nullable": True,
                                 "description": "what search corrected or rewrote: "
                                                "\"Searching for destroy, the rules' word for kill\""},
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
                        "label": {"type": "string", "description": "the record's heading: \"702.187 Unveil\""},
                        "body": {"type": "string", "description": (
                            "the text the page shows: not a translation line, not a card's rulings joined")},
                        "translation": {"type": "object", "nullable": True,
                                        "description": "{language, words} when the text is only a translation"},
                        "document": {"type": "object", "description": "the document's title, version, effective "
                                                                      "date, counts and url"},
                        "breadcrumbs": {"type": "array", "items": {"$ref": "#/components/schemas/Link"}},
                        "previous": {"$ref": "#/components/schemas/Link"},
                        "next": {"$ref": "#/components/schemas/Link"},
                        "reading": {"type": "array", "description": (
                            "what the page reads below the record, in order: Links with kind, depth, number, title, "
                            "group, text and that text's refs, examples and commentary, and obsolete (a 2007 "
                            "ruling's, see Obsolete)")},
                        "cited_by_links": {"type": "array", "description": (
                            "the records citing this one (`cited_by` has their ids): Links with doc, document "
                            "(its title) and kind")},
                        "definitions": {"type": "array", "description": (
                            "a keyword's definitions: Links with text (the reference as written), number, title, "
                            "doc, document and version")},
                        "used_in": {"type": "string", "description": "a keyword's phrase search; " + RELATIVE},
                        "text_from": {"type": "array", "description": (
                            "a keyword's: the sub-rules of its first definition its text is from (Links with number)")},
                        "in_full": {"type": "array", "description": (
                            "a keyword's: every sub-rule of its first definition, when its text is only some of them "
                            "(Links with number and text)")},
                        "short_link": {"type": "string", "nullable": True,
                                       "description": "the readable short link, /r/907.4b or /c/the-aetherist/2"},
                        "superseded_by": {"type": "object", "nullable": True, "description": (
                            "a rule an older edition of the official rules was quoted with (the 2007 Future Sight "
                            "FAQ's 502.68a), when the official rules are loaded: today's rule of its name, a Link "
                            "(cr/702.15 Lifelink; the glossary's obsolete term leads 212.8 Tribals to 308 Kindreds); "
                            "null otherwise")},
                        "obsolete": OBSOLETE,
                        "card_text_printed": {"type": "boolean", "nullable": True, "description": (
                            "a card's: whether its document prints the card's own text (Treachery's identity cards "
                            "have notes only: false); null for anything but a card")},
                        "type_line_today": {"type": "string", "nullable": True, "description": (
                            "a card's type line as today's rules word it, beside the one its document prints "
                            "(\"Tribal Enchantment -- Rebel Aura\" -> \"Kindred Enchantment — Rebel Aura\"); "
                            "null when the same (corpus/futuresight_obsolete.toml's type_line)")},
                        "chat": {"type": "string", "description": (
                            "what Copy for chat copies, before the short link (or the address): a numbered rule "
                            "with its document's name, \"CR 704.5j\", \"Treachery 907.4b\"")},
                        "corrections": {"type": "array", "description": (
                            "what the document's table of OCR corrections changed in this record's source: line "
                            "(and col_start, col_end in a one-line document), find (as printed), replace, why, and "
                            "links (the pages of the rules why names)")},
                        "releases_url": {"type": "string", "description": (
                            "an official rule's, with the history loaded: the list of every release (beside "
                            "history_url)")},
                        "effective": {"type": "string", "nullable": True,
                                      "description": "the effective date of the record's release or version"},
                    },
                },
                "Records": {"type": "array", "items": {"$ref": "#/components/schemas/Record"}},
                "Obsolete": {
                    "type": "object", "nullable": True,
                    "description": (
                        "a ruling or note of an older document (the 2007 Future Sight FAQ) that rests on a rule "
                        "changed since, as corpus/futuresight_obsolete.toml says: the weightiest change; null "
                        "for any other record (docs/obsolete-rulings.md)"),
                    "properties": {
                        "key": {"type": "string", "description": "the table's entry, \"mana-burn\""},
                        "kind": {"type": "string", "enum": ["rule", "term"], "description": (
                            "rule: the answer no longer holds; term: it holds, in words renamed since")},
                        "term": {"type": "string", "description": "the 2007 words, \"mana burn\""},
                        "since": {"type": "string", "description": "the change's effective date, 2009-07-11"},
                        "release": {"type": "string", "description": "the release it came with, \"Magic 2010\""},
                        "why": {"type": "string", "description": (
                            "one sentence; without the official rules loaded it ends with today's rule number")},
                        "today": {"type": "string", "nullable": True, "description": (
                            "the record id of today's rule (cr/500.5) when the official rules are loaded, else null")},
                        "today_rule": {"type": "string", "description": "today's rule number, 500.5, always"},
                        "today_url": {"type": "string", "nullable": True, "description": "today's rule's page"},
                        "glossary_url": {"type": "string", "nullable": True, "description": "its glossary page"},
                        "glossary": {"type": "string", "nullable": True, "description": (
                            "the official glossary's (Obsolete) entry for the term, when loaded")},
                        "written": {"type": "string", "description": "what the banner calls it, \"2007 ruling\""},
                        "also": {"type": "array", "description": "the other changes it rests on, the same shape"},
                    },
                },
                "Link": {
                    "type": "object",
                    "nullable": True,
                    "description": "a link to a record, the same everywhere; lists add what they show",
                    "required": ["id", "label", "url"],
                    "properties": {"id": {"type": "string"}, "label": {"type": "string"},
                                   "url": {"type": "string", "description": RELATIVE}},
                },
                "Resolution": {
                    "type": "object",
                    "required": ["ref", "matches", "note"],
                    "properties": {
                        "ref": {"type": "string"},
                        "matches": {"type": "array",
                                    "description": "records, each {id, url, title, doc, document, effective, "
                                                   "summary}; url " + RELATIVE + "; for a dated reference "
                                                   "(\"702.19b@2024-01-01\"), each rule as it stood then: {id: "
                                                   "null, doc, number, date, effective, url, title, summary, now, "
                                                   "now_url}"},
                        "suggestions": {"type": "array", "description": (
                            "records near a reference that matched nothing, each {id, url, title, doc, document}")},
                        "effective": {"type": "string", "nullable": True,
                                      "description": "for a dated reference, the release it was read in"},
                        "gap": {"type": "object", "nullable": True,
                                "description": "for a dated reference whose day falls after its release in a stretch "
                                               "of more than 150 days before the next release loaded: {next, days}"},
                        "what": {"type": "string",
                                 "description": "what the choice page says: \"702.187 is in 2 documents\""},
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
                    "required": ["text", "links", "ambiguous", "not_found", "unresolved"],
                    "properties": {
                        "text": {"type": "string", "description": "the message with links, in the format asked for"},
                        "links": {
                            "type": "array",
                            "description": "each {match, id, url, start, end, note, title, document, summary}: "
                                           "note is what /api/resolve notes of the reference, null when nothing "
                                           "(\"CR 907.4b\": no rule 907.4b in the official rules, the Treachery "
                                           "rule shown; \"rule 115\" of Treachery: renamed 116); url is "
                                           "absolute (" + ABSOLUTE + "); start and end count Unicode code points "
                                           "of text, not UTF-16 units; title, document and summary (the record's "
                                           "first 200 characters) are what /api/resolve says of it, null for a "
                                           "link to no one record (id null: a dated citation, whose url opens the "
                                           "rule as it stood, a range, a number two documents use)",
                        },
                        "ambiguous": {
                            "type": "array",
                            "description": "each [[name]] that fits several cards, left as written: "
                                           "{match, start, end, note, candidates: [{id, title, url}]}",
                        },
                        "not_found": {
                            "type": "array", "items": {"type": "string"},
                            "description": "each [[name]] that fits no card (nor a rule), left as written: the name "
                                           "between the brackets, once each, in the order written "
                                           "(\"[[The Abyss]]\" -> \"The Abyss\"), for a bot to say it was not found",
                        },
                        "unresolved": {
                            "type": "array", "items": {"type": "string"},
                            "description": "each rule reference no loaded document has (\"rule 999.9\"), left as "
                                           "written, once each, in the order written",
                        },
                        "note": {
                            "type": "string", "nullable": True,
                            "description": "set when the text names more than 200 distinct references or cards: "
                                           "the first 200 are looked up and linked, the rest left as written",
                        },
                    },
                },
            }
        },
    }
