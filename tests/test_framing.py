"""Issue 31's "keep" list against a real ``kb serve`` (granian) over loopback: raw request framing. Each case sends
its bytes, then a request smuggled behind them, then a last request asking the server to close; the answers are
read back as a client would frame them, by their own ``Content-Length``. Zero desyncs: every answer is whole and
ends where the next begins, none answers a request the server should have taken as a body (the smuggled record
page), bodies are the ones the framing says, pipelined answers come in order; a malformed request gets a 4xx (or a
closed connection) and nothing after it on the connection is read. Never a 5xx."""
from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Sequence

import pytest

from tests.conftest import copy_data
from tests.test_reliability_server import Served

HOST = b"Host: x\r\n"
JSON = b"Content-Type: application/json\r\n"
SMUGGLED = b"GET /api/records/treachery/907.4b HTTP/1.1\r\nHost: x\r\n\r\n"  # its answer says "treachery/907.4b"
LAST = b"GET /api/documents HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
H = "health"  # an answer's kind, read from its body (_kind)
D = "documents"
R = "record"  # the smuggled request's answer: only where the framing makes it a request of its own
REJECTED = "rejected"  # a 4xx from the server itself (no body), and the connection closed


def _post(body: bytes, *headers: bytes, version: bytes = b"1.1", path: bytes = b"/api/linkify") -> bytes:
    return b"POST " + path + b" HTTP/" + version + b"\r\n" + HOST + JSON + b"".join(h + b"\r\n" for h in headers) \
        + b"\r\n" + body


def _text(marker: str) -> bytes:
    return json.dumps({"text": marker}).encode()


def _chunked(body: bytes, size: bytes | None = None) -> bytes:
    return (size or b"%x" % len(body)) + b"\r\n" + body + b"\r\n0\r\n\r\n"


T1 = _text("B1")  # linkify echoes its text: the answer says which body the app was given
GET_H = b"GET /api/health HTTP/1.1\r\n" + HOST + b"\r\n"

# (name, bytes, the answers expected before the closing one: kinds, "linkify:<text>" or a status; then "+"
# meaning the smuggled record and the last request are answered too, or "closed" meaning nothing more is)
CASES: list[tuple[str, bytes, Sequence[str | int], str]] = [
    # -- well-formed: everything answered, in order ------------------------------------------------------
    ("two gets", GET_H, [H], "+"),
    ("ten gets pipelined", b"".join(b"GET /api/records/treachery/907.%d HTTP/1.1\r\nHost: x\r\n\r\n" % k
                                    for k in range(1, 5)) + GET_H * 6, ["907.1", "907.2", "907.3", "907.4"] + [H] * 6,
     "+"),
    ("a get with a body", b"GET /api/health HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello", [H], "+"),
    ("a post by content-length", _post(T1, b"Content-Length: %d" % len(T1)), ["linkify:B1"], "+"),
    ("a post chunked", _post(_chunked(T1), b"Transfer-Encoding: chunked"), ["linkify:B1"], "+"),
    ("chunked in two chunks", _post(b"5\r\n" + T1[:5] + b"\r\n%x\r\n" % (len(T1) - 5) + T1[5:] + b"\r\n0\r\n\r\n",
                                    b"Transfer-Encoding: chunked"), ["linkify:B1"], "+"),
    ("chunk extension", _post(_chunked(T1, b"%x;name=value" % len(T1)), b"Transfer-Encoding: chunked"),
     ["linkify:B1"], "+"),
    ("chunk size with leading zeros", _post(_chunked(T1, b"000%x" % len(T1)), b"Transfer-Encoding: chunked"),
     ["linkify:B1"], "+"),
    ("chunk size in capitals", _post(_chunked(T1, b"%X" % len(T1)), b"Transfer-Encoding: chunked"),
     ["linkify:B1"], "+"),
    ("chunked with a trailer", _post(b"%x\r\n" % len(T1) + T1 + b"\r\n0\r\nX-Trailer: y\r\n\r\n",
                                     b"Transfer-Encoding: chunked"), ["linkify:B1"], "+"),
    ("transfer-encoding in capitals", _post(_chunked(T1), b"Transfer-Encoding: CHUNKED"), ["linkify:B1"], "+"),
    ("transfer-encoding with spaces around", _post(_chunked(T1), b"Transfer-Encoding:   chunked  "),
     ["linkify:B1"], "+"),
    ("transfer-encoding twice, both chunked", _post(_chunked(T1), b"Transfer-Encoding: chunked",
                                                    b"Transfer-Encoding: chunked"), ["linkify:B1"], "+"),
    ("content-length twice, the same", _post(T1, b"Content-Length: %d" % len(T1), b"Content-Length: %d" % len(T1)),
     ["linkify:B1"], "+"),
    ("content-length 0", _post(b"", b"Content-Length: 0"), [400], "+"),  # the app: no JSON body
    ("content-length with leading zeros", _post(T1, b"Content-Length: 00%d" % len(T1)), ["linkify:B1"], "+"),
    ("an empty line before the request", b"\r\n" + GET_H, [H], "+"),
    ("lines ended by LF alone", b"GET /api/health HTTP/1.1\nHost: x\n\n", [H], "+"),
    ("an absolute target", b"GET http://x/api/health HTTP/1.1\r\nHost: x\r\n\r\n", [H], "+"),
    ("HEAD: a length, no body", b"HEAD /api/health HTTP/1.1\r\nHost: x\r\n\r\n", ["head"], "+"),
    ("HTTP/1.0 kept alive", b"GET /api/health HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\n\r\n", [H], "+"),
    ("HTTP/1.0 not kept alive", b"GET /api/health HTTP/1.0\r\nHost: x\r\n\r\n", [H], "closed"),
    ("connection: close", b"GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", [H], "closed"),
    ("expect 100-continue, body sent at once", _post(T1, b"Expect: 100-continue", b"Content-Length: %d" % len(T1)),
     ["linkify:B1"], "+"),
    ("an unknown method", b"BREW /api/health HTTP/1.1\r\nHost: x\r\n\r\n", [405], "+"),
    ("a body the app refuses unread (415)", b"POST /api/linkify HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
     b"Content-Length: 11\r\n\r\nGET / HTTP/", [415], "+"),
    ("a body on a 404", b"POST /nope HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello", [405], "+"),
    # -- CL.TE and TE.CL: chunked wins and the connection is closed after its answer, or the request is refused --
    ("CL.TE: a short length, the smuggled request in the chunked body",
     _post(b"%x\r\n" % len(T1) + T1 + b"\r\n0\r\n\r\n", b"Content-Length: 4", b"Transfer-Encoding: chunked"),
     ["linkify:B1"], "closed"),
    ("CL.TE: the smuggled request after the last chunk, within the length",
     _post(_chunked(T1) + SMUGGLED, b"Content-Length: %d" % (len(_chunked(T1)) + len(SMUGGLED)),
           b"Transfer-Encoding: chunked"), ["linkify:B1"], "closed"),
    ("TE.CL: transfer-encoding first", _post(_chunked(T1), b"Transfer-Encoding: chunked", b"Content-Length: 3"),
     ["linkify:B1"], "closed"),
    ("TE.CL: a length longer than the chunked body",
     _post(_chunked(T1), b"Transfer-Encoding: chunked", b"Content-Length: 300"), ["linkify:B1"], "closed"),
    ("CL.TE: length 0", _post(_chunked(T1), b"Content-Length: 0", b"Transfer-Encoding: chunked"),
     ["linkify:B1"], "closed"),
    ("CL.TE on a GET", b"GET /api/health HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\nTransfer-Encoding: chunked"
     b"\r\n\r\n0\r\n\r\n", [H], "closed"),
    ("TE.TE: chunked then identity", _post(_chunked(T1), b"Transfer-Encoding: chunked",
                                           b"Transfer-Encoding: identity"), [REJECTED], "closed"),
    ("TE: chunked, identity", _post(_chunked(T1), b"Transfer-Encoding: chunked, identity"), [REJECTED], "closed"),
    ("TE: identity", _post(T1, b"Transfer-Encoding: identity", b"Content-Length: %d" % len(T1)), [REJECTED],
     "closed"),
    ("TE: xchunked", _post(_chunked(T1), b"Transfer-Encoding: xchunked"), [REJECTED], "closed"),
    ("TE: chunkedx", _post(_chunked(T1), b"Transfer-Encoding: chunkedx"), [REJECTED], "closed"),
    ("TE: a vertical tab before chunked", _post(_chunked(T1), b"Transfer-Encoding:\x0bchunked"), [REJECTED],
     "closed"),
    ("TE: a form feed after chunked", _post(_chunked(T1), b"Transfer-Encoding: chunked\x0c"), [REJECTED], "closed"),
    ("TE: a space before the colon", _post(_chunked(T1), b"Transfer-Encoding : chunked"), [REJECTED], "closed"),
    ("TE: folded onto a second line", _post(_chunked(T1), b"Transfer-Encoding:", b" chunked"), [REJECTED],
     "closed"),
    ("TE: in a folded line of another header", _post(_chunked(T1), b"X-A: a", b" Transfer-Encoding: chunked"),
     [REJECTED], "closed"),
    ("TE in HTTP/1.0", _post(_chunked(T1), b"Transfer-Encoding: chunked", version=b"1.0"), [REJECTED], "closed"),
    ("TE: an underscore, not the header: the chunks are the next request",
     _post(_chunked(T1), b"Transfer_Encoding: chunked"), [400, REJECTED], "closed"),
    ("TE: gzip, chunked (chunked last: framed by it)", _post(_chunked(T1), b"Transfer-Encoding: gzip, chunked"),
     ["linkify:B1"], "+"),
    # -- content-length, malformed or duplicated: refused, the connection closed ------------------------------
    ("CL twice, different", _post(T1, b"Content-Length: %d" % len(T1), b"Content-Length: 3"), [REJECTED], "closed"),
    ("CL: a list of two", _post(T1, b"Content-Length: %d, %d" % (len(T1), len(T1))), [REJECTED], "closed"),
    ("CL: a list of two, different", _post(T1, b"Content-Length: 3, %d" % len(T1)), [REJECTED], "closed"),
    ("CL: a plus sign", _post(T1, b"Content-Length: +%d" % len(T1)), [REJECTED], "closed"),
    ("CL: a minus sign", _post(T1, b"Content-Length: -1"), [REJECTED], "closed"),
    ("CL: hexadecimal", _post(T1, b"Content-Length: 0x10"), [REJECTED], "closed"),
    ("CL: a decimal point", _post(T1, b"Content-Length: 16.0"), [REJECTED], "closed"),
    ("CL: a space inside", _post(T1, b"Content-Length: 1 6"), [REJECTED], "closed"),
    ("CL: empty", _post(T1, b"Content-Length: "), [REJECTED], "closed"),
    ("CL: letters", _post(T1, b"Content-Length: sixteen"), [REJECTED], "closed"),
    ("CL: past 64 bits", _post(T1, b"Content-Length: 99999999999999999999999"), [REJECTED], "closed"),
    ("CL: a space before the colon", _post(T1, b"Content-Length : %d" % len(T1)), [REJECTED], "closed"),
    ("CL: folded onto a second line", _post(T1, b"Content-Length:", b" %d" % len(T1)), [REJECTED], "closed"),
    ("CL: a NUL after the digits", _post(T1, b"Content-Length: %d\x00" % len(T1)), [REJECTED], "closed"),
    ("CL: larger than the body sent: the rest is body", _post(T1, b"Content-Length: %d" % (len(T1) + len(SMUGGLED))),
     [400], "+only-last"),
    # -- chunks, malformed: refused, the connection closed -------------------------------------------------
    ("chunk size past 64 bits", _post(_chunked(T1, b"FFFFFFFFFFFFFFFFF10"), b"Transfer-Encoding: chunked"), [400],
     "closed"),
    ("chunk size negative", _post(_chunked(T1, b"-10"), b"Transfer-Encoding: chunked"), [400], "closed"),
    ("chunk size 0x-prefixed", _post(_chunked(T1, b"0x10"), b"Transfer-Encoding: chunked"), [400], "closed"),
    ("chunk size with a space before it", _post(_chunked(T1, b" 10"), b"Transfer-Encoding: chunked"), [400],
     "closed"),
    ("chunk data longer than its size", _post(b"4\r\n" + T1 + b"\r\n0\r\n\r\n", b"Transfer-Encoding: chunked"),
     [400], "closed"),
    # the chunk's data reached the app whole (and was answered); the missing CRLF after it closed the connection
    ("chunk data without its CRLF", _post(b"%x\r\n" % len(T1) + T1 + b"0\r\n\r\n", b"Transfer-Encoding: chunked"),
     ["linkify:B1"], "closed"),
    ("a bare CR in a chunk line", _post(_chunked(T1, b"10\r;x"), b"Transfer-Encoding: chunked"), [400], "closed"),
    # -- heads, malformed: refused, the connection closed ---------------------------------------------------
    ("obs-fold", b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-A: a\r\n  folded\r\n\r\n", [REJECTED], "closed"),
    ("obs-fold with a tab", b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-A: a\r\n\tfolded\r\n\r\n", [REJECTED],
     "closed"),
    ("a NUL in a header value", b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n", [REJECTED], "closed"),
    ("a control byte in a header value", b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-A: a\x01b\r\n\r\n", [REJECTED],
     "closed"),
    ("DEL in a header value", b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-A: a\x7fb\r\n\r\n", [REJECTED], "closed"),
    ("a bare CR in a header value", b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n", [REJECTED],
     "closed"),
    ("a bare CR ending a header line", b"GET /api/health HTTP/1.1\r\nHost: x\rX-A: b\r\n\r\n", [REJECTED], "closed"),
    ("a space in a header name", b"GET /api/health HTTP/1.1\r\nHost: x\r\nX A: b\r\n\r\n", [REJECTED], "closed"),
    ("a header without a colon", b"GET /api/health HTTP/1.1\r\nHost: x\r\nXA\r\n\r\n", [REJECTED], "closed"),
    ("a header line starting with a colon", b"GET /api/health HTTP/1.1\r\nHost: x\r\n: v\r\n\r\n", [REJECTED],
     "closed"),
    ("a control byte in the target", b"GET /api/he\x01alth HTTP/1.1\r\nHost: x\r\n\r\n", [REJECTED], "closed"),
    ("a space in the target", b"GET /api/ health HTTP/1.1\r\nHost: x\r\n\r\n", [REJECTED], "closed"),
    ("a tab in the target", b"GET /api/he\talth HTTP/1.1\r\nHost: x\r\n\r\n", [REJECTED], "closed"),
    ("a byte past ASCII in the target", b"GET /api/\xffhealth HTTP/1.1\r\nHost: x\r\n\r\n", [REJECTED], "closed"),
    ("HTTP/1.9", b"GET /api/health HTTP/1.9\r\nHost: x\r\n\r\n", [REJECTED], "closed"),
    ("HTTP/2.0 in an HTTP/1 line", b"GET /api/health HTTP/2.0\r\nHost: x\r\n\r\n", [REJECTED], "closed"),
    ("no version", b"GET /api/health\r\nHost: x\r\n\r\n", [REJECTED], "closed"),
    ("a lower-case version", b"GET /api/health http/1.1\r\nHost: x\r\n\r\n", [REJECTED], "closed"),
    ("a method with a bracket", b"GE<T /api/health HTTP/1.1\r\nHost: x\r\n\r\n", [REJECTED], "closed"),
    ("two spaces after the method", b"GET  /api/health HTTP/1.1\r\nHost: x\r\n\r\n", [REJECTED], "closed"),
    ("a hundred and one headers", b"GET /api/health HTTP/1.1\r\n" + b"".join(b"X-%d: y\r\n" % i for i in range(101))
     + b"\r\n", [431], "closed"),
    ("a head of 600 KB", b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-A: " + b"a" * 600_000 + b"\r\n\r\n", [431],
     "closed"),
    ("a target of 70 KB", b"GET /api/search?q=" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", [414], "closed"),
]


@pytest.fixture(scope="module")
def served(tmp_path_factory, data_dir):
    tmp = tmp_path_factory.mktemp("framing")
    server = Served(copy_data(data_dir, tmp / "data"), tmp, workers=1)
    yield server
    server.stop()


def _exchange(port: int, raw: bytes) -> bytes:
    """Send ``raw`` on one connection and read until the server closes it (or 5 s pass without a byte)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        with contextlib.suppress(ConnectionError):  # the server may close before it has read everything
            s.sendall(raw)
        got = b""
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                chunk = s.recv(1 << 16)
            except (TimeoutError, ConnectionResetError):
                break
            if not chunk:
                break
            got += chunk
    return got


def _answers(stream: bytes, methods: list[bytes]) -> list[tuple[int, dict[str, str], bytes]]:
    """The answers in ``stream``, each framed by its own Content-Length (a HEAD answer has no body); fails on an
    answer cut short or bytes left over."""
    out: list[tuple[int, dict[str, str], bytes]] = []
    while stream:
        head, sep, rest = stream.partition(b"\r\n\r\n")
        assert sep, f"an answer's head cut short: {stream[:200]!r}"
        lines = head.split(b"\r\n")
        assert lines[0].startswith((b"HTTP/1.1 ", b"HTTP/1.0 ")), f"not an answer's start: {stream[:200]!r}"
        status = int(lines[0].split()[1])
        headers = {k.strip().lower().decode(): v.strip().decode(errors="replace")
                   for k, _, v in (line.partition(b":") for line in lines[1:])}
        if status == 100:
            stream = rest
            continue
        assert "transfer-encoding" not in headers, headers  # every answer of the app and the server has a length
        length = 0 if (methods[len(out)] if len(out) < len(methods) else b"GET") == b"HEAD" \
            else int(headers["content-length"])
        assert len(rest) >= length, f"an answer cut short: {length} bytes said, {len(rest)} came"
        out.append((status, headers, rest[:length]))
        stream = rest[length:]
    return out


def _kind(status: int, headers: dict[str, str], body: bytes) -> str | int:
    if not body:
        if status >= 400 and headers.get("connection") == "close":
            return REJECTED if status == 400 else status  # 431, 414: the server's own, no body either
        return "head" if status == 200 else status
    if status != 200:
        return status
    answer = json.loads(body)
    if isinstance(answer, dict) and answer.get("ok") is True:
        return H
    if isinstance(answer, dict) and "links" in answer:
        return "linkify:" + answer["text"]
    if isinstance(answer, list) and answer and "url" in answer[0]:
        return D
    if isinstance(answer, dict) and answer.get("id") == "treachery/907.4b":
        return R
    if isinstance(answer, dict) and answer.get("id", "").startswith("treachery/907."):
        return answer["id"].rsplit("/", 1)[1]
    return f"unexpected answer {body[:80]!r}"


@pytest.mark.parametrize("name, raw, expected, then", CASES, ids=[c[0] for c in CASES])
def test_framing_never_desyncs(served, name, raw, expected, then):
    stream = _exchange(served.port, raw + SMUGGLED + LAST)
    methods = [line.split(b" ", 1)[0] for line in (raw + SMUGGLED + LAST).split(b"\r\n")
               if line.startswith((b"GET ", b"HEAD ", b"POST "))]
    answers = _answers(stream, methods if name.startswith("HEAD") else [])
    kinds = [_kind(*a) for a in answers]
    assert all(status < 500 for status, _, _ in answers), kinds
    want = list(expected) + ([R, D] if then == "+" else [D] if then == "+only-last" else [])
    assert kinds == want, f"{name}: {kinds}"
    for _, headers, _ in answers:  # the server's own answers name no version either
        assert "/" not in headers.get("server", "granian")


def test_the_table_holds_eighty_cases():
    assert len(CASES) >= 80
