"""The Flask app factory: pages and API blueprints over one opened knowledge base.

Configuration comes from the settings' defaults, then the environment (every ``KB_*`` variable, declared
in ``web.settings``), then the ``config`` mapping given to ``create_app``.
``KB_PUBLIC_URL`` (``https://rules.example.org``) is where the site is
reached: every absolute URL it prints (og:url, linkify links, the OpenAPI
``servers``, opensearch) starts with it, never with the ``Host`` a client sent. The knowledge base is opened
once per process and kept on ``app.extensions["kb"]``.
"""
from __future__ import annotations

import json
import re
from urllib.parse import quote

import flask
import orjson
from flask import Flask, current_app, jsonify, redirect, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import HTTPException, NotFound

from kb.kbase import KnowledgeBase
from web import settings
from web.gate import MAX_BODY, RETRY_AFTER, Bodies, Gated, Guarded, Settings, TrustedProxies

__all__ = ["create_app", "SECURITY_HEADERS", "public_url", "prefers_json"]

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "X-Frame-Options": "DENY",
}
_SECURITY_HEADERS = [(name.lower(), name, value) for name, value in SECURITY_HEADERS.items()]


class Response(flask.Response):
    """Flask's response, handed to the server as a list when its body is in memory (every answer of this app):
    granian's WSGI loop writes a list's bytes in one piece (``response_bytes``), but steps through any other iterable
    from Rust, a Python call per chunk and one to close it, and streams it through a channel (werkzeug's
    ``ClosingIterator``): /api/health took 0.54 ms of server CPU instead of 0.60 (one worker, under contention)."""

    def get_app_iter(self, environ):
        app_iter = super().get_app_iter(environ)
        if self.direct_passthrough or not self.is_sequence:
            return app_iter  # a file or a generator: streamed as werkzeug hands it over
        try:
            return list(app_iter)  # [] for HEAD, 204 and 304
        finally:
            app_iter.close()  # type: ignore[attr-defined]  # werkzeug's ClosingIterator: the response's close callbacks


# What orjson would write otherwise than json.dumps goes to Flask's default as before: a date (orjson: ISO 8601, Flask:
# an HTTP date), a dataclass, a subclass of str, int, dict or list (Markup: its __html__).
_HANDED_OVER = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_SUBCLASS
_COMPACT = (",", ":")


class JSONProvider(DefaultJSONProvider):
    """Flask's JSON, its compact form (every JSON answer's, and the kept twins') written by orjson: the same bytes,
    ~5x faster (a search answer of ~5 KB, 72 -> 15 µs, a fifth of the web layer's own CPU a search). Whatever orjson
    refuses (a key other than a string, an integer past 64 bits, a lone surrogate) goes to json.dumps as before.
    Two forms differ, neither in an answer of this API (its floats are scores rounded to three places): a float under
    1e-4 is written 1e-7 where json wrote 1e-07 (the same number), and NaN or infinity null (json's NaN is no JSON)."""

    sort_keys = False  # an answer's keys in the order the data functions give them
    ensure_ascii = False

    def dumps(self, obj, **kwargs) -> str:
        if kwargs.get("separators") == _COMPACT and len(kwargs) == 1:
            encoded = self._fast(obj)
            if encoded is not None:
                return encoded.decode()
        return super().dumps(obj, **kwargs)

    def response(self, *args, **kwargs):
        if not self.is_compact():
            return super().response(*args, **kwargs)  # indented, for a person reading a debug server
        return Response(self.compact_bytes(self._prepare_response_obj(args, kwargs)), mimetype=self.mimetype)

    def is_compact(self) -> bool:
        """Answers are written compact (``compact_bytes``): always, but on a debug server (indented, for a person)."""
        return not (self.compact is False or (self.compact is None and self._app.debug))

    def compact_bytes(self, obj) -> bytes:
        """The body of a compact JSON answer of ``obj`` (jsonify's, web.lane's)."""
        encoded = self._fast(obj)
        return encoded + b"\n" if encoded is not None else f"{super().dumps(obj, separators=_COMPACT)}\n".encode()

    def _fast(self, obj) -> bytes | None:
        try:
            return orjson.dumps(obj, default=self.default, option=_HANDED_OVER)
        except TypeError:  # orjson.JSONEncodeError: json.dumps says it its own way, or writes it
            return None


class App(Flask):
    response_class = Response
    json_provider_class = JSONProvider


def create_app(config: dict | None = None) -> Flask:
    app = App(__name__, static_folder=None)  # web.assets serves web/static, under versioned URLs
    app.config.from_mapping(
        # KB_DATA, KB_PUBLIC_URL, the Discord key (on when set, web/discord.py), what kb serve hands its workers...
        **settings.read_all(),
        MAX_CONTENT_LENGTH=MAX_BODY,  # linkify bodies; anything larger is a 413 in the API's words
        JSON_SORT_KEYS=False,
    )
    if config:
        app.config.update(config)
    public = app.config["KB_PUBLIC_URL"]
    if public and not public.startswith(("http://", "https://")):
        raise ValueError(f"KB_PUBLIC_URL must start with http:// or https://, not {public!r}")
    # A server serves the newest intact build when ``current`` is damaged (kb.kbase).
    # kb serve names the sources its build was made from (KB_SOURCES): only builds of those are served.
    app.extensions["kb"] = KnowledgeBase(app.config["KB_DATA"], fallback=True, sources=app.config["KB_SOURCES"],
                                         warm=app.config["KB_WARM"], search_cache=app.config["KB_SEARCH_CACHE"],
                                         semantic=app.config["KB_SEMANTIC"], learned=app.config["KB_RANKER"],
                                         cross=app.config["KB_CROSS"])

    from web import compress, discord
    from web.api import api
    from web.assets import assets, load
    from web.history import history_pages
    from web.offline import offline
    from web.pages import pages
    from web.whole import whole_pages

    discord.init_app(app)
    compress.init_app(app)
    app.extensions["assets"] = load()
    app.register_blueprint(assets)
    app.register_blueprint(api)
    app.register_blueprint(history_pages)
    app.register_blueprint(whole_pages)  # before pages: /cr/all is no record
    app.register_blueprint(offline)
    app.register_blueprint(pages)

    @app.before_request
    def _read_the_body():
        # A body is read whole before any answer (MAX_CONTENT_LENGTH bounds it): an answer given before the body
        # was read (a 415 for the wrong content type, a 405 for a PUT) could close a socket the client is still
        # writing to, and the client lose the answer.
        # any method: a PUT or a GET may carry one too (the environ first: werkzeug's parse of no header costs more);
        # web.gate.Bodies has it in memory already
        if request.environ.get("CONTENT_LENGTH") and request.content_length:
            request.get_data(cache=True)

    app.before_request(_options_of_no_endpoint)  # after the body is read (above)
    app.before_request(_host_is_a_host)

    @app.before_request
    def _no_trailing_slash():
        # No route ends in a slash: "/cr/glossary/" and "/api/documents/" are their pages, not 404s
        # (the record pages already read "/cr/702.19b/" as "/cr/702.19b").
        path = request.path
        if len(path) > 1 and path.endswith("/") and path.strip("/"):
            query = request.query_string.decode("latin-1")
            # one leading slash: "//example.com/" must not become a redirect to another site
            return redirect(quote("/" + path.strip("/"), safe="/@:") + ("?" + query if query else ""), code=308)
        return None

    app.after_request(_headers)
    # A worker's threads take turns with a few searchers instead of one each (~10 MB apiece with the 62 releases)
    app.teardown_request(lambda _exc: app.extensions["kb"].release())

    app.register_error_handler(HTTPException, http_error)
    # Outermost first: any exception answered in our words (never granian's bare 500), forwarded headers only from a
    # trusted proxy, a request's body read whole, then the costly requests' gate (web.gate), then the API's most asked
    # answers made without Flask's request machinery (web.lane), then Flask.
    from web.api import FAST
    from web.lane import Lane

    serving = Settings.from_env()
    lane = app.extensions["lane"] = Lane(app, app.wsgi_app, FAST, SECURITY_HEADERS)
    gated = app.extensions["gated"] = Gated(lane, serving, SECURITY_HEADERS)  # web.gate.heavy_work's
    # a body is read whole before the gates, by a few threads at once (web.gate.Bodies)
    bodies = app.extensions["bodies"] = Bodies(gated, SECURITY_HEADERS)
    app.wsgi_app = Guarded(TrustedProxies(bodies, serving.trusted_proxies),  # type: ignore[method-assign]
                           SECURITY_HEADERS)

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):  # pragma: no cover - a bug, reported in the one error shape
        app.logger.exception("unhandled error")
        return error_response(500, "internal_error", "something went wrong on our side")

    return app


# The paths of endpoints, not pages: one with no rule of its own is "no API endpoint", whatever its case and method
_ENDPOINTS = ("/api/", "/discord/")


def _options_of_no_endpoint():
    # OPTIONS /api/nope answered Flask's "Allow: GET, HEAD, OPTIONS" (the pages' catch-all), and GET is a 404
    if request.method == "OPTIONS" and request.path.lower().startswith(_ENDPOINTS) and not methods_of(request.path):
        return no_api_endpoint(request.path)
    return None


def _headers(response):
    api = request.path.startswith("/api/")
    if 300 <= response.status_code < 400 and response.location and request.method != "HEAD" \
            and (api or prefers_json()):
        # a short link or a search asked for JSON, or any API path (/api/search/?q=x): its redirect says where in
        # JSON, not in Flask's HTML page
        response.set_data(json.dumps({"redirect": response.location}) + "\n")
        response.mimetype = "application/json"
    if request.method == "OPTIONS" and request.path.startswith(_ENDPOINTS) and "Allow" in response.headers:
        # Flask's own answer lists every rule the path matches, the pages' catch-all GET too: /api/linkify
        # said "GET" and answered GET with a 405, /discord/interactions said "GET" and answered a 404 page
        own = methods_of(request.path)
        if own:
            response.headers["Allow"] = ", ".join(sorted(own | {"OPTIONS"} | ({"HEAD"} if "GET" in own else set())))
    present = {name.lower() for name, _ in response.headers}  # werkzeug's setdefault raised a KeyError for each absent
    for lower, name, value in _SECURITY_HEADERS:
        if lower not in present:
            response.headers.add(name, value)
    if not api:
        # A page's errors are HTML or JSON by the Accept header: caches must key on it.
        response.vary.add("Accept")
    if request.method in ("GET", "HEAD", "OPTIONS") and (api or response.mimetype == "application/json"
                                                         or prefers_json()):  # a JSON twin's redirect too
        # Bots and other sites read every GET answer of the API (the history endpoints too) and a page's
        # JSON twin, from any origin.
        response.headers["Access-Control-Allow-Origin"] = "*"
    return response


def public_url() -> str:
    """The site's base URL without a trailing slash: KB_PUBLIC_URL, else what the request came to."""
    configured = current_app.config.get("KB_PUBLIC_URL")
    if configured:
        return configured.rstrip("/")
    if not request.headers.get("Host"):  # an HTTP/1.0 request without one: the address it reached, if known
        environ = request.environ
        name, port = environ.get("SERVER_NAME", ""), environ.get("SERVER_PORT", "80")
        if not _HOST.fullmatch(name) or not port.isdigit():
            return ""  # no usable address (a Unix socket's path): links are relative, "/cr/702.19"
        return f"{request.scheme}://{name}" + ("" if port == "80" else f":{port}")
    if host_problem(request.environ) is not None:  # the 400 page that refuses it: links relative, no URL of it
        return ""  # (werkzeug's host_url raised a UnicodeError for "Host: xn--a": the refusal was a 500)
    if not reads_host(request.environ):  # a name werkzeug reads as none ("kb_backend"): links relative
        return ""
    return request.host_url.rstrip("/")


def reads_host(environ) -> bool:
    """werkzeug reads the request's Host (an accepted one) as a host to make URLs from: not a name with an underscore
    (nginx's "proxy_pass http://kb_backend" sends "Host: kb_backend", a compose service "kb_web" its name), which
    it reads as none ("http:/cr/702.19")."""
    return "_" not in environ.get("HTTP_HOST", "")


def prefers_json() -> bool:
    """The client asks for JSON (``Accept: application/json``): a page answers with its twin, an error with
    the API's error shape. Browsers ask for HTML first."""
    return request.accept_mimetypes.best == "application/json"


def _host_is_a_host():
    # Absolute URLs (linkify's links, the OpenAPI document's server, og:url) are made from the Host header when
    # KB_PUBLIC_URL is unset: "Host: a b" made links to "http:/cr/702.19". A Host that is no host name, IP
    # address or bracketed IPv6 literal (with a port of 1-65535) is refused, and so is an HTTP/1.1 request
    # without one (RFC 9112 3.2: a server must); an HTTP/1.0 request may lack it (public_url then names the
    # server's own address).
    problem = host_problem(request.environ)
    return None if problem is None else error_response(400, "bad_request", problem)


def host_problem(environ) -> str | None:
    """Why a request's ``Host`` is refused (``_host_is_a_host``), or None."""
    host = environ.get("HTTP_HOST", "")
    if not host:
        return "an HTTP/1.1 request needs a Host header" if environ.get("SERVER_PROTOCOL") == "HTTP/1.1" else None
    m = _HOST.fullmatch(host)
    if m is None or len(m.group("name") or "") > 253 or not 0 < int(m.group("port") or 80) < 65536 \
            or not _idna_reads(m.group("name")):
        return "the Host header is not a host name (with a port of 1-65535)"
    return None


def _idna_reads(name: str | None) -> bool:
    """A name's IDNA labels ("xn--...") decode: werkzeug decodes them to build a URL, and "Host: xn--a" was a 500 on
    every answer with an absolute link (a record page, linkify, the OpenAPI document)."""
    if name is None or "xn--" not in name.lower():
        return True
    try:
        name.lower().encode("ascii").decode("idna")  # werkzeug reads the name lower-cased (urlsplit)
    except UnicodeError:
        return False
    return True


# A name or an IPv4 address (labels of letters, digits and hyphens, a letter or digit first, 1-63 each, split by single
# dots), or a bracketed IPv6 literal, and a port without a leading zero: what werkzeug builds a URL from. It reads
# other hosts as none, and "localhost:0080" made links to "http:/cr/702.19" (and an OpenAPI server "http:");
# "a..b" or a label of 64 letters failed its IDNA encoding, a 400 in werkzeug's words ("The browser (or proxy) sent
# a request that this server could not understand"). A name with an underscore, which werkzeug reads as none too, is
# a proxy's upstream or a container's name: answered, with relative links (``reads_host``). The labels exclude the
# dot: no nested repeats.
_HOST = re.compile(r"(?:(?P<name>(?:[A-Za-z0-9_][A-Za-z0-9_-]{0,62}\.)*[A-Za-z0-9_][A-Za-z0-9_-]{0,62}\.?)"
                   r"|\[[0-9A-Fa-f]*:[0-9A-Fa-f.:]{1,44}\])(?::(?P<port>[1-9][0-9]{0,4}))?")


def http_error(exc: HTTPException):
    """An HTTP error in the one error shape, with what werkzeug's own words leave out."""
    if exc.code == 413:  # werkzeug's own words name no limit
        return error_response(413, "request_entity_too_large",
                              f"the body is over {current_app.config['MAX_CONTENT_LENGTH']} bytes")
    if exc.code == 405:  # say which methods the path answers (its own rules', not the pages' catch-all GET)
        own = sorted(methods_of(request.path))
        # only the pages' catch-all took it (/API/health, /DISCORD/INTERACTIONS too: the paths are lower case): no such
        # endpoint (/DISCORD/INTERACTIONS was a 405 saying it "answers " no method)
        if request.path.lower().startswith(_ENDPOINTS) and not own:
            return no_api_endpoint(request.path)
        methods = own or [m for m in getattr(exc, "valid_methods", None) or () if m not in ("HEAD", "OPTIONS")]
        answer = error_response(405, "method_not_allowed", f"{request.path} answers {' and '.join(methods)}")
        answer.headers["Allow"] = ", ".join([*methods, "OPTIONS"])
        return answer
    if exc.code == 404 and type(exc) is NotFound and exc.description == NotFound.description \
            and request.path.lower().startswith("/api/"):
        # no rule of the URL map took the path (the pages' catch-all reads no line break: /api/records/a%0Ab,
        # /api/cr/702.19%0A/history): werkzeug's words are for a person who typed a page's address
        return no_api_endpoint(request.path)
    answer = error_response(exc.code or 500, exc.name.lower().replace(" ", "_"), exc.description or exc.name)
    if exc.code == 503:  # the heavy gate's line is full (web.gate.Busy)
        answer.headers["Retry-After"] = str(RETRY_AFTER)
    return answer


def no_api_endpoint(path: str):
    """The 404 of an /api/ path no endpoint answers, whatever the method."""
    return error_response(404, "not_found", f"no API endpoint {path}; see /api/openapi.json")


def methods_of(path: str) -> set[str]:
    """The methods the app's own rule for exactly ``path`` answers (none for a path only a catch-all takes)."""
    return {m for rule in current_app.url_map.iter_rules() if rule.rule == path
            for m in rule.methods or ()} - {"HEAD", "OPTIONS"}


def error_response(status: int, code: str, message: str):
    """One error shape for the API; the same facts as a page for browsers."""
    if request.path.lower().startswith(("/api/", "/discord/")) or prefers_json():  # Discord reads JSON, never a page
        response = jsonify({"error": {"code": code, "message": message}})
        response.status_code = status
        return response
    from web.pages import error_page

    return error_page(status, message)
