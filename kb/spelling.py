""""Did you mean": the indexed words within one edit of a word typed.

Every indexed word, and every word with one letter taken out, maps to the
words it came from; two words within one edit share a key (a swap of
neighbours counts as one edit: "morhp" -> "morph"). A lookup replaces
Whoosh's corrector, which costs ~15 ms a word at distance 2 and at distance
1 misses swaps. Built once per build: ~30-60 ms, ~36,000 keys with the
official rules.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

from kb.resolve import edit_distance

__all__ = ["Spelling"]


class Spelling:
    def __init__(self, words: Iterable[str], frequency: Callable[[str], int]):
        # each key's words with how often they are used, the most used first (as many: the word last in order first,
        # as ``suggest`` prefers it): a word is read with its count, and a key's words after one within an edit lose
        keys: dict[str, set[tuple[int, str]]] = {}
        for word in words:
            if len(word) < 4 or not word.isalpha():
                continue
            used = (frequency(word), word)
            keys.setdefault(word, set()).add(used)
            for i in range(len(word)):
                keys.setdefault(word[:i] + word[i + 1:], set()).add(used)
        self.keys = {k: tuple(v) if len(v) == 1 else tuple(sorted(v, reverse=True)) for k, v in keys.items()}

    def suggest(self, word: str) -> str | None:
        """The most used word within one edit of ``word`` ("unvel" -> "unveil", never "until"): of the words sharing
        a key with it, the greatest (use count, word) within one edit."""
        best: tuple[int, str] | None = None
        table = self.keys
        for key in (word, *[word[:i] + word[i + 1:] for i in range(len(word))]):
            for used in table.get(key, ()):
                if best is not None and used <= best:
                    break  # the rest of this key's words are used less
                if used[1] != word and edit_distance(word, used[1], 1) <= 1:
                    best = used
                    break
        return best[1] if best is not None else None
