"""The opened knowledge base: one build's records, resolver and searcher.

Opened once per process and shared by every request. ``current()`` notices
when ``kb build`` has published a newer build (the ``current`` symlink moved)
and switches to it between requests; a request already holding the old
build finishes on it, since old builds stay on disk for a while.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from kb.search import Searcher
from kb.store import Store, StoreError, current_build_dir

__all__ = ["KnowledgeBase", "Opened"]

log = logging.getLogger(__name__)


@dataclass
class Opened:
    store: Store
    searcher: Searcher

    @property
    def resolver(self):
        return self.searcher.resolver

    @property
    def build_id(self) -> str:
        return self.store.build_id


class KnowledgeBase:
    CHECK_EVERY = 1.0  # seconds between looks at the ``current`` symlink

    def __init__(self, data_dir: Path):
        self.data_dir = Path(data_dir)
        self._lock = threading.Lock()
        self._opened = self._open(current_build_dir(self.data_dir))
        self._link = self._read_link()
        self._checked = time.monotonic()

    def _read_link(self) -> str:
        return os.readlink(self.data_dir / "current")

    @staticmethod
    def _open(path: Path) -> Opened:
        store = Store.open_build(path)
        # KB_SEARCH_CACHE=0 turns the per-build answer cache off (kb bench measures the work itself).
        searcher = Searcher(store, cache_size=int(os.environ.get("KB_SEARCH_CACHE", "2048")))
        if os.environ.get("KB_WARM") == "1":  # kb serve: a record's first hit costs what later ones do
            threading.Thread(target=searcher.warm, name="kb-warm", daemon=True).start()
        return Opened(store, searcher)

    def current(self) -> Opened:
        now = time.monotonic()
        if now - self._checked < self.CHECK_EVERY:
            return self._opened
        with self._lock:
            if now - self._checked >= self.CHECK_EVERY:
                self._checked = now
                try:
                    link = self._read_link()
                    if link != self._link:
                        self._opened = self._open(current_build_dir(self.data_dir))
                        self._link = link
                except (OSError, ValueError, StoreError) as exc:
                    # Keep answering from the build we have; the next look tries again.
                    log.warning("cannot open the new build in %s (%s); still serving %s",
                                self.data_dir, exc, self._opened.build_id)
        return self._opened
