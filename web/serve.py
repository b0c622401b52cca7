"""``kb serve``: choose the build to serve, start gunicorn behind the front, supervise both.

Which build: the current one when it is intact and built from today's corpus;
otherwise a rebuild; and when the rebuild is impossible (the corpus no
longer builds, the data directory is read-only or full) the last good build,
with a loud warning on stderr and ``"stale": true`` in ``/api/health``. A
server only refuses to start when there is no intact build at all.

How: gunicorn (threaded workers, one Whoosh searcher per thread) listens on a
unix socket in a private temporary directory; the asyncio front
(``web.front``) listens on the public address and hands it only complete
requests. Both stop together: SIGTERM or Ctrl-C stops the front and
gunicorn; gunicorn exiting stops the front.
"""
from __future__ import annotations

import asyncio
import ctypes
import multiprocessing
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
import contextlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from web.front import Limits

__all__ = ["Plan", "prepare", "prepared_apart", "serve", "THREADS"]

THREADS = 8  # gunicorn threads per worker; the front lets at most THREADS - 1 costly requests in
# glibc gives each thread that allocates its own memory arena and keeps what is freed in it: eight threads per
# worker held 366 / 327 MB after 2,500 unique costly requests and 374 / 374 MB after 5,000; with two arenas 279 / 294
# and 299 / 308 MB, as fast (the thirteenth session's soak). The environment may say otherwise.
WORKER_ENV = {"MALLOC_ARENA_MAX": "2"}


def costly_slots(workers: int) -> int:
    """Costly requests let into gunicorn at once. Fewer than a worker's threads, so every worker
    keeps a thread for /api/health and pages; about two per worker, since each worker's searches
    share one core (the GIL) and more at once only make every request wait longer."""
    return max(1, min(THREADS - 1, 2 * workers))


@dataclass
class Plan:
    build_id: str
    digest: str  # what the corpus (and code) digest is today
    stale: bool
    why: str | None  # why the build served is not a fresh one, said loudly


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def prepare(corpus: Path, data: Path, cr: Path | None, say=_say, cr_history: Path | None = None) -> Plan:
    """Make sure there is something good to serve; raise SystemExit when there is nothing.

    With ``cr_history`` the digest covers every release in that folder, so adding one rebuilds."""
    from ingest.build import corpus_digest
    from ingest.errors import ParseError
    from ingest.publish import build
    from kb.kbase import KnowledgeBase, open_checked
    from ingest.releases import release_files
    from kb.store import BuildWriteError, StoreError, current_build_dir

    try:
        opened = open_checked(current_build_dir(data))
    except StoreError as exc:
        opened, reason = None, str(exc)
    built_with = _sources(opened.store.manifest) if opened is not None else (None, None)
    if cr is None and cr_history is None and any(built_with):
        # No sources named: keep the official rules the current build was made with (a plain `kb serve`
        # after `kb build --cr ...` must not quietly rebuild without them). `kb build` chooses sources.
        cr, cr_history = built_with
        gone = cr_history if cr_history is not None else cr
        if gone is not None and not gone.exists():
            say(f"the official rules the current build was made with are gone ({gone}): building without them")
            cr = cr_history = None
        else:
            say(f"serving with the official rules the current build was made with: {gone} "
                "(name others with --cr/--cr-history; `kb build` without them drops them)")
    paths = [cr] if cr else []
    if cr_history:
        paths = release_files(Path(cr_history)) if Path(cr_history).is_dir() else []
    want = corpus_digest(corpus, paths)
    if opened is not None:
        fresh = opened.store.manifest.get("corpus_digest") == want
        build_id = opened.build_id
        opened.searcher.close()
        opened.release()
        if fresh:
            return Plan(build_id, want, False, None)
        asked = (Path(cr).resolve() if cr and not cr_history else None,
                 Path(cr_history).resolve() if cr_history else None)
        if asked != built_with:
            reason = (f"build {build_id} was made with {_describe(built_with)}; "
                      f"asked for {_describe(asked)}")
        else:
            reason = f"build {build_id} is out of date (the corpus or the code changed)"
    failure = None
    if Path(data).exists() and not os.access(data, os.W_OK):
        failure = f"the data directory {data} is read-only"
    else:
        say(f"building: {reason}")
        try:
            result = build(corpus, data, cr=cr, cr_history=cr_history, progress=lambda line: say(f"  {line}"),
                           on_wait=say, embed=os.environ.get("KB_SEMANTIC", "0") == "1")
            return Plan(result.build_id, want, False, None)
        except ParseError as exc:
            failure = "the corpus no longer builds:\n" + str(exc)
        except BuildWriteError as exc:
            failure = str(exc)
    try:
        kb = KnowledgeBase(data, fallback=True)
    except StoreError as exc:
        raise SystemExit(f"cannot serve: {reason}; not rebuilt because {failure}; {exc}") from None
    served = kb.current()
    why = f"NOT REBUILT: {failure}. Serving the last good build, {served.build_id} ({reason})."
    bar = "!" * 78
    say(f"{bar}\n{why}\n{bar}")
    stale = served.store.manifest.get("corpus_digest") != want or kb.fallback_reason is not None
    served.searcher.close()
    served.release()
    return Plan(served.build_id, want, stale, why)


def prepared_apart(corpus: Path, data: Path, cr: Path | None, cr_history: Path | None = None) -> Plan:
    """``prepare`` in a child process: opening the build to check it (its search tables, ~270 MB with the official
    rules) or making one left kb serve, the front that only forwards bytes, holding that memory for good (697 MB
    measured after a build, 1.2 GB at its peak; the front needs ~50 MB). A SystemExit (nothing to serve) comes back
    as the child raised it."""
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


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """gunicorn gets SIGTERM if kb serve dies without cleaning up (Linux prctl PR_SET_PDEATHSIG)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)


def serve(args, project_root: Path) -> int:
    from web.front import Limits

    try:
        limits = Limits.from_env(os.environ)
    except ValueError as exc:
        raise SystemExit(f"kb serve: {exc}") from None
    plan = prepared_apart(args.corpus, args.data, args.cr, cr_history=args.cr_history)
    workers = args.workers or os.cpu_count() or 2
    rundir = Path(tempfile.mkdtemp(prefix="kb-serve-"))
    sock = rundir / "gunicorn.sock"
    env = {"KB_WARM": "1",  # each worker fills its per-record search tables in the background
           **WORKER_ENV, **os.environ, "KB_DATA": str(Path(args.data).resolve()), "KB_CORPUS_DIGEST": plan.digest,
           "KB_NOT_REBUILT": plan.why or ""}
    argv = [
        sys.executable, "-m", "gunicorn",
        "--bind", f"unix:{sock}",
        "--workers", str(workers),
        "--worker-class", "gthread", "--threads", str(THREADS),
        "--timeout", "30", "--graceful-timeout", "10",
        "--limit-request-line", "0",  # the front bounds the head (16 KB); the app says "query too long"
        "--access-logfile", "-" if args.access_log else "/dev/null",
        "web.app:create_app()",
    ]
    gunicorn = subprocess.Popen(argv, cwd=project_root, env=env, preexec_fn=_die_with_parent)
    try:
        return asyncio.run(_run(gunicorn, sock, args.host, args.port, workers, args.data, limits))
    except KeyboardInterrupt:
        return 0
    finally:
        if gunicorn.poll() is None:
            gunicorn.terminate()
            try:
                gunicorn.wait(timeout=15)
            except subprocess.TimeoutExpired:
                gunicorn.kill()
        shutil.rmtree(rundir, ignore_errors=True)


async def _run(gunicorn: subprocess.Popen, sock: Path, host: str, port: int, workers: int, data: Path,
               limits: Limits) -> int:
    from web.front import Front

    deadline = time.monotonic() + 120
    while not _answers(sock):
        if gunicorn.poll() is not None:
            _say(f"gunicorn exited with {gunicorn.returncode} before it listened")
            return 1
        if time.monotonic() > deadline:
            _say("gunicorn did not listen within 120 s")
            return 1
        await asyncio.sleep(0.05)
    front = Front(str(sock), slots=costly_slots(workers), limits=limits, heavy_slots=max(1, workers // 2))
    server = await front.start(host, port)
    _say(f"serving {data} on http://{host}:{port} with {workers} workers")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    while not stop.is_set() and gunicorn.poll() is None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.5)
    server.close()
    if gunicorn.poll() is not None:
        _say(f"gunicorn exited with {gunicorn.returncode}; stopping")
        return gunicorn.returncode or 1
    return 0


def _answers(sock: Path) -> bool:
    if not sock.exists():
        return False
    with socket.socket(socket.AF_UNIX) as s:
        try:
            s.connect(str(sock))
            return True
        except OSError:
            return False
