"""``kb soak``: the service under hostile load, on loopback, bounded in time and count.

Three measurements, each against a fresh server on a temporary build of the corpus:

1. slow clients: ``--slow`` connections (256) held open, each sending one byte
   every 2 s (reconnecting when the server drops it), for ``--seconds`` (30);
   meanwhile ``/api/health`` and a record page are fetched every 100 ms on
   new connections. Reported: p50/p99/max latency of each, how many took over
   500 ms or failed, and the same after the slow clients leave (recovery).
2. hostile query shapes: the worst CPU time of one search over a set of
   query shapes built to be expensive (repeated and unique phrases, long
   phrases, many words, typos, numbers), in process with the answer cache off,
   and the worst wall time of the same queries over HTTP.
3. memory: ``--requests`` (20,000) unique requests (unique query strings,
   Host headers, URLs and 404 paths) from 8 clients, then the resident memory
   of every server worker and of the main server process.
4. history memory (``--only history --cr-history DIR``): a build with every
   official release, then 20,000 unique searches and 5,000 unique record pages
   from 16 clients on 8 addresses, then 2,000 requests more of distinct diffs
   between releases, searches and pages; each worker's resident memory after
   each (issue 31's bound: under 400 MB; a worker replaced on the way, by
   granian's RSS bound, is reported as such).

``--design`` picks what is measured: ``granian`` (what ``kb serve`` runs), or,
to compare serving designs, gunicorn with ``gthread`` workers or with
``gevent`` workers (needs ``pip install gunicorn gevent``; not dependencies).
"""
from __future__ import annotations

import http.client
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import quote
import contextlib

from kb.ids import record_url

__all__ = ["HOSTILE", "run_soak", "hostile_cpu"]

_COMMON = ["of", "to", "a", "and", "in", "is", "be", "that", "it", "for"]

HOSTILE = {
    "61 repeated phrases": ' '.join(['"a a a"'] * 61),
    "61 distinct phrases": ' '.join(f'"a the {w}"' for w in _COMMON * 6),
    "one long phrase of common words": '"' + ' '.join(["the", "a", "of", "to"] * 60) + '"',
    "96 common words": ' '.join(
        ["the", "a", "of", "to", "card", "player", "rule", "game", "turn", "each", "that", "it"] * 8),
    "80 unknown words": ' '.join(f"zzxqa{i}" for i in range(80)),
    "80 typos": ' '.join(["playerz", "cardd", "rulle", "gamme", "turnn", "creaturre", "abilitty", "damagge"] * 10),
    "100 numbers": ' '.join(str(i) for i in range(100, 200)),
    "rule ranges": "rules 100-999 " * 20,
    "dots": "1." * 240,
    "accents": "é" * 490,
    "filters": "doc:treachery kind:rule " * 20,
    "quotes": '"' * 490,
    "phrases and words": ' '.join(
        f'"{w} {w}" {w}x' for w in ["card", "rule", "player", "game", "turn", "the", "a", "of"] * 5),
}


def _q(text: str, salt: str = "") -> str:
    return (text[: 490 - len(salt)] + salt).strip()


def hostile_cpu(data: Path, repeat: int = 3) -> dict:
    """Worst CPU ms of one search per hostile shape, in process, answer cache off."""
    from kb.kbase import KnowledgeBase
    from kb.search import QueryError

    kb = KnowledgeBase(data, search_cache=0).current()
    out = {}
    for name, text in HOSTILE.items():
        worst = 0.0
        for i in range(repeat):
            started = time.thread_time()
            with contextlib.suppress(QueryError):
                kb.searcher.search(_q(text, f" s{i}"))
            worst = max(worst, time.thread_time() - started)
        out[name] = round(worst * 1e3, 1)
    return out


# -- a server to soak --------------------------------------------------------------------------
def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(design: str, data: Path, corpus: Path, workers: int, port: int,
           cr_history: Path | None = None) -> subprocess.Popen:
    env = {**os.environ, "KB_DATA": str(data), "KB_SEARCH_CACHE": "2048"}
    if design == "granian":
        argv = [sys.executable, "-m", "web.cli", "--corpus", str(corpus), "--data", str(data), "serve",
                "--port", str(port), "--workers", str(workers),
                *(["--cr-history", str(cr_history)] if cr_history else [])]
    else:
        kind = ["--worker-class", "gthread", "--threads", "8"] if design == "gthread" else \
               ["--worker-class", "gevent", "--worker-connections", "1000"]
        argv = [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers", str(workers), *kind,
                "--timeout", "30", "--access-logfile", "/dev/null", "web.app:create_app()"]
    proc = subprocess.Popen(argv, cwd=Path(__file__).resolve().parents[2], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if _get(port, "/api/health", timeout=1)[0] == 200:
            return proc
        if proc.poll() is not None:
            raise RuntimeError(f"the {design} server exited with {proc.returncode}")
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"the {design} server did not answer within 90 s")


def _get(port: int, path: str, timeout: float = 10, host: str | None = None) -> tuple[int, float]:
    started = time.perf_counter()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        try:
            conn.request("GET", path, headers={"Host": host} if host else {})
            response = conn.getresponse()
            response.read()
            return response.status, time.perf_counter() - started
        finally:
            conn.close()
    except OSError:
        return 0, time.perf_counter() - started


def _stats(samples: list[tuple[int, float]]) -> dict:
    times = sorted(t for _, t in samples) or [0.0]
    return {"n": len(samples), "p50_ms": round(statistics.median(times) * 1e3, 1),
            "p99_ms": round(times[min(len(times) - 1, int(len(times) * 0.99))] * 1e3, 1),
            "max_ms": round(times[-1] * 1e3, 1), "over_500ms": sum(1 for t in times if t > 0.5),
            "failed": sum(1 for s, _ in samples if s != 200)}


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return 0.0


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            out += [int(c) for c in (task / "children").read_text().split()]
    return out


# -- 1. slow clients -------------------------------------------------------------------------------
def slow_clients(port: int, n: int, seconds: float, record: str) -> dict:
    held: list[socket.socket | None] = [None] * n
    reconnects = 0

    def connect() -> socket.socket | None:
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.setblocking(False)
            s.send(b"G")
            return s
        except OSError:
            return None

    for k in range(n):
        held[k] = connect()
    probes: dict[str, list] = {"health": [], "record_page": []}
    stop = threading.Event()

    def drip() -> None:
        nonlocal reconnects
        while not stop.wait(2.0):
            for k, s in enumerate(held):
                try:
                    if s is None:
                        raise OSError
                    s.send(b"E")
                except OSError:  # dropped by the server (too slow): come back, as an attacker would
                    if s is not None:
                        s.close()
                    held[k] = connect()
                    reconnects += 1

    dripper = threading.Thread(target=drip)
    dripper.start()
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            probes["health"].append(_get(port, "/api/health", timeout=10))
            probes["record_page"].append(_get(port, record_url(record), timeout=10))
            time.sleep(0.1)
    finally:
        stop.set()
        dripper.join()
        for s in held:
            if s is not None:
                s.close()
    after = [_get(port, "/api/health", timeout=10) for _ in range(20)]
    return {"connections": n, "seconds": seconds, "reconnects": reconnects,
            "health": _stats(probes["health"]), "record_page": _stats(probes["record_page"]),
            "after": _stats(after)}


# -- 2. hostile queries over HTTP --------------------------------------------------------------------
def hostile_http(port: int, clients: int = 8, rounds: int = 3) -> dict:
    worst: dict[str, float] = {}
    lock = threading.Lock()
    health: list[tuple[int, float]] = []
    done = threading.Event()

    def attacker(k: int) -> None:
        for r in range(rounds):
            for name, text in HOSTILE.items():
                status, t = _get(port, "/api/search?q=" + quote(_q(text, f" c{k}r{r}")), timeout=60)
                with lock:
                    worst[name] = max(worst.get(name, 0.0), t)

    threads = [threading.Thread(target=attacker, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()

    def probe() -> None:
        while not done.is_set():
            health.append(_get(port, "/api/health", timeout=30))
            time.sleep(0.05)

    prober = threading.Thread(target=probe)
    prober.start()
    for t in threads:
        t.join()
    done.set()
    prober.join()
    return {"clients": clients, "worst_wall_ms": {k: round(v * 1e3, 1) for k, v in worst.items()},
            "health_meanwhile": _stats(health)}


# -- 3. memory after unique requests ------------------------------------------------------------------
def unique_requests(port: int, n: int, ids: list[str], clients: int = 8) -> dict:
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    words = ["unveil", "nut", "counters", "leader", "traitor", "token", "card", "lifelink", "morph", "player"]

    def client(k: int) -> None:
        rng = random.Random(k)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine: dict[int, int] = {}
        for i in range(k, n, clients):
            kind = i % 4
            if kind == 0:
                path = f"/api/search?q={rng.choice(words)}+{rng.choice(words)}+u{i}"
            elif kind == 1:
                path = f"/{ids[i % len(ids)]}?u={i}"
            elif kind == 2:
                path = f"/search?q={rng.choice(words)}+{i}&noredirect=1"
            else:
                path = f"/no/such/page/{i}"
            try:
                conn.request("GET", path, headers={"Host": f"h{i}.example"})
                response = conn.getresponse()
                response.read()
                mine[response.status] = mine.get(response.status, 0) + 1
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                mine[0] = mine.get(0, 0) + 1
        conn.close()
        with lock:
            for s, c in mine.items():
                statuses[s] = statuses.get(s, 0) + c

    started = time.perf_counter()
    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"requests": n, "seconds": round(time.perf_counter() - started, 1),
            "statuses": {str(k): v for k, v in sorted(statuses.items())}}


# -- 4. memory with every official release ----------------------------------------------------------
_WORDS = ["trample", "flying", "damage", "combat", "token", "counter", "library", "commander", "legend", "exile"]


def _mixed(port: int, n: int, kinds: str, ids: list[str], pairs: list[tuple[str, str]], clients: int = 16) -> dict:
    """``n`` unique requests from ``clients`` clients on 8 loopback addresses, their kinds taken in turn from
    ``kinds``: s a search, p a record page, d a diff between two releases (page or JSON). Answers by kind and
    status; a 503 (the heavy gate's line full) is retried after a pause."""
    statuses: dict[str, int] = {}
    lock = threading.Lock()
    taken = [0]

    def client(k: int) -> None:
        rng = random.Random(k)
        conn = None
        while True:
            with lock:
                i = taken[0]
                taken[0] += 1
            if i >= n:
                break
            kind = kinds[i % len(kinds)]
            if kind == "s":
                path = f"/api/search?q={rng.choice(_WORDS)}+{rng.choice(_WORDS)}+u{i}"
            elif kind == "p":
                path = f"/{ids[i % len(ids)]}?u={i}"
            else:
                a, b = pairs[i % len(pairs)]
                path = f"/diff/cr/{a}..{b}" if i % 2 else f"/api/diff/cr/{a}..{b}"
            status = 0
            try:
                conn = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=60,
                                                          source_address=(f"127.0.3.{k % 8 + 1}", 0))
                conn.request("GET", path)
                response = conn.getresponse()
                response.read()
                status = response.status
                if response.getheader("Connection") == "close":
                    conn.close()
                    conn = None
            except (OSError, http.client.HTTPException):
                conn = None
            with lock:
                statuses[f"{kind}{status}"] = statuses.get(f"{kind}{status}", 0) + 1
            if status == 503:
                time.sleep(0.2)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"requests": n, "seconds": round(time.perf_counter() - started, 1),
            "statuses": dict(sorted(statuses.items()))}


def history_memory(port: int, server_pid: int) -> dict:
    """Issue 31's memory bound, measured: each worker's RSS after 20,000 unique searches and 5,000 unique record
    pages, then after 2,000 requests more of distinct diffs, searches and pages."""
    import json

    def answer(path: str):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            conn.request("GET", path)
            return json.loads(conn.getresponse().read())
        finally:
            conn.close()

    releases = sorted(r["effective"] for r in answer("/api/cr/releases")["releases"])
    pairs = [(a, b) for i, a in enumerate(releases) for b in releases[i + 1:]]
    random.Random(2).shuffle(pairs)
    ids = [r["id"] for r in answer("/api/documents/cr/records")][:5000]
    workers = _children(server_pid)
    health = answer("/api/health")  # which stages the workers serve with (KB_SEMANTIC, KB_RANKER, KB_CROSS)
    out: dict = {"releases": len(releases), "rss_mb_warm": [_rss_mb(p) for p in workers],
                 "stages": {name: health.get(name) for name in ("semantic_model", "ranker", "cross_model")}}
    out["searches_and_pages"] = _mixed(port, 25_000, "ssssp", ids, pairs)
    out["rss_mb_after_searches_and_pages"] = [_rss_mb(p) for p in _children(server_pid)]
    out["diffs"] = _mixed(port, 2_000, "dsp", ids, pairs)
    now = _children(server_pid)
    out["rss_mb_after_diffs"] = [_rss_mb(p) for p in now]
    out["workers_replaced"] = len(set(workers) - set(now))
    return out


def run_soak(corpus: Path, design: str = "granian", slow: int = 256, seconds: float = 30.0, requests: int = 20_000,
             workers: int = 2, parts: tuple[str, ...] = ("slow", "hostile", "memory"),
             cr_history: Path | None = None) -> dict:
    from ingest.publish import build
    from kb.store import Store

    with tempfile.TemporaryDirectory(prefix="kb-soak-") as tmp:
        data = Path(tmp) / "data"
        if "history" in parts and cr_history is None:
            raise ValueError("kb soak --only history needs --cr-history DIR (every official release)")
        build(corpus, data, cr_history=cr_history if "history" in parts else None)
        store = Store.open(data)
        ids = [r.id for r in store.records.values()]
        result: dict = {"design": design, "workers": workers, "records": len(ids)}
        if "hostile" in parts:
            result["hostile_cpu_ms"] = hostile_cpu(data)
            result["hostile_cpu_worst_ms"] = max(result["hostile_cpu_ms"].values())
        port = _port()
        proc = _start(design, data, corpus, workers, port, cr_history if "history" in parts else None)
        try:
            if "slow" in parts:
                result["slow_clients"] = slow_clients(port, slow, seconds, "treachery/907.4b")
            if "hostile" in parts:
                result["hostile_http"] = hostile_http(port)
            if "memory" in parts:
                workers_pids = _children(proc.pid)  # kb serve becomes granian (or gunicorn's arbiter): its workers
                result["rss_mb_before"] = [_rss_mb(p) for p in workers_pids]
                result["unique_requests"] = unique_requests(port, requests, ids)
                result["rss_mb_per_worker"] = [_rss_mb(p) for p in workers_pids]
                result["rss_mb_main"] = _rss_mb(proc.pid)
            if "history" in parts:
                time.sleep(20)  # each worker warms its tables in the background
                result["history_memory"] = history_memory(port, proc.pid)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
    return result


def print_soak(result: dict) -> None:
    print(f"design: {result['design']}, {result['workers']} workers, {result['records']} records")
    slow = result.get("slow_clients")
    if slow:
        print(f"slow clients: {slow['connections']} connections dripping 1 byte / 2 s for {slow['seconds']:g} s "
              f"({slow['reconnects']} reconnects after the server dropped them)")
        for name in ("health", "record_page", "after"):
            s = slow[name]
            label = "health after" if name == "after" else name
            print(f"  {label:13} n={s['n']:4d} p50 {s['p50_ms']:7.1f} ms  p99 {s['p99_ms']:7.1f} ms  "
                  f"max {s['max_ms']:7.1f} ms  over 500 ms: {s['over_500ms']}  failed: {s['failed']}")
    if "hostile_cpu_ms" in result:
        print(f"hostile query shapes, worst CPU per search (in process, cache off): "
              f"{result['hostile_cpu_worst_ms']} ms")
        for name, ms in result["hostile_cpu_ms"].items():
            wall = result.get("hostile_http", {}).get("worst_wall_ms", {}).get(name)
            print(f"  {name:34} cpu {ms:7.1f} ms" + (f"   http worst {wall:7.1f} ms (8 clients)" if wall else ""))
        h = result.get("hostile_http", {}).get("health_meanwhile")
        if h:
            print(f"  /api/health meanwhile: p50 {h['p50_ms']} ms, p99 {h['p99_ms']} ms, max {h['max_ms']} ms, "
                  f"failed {h['failed']}")
    if "unique_requests" in result:
        u = result["unique_requests"]
        print(f"memory: {u['requests']} unique requests in {u['seconds']} s, statuses {u['statuses']}")
        print(f"  RSS per worker before {result['rss_mb_before']} MB, after {result['rss_mb_per_worker']} MB"
              + (f"; main process {result['rss_mb_main']} MB" if "rss_mb_main" in result else ""))
    if "history_memory" in result:
        h = result["history_memory"]
        print(f"memory with {h['releases']} official releases: RSS per worker warm {h['rss_mb_warm']} MB; after 20,000 "
              f"unique searches and 5,000 unique pages {h['rss_mb_after_searches_and_pages']} MB "
              f"({h['searches_and_pages']['seconds']} s, {h['searches_and_pages']['statuses']}); after 2,000 more "
              f"with distinct diffs {h['rss_mb_after_diffs']} MB ({h['diffs']['statuses']}); workers replaced on "
              f"the way: {h['workers_replaced']}; stages {h['stages']}")
