"""Stage 1, parse: the query box's text -> a typed ``Query``.

Limits checked (kb.querylimits bounds the work), ``doc:``/``kind:`` filters taken out, the question's table words
rewritten in the documents' words (kb.vocabulary: "kill" -> destroy, "etb" -> enters the battlefield), a document
or kind of record the question names noted. The text functions here (a text's exact words, its content stems, its
quoted phrases, the words naming a document) are what every later stage reads a query through; each is cached per
text, since the lead, the Whoosh query and the re-rank all ask of the same text.

A ``Query``'s typed parts: the text without filters, ``doc`` and ``kind``, its words as the documents say them
(``words``), the document and kind of record it names, the rule reference it is (``reference``), its quoted
``phrases`` and content ``stems``.

Reads: the build's documents, its vocabulary, whether the index holds a word, the card names a question holds, the
section titles and document names the reference grammar reads.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from types import EllipsisType

from kb import rank
from kb.ids import fold
from kb.model import KINDS
from kb.querylimits import limit_query
from kb.refs import RefQuery, parse_ref
from kb.search.results import QueryError
from kb.snippet import stem
from kb.vocabulary import Expansion, Vocabulary
from kb.words import FILLER_WORDS, QUESTION_WORDS, words

__all__ = ["Query", "Parser", "MAX_QUERY", "MAX_LIMIT", "MAX_OFFSET", "MAX_TERMS", "content_stems", "exact_words",
           "naming_stems", "named_words", "unquoted_stems", "pairs"]

MAX_QUERY = 500  # characters; longer input is refused, not truncated silently
MAX_LIMIT = 100
MAX_OFFSET = 10_000
MAX_TERMS = 24

FILTER = re.compile(r"\b(doc|kind):(\S+)")
PUNCTUATION = ".,;:!?()[]{}\"'“”‘’"
PHRASE = re.compile(r'"([^"]+)"')
# Question words carry no topic. Negations, "first", "last", "each" and single letters ("X")
# do, so they stay.
STOP = QUESTION_WORDS
ONLY_ASKING = QUESTION_WORDS | FILLER_WORDS  # words a question asks or chats with: never a typo to correct
# Table talk's filler: "who gets priority after something resolves", "can someone still ...".
FILLER = FILLER_WORDS
STOP_OR_FILLER = STOP | FILLER  # once, not per query (a union of a hundred words, 1 us)
# Question phrases that carry no topic: "how many lands", "what counts as a permanent", "cast vs play".
ASKING = re.compile(r"\b(?:how\s+(?:many|much)|what\s+counts?\s+as|vs|versus)\b\.?", re.I)
DOC_PHRASES = re.compile(r"\b(future)\s+(sight)\b|\b(edh)\s+(silver)\b")


def _may_join(lowered: str) -> bool:
    """``DOC_PHRASES`` may join two words of a lowercased text: it holds one of their second words."""
    return "sight" in lowered or "silver" in lowered


WORD = re.compile(r"\w+")


@dataclass
class Query:
    """A query after parsing: what to search for, where, and which page."""
    raw: str
    text: str  # without filters
    doc: str | None
    kind: str | None
    limit: int
    offset: int
    words: Expansion  # the text in the documents' words
    named_doc: str | None = None  # a document the question names ("... in treachery")
    named_kind: str | None = None  # a kind of record it names ("... glossary", "rulings")
    limited: str | None = None  # what kb.querylimits left out, said in the note
    correction: str | None | EllipsisType = ...  # its spelling correction once asked (kb.search.typos.Typos.correction)
    # its texts without unknown words (Typos.said_in) and with their typos corrected (Typos.fixed_in; the words of
    # five letters: ``fixed_short``), each worked out once: the lead and the full-text stage both ask, mostly of
    # the same text
    said: dict[str, str] = field(default_factory=dict)
    fixed: dict[str, str | None] = field(default_factory=dict)
    fixed_short: dict[str, str | None] = field(default_factory=dict)
    # each word's spelling worked out once ("one unvel": its one-edit fix; "two ...", "fix ...", "short ...":
    # kb.search.typos), since the correction, the typos fixed and the unknown words all ask of the same words
    spelt: dict[str, str | None] = field(default_factory=dict)
    # the text read as one rule reference (kb.refs.parse_ref: "CR 702.187c", "907.4b", "716.2@2016-07-22"), or None;
    # the lead resolves it (kb.search.lead)
    reference: RefQuery | None = None

    @property
    def phrases(self) -> list[str]:
        """The text's "quoted phrases", searched word for word in that order (kb.search.candidates)."""
        return PHRASE.findall(self.text)

    @property
    def stems(self) -> list[str]:
        """The content stems of the text in the documents' words: what the question is about."""
        return content_stems(self.words.text)


class Parser:
    """Query text -> ``Query``; a ``QueryError`` for what cannot run (too long, an unknown document or kind)."""

    def __init__(self, docs: Iterable[str], vocabulary: Vocabulary, knows: Callable[[str], bool],
                 named_cards: Callable[[Iterable[str]], frozenset[str]], sections: Sequence[str] = (),
                 doc_names: Mapping[str, str] | None = None):
        self.docs = frozenset(docs)
        self.vocabulary = vocabulary
        self.knows = knows  # the index holds this word as written
        self.named_cards = named_cards  # the cards whose whole name these stems hold
        # what the reference grammar reads besides numbers: section titles ("Token Cards j"), documents' names
        # (a tuple: kb.refs reads them as one, and a tuple of a tuple is itself, not a copy per query)
        self.sections, self.doc_names = tuple(sections), doc_names

    def parse(self, q: str, doc: str | None, kind: str | None, limit: int, offset: int) -> Query:
        q = (q or "").replace("\x00", " ")
        check_limits(q, limit, offset)
        filtered = ":" in q  # doc:... or kind:... (most queries have no colon, so no filter to look for)
        for name, value in FILTER.findall(q) if filtered else ():
            if name == "doc":
                doc = value.lower()
            else:
                kind = value.lower()
        text, limited = limit_query((FILTER.sub(" ", q) if filtered else q).strip())  # bounded work (kb.querylimits)
        if doc and doc not in self.docs:
            raise QueryError(f"unknown document {doc!r}; known: {', '.join(sorted(self.docs))}")
        if kind and kind not in KINDS:
            raise QueryError(f"unknown kind {kind!r}; known: {', '.join(KINDS)}")
        use_vocabulary = '"' not in text and "vocabulary" in rank.SIGNALS
        expanded = self.vocabulary.expand(text, self.knows, lambda: bool(self.named_cards(content_stems(text)))) \
            if use_vocabulary else Expansion(text)
        lowered = text.lower()
        said = WORD.findall(lowered)
        # named_words' folded words are these in ASCII text (fold changes nothing) with no two-word document name
        # to join (neither "sight" nor "silver"): the text read once, not twice
        folded = said if text.isascii() and not _may_join(lowered) else named_words(text)
        named = [rank.DOC_NAMES[w] for w in folded if w in rank.DOC_NAMES]
        named_doc = named[0] if named and named[0] in self.docs and not doc else None
        kinds = [rank.KIND_NAMES[w] for w in said if w in rank.KIND_NAMES]
        reference = parse_ref(text, sections=self.sections, bare_numbers=True, doc_names=self.doc_names) \
            if text else None
        return Query(q, text, doc, kind, limit, offset, expanded, named_doc, kinds[0] if kinds and not kind else None,
                     limited, reference=reference)


def check_limits(q: str, limit: int, offset: int) -> None:
    if len(q) > MAX_QUERY:
        raise QueryError(f"query too long: {len(q)} characters (at most {MAX_QUERY})")
    if not 1 <= limit <= MAX_LIMIT:
        raise QueryError(f"limit must be between 1 and {MAX_LIMIT}")
    if not 0 <= offset <= MAX_OFFSET:
        raise QueryError(f"offset must be between 0 and {MAX_OFFSET}")


# -- a query's words, as every stage reads them -------------------------------------------------------------------
def pairs(text: str) -> list[str]:
    """Adjacent content words of a query, as they would sit in folded text: " starting player "."""
    said = [fold(w) for w in exact_words(without_asking(PHRASE.sub(" ", text))) if w not in STOP][:MAX_TERMS]
    return rank.pairs(said)


def without_asking(text: str) -> str:
    """A question without the phrases that only ask ("how many", "what counts as", "vs")."""
    return ASKING.sub(" ", text) if "question phrases" in rank.SIGNALS else text


@lru_cache(maxsize=1024)
def exact_words(text: str) -> tuple[str, ...]:
    """The words of a text as the unstemmed field (``kb.index.analyzer(stem=False)``) analyses them.
    Several stages analyse the same text of one query (titles, the Whoosh query, the re-rank's stems and
    word pairs)."""
    # kb.words.words is that analyzer's chain (tokenizer, lowercase, fold) without Whoosh's token objects
    # and generators, 3.5 -> 1.2 µs per text; tests/test_words.py holds the two equal on the whole corpus.
    return tuple(words(text))


def content_stems(text: str) -> list[str]:
    """The stems of what a question is about: "what happens when a player has ten poison
    counters" -> player, ten, poison, counter (question words carry no topic)."""
    return list(stems_of(text, "question phrases" in rank.SIGNALS))


def named_words(text: str) -> list[str]:
    """The folded words of a text, a document named in two words as one ("future sight" -> futuresight)."""
    folded = fold(text).lower()
    if _may_join(folded):  # else none of DOC_PHRASES' second words: nothing to join
        folded = DOC_PHRASES.sub(lambda m: "".join(filter(None, m.groups())), folded)
    return WORD.findall(folded)


@lru_cache(maxsize=1024)
def naming_stems(text: str) -> frozenset[str]:
    """The stems of the words naming a document or a kind of record ("treachery", "future sight", "rulings"):
    a preference (kb.rank), not a topic."""
    folded = fold(text).lower()
    names = {w for w in named_words(text) if w in rank.DOC_NAMES or w in rank.KIND_NAMES}
    found = set(WORD.findall(folded)) & names
    for m in DOC_PHRASES.finditer(folded):  # both words of a two-word name
        if "".join(filter(None, m.groups())) in names:
            found.update(filter(None, m.groups()))
    return frozenset(stem(w) for w in found)


@lru_cache(maxsize=1024)
def unquoted_stems(text: str) -> tuple[str, ...]:
    """The content stems of a query outside its "quoted phrases": none when the rest only asks
    (`what does "dies" mean`), where a query of question words alone searches for them. Once per
    text: the Whoosh query, the re-rank and the common questions each ask."""
    rest = PHRASE.sub(" ", text)
    if rest != text and not any(w not in STOP and w not in FILLER for w in exact_words(ASKING.sub(" ", rest))):
        return ()
    return tuple(content_stems(rest))


@lru_cache(maxsize=1024)
def stems_of(text: str, questions: bool) -> tuple[str, ...]:
    """``content_stems``, once per text: the lead, the Whoosh query and the re-rank each ask."""
    raw = list(exact_words(ASKING.sub(" ", text) if questions else text))
    stop = STOP_OR_FILLER if questions else STOP
    content = [w for w in raw if w not in stop] or raw
    return tuple([s for s in dict.fromkeys(stem(w) for w in content) if s][:MAX_TERMS])
