"""gzip for text answers, when the client asks for it (``Accept-Encoding: gzip``).

On a throttled phone network (400 ms round trip, 400 kbps) /cr/702's 304 KB of HTML took 6.5 s; gzipped it is
52 KB. Every HTML, JSON, CSS, JavaScript and XML answer over ``MIN_SIZE`` is compressed here, after the view, with
``Vary: Accept-Encoding``; never a HEAD answer, a 1xx, 204, 206 or 304, nor one already encoded.

What is made once per build is compressed once per build too, next to it within its cache's byte bound (record
and contents pages, glossaries, histories, diffs and the JSON twins: ``gzipped`` with the kept bytes); the rest
(search answers, dated rules) costs ``LEVEL`` per request, or ``FAST_LEVEL`` past ``FAST_ABOVE`` bytes (a slice
of the 3 MB records dump took 52 ms at level 6, 19 ms at level 1).
"""
from __future__ import annotations

import gzip
from typing import TypeVar

from flask import Flask, Response, request
from werkzeug.http import parse_accept_header

__all__ = ["MIN_SIZE", "accepts_gzip", "takes_gzip", "compressible", "gzip_bytes", "gzip_answer", "gzipped",
           "init_app"]

MIN_SIZE = 1024  # below a packet's worth the header and the CPU cost more than they save
LEVEL = 6  # zlib's default: /cr/702 to 52 KB in ~7 ms, a search answer in ~0.05 ms
FAST_LEVEL = 1  # /cr/702 to 67 KB in ~2 ms
FAST_ABOVE = 256 * 1024
_TYPES = {"text/html", "text/css", "text/javascript", "text/plain", "text/xml", "application/javascript",
          "application/json", "application/xml"}


def accepts_gzip() -> bool:
    """The client takes gzip (``Accept-Encoding: gzip``, or ``*``, with a quality above 0); never for HEAD,
    whose headers then say what a plain GET's would."""
    if request.method == "HEAD":
        return False
    return takes_gzip(request.environ.get("HTTP_ACCEPT_ENCODING", ""))


def takes_gzip(accept_encoding: str) -> bool:
    """An ``Accept-Encoding`` header's value takes gzip (werkzeug's reading of it: ``gzip`` or ``*`` with a quality
    above 0)."""
    # werkzeug's quality of "gzip" is above 0 only for an item "gzip" or "*": a header naming neither (none at all,
    # "identity") is answered without parsing it
    if "*" not in accept_encoding and "gzip" not in accept_encoding.lower():
        return False
    return parse_accept_header(accept_encoding)["gzip"] > 0


def compressible(response: Response) -> bool:
    """A text answer: HTML, JSON, CSS, JavaScript, XML (``application/opensearchdescription+xml`` too)."""
    mimetype = response.mimetype or ""
    return mimetype in _TYPES or mimetype.endswith(("+xml", "+json"))


def gzip_bytes(body: bytes, level: int = LEVEL) -> bytes:
    """``body`` gzipped, the same bytes every time (no timestamp in the header)."""
    return gzip.compress(body, compresslevel=level, mtime=0)


def gzip_answer(body: bytes) -> bytes:
    """An answer made per request gzipped: ``LEVEL``, or ``FAST_LEVEL`` past ``FAST_ABOVE`` bytes."""
    return gzip_bytes(body, LEVEL if len(body) <= FAST_ABOVE else FAST_LEVEL)


_R = TypeVar("_R", bound=Response)


def gzipped(response: _R, body: bytes) -> _R:
    """``response`` answering with ``body``, its content gzipped already (kept from an earlier request)."""
    response.set_data(body)
    response.headers["Content-Encoding"] = "gzip"
    response.vary.add("Accept-Encoding")
    return response


def _vary_on_encoding(response: Response) -> None:
    """``Vary: Accept-Encoding`` added to the response's Vary (werkzeug's ``vary.add``, which parsed an absent header
    through a raised KeyError on every answer: a header is made only when there is none)."""
    if any(name.lower() == "vary" for name, _ in response.headers):
        response.vary.add("Accept-Encoding")
    else:
        response.headers.add("Vary", "Accept-Encoding")


def _compress(response: Response) -> Response:
    if not compressible(response):
        return response
    _vary_on_encoding(response)  # the same URL answers both ways: caches must key on it
    status = response.status_code
    if status < 200 or status in (204, 206, 304) or "Content-Encoding" in response.headers \
            or response.direct_passthrough or response.is_streamed or not accepts_gzip():
        return response
    body = response.get_data()
    if len(body) < MIN_SIZE:
        return response
    return gzipped(response, gzip_answer(body))


def init_app(app: Flask) -> None:
    app.after_request(_compress)
