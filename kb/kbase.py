"""The opened knowledge base: one build's records, resolver and searcher.

Opened once per process and shared by every request. ``current()`` notices
when ``kb build`` has published a newer build (the ``current`` symlink moved)
and switches to it between requests; a request already holding the old
build finishes on it, since old builds stay on disk for a while (and a build
a server holds is never pruned, see ``kb.store.hold_build``).

Opening a build checks all of it: the manifest, the records, and the index,
opened and queried once. Whatever is wrong is one error, ``StoreError``. A
server (``fallback=True``) whose ``current`` is damaged serves the newest
intact build instead; a running server whose new build is damaged keeps the
one it has.
"""
from __future__ import annotations

import gc
import logging
import os
import threading
import time
import warnings
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from kb.history import History
from kb.search import Searcher
from kb.store import Store, StoreError, builds_newest_first, current_build_dir, hold_build

__all__ = ["KnowledgeBase", "Opened", "open_checked"]

log = logging.getLogger(__name__)


@dataclass
class Opened:
    store: Store
    searcher: Searcher
    held: int | None = field(default=None, repr=False)  # the fd whose shared lock keeps the build from pruning

    @property
    def resolver(self):
        return self.searcher.resolver

    @property
    def build_id(self) -> str:
        return self.store.build_id

    @cached_property
    def history(self) -> History | None:
        """The official rules' history of this build, opened on first use (None without one)."""
        return History.open_in(self.store.path)

    def release(self) -> None:
        if self.held is not None:
            os.close(self.held)
            self.held = None


def open_checked(path: Path) -> Opened:
    """Open one build and prove it answers: every failure becomes a StoreError naming the build."""
    store = Store.open_build(path)
    # Whoosh failing half-way through a damaged index leaves open files to the garbage collector:
    # they are closed here, quietly, rather than warned about at some later request. Only on a failure:
    # a full collection walks every object of the process (a second or more in a large one).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        searcher, failure = _open_searcher(path, store)
        if searcher is None:
            gc.collect()
    if searcher is None:
        raise StoreError(failure)
    return Opened(store, searcher, hold_build(path))


def _warm(searcher: Searcher, replaced: Searcher | None = None) -> None:
    """kb serve (KB_WARM=1): warm a build once it is the one served, in the background."""
    if os.environ.get("KB_WARM") == "1":  # a record's first hit then costs what later ones do
        gone = weakref.ref(replaced) if replaced is not None else None
        threading.Thread(target=_warm_and_freeze, args=(searcher, gone), name="kb-warm", daemon=True).start()


FREEZE_WAIT = 30.0  # seconds a warmed build waits for the build it replaced to be let go before freezing


def _warm_and_freeze(searcher: Searcher, gone: Callable[[], Searcher | None] | None = None) -> None:
    """Warm the build's tables, then move every object alive (the build, its tables, the app) out of
    the collector's reach: none of it is ever garbage while the build is served, yet each full
    collection walked all of it (~95,000 objects with the official rules: ~60 ms once every few
    thousand searches, ~15 us per search). ``KnowledgeBase.current`` gives them back when it
    switches builds, and starts this thread only then; the build it replaced (``gone``) must be
    collected before anything is frozen again: frozen while a request still held it, every switch
    would keep a whole build for good (89 MB with the official rules). So this waits for it; a
    build still held after ``FREEZE_WAIT`` is served unfrozen (slower collections, nothing kept)."""
    searcher.warm()
    deadline = time.monotonic() + FREEZE_WAIT
    while True:
        gc.collect()
        if gone is None or gone() is None:
            gc.freeze()
            return
        if time.monotonic() >= deadline:
            log.info("not freezing the warmed build: the build it replaced is still in use")
            return
        time.sleep(0.1)


def _open_searcher(path: Path, store: Store) -> tuple[Searcher | None, str]:
    searcher = None
    try:
        # KB_SEARCH_CACHE=0 turns the per-build answer cache off (kb bench measures the work itself).
        # KB_SEMANTIC=1 turns the semantic stage on (kb.semantic; off by default: the shipped model did not pay
        # on the split by record, docs/semantic.md); KB_SEMANTIC=0 or `kb serve --no-semantic`: lexical only.
        searcher = Searcher(store, cache_size=int(os.environ.get("KB_SEARCH_CACHE", "2048")),
                            semantic=os.environ.get("KB_SEMANTIC", "0") == "1")
        count = searcher.ix.doc_count()
        if count != len(store.records):
            raise StoreError(f"{path}: corrupt index ({count} documents for {len(store.records)} records)")
        searcher.searcher.search(_probe(), limit=1)  # read postings once, not only the table of contents
        return searcher, ""
    except Exception as exc:  # Whoosh reports a damaged segment in many ways
        if searcher is not None:
            searcher.close()
        if isinstance(exc, StoreError):
            return None, str(exc)
        return None, f"{path}: corrupt index ({exc.__class__.__name__}: {str(exc)[:200]})"


def _probe():
    from whoosh import query as Q

    return Q.Or([Q.Term("body", "rule"), Q.Term("title", "card"), Q.Term("exact", "the")])


class KnowledgeBase:
    CHECK_EVERY = 1.0  # seconds between looks at the ``current`` symlink

    def __init__(self, data_dir: Path, fallback: bool = False):
        self.data_dir = Path(data_dir)
        self._lock = threading.Lock()
        self.fallback_reason: str | None = None  # why we serve a build other than ``current``
        try:
            self._opened = open_checked(current_build_dir(self.data_dir))
        except StoreError as exc:
            if not fallback:
                raise
            self._opened = self._newest_intact(exc)
        _warm(self._opened.searcher)
        self._link = self._read_link()
        self._checked = time.monotonic()

    def _newest_intact(self, problem: StoreError) -> Opened:
        for build in builds_newest_first(self.data_dir):
            try:
                opened = open_checked(build)
            except StoreError as exc:
                log.warning("skipping damaged build: %s", exc)
                continue
            self.fallback_reason = f"{problem}; serving the newest intact build, {opened.build_id}"
            log.warning(self.fallback_reason)
            return opened
        raise StoreError(f"{problem}; and no intact build in {self.data_dir / 'builds'}")

    def _read_link(self) -> str:
        try:
            return os.readlink(self.data_dir / "current")
        except OSError:
            return ""

    def current(self) -> Opened:
        now = time.monotonic()
        if now - self._checked < self.CHECK_EVERY:
            return self._opened
        with self._lock:
            if now - self._checked >= self.CHECK_EVERY:
                self._checked = now
                link = self._read_link()
                if link and link != self._link:
                    try:
                        opened = open_checked(current_build_dir(self.data_dir))
                    except (OSError, StoreError) as exc:
                        # Keep answering from the build we have; the link is looked at again next time.
                        log.warning("cannot open the new build in %s (%s); still serving %s",
                                    self.data_dir, exc, self._opened.build_id)
                        self._link = link
                    else:
                        old, self._opened, self._link = self._opened, opened, link
                        self.fallback_reason = None
                        old.release()
                        gc.unfreeze()  # the old build's objects are the collector's again (_warm_and_freeze)
                        _warm(opened.searcher, replaced=old.searcher)
                        del old
        return self._opened
