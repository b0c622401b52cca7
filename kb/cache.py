"""A least-recently-used cache bounded by bytes, safe to share between threads.

Every cache the server keeps (rendered record pages, search answers) is one of
these: unique query strings, Host headers or URLs can make any number of keys,
so the bound is on what the values weigh, not on how many there are.
"""
from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from typing import Generic, TypeVar
from collections.abc import Callable, Hashable

__all__ = ["ByteLRU"]

V = TypeVar("V")


class ByteLRU(Generic[V]):
    def __init__(self, max_bytes: int, weigh: Callable[[V], int] = sys.getsizeof):
        self.max_bytes = max_bytes
        self.weigh = weigh
        self.bytes = 0
        self._items: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return None
            self._items.move_to_end(key)
            return item[0]

    def put(self, key: Hashable, value: V) -> V:
        size = self.weigh(value) + 200  # the key, the entry and the dict slot
        if size > self.max_bytes:
            return value  # larger than the whole cache: answered, not kept
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self.bytes -= old[1]
            self._items[key] = (value, size)
            self.bytes += size
            while self.bytes > self.max_bytes:
                _, (_, dropped) = self._items.popitem(last=False)
                self.bytes -= dropped
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.bytes = 0
