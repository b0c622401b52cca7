"""Phrases worth suggesting while someone types: word pairs the documents repeat.

Autocomplete offers record labels (numbers, card names, titles); a player
looking for "nut counters" types words that are no record's title. Word
pairs that occur in at least ``MIN_COUNT`` records ("nut counters",
"identity card", "command zone") complete such queries and lead to a search.
Built once per store on first use (a few tens of milliseconds).
"""
from __future__ import annotations

import re
import threading
from collections import Counter
from itertools import pairwise

from kb.ids import fold
from kb.store import Store

__all__ = ["Phrases"]

MIN_COUNT = 2
_WORD = re.compile(r"[a-z][a-z'’-]*[a-z]")
_STOP_WORDS = """a an and are as at be been but by can could do does for from has have if in into is it its
may might must no not of on or so such than that the their them then there these they this those to was were
when where which while who will with would you your any each other one two all only also more most"""
_STOP = frozenset(_STOP_WORDS.split())


class Phrases:
    def __init__(self, store: Store):
        self.store = store
        self._lock = threading.Lock()
        self._phrases: list[tuple[str, int]] | None = None

    def _build(self) -> list[tuple[str, int]]:
        counts: Counter[str] = Counter()
        for r in self.store.records.values():
            words = _WORD.findall(fold(r.text or "").lower())
            counts.update({f"{a} {b}" for a, b in pairwise(words)
                           if a not in _STOP and b not in _STOP and len(a) > 2 and len(b) > 2})
        return sorted(((p, n) for p, n in counts.items() if n >= MIN_COUNT), key=lambda x: (-x[1], x[0]))

    def complete(self, q: str, limit: int) -> list[str]:
        """Up to ``limit`` phrases starting with what was typed, most frequent first."""
        key = " ".join(fold(q).lower().split())
        if len(key) < 3 or limit <= 0:
            return []
        if self._phrases is None:
            with self._lock:
                if self._phrases is None:
                    self._phrases = self._build()
        return [p for p, _ in self._phrases if p.startswith(key) and p != key][:limit]
