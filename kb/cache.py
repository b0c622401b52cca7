"""A least-recently-used cache bounded by bytes, safe to share between threads.

Every cache a build keeps (rendered record pages, search answers) is one of
these: unique query strings, Host headers or URLs can make any number of keys,
so the bound is on what the values weigh, not on how many there are. The cache
itself is cachetools' ``LRUCache`` with a size function (its ``maxsize`` counts
bytes here); cachetools' caches are not thread-safe, so every call takes a lock.
"""
from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from cachetools import LRUCache

__all__ = ["ByteLRU", "ENTRY_BYTES"]

V = TypeVar("V")
ENTRY_BYTES = 200  # what an entry costs besides its value: the key, the entry and the dict slot


class ByteLRU(Generic[V]):
    def __init__(self, max_bytes: int, weigh: Callable[[V], int] = sys.getsizeof):
        self.max_bytes = max_bytes
        self.weigh = weigh
        self._items: LRUCache[Hashable, V] = LRUCache(max_bytes, getsizeof=self.size)
        self._lock = threading.Lock()

    def size(self, value: V) -> int:
        """What a value counts against the bound."""
        return self.weigh(value) + ENTRY_BYTES

    @property
    def bytes(self) -> int:
        return int(self._items.currsize)

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            return self._items.get(key)  # a hit is the most recently used from now on

    def put(self, key: Hashable, value: V) -> V:
        """Keep ``value`` under ``key`` (pushing out the least recently used), and return it; a value
        larger than the whole cache is answered, not kept."""
        if self.size(value) > self.max_bytes:
            return value
        with self._lock:
            self._items[key] = value
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
