"""The fast lane: the API's most asked answers (``/api/search``, ``/api/health``: ``web.api.FAST``) made without
Flask's request machinery, with the bytes and headers Flask's path gives them.

Flask's own work for one request, whatever the view does (its request and app contexts, the URL map bound and
matched, the session it opens, six signals, a response object whose headers are copied again for the server),
cost ~0.12 ms of CPU for a route that returns fixed bytes, and our hooks ~0.03 ms more: /api/health took 0.15 ms in
process, of which its own work is a few microseconds; an uncached search's web layer was ~0.17 ms around ~0.8 ms of
searching and shaping (docs/serving.md, *Measuring it*).

The lane takes a ``GET`` of exactly one of those paths, without a body, with a ``Host`` the app accepts; reads the
query's arguments as werkzeug's ``request.args`` does (each one's first value); calls the view's own function; writes
its JSON as the app's provider does; and adds what the app's after-request hooks add to such an answer (``Vary:
Accept-Encoding``, gzip when the client takes it, the security headers, ``Access-Control-Allow-Origin``). Everything
else goes to Flask unchanged: another path or method (``HEAD``, ``OPTIONS``), a body, a refused ``Host``, a debug
server's indented JSON. An exception the function raises (a ``400`` for a bad argument, a bug) is answered by Flask's
own error handlers, in a request context made for it, without doing the work again. ``tests/test_lane.py`` holds each
of the lane's answers to Flask's, byte for byte and header for header.

It sits inside ``web.gate``'s layers: the gate, the trusted proxies and the last-resort ``Guarded`` are the same for
both paths.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from flask import Flask

from web.app import JSONProvider, host_problem
from web.compress import MIN_SIZE, gzip_answer, takes_gzip

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication as App, WSGIEnvironment

__all__ = ["Lane"]

Answer = Callable[[Flask, Mapping[str, str]], Any]


class Lane:
    """``routes`` (path -> the function that makes its answer's object) answered before Flask; the rest to ``app``
    (Flask's own WSGI app, ``flask.wsgi_app``)."""

    def __init__(self, flask: Flask, app: App, routes: Mapping[str, Answer], security: Mapping[str, str]):
        self.flask, self.app, self.routes = flask, app, dict(routes)
        # web.app's _headers adds the security headers and, to a GET of the API, Access-Control-Allow-Origin;
        # web.compress adds Vary (JSON is compressed when asked)
        self.headers = [*security.items(), ("Access-Control-Allow-Origin", "*"), ("Vary", "Accept-Encoding")]

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        answer = self.routes.get(environ.get("PATH_INFO", ""))
        if answer is None or environ.get("REQUEST_METHOD") != "GET" or environ.get("CONTENT_LENGTH", "0") != "0" \
                or "HTTP_TRANSFER_ENCODING" in environ or host_problem(environ) is not None:
            return self.app(environ, start_response)
        json = self.flask.json
        if not isinstance(json, JSONProvider) or not json.is_compact():
            return self.app(environ, start_response)
        try:
            # werkzeug's request.args: the query string's bytes as UTF-8, undecodable bytes left percent-encoded
            query = environ.get("QUERY_STRING", "").encode("latin-1").decode()
            args: dict[str, str] = {}
            for name, value in parse_qsl(query, keep_blank_values=True, errors="werkzeug.url_quote"):
                args.setdefault(name, value)
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
