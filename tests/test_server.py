"""Issue 31 against a real ``kb serve`` (granian) over loopback sockets: the faults an attacker found in the
hand-written front, each reproduced as the attacker did it. Every load is bounded in count and time."""
from __future__ import annotations

import contextlib
import http.client
import json
import os
import resource
import signal
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.conftest import children_of, copy_data
from tests.test_reliability_server import Served

LARGE = "/api/documents/futuresight/records"  # the largest answer of the bundled build (~340 KB)
DISCORD_KEY = Ed25519PrivateKey.generate()  # the served app's Discord key (KB_DISCORD_PUBLIC_KEY): its checks


@pytest.fixture(scope="module")
def served(tmp_path_factory, data_dir):
    """kb serve without KB_PUBLIC_URL (links are made from the request), trusting one loopback address as a
    proxy: 127.0.0.1 is any client, 127.0.0.2 the load balancer; Discord's endpoint on, with DISCORD_KEY."""
    tmp = tmp_path_factory.mktemp("server")
    public = DISCORD_KEY.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()
    server = Served(copy_data(data_dir, tmp / "data"), tmp,
                    env={"KB_TRUSTED_PROXIES": "127.0.0.2", "KB_DISCORD_PUBLIC_KEY": public})
    yield server
    server.stop()


def _ask(port: int, path: str, headers: dict | None = None, source: str = "127.0.0.1",
         timeout: float = 10) -> tuple[int, http.client.HTTPMessage, bytes]:
    # Bound to a source address only when asked for another: a bind() picks its port without knowing the
    # destination, so it cannot reuse a port in TIME_WAIT as connect() does (net.ipv4.tcp_tw_reuse); the tens of
    # thousands of requests of this module's tests then ran the ephemeral range dry (EADDRNOTAVAIL, 241 failures).
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout,
                                      source_address=None if source == "127.0.0.1" else (source, 0))
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.headers, response.read()
    finally:
        conn.close()


def _keep_asking(port: int, method: str, path: Callable[[], str], statuses: list[int], going: Callable[[], bool],
                 body: str | None = None, headers: dict | None = None, source: str = "127.0.0.1") -> None:
    """One kept-alive connection from ``source`` asking ``method path()`` while ``going()``, each answer's status added
    to ``statuses`` (a gate's 503 closes the connection: the next request opens it again)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    try:
        while going():
            conn.request(method, path(), body=body, headers=headers or {})
            response = conn.getresponse()
            response.read()
            statuses.append(response.status)
            if response.getheader("Connection") == "close":
                conn.close()
    finally:
        conn.close()


def _asking_and_not_reading(port: int, path: str, then: bytes = b"") -> socket.socket:
    """A client that asks for ``path`` (and pipelines ``then`` behind it) and reads nothing yet (4 KB window)."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.settimeout(20)
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET " + path.encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n" + then)
    return s


def _read_all(s: socket.socket) -> tuple[bytes, bool]:
    """Everything until the server closes; (bytes, whether it ended in a reset)."""
    got = b""
    try:
        while chunk := s.recv(1 << 16):
            got += chunk
    except ConnectionResetError:
        return got, True
    return got, False


# -- fault 1: headers a client must not control ------------------------------------------------------------
def test_forwarded_headers_from_a_client_are_dropped(served):
    # gunicorn honoured SCRIPT_NAME from anyone: /zzz/api/search answered a search no gate counted, /yyy a 500
    status, _, body = _ask(served.port, "/zzz/api/search?q=trample", {"SCRIPT_NAME": "/zzz"})
    assert status == 404 and b'"results"' not in body
    status, _, body = _ask(served.port, "/api/health", {"SCRIPT_NAME": "/yyy"})
    assert status == 200 and json.loads(body)["ok"] is True
    # X-Forwarded-Proto: https alone rewrote the site's links
    for header in ({"X-Forwarded-Proto": "https"}, {"X-Forwarded-Ssl": "on"}, {"Forwarded": "proto=https"},
                   {"X-Forwarded-Prefix": "/evil"}):
        status, _, page = _ask(served.port, "/treachery/907.4b", {"Host": "kb.test", **header})
        assert status == 200 and b"http://kb.test/" in page
        assert b"https://kb.test" not in page and b"/evil/" not in page, header


def test_forwarded_headers_from_a_trusted_proxy_are_honoured(served):
    status, _, page = _ask(served.port, "/treachery/907.4b", {"Host": "kb.test", "X-Forwarded-Proto": "https"},
                           source="127.0.0.2")
    assert status == 200 and b"https://kb.test/" in page and b"http://kb.test/" not in page


def test_the_gate_takes_turns_by_the_address_a_trusted_proxy_forwards():
    from web.gate import Settings, TrustedProxies

    seen: list[str] = []

    def app(environ, start_response):
        seen.append(environ["REMOTE_ADDR"])
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b""]

    trusted = TrustedProxies(app, Settings.from_env({"KB_TRUSTED_PROXIES": "10.0.0.0/8, ::1"}).trusted_proxies)
    from werkzeug.test import Client

    forwarded = {"X-Forwarded-For": "198.51.100.1, 203.0.113.7"}
    Client(trusted).get("/", headers=forwarded, environ_base={"REMOTE_ADDR": "10.1.2.3"})
    Client(trusted).get("/", headers=forwarded, environ_base={"REMOTE_ADDR": "192.0.2.9"})
    assert seen == ["203.0.113.7", "192.0.2.9"]  # the balancer's last hop; anyone else is who they are
    with pytest.raises(ValueError, match="KB_TRUSTED_PROXIES must list IP addresses"):
        Settings.from_env({"KB_TRUSTED_PROXIES": "balancer.local"})
    with pytest.raises(ValueError, match="KB_FORWARDED_FOR must be unset: it is gone"):
        Settings.from_env({"KB_FORWARDED_FOR": "1"})


# -- fault 2: a truncated answer is never relayed as complete -----------------------------------------------
@pytest.mark.slow  # kills the workers and waits for new ones
def test_a_worker_killed_mid_answer_closes_the_connection(served):
    # the front relayed 200, Content-Length: 990005, 219,968 bytes, then the next pipelined answer inside that body
    expected = len(_ask(served.port, LARGE)[2])
    ask = b"GET " + LARGE.encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    readers = [_asking_and_not_reading(served.port, LARGE, then=ask * 29) for _ in range(2)]  # ~10 MB each
    time.sleep(1)  # each answer is being written, at its reader's pace
    for worker in children_of(served.proc.pid):
        os.kill(worker, signal.SIGKILL)
    for s in readers:
        got, _ = _read_all(s)
        s.close()
        whole = 0
        while got:
            head, _, rest = got.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200")
            length = int(next(line.split(b":")[1] for line in head.lower().split(b"\r\n")
                              if line.startswith(b"content-length:")))
            assert length == expected
            if len(rest) < length:  # cut short: then the connection closed, and nothing follows
                assert b"HTTP/1.1" not in rest
                break
            assert rest[:length].endswith(b"]\n")  # a whole answer
            whole += 1
            got = rest[length:]
        assert whole < 30  # the kill cut this connection's answers short
    deadline = time.monotonic() + 60  # and new workers answer
    while time.monotonic() < deadline:
        try:
            if _ask(served.port, "/api/health", timeout=2)[0] == 200:
                break
        except OSError:
            time.sleep(0.2)
    assert _ask(served.port, "/api/health")[0] == 200


def _listening(port: int) -> set[str]:
    """The inodes of the sockets listening on ``port`` (IPv4), read from /proc."""
    out = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
            out.add(fields[9])
    return out


def _workers_listening(server: Served, count: int, gone: int | None = None) -> list[int]:
    """Wait (60 s at most) until ``count`` workers each hold a socket listening on the server's port (granian gives
    each worker its own, SO_REUSEPORT), ``gone`` (a killed worker) not among them; their process ids. (Just after
    kill -9 the dead worker's sockets are still listed for a moment: CI saw it.)"""
    deadline = time.monotonic() + 60
    while True:
        ready = []
        sockets = _listening(server.port)
        for pid in children_of(server.proc.pid):
            with contextlib.suppress(OSError):
                if any(os.readlink(fd)[8:-1] in sockets for fd in Path(f"/proc/{pid}/fd").iterdir()):
                    ready.append(pid)
        if len(ready) == count and gone not in ready:
            return ready
        assert time.monotonic() < deadline, f"{len(ready)} of {count} workers listening after 60 s"
        time.sleep(0.1)


@pytest.mark.slow  # kills a worker twice under load and waits for its replacement
def test_a_worker_killed_under_load_costs_only_the_requests_it_held(tmp_path, data_dir):
    """kill -9 of one worker while eight clients ask: the requests that worker held fail (closed, never a cut
    answer taken for a whole one); every other answer is whole and right; the
    replacement listens and the load goes on. (The hand-written front lost at most one request a kill; with granian
    a worker holds its connections itself: see docs/serving.md, A worker that dies.) A server of its own: a kill
    that goes wrong must not take the module's server from the tests after it (CI saw 17 fail that way)."""
    served = Served(copy_data(data_dir, tmp_path / "data"), tmp_path)
    try:
        _kill_twice_under_load(served)
    finally:
        served.stop()


def _kill_twice_under_load(served: Served) -> None:
    paths = ["/api/health", "/treachery/907.4b", "/api/search?q=unveil", LARGE]
    expected = {path: _ask(served.port, path)[2] for path in paths}
    _workers_listening(served, 2)
    stop = threading.Event()
    answered = [0] * 8
    failures: list[list[int]] = [[] for _ in range(8)]  # for each client, the kill count at each failure
    wrong: list[str] = []
    kills = [0]

    def client(k: int) -> None:
        i = k
        while not stop.is_set():
            i += 1
            path = paths[i % len(paths)]
            try:
                status, _, body = _ask(served.port, path, timeout=30)
            except (OSError, http.client.HTTPException):  # reset, closed without an answer, or cut short
                failures[k].append(kills[0])
                continue
            if status != 200 or body != expected[path]:
                wrong.append(f"{path}: {status}, {len(body)} bytes")
            answered[k] += 1

    threads = [threading.Thread(target=client, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    try:
        replacement = None
        for _ in range(2):
            before = sum(answered)
            while sum(answered) < before + 100:  # the load is on
                time.sleep(0.01)
            listening = set(_workers_listening(served, 2))
            # never the worker respawned a moment ago: granian takes the same worker dying again within 5.5 s of
            # its respawn for a crash loop and exits (CI killed the replacement: process ids had wrapped, and the
            # smaller id was the newer worker's). docs/serving.md, A worker that dies.
            victim = min(listening - {replacement})
            kills[0] += 1
            os.kill(victim, signal.SIGKILL)
            now = set(_workers_listening(served, 2, gone=victim))  # replaced; it listens
            assert victim not in now
            (replacement,) = now - listening
            settled = sum(answered)
            while sum(answered) < settled + 100:  # and answers with the other
                time.sleep(0.01)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=60)
    per_kill = [sum(f.count(n) for f in failures) for n in (1, 2)]
    print(f"answered {sum(answered)}, failed per kill {per_kill}")
    assert not wrong, wrong[:5]
    # How many requests a kill costs is a figure (printed above), not a guarantee: a client whose request the dead
    # worker held can retry into the dead worker's accept queue before the kernel drops it (CI saw a client fail
    # twice in one kill): docs/serving.md, A worker that dies.
    assert all(0 not in f for f in failures)  # nothing failed before the first kill


@pytest.mark.slow  # replaces both workers, one after the other, 30 s apart (web.serve.RESPAWN_INTERVAL)
def test_workers_replaced_on_purpose_under_load_refuse_no_connection(tmp_path, data_dir):
    # over the RSS bound (or on SIGHUP) granian starts a worker's replacement and stops the old one
    # --respawn-interval later; at 0.5 s the new one was still loading the app, and both replaced left none listening
    server = Served(copy_data(data_dir, tmp_path / "data"), tmp_path)
    try:
        old = set(_workers_listening(server, 2))
        stop = threading.Event()
        outcomes: list[str] = []

        def client() -> None:
            while not stop.is_set():
                try:
                    outcomes.append(str(_ask(server.port, "/api/health", timeout=30)[0]))
                except OSError as exc:
                    outcomes.append(type(exc).__name__)
                    time.sleep(0.01)

        threads = [threading.Thread(target=client) for _ in range(4)]
        for t in threads:
            t.start()
        try:
            while len(outcomes) < 100:
                time.sleep(0.01)
            os.kill(server.proc.pid, signal.SIGHUP)  # granian replaces every worker, as over the RSS bound
            deadline = time.monotonic() + 120
            while old & set(children_of(server.proc.pid)) or len(_workers_listening(server, 2)) != 2:
                assert time.monotonic() < deadline, "the workers were not replaced within 120 s"
                time.sleep(0.2)
            answered = len(outcomes)
            while len(outcomes) < answered + 100:
                time.sleep(0.01)
        finally:
            stop.set()
            for t in threads:
                t.join(timeout=60)
    finally:
        server.stop()
    failed = [o for o in outcomes if o != "200"]
    print(f"{len(outcomes)} requests, failed: {failed}")
    assert "ConnectionRefusedError" not in failed  # a worker listened all along
    assert len(failed) <= 4  # at most one a client, should one wait in a stopping worker's queue


# -- fault 3: SIGTERM drains -----------------------------------------------------------------------------------
@pytest.mark.slow  # a server of its own
def test_sigterm_finishes_the_answers_in_flight_and_refuses_new_connections(tmp_path, data_dir):
    server = Served(copy_data(data_dir, tmp_path / "data"), tmp_path, workers=1, env={"KB_GRACE": "20"})
    try:
        expected = len(_ask(server.port, LARGE)[2])
        readers = [_asking_and_not_reading(server.port, LARGE) for _ in range(3)]
        time.sleep(0.5)
        server.proc.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        with pytest.raises(OSError):  # no new connection while the old ones drain
            _ask(server.port, "/api/health", timeout=2)
        for s in readers:
            time.sleep(0.5)  # still reading slowly
            got, reset = _read_all(s)
            s.close()
            assert not reset and got.startswith(b"HTTP/1.1 200")
            assert len(got.partition(b"\r\n\r\n")[2]) == expected  # whole
        assert server.proc.wait(timeout=30) == 0
        assert "Traceback" not in server.stderr() and "CancelledError" not in server.stderr()
    finally:
        server.stop()


# -- fault 4: connections and file descriptors ----------------------------------------------------------------
def test_the_open_files_limit_is_raised_to_the_hard_limit(served):
    limits = Path(f"/proc/{served.proc.pid}/limits").read_text()
    line = next(line for line in limits.splitlines() if line.startswith("Max open files"))
    soft, hard = line.split()[3:5]
    assert soft == hard and "open files up to" in served.stderr()


@pytest.mark.slow  # four thousand connections
def test_four_thousand_idle_connections_from_one_address_do_not_starve_health(served):
    # the attack: 4,100 idle sockets from one address made /api/health answer 503 for everyone. granian
    # stopped accepting at its default of 1,024 connections a worker: health waited in the kernel's queue until the
    # idle ones timed out (10 s). kb serve lets a worker hold 16,384 (web.serve.MAX_CONNECTIONS).
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if min(hard, 8192) < 4400:
        pytest.skip(f"this process may open {hard} files")
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
    assert "connections a worker" in served.stderr()

    def p99() -> float:
        times = []
        for _ in range(50):
            started = time.perf_counter()
            assert _ask(served.port, "/api/health", timeout=5)[0] == 200  # a starved probe times out
            times.append(time.perf_counter() - started)
        return sorted(times)[int(len(times) * 0.99)]

    floor = p99()  # what this machine gives now, with no idle connections
    held = []
    try:
        for i in range(4100):
            s = socket.create_connection(("127.0.0.1", served.port), timeout=5, source_address=("127.0.0.2", 0))
            if i % 2:
                s.sendall(b"GET /api/health HTTP/1.1\r\n")  # half of them a head that never ends
            held.append(s)
        loaded = p99()
    finally:
        for s in held:
            s.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    # the 100 ms on a quiet machine; on a busy one, plus what it adds with no idle connections at all
    # the 100 ms target is measured quietly (docs/serving.md); here another test may share the cores (a fresh-clone
    # run saw 0.33 s): the bound catches what this guards against, probes waiting out the 5 s head timeout
    assert loaded < 0.5 + 2 * floor, (loaded, floor)


def test_a_worker_holds_as_many_connections_as_its_files_allow():
    from web.serve import MAX_CONNECTIONS, connections_per_worker

    assert connections_per_worker(1 << 20) == MAX_CONNECTIONS == 16_384
    assert connections_per_worker(4096) == 4096 - 512  # never so many that accepting runs out of descriptors
    assert connections_per_worker(256) == 64


# -- fault 5: a record id naming a child that does not exist ---------------------------------------------------
@pytest.mark.parametrize("path", ["/api/records/nope/x", "/api/records/treachery/907.4b/zz",
                                  "/api/documents/nope/records"])
def test_a_missing_child_record_is_a_404_in_the_api_s_shape(served, path):
    status, headers, body = _ask(served.port, path)
    assert status == 404 and set(json.loads(body)["error"]) == {"code", "message"}
    assert headers["X-Content-Type-Options"] == "nosniff" and "frame-ancestors 'none'" in \
        headers["Content-Security-Policy"]
    assert headers["Server"] == "granian"  # no version named


# -- security headers: every answer the app makes; the server's own carry no body --------------------------------
SECURED = {"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY"}


@pytest.mark.parametrize("method, path, body, status", [
    ("GET", "/treachery/907.4b", None, 200), ("GET", "/nope-page", None, 404), ("GET", "/api/nope", None, 404),
    ("GET", "/api/search?q=a&limit=0", None, 400), ("GET", "/search/?q=x", None, 308),
    ("GET", "/static/nope.css", None, 404), ("GET", "/api/records/%ff", None, 404),
    ("DELETE", "/api/health", None, 405), ("POST", "/api/linkify", b"x" * 300_000, 413),
    ("POST", "/api/linkify", b"x", 415), ("GET", "/api/search?q=" + "a" * 40_000, None, 400),
])
def test_every_answer_of_the_app_carries_the_security_headers(served, method, path, body, status):
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    try:
        conn.request(method, path, body=body,
                     headers={"Content-Type": "application/json" if status == 413 else "text/plain"})
        response = conn.getresponse()
        response.read()
    finally:
        conn.close()
    assert response.status == status
    for name, value in SECURED.items():
        assert response.getheader(name) == value, name
    assert "frame-ancestors 'none'" in response.getheader("Content-Security-Policy", "")
    assert response.getheader("Server") == "granian"  # no version named


@pytest.mark.parametrize("raw, status", [
    (b"GET /api/health HTTP/1.9\r\nHost: x\r\n\r\n", 400),
    (b"POST /api/linkify HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400),
    (b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-A: " + b"a" * 600_000 + b"\r\n\r\n", 431),
    (b"GET /api/search?q=" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),
])
def test_the_server_s_own_answers_are_empty_and_name_no_server(served, raw, status):
    # hyper (in granian) answers a request it cannot parse itself, before the app: no header can be added to these
    # answers (granian has no setting for it), so they must carry nothing a browser could render, sniff or frame
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as s:
        with contextlib.suppress(ConnectionError):
            s.sendall(raw)
        answer, _ = _read_all(s)
    head, _, rest = answer.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    assert lines[0].startswith(f"HTTP/1.1 {status} ") and rest == b""
    assert sorted(line.split(":")[0].lower() for line in lines[1:]) == ["connection", "content-length", "date"]
    assert "content-length: 0" in lines and "connection: close" in lines


def test_an_exception_outside_flask_is_answered_with_the_security_headers():
    # granian answers an exception escaping the WSGI app itself: "500 Internal server error", plain text, none of
    # the security headers. The app's outermost layer answers it first.
    from werkzeug.test import Client

    from web.app import SECURITY_HEADERS
    from web.gate import Guarded

    def broken(environ, start_response):
        raise RuntimeError("a bug in a layer around Flask")

    response = Client(Guarded(broken, SECURITY_HEADERS)).get("/api/health")
    assert response.status_code == 500 and response.json == {
        "error": {"code": "internal_error", "message": "something went wrong on our side"}}
    for name, value in SECURITY_HEADERS.items():
        assert response.headers[name] == value


# -- the gate --------------------------------------------------------------------------------------------------
@pytest.mark.slow  # a load test: 16 clients for 8 s
def test_sixteen_costly_clients_from_eight_addresses_leave_health_and_cached_pages_fast(served):
    phrases = " ".join(f'"a the {w}"' for w in ["of", "to", "a", "and", "in", "is", "be", "that", "it", "for"] * 6)
    stop = threading.Event()
    statuses: list[int] = []

    def attacker(k: int) -> None:
        conn = None
        i = 0
        while not stop.is_set():
            i += 1
            try:
                conn = conn or http.client.HTTPConnection("127.0.0.1", served.port, timeout=30,
                                                          source_address=(f"127.0.1.{k % 8 + 1}", 0))
                conn.request("GET", "/api/search?q=" + quote(f"{phrases[:470]} z{k}x{i}"))
                response = conn.getresponse()
                response.read()
                statuses.append(response.status)
                if response.getheader("Connection") == "close":
                    conn.close()
                    conn = None
            except OSError:
                conn = None
        if conn:
            conn.close()

    cached = "/treachery/907.4b"

    def p99s(seconds: float) -> tuple[float, float]:
        health: list[float] = []
        pages: list[float] = []
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for path, times in (("/api/health", health), (cached, pages)):
                started = time.perf_counter()
                assert _ask(served.port, path, source="127.0.0.9")[0] == 200
                times.append(time.perf_counter() - started)
            time.sleep(0.02)
        return tuple(sorted(t)[int(len(t) * 0.99)] for t in (health, pages))  # type: ignore[return-value]

    floor = p99s(3)  # the same requests with no load: what this machine gives now
    threads = [threading.Thread(target=attacker, args=(k,)) for k in range(16)]
    for t in threads:
        t.start()
    try:
        time.sleep(1)
        p99 = p99s(8)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=60)
    assert statuses.count(200) > 16 and set(statuses) <= {200, 503}
    # the targets (100 ms, 200 ms) on a quiet machine; on a busy one, plus what it adds with no load at all
    print(f"p99 health / cached page: {p99} under load, {floor} without")
    # The targets (health p99 < 100 ms, a cached page's < 200 ms) are measured on a quiet machine
    # (docs/serving.md); here another test may share the two cores, so the bound catches what the gate is for: before
    # it, a cached page waited 5.6 s (p50) behind uncached ones, and health with them.
    assert p99[0] < 0.5 + 2 * floor[0] and p99[1] < 1.0 + 2 * floor[1], (p99, floor)


def test_the_same_error_is_logged_at_most_once_a_second():
    # out of file descriptors, granian's accept loop logged the same error 481,653 times in 25 s (195 MB)
    import io
    import logging
    import logging.config

    config = json.loads((Path(__file__).parent.parent / "web" / "granian_logging.json").read_text())
    config["handlers"]["console"]["stream"] = "ext://sys.stderr"
    logging.config.dictConfig(config)
    handler = logging.getLogger("_granian").handlers[0]
    assert isinstance(handler, logging.StreamHandler)
    out = io.StringIO()
    handler.setStream(out)
    log = logging.getLogger("_granian")
    started = time.monotonic()
    while time.monotonic() - started < 1.5:
        log.error("Failed to accept connection: Too many open files")
        time.sleep(0.001)
    log.error("something else")
    lines = out.getvalue().splitlines()
    assert len(lines) == 3 and lines[-1] == "[ERROR] something else"
    assert lines[1].startswith("[ERROR] Failed to accept connection: Too many open files (and ")


def test_the_access_log_writes_a_request_s_path_as_it_could_have_been_sent():
    # granian logs the decoded path (PATH_INFO): '/api/x%0A[...] 6.6.6.6 - "GET /admin HTTP/1.1" 200' wrote a second,
    # made-up line into the log, %1B a terminal's escape sequence, and /api/search%3Fq=x (a 404) read as a search.
    # Found by session 25's attacker. Here with granian's own access logger and format, and kb serve's config.
    import io
    import logging
    import logging.config

    from granian.log import DEFAULT_ACCESSLOG_FMT, log_request_builder

    config = json.loads((Path(__file__).parent.parent / "web" / "granian_logging.json").read_text())
    logging.config.dictConfig(config)
    handler = logging.getLogger("granian.access").handlers[0]
    assert isinstance(handler, logging.StreamHandler)
    out = io.StringIO()
    handler.setStream(out)
    log_request = log_request_builder(DEFAULT_ACCESSLOG_FMT)
    forged = '\n[2026-11-30 11:00:16 +0000] 6.6.6.6 - "GET /admin HTTP/1.1" 200 0.1\r\x1b[31m'
    # PATH_INFO as granian hands it over: the path's bytes, percent-decoded, as latin-1 (PEP 3333)
    for path in ("/api/x" + forged, "/api/search?q=trample", "/cr/é 100%".encode().decode("latin-1"), "/cr/702.19"):
        log_request(time.time(), time.perf_counter(), {"addr_remote": "127.0.0.1", "path": path, "qs": "",
                                                       "method": "GET", "scheme": "http", "protocol": "HTTP/1.1"}, 404)
    lines = out.getvalue().splitlines()
    assert len(lines) == 4 and all(line.isprintable() for line in lines)
    assert [line.split('"')[1] for line in lines] == [
        "GET /api/x%0A%5B2026-11-30%2011:00:16%20+0000%5D%206.6.6.6%20-%20%22GET%20/admin%20HTTP/1.1%22%20200%200.1"
        "%0D%1B%5B31m HTTP/1.1",
        "GET /api/search%3Fq=trample HTTP/1.1", "GET /cr/%C3%A9%20100%25 HTTP/1.1", "GET /cr/702.19 HTTP/1.1"]
    assert lines[0].startswith("[") and lines[0].endswith('" 404 ' + lines[0].rsplit(" ", 1)[1])


# -- fault 6: the history database cannot be written ------------------------------------------------------------
@pytest.mark.slow  # parses two official releases
def test_a_history_database_that_cannot_be_written_is_an_os_error_for_the_build_to_report(tmp_path):
    # on a full disk the VACUUM raised sqlite3.OperationalError, which kb build and kb serve printed as a traceback;
    # the build's writer reports an OSError in one line and keeps the previous build (kb.store.publish)
    import subprocess
    import sys

    from tests.conftest import CR_HISTORY, NO_HISTORY, ROOT

    if not CR_HISTORY.is_dir():
        pytest.skip(NO_HISTORY)
    script = f"""
import resource, signal, sqlite3
from pathlib import Path
from ingest.history import Lineages, write_history
from ingest.releases import load_release
releases = [load_release(Path({str(CR_HISTORY)!r}) / n) for n in
            ("MagicCompRules_20260619.txt", "MagicCompRules_20260807.txt")]
lineages = Lineages.build(releases)
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead of killing us
resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
try:
    write_history(Path({str(tmp_path / "history.sqlite")!r}), lineages)
except OSError as exc:
    print("OSError", exc.errno)
except sqlite3.Error as exc:
    print("sqlite3", exc)
"""
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.stdout.split()[:1] == ["OSError"], out.stdout + out.stderr[-2000:]


# -- fault 5: what a data directory serves is what the command asked -------------------------------------------
def _two_builds(data_dir: Path, to: Path, other_sources: Path | None = None) -> tuple[str, str]:
    """A copy of ``data_dir`` whose one build is there twice: (older, newer = current). With ``other_sources``
    the older one says it was made with ``--cr other_sources`` (its manifest; the build itself is intact)."""
    import shutil

    copy_data(data_dir, to)
    newer = os.readlink(to / "current").rsplit("/", 1)[-1]
    older = "19990101T000000-000000"
    shutil.copytree(to / "builds" / newer, to / "builds" / older)
    manifest = json.loads((to / "builds" / older / "manifest.json").read_text())
    manifest["sequence"] = manifest.get("sequence", 1) - 1
    manifest["build_id"] = older
    if other_sources is not None:
        manifest["cr"] = str(other_sources.resolve())
    (to / "builds" / older / "manifest.json").write_text(json.dumps(manifest))
    return older, newer


def test_a_damaged_newest_build_falls_back_to_an_older_one_of_the_same_sources(tmp_path, data_dir):
    # after `truncate -s 400000 DATA/builds/<current>/records.json`, kb serve rebuilt from the bundled corpus alone
    # although intact builds of the served sources sat in builds/, and said nothing
    from web.serve import prepare

    data = tmp_path / "data"
    _, newer = _two_builds(data_dir, data)
    records = data / "builds" / newer / "records.json"
    records.write_bytes(records.read_bytes()[:400_000])
    said: list[str] = []
    from tests.conftest import CORPUS

    plan = prepare(CORPUS, data, None, say=said.append)
    intact = sorted(p.name for p in (data / "builds").iterdir() if p.name != newer)  # older ones, all intact
    assert plan.build_id in intact and plan.stale, said
    assert plan.why and f"serving the newest intact one, {plan.build_id}" in plan.why and newer in plan.why
    assert os.readlink(data / "current").endswith(newer)  # nothing rebuilt, nothing switched


@pytest.mark.slow  # a server of its own
def test_serve_names_its_build_and_the_others_and_never_switches_to_other_sources(tmp_path, data_dir):
    # `kb serve --cr ...` on the default ./var switched an already running `make serve` to its new build
    rules = tmp_path / "MagicCompRules_20260807.txt"
    rules.write_text("stand-in: the build below only says it was made with it\n")
    older, newer = _two_builds(data_dir, tmp_path / "data", other_sources=rules)
    server = Served(tmp_path / "data", tmp_path, workers=1)
    try:
        assert server.health()["build_id"] == newer
        lines = server.stderr().splitlines()
        assert f"serving build {newer}, made from the bundled documents only" in lines
        assert f"also here: 1 build made from the official rules {rules.resolve()}: add --cr {rules.resolve()} " \
               "to serve it" in lines
        os.unlink(tmp_path / "data" / "current")  # what kb build --cr does to the link, by hand
        os.symlink(f"builds/{older}", tmp_path / "data" / "current")
        time.sleep(2.5)  # past the workers' look at the link (every second)
        for _ in range(4):
            assert server.health()["build_id"] == newer  # still the build of its own sources
    finally:
        server.stop()


def test_a_current_link_looping_on_itself_is_said_in_one_line(tmp_path, data_dir):
    from kb.store import StoreError, current_build_dir

    data = copy_data(data_dir, tmp_path / "data")
    os.unlink(data / "current")
    os.symlink("current", data / "current")
    with pytest.raises(StoreError, match="'current' is a symlink loop"):
        current_build_dir(data)


# -- memory: a worker's threads share a few searchers -----------------------------------------------------------
def test_threads_that_search_one_after_another_share_one_searcher(data_dir):
    # each Whoosh searcher copies the index's files into memory (~10 MB with the 62 official releases); one kept by
    # each of a worker's 24 threads grew it to 575 MB after 5,000 unique searches (granian's RSS bound replaced it)
    from web.app import create_app

    app = create_app({"KB_DATA": str(data_dir), "TESTING": True})
    searcher = app.extensions["kb"].current().searcher
    totals = []
    for k in range(24):  # 24 threads, as a kb serve worker has, each asking in turn
        t = threading.Thread(target=lambda k=k: totals.append(
            app.test_client().get(f"/api/search?q=unveil+u{k}").get_json()["total"]))
        t.start()
        t.join(timeout=60)
    assert len(totals) == 24 and all(totals)
    assert len(searcher.tables._opened) == 1  # one, taken in turn; each thread kept its own before (24)


def test_threads_that_read_the_history_one_after_another_share_one_connection(history_data_dir):
    # each SQLite connection keeps up to 2 MB of pages: one per thread of a worker (24) held ~24 MB more after
    # distinct diffs and histories
    from web.app import create_app

    app = create_app({"KB_DATA": str(history_data_dir), "TESTING": True})
    history = app.extensions["kb"].current().history
    statuses = []
    for k in range(24):
        t = threading.Thread(target=lambda k=k: statuses.append(
            app.test_client().get(f"/api/cr/702.{k + 2}/history").status_code))  # 702.2 deathtouch, ...
        t.start()
        t.join(timeout=60)
    assert statuses == [200] * 24
    assert len(history._idle) == 1  # one connection, taken in turn


# -- Keep: what the front held, held by granian over real sockets ---------------------------------------------
def _health_p99(port: int, probes: int = 60) -> float:
    times = []
    for _ in range(probes):
        started = time.perf_counter()
        assert _ask(port, "/api/health", timeout=5)[0] == 200  # a starved probe times out
        times.append(time.perf_counter() - started)
    return sorted(times)[int(len(times) * 0.99)]


@pytest.mark.slow  # three hundred connections for 6 s
def test_three_hundred_slowloris_connections_leave_health_fast(served):
    # the Keep line: 300 slowloris connections, health p99 < 100 ms (measured quietly: docs/serving.md)
    floor = _health_p99(served.port)
    held = []
    until = time.monotonic() + 8  # within the head timeout (10 s from each connection), after which granian closes it
    try:
        for _ in range(300):
            s = socket.create_connection(("127.0.0.1", served.port), timeout=5, source_address=("127.0.0.3", 0))
            s.sendall(b"G")
            held.append(s)
        p99s = []
        for round_ in range(6):  # one byte more of a request line that never ends, about each second
            started = time.monotonic()
            for s in held:
                s.sendall(b"E" if round_ == 0 else b"x")
            p99s.append(_health_p99(served.port, 20))
            status, _, page = _ask(served.port, "/treachery/907.4b", timeout=5)
            assert status == 200 and b"907.4b" in page
            if time.monotonic() + 1 > until:  # a busy machine: fewer rounds, never past the head timeout
                break
            time.sleep(max(0.0, 1 - (time.monotonic() - started)))
    finally:
        for s in held:
            s.close()
    loaded = max(p99s)
    print(f"health p99 with 300 slowloris connections {loaded * 1000:.1f} ms, without {floor * 1000:.1f} ms")
    assert loaded < 0.5 + 2 * floor, (loaded, floor)  # what it guards against: probes waiting out a head timeout


def _post_linkify(port: int, text: str, timeout: float = 5) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("POST", "/api/linkify", body=json.dumps({"text": text}),
                     headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_clients_that_send_their_bodies_slowly_hold_no_gate_and_no_thread_others_need(served):
    # granian calls the app once a head has arrived and a read of the body waits for its bytes, for as long as the
    # client likes (KB_HEAD_TIMEOUT is for the head). The app read bodies inside the gate, in any thread: 60 such
    # connections (a Content-Length on a GET of health, or a linkify) from one address held every thread of both
    # workers (health, pages and searches timed out at 15 s), and 4 linkify ones held the costly gate (others'
    # searches waited 10 s for a 503). Found by session 25's attacker.
    held = []
    try:
        for k in range(60):
            s = socket.create_connection(("127.0.0.1", served.port), timeout=5, source_address=("127.0.0.3", 0))
            path = "/api/linkify" if k % 2 else "/api/health"
            s.sendall(f"{'POST' if k % 2 else 'GET'} {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      f"Content-Length: 100000\r\n\r\n".encode() + b'{"text": "')
            held.append(s)
        time.sleep(0.5)
        for round_ in range(3):  # the slow clients send a byte more each round, and never finish
            for s in held:
                with contextlib.suppress(OSError):  # those past the readers were answered 503 and closed
                    s.sendall(b"a")
            started = time.monotonic()
            assert _ask(served.port, "/api/health", timeout=5)[0] == 200
            status, _, page = _ask(served.port, "/treachery/907.4b", timeout=5)
            assert status == 200 and b"907.4b" in page
            status, _, body = _ask(served.port, f"/api/search?q=unveil+{round_}", timeout=5)
            assert status == 200 and b'"results"' in body
            # another address's body is read: the slow clients take at most two readers of a worker
            status, body = _post_linkify(served.port, "see 907.4b")
            assert status == 200 and b"/treachery/907.4b" in body, body
            assert time.monotonic() - started < 4
    finally:
        for s in held:
            s.close()


@pytest.mark.slow  # forty clients asking searches for ~10 s
def test_one_address_keeping_the_line_full_does_not_turn_another_away(served):
    # 40 connections from one address asking uncached searches kept both workers' lines full (sixteen places
    # each), and another address's searches were turned away at once (503) 17 times of 38. Found by session 25's
    # attacker. Each connection is kept alive (no ephemeral port per request).
    import random
    import string

    stop = threading.Event()
    statuses: list[int] = []

    def words() -> str:
        return "/api/search?q=" + "+".join("".join(random.choices(string.ascii_lowercase, k=7)) for _ in range(30))

    def flood() -> None:
        _keep_asking(served.port, "GET", words, statuses, lambda: not stop.is_set(), source="127.0.0.3")

    threads = [threading.Thread(target=flood, daemon=True) for _ in range(40)]
    for t in threads:
        t.start()
    try:
        time.sleep(2)
        answers = []
        for k in range(25):
            status, _, body = _ask(served.port, f"/api/search?q=unveil+{k}", timeout=15)
            answers.append(status)
            time.sleep(0.2)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=30)
    assert 503 in statuses  # the line was full all along
    assert answers == [200] * 25, answers


def test_bodies_are_read_by_few_threads_at_once_and_few_for_one_address():
    # web.gate.Bodies over a real blocking stream (a pipe no one writes to yet): the third body from one address,
    # or the ninth in a worker, is turned away at once instead of taking another thread; the others are read whole
    # when their bytes come, and what reaches the app reads them from memory
    from web.app import SECURITY_HEADERS
    from web.gate import BODY_READERS, BODY_READERS_PER_CLIENT, Bodies

    seen: list[bytes] = []

    def app(environ, start_response):
        seen.append(environ["wsgi.input"].read())
        start_response("200 OK", [("Content-Length", "0")])
        return [b""]

    bodies = Bodies(app, SECURITY_HEADERS)
    pipes = []

    def ask(client: str, path: str = "/api/linkify") -> tuple[str, bytes]:
        reader, writer = os.pipe()
        pipes.append((os.fdopen(reader, "rb"), writer))
        environ = {"REQUEST_METHOD": "POST", "PATH_INFO": path, "CONTENT_LENGTH": "4", "REMOTE_ADDR": client,
                   "wsgi.input": pipes[-1][0]}
        answer: list[str] = []

        def start_response(status: str, headers: list[tuple[str, str]], exc_info=None):
            answer.append(status)
            return lambda data: None

        body = b"".join(bodies(environ, start_response))
        return answer[0], body

    readers = [threading.Thread(target=ask, args=(f"10.0.0.{k // BODY_READERS_PER_CLIENT}",), daemon=True)
               for k in range(BODY_READERS)]
    for t in readers:
        t.start()
    until = time.monotonic() + 10
    while sum(bodies.reading.values()) < BODY_READERS and time.monotonic() < until:
        time.sleep(0.01)
    assert dict(bodies.reading) == {f"10.0.0.{k}": BODY_READERS_PER_CLIENT
                                    for k in range(BODY_READERS // BODY_READERS_PER_CLIENT)}
    started = time.monotonic()
    status, body = ask("10.0.0.0")  # a third from one address
    assert status == "503 Service Unavailable"
    assert json.loads(body)["error"]["message"] == "too many requests are sending a body at once; try again shortly"
    assert ask("10.0.0.99")[0] == "503 Service Unavailable"  # every reader of the worker taken
    assert time.monotonic() - started < 1
    for _, writer in pipes[:BODY_READERS]:
        os.write(writer, b"abcd")
    for t in readers:
        t.join(timeout=10)
    assert seen == [b"abcd"] * BODY_READERS and not bodies.reading
    for stream, writer in pipes:
        stream.close()
        os.close(writer)


def test_a_reader_taken_by_a_body_that_has_come_is_waited_for_a_moment():
    # a third body from one address waits (up to Bodies.patience) for a reader one of its two others frees, instead of
    # a 503 at once; past the waiters' bound a request is turned away at once (session 25's review)
    from web.app import SECURITY_HEADERS
    from web.gate import Bodies

    def app(environ, start_response):
        start_response("200 OK", [("Content-Length", "0")])
        return [environ["wsgi.input"].read()]

    bodies = Bodies(app, SECURITY_HEADERS, waiters=1, patience=10)
    pipes, answers = [], {}

    def ask(k: int) -> None:
        reader, writer = os.pipe()
        pipes.append((os.fdopen(reader, "rb"), writer))
        environ = {"REQUEST_METHOD": "POST", "PATH_INFO": "/api/linkify", "CONTENT_LENGTH": "4",
                   "REMOTE_ADDR": "10.0.0.1", "wsgi.input": pipes[k][0]}
        status: list[str] = []

        def start_response(said: str, headers: list[tuple[str, str]], exc_info=None):
            status.append(said)
            return lambda data: None

        body = b"".join(bodies(environ, start_response))
        answers[k] = status[0], body

    def started(k: int, reading: int, waiting: int) -> threading.Thread:
        t = threading.Thread(target=ask, args=(k,), daemon=True)
        t.start()
        until = time.monotonic() + 10
        while (bodies.reading["10.0.0.1"], bodies.waiting) != (reading, waiting) and time.monotonic() < until:
            time.sleep(0.005)
        return t

    try:
        asking = [started(0, 1, 0), started(1, 2, 0), started(2, 2, 1)]  # the third waits for a reader
        started(3, 2, 1).join(timeout=10)  # a fourth: one waits already
        assert answers[3][0] == "503 Service Unavailable"
        os.write(pipes[0][1], b"abcd")  # the first body comes: its reader goes to the third
        asking[0].join(timeout=10)
        until = time.monotonic() + 10
        while bodies.waiting and time.monotonic() < until:
            time.sleep(0.005)
        assert (bodies.reading["10.0.0.1"], bodies.waiting) == (2, 0)
        for k in (1, 2):
            os.write(pipes[k][1], b"efgh")
            asking[k].join(timeout=10)
        assert answers == {0: ("200 OK", b"abcd"), 1: ("200 OK", b"efgh"), 2: ("200 OK", b"efgh"),
                           3: answers[3]} and not bodies.reading
    finally:
        for stream, writer in pipes:
            stream.close()
            os.close(writer)


@pytest.mark.slow  # six clients asking linkify for ~4 s
def test_one_address_sending_bodies_that_have_come_is_not_turned_away(served):
    # Bodies turned away at once a third body from one address while two were being read: six clients behind one
    # address asking linkify (their bodies whole with their heads) had ~1 in 40 answered 503 (session 25's review)
    stop = time.monotonic() + 4
    statuses: list[int] = []
    text = json.dumps({"text": "Trample and 907.4b, deathtouch " * 20})

    def ask() -> None:
        _keep_asking(served.port, "POST", lambda: "/api/linkify", statuses, lambda: time.monotonic() < stop,
                     body=text, headers={"Content-Type": "application/json"})

    threads = [threading.Thread(target=ask, daemon=True) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(statuses) > 200 and set(statuses) == {200}, (len(statuses), statuses.count(503))


@pytest.mark.slow  # forty clients, 1-3 MB each
def test_forty_clients_that_never_read_their_answers_hold_nothing(served):
    # the Keep line: 40 clients that never read a 1-3 MB answer. The bundled build's largest answer is
    # ~340 KB: each client pipelines 3 to 8 of them (1-3 MB) behind a 4 KB window and reads nothing for a while.
    expected = _ask(served.port, LARGE)[2]
    floor = _health_p99(served.port)
    asks = b"GET " + LARGE.encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    readers = [_asking_and_not_reading(served.port, LARGE, then=asks * (2 + k % 6)) for k in range(40)]
    try:
        time.sleep(1)  # every answer is being written, at its reader's (no) pace
        loaded = _health_p99(served.port)
        status, _, page = _ask(served.port, "/treachery/907.4b", timeout=5)
        assert status == 200 and b"907.4b" in page
        status, _, body = _ask(served.port, "/api/search?q=unveil", timeout=10)
        assert status == 200 and b'"results"' in body
        for k, s in enumerate(readers):  # and each reader, reading at last, gets every answer whole, in order
            got = b""
            s.settimeout(30)
            while chunk := s.recv(1 << 16):  # a stalled answer times out
                got += chunk
                if got.count(b"HTTP/1.1 200") == 3 + k % 6 and got.endswith(expected):
                    break
            answers = got.split(b"HTTP/1.1 200 OK\r\n")[1:]
            assert len(answers) == 3 + k % 6 and all(a.endswith(b"\r\n\r\n" + expected) for a in answers), k
    finally:
        for s in readers:
            s.close()
    print(f"health p99 with 40 clients not reading {loaded * 1000:.1f} ms, without {floor * 1000:.1f} ms")
    assert loaded < 0.5 + 2 * floor, (loaded, floor)


def _raw(port: int, target: str, host: str = "x") -> tuple[int, list[tuple[str, str]], bytes]:
    """GET ``target`` sent as it is written (no client normalises it); (status, headers in order, body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(f"GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        answer, _ = _read_all(s)
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = [(name.strip().lower(), value.strip()) for name, _, value in (line.partition(":") for line in lines[1:])]
    return int(lines[0].split()[1]), headers, body


@pytest.mark.parametrize("target, host", [
    # reflected script: the query, a missing record's name, the Host header (no KB_PUBLIC_URL here)
    ("/search?q=%3Cscript%3Ealert(1)%3C/script%3E", "x"), ("/nope%3Cscript%3Ealert(1)%3C/script%3E", "x"),
    ("/search?q=%22%3E%3Cscript%3Ealert(1)%3C/script%3E&noredirect=1", "x"),
    ("/treachery/907.4b", 'x"><script>alert(1)</script>'),
    # traversal
    ("/static/../../../../etc/passwd", "x"), ("/static/..%2f..%2f..%2f..%2fetc%2fpasswd", "x"),
    ("/static/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "x"), ("/..%2f..%2f..%2f..%2fetc/passwd", "x"),
    # open redirect: a path that starts like another site
    ("//evil.example/", "x"), ("/%2F%2Fevil.example/", "x"), ("/%5Cevil.example/", "x"), ("/\\evil.example/", "x"),
    ("//evil.example/search/?q=x", "x"), ("/search?q=//evil.example", "x"), ("/search?q=https://evil.example/", "x"),
    # CRLF injection into a header the answer makes of the request (Location)
    ("/search?q=a%0d%0aSet-Cookie:%20x=1", "x"), ("/%0d%0aSet-Cookie:%20x=1", "x"),
    ("/treachery%0d%0aLocation:%20http://evil.example/", "x"), ("/search/%0d%0aSet-Cookie:x=1/?q=a", "x"),
    ("/r/%0d%0aSet-Cookie:x=1", "x"),
])
def test_hostile_requests_over_the_wire_are_answered_safely(served, target, host):
    status, headers, body = _raw(served.port, target, host)
    names = [name for name, _ in headers]
    assert status < 500 and "set-cookie" not in names and names.count("location") <= 1
    for name, value in SECURED.items():
        assert (name.lower(), value) in headers, name
    assert b"<script>alert(1)" not in body and b"root:" not in body
    location = dict(headers).get("location")
    if 300 <= status < 400:
        assert location and location[0] == "/" and location[1:2] not in ("/", "\\"), location  # this site's path
    assert location is None or not set(location) & {"\r", "\n"}


def _discord(port: int, body: bytes, headers: dict) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("POST", "/discord/interactions", body=body, headers={"Content-Type": "application/json",
                                                                          **headers})
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def _signed(body: bytes, timestamp: int | None = None, key: Ed25519PrivateKey = DISCORD_KEY) -> dict:
    stamp = str(int(time.time()) if timestamp is None else timestamp)
    return {"X-Signature-Ed25519": key.sign(stamp.encode() + body).hex(), "X-Signature-Timestamp": stamp}


def test_discord_s_signature_checks_hold_over_the_wire(served):
    ping = b'{"type": 1}'
    assert _discord(served.port, ping, _signed(ping)) == (200, {"type": 1})
    refused = [
        (ping, _signed(ping, key=Ed25519PrivateKey.generate())),  # another key
        (b'{"type": 1 }', _signed(ping)),  # a body other than the one signed
        (ping, _signed(ping, timestamp=int(time.time()) - 3600)),  # replayed an hour later
        (ping, {}),  # unsigned
    ]
    for body, headers in refused:
        status, answer = _discord(served.port, body, headers)
        assert status == 401 and answer["error"]["code"] == "invalid_signature", (body, headers)


# -- Done when: kb bench --json reports the server's figures beside the search's in process ----------------------
@pytest.mark.slow  # a kb serve of its own, warmed, then short timed rounds
def test_the_bench_reports_the_server_s_rates_and_its_cpu_per_search_beside_the_search_in_process(tmp_path, data_dir):
    from tests.conftest import CORPUS
    from web.tools.bench import run_http

    http = run_http(copy_data(data_dir, tmp_path / "data"), CORPUS, clients=2, seconds=0.6, workers=1)
    for name in ("health", "search", "record_page"):
        assert http[name]["requests"] > 0 and http[name]["errors"] == 0, name  # every request answered 200
    assert (http["health_rps"], http["search_rps"], http["page_rps"]) == tuple(
        http[name]["rps"] for name in ("health", "search", "record_page"))
    assert http["search_cpu_ms"] == http["search"]["cpu_ms"] > 0  # the server's CPU (main process and worker)
    assert http["search_cpu_ms_in_process"] > 0 and http["search_cpu_ms_api_in_process"] > 0
    assert http["search_cpu_vs_in_process"] == round(http["search_cpu_ms"] / http["search_cpu_ms_in_process"], 2)
    assert http["unique_queries"] > 0


def test_a_worker_s_cache_budgets_add_up_to_what_serve_allows_for_them():
    """Every byte-bounded cache a worker keeps is counted in web.serve's CACHE_BUDGET_MB, which keeps a worker with
    all of them full under the RSS bound (with the 62 releases and the semantic stage, 104 MB of budgets held a
    worker at 404-429 MB and had it replaced again and again): a budget raised alone fails here."""
    import kb.search
    from web import api, history, pages, serve

    budgets = {"answers": kb.search.ANSWER_CACHE_BYTES, "pages": pages.PAGE_CACHE_BYTES,
               "twins and record parts": 2 * api.TWIN_CACHE_BYTES, "diffs": history.DIFF_CACHE_BYTES,
               "histories": history.HISTORY_CACHE_BYTES}
    assert sum(budgets.values()) == serve.CACHE_BUDGET_MB * 1024 * 1024, budgets
    assert serve.CACHE_BUDGET_MB < serve.MAX_RSS_MB / 4
