"""How text becomes words: one normalisation for the index, search and ingest.

A word is a run of letters and digits (not ``_``, the documents' italics markup); a dot between
two runs keeps them together (``702.187d``), so ``***Tribal***`` is ``tribal``. Words are
lowercased, accents and ligatures folded (``Æther`` -> ``aether``, as record ids are), stop words
dropped except those that carry a question's meaning ("not", "no", "may", "yet"), and stemmed
with Snowball English: Porter stems "proliferate" and "proliferated" differently, so a query
would miss the rules that use the other form. There is no minimum length: "X", "0" and the
digits of "2/2" are words here.

Plain Python over one stemmer, so ingest (``ingest.drift``) reads words as search does without
the index. ``kb.index`` builds its Whoosh analyzer from these same pieces, and
tests/test_words.py holds the two equal on the whole corpus.
"""
from __future__ import annotations

import re
import sys
import unicodedata
from functools import lru_cache

from whoosh.lang.snowball.english import EnglishStemmer

__all__ = ["TOKEN", "TOKEN_RE", "STOP_WORDS", "QUESTION_WORDS", "FILLER_WORDS", "fold", "typed", "plain", "words",
           "stem", "stems"]

TOKEN = r"[^\W_]+(?:\.[^\W_]+)*"  # letters and digits; "_" is markup (_Future Sight_), not a letter
TOKEN_RE = re.compile(TOKEN)
# Whoosh's English stop words, less those that carry a question's meaning (negations, "may", "yet").
STOP_WORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "for", "from", "have", "if", "in", "is", "it",
    "of", "on", "or", "tbd", "that", "the", "this", "to", "us", "we", "when", "will", "with", "you", "your",
})

# Question words carry no topic; negations, "first", "last", "each" and single letters ("X") do, so they
# stay out of this list (kb.search leaves these words out of a question's stems).
QUESTION_WORDS = frozenset({
    "a", "an", "the", "is", "are", "who", "what", "whats", "how", "does", "do", "can", "you", "of", "in", "on",
    "to", "when", "which", "with", "and", "or", "for", "it", "my", "i", "if", "has", "have", "work", "works",
    "mean", "means", "happens", "happen", "s",
    # "define permanent", "trample definition", "meaning of permanent" ask what "what is a permanent" asks
    "define", "defined", "definition", "definitions", "meaning"})
# Table talk's filler: "who gets priority after something resolves", "can someone still ...".
FILLER_WORDS = frozenset({"someone", "something", "anyone", "anything", "somebody", "anybody", "get", "gets",
                          "got", "still", "ever", "just", "really", "actually", "able", "allowed", "possible",
                          # a chatty question's frame: "my buddy says ..., is he right" (no document uses these)
                          # ("friends" and "claimed" are not: "partner—Friends forever", "Mishra, Claimed by Gix")
                          "buddy", "buddies", "friend", "claims", "think", "thinks", "thought",
                          "wrong", "argument", "arguing", "argue", "argued", "wondering", "wonder", "basically",
                          "lol", "pod", "guys",
                          # a player named by a pronoun: the documents say "player" or "their" ("his or her"
                          # only in the 2007 FAQ), so these rare words weighed most in a question and meant nothing
                          "he", "she", "him", "his", "her", "hers", "himself", "herself",
                          # chat: no document uses these
                          "ok", "okay", "yeah", "yes", "hey", "hi", "pls", "plz", "idk", "im", "ur", "gonna",
                          "wanna", "btw", "tho", "um", "uh", "dunno", "hmm"})

# Letters NFKD does not decompose into a base letter plus a mark.
_LIGATURES = str.maketrans({
    "Æ": "AE", "æ": "ae", "Œ": "OE", "œ": "oe", "Ø": "O", "ø": "o",
    "ß": "ss", "Ð": "D", "ð": "d", "Þ": "Th", "þ": "th", "Ł": "L", "ł": "l",
})
_MARKUP = re.compile(r"(?<!\w)_(?=[^\s_])|(?<=[^\s_])_(?!\w)|\*{3}")  # a blank of underscores stays
_STEM = EnglishStemmer().stem


def typed(text: str) -> str:
    """What a reader typed, in the characters the documents use: digits of any script as ASCII digits ("７０２.１９",
    Arabic-Indic "٢٢"), full-width punctuation and letters as ASCII ("７０２．１９"), and invisible format characters
    (a right-to-left mark a phone put before "702.19", a zero-width space) removed. Search, references, autocomplete
    and dates read a query through it: "７０２.１９" was a rule reference no document had."""
    if text.isascii():
        return text
    out = []
    for c in text:
        if c.isascii():
            out.append(c)
        elif c.isdecimal():
            out.append(str(unicodedata.decimal(c)))
        elif "\uff01" <= c <= "\uff5e":  # full-width ASCII
            out.append(chr(ord(c) - 0xFEE0))
        elif c == "\u3000":  # ideographic space
            out.append(" ")
        elif unicodedata.category(c) != "Cf":
            out.append(c)
    return "".join(out)


def fold(text: str) -> str:
    """Fold accents and ligatures to ASCII, keeping everything else."""
    if text.isascii():  # nothing to fold (every key of _LIGATURES and every combining mark is beyond ASCII)
        return text
    text = unicodedata.normalize("NFKD", text.translate(_LIGATURES))
    return "".join(c for c in text if not unicodedata.combining(c))


def plain(text: str) -> str:
    """Text without the documents' light markup (``_Future Sight_``, ``***``)."""
    return _MARKUP.sub("", text)


def words(text: str) -> list[str]:
    """The lowercased, folded words of ``text``, stop words included, in order."""
    return [fold(m.group(0).lower()) for m in TOKEN_RE.finditer(text)]


@lru_cache(maxsize=50_000)
def stem(word: str) -> str:
    """The index term of one word ("" for a stop word): the first of ``stems(word)``. Interned: every table of stems
    (a record's, a question's) holds the one string per stem, so a set look-up finds its key by identity without
    reading another copy of the string (a question's re-rank probes fifty records' stem sets)."""
    found = stems(word)
    return sys.intern(found[0]) if found else ""


def stems(text: str) -> list[str]:
    """The index terms of ``text`` in order: what the index's ``body`` field holds for it."""
    return [_STEM(w) for w in words(text) if w not in STOP_WORDS]
