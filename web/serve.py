"""``kb serve``: choose the build to serve, then run granian (the HTTP server) over the app.

Which build: the current one when it is intact and built from today's corpus;
otherwise a rebuild; and when the rebuild is impossible (the corpus no
longer builds, the data directory is read-only or full) the last good build,
with a loud warning on stderr and ``"stale": true`` in ``/api/health``. A
server only refuses to start when there is no intact build at all.

How: the build is chosen (and made when needed) in a child process, then
``kb serve`` becomes granian (``os.execve``): a Rust (hyper) HTTP/1.1 server
that reads requests and writes answers without a Python thread, so slow or
idle clients hold none; its worker processes run the WSGI app in a few
threads each (``web.gate.Settings.threads``), the costly routes behind the
app's own fair gate (``web.gate``). SIGTERM or Ctrl-C: granian stops taking
connections and each worker finishes the answers in flight within
``KB_GRACE`` seconds. A worker that dies is replaced; its connections are
closed, so an answer cut short is never taken for a whole one.
See docs/serving.md.
"""
from __future__ import annotations

import logging
import multiprocessing
import os
import resource
import sys
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from web import settings
from web.gate import Settings

__all__ = ["Plan", "prepare", "prepared_apart", "serve", "granian_argv", "WORKER_ENV"]

# glibc gives each thread that allocates its own memory arena and keeps what is freed in it: eight threads per
# worker held 366 / 327 MB after 2,500 unique costly requests and 374 / 374 MB after 5,000; with two arenas 279 / 294
# and 299 / 308 MB, as fast (the thirteenth session's soak). The environment may say otherwise.
WORKER_ENV = {"MALLOC_ARENA_MAX": "2"}
# A worker over this much resident memory (MB, two samples 10 s apart) is drained and replaced: the bound.
# With the 62 releases a worker holds ~180 MB once warm, and grew to ~570 MB under 16 clients' distinct diffs.
MAX_RSS_MB = 400
# What a worker's byte-bounded caches may hold together (kb.derived): answers 8 MB (kb.search), pages 12
# (web.pages), JSON twins 8 and record parts 8 (web.api), diffs 6 and rule histories 6 (web.history). With the 62
# releases and the semantic stage a warm worker holds ~310 MB; at 104 MB of budgets (session 21) one with every
# cache full held 404-429 MB and was replaced over and over.
CACHE_BUDGET_MB = 48
# Connections one worker holds at once (granian's --backpressure: past it the worker accepts no more, and new ones,
# /api/health's too, wait in the kernel's queue until one closes). granian's default, backlog / workers (1,024 with
# two), let 4,100 idle sockets from one address starve health for the head timeout (10 s). An idle connection costs a
# worker ~12 KB: 16,384 of them ~200 MB (with the 62 releases loaded a worker that full passes MAX_RSS_MB and is
# replaced, closing them); two workers' 32,768 are more than one client address can open to one port (28,232
# ephemeral ports, Linux's default range).
MAX_CONNECTIONS = 16_384
# Seconds a replaced worker keeps serving after its replacement starts (granian_argv): granian waits this long, not
# for the new worker to listen. 15 s covered the bundled build; with the 62 releases and the semantic stage a
# worker's app took 19 s (wall) to load at load 5-7, and when both workers passed MAX_RSS_MB under a broad load
# (session 22) none was listening for a moment: 3,000 requests refused in 1.3 s.
RESPAWN_INTERVAL = 30
FILES_RESERVED = 512  # descriptors a worker keeps for its own files (the build, logs) beyond its connections


@dataclass
class Plan:
    build_id: str
    digest: str  # what the corpus (and code) digest is today
    stale: bool
    why: str | None  # why the build served is not a fresh one, said loudly
    sources: str = ""  # what it was made from (kb.kbase.sources_of): the app serves builds of these only


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def prepare(corpus: Path, data: Path, cr: Path | None, say=_say, cr_history: Path | None = None) -> Plan:
    """Make sure there is something good to serve; raise SystemExit when there is nothing.

    Builds are keyed by their sources (kb.kbase.sources_of: the bundled documents, plus ``cr`` or ``cr_history``).
    No sources named: those of the current build (of the newest build when ``current`` cannot be read). Served:
    the newest intact build of those sources when it is up to date; when the newest is damaged, an older intact
    one of the same sources, stale, with the reason; otherwise a rebuild, and when the rebuild is impossible the
    newest intact build of the same sources, stale. Never a build of other sources.
    With ``cr_history`` the digest covers every release in that folder, so adding one rebuilds."""
    from ingest.build import corpus_digest
    from ingest.errors import ParseError
    from ingest.publish import build
    from ingest.releases import release_files
    from kb.kbase import KnowledgeBase, manifest_of, open_checked, sources_of
    from kb.store import BuildWriteError, StoreError, builds_newest_first, current_build_dir

    builds = [(b, manifest_of(b)) for b in builds_newest_first(data)]
    try:
        current = manifest_of(current_build_dir(data))
    except StoreError:
        current = None
    named = next((m for _, m in builds if m), None) if current is None else current
    built_with = _sources(named) if named else (None, None)
    if cr is None and cr_history is None and any(built_with):
        cr, cr_history = _kept_sources(built_with, say)
    key = source_key(cr, cr_history)
    paths = [cr] if cr else []
    if cr_history:
        paths = release_files(Path(cr_history)) if Path(cr_history).is_dir() else []
    want = corpus_digest(corpus, paths)
    damaged: list[str] = []
    reason = f"{data}: no build here yet"
    for path, manifest in builds:
        if manifest is None or sources_of(manifest) != key:
            continue
        try:
            opened = open_checked(path)
        except StoreError as exc:
            damaged.append(str(exc))
            continue
        build_id = opened.build_id
        opened.searcher.close()
        opened.release()
        if manifest.get("corpus_digest") == want:
            if not damaged:
                return Plan(build_id, want, False, None, key)
            why = (f"the newest build made from {_describe_key(key)} is damaged ({damaged[0]}); serving the newest "
                   f"intact one, {build_id}")
            say(why)
            return Plan(build_id, want, True, why, key)
        reason = f"build {build_id} is out of date (the corpus or the code changed)"
        break
    else:
        if damaged:
            reason = damaged[0]
        elif named is not None:
            reason = (f"build {named.get('build_id') or 'current'} was made with {_describe(built_with)}; "
                      f"asked for {_describe(_sources_of_key(key))}")
    failure = None
    if Path(data).exists() and not os.access(data, os.W_OK):
        failure = f"the data directory {data} is read-only"
    else:
        say(f"building: {reason}")
        try:
            result = build(corpus, data, cr=cr, cr_history=cr_history, progress=lambda line: say(f"  {line}"),
                           on_wait=say, embed=settings.read("KB_SEMANTIC"))
            return Plan(result.build_id, want, False, None, key)
        except ParseError as exc:
            failure = "the corpus no longer builds:\n" + str(exc)
        except BuildWriteError as exc:
            failure = str(exc)
    try:
        kb = KnowledgeBase(data, fallback=True, sources=key)
    except StoreError as exc:
        raise SystemExit(f"cannot serve: {reason}; not rebuilt because {failure}; {exc}") from None
    served = kb.current()
    why = f"NOT REBUILT: {failure}. Serving the last good build, {served.build_id} ({reason})."
    bar = "!" * 78
    say(f"{bar}\n{why}\n{bar}")
    stale = served.store.manifest.get("corpus_digest") != want or kb.fallback_reason is not None
    served.searcher.close()
    served.release()
    return Plan(served.build_id, want, stale, why, key)


def _kept_sources(built_with: tuple[Path | None, Path | None], say) -> tuple[Path | None, Path | None]:
    """No sources named: keep the official rules the current build was made with (a plain `kb serve` after
    `kb build --cr ...` must not quietly rebuild without them). `kb build` chooses sources."""
    cr, cr_history = built_with
    gone = cr_history if cr_history is not None else cr
    if gone is not None and not gone.exists():
        say(f"the official rules the current build was made with are gone ({gone}): building without them")
        return None, None
    say(f"serving with the official rules the current build was made with: {gone} "
        "(name others with --cr/--cr-history; `kb build` without them drops them)")
    return cr, cr_history


def source_key(cr: Path | None, cr_history: Path | None) -> str:
    """The sources_of key of a build made with these (paths resolved as the build records them)."""
    if cr_history:
        return f"cr-history:{Path(cr_history).resolve()}"
    return f"cr:{Path(cr).resolve()}" if cr else ""


def _sources_of_key(key: str) -> tuple[Path | None, Path | None]:
    kind, _, path = key.partition(":")
    return (Path(path) if kind == "cr" else None), (Path(path) if kind == "cr-history" else None)


def _describe_key(key: str) -> str:
    return _describe(_sources_of_key(key))


def directory_lines(data: Path, plan: Plan) -> list[str]:
    """kb serve's start-up lines: the build served and its sources, and the other builds the directory holds."""
    from kb.kbase import manifest_of, sources_of
    from kb.store import builds_newest_first

    others: dict[str, list[dict]] = {}
    for path in builds_newest_first(data):
        manifest = manifest_of(path)
        if manifest is not None and sources_of(manifest) != plan.sources:
            others.setdefault(sources_of(manifest), []).append(manifest)
    lines = [f"serving build {plan.build_id}, made from {_describe_key(plan.sources)}"
             + (" (stale)" if plan.stale else "")]
    for key, manifests in others.items():
        cr, history = _sources_of_key(key)
        what = (f"the official rules history {history}" if history else f"the official rules {cr}" if cr
                else "the bundled documents alone")
        how = (f"add --cr-history {history}" if history else f"add --cr {cr}" if cr
               else "run kb serve without --cr/--cr-history (and KB_CR/KB_CR_HISTORY unset)")
        n = len(manifests)
        lines.append(f"also here: {n} build{'s' if n != 1 else ''} made from {what}: {how} to serve "
                     f"{'them' if n != 1 else 'it'}")
    return lines


def prepared_apart(corpus: Path, data: Path, cr: Path | None, cr_history: Path | None = None) -> Plan:
    """``prepare`` in a child process: opening the build to check it (its search tables, ~270 MB with the official
    rules) or making one left kb serve holding that memory for good (697 MB measured after a build, 1.2 GB at its
    peak), and granian's workers, forked from it, with it. A SystemExit (nothing to serve) comes back as the child
    raised it."""
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork")) as child:
        return child.submit(prepare, corpus, data, cr, cr_history=cr_history).result()


def _sources(manifest: dict) -> tuple[Path | None, Path | None]:
    """(official rules file, history folder) a build was made with: the folder alone when it had one."""
    history = manifest.get("cr_history") or {}
    if history.get("folder"):
        return None, Path(history["folder"])
    return (Path(manifest["cr"]) if manifest.get("cr") else None), None


def _describe(sources: tuple[Path | None, Path | None]) -> str:
    cr, history = sources
    return f"--cr-history {history}" if history else f"--cr {cr}" if cr else "the bundled documents only"


def connections_per_worker(files: int) -> int:
    """How many connections a worker may hold: MAX_CONNECTIONS, fewer when the open files limit is lower, so that
    accepting never fails for want of a descriptor (a worker at its limit stops accepting instead)."""
    return max(64, min(MAX_CONNECTIONS, files - FILES_RESERVED))


def granian_argv(host: str, port: int, workers: int, settings: Settings, access_log: bool,
                 files: int = 1024) -> list[str]:
    """The granian command kb serve becomes (``files``: the open files limit it runs with)."""
    return [
        sys.executable, "-m", "granian", "--interface", "wsgi", "--factory", "web.app:create_app",
        "--host", host, "--port", str(port), "--workers", str(workers),
        "--blocking-threads", str(settings.threads),
        "--http", "1", "--no-ws",  # HTTP/1.1 only, as before; no websockets to take
        "--http1-header-read-timeout", str(int(settings.head_timeout * 1000)),
        "--respawn-failed-workers",  # kill -9 of a worker: replaced, not fatal
        # a worker replaced on purpose (over MAX_RSS_MB, or SIGHUP) is stopped this long after its replacement
        # starts: a new worker listens only once the app is loaded (5-9 s under load on 2 cores, the bundled build;
        # ~19 s with the 62 releases and the semantic stage); at 0.5 s a SIGHUP under load left no worker listening
        # for ~3 s (286 connections refused of 52,061)
        "--respawn-interval", str(RESPAWN_INTERVAL),
        "--workers-kill-timeout", str(max(1, round(settings.grace))),
        "--workers-max-rss", str(MAX_RSS_MB), "--rss-sample-interval", "10", "--rss-samples", "2",
        "--backlog", "2048", "--backpressure", str(connections_per_worker(files)),
        "--log-level", "warning", "--log-config", str(Path(__file__).with_name("granian_logging.json")),
        *(["--access-log"] if access_log else []),
    ]


class OncePerSecond(logging.Filter):
    """Drops a log line said already within the last second (granian's accept loop, out of file descriptors,
    logged the same error hundreds of thousands of times); says how many were dropped when it next lets it
    through."""

    def __init__(self, name: str = ""):
        super().__init__(name)
        self._last: dict[str, tuple[float, int]] = {}
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        now = time.monotonic()
        with self._lock:
            last, dropped = self._last.get(message, (-2.0, 0))
            if now - last < 1.0:
                self._last[message] = (last, dropped + 1)
                return False
            if len(self._last) > 1000:
                self._last.clear()
            self._last[message] = (now, 0)
        if dropped:
            record.msg, record.args = f"{message} (and {dropped} more like it in the last second)", None
        return True


# What a request's path may hold as itself in the access log (RFC 3986's pchar and "/", less "%"): the rest is written
# as the client could have sent it, %XX.
_PATH_AS_IS = "/:@!$&'()*+,;=-._~"


class RequestAsSent(logging.Filter):
    """The access log's path percent-encoded, as a client could have sent it. granian logs the path decoded (WSGI's
    PATH_INFO): ``/api/x%0A[...] 6.6.6.6 - "GET /admin HTTP/1.1" 200`` wrote a line break and a whole made-up line
    (another address, another request) into the log, ``%1B[31m`` a terminal's escape sequence, and
    ``/api/search%3Fq=x`` (a 404) was logged as a search. Now every byte but those a path may hold as themselves is
    written %XX (``%`` too, so what is logged reads back to what was asked)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        path = args.get("path") if isinstance(args, Mapping) else None
        if isinstance(args, Mapping) and isinstance(path, str):
            try:
                raw = path.encode("latin-1")  # PATH_INFO is the path's bytes as latin-1 (PEP 3333)
            except UnicodeEncodeError:
                raw = path.encode("utf-8", "surrogateescape")
            record.args = {**args, "path": quote(raw, safe=_PATH_AS_IS)}
        return True


def raise_open_files(say=_say) -> int:
    """The soft limit on open files raised to the hard one (a connection is a file: 1,024 of them starved the
    server); returns the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = 1 << 20
    if soft == resource.RLIM_INFINITY:
        return 1 << 20
    if soft >= hard:
        return soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ValueError, OSError) as exc:
        say(f"could not raise the open files limit from {soft} to {hard}: {exc}")
        return soft
    return hard


def serve(args, project_root: Path) -> int:
    try:
        settings = Settings.from_env(os.environ)
    except ValueError as exc:
        raise SystemExit(f"kb serve: {exc}") from None
    plan = prepared_apart(args.corpus, args.data, args.cr, cr_history=args.cr_history)
    workers = args.workers or os.cpu_count() or 2
    files = raise_open_files()
    env = {"KB_WARM": "1",  # each worker fills its per-record search tables in the background
           **WORKER_ENV, **os.environ, "KB_DATA": str(Path(args.data).resolve()), "KB_CORPUS_DIGEST": plan.digest,
           "KB_NOT_REBUILT": plan.why or "", "KB_SOURCES": plan.sources,
           **({"KB_SEMANTIC": "0"} if getattr(args, "no_semantic", False) else {})}  # kb serve --no-semantic
    for line in directory_lines(args.data, plan):
        _say(line)
    _say(f"serving {args.data} on http://{args.host}:{args.port} with {workers} workers "
         f"(granian, {settings.threads} threads each, {settings.costly_slots} costly requests at once each; "
         f"open files up to {files}, {connections_per_worker(files)} connections a worker)")
    argv = granian_argv(args.host, args.port, workers, settings, args.access_log, files)
    os.chdir(project_root)
    sys.stderr.flush()
    os.execve(sys.executable, argv, env)  # noqa: S606 -- kb serve becomes the server; SIGTERM reaches it directly
    return 1  # pragma: no cover - execve does not return
