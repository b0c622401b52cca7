"""What ``kb serve``'s HTTP server (granian) leaves to the application: a fair gate for costly requests, and
forwarded headers trusted only from the proxies named in ``KB_TRUSTED_PROXIES``.

The gate: each worker lets at most ``KB_COSTLY_SLOTS`` costly requests (search, linkify, autocomplete, resolve,
Discord, rules' histories, a slice of a document's records gzipped) run at once, and one heavy one (a diff between
two releases, a rule as it stood on a day); the others wait their turn, served round-robin by client address, so
one client's expensive queries cannot take every thread of a worker and cheap requests (``/api/health``, record
pages) always find one. The line is bounded: past it, or after ``WAIT`` seconds in it, a request is answered ``503``
with ``Retry-After``. A diff, and a slice of records, is gated where its work is (``heavy_work``, ``costly_work``),
so a cached diff or the whole document answers as a record page does.

The client address is the socket's peer (granian's ``REMOTE_ADDR``). Behind a load balancer every client has the
balancer's address: name it in ``KB_TRUSTED_PROXIES`` and the address it appends last to ``X-Forwarded-For`` is
used instead, with ``X-Forwarded-Proto`` / ``X-Forwarded-Ssl`` / ``X-Forwarded-Prefix``. From any other peer those
headers (and ``Forwarded``, ``SCRIPT_NAME``) are dropped before the app sees them.
"""
from __future__ import annotations

import collections
import contextlib
import functools
import html
import io
import ipaddress
import json
import re
import sys
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import parse_qs

from werkzeug.datastructures import MIMEAccept
from werkzeug.exceptions import ServiceUnavailable
from werkzeug.http import parse_accept_header
from werkzeug.middleware.proxy_fix import ProxyFix

from web import settings

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication as App, WSGIEnvironment

__all__ = ["Settings", "FairGate", "Gated", "Bodies", "busy", "TrustedProxies", "Guarded", "MAX_BODY", "RETRY_AFTER",
           "gate_of", "heavy_work", "costly_if_free", "costly_work", "Busy"]

# A body the app takes: /api/linkify's 20,000 characters as JSON, each escaped as a surrogate pair (12 bytes),
# and room for the rest (MAX_CONTENT_LENGTH: anything larger is a 413 in the API's words).
MAX_BODY = 256 * 1024
RETRY_AFTER = 5  # seconds a client turned away by the gate is asked to wait
SWITCH_INTERVAL = 0.001  # seconds
WAIT = 10.0  # seconds a costly request waits in line before it is turned away
QUEUE_PER_SLOT = 16  # costly requests waiting in one worker's line, per slot (Settings.costly_queue)

# /discord/interactions: every slash command and autocomplete keystroke is a search, a rule or a card lookup
COSTLY_PATHS = ("/api/search", "/search", "/api/linkify", "/api/autocomplete", "/api/resolve", "/discord/interactions")
COSTLY_PREFIXES = ("/r/",)  # a dated list of ranges, 20-50 ms
# a diff between two releases (~400 ms, up to ~1 MB of HTML), a rule or chapter as it stood on a day (up to ~150 ms)
HEAVY_PREFIXES = ("/diff/", "/api/diff/", "/cr@", "/api/cr@")
_HISTORY_PAGES = ("/cr/", "/api/cr/")
_SLASHES = re.compile(r"/{2,}")


@dataclass(frozen=True)
class Settings:
    """``kb serve``'s settings from the environment, read here only (``Settings.from_env``)."""

    costly_slots: int = 1  # KB_COSTLY_SLOTS: costly requests running at once in one worker
    head_timeout: float = 10.0  # KB_HEAD_TIMEOUT: seconds for a request's line and headers
    grace: float = 10.0  # KB_GRACE: seconds a worker stopping (SIGTERM) has to finish the answers in flight
    trusted_proxies: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()  # KB_TRUSTED_PROXIES

    @property
    def costly_queue(self) -> int:
        # sixteen a slot: sixteen clients behind one address (a hall's NAT, a bot) fit in one worker's line even
        # when every one of their connections lands on it (eight turned ~9% of such a burst away: tests/test_serving)
        return QUEUE_PER_SLOT * self.costly_slots

    @property
    def threads(self) -> int:
        """Python threads per worker: every slot and place in line of both gates, every body being read and every
        request waiting for a reader (Bodies), and four for cheap requests (a request waiting in line, reading a
        body or waiting to, holds a thread)."""
        return self.costly_slots + self.costly_queue + 1 + HEAVY_QUEUE + BODY_READERS + BODY_WAITERS + 4

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """The defaults, with what the environment sets (declared in web.settings); ValueError naming the variable
        for a bad value."""
        read = functools.partial(settings.read, environ=environ)
        read("KB_FORWARDED_FOR")  # gone: refused with a pointer to KB_TRUSTED_PROXIES (web.settings)
        proxies = []
        for item in filter(None, (p.strip() for p in read("KB_TRUSTED_PROXIES").split(","))):
            try:
                proxies.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                raise ValueError(f"KB_TRUSTED_PROXIES must list IP addresses or networks (10.0.0.0/8), "
                                 f"not {item!r}") from None
        return cls(costly_slots=read("KB_COSTLY_SLOTS"), head_timeout=read("KB_HEAD_TIMEOUT"),
                   grace=read("KB_GRACE"), trusted_proxies=tuple(proxies))


HEAVY_QUEUE = 2
# A diff (page or JSON) is gated where its work is, in the app (``heavy_work``): a cached one, however many
# uncached ones other clients ask for, answers as fast as a record page.
GATED_IN_APP = ("/diff/", "/api/diff/")
_HOLDING = threading.local()  # per gate name: whether this thread holds it (_gate_work)


class Busy(ServiceUnavailable):
    """The heavy gate's line is full: 503, with Retry-After (web.app.http_error)."""

    description = "too many costly requests waiting; try again shortly"


def heavy_work() -> contextlib.AbstractContextManager[None]:
    """Hold this worker's heavy gate while doing a diff's work (computing it, rendering its page); Busy when the
    line is full. Outside kb serve's gate (a test's app without it), or when this thread holds it already, a
    no-op."""
    return _gate_work("heavy")


@contextlib.contextmanager
def costly_if_free() -> Iterator[bool]:
    """For a search a request makes on a path the gate lets through as cheap (a 404 page's "Perhaps one of these",
    on any path: ~16 ms of CPU, as much as /search, which waits its turn): True while this thread holds a slot of the
    worker's costly gate, taken only when one is free at once and nobody waits; False otherwise, and the search is
    left out (the page is answered without it, never held up or turned away). True on a path the gate took as costly
    (the request holds its slot already), and outside kb serve's gate."""
    from flask import current_app, request

    gated = current_app.extensions.get("gated")
    if gated is None or gate_of(request.environ.get("PATH_INFO", "")) == "costly":
        yield True
        return
    gate = gated.gates["costly"]
    if not gate.try_enter():
        yield False
        return
    try:
        yield True
    finally:
        gate.leave()


def costly_work() -> contextlib.AbstractContextManager[None]:
    """Hold this worker's costly gate while doing work a path's answer needs only sometimes (a slice of a document's
    records gzipped per request: ~50 ms for most of the official rules), so the path's other answers (the whole
    document, kept) pass no gate; Busy when the line is full. Only for paths the front does not gate (it would
    wait for the slot it holds)."""
    return _gate_work("costly")


@contextlib.contextmanager
def _gate_work(name: str) -> Iterator[None]:
    """Hold this worker's gate ``name`` for the block (heavy_work, costly_work): Busy when its line is full; a no-op
    outside kb serve's gate or when this thread holds that gate already."""
    from flask import current_app, request

    gated = current_app.extensions.get("gated")
    if gated is None or getattr(_HOLDING, name, False):
        yield
        return
    gate = gated.gates[name]
    if not gate.enter(request.remote_addr or "-"):
        raise Busy()
    setattr(_HOLDING, name, True)
    try:
        yield
    finally:
        setattr(_HOLDING, name, False)
        gate.leave()


class _Turn(threading.Event):
    """A place in a gate's line: set when the slot passes to it, or when a client with fewer places took it
    (``refused``)."""

    refused = False


class FairGate:
    """At most ``slots`` holders at once; at most ``queue`` waiting, served round-robin by client address. When the
    line is full, a client with fewer places in it than the one with the most takes that one's newest place (which
    is refused): one address keeping the line full turned every other client away (40 connections asking searches
    from one address, another address's searches were 503 at once 45% of the time)."""

    def __init__(self, slots: int, queue: int, wait: float = WAIT):
        self.slots, self.queue, self.wait = slots, queue, wait
        self.busy = 0
        self.queued = 0
        self._waiting: collections.OrderedDict[str, collections.deque[_Turn]] = collections.OrderedDict()
        self._lock = threading.Lock()

    def enter(self, client: str) -> bool:
        """True when the caller holds a slot (it must ``leave``); False when the line is full (of others as much
        as of this client), it waited too long, or its place went to a client with fewer."""
        with self._lock:
            if self.busy < self.slots and not self._waiting:
                self.busy += 1
                return True
            if self.queued >= self.queue and not self._bumped_for(client):
                return False
            turn = _Turn()
            self._waiting.setdefault(client, collections.deque()).append(turn)
            self.queued += 1
        if turn.wait(self.wait):
            return not turn.refused
        with self._lock:
            if turn.is_set():  # given the slot (or refused) just as the wait ended
                return not turn.refused
            line = self._waiting[client]
            line.remove(turn)
            if not line:
                del self._waiting[client]
            self.queued -= 1
            return False

    def try_enter(self) -> bool:
        """``enter`` without waiting: True (the caller must ``leave``) when a slot is free and nobody is in line."""
        with self._lock:
            if self.busy < self.slots and not self._waiting:
                self.busy += 1
                return True
            return False

    def _bumped_for(self, client: str) -> bool:
        """The line is full: the newest place of the client with the most, when it has at least two more than
        ``client``, refused to make room (under the lock)."""
        if not self._waiting:  # a line of no places (a test's): nobody to make room
            return False
        most = max(self._waiting, key=lambda c: len(self._waiting[c]))
        line = self._waiting[most]
        if len(line) < len(self._waiting.get(client, ())) + 2:
            return False
        turn = line.pop()  # two or more were there: the client keeps its place in the order
        self.queued -= 1
        turn.refused = True
        turn.set()
        return True

    def leave(self) -> None:
        with self._lock:
            if not self._waiting:
                self.busy -= 1
                return
            client, line = next(iter(self._waiting.items()))
            turn = line.popleft()
            del self._waiting[client]
            if line:
                self._waiting[client] = line  # to the back: the next address goes first
            self.queued -= 1
            turn.set()  # the slot passes on


def gate_of(path: str) -> str | None:
    """"heavy", "costly" or None (cheap) for a path as the app routes it (repeated slashes merged)."""
    path = _SLASHES.sub("/", path)
    if path.startswith(HEAVY_PREFIXES):
        return "heavy"
    if path in COSTLY_PATHS or path.startswith(COSTLY_PREFIXES) \
            or path.startswith(_HISTORY_PAGES) and path.rstrip("/").endswith("/history"):
        return "costly"
    return None


class Gated:
    """The WSGI app behind the gates (one pair per worker process)."""

    def __init__(self, app: App, settings: Settings, security: Mapping[str, str]):
        # A worker's threads share one GIL: a cheap request waiting behind a CPU-bound search gets it back after the
        # switch interval, once per turn; 1 ms instead of 5 keeps /api/health and cached pages quick under load.
        sys.setswitchinterval(SWITCH_INTERVAL)
        self.app = app
        self.gates = {"costly": FairGate(settings.costly_slots, settings.costly_queue),
                      "heavy": FairGate(1, HEAVY_QUEUE)}
        self.security = security

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        kind = gate_of(path)
        if kind is None or _SLASHES.sub("/", path).startswith(GATED_IN_APP):
            return self.app(environ, start_response)
        gate = self.gates[kind]
        if not gate.enter(environ.get("REMOTE_ADDR") or "-"):
            return self._busy(environ, start_response)
        try:
            return self.app(environ, start_response)  # Flask's answers are made whole here; they are written after
        finally:
            gate.leave()

    def _busy(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        return busy(environ, start_response, self.security, "too many costly requests waiting; try again shortly")


# A request's body is read whole before the gates, by at most this many threads of a worker at once, and at most
# BODY_READERS_PER_CLIENT of them for one client address (Bodies); past either, at most BODY_WAITERS requests of a
# worker wait up to BODY_PATIENCE seconds for a reader.
BODY_READERS = 8
BODY_READERS_PER_CLIENT = 2
BODY_WAITERS = 4
BODY_PATIENCE = 0.1


class Bodies:
    """A request's body read whole before the gates and the app, by few threads at once.

    granian calls the app as soon as a request's head has arrived and hands it the body as it comes: a read waits
    for the bytes, and nothing bounds how long (``KB_HEAD_TIMEOUT`` covers the head only). A client that sends its
    body slowly, or stops, holds the thread reading it until it closes the connection. The app read bodies inside
    the gates, in any thread: four such connections to /api/linkify held the costly gate (every other client's
    search waited 10 s, then 503), and sixty to any path (a ``Content-Length`` on a GET of /api/health) held every
    thread of both workers (health, pages and searches waited more than 15 s). Here, outside the gates, at most
    ``readers`` requests of a worker read a body at once and at most ``per_client`` of them from one address; past
    either, a request waits up to ``patience`` for a reader, and at most ``waiters`` of them wait: a body that came
    with its head is read in a few milliseconds, and clients behind one address sending bodies at once (a bot's
    linkify, Discord's servers, a hall's NAT) were turned away when refused at once: 3 to 16 such clients asking
    linkify had 0.7-2.6% of their answers 503 (none with the wait; session 25's review), while a slow client's
    readers stay taken. Then, or with ``waiters`` waiting, the answer is 503, without reading
    (the connection is closed after it). What passes on has its body in memory (``wsgi.input`` a ``BytesIO``,
    ``CONTENT_LENGTH`` its length), so no gate's turn and no later thread waits for a client."""

    def __init__(self, app: App, security: Mapping[str, str], readers: int = BODY_READERS,
                 per_client: int = BODY_READERS_PER_CLIENT, waiters: int = BODY_WAITERS,
                 patience: float = BODY_PATIENCE):
        self.app, self.security = app, security
        self.readers, self.per_client, self.waiters, self.patience = readers, per_client, waiters, patience
        self.reading: collections.Counter[str] = collections.Counter()
        self.waiting = 0
        self._lock = threading.Lock()
        self._freed = threading.Condition(self._lock)  # a reader is free again

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        length = environ.get("CONTENT_LENGTH") or ""
        chunked = "HTTP_TRANSFER_ENCODING" in environ
        if not chunked and length in ("", "0"):
            return self.app(environ, start_response)
        if not chunked and (not length.isdigit() or int(length) > MAX_BODY):
            return self.app(environ, start_response)  # the app refuses it (413) without reading it
        client = environ.get("REMOTE_ADDR") or "-"
        if not self._reader_for(client):
            return busy(environ, start_response, self.security,
                        "too many requests are sending a body at once; try again shortly")
        try:
            # chunked: up to one byte past the bound, which the app then refuses (413)
            body = environ["wsgi.input"].read(int(length) if not chunked else MAX_BODY + 1)
        finally:
            with self._lock:
                self.reading[client] -= 1
                if not self.reading[client]:
                    del self.reading[client]
                self._freed.notify_all()
        environ["wsgi.input"] = io.BytesIO(body)
        environ["CONTENT_LENGTH"] = str(len(body))
        environ.pop("HTTP_TRANSFER_ENCODING", None)
        return self.app(environ, start_response)

    def _reader_for(self, client: str) -> bool:
        """True when ``client`` holds a reader (at once, or within ``patience`` with ``waiters`` waiting at most)."""
        def free() -> bool:
            return sum(self.reading.values()) < self.readers and self.reading[client] < self.per_client

        with self._lock:
            if not free():
                if self.waiting >= self.waiters:
                    return False
                self.waiting += 1
                try:
                    if not self._freed.wait_for(free, self.patience):
                        return False
                finally:
                    self.waiting -= 1
            self.reading[client] += 1
            return True


def busy(environ: WSGIEnvironment, start_response: StartResponse, security: Mapping[str, str],
         message: str) -> Iterable[bytes]:
    """503 saying ``message``: JSON for the API and for clients that ask for JSON, otherwise a small page a phone can
    read (its viewport, the message, the same request again, a search box)."""
    path = environ.get("PATH_INFO", "")
    accept = parse_accept_header(environ.get("HTTP_ACCEPT"), MIMEAccept)
    headers = [("Retry-After", str(RETRY_AFTER)), ("Cache-Control", "no-store"), ("Connection", "close")]
    if path.startswith(("/api/", "/discord/")) or accept.best == "application/json":
        body = json.dumps({"error": {"code": "busy", "message": message}}).encode()
        headers += [("Content-Type", "application/json"), *security.items()]
    else:
        again = _target(environ)
        query = parse_qs(environ.get("QUERY_STRING", "")).get("q", [""])[0] if path == "/search" else ""
        body = _BUSY_PAGE.format(again=html.escape(again), query=html.escape(query)).encode()
        headers += [("Content-Type", "text/html; charset=utf-8"), ("Vary", "Accept"),
                    *{**security, "Content-Security-Policy": _BUSY_CSP}.items()]
    start_response("503 Service Unavailable", [*headers, ("Content-Length", str(len(body)))])
    return [body]


def _target(environ: WSGIEnvironment) -> str:
    from urllib.parse import quote

    path = quote(environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", ""), safe="/@:.,;=+!$&'()*~-_")
    query = environ.get("QUERY_STRING", "")
    return path + ("?" + query if query else "")


_BUSY_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"
_BUSY_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Busy — Rules KB</title>
<style>body{{font:1.05rem/1.5 system-ui,sans-serif;max-width:40rem;margin:1rem auto;padding:0 1rem}}
input{{font:inherit;width:60%}}button{{font:inherit}}</style>
</head>
<body>
<p><a href="/">Rules KB</a></p>
<h1>Busy right now</h1>
<p>Too many requests are waiting for their turn. Try again in a few seconds.</p>
<p><a href="{again}">Try again</a></p>
<form action="/search" method="get" role="search">
<input type="search" name="q" value="{query}" aria-label="Search"> <button type="submit">Search</button>
</form>
</body>
</html>
"""

# What a client may say about where a request came from: honoured only from a trusted proxy (ProxyFix reads the
# X-Forwarded-* ones), dropped from anyone else. A header named SCRIPT_NAME made gunicorn move the app's root.
_FORWARDED = ("HTTP_X_FORWARDED_FOR", "HTTP_X_FORWARDED_PROTO", "HTTP_X_FORWARDED_SSL", "HTTP_X_FORWARDED_HOST",
              "HTTP_X_FORWARDED_PORT", "HTTP_X_FORWARDED_PREFIX", "HTTP_FORWARDED", "HTTP_SCRIPT_NAME",
              "HTTP_X_SCRIPT_NAME", "HTTP_X_REAL_IP", "HTTP_X_FORWARDED_SCHEME", "HTTP_X_SCHEME")


class TrustedProxies:
    """Forwarded headers honoured from ``trusted`` peers only (the last hop of each: one proxy in front)."""

    def __init__(self, app: App, trusted: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]):
        self.app = app
        self.trusted = trusted
        self.fix = ProxyFix(app, x_for=1, x_proto=1, x_host=0, x_port=0, x_prefix=1)

    def _trusts(self, peer: str) -> bool:
        try:
            address = ipaddress.ip_address(peer)
        except ValueError:
            return False
        return any(address in network for network in self.trusted)

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if self.trusted and self._trusts(environ.get("REMOTE_ADDR", "")):
            if environ.get("HTTP_X_FORWARDED_SSL", "").strip().lower() == "on" \
                    and "HTTP_X_FORWARDED_PROTO" not in environ:
                environ["HTTP_X_FORWARDED_PROTO"] = "https"
            for name in ("HTTP_FORWARDED", "HTTP_SCRIPT_NAME", "HTTP_X_SCRIPT_NAME"):
                environ.pop(name, None)
            return self.fix(environ, start_response)
        for name in _FORWARDED:
            environ.pop(name, None)
        return self.app(environ, start_response)


class Guarded:
    """The outermost layer: an exception that escapes the app (Flask answers its own; this is for the layers around
    it) is answered here, in the API's error shape with the security headers, instead of by granian, whose own
    ``500 Internal server error`` is plain text without them."""

    def __init__(self, app: App, security: Mapping[str, str]):
        self.app = app
        self.security = security

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        try:
            return self.app(environ, start_response)
        except Exception:  # noqa: BLE001 -- a bug, logged; the client gets one clear answer
            import logging

            logging.getLogger("web").exception("unhandled error outside the app")
            body = json.dumps({"error": {"code": "internal_error", "message": "something went wrong on our side"}})
            start_response("500 Internal Server Error", [
                ("Content-Type", "application/json"), ("Content-Length", str(len(body))), ("Cache-Control", "no-store"),
                *self.security.items()])  # nothing was sent yet: granian writes an answer after the app returns
            return [body.encode()]
