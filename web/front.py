"""The front ``kb serve`` puts before gunicorn: whole requests in, whole responses out.

gunicorn's threaded workers read a request in a worker thread, so eight
connections that send one byte each held all eight threads and the service
stopped answering. This front is one asyncio event loop: a connection costs
a few kilobytes until its request is complete, and only a complete request
(head within ``HEAD_TIMEOUT``, body within ``BODY_TIMEOUT``, sizes bounded)
is forwarded to gunicorn over a unix socket; the whole answer is read back
and written to the client at the client's pace, so a slow reader holds no
worker either. A client that is too slow gets a 408 and is closed.

Costly requests (search, linkify, autocomplete) pass through a fair gate:
at most ``slots`` at a time in gunicorn, waiting clients served in turn by
address, so one client's expensive queries cannot take every worker thread
and cheap requests (``/api/health``, record pages) always find one free.
The heaviest (a diff between two releases, ~400 ms; a rule or chapter as it
stood on a day, up to ~150 ms) pass through a gate of their own with one
slot: thirty clients asking for diffs held a search from anyone else 2.4 s
when they shared the search's gate; now they wait for each other.
"""
from __future__ import annotations

import asyncio
import collections
import contextlib
import html
import json
import logging
import socket
import struct
from collections.abc import Mapping
import re
from dataclasses import dataclass, field
from urllib.parse import parse_qs, unquote_to_bytes, urlsplit

from web.settings import read as read_setting

__all__ = ["Front", "Limits", "COSTLY_PATHS", "COSTLY_PREFIXES", "HEAVY_PREFIXES", "routed_path"]

log = logging.getLogger(__name__)

# /discord/interactions: every slash command and autocomplete keystroke is a search, a rule or a card lookup
COSTLY_PATHS = ("/api/search", "/search", "/api/linkify", "/api/autocomplete", "/api/resolve", "/discord/interactions")
# Pages whose answer can take a large share of a worker: a diff between two releases (up to ~1 MB of HTML), a rule
# as it stood on a day (a section lists its rules), a rule's history (its word diffs: ~50 ms the first time).
COSTLY_PREFIXES = ("/diff/", "/api/diff/", "/cr@", "/api/cr@", "/r/")  # /r/: a dated list of ranges, 20-50 ms
HEAVY_PREFIXES = ("/diff/", "/api/diff/", "/cr@", "/api/cr@")  # costly, and through a gate of their own
_HISTORY_PAGES = ("/cr/", "/api/cr/")
_SLASHES = re.compile(r"/{2,}")
_TOKEN = re.compile(rb"[A-Z]{3,20}")  # a method, as gunicorn takes one
_HEADER_NAME = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # a header's name: a token
_MAX_FIELD = 8188  # bytes of one header line gunicorn takes (8,190 with its CRLF)
_CONTROL = re.compile(rb"[\x00-\x08\x0a-\x1f\x7f]")  # what gunicorn refuses in a header value (a tab is fine)
_TARGET = re.compile(rb"[\x21-\x7e]{1,65536}")  # a request target: visible ASCII
_ONCE = {b"content-length", b"host", b"content-type"}  # headers a request may carry once
_FORWARDED = re.compile(rb"\r\nx-forwarded-for:([^\r\n]*)", re.IGNORECASE)
_CONTINUE = re.compile(rb"\r\nexpect:[ \t]*100-continue[ \t]*\r\n", re.IGNORECASE)
# Not forwarded: hop-by-hop headers, and Expect (the front answers "100 Continue" itself, then reads the body)
_HOP = {b"connection", b"keep-alive", b"proxy-connection", b"te", b"trailer", b"upgrade", b"x-forwarded-for",
        b"expect"}


@dataclass(frozen=True)
class Limits:
    head_timeout: float = 10.0  # seconds for the request line and headers, from their first byte
    body_timeout: float = 10.0
    idle_timeout: float = 15.0  # a keep-alive connection waiting for its next request
    write_timeout: float = 30.0  # a client reading the answer
    upstream_timeout: float = 60.0
    gate_timeout: float = 20.0  # a costly request waiting for a slot
    max_head: int = 16 * 1024
    # A body the app takes: /api/linkify's 20,000 characters as JSON, each escaped as a surrogate pair (12
    # bytes), and room for the rest. The app (MAX_CONTENT_LENGTH) and the front refuse the same bodies: a larger
    # limit here sent bodies the app refused unread, and its early answer was lost as a 502.
    max_body: int = 256 * 1024
    max_connections: int = 4096
    # Answers held for clients still reading them, in all: 40 clients that asked for the 3 MB records dump
    # and never read it held 4 MB each for the write timeout (4,096 of them could hold gigabytes). Past it,
    # a large answer is replaced by a 503 until the readers catch up.
    max_pending: int = 256 * 1024 * 1024
    # Behind a load balancer every client has its address: with KB_FORWARDED_FOR=1 the gate takes turns by the
    # address the balancer appended last to X-Forwarded-For instead (only set it behind one: a client could
    # otherwise name any address it likes).
    forwarded_for: bool = False

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> Limits:
        """The defaults, with ``KB_HEAD_TIMEOUT`` (seconds, more than 0 and at most 3600) for the request
        line and headers and ``KB_FORWARDED_FOR`` (1 or 0) when set. ValueError, naming the variable, for
        anything else."""
        return cls(head_timeout=read_setting("KB_HEAD_TIMEOUT", environ),
                   forwarded_for=read_setting("KB_FORWARDED_FOR", environ))


class _Reject(Exception):
    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


_REASONS = {400: "Bad Request", 408: "Request Timeout", 411: "Length Required", 413: "Content Too Large",
            414: "URI Too Long", 431: "Request Header Fields Too Large", 502: "Bad Gateway",
            503: "Service Unavailable", 505: "HTTP Version Not Supported"}


def _error(status: int, code: str, message: str) -> bytes:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    return (f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body


RETRY_AFTER = 5  # seconds a client turned away by the gate is asked to wait
_ACCEPT = re.compile(rb"\r\naccept:([^\r\n]*)", re.IGNORECASE)
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
<p>Too many searches are waiting for their turn. Try again in a few seconds.</p>
<p><a href="{again}">Try again</a></p>
<form action="/search" method="get" role="search">
<input type="search" name="q" value="{query}" aria-label="Search"> <button type="submit">Search</button>
</form>
</body>
</html>
"""


def _busy(path: str, target: bytes, head: bytes) -> bytes:
    """The gate's 503 for a request that waited too long for its turn: JSON for the API and for clients that ask
    for JSON (as the app's errors are), otherwise a small page a phone can read (its viewport, the message, the
    same search again, a search box): browsers were shown the JSON, zoomed out and with no way back."""
    accept = b",".join(_ACCEPT.findall(head)).decode("latin-1")
    if path.startswith("/api/") or _best_type(accept) == "application/json":
        return _error(503, "busy", "too many costly requests waiting; try again shortly")
    again = origin_form(target).decode("latin-1")
    query = parse_qs(urlsplit(again).query).get("q", [""])[0] if path == "/search" else ""
    body = _BUSY_PAGE.format(again=html.escape(again), query=html.escape(query)).encode()
    return (f"HTTP/1.1 503 {_REASONS[503]}\r\nContent-Type: text/html; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nRetry-After: {RETRY_AFTER}\r\nCache-Control: no-store\r\n"
            "Vary: Accept\r\nX-Content-Type-Options: nosniff\r\nContent-Security-Policy: default-src 'none'; "
            "style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'\r\n"
            "Connection: close\r\n\r\n").encode() + body


def _best_type(accept: str) -> str | None:
    """The media type an Accept header prefers, as the app reads it (``web.app.prefers_json``, werkzeug's
    ``best``): the highest quality, the more specific of equals, the first of those."""
    best, rank = None, (0.0, -1)
    for item in accept.split(","):
        media, *params = (part.strip() for part in item.split(";"))
        if not media:
            continue
        quality = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        specific = 0 if media == "*/*" else 1 if media.endswith("/*") else 2
        if quality > 0 and (quality, specific) > rank:
            best, rank = media, (quality, specific)
    return best


@dataclass
class _Gate:
    """At most ``slots`` costly requests at once; waiters served round-robin by client address."""

    slots: int
    busy: int = 0
    waiting: collections.OrderedDict[str, collections.deque] = field(default_factory=collections.OrderedDict)

    async def acquire(self, client: str, timeout: float) -> None:
        if self.busy < self.slots and not self.waiting:
            self.busy += 1
            return
        future = asyncio.get_running_loop().create_future()
        self.waiting.setdefault(client, collections.deque()).append(future)
        try:
            await asyncio.wait_for(asyncio.shield(future), timeout)
        except BaseException:
            if future.done() and not future.cancelled():
                self.release()  # granted just as we gave up: pass it on
            else:
                future.cancel()
                queue = self.waiting.get(client)
                if queue is not None and future in queue:
                    queue.remove(future)
                    if not queue:
                        del self.waiting[client]
            raise

    def release(self) -> None:
        while self.waiting:
            client, queue = next(iter(self.waiting.items()))
            future = queue.popleft()
            del self.waiting[client]
            if queue:
                self.waiting[client] = queue  # to the back of the line: the next client goes first
            if not future.done():
                future.set_result(None)
                return
        self.busy -= 1


class Front:
    def __init__(self, upstream: str, slots: int, limits: Limits = Limits(), heavy_slots: int = 1):
        self.upstream = upstream  # gunicorn's unix socket
        self.limits = limits
        self.gate = _Gate(slots)
        self.heavy = _Gate(heavy_slots)  # diffs and dated pages: never more than this many in gunicorn at once
        self.connections = 0
        self.served = 0
        self.pending = 0  # bytes of answers written and not yet taken by their clients

    async def start(self, host: str, port: int) -> asyncio.Server:
        return await asyncio.start_server(self._connection, host, port, limit=self.limits.max_head,
                                          reuse_address=True, backlog=1024)

    # -- one client connection ------------------------------------------------------------------
    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        peer = writer.get_extra_info("peername")
        client = peer[0] if isinstance(peer, tuple) else "local"
        try:
            if self.connections > self.limits.max_connections:
                await self._send(writer, _error(503, "busy", "too many connections; try again shortly"))
                return
            keep = True
            first = True
            while keep:
                try:
                    request = await self._read_request(reader, writer, first)
                except _Reject as r:
                    await self._send(writer, _error(r.status, r.code, r.message))
                    return
                if request is None:
                    return
                first = False
                method, target, head, body, keep, forwarded = request
                who = forwarded if self.limits.forwarded_for and forwarded else client
                answer, keep_ok = await self._forward(who, method, target, head, body)
                answer, keep = _with_connection(answer, keep and keep_ok)
                if self.pending + len(answer) > self.limits.max_pending and len(answer) > 64 * 1024:
                    answer, keep = _error(503, "busy", "too many large answers are waiting for their readers; "
                                                       "try again shortly"), False
                await self._send(writer, answer)
                self.served += 1
        except (TimeoutError, ConnectionError, asyncio.IncompleteReadError, OSError):
            pass
        finally:
            self.connections -= 1
            if writer.transport.get_write_buffer_size():
                writer.transport.abort()  # bytes no one took: nothing may linger after the count
            else:
                writer.close()

    async def _send(self, writer: asyncio.StreamWriter, data: bytes) -> None:
        self.pending += len(data)
        try:
            writer.write(data)
            await asyncio.wait_for(writer.drain(), self.limits.write_timeout)
        except TimeoutError:
            # Dropped, not closed: a closed transport keeps its unsent bytes (and its socket) until the client
            # reads them, so a client that never reads held them past its timeout and outside the count; and
            # reset (no linger), so the kernel lets go of what it still held for it too.
            sock = writer.get_extra_info("socket")
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            writer.transport.abort()
            raise
        finally:
            self.pending -= len(data)

    async def _read_request(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, first: bool):
        """(method, target, head bytes to forward, body, keep-alive, X-Forwarded-For's last address) or None
        when the client left."""
        lim = self.limits
        try:
            start = await asyncio.wait_for(reader.read(1), lim.head_timeout if first else lim.idle_timeout)
        except TimeoutError:
            if first:
                raise _Reject(408, "request_timeout", f"no request within {lim.head_timeout:g} s") from None
            return None
        if not start:
            return None
        try:
            rest = await asyncio.wait_for(_head(reader, start, lim.max_head), lim.head_timeout)
        except TimeoutError:
            raise _Reject(408, "request_timeout",
                          f"the request line and headers must arrive within {lim.head_timeout:g} s") from None
        except asyncio.IncompleteReadError:
            return None
        method, target, out, length, keep = _parse_head(rest)
        hops = _FORWARDED.findall(rest)  # the balancer appends the address it saw last
        forwarded = hops[-1].rsplit(b",", 1)[-1].strip().decode("latin-1")[:64] if hops else ""
        if length > lim.max_body:
            raise _Reject(413, "request_entity_too_large", f"the body is over {lim.max_body} bytes")
        body = b""
        if length and _CONTINUE.search(rest) and rest[:rest.index(b"\r\n")].endswith(b"HTTP/1.1"):
            # the client waits for a go-ahead before sending its body (never sent to an HTTP/1.0 client)
            writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        if length:
            try:
                body = await asyncio.wait_for(reader.readexactly(length), lim.body_timeout)
            except TimeoutError:
                raise _Reject(408, "request_timeout", f"the body must arrive within {lim.body_timeout:g} s") from None
        return method, target, out, body, keep, forwarded

    # -- to gunicorn and back ---------------------------------------------------------------------
    async def _forward(self, client: str, method: bytes, target: bytes, head: bytes, body: bytes) -> tuple[bytes, bool]:
        path = routed_path(target)
        gate = self.gate_for(path)
        if gate is not None:
            try:
                await gate.acquire(client, self.limits.gate_timeout)
            except TimeoutError:
                return _busy(path, target, head), False
        try:
            return await asyncio.wait_for(self._upstream(head, body), self.limits.upstream_timeout), True
        except (TimeoutError, OSError, asyncio.IncompleteReadError) as exc:
            log.warning("upstream failed for %s: %r", path, exc)
            return _error(502, "bad_gateway", "the application server did not answer; try again shortly"), False
        finally:
            if gate is not None:
                gate.release()

    def gate_for(self, path: str) -> _Gate | None:
        """The gate a request waits at: the heavy one for diffs and dated pages, the costly one for search and the
        rest of ``is_costly``, none for cheap requests."""
        if path.startswith(HEAVY_PREFIXES):
            return self.heavy
        return self.gate if is_costly(path) else None

    async def _upstream(self, head: bytes, body: bytes) -> bytes:
        reader, writer = await asyncio.open_unix_connection(self.upstream, limit=1 << 20)
        try:
            writer.write(head + body)
            # the app may answer before reading the whole body (a refusal): its answer is still there to read
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                await writer.drain()
            chunks = []  # gunicorn closes after the answer (Connection: close); a reset keeps what came before it
            with contextlib.suppress(ConnectionResetError):
                while chunk := await reader.read(1 << 16):
                    chunks.append(chunk)
            if not chunks:
                raise asyncio.IncompleteReadError(b"", None)
            return b"".join(chunks)
        finally:
            writer.close()


MAX_HEADERS = 99  # gunicorn takes 100 header fields; the front adds its own Connection


async def _head(reader: asyncio.StreamReader, start: bytes, limit: int) -> bytes:
    """A request head, line by line to the empty line that ends it (``start``: its first byte, read already).
    A line ending in a bare LF is refused at once (waiting for CRLF CRLF held such a request for the whole head
    timeout, 10 s, before a 408); empty lines before the request line are skipped (RFC 9112, 2.2); a request
    line over the limit is a 414, headers over it or over ``MAX_HEADERS`` lines a 431."""
    lines: list[bytes] = []
    size = 0
    while True:
        try:
            line = start + await reader.readuntil(b"\n")
        except asyncio.LimitOverrunError:
            size = limit + 1
        else:
            size += len(line)
        start = b""
        if size > limit:
            if not lines:
                raise _Reject(414, "uri_too_long", f"a request line over {limit} bytes (query too long?)")
            raise _Reject(431, "request_header_fields_too_large", f"request headers over {limit} bytes")
        if not line.endswith(b"\r\n"):
            raise _Reject(400, "bad_request", "each line of the request head must end with CRLF")
        if line == b"\r\n" and not lines:
            continue
        lines.append(line)
        if line == b"\r\n":
            return b"".join(lines)
        if len(lines) > MAX_HEADERS + 1:
            raise _Reject(431, "request_header_fields_too_large", f"more than {MAX_HEADERS} header lines")


def is_costly(path: str) -> bool:
    """A path the gate takes turns at: search, linkify, autocomplete, diffs, dated rules, rules' histories."""
    return path in COSTLY_PATHS or path.startswith(COSTLY_PREFIXES) \
        or path.startswith(_HISTORY_PAGES) and path.rstrip("/").endswith("/history")


def routed_path(target: bytes) -> str:
    """The path the app will route a request target to, whatever its spelling: WSGI decodes %-escapes
    ("/api/%6Cinkify") and the router merges repeated slashes ("//api/search"); an absolute target
    ("http://x/api/linkify") is made its path before it is forwarded (``origin_form``). Deciding on the target
    as written let those reach search and linkify past the gate (health took 14.7 s under 16 such requests)."""
    path = origin_form(target).split(b"?", 1)[0].split(b"#", 1)[0]
    return _SLASHES.sub("/", unquote_to_bytes(path).decode("latin-1"))


def origin_form(target: bytes) -> bytes:
    """A request target as the path (and query) the app receives: an absolute target ("http://x/api/search?q=a",
    any scheme gunicorn would take, "svn+ssh://x/...") becomes its path, so what the gate reads is what is
    forwarded; anything else that is not a path is refused."""
    if target.startswith(b"/"):
        return target
    if b"://" not in target:
        raise _Reject(400, "bad_request", "the request target must be a path (or an http URL)")
    try:
        parts = urlsplit(target.decode("latin-1"))
    except ValueError:  # "http://[::1/api/search": no URL at all
        raise _Reject(400, "bad_request", "the request target must be a path (or an http URL)") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise _Reject(400, "bad_request", "the request target must be a path (or an http URL)")
    path = (parts.path or "/") + ("?" + parts.query if parts.query else "")
    return path.encode("latin-1")


def _parse_head(head: bytes) -> tuple[bytes, bytes, bytes, int, bool]:
    """(method, target, the head to forward, Content-Length, keep-alive) of a request head."""
    lines = head[:-4].split(b"\r\n")
    parts = lines[0].split(b" ")
    if len(parts) != 3 or not parts[2].startswith(b"HTTP/"):
        raise _Reject(400, "bad_request", "malformed request line")
    method, target, version = parts
    # What gunicorn would refuse with a page of its own, refused here in the API's words: an unknown version
    # (HTTP/1.9 was answered as such), a method or target that is no token (FOO<script>, a tab, a raw \xff)
    if version not in (b"HTTP/1.0", b"HTTP/1.1"):
        raise _Reject(505, "http_version_not_supported", "HTTP/1.0 and HTTP/1.1 only")
    if not _TOKEN.fullmatch(method) or not _TARGET.fullmatch(target):
        raise _Reject(400, "bad_request", "malformed request line")
    if not target.startswith(b"/"):  # forwarded as the path the gate decided on
        target = origin_form(target)
        lines[0] = b" ".join([method, target, version])
    headers = []
    length = 0
    seen: set[bytes] = set()
    keep = version == b"HTTP/1.1"
    for line in lines[1:]:
        name, sep, value = line.partition(b":")
        if not sep or not _HEADER_NAME.fullmatch(name) or _CONTROL.search(value):
            raise _Reject(400, "bad_request", "malformed header line")
        if len(line) > _MAX_FIELD:
            raise _Reject(431, "request_header_fields_too_large", f"a header line over {_MAX_FIELD} bytes")
        low, value = name.lower(), value.strip()
        if low in _ONCE:
            if low in seen:
                raise _Reject(400, "bad_request", f"{name.decode('latin-1')} sent twice")
            seen.add(low)
        if low == b"content-length":
            if not value.isdigit():
                raise _Reject(400, "bad_request", "invalid Content-Length")
            length = int(value)
        elif low == b"transfer-encoding":
            raise _Reject(411, "length_required", "send the body with a Content-Length (no chunked uploads)")
        elif low == b"connection":
            tokens = value.lower()
            keep = b"close" not in tokens if version == b"HTTP/1.1" else b"keep-alive" in tokens
        if low not in _HOP:
            headers.append(line)
    return method, target, b"\r\n".join([lines[0], *headers, b"Connection: close", b"", b""]), length, keep


def _with_connection(answer: bytes, keep: bool) -> tuple[bytes, bool]:
    """The answer with our own Connection header; keep-alive only when its length is known."""
    split = answer.find(b"\r\n\r\n")
    if split < 0:
        return _error(502, "bad_gateway", "the application server sent a broken answer"), False
    lines = answer[:split].split(b"\r\n")
    kept = [line for line in lines[1:] if line.split(b":", 1)[0].strip().lower() not in (b"connection", b"keep-alive")]
    framed = any(line.lower().startswith((b"content-length:", b"transfer-encoding:")) for line in kept)
    status = lines[0].split(b" ", 2)[1:2]
    bodiless = status and (status[0] in (b"204", b"304") or status[0].startswith(b"1"))
    keep = keep and (framed or bool(bodiless))
    connection = b"Connection: keep-alive" if keep else b"Connection: close"
    return b"\r\n".join([lines[0], *kept, connection]) + answer[split:], keep
