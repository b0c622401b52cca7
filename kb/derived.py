"""What an opened build derives from itself: tables made once, bounded caches, dropped with the build.

A build never changes, so what is computed from it (the card-name table, the
autocomplete phrases, rendered pages, JSON answers, rule histories) is the
same for every request. It hangs off the build (``Store.derived``, which the
opened build, ``kb.kbase.Opened``, hands on) instead of a module-level dict
keyed by build id: a switch to a new build drops the old build's tables and
caches with it, and nothing has to guess how many builds to keep.

Each entry is made once, on first use, under its own lock (two requests
asking for the same table at once get the same object, made by one of them;
different tables are made in parallel), and read-only afterwards; a cache
entry is a ``kb.cache.ByteLRU``, safe to share between threads.
"""
from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any, TypeVar

from kb.cache import ByteLRU

__all__ = ["Derived"]

T = TypeVar("T")


class Derived:
    def __init__(self) -> None:
        self._made: dict[str, Any] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()
        self.made: Counter[str] = Counter()  # how many times each entry was made: once (tests/test_derived.py)

    def get(self, name: str, make: Callable[[], T]) -> T:
        """The entry ``name``, made by ``make()`` the first time any thread asks for it."""
        try:
            return self._made[name]
        except KeyError:
            pass
        with self._lock:
            lock = self._locks.setdefault(name, threading.Lock())
        with lock:
            if name not in self._made:
                value = make()
                self.made[name] += 1
                self._made[name] = value
        return self._made[name]

    def cache(self, name: str, max_bytes: int, weigh: Callable[[Any], int]) -> ByteLRU:
        """The bounded cache ``name`` of this build (made once, with the first caller's bound)."""
        return self.get(name, lambda: ByteLRU(max_bytes, weigh))

    def __contains__(self, name: str) -> bool:
        return name in self._made
