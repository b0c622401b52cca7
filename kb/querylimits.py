"""Bounds on the work one query may ask for, applied before the search engine sees it.

A query of 61 quoted phrases (``"a a a" "a a a" …``) cost half a second of CPU,
and eight clients sending such queries (a unique suffix each, past the answer
cache) starved everyone else. The work of a query grows with its phrases (each
a positional match over every posting of its words) and its distinct words
(each an OR over three fields), so both are capped here, after duplicates are
dropped. What is cut is said in the results' note, never dropped silently.

``limit_query`` returns the text unchanged when no cap applies, so ordinary
queries (rule numbers, card names, a few words) are searched exactly as typed.
"""
from __future__ import annotations

import re

from kb.words import FILLER_WORDS, QUESTION_WORDS, STOP_WORDS

__all__ = ["limit_query", "MAX_PHRASES", "MAX_PHRASE_WORDS", "MAX_WORDS"]

MAX_PHRASES = 4  # distinct quoted phrases searched
MAX_PHRASE_WORDS = 8  # words kept from each phrase
MAX_WORDS = 16  # distinct words outside phrases that reach the engine (not stop words nor question words)

_PHRASE = re.compile(r'"([^"]+)"')
_FREE = STOP_WORDS | QUESTION_WORDS | FILLER_WORDS


def _key(words: list[str]) -> str:
    return " ".join(w.casefold() for w in words)


def limit_query(text: str) -> tuple[str, str | None]:
    """The query within the caps, and a note saying what was left out (None when nothing was)."""
    if '"' not in text and len(text.split()) <= MAX_WORDS:
        return text, None  # no phrase and too few words to pass a cap: most queries, answered without a word loop
    phrases: list[list[str]] = []
    seen: set[str] = set()
    found = _PHRASE.findall(text)
    for phrase in found:
        words = phrase.split()
        if words and _key(words) not in seen:
            seen.add(_key(words))
            phrases.append(words)
    rest = _PHRASE.sub(" ", text).split()
    distinct: list[str] = []
    seen_words: set[str] = set()
    counted, end = 0, None  # words that reach the engine, and where the one past the cap sits
    for w in rest:
        if w.casefold() not in seen_words:
            seen_words.add(w.casefold())
            # "so", "if", "what", "does" never reach the engine: they cost nothing, so they count nothing
            if w.casefold().strip("?!.,;:") not in _FREE:
                counted += 1
                if counted == MAX_WORDS + 1:
                    end = len(distinct)
            distinct.append(w)
    cut = []
    if len(phrases) > MAX_PHRASES:
        cut.append(f"only the first {MAX_PHRASES} of {len(phrases)} distinct phrases")
    if any(len(p) > MAX_PHRASE_WORDS for p in phrases[:MAX_PHRASES]):
        cut.append(f"phrases cut to {MAX_PHRASE_WORDS} words")
    if counted > MAX_WORDS:
        cut.append(f"only the first {MAX_WORDS} of {counted} distinct words")
    if not cut and len(phrases) == len(found):
        return text, None  # within every cap, no repeats: searched as typed
    kept = [f'"{" ".join(p[:MAX_PHRASE_WORDS])}"' for p in phrases[:MAX_PHRASES]] + distinct[:end]
    note = "query shortened: " + ", ".join(cut) + " were searched" if cut else None
    return " ".join(kept), note
