"""The fast lane: the API's most asked answers (``/api/search``, ``/api/health``: ``web.api.FAST``) and the record pages
already rendered made without Flask's request machinery, with the bytes and headers Flask's path gives them.

Flask's own work for one request, whatever the view does (its request and app contexts, the URL map bound and
matched, the session it opens, six signals, a response object whose headers are copied again for the server),
cost ~0.12 ms of CPU for a route that returns fixed bytes, and our hooks ~0.03 ms more: /api/health took 0.15 ms in
process, of which its own work is a few microseconds; an uncached search's web layer was ~0.17 ms around ~0.8 ms of
searching and shaping (docs/serving.md, *Measuring it*).

The lane takes a ``GET`` without a body, with a ``Host`` the app accepts, of

- exactly one of the API's paths: it reads the query's arguments as werkzeug's ``request.args`` does (each one's
  first value), calls the view's own function, writes its JSON as the app's provider does, and adds what the app's
  after-request hooks add to such an answer (``Vary: Accept-Encoding``, gzip when the client takes it, the security
  headers, ``Access-Control-Allow-Origin``). An exception the function raises (a ``400`` for a bad argument, a bug)
  is answered by Flask's own error handlers, in a request context made for it, without doing the work again;
- a record's page (``/cr/702.19``, no query, not asked as JSON) that ``web.pages.record`` rendered and keeps, and
  that the URL map gives to it: the kept page with the site's address filled in, or its kept gzip
  (``web.pages.page_body``, what the view answers with), and the headers the hooks add.

Everything else goes to Flask unchanged: another path or method (``HEAD``, ``OPTIONS``), a body, a refused
``Host``, a page not rendered yet, a debug server's indented JSON. ``tests/test_lane.py`` holds each of the lane's
answers to Flask's, byte for byte and header for header, and shows that Flask dispatched none of them.

It sits inside ``web.gate``'s layers: the gate, the trusted proxies and the last-resort ``Guarded`` are the same for
both paths.
"""
from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from flask import Flask
from werkzeug.exceptions import HTTPException, SecurityError
from werkzeug.wsgi import get_current_url

from web import data as D
from web.app import JSONProvider, host_problem, reads_host
from web.compress import MIN_SIZE, gzip_answer, takes_gzip
from web.pages import kept_record_page, page_body

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication as App, WSGIEnvironment

__all__ = ["Lane"]

Answer = Callable[[Flask, Mapping[str, str]], Any]


def query_args(query: str) -> dict[str, str]:
    """A query string's arguments as werkzeug's ``request.args.get`` reads them: each one's first value, the string's
    bytes as UTF-8 (a UnicodeError when they are not), ``+`` a space, undecodable percent-escapes left as they are."""
    args: dict[str, str] = {}
    for name, value in parse_qsl(query.encode("latin-1").decode(), keep_blank_values=True,
                                 errors="werkzeug.url_quote"):
        args.setdefault(name, value)
    return args


class Lane:
    """``routes`` (path -> the function that makes its answer's object) answered before Flask; the rest to ``app``
    (Flask's own WSGI app, ``flask.wsgi_app``)."""

    def __init__(self, flask: Flask, app: App, routes: Mapping[str, Answer], security: Mapping[str, str]):
        self.flask, self.app, self.routes = flask, app, dict(routes)
        # web.app's _headers adds the security headers and, to a GET of the API, Access-Control-Allow-Origin;
        # web.compress adds Vary (JSON is compressed when asked)
        self.security = list(security.items())
        self.headers = [*self.security, ("Access-Control-Allow-Origin", "*"), ("Vary", "Accept-Encoding")]
        # bound once, not per request (Flask binds one per request); matching reads it only
        self.urls = flask.url_map.bind("localhost")

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") != "GET" or environ.get("CONTENT_LENGTH", "0") != "0" \
                or "HTTP_TRANSFER_ENCODING" in environ or host_problem(environ) is not None:
            return self.app(environ, start_response)
        answer = self.routes.get(environ.get("PATH_INFO", ""))
        if answer is None:
            return self._page(environ, start_response)
        json = self.flask.json
        if not isinstance(json, JSONProvider) or not json.is_compact():
            return self.app(environ, start_response)
        try:
            args = query_args(environ.get("QUERY_STRING", ""))
        except (UnicodeError, ValueError):  # Flask reads it its own way (and says what is wrong)
            return self.app(environ, start_response)
        try:
            body = json.compact_bytes(answer(self.flask, args))
        except Exception as exc:  # noqa: BLE001 -- answered by the app's error handlers, as in Flask's path
            return self._flask_answers(exc, environ, start_response)
        finally:
            self.flask.extensions["kb"].release()  # the teardown's: this thread's searcher goes back
        gzipped = len(body) >= MIN_SIZE and takes_gzip(environ.get("HTTP_ACCEPT_ENCODING", ""))
        if gzipped:
            body = gzip_answer(body)
        start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body))),
                                  *self.headers, *([("Content-Encoding", "gzip")] if gzipped else [])])
        return [body]

    def _page(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        """A record's page that ``web.pages.record`` rendered and keeps (the rest of the site's pages to Flask): the
        kept HTML with the site's address filled in, or its kept gzip, as ``web.pages._kept`` answers it."""
        path = environ.get("PATH_INFO", "")
        # a query (?from= adds a note), JSON asked for (the twin), no Host (the server's own address) or one werkzeug
        # reads as none (relative links: web.app.reads_host), a trailing slash or capitals (no record's id; Flask's
        # redirect or reading): Flask's
        if environ.get("QUERY_STRING") or "json" in environ.get("HTTP_ACCEPT", "").lower() \
                or not environ.get("HTTP_HOST") or not reads_host(environ):
            return self.app(environ, start_response)
        record_id = path[1:]
        kb = self.flask.extensions["kb"].current()
        page = kept_record_page(kb, record_id) if record_id in kb.store.records else None
        if page is None or D.doc_meta(kb, record_id) is not None or not self._routed_to_record(path, record_id):
            return self.app(environ, start_response)
        config = self.flask.config
        try:  # web.app.public_url, the Host checked above (werkzeug's request.host_url)
            base = config.get("KB_PUBLIC_URL") or get_current_url(environ, host_only=True,
                                                                     trusted_hosts=config.get("TRUSTED_HOSTS"))
        except SecurityError:
            return self.app(environ, start_response)
        zip_taken = takes_gzip(environ.get("HTTP_ACCEPT_ENCODING", ""))
        body, zipped = page_body((kb, record_id), page, html.escape(base.rstrip("/")), "", zip_taken)
        head = [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(body)))]
        if zipped:  # web.pages.gzipped's headers first, then web.app._headers' (web.compress adds nothing)
            headers = [*head, ("Content-Encoding", "gzip"), ("Vary", "Accept-Encoding, Accept"), *self.security]
        else:  # web.app._headers' then web.compress's Vary
            headers = [*head, *self.security, ("Vary", "Accept, Accept-Encoding")]
        start_response("200 OK", headers)
        return [body]

    def _routed_to_record(self, path: str, record_id: str) -> bool:
        """The app's URL map sends ``path`` to the record page (no other rule takes it: /cr/releases, /cr/all)."""
        try:
            endpoint, args = self.urls.match(path, method="GET")
        except HTTPException:  # a redirect, 404 or 405: Flask's
            return False
        return endpoint == "pages.record" and args == {"record_id": record_id}

    def _flask_answers(self, exc: Exception, environ: WSGIEnvironment,
                       start_response: StartResponse) -> Iterable[bytes]:
        """``exc`` answered as Flask's ``full_dispatch_request`` answers an exception of a view: its error handler's
        answer, through the after-request hooks, in a request context (popped with the teardown hooks)."""
        flask = self.flask
        context = flask.request_context(environ)
        context.push()
        try:
            response = flask.finalize_request(flask.handle_user_exception(exc))
            return response(environ, start_response)
        finally:
            context.pop()
