"""``kb bench``: measured figures, with a floor measured in the same run.

Also, under ``kb serve`` on loopback: HTTP throughput and latency for
``/api/search``, a record page and ``/api/health`` (the framework's floor),
at a bounded number of concurrent keep-alive clients; cold start (process
start to first answered query) and resident memory per worker. And how
cost grows: the same in-process figures on a synthetic corpus ten times
larger (every record cloned under nine more document slugs).

Machines are noisy, so every figure is a median (and p99) over repeated
runs, and search latency is reported next to floors built in the same run
and asked the same analysed terms our search asks Whoosh (``web.tools.bench_fair``:
SQLite FTS5 always, tantivy with the ``bench`` extra): the ratio is what we track.

Measured here: ingest time, index build time and size, in-process search
latency per query class (rule numbers, card names, titles, words, questions,
typos, phrases, filters) on each query's first run and warm, against the
floors, and rule-reference resolution latency.
"""
from __future__ import annotations

import gc
import os
import re
import statistics
import tempfile
import threading
import time
from typing import Any
from pathlib import Path

__all__ = ["QUERY_MIX", "QUERY_CLASSES", "query_classes", "run", "run_http", "percentile"]

# A fixed, realistic mix: what judges and players type.
QUERY_MIX = [
    "907.4b", "CR 702.187c", "rule 115", "(907.5a)", "109.2tr", "Token Cards j", "502.68",
    "The Metamorph", "tarmogoyf", "tarmogyof", "the aetherist", "venser shaper savant",
    "nut counters", "starting life total", "who is the starting player", "unveil", "unvel",
    "identity card face down", "lifelink", "tribal", "proliferate", "banned cards",
    '"special action"', '"leaves the game"', "coin flip", "morph face down", "split second",
    "damage prevention", "half mana", "commander damage",
]

# The same kinds of query, by class, so that cheap table lookups (a rule number, a card name)
# cannot hide the costly ones. "question" also takes every plain-language question of the
# quality suite (corpus.questions); "filter" is completed per corpus (the documents loaded).
QUERY_CLASSES: dict[str, list[str]] = {
    "reference": ["907.4b", "CR 702.187c", "rule 115", "(907.5a)", "109.2tr", "Token Cards j", "502.68",
                  "702.9", "rule 704.5j", "futuresight 502.62a"],
    "card": ["The Metamorph", "tarmogoyf", "the aetherist", "venser shaper savant", "her seedborn highness",
             "jhoira"],
    "title": ["legend rule", "tokens", "mayhem", "lifelink", "state-based actions", "banned cards", "watermarks",
              "timeshifted cards"],
    "one word": ["unveil", "tribal", "proliferate", "sacrifice", "counters", "mana", "damage", "shroud", "flying",
                 "graveyard", "traitor", "emblem"],
    "several words": ["nut counters", "starting life total", "identity card face down", "coin flip",
                      "morph face down", "split second", "damage prevention", "half mana", "commander damage",
                      "combat damage step", "leaves the battlefield", "library top card"],
    "question": ["who is the starting player", "what happens when a player has ten poison counters",
                 "how does the stack resolve", "can a traitor win with the leader",
                 "what happens when my commander dies", "how many cards do you draw at the start"],
    "typo": ["tarmogyof", "unvel", "sehts tigr", "lifelnik", "proliferat", "commandr damage", "the puppet mastr",
             "graveyrad"],
    "phrase": ['"special action"', '"leaves the game"', '"starting player"', '"face down"', '"combat damage"'],
    "filter": ["unveil doc:treachery", "damage kind:rule", "mana doc:uncommander", "face down kind:ruling",
               "counters kind:card", "token doc:futuresight"],
}
_QUESTION = re.compile(r"^(who|what|how|can|does|do|is|are|when|which|if|why)\b", re.I)


def query_classes(has_cr: bool) -> dict[str, list[str]]:
    """The query classes for a corpus: the fixed lists, the suite's questions, filters for the CR."""
    from corpus.questions import CR_QUESTIONS, QUESTIONS

    out = {name: list(qs) for name, qs in QUERY_CLASSES.items()}
    suite = QUESTIONS + (CR_QUESTIONS if has_cr else [])
    out["question"] += [q for q, _ in suite if _QUESTION.match(q) and q not in out["question"]]
    if has_cr:
        out["filter"] += ["first strike doc:cr", "poison counters doc:cr kind:rule", "mulligan doc:cr"]
    return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def _timed(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def _summary(seconds: list[float]) -> dict:
    return {"p50_us": round(statistics.median(seconds) * 1e6, 1), "p99_us": round(percentile(seconds, 99) * 1e6, 1),
            "n": len(seconds)}


def run_clients(threads: list[threading.Thread], latencies: list[float], errors: list[int]) -> dict:
    """Start the load's client threads, wait for them, and sum up what they recorded (requests, errors,
    req/s over the whole run, median and p99): one shape for every HTTP figure."""
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    return {"requests": len(latencies), "errors": len(errors), "rps": round(len(latencies) / elapsed),
            **_summary(latencies)}


def _search_figures(records, documents, reports, repeat: int, tmp: Path, tables: dict | None = None,
                    embeddings: Path | None = None) -> dict:
    """Index build time and size, the fair figures per query class (``web.tools.bench_fair``), the mix and the
    quality suite warm, resolve latency. ``tables``: what a build's manifest gives search besides the
    documents (the vocabulary, the common questions), so that the search measured is the one served.
    ``embeddings``: where the records' embeddings are cached (kb.semantic.vectors) when the build is to hold
    the semantic stage's vectors, for its own cost per class (``fair.classes.<class>.semantic``)."""
    from kb.index import write_index
    from corpus.questions import CR_QUESTIONS, QUESTIONS
    from kb.resolve import Resolver
    from kb.search import Searcher
    from kb.store import Store, publish

    from web.tools import bench_fair

    index_s = []
    for n in range(repeat):
        path = tmp / f"ix{n}"
        t = time.perf_counter()
        write_index(path, records)
        index_s.append(time.perf_counter() - t)
    size = sum(f.stat().st_size for f in (tmp / "ix0").rglob("*") if f.is_file())
    data = tmp / "data"
    publish(data, records, {"documents": documents, **(tables or {})}, reports, write_index=write_index,
            write_extra=_vectors(records, embeddings) if embeddings is not None else None)
    store = Store.open(data)
    has_cr = any(r.doc == "cr" for r in records)
    # First: each class on a fresh searcher, before anything here has warmed a table.
    fair = bench_fair.measure(store, records, query_classes(has_cr), tmp, repeat=max(1, repeat),
                              semantic=embeddings is not None)
    searcher = Searcher(store, cache_size=0)  # every query does its work
    resolver = Resolver(store)
    # As kb serve does once a build is served (kb.kbase._warm_and_freeze): every record's tables warmed, and
    # the build's objects out of the garbage collector's reach; unfrozen, a full collection walking them all
    # lands on whichever query comes next (78-145 ms of one query's CPU, an artefact of the loop).
    searcher.warm()
    gc.collect()
    gc.freeze()
    suite = [q for q, _ in QUESTIONS + (CR_QUESTIONS if has_cr else [])]
    suite_s, search, resolve = [], [], []
    for q in suite + QUERY_MIX:  # warm, as the figures below are
        searcher.search(q)
    for _ in range(repeat):
        for q in suite:
            t = time.perf_counter()
            searcher.search(q)
            suite_s.append(time.perf_counter() - t)
    for _ in range(repeat * 4):
        for q in QUERY_MIX:
            t = time.perf_counter()
            searcher.search(q)
            search.append(time.perf_counter() - t)
        for q in ("907.4b", "CR 702.187c", "rule 115", "Token Cards j", "907.4l"):
            t = time.perf_counter()
            resolver.resolve(q)
            resolve.append(time.perf_counter() - t)
    out: dict[str, Any] = {
        "records": len(records),
        "index_build": {"p50_ms": round(statistics.median(index_s) * 1e3, 1), "bytes": size},
        "search": _summary(search),  # the fixed mix, warm
        "suite": _summary(suite_s),  # the search-quality questions (corpus.questions), warm
        "resolve": _summary(resolve),
        "fair": fair,
    }
    out["offline_pack"] = _offline_pack(store, repeat)
    searcher.close()
    gc.unfreeze()
    return out


def _vectors(records, embeddings: Path):
    """A build's ``write_extra``: the records' vectors for the semantic stage, embedded once per text (cached
    under ``embeddings`` for the next build of the run: the ten-times corpus's clones share their texts)."""
    from kb.semantic.vectors import write_build_vectors

    def write(build_dir: Path) -> None:
        write_build_vectors(build_dir, embeddings, records, embed=True)

    return write


def _offline_pack(store, repeat: int) -> dict:
    """The offline pack (kb.offline): the time to make it, once per build, and its size as served (issue 35's
    budget: 1.5 MB gzipped with the official rules). The time to the first offline answer in a browser is
    tests/test_browser_offline.py's."""
    from kb.offline import make_pack

    made = []
    for _ in range(max(1, repeat // 2)):
        t = time.perf_counter()
        pack = make_pack(store)
        made.append(time.perf_counter() - t)
    return {"make_ms": round(statistics.median(made) * 1e3, 1), "bytes": len(pack.body), "gzip_bytes": len(pack.gz)}


def _scaled(records, factor: int):
    """The records cloned under ``factor - 1`` more document slugs: a corpus ``factor`` times larger."""
    from dataclasses import replace as clone

    out = list(records)

    def moved(rid: str | None, n: int) -> str | None:
        if rid is None or "/" not in rid:
            return rid
        doc, rest = rid.split("/", 1)
        return f"{doc}{n}/{rest}"

    for n in range(1, factor):
        def move(rid, n=n):
            return moved(rid, n)

        for r in records:
            out.append(clone(r, id=move(r.id), doc=f"{r.doc}{n}", parent=move(r.parent),
                             children=tuple(move(c) for c in r.children), refs=(), cited_by=()))
    return out


def run(corpus: Path, cr: Path | None = None, repeat: int = 5, scale: int = 10, semantic: bool = True) -> dict:
    """Everything but HTTP. ``result["fair"]`` holds the fair figures; with ``scale`` > 1 the same
    for the records cloned ``scale`` times under ``fair.scale<scale>`` (and the rest under ``x<scale>``).
    ``semantic``: also the semantic stage's own cost per class, when the shipped model is there (its builds
    then hold the records' vectors; every other figure is of the lexical search)."""
    from ingest.asked import load_asked
    from ingest.build import build_corpus
    from ingest.cr import cr_profile
    from ingest.vocabulary import load_vocabulary
    from kb.semantic import model_id

    extra = [cr_profile(cr)] if cr else []
    ingest_s = _timed(lambda: build_corpus(corpus, extra), repeat)
    built = build_corpus(corpus, extra)
    documents = built.documents()
    tables = {"vocabulary": load_vocabulary(corpus, built.records), "asked": load_asked(corpus, built.records)[0]}
    with tempfile.TemporaryDirectory() as cache:
        embeddings = Path(cache) if semantic and model_id() is not None else None
        with tempfile.TemporaryDirectory() as tmp:
            result = _search_figures(built.records, documents, built.reports(), repeat, Path(tmp), tables=tables,
                                     embeddings=embeddings)
        result["ingest"] = {"p50_ms": round(statistics.median(ingest_s) * 1e3, 1)}
        if scale > 1:
            records = _scaled(built.records, scale)
            docs = documents + [{**d, "slug": f"{d['slug']}{n}"} for n in range(1, scale) for d in documents]
            with tempfile.TemporaryDirectory() as tmp:
                scaled = _search_figures(records, docs, {}, max(1, repeat // 2), Path(tmp), tables=tables,
                                         embeddings=embeddings)
            result["fair"][f"scale{scale}"] = scaled.pop("fair")
            result[f"x{scale}"] = scaled
    return result


# -- over HTTP -------------------------------------------------------------------------
HTTP_ROUNDS = 5  # health, search and a record page take turns, each for 1/5 of --seconds per turn
HTTP_TARGETS = {
    "health": "/api/health",
    "search": "/api/search?q={q}",
    "record_page": "/{id}",
}


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _cpu_ticks(pid: int) -> int:
    """utime + stime of a process, in clock ticks."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


class _InProcess:
    """The server's searches again in this process, for ``http.search_cpu_ms`` to be compared with: the same queries
    in the same order, each counted, with the answer cache ``kb serve`` was given (0 for unique queries), the build
    warmed as a worker is (its tables, then the warm-up mix run_http sends before timing). Run right after each
    round of search requests, so that the machine's other work of the moment falls on both figures alike (measured
    once, before the server, the in-process figure of a contended run moved by a third between runs).

    Two figures: the bare search (``Searcher.search``, the issue's floor) and the API's whole work for the same query
    apart from HTTP (``web.data.search_data``, as ``/api/search`` calls it, then its JSON as the app writes it): each
    query of a round runs once, alternately one or the other, the first of each pair swapping every round, so that
    neither finds the other's per-query memos warm."""

    def __init__(self, data: Path, cache: int):
        from kb.kbase import KnowledgeBase
        from web.app import App, JSONProvider
        from web.settings import read

        # the semantic stage as the server has it (KB_SEMANTIC, on by default): the same work on both sides
        self.opened = KnowledgeBase(data, search_cache=cache, semantic=read("KB_SEMANTIC")).current()
        self.searcher = self.opened.searcher
        self.json = JSONProvider(App(__name__))  # the app's JSON provider
        self.searcher.warm()
        for q in QUERY_MIX:
            self.searcher.search(q)
        self.spent = {"search": 0.0, "api": 0.0}
        self.counts = {"search": 0, "api": 0}
        self.rounds = 0

    @property
    def searches(self) -> int:
        return self.counts["search"] + self.counts["api"]

    def run(self, queries: list[str]) -> None:
        from web import data as D

        kinds = ("search", "api") if self.rounds % 2 == 0 else ("api", "search")
        self.rounds += 1
        for kind, mine in zip(kinds, (queries[0::2], queries[1::2]), strict=True):
            started = time.thread_time()
            if kind == "search":
                for q in mine:
                    self.searcher.search(q)
            else:
                for q in mine:
                    self.json.compact_bytes(D.search_data(self.opened, {"q": q})[0])
            self.spent[kind] += time.thread_time() - started
            self.counts[kind] += len(mine)

    def cpu_ms(self, kind: str = "search") -> float:
        """CPU per query of the bare search (``search``) or of the API's work apart from HTTP (``api``)."""
        return round(self.spent[kind] * 1e3 / max(1, self.counts[kind]), 3)

    def close(self) -> None:
        self.searcher.close()
        self.opened.release()


def _wait_idle(pids: list[int], timeout: float = 60.0) -> None:
    """Until the processes use no CPU for half a second (a worker's background warming, KB_WARM,
    is done): the figures are the steady state, which the warming would otherwise share."""
    deadline = time.perf_counter() + timeout
    before = sum(map(_cpu_ticks, pids))
    while time.perf_counter() < deadline:
        time.sleep(0.5)
        now = sum(map(_cpu_ticks, pids))
        if now - before <= 1:
            return
        before = now


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        children = task / "children"
        if children.exists():
            out += [int(c) for c in children.read_text().split()]
    return out


def unique_queries(store, n: int, seed: int = 11) -> list[str]:
    """``n`` different search queries: every query class first, then one to three words drawn
    (seeded) from the records' titles and texts, as people combine them."""
    import random

    has_cr = any(r.doc == "cr" for r in store.records.values())
    slugs = {d["slug"] for d in store.documents}
    out = list(dict.fromkeys(q for qs in query_classes(has_cr).values() for q in qs
                             if "doc:" not in q or q.split("doc:")[1].split()[0] in slugs))
    rng = random.Random(seed)
    records = sorted(store.records.values(), key=lambda r: r.id)
    words = sorted({w for r in records for w in re.findall(r"[a-z]{3,}", f"{r.title or ''} {r.text or ''}".lower())})
    seen = set(out)
    while len(out) < n:
        q = " ".join(rng.sample(words, rng.choice((1, 2, 2, 3))))
        if q not in seen:
            seen.add(q)
            out.append(q)
    return out[:n]


def run_http(data: Path, corpus: Path, clients: int = 4, seconds: float = 3.0, workers: int = 2,
             cache: bool = False, cr: Path | None = None) -> dict:
    """Serve ``data`` with ``kb serve`` on loopback and measure it; every request must succeed.

    ``cr``: the official rules ``data`` was built with, passed on to ``kb serve`` (which would
    otherwise rebuild without them). With ``cache`` the search answer cache stays on, as in
    service; by default it is off so the figures are the work itself. Every search request asks
    a different query (``unique_queries``), so even a cache could not answer from memory."""
    import contextlib
    import http.client
    import itertools
    import subprocess
    import sys
    from urllib.parse import quote

    from kb.store import Store

    from web.tools import bench_discord

    store = Store.open(data)
    ids = [r.id for r in store.records.values() if r.kind in ("rule", "card", "ruling")][:500]
    queries = QUERY_MIX if cache else unique_queries(store, 40_000)  # the cache is for repeated queries
    in_process = _InProcess(data, cache=2048 if cache else 0)
    port = _free_port()
    discord_key = bench_discord.signing_key()  # the endpoint is on for this run only
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "web.cli", "--corpus", str(corpus), "--data", str(data), "serve",
         "--port", str(port), "--workers", str(workers)] + (["--cr", str(cr)] if cr else []),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "KB_SEARCH_CACHE": "2048" if cache else "0",
             "KB_DISCORD_PUBLIC_KEY": bench_discord.public_hex(discord_key)},
    )
    try:
        cold = None
        while time.perf_counter() - started < 60:
            try:
                with contextlib.closing(http.client.HTTPConnection("127.0.0.1", port, timeout=5)) as probe:
                    probe.request("GET", "/api/search?q=unveil")
                    if probe.getresponse().status == 200:
                        cold = time.perf_counter() - started
                        break
            except OSError:
                time.sleep(0.02)
        if cold is None:
            raise RuntimeError("kb serve did not answer within 60 s")
        # kb serve becomes granian's main process; its children are the workers
        workers_pids = _children(proc.pid)
        _wait_idle(workers_pids)
        result: dict[str, Any] = {
            "cold_start_ms": round(cold * 1e3), "clients": clients, "workers": workers, "search_cache": cache,
            "warm_ms": round((time.perf_counter() - started) * 1e3),  # until the workers' warming is done
        }
        # Warm every worker on every endpoint before anything is timed (with the fixed mix: the timed search
        # queries are all new to the server). Each request on a connection of its own, so that the kernel spreads
        # them over the workers (each listens on its own socket, SO_REUSEPORT): one kept-alive connection warmed one
        # worker, and the other's first renders and first searches (a first page ~120 ms, a first search 2x a later
        # one) were counted in the timed rounds.
        for i in range(300 * workers):
            template = list(HTTP_TARGETS.values())[i % len(HTTP_TARGETS)]
            warm = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            warm.request("GET", template.format(q=quote(QUERY_MIX[i % len(QUERY_MIX)]), id=ids[i % len(ids)]))
            warm.getresponse().read()
            warm.close()
        unique = itertools.count()  # next() is atomic: each request takes the next query
        # The endpoints take turns in short rounds, so that a burst of other work on the machine
        # falls on the floor (health) and on search alike rather than on one of them.
        gathered: dict[str, tuple[list[float], list[int], list[float]]] = {n: ([], [], []) for n in HTTP_TARGETS}
        server_pids = [proc.pid, *workers_pids]
        ticks: dict[str, int] = dict.fromkeys(HTTP_TARGETS, 0)  # the server's CPU (main process and workers)
        for turn in range(HTTP_ROUNDS):
            for name, template in HTTP_TARGETS.items():
                latencies: list[float] = []
                errors: list[int] = []
                lock = threading.Lock()
                deadline = time.perf_counter() + seconds / HTTP_ROUNDS

                def client(k: int, template: str, deadline: float, lock: threading.Lock,
                           latencies: list[float], errors: list[int]) -> None:
                    i = k
                    mine, bad = [], []
                    with contextlib.closing(http.client.HTTPConnection("127.0.0.1", port, timeout=10)) as conn:
                        while time.perf_counter() < deadline:
                            q = queries[next(unique) % len(queries)] if "{q}" in template else ""
                            path = template.format(q=quote(q), id=ids[i % len(ids)])
                            t = time.perf_counter()
                            conn.request("GET", path)
                            response = conn.getresponse()
                            response.read()
                            mine.append(time.perf_counter() - t)
                            if response.status != 200:
                                bad.append(response.status)
                            i += clients
                    with lock:
                        latencies.extend(mine)
                        errors.extend(bad)

                shared = (template, deadline, lock, latencies, errors)
                threads = [threading.Thread(target=client, args=(k + turn * 97, *shared)) for k in range(clients)]
                t0 = time.perf_counter()
                cpu0 = sum(map(_cpu_ticks, server_pids))
                first = next(unique)  # the clients take the queries after it
                run_clients(threads, latencies, errors)
                ticks[name] += sum(map(_cpu_ticks, server_pids)) - cpu0
                if "{q}" in template:  # the same queries in this process, now
                    in_process.run([queries[i % len(queries)] for i in range(first + 1, next(unique))])
                all_latencies, all_errors, spent = gathered[name]
                all_latencies += latencies
                all_errors += errors
                spent.append(time.perf_counter() - t0)
        tick_ms = 1e3 / os.sysconf("SC_CLK_TCK")
        for name, (latencies, errors, spent) in gathered.items():
            result[name] = {"requests": len(latencies), "errors": len(errors),
                            "rps": round(len(latencies) / sum(spent)), **_summary(latencies), "rounds": HTTP_ROUNDS,
                            "cpu_ms": round(ticks[name] * tick_ms / max(1, len(latencies)), 3)}
        for kind, name in ((2, "discord"), (4, "discord_autocomplete")):
            bench_discord.measure(port, discord_key, clients, min(seconds, 0.5), kind)  # warm
            result[name] = bench_discord.measure(port, discord_key, clients, seconds, kind)
            result[name]["p99_vs_health"] = round(result[name]["p99_us"] / result["health"]["p99_us"], 2)
        for name in ("search", "record_page", "discord", "discord_autocomplete"):
            result[name]["vs_health"] = round(result[name]["rps"] / result["health"]["rps"], 2)
        # The headline figures: requests per second, and the server's CPU per uncached search next to the same
        # searches' CPU in process (what HTTP, the WSGI app and the server add to a search).
        result["health_rps"], result["search_rps"], result["page_rps"] = (
            result[name]["rps"] for name in ("health", "search", "record_page"))
        result["search_cpu_ms"] = result["search"]["cpu_ms"]
        # In process: exactly the queries the server was asked (the first are the query classes, questions among
        # them, ~2.6x a random word's cost: 300 random queries measured before made the ratio ~17% too high).
        result["search_cpu_ms_in_process"] = floor = in_process.cpu_ms()
        result["search_cpu_vs_in_process"] = round(result["search_cpu_ms"] / floor, 2) if floor else None
        # What HTTP, granian and the web layer add to the API's own work (the search, its shaping, its JSON)
        result["search_cpu_ms_api_in_process"] = api = in_process.cpu_ms("api")
        result["search_cpu_vs_api_in_process"] = round(result["search_cpu_ms"] / api, 2) if api else None
        result["unique_queries"] = min(in_process.searches, len(queries))
        result["rss_mb_per_worker"] = [round(_rss_kb(pid) / 1024, 1) for pid in workers_pids]
        result["rss_mb_main"] = round(_rss_kb(proc.pid) / 1024, 1)  # granian's main process: it runs no app
        return result
    finally:
        proc.terminate()
        proc.wait(timeout=15)
        in_process.close()
