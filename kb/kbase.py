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
import json
import logging
import os
import threading
import time
import warnings
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from kb.derived import Derived
from kb.history import History
from kb.obsolete import Obsolete
from kb.offline import Pack, make_pack
from kb.search import Searcher
from kb.store import Store, StoreError, builds_newest_first, current_build_dir, hold_build
from kb.whoosh_adapter import IndexReleaseError

__all__ = ["KnowledgeBase", "Opened", "open_checked", "sources_of", "manifest_of", "SEARCH_CACHE"]

SEARCH_CACHE = 2048  # a build's search answer cache, by default (kb.search.Searcher's cache_size)

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

    @property
    def derived(self) -> Derived:
        """What this build derives, made once per build (kb.derived)."""
        return self.store.derived

    @property
    def offline(self) -> Pack:
        """This build's offline pack (kb.offline), made on first use, once (kb.derived: two requests at once made it
        twice, half a second each with the official rules), and read-only after: it goes with the build."""
        return self.store.derived.get("offline", lambda: make_pack(self.store))

    @property
    def history(self) -> History | None:
        """The official rules' history of this build, opened on first use (None without one)."""
        return self.store.derived.get("history", lambda: History.open_in(self.store.path))

    @property
    def obsolete(self) -> Obsolete:
        """Which rulings and notes of an older document rest on a rule changed since (corpus/*_obsolete.toml)."""
        return self.store.derived.get("obsolete", lambda: Obsolete(self.store.manifest.get("obsolete"),
                                                                   self.store.records))

    def release(self) -> None:
        if self.held is not None:
            os.close(self.held)
            self.held = None


def open_checked(path: Path, search_cache: int = SEARCH_CACHE, semantic: bool = False, learned: bool = False,
                 cross: bool = False) -> Opened:
    """Open one build and prove it answers: every failure becomes a StoreError naming the build.
    ``search_cache``: answers its searcher keeps (0: none, every query does its work, as kb bench measures);
    ``semantic``: the semantic stage on (KB_SEMANTIC, on by default; kb.semantic: docs/semantic.md);
    ``learned``: the learned ranker on (KB_RANKER=1; kb.learned, docs/ranker.md); ``cross``: the cross-encoder on
    (KB_CROSS=1; kb.cross, off by default: docs/semantic.md)."""
    store = Store.open_build(path)
    # Whoosh failing half-way through a damaged index leaves open files to the garbage collector:
    # they are closed here, quietly, rather than warned about at some later request. Only on a failure:
    # a full collection walks every object of the process (a second or more in a large one).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        searcher, failure = _open_searcher(path, store, search_cache, semantic, learned, cross)
        if searcher is None:
            gc.collect()
    if searcher is None:
        raise StoreError(failure)
    return Opened(store, searcher, hold_build(path))


def _warm(searcher: Searcher, replaced: Searcher | None = None) -> None:
    """kb serve (``warm``, from KB_WARM=1): warm a build once it is the one served, in the background, so a
    record's first hit then costs what later ones do."""
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
    searcher.release()  # this thread ends: its searcher goes to the requests'
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


def _open_searcher(path: Path, store: Store, search_cache: int, semantic: bool,
                   learned: bool = False, cross: bool = False) -> tuple[Searcher | None, str]:
    searcher = None
    try:
        searcher = Searcher(store, cache_size=search_cache, semantic=semantic, learned=learned, cross=cross)
        count = searcher.ix.doc_count()
        if count != len(store.records):
            raise StoreError(f"{path}: corrupt index ({count} documents for {len(store.records)} records)")
        searcher.searcher.search(_probe(), limit=1)  # read postings once, not only the table of contents
        searcher.release()  # for the first request to take, whichever thread opened the build
        return searcher, ""
    except Exception as exc:  # Whoosh reports a damaged segment in many ways
        if searcher is not None:
            searcher.close()
        if isinstance(exc, StoreError):
            return None, str(exc)
        if isinstance(exc, IndexReleaseError):  # a build made before a Whoosh upgrade: kb serve rebuilds it
            return None, f"{path}: {exc}"
        return None, f"{path}: corrupt index ({exc.__class__.__name__}: {str(exc)[:200]})"


def _probe():
    from whoosh import query as Q

    return Q.Or([Q.Term("body", "rule"), Q.Term("title", "card"), Q.Term("exact", "the")])


def sources_of(manifest: dict) -> str:
    """What a build was made from besides the bundled documents, as a key: "" (nothing else),
    "cr:<file>" or "cr-history:<folder>" (the resolved paths its manifest records)."""
    history = manifest.get("cr_history") or {}
    if history.get("folder"):
        return f"cr-history:{history['folder']}"
    return f"cr:{manifest['cr']}" if manifest.get("cr") else ""


def manifest_of(build: Path) -> dict | None:
    """A build's manifest, or None when it cannot be read (the build is then no one's)."""
    try:
        manifest = json.loads((Path(build) / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) else None


class KnowledgeBase:
    CHECK_EVERY = 1.0  # seconds between looks at the ``current`` symlink

    def __init__(self, data_dir: Path, fallback: bool = False, sources: str | None = None, warm: bool = False,
                 search_cache: int = SEARCH_CACHE, semantic: bool = False, learned: bool = False, cross: bool = False):
        """``sources`` (a ``sources_of`` key; kb serve sets it): serve only builds made from them, the newest
        intact one, and follow ``current`` only to builds of the same sources (another server of the same data
        directory building with other sources does not switch this one). ``warm``: warm each build served in the
        background (kb serve's workers: KB_WARM=1); ``search_cache``: the size of each build's search answer
        cache, 0 for none (KB_SEARCH_CACHE); ``semantic``: the semantic stage on (KB_SEMANTIC); ``learned``: the
        learned ranker on (KB_RANKER); ``cross``: the cross-encoder on (KB_CROSS)."""
        self.data_dir = Path(data_dir)
        self.sources = sources
        self.warm, self.search_cache, self.semantic, self.learned = warm, search_cache, semantic, learned
        self.cross = cross
        self._lock = threading.Lock()
        self.fallback_reason: str | None = None  # why we serve a build other than ``current``
        if sources is not None:
            self._opened = self._newest_of_sources(sources)
        else:
            try:
                self._opened = open_checked(current_build_dir(self.data_dir), search_cache, semantic, learned, cross)
            except StoreError as exc:
                if not fallback:
                    raise
                self._opened = self._newest_intact(exc)
        if warm:
            _warm(self._opened.searcher)
        self._link = self._read_link()
        self._checked = time.monotonic()

    def _newest_of_sources(self, sources: str) -> Opened:
        damaged = []
        for build in builds_newest_first(self.data_dir):
            manifest = manifest_of(build)
            if manifest is None or sources_of(manifest) != sources:
                continue
            try:
                opened = open_checked(build, self.search_cache, self.semantic, self.learned, self.cross)
            except StoreError as exc:
                log.warning("skipping damaged build: %s", exc)
                damaged.append(str(exc))
                continue
            if damaged:
                self.fallback_reason = f"{damaged[0]}; serving the newest intact build of the same sources, " \
                                       f"{opened.build_id}"
                log.warning(self.fallback_reason)
            return opened
        raise StoreError(f"{self.data_dir}: no intact build made from {sources or 'the bundled documents alone'}"
                         + (f" ({damaged[0]})" if damaged else ""))

    def _newest_intact(self, problem: StoreError) -> Opened:
        for build in builds_newest_first(self.data_dir):
            try:
                opened = open_checked(build, self.search_cache, self.semantic, self.learned, self.cross)
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

    def release(self) -> None:
        """This thread is done with the served build's searcher and history for now (the end of a request:
        web.app): another thread may take them (kb.search.Searcher.release, kb.history.History.release)."""
        opened = self._opened
        if opened is not None and opened.searcher is not None:
            opened.searcher.release()
        if opened is not None and opened.history is not None:
            opened.history.release()

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
                        opened = open_checked(current_build_dir(self.data_dir), self.search_cache, self.semantic,
                                              self.learned, self.cross)
                    except (OSError, StoreError) as exc:
                        # Keep answering from the build we have; the link is looked at again next time.
                        log.warning("cannot open the new build in %s (%s); still serving %s",
                                    self.data_dir, exc, self._opened.build_id)
                        self._link = link
                    else:
                        if self.sources is not None and sources_of(opened.store.manifest) != self.sources:
                            # a build of other sources (kb serve --cr ... on the same directory): not ours
                            log.warning("%s is now %s, made from other sources; still serving %s",
                                        self.data_dir / "current", opened.build_id, self._opened.build_id)
                            opened.searcher.close()
                            opened.release()
                            self._link = link
                            return self._opened
                        old, self._opened, self._link = self._opened, opened, link
                        self.fallback_reason = None
                        old.release()
                        gc.unfreeze()  # the old build's objects are the collector's again (_warm_and_freeze)
                        if self.warm:
                            _warm(opened.searcher, replaced=old.searcher)
                        del old
        return self._opened
