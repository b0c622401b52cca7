"""The ranking signals: a registry of named features, each on unless a measurement turns it off.

Every signal search uses is registered here once, with what it reads and what
it does (the README's Search section measures each). Code asks ``"name" in
SIGNALS``: a name that is not registered is an error (``UnknownSignal``), never
a silent "off", so a misspelt check cannot quietly drop a signal. To measure a
signal, turn it off for a block (``with SIGNALS.off("asked"): ...``); the
registry itself never changes, and what is off is the calling context's own
(a ``ContextVar``): a test measuring a signal in one thread changes nothing a
server thread answers.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

__all__ = ["Signal", "Signals", "SIGNALS", "UnknownSignal"]


class UnknownSignal(KeyError):
    """A signal name no feature is registered under."""


@dataclass(frozen=True)
class Signal:
    name: str
    reads: str  # what it reads: the question, its candidates, the build's tables
    doc: str  # what it does, in one line
    stage: str = "rank"  # where it acts: "query" (what Whoosh is asked), "lead" (answers before the full text), "rank"


class Signals:
    """Signals by name, in registration order; each is on unless ``off`` turns it off in this context."""

    def __init__(self, signals: list[Signal]):
        self._all: dict[str, Signal] = {}
        for s in signals:
            if s.name in self._all:
                raise ValueError(f"signal {s.name!r} registered twice")
            self._all[s.name] = s
        self._names = frozenset(self._all)
        self._off: ContextVar[frozenset[str]] = ContextVar("signals_off", default=frozenset())

    def __contains__(self, name: object) -> bool:
        """Whether the signal ``name`` is on; an unregistered name raises ``UnknownSignal``."""
        if name not in self._all:
            raise UnknownSignal(f"no ranking signal is named {name!r}")
        return name not in self._off.get()

    def __iter__(self) -> Iterator[Signal]:
        return iter(self._all.values())

    def __len__(self) -> int:
        return len(self._all)

    def __getitem__(self, name: str) -> Signal:
        try:
            return self._all[name]
        except KeyError:
            raise UnknownSignal(f"no ranking signal is named {name!r}") from None

    @property
    def names(self) -> frozenset[str]:
        return self._names

    def on(self) -> frozenset[str]:
        """The names on in this context: what a pass over candidates checks (``"name" in on``, a set's lookup, where
        each ``in SIGNALS`` is a call; tests/test_signals.py finds a name checked so that nobody registered)."""
        off = self._off.get()
        return self._names - off if off else self._names

    @contextmanager
    def off(self, *names: str) -> Iterator[None]:
        """Turn ``names`` off for the block (in this context only), then back to what they were."""
        for name in names:
            self[name]  # an unknown name fails here, before anything changes
        token = self._off.set(self._off.get() | frozenset(names))
        try:
            yield
        finally:
            self._off.reset(token)


_Q, _C, _R = "the question", "each candidate's record", "the build's records"

SIGNALS = Signals([
    # rank: kb.rank's re-ranker, each multiplying a candidate's BM25F score
    Signal("coverage",
           f"{_Q}'s stems and their idf; {_C}, its heading and its parents' headings",
           "× (0.1 + 0.9·c)², c the share of the question's weight the record covers"),
    Signal("heading",
           f"{_Q}'s stems; {_C}'s heading",
           "× 1.5 when the question holds the heading or the heading the question"),
    Signal("word pairs",
           f"{_Q}'s adjacent words; {_C}'s text",
           "× (1 + 0.15 per pair) the record prints side by side"),
    Signal("named",
           f"{_Q}'s document and kind words",
           "× 2.5 for the document, × 1.6 for the kind the question names"),
    Signal("glossary",
           f"{_Q}'s term; the official glossary's pointers",
           "a glossary entry hands its score to the rule it points at; others × 0.6; in the lead, pointed rules first"),
    Signal("heading only",
           f"{_Q}'s weight; {_C}",
           "× 0.5 for a bare heading when the question asks more than it"),
    Signal("history",
           _C,
           "× 0.5 for version-history entries"),
    Signal("older rules",
           f"{_Q}'s words; the documents' dates",
           "× 0.7 for rules an older edition of the official rules quoted, and that document's unnamed rulings"),
    Signal("variants",
           f"{_Q}'s words; chapters 8 and 9's headings",
           "× 0.8 for a variant's rules the question does not name"),
    Signal("options",
           f"{_Q}'s words; a variant option's heading",
           "× 0.8 again under a variant's option the question does not name"),
    Signal("defining sub-rule",
           "a glossary entry's term; the sub-rules of the rule it cites",
           "a glossary entry points at the sub-rule that names its term (Typecycling -> 702.29e)"),
    Signal("for more information",
           "a glossary entry sending the reader to a rule 'for more information'; that rule's sub-rules",
           "such an entry points at the sub-rule naming its term (Food Token -> 111.10b), as 'See rule' entries do"),
    Signal("asks more",
           f"{_Q}'s weight beyond a term; {_C}'s kind",
           "× 0.6 for a glossary entry or keyword page, × 0.4 for a card page, when the question asks more"),
    Signal("implied document",
           f"{_Q}'s stems; each stem's use per document",
           "× 1.3 for the document whose own words the question uses, when it names none",
           "query, rank"),
    Signal("term's rules",
           f"{_Q}'s stems; glossary pointers and rule headings",
           "× 1.5 for the records under the rule the question's term leads to"),
    Signal("headed rules",
           "the headings of rules and sections with sub-rules",
           "a rule or section heading is a term too, for the term's rules"),
    Signal("older rulings",
           f"{_Q}'s named cards; {_C}",
           "the older-rules factor for an older document's rulings and notes"),
    Signal("kinds of permanent",
           f"{_Q}'s creature/artifact/... stems; {_C}'s text",
           "a record saying 'permanent' covers half of a question's creature, artifact, enchantment, ..."),
    Signal("how many",
           f"{_Q}'s 'how many'/'how much'; {_C}'s text",
           "× 1.3 for a record that states a number"),
    Signal("can I",
           f"{_Q}'s 'can'/'may'/'is it legal'; {_C}'s text",
           "× 1.2 for a record that says what can or must be done"),
    Signal("when",
           f"{_Q}'s 'when does ...'; {_C}'s text",
           "× 1.4 for a record that names a time (a step, priority)"),
    Signal("who",
           f"{_Q}'s 'who ...'; {_C}'s text",
           "× 1.5 for a record that names who acts (controller, owner, each player, chooses)"),
    Signal("card named",
           f"{_Q}'s stems; the build's card names",
           "× 1.5 for a card whose whole name the question holds, and its rulings",
           "rank"),
    Signal("card named in part",
           f"{_Q}'s stems and words; the build's card names",
           "× 0.5 for a card named only in part by a word meaning something else there, and its rulings"),
    Signal("card below its rulings",
           "the ranked candidates; a card page asked more about than its name, and its rulings",
           "such a card page above all its rulings among the candidates comes right after the best of them"),
    Signal("superseded",
           "the ranked candidates; an older edition's quoted rules and today's rules of the same heading",
           "an older edition's rule above today's on the same thing comes after it, unless the question names it"),
    Signal("keyword below its rules",
           "the ranked candidates; keyword pages' quoted rules",
           "a keyword page above all the rules it quotes comes right after the best of them"),
    Signal("siblings",
           f"{_Q}'s stems; the best five candidates' siblings",
           "among the best five, rules under one parent × (1 + 0.3·s) by what tells them apart"),
    Signal("asked",
           "the common questions (corpus/asked)",
           "+ 2 × (m - 0.3) / 0.7 × the best score for a record a common question matches at m"),
    Signal("under a term",
           f"{_Q}'s term and rest; the records under the term's rule",
           "the records under the term's rule that say the rest join the candidates"),
    Signal("asked beyond an abbreviation",
           f"{_Q}'s abbreviation and rest; the common questions",
           "after an abbreviation, common questions sharing none of the rest are left out"),
    # query: what kb.search asks Whoosh
    Signal("numbers",
           f"{_Q}'s number words and digits",
           "a number as a word also matches its digits and back",
           "query"),
    Signal("question phrases",
           _Q,
           "phrases that only ask ('how many', 'what counts as') leave the query",
           "query"),
    Signal("vocabulary",
           f"{_Q}; the vocabulary's table words",
           "table words read as the documents' words",
           "query"),
    Signal("typos",
           f"{_Q}'s words; the documents' words",
           "mistyped words corrected (and a mistyped title answers as typed right)",
           "query"),
    Signal("two edits",
           f"{_Q}'s words of six letters or more; keywords and titles",
           "a keyword or title word two edits away",
           "query"),
    # lead: answers before the full text
    Signal("titles newest first",
           "titles; the documents' dates",
           "a title's records: today's official rule first, newest document first",
           "lead"),
    Signal("how it works",
           f"{_Q}'s 'work' words; a titled heading's first sub-rule",
           "a question how a titled heading works opens with its first sub-rule, then the heading",
           "lead"),
    Signal("number with words",
           f"{_Q}: a rule number with a few words",
           "a number with words leads with that rule",
           "lead"),
    Signal("card prefixes",
           f"{_Q}'s words; the build's card names",
           "a word starting or ending a card name opens that card",
           "lead"),
])
