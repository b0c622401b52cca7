"""Re-ranking the best full-text candidates: the signals BM25F alone gets wrong on this corpus.

Whoosh scores every match (BM25F over titles and bodies); this module re-orders the best
``WINDOW`` of them in Python, so any faster way of driving Whoosh that returns the same
candidates carries the ranking unchanged. Each signal is one small function; the README's
Search section lists what each one bought on the quality suite.

- **coverage**: the share of the question's words (weighted by rarity) that the record, its
  heading and its parents' headings contain. A one-line glossary entry whose title matches
  one word of a five-word question no longer beats the rule that contains four of them.
- **pointers**: an official glossary entry that sends the reader to a rule of its own
  document ("Trample: ... See rule 702.19") hands its score to that rule and sits below it,
  when the question is about the entry's term.
- **heading only**: a rule or section that is only a heading (702.19 Trample, "Host and
  Augment") is damped for a question that asks more than its heading says.
- **glossary**: other glossary entries are short, so BM25's length normalisation flatters
  them; they are damped.
- **document named**: a question that names a document ("... in treachery", "uncommander",
  "the FAQ", "official rules") prefers that document's records.
- **kind named**: "glossary", "rulings", "history" in a question prefer those records.
- **heading**: a record whose heading the question contains ("kill a creature" -> Destroy),
  or whose heading contains the whole question ("summoning sickness" -> Summoning Sickness Rule).
- **history**: version-history entries ("clarification for rule 907.5 (starting life total)")
  name topics without answering them; they are damped.
- **word pairs**: words the question puts side by side that the record prints side by side
  ("starting player"; "outside game" in "put outside the game").
- **asks more**: a glossary entry, keyword page or card page defines its term; a question that
  asks about more than the term ("menace blocking") is answered by a rule or ruling, so they
  are damped (and a glossary entry hands nothing to its rule).
- **term's rules**: the records under the rule a question's term leads to (the rule an official
  glossary entry points at, or a heading the question contains) rank higher: "infect damage to
  players" -> 702.90's sub-rules.
- **implied document**: with no document named, the document whose own words the question uses
  ("leader" is only Treachery's) is preferred, a little.
- **older rules**: with the current official rules loaded, an older document's quoted rules, and
  its rulings and notes whose card or topic the question does not name, rank below them.
- **question words** (``ASKS``): "how many" prefers a record that states a number, "can ..." one
  that says what can or can't be done, "when does ..." one that names a time, "who ..." one that
  names a player's role.
- **kinds of permanent**: a record that says "permanent" half covers a question's "creature"
  (or artifact, enchantment, planeswalker, battle).
- **keyword below its rules**: a keyword page (which gathers the documents' definitions) ranked above
  every rule it quotes gives its place to the best of them and comes right after it.
"""
from __future__ import annotations

import math
import re
from itertools import compress
from dataclasses import dataclass, field
from collections.abc import Callable
from operator import attrgetter, itemgetter

from kb.ids import fold
from kb.index import plain
from kb.model import Record
from kb.signals import SIGNALS
from kb.snippet import TOKEN_RE, stem
from kb.store import Store

__all__ = ["ASKS", "asks", "Candidate", "Ranker", "SIGNALS", "NUMBER_ALT", "NUMBER_WORDS", "WINDOW", "DOC_NAMES",
           "KIND_NAMES", "Named", "implied_document", "own_rules_cited", "pairs", "weights", "word_document"]

# Every signal, on by default: the registry of named features (kb.signals); measuring one means turning it off
# (``with SIGNALS.off(name)``, see the README's Search section). An unknown name is an error.

COVER_FLOOR, COVER_POWER = 0.1, 2  # coverage: x (floor + (1 - floor) * share) ** power
# Siblings: among the best SIBLING_TOP, rules under one parent gain x (1 + SIBLING_WEIGHT x the share of the question
# only each one says among them): 702.4c against 702.4d, both about double strike, by what tells them apart.
SIBLING_WEIGHT, SIBLING_TOP = 0.3, 5
# Common questions (kb.asked): a match m >= ASKED_MIN adds ASKED_WEIGHT x ((m - min) / (1 - min)) ** ASKED_POWER
# x the best lexical score: nothing at the threshold, the weight for the same words.
ASKED_WEIGHT, ASKED_MIN, ASKED_POWER = 2.0, 0.3, 1
ASKED_WORDS = 2  # content stems a question needs for them: one word is a lookup ("trample"), not a question
ASKED_SHORT, ASKED_MIN_SHORT = 3, 0.6  # a question of fewer stems needs a closer match ("kill a creature")
ASKED_JOIN = 0.45  # a record Whoosh did not return joins for a match this close (a looser one cannot place)
ASKED_SHOWN = 0.5  # a hit names the common question it answers only when the match is this close
WINDOW = 50  # best Whoosh hits re-ranked (bounded: the per-query cost stays small)
PAIR_BONUS = 0.15  # per adjacent word pair, as a share of the score
GLOSSARY = 0.6  # a glossary entry's score is multiplied by this
POINTER = 0.5  # and an entry pointing at a rule of its own document by this
NAMED_DOC = 2.5  # records of a document the question names
IMPLIED_DOC = 1.3  # records of the document whose own words the question uses ("leader" -> Treachery)
OWN_WORD = 0.9  # a word is a document's own when this share of its use (per record, by size) is there
FAMILY_SHARE = 0.25  # the term weighs at least this share of the question
FAMILY_KINDS = ("rule", "section", "note", "card")
FAMILY = 1.5  # a rule under the rule a glossary term of the question points at
NAMED_KIND = 1.6  # records of a kind the question names ("treachery glossary team")
TITLED = 1.5  # a record whose heading the question contains, or which contains the question
HEADING_ONLY = 0.5  # a heading without text, for a question that asks more than the heading
OLDER_RULES = 0.7  # rules quoted from an older edition of the official rules, when the current one is loaded
VARIANT = 0.8  # official multiplayer and casual-variant rules, for a question that names no variant
ASKS_MORE = 0.6  # a glossary entry, for a question that asks more than its term ("deathtouch one damage")
MORE = 0.35  # share of the question's weight beyond a term that makes it ask more
# A rule about permanents answers a question about a creature (110.4: the permanent types).
_BROADER = {stem(w): stem("permanent") for w in ("creature", "creatures", "artifact", "artifacts", "enchantment",
                                                  "enchantments", "planeswalker", "planeswalkers", "battle")}
BROADER = 0.5  # the share of a word's weight its broader word covers
# What a question asks for, from its question words, and what a record that answers it says (its own text,
# rule numbers and mana symbols left out): signal -> (the question's words, the record's words, factor).
# A bare three-digit number is a reference only after "rule" ("see rule 704"): "exactly 100 cards" is a count.
_REFERENCES = re.compile(r"\b\d{3}\.\d+[a-z]{0,2}(?:[–-]\w+)?\b|\brules?\s+\d{3}\b(?!\.\d)|\{[^}]*\}", re.I)
ASKS: dict[str, tuple[re.Pattern, re.Pattern, float]] = {
    # "how many lands can I play", "how much damage": 305.2 "one land", 903.10a "21 or more"
    "how many": (re.compile(r"\bhow\s+(?:many|much)\b", re.I),
                 re.compile(r"\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|"
                            r"once|twice|half)\b", re.I), 1.3),
    # "can tapped creatures block", "can I sacrifice ...": 702.3b "can't attack", 401.3 "any player may count"
    "can I": (re.compile(r"^\s*(?:can|could|may|is\s+it\s+(?:legal|possible|allowed)|am\s+I\s+allowed)\b", re.I),
              re.compile(r"\b(?:can(?:not|['’]t)?|may|must|only)\b", re.I), 1.2),
    # "when does damage wear off" (not "when a player loses, do ..."): 514.2, 603.3 "the next time a player
    # would receive priority"
    "when": (re.compile(r"^\s*when\s+(?:do|does|did|is|are|can|could|will|would|should|must|am)\b", re.I),
             re.compile(r"\b(?:step|phase|priority|until|next time|beginning|immediately|whenever|after|before|"
                        r"during)\b", re.I), 1.4),
    # "who decides who goes first", "who controls my identity card": 103.1 "the players determine which one of
    # them will choose", treachery/372.5 "its owner"
    "who": (re.compile(r"^\s*who(?:se)?\b", re.I),
            re.compile(r"\b(?:controller|owner|active player|nonactive|opponent|teammate|team|each player|that player|"
                       r"chooses|decides)\b", re.I), 1.5),
}
_ANSWERS = {asked: f"answers {asked}" for asked in ASKS}  # each signal's reason, made once
CARD_ASKS_MORE = 0.4  # a card page, for a question that asks more than its name ("bodyguard effect ends when")
KEYWORD_BELOW = 0.99  # a keyword page's score, as a share of the place it gives the rule it quotes
CARD_NAMED = 1.5  # a card the question names inside its words, and its rulings
# A card the question names only in part, by a word that means something else there, and its rulings and notes: "does
# swords to plowshares exile an indestructible creature" put two rulings of Sword of the Meek in the top three.
PARTLY_NAMED = 0.5
HISTORY = 0.5  # a version-history entry mentions a topic; it rarely answers a question about it

# Words that name a document in a question ("how many players in treachery").
DOC_NAMES = {
    "treachery": "treachery",
    "uncommander": "uncommander", "edhsilver": "uncommander",
    "faq": "futuresight", "futuresight": "futuresight",
    "cr": "cr", "official": "cr", "comprehensive": "cr",
}

# Words that name a kind of record in a question.
KIND_NAMES = {"glossary": "glossary", "ruling": "ruling", "rulings": "ruling", "history": "history",
              "keyword": "keyword"}
# Small words left out of word pairs on both sides: "outside the game" pairs as "outside game".
PAIR_STOP = frozenset({"a", "an", "the", "of", "to", "is", "are", "it", "its", "be", "that", "this"})

# Numbers as words and as digits are one word: "a six player game", "6 players: 1 Leader, ...".
_NUMBERS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
            "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"]
NUMBER_ALT = {**{stem(w): str(i) for i, w in enumerate(_NUMBERS) if i != 1},
              **{str(i): stem(w) for i, w in enumerate(_NUMBERS) if i != 1}}  # "one" is rarely a count
NUMBER_WORDS = tuple(_NUMBERS)  # 0 to 20 as words (kb.search.candidates warms each with its twin)

_RULE = re.compile(r"\d{3}\.\d+")  # "903.12" of "903.12d"
_FOLDED = re.compile(r"(?=[^\x00-\x7f])[^\W_]")  # a letter or digit beyond ASCII, which kb.words folds in a word
_SEE_RULE = re.compile(r"\bSee rules? \d")
_MORE_INFORMATION = re.compile(r"\bFor more information\b[^.]*\bsee rules? \d")


@dataclass(frozen=True)
class Named:
    """What a question says about where its answer is: a document or kind it names, a document
    whose own words it uses."""
    doc: str | None = None
    kind: str | None = None
    implied: str | None = None
    asks: tuple[str, ...] = ()  # what kind of answer its question words ask for (``ASKS``)
    cards: frozenset[str] = frozenset()  # the cards whose whole name it holds ("does the oneiromancer ...")
    parts: frozenset[str] = frozenset()  # the cards it names only in part, meaning something else ("swords to ...")


def own_rules_cited(store: Store, record: Record) -> list[str]:
    """The rules of its own document a record cites, each once, in the order it cites them."""
    return list(dict.fromkeys(ref.target for ref in record.refs if ref.target in store.records
                              and store.records[ref.target].doc == record.doc
                              and store.records[ref.target].kind == "rule"))


@dataclass(slots=True, init=False)  # a hundred per query: made and read faster without a __dict__
class Candidate:
    record: Record
    score: float  # BM25F from Whoosh, then re-ranked
    docnum: int | None = None
    why: list[str] = field(default_factory=list)  # signals applied, when Ranker.rerank is asked to explain
    asked: str | None = None  # the common question it answers that the question matched (kb.asked)
    closeness: float = 0.0  # how close that match is (kb.asked.Match.score; the semantic stage reads it)

    # The dataclass's own __init__, written out without its call of ``default_factory`` for ``why``: 0.89x the time
    # of making one (fifty to sixty a query).
    def __init__(self, record: Record, score: float, docnum: int | None = None, why: list[str] | None = None,
                 asked: str | None = None, closeness: float = 0.0):
        self.record = record
        self.score = score
        self.docnum = docnum
        self.why = [] if why is None else why
        self.asked = asked
        self.closeness = closeness


class _Row:
    """What the re-rank reads of one record, in one small object: most candidates are then decided
    without touching the record itself (fifty candidates per query, each a few cache misses in a
    serving worker). Built once per record and never changed."""

    __slots__ = ("stems", "title_stems", "words", "ascii", "doc", "kind", "variant", "heading_only", "says",
                 "superseded", "special", "owner", "rid")

    def __init__(self, ranker: Ranker, record: Record):
        self.stems = ranker.stems(record)
        self.title_stems = ranker.title_stems(record)
        self.words = ranker.words(record)
        # Its words are as written (nothing folded): each one's stem is in ``stems`` (Ranker.stems reads
        # the same text and more), so a word pair whose two stems are not there is not in ``words`` either.
        self.ascii = not any(_FOLDED.search(part) for part in (record.title, record.text, record.rules_text) if part)
        self.doc, self.kind, self.rid = record.doc, record.kind, record.id  # its id: the record itself left alone
        self.variant = ranker.variant_of.get(record.id)  # its variant's (and option's) heading stems, or None
        self.heading_only = not record.text and bool(record.children)
        self.says = frozenset(asked for asked in ASKS if ranker.says(record, asked))  # what a question asks for
        # today's official rule that an older edition's quoted rule gives its place to (Ranker._below_todays_text)
        self.superseded = ranker.superseded.get(record.id) \
            if record.doc in ranker.older and record.kind == "rule" else None
        # one the re-rank's later passes may touch (Ranker._special): a glossary entry, a keyword or card page, a
        # heading without text of its own, an older edition's rule
        self.owner = record.id if record.kind == "card" else record.parent  # a card's page and rulings (_card_factors)
        self.special = self.heading_only or self.kind in ("glossary", "keyword", "card") or \
            self.superseded is not None


class Ranker:
    """Per-build tables for the signals: record stems, glossary pointers."""

    def __init__(self, store: Store, docnums: int = 0):
        self.store = store
        self.older = self._older_documents(store)
        self.variant_of = self._variants(store)
        self._stems: dict[str, frozenset[str]] = {}
        self._words: dict[str, str] = {}
        self._title_stems: dict[str, frozenset[str]] = {}
        # docnum -> its record's _Row, what the re-rank reads of every candidate: one list item instead of
        # three dicts keyed by its id and the record's own fields. Filled as candidates need it (kb serve:
        # when warming); an item, once stored, is never changed.
        self._rows: list[_Row | None] = [None] * docnums
        self._says: dict[tuple[str, str], bool] = {}
        self.pointers = self._pointers(store)
        self.families = self._families(store, self.pointers)
        self.quoted = self._quoted(store)
        self.superseded = self._superseded(store, self.older)

    # -- tables --------------------------------------------------------------------
    @staticmethod
    def _older_documents(store: Store) -> set[str]:
        """Documents whose rules are an older edition of the loaded official rules: the 2007 rules
        the Future Sight FAQ quotes, superseded when the current Comprehensive Rules are loaded."""
        dates = {d["slug"]: str(d.get("effective") or "") for d in store.documents}
        official = dates.get("cr", "")
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", official):
            return set()
        older = {slug for slug, date in dates.items() if re.fullmatch(r"\d{4}-\d{2}-\d{2}", date)
                 and int(official[:4]) - int(date[:4]) >= 5}
        # Only a document that quotes the official rules has rules the current edition replaces.
        return {slug for slug in older if any(r.doc == slug and r.kind == "rule" and r.title and r.text == r.title
                                              for r in store.records.values())}

    @staticmethod
    def _variants(store: Store) -> dict[str, tuple[frozenset[str], ...]]:
        """Official rules under the multiplayer and casual-variant chapters (8 and 9), with the stems
        of their variant's heading ("Two-Headed Giant Variant", "Commander") and, for a rule under one
        of a variant's own options ("903.12 Brawl Option", "903.13 Commander Draft"), the stems that
        heading adds to the variant's ("brawl"; "draft"): a Commander question is not a Brawl one."""
        out: dict[str, tuple[frozenset[str], ...]] = {}
        generic = {"variant", "option", "rule", "general"}

        def heading(rid: str) -> frozenset[str]:
            head = store.records.get(rid)
            words = TOKEN_RE.findall(head.title or "") if head is not None else []
            return frozenset(s for s in (stem(w.lower()) for w in words) if s not in generic)

        for r in store.records.values():
            if r.doc != "cr" or not r.number or r.number[:1] not in ("8", "9") or r.kind != "rule":
                continue
            variant = heading(f"cr/{r.number[:3]}")
            rule = _RULE.match(r.number)
            option = store.records.get(f"cr/{rule.group()}") if rule and "options" in SIGNALS else None
            extra = heading(option.id) - variant if option and option.title and not option.text else frozenset()
            out[r.id] = (variant, extra) if extra else (variant,)
        return out

    @staticmethod
    def _quoted(store: Store) -> dict[str, frozenset[str]]:
        """Keyword page id -> the records it quotes: the rules its definitions come from, with their
        sub-rules (keywords/flashback quotes 702.34 and 702.34a-c, and the 2007 FAQ's 502.x)."""
        out = {}
        for r in store.records.values():
            if r.kind == "keyword":
                sources = [store.records[ref.target] for ref in r.refs
                           if ref.field == "definitions" and ref.target in store.records]
                out[r.id] = frozenset(x.id for source in sources for x in (source, *store.children(source)))
        return out

    @staticmethod
    def _pointers(store: Store) -> dict[str, str]:
        """Glossary id -> the rule of its own document it sends the reader to ("See rule 702.19")."""
        out = {}
        for r in store.records.values():
            if r.kind != "glossary" or not r.text:
                continue
            if _SEE_RULE.search(r.text):
                rules = own_rules_cited(store, r)
                if len(rules) == 1:  # "See rules 403.3 and 603.6a" points at no one rule
                    out[r.id] = Ranker._defining(store, r, store.records[rules[0]])
            elif "for more information" in SIGNALS and _MORE_INFORMATION.search(r.text):
                # "Food Token: A Food token is ... For more information about predefined tokens, see rule 111.10.":
                # the entry restates the sub-rule that names it (111.10b), which today came after it
                rules = own_rules_cited(store, r)
                named = Ranker._naming(store, r, store.records[rules[0]]) if len(rules) == 1 else None
                if named is not None:
                    out[r.id] = named
        return out

    def _families(self, store: Store, pointers: dict[str, str]) -> dict[str, list[tuple[frozenset[str], str]]]:
        """Stem -> (a term's stems, the id of the rule or section about it): the records under it are
        where a question using the term is answered ("infect damage to players" -> 702.90's sub-rules).
        Terms are the official glossary's (through the rule each entry points at) and the headings
        of rules and sections that have sub-rules ("Borders", "Combine and Combined Permanents")."""
        out: dict[str, list[tuple[frozenset[str], str]]] = {}
        terms = [(self.title_stems(store.records[gid]), target) for gid, target in pointers.items()]
        if "headed rules" in SIGNALS:
            terms += [(self.title_stems(r), r.id) for r in store.records.values()
                      if r.children and r.title and r.kind in FAMILY_KINDS]
        for term, rid in terms:
            for s in term:
                out.setdefault(s, []).append((term, rid))
        return out

    def _family(self, weights: dict[str, float], total: float) -> set[str]:
        return set(self.family_terms(weights, total))

    def family_terms(self, weights: dict[str, float], total: float) -> dict[str, frozenset[str]]:
        """The rules a question's terms lead to, each with its term's stems, in the order of the question's stems
        (``weights``' order, not a set's: a set iterates in the order of Python's string hashing, and the rules'
        order decides which of two equal candidates ``Candidates._under_terms`` keeps first)."""
        stems = frozenset(weights)
        return {rid: term for s in weights for term, rid in self.families.get(s, ())
                if term and term <= stems and math.fsum([weights[t] for t in term]) / total >= FAMILY_SHARE}

    @staticmethod
    def _in_family(record: Record, family: set[str]) -> bool:
        rid = record.id
        for top in family:
            rest = rid[len(top):]
            if rest and rid.startswith(top) and (rest[0] in "./" or rest[0].isalpha()):
                return True
        return False

    @staticmethod
    def _naming(store: Store, entry: Record, rule: Record) -> str | None:
        """The first sub-rule of ``rule`` whose words hold all of the entry's term, or None."""
        term = {stem(w.lower()) for w in TOKEN_RE.findall(plain(entry.title or ""))}
        for child in store.children(rule):
            if term and term <= {stem(w.lower()) for w in TOKEN_RE.findall(plain(child.text or ""))}:
                return child.id
        return None

    @staticmethod
    def _defining(store: Store, entry: Record, rule: Record) -> str:
        """The rule a glossary entry's term is defined in: the rule it cites, or, when that rule is
        a heading about something else ("Typecycling: See rule 702.29" -> 702.29 Cycling), its first
        sub-rule that names the term (702.29e "Typecycling is a variant of the cycling ability")."""
        if "defining sub-rule" not in SIGNALS or rule.text or not entry.title:
            return rule.id
        term = [stem(w.lower()) for w in TOKEN_RE.findall(plain(entry.title))]
        heading = {stem(w.lower()) for w in TOKEN_RE.findall(plain(rule.title or ""))}
        if not term or set(term) <= heading:
            return rule.id
        for child in store.children(rule):
            words = {stem(w.lower()) for w in TOKEN_RE.findall(plain(child.text or ""))}
            if set(term) <= words:
                return child.id
        return rule.id

    def stems(self, record: Record) -> frozenset[str]:
        """The stems of a record, its heading and its parents' headings (a ruling knows its card)."""
        found = self._stems.get(record.id)
        if found is None:
            parts = [record.title, record.text, record.rules_text, record.type_line]
            parent = self.store.records.get(record.parent) if record.parent else None
            for _ in range(2):
                if parent is None:
                    break
                parts.append(parent.title)
                parent = self.store.records.get(parent.parent) if parent.parent else None
            text = plain(" ".join(p for p in parts if p))
            stems = {stem(w.lower()) for w in TOKEN_RE.findall(text)}
            found = self._stems[record.id] = frozenset(stems | {NUMBER_ALT[s] for s in stems if s in NUMBER_ALT})
        return found

    def words(self, record: Record) -> str:
        """Folded words of a record, space-separated with spaces around, for word-pair tests."""
        found = self._words.get(record.id)
        if found is None:
            text = plain(" ".join(filter(None, [record.title, record.text, record.rules_text])))
            words = (fold(w.lower()) for w in TOKEN_RE.findall(text))
            found = self._words[record.id] = " " + " ".join(w for w in words if w not in PAIR_STOP) + " "
        return found

    def says(self, record: Record, kind: str) -> bool:
        """The record's own text says what a question of ``kind`` asks for (``ASKS``): a number, what
        can or can't be done, a time."""
        key = (record.id, kind)
        found = self._says.get(key)
        if found is None:
            text = _REFERENCES.sub(" ", plain(" ".join(filter(None, [record.text, record.rules_text]))))
            found = self._says[key] = bool(ASKS[kind][1].search(text))
        return found

    def row(self, record: Record, docnum: int | None) -> _Row:
        """What the re-rank reads of a record (kept in ``_rows`` when it has a docnum)."""
        found = _Row(self, record)
        if docnum is not None and 0 <= docnum < len(self._rows):
            self._rows[docnum] = found
        return found

    def _rows_of(self, candidates: list[Candidate]) -> list[_Row]:
        rows, size = self._rows, len(self._rows)
        docnums = [d for c in candidates if (d := c.docnum) is not None]
        if len(docnums) == len(candidates) > 1 and min(docnums) >= 0 and max(docnums) < size:
            found = list(itemgetter(*docnums)(rows))  # every row made already (kb serve warms them): read in C
            if None not in found:
                return found
        out = []
        for c in candidates:
            d = c.docnum
            row = rows[d] if d is not None and 0 <= d < size else None
            out.append(row if row is not None else self.row(c.record, d))
        return out

    def title_stems(self, record: Record) -> frozenset[str]:
        found = self._title_stems.get(record.id)
        if found is None:
            words = TOKEN_RE.findall(plain(record.title or ""))
            found = self._title_stems[record.id] = frozenset(s for s in (stem(w.lower()) for w in words) if s)
        return found

    # -- the re-rank ---------------------------------------------------------------------
    def rerank(self, candidates: list[Candidate], weights: dict[str, float], pairs: list[str],
               named: Named, add: Callable[[str], Candidate | None], explain: bool = True,
               asked: dict | None = None, minimum: float = ASKED_MIN,
               terms: dict[str, frozenset[str]] | None = None) -> list[Candidate]:
        """Candidates best first after every signal.

        ``weights``: the question's stems with their rarity (idf); ``add(id)`` makes a candidate
        of a rule a glossary entry points at when Whoosh did not return it. ``explain``: fill each
        candidate's ``why`` (search leaves it off: fifty candidates per query, read by no answer).
        ``terms``: ``family_terms(weights, ...)`` when the caller has them already (kb.search reads them
        for its candidates too).
        """
        total = sum(weights.values()) or 1.0
        stems = frozenset(weights)
        on = SIGNALS.on()
        if "term's rules" not in on:
            family = set()
        else:
            family = set(terms) if terms is not None else self._family(weights, total)
        # Each candidate's score is multiplied in a fixed order: what its words say (coverage,
        # heading, word pairs), then where it stands (named, term's rules, history, older, variants).
        rows = self._rows_of(candidates)
        self._by_words(candidates, rows, weights, total, stems, pairs, explain)
        if asked:
            _add_asked(candidates, [row.rid for row in rows], asked, add, explain, minimum)
            if len(rows) < len(candidates):  # a record a common question matched was added
                rows += self._rows_of(candidates[len(rows):])
        self._by_place(candidates, rows, named, family, stems, explain)
        # the few candidates the passes below can touch, picked once (each pass looked at all fifty)
        special = [(c, row) for c, row in zip(candidates, rows, strict=True) if row.special]
        if "glossary" in on:
            self._glossaries(candidates, special, add, stems, weights, explain)
            self._grown(candidates, rows, special)  # a rule a glossary entry points at was added
        cards_asked_more = self._own_factors(special, stems, weights, total, explain)
        self._places(candidates, rows, special, named, add, cards_asked_more, explain)
        candidates.sort(key=attrgetter("score"), reverse=True)  # stable: equal scores keep their order
        if "siblings" in on and self._siblings(candidates[:SIBLING_TOP], weights, total, stems, explain):
            candidates.sort(key=attrgetter("score"), reverse=True)
        return candidates

    def _grown(self, candidates: list[Candidate], rows: list[_Row], special: list[tuple[Candidate, _Row]]) -> None:
        """The rows, and the special candidates, of the candidates a pass added (``rows`` and ``special`` grown)."""
        if len(rows) < len(candidates):
            added = self._rows_of(candidates[len(rows):])
            special += [(c, row) for c, row in zip(candidates[len(rows):], added, strict=True) if row.special]
            rows += added

    def _own_factors(self, special: list[tuple[Candidate, _Row]], stems: frozenset[str],
                     weights: dict[str, float], total: float, explain: bool) -> list[Candidate]:
        """Heading only and asks more, in one pass: each candidate's own factors (of ``special``: the rest have
        none). The card pages a question asks more about than their names."""
        on = SIGNALS.on()
        heading_only, asks_more = "heading only" in on, "asks more" in on
        cards_asked_more = []
        # the candidates either can touch: a heading without text of its own, a keyword or card page
        own = [(c, row) for c, row in special if row.heading_only or row.kind in _PAGES]
        for c, row in own:
            if heading_only and row.heading_only:
                self._heading_only(c, stems, explain)
            if asks_more and (row.kind == "keyword" or row.kind == "card") and \
                    _asks_more(weights, row.title_stems, total):
                # a keyword page is its first definition: "menace" more than "menace blocking"; a card page
                # holds all its rulings, and the question asks for one of them
                c.score *= ASKS_MORE if row.kind == "keyword" else CARD_ASKS_MORE
                if row.kind == "card":
                    cards_asked_more.append(c)
                if explain:
                    c.why.append(f"asks more than the {row.kind}")
        return cards_asked_more

    def _places(self, candidates: list[Candidate], rows: list[_Row], special: list[tuple[Candidate, _Row]],
                named: Named, add: Callable[[str], Candidate | None], cards_asked_more: list[Candidate],
                explain: bool) -> None:
        """A record saying what another says better gives its place to it: an older edition's rule to today's, a
        keyword page to the rule it quotes, a card page to its ruling."""
        on = SIGNALS.on()
        if "superseded" in on and self.superseded:
            self._below_todays_text(candidates, special, named, add, explain)
            self._grown(candidates, rows, special)  # today's text of an older rule was added
        if "keyword below its rules" in on:
            self._below_its_rules(candidates, rows, special, explain)
        if cards_asked_more and "card below its rulings" in on:
            self._below_its_rulings(candidates, rows, cards_asked_more, explain)

    def _siblings(self, best: list[Candidate], weights: dict[str, float], total: float, stems: frozenset[str],
                  explain: bool) -> bool:
        """Rules under one parent among the best few (the dominant miss: a neighbouring sub-rule first, both
        sharing the question's topic words) each gain by the weight of the question's stems it has and its
        siblings there lack: what tells them apart. Whether any score changed."""
        by_parent: dict[str, list[Candidate]] = {}
        for c in best:
            if c.record.parent:
                by_parent.setdefault(c.record.parent, []).append(c)
        changed = False
        for members in by_parent.values():
            if len(members) < 2:
                continue
            said = [self.stems(c.record) & stems for c in members]
            for i, c in enumerate(members):
                others = frozenset().union(*(s for j, s in enumerate(said) if j != i))
                # fsum: the exact sum whatever order the set gives (a plain sum's last digit followed the hash
                # seed, and with it which of two equal candidates came first)
                own = math.fsum([weights[x] for x in said[i] - others]) / total
                if own:
                    c.score *= 1 + SIBLING_WEIGHT * own
                    changed = True
                    if explain:
                        c.why.append(f"says {own:.2f} of the question its siblings do not")
        return changed

    @staticmethod
    def _superseded(store: Store, older: set[str]) -> dict[str, str]:
        """An older edition's quoted rule -> today's official rule on the same thing: the heading of the same name
        (Future Sight 502.62 Aura swap -> 702.65 Aura Swap), and under it the sub-rule sharing most of its words
        (502.62b -> 702.65b; 502.68b "each triggers separately" -> 702.15f "multiple instances are redundant")."""
        if not older:
            return {}

        def words(text: str | None) -> frozenset[str]:
            return frozenset(w.lower() for w in TOKEN_RE.findall(fold(plain(text or ""))))

        headings: dict[str, Record] = {}
        for r in store.records.values():
            if r.doc == "cr" and r.kind == "rule" and r.title and r.children:
                headings.setdefault(fold(r.title).lower(), r)
        out = {}
        for r in store.records.values():
            if r.doc not in older or r.kind != "rule":
                continue
            parent = store.records.get(r.parent) if r.parent else None
            heading = r if r.children or r.text == r.title else parent
            today = headings.get(fold(heading.title or "").lower()) if heading is not None else None
            if today is None:
                continue
            if heading is r:
                out[r.id] = today.id
                continue
            said = words(r.text)
            subs = [store.records[c] for c in today.children if c in store.records]
            best = max(subs, key=lambda x: len(said & words(x.text)) / (len(said | words(x.text)) or 1), default=None)
            if best is not None:
                out[r.id] = best.id
        return out

    def _below_todays_text(self, candidates: list[Candidate], special: list[tuple[Candidate, _Row]], named: Named,
                           add: Callable[[str], Candidate | None], explain: bool) -> None:
        """An older edition's quoted rule ranked above today's official rule on the same thing gives its place to it
        and comes right after it (today's joins when Whoosh did not return it), unless the question names the older
        document: "aura swap fails what happens" put the 2007 FAQ's 502.62b first, 702.65b nowhere."""
        by_id: dict[str, Candidate] | None = None
        older = [(c, row, target) for c, row in special  # not those it adds
                 if (target := row.superseded) is not None]
        for c, row, target in older:
            if named.doc == row.doc:
                continue
            today, by_id = _found_or_added(target, candidates, by_id, add)
            if today is None:
                continue
            if c.score > today.score:
                today.score, c.score = c.score, c.score * KEYWORD_BELOW
                if explain:
                    c.why.append(f"superseded by {target}")
                    today.why.append(f"today's text of {c.record.id}")

    @staticmethod
    def _below_its_rulings(candidates: list[Candidate], rows: list[_Row], cards: list[Candidate],
                           explain: bool) -> None:
        """A card page a question asks more about than its name, still ranked above every ruling of it among the
        candidates, gives its place to the best of them and comes right after it: the page holds all its rulings'
        words (Whoosh scored "necromancer can i target my own graveyard" 15.0 for The Necromancer's page, 5.2 for
        the ruling that answers it), the question asks for one of them."""
        rulings: dict[str | None, list[Candidate]] = {}  # a card's rulings among the candidates, in their order
        for o, row in zip(candidates, rows, strict=True):  # the rows (a ruling's owner is its card), not the records
            if row.kind == "ruling":
                rulings.setdefault(row.owner, []).append(o)
        for card in cards:
            cid = card.record.id
            ruling = max(rulings.get(cid, ()), key=attrgetter("score"), default=None)
            if ruling is not None and card.score > ruling.score:
                ruling.score, card.score = card.score, card.score * KEYWORD_BELOW
                if explain:
                    card.why.append(f"below its ruling {ruling.record.id}")
                    ruling.why.append(f"takes the place of its card {cid}")

    def _below_its_rules(self, candidates: list[Candidate], rows: list[_Row], special: list[tuple[Candidate, _Row]],
                         explain: bool) -> None:
        """A keyword page ranked above every rule it quotes gives its place to the best of them and comes
        right after it: the same text twice, the gathered page first, read to judges as a fifth document."""
        pages = [c for c, row in special if row.kind == "keyword"]
        if not pages:
            return
        at = {row.rid: i for i, row in enumerate(rows)}  # record id -> its place among the candidates
        once = len(at) == len(candidates)  # each record once among them (else each place is looked at)
        for c in pages:
            quoted = self.quoted.get(c.record.id, frozenset())
            # the quoted rules among the candidates in the candidates' order (max keeps the first of equal scores)
            places = sorted(at[rid] for rid in at.keys() & quoted) if once else \
                [i for i, o in enumerate(candidates) if o.record.id in quoted]
            rule = max((candidates[i] for i in places), key=attrgetter("score"), default=None)
            if rule is not None and c.score > rule.score:
                rule.score, c.score = c.score, c.score * KEYWORD_BELOW
                if explain:
                    c.why.append(f"gives its place to {rule.record.id}, which it quotes")
                    rule.why.append(f"in the place of {c.record.id}, which quotes it")

    def _by_words(self, candidates: list[Candidate], rows: list[_Row], weights: dict[str, float], total: float,
                  stems: frozenset[str], pairs: list[str], explain: bool) -> None:
        """Coverage, heading and word pairs, in one pass reading the per-build tables directly (a
        fifty candidates per query: one call per signal and candidate cost more than the signals)."""
        on = SIGNALS.on()
        covering = "coverage" in on and len(weights) >= 2
        heading = "heading" in on
        pairing = bool(pairs) and "word pairs" in on
        if not covering and not pairing:  # one word: the heading alone
            if heading:
                self._by_heading(candidates, rows, stems, explain)
            return
        items = list(weights.items())
        # Coverage depends only on which of the question's stems a record has (and which kinds of permanent it
        # names instead): one factor per such pair of sets.
        cover_of: dict[tuple[frozenset[str], frozenset[str]], tuple[float, float]] = {}
        broader = [(s, w) for s, w in items if s in _BROADER] if "kinds of permanent" in on else []
        none: frozenset[str] = frozenset()
        # Each pair with its two words' stems: looked for in a record's words (a substring search over its
        # whole text) only when the record has both stems, or when its words were folded (not ASCII).
        pair_stems = [(pair, *map(stem, both)) if len(both := pair.split()) == 2 else (pair, None, None)
                      for pair in pairs] if pairing else []
        unchecked = [(pair, None, None) for pair in pairs]
        for c, row in zip(candidates, rows, strict=True):
            score = c.score
            if covering:
                have = row.stems
                found = have & stems
                # "sacrifice my opponent's creature": 701.21a says permanent
                wider = frozenset([s for s, _ in broader if s not in have and _BROADER[s] in have]) if broader \
                    else none
                cover = cover_of.get((found, wider))
                if cover is None:
                    covered = (sum([w for s, w in items if s in found])
                               + sum([w * BROADER for s, w in broader if s in wider])) / total
                    cover = cover_of[found, wider] = ((COVER_FLOOR + (1 - COVER_FLOOR) * covered) ** COVER_POWER,
                                                      covered)
                score *= cover[0]
                if explain:
                    c.why.append(f"coverage {cover[1]:.2f}")
            if heading:
                title = row.title_stems
                if title and stems and (title <= stems or stems <= title):  # Ranker.about
                    score *= TITLED
                    if explain:
                        c.why.append("heading")
            if pairing:
                words = row.words
                have = row.stems
                n = 0
                for pair, first, second in pair_stems if row.ascii else unchecked:  # a loop beats sum(map(...))
                    if (first is None or first in have and second in have) and pair in words:
                        n += 1
                if n:
                    score *= 1 + PAIR_BONUS * n
                    if explain:
                        c.why.append(f"{n} word pairs")
            c.score = score

    @staticmethod
    def _by_heading(candidates: list[Candidate], rows: list[_Row], stems: frozenset[str], explain: bool) -> None:
        """``_by_words``' heading factor alone (a question of one word has no coverage nor word pairs)."""
        if not stems:
            return
        for c, row in zip(candidates, rows, strict=True):
            title = row.title_stems
            if title and (title <= stems or stems <= title):  # Ranker.about
                c.score *= TITLED
                if explain:
                    c.why.append("heading")

    def _by_place(self, candidates: list[Candidate], rows: list[_Row], named: Named, family: set[str],
                  stems: frozenset[str], explain: bool) -> None:
        """The document or kind the question names (or whose own words it uses), the term's rules,
        history, older rules and variants."""
        on = SIGNALS.on()
        named_doc = named.doc if "named" in on else None
        named_kind = named.kind if "named" in on else None
        implied = named.implied if "implied document" in on and not named.doc else None
        history = "history" in on
        older = self.older if "older rules" in on else ()
        older_rulings = "older rulings" in on
        variants = "variants" in on
        asks = named.asks  # what the question's words ask for: looked for in every candidate's row
        # Most candidates meet none of these: only those of a document or kind one of them names go on.
        docs = {named_doc, implied, *older} - {None}
        kinds = {named_kind, "history" if history else None} - {None}
        cards, parts = named.cards, named.parts if "card named in part" in on else frozenset()
        tops = tuple(family)  # a record under a term's rule starts with the rule's id: most start with none
        owners = cards | parts  # the pages and rulings of the cards named (their rows' owners)
        for c, row in zip(candidates, rows, strict=True):
            if not (row.doc in docs or row.kind in kinds or variants and row.variant is not None
                    or owners and row.owner in owners):
                # most candidates: at most the term's rules' factor, then what the question asks for (the same
                # product, in the same order, as the list below): no list of factors made for them
                if family and row.rid.startswith(tops) and self._in_family(c.record, family):
                    c.score *= FAMILY
                    if explain:
                        c.why.append("under a term's rule")
                if asks and row.says:
                    _answers(c, row.says, asks, explain)
                continue
            doc, kind = row.doc, row.kind
            variant = row.variant if variants else None
            placed = doc in docs or kind in kinds  # a named or implied document or kind, history, an older edition
            record = c.record
            factors = _card_factors(record, cards, parts) if cards or parts else []
            if placed:
                factors += _named_factors(doc, kind, named_doc, named_kind, implied)
            if family and record.id.startswith(tops) and self._in_family(record, family):
                factors.append((FAMILY, "under a term's rule"))
            if placed:
                if history and kind == "history":
                    factors.append((HISTORY, "history"))
                if doc in older and (kind == "rule" or older_rulings and self._general(record, stems)):
                    factors.append((OLDER_RULES, "older rules"))
            if variant:
                factors += [(VARIANT, "variant not asked about") for heading in variant if not heading & stems]
            for factor, reason in factors:  # in this order: a product's last digit depends on it
                c.score *= factor
                if explain:
                    c.why.append(reason)
            if asks and row.says:  # last: what the record says that the question's words ask for (its row's)
                _answers(c, row.says, asks, explain)

    def _general(self, record: Record, stems: frozenset[str]) -> bool:
        """A ruling or note whose card or topic the question does not name: what it says in general
        ("a player with ten poison counters loses") the current official rules say today."""
        if record.kind not in ("ruling", "note", "card"):
            return False
        parent = self.store.records.get(record.parent) if record.parent else None
        topic = self.title_stems(parent if record.kind == "ruling" and parent is not None else record)
        return not topic & stems

    def about(self, record: Record, stems: frozenset[str]) -> bool:
        """The question names the record's heading, or the heading holds the whole question."""
        title = self.title_stems(record)
        return bool(title and stems and (title <= stems or stems <= title))

    def _heading_only(self, c: Candidate, stems: frozenset[str], explain: bool = True) -> None:
        """A heading with no text of its own (702.19 Trample, a section title) answers a question
        about the whole topic, not a question that asks more than its heading says."""
        record = c.record
        if not record.text and record.children and not stems <= self.title_stems(record):
            c.score *= HEADING_ONLY
            if explain:
                c.why.append("heading only")

    def asks_more(self, record: Record, weights: dict[str, float], title: frozenset[str] | None = None,
                  total: float | None = None) -> bool:
        """The question asks about more than the record's term: its other words weigh at least
        ``MORE`` of it ("menace blocking", not "kill a creature" -> destroy creature). ``title`` and ``total``:
        the record's title stems and the weights' sum, when the caller has them."""
        if "asks more" not in SIGNALS:
            return False
        if title is None:
            title = self.title_stems(record)
        if total is None:
            total = sum(weights.values()) or 1.0
        return _asks_more(weights, title, total)

    def _glossaries(self, candidates: list[Candidate], special: list[tuple[Candidate, _Row]],
                    add: Callable[[str], Candidate | None], stems: frozenset[str], weights: dict[str, float],
                    explain: bool = True) -> None:
        by_id: dict[str, Candidate] | None = None
        total = sum(weights.values()) or 1.0
        # the entries among the candidates, listed before the loop adds the rules they point at
        entries = [(c, row.title_stems) for c, row in special if row.kind == "glossary"]
        on = SIGNALS.on()
        asking = "asks more" in on
        for c, title in entries:
            target = self.pointers.get(c.record.id)
            # "infect damage to players": the entry defines infect; the answer is a rule about the rest.
            more = asking and _asks_more(weights, title, total)
            if more:
                c.score *= ASKS_MORE
                if explain:
                    c.why.append("asks more than the term")
            if target is not None and not more and title and stems and (title <= stems or stems <= title):  # about
                rule, by_id = _found_or_added(target, candidates, by_id, add)
                if rule is None:
                    continue
                rule.score = max(rule.score, c.score)
                c.score *= POINTER
                if explain:
                    rule.why.append(f"pointed at by {c.record.id}")
                    c.why.append(f"points at {target}")
            else:
                c.score *= GLOSSARY
                if explain:
                    c.why.append("glossary")


_PAGES = ("keyword", "card")  # the pages a question may ask more about than their term (Ranker._own_factors)


def _asks_more(weights: dict[str, float], title: frozenset[str], total: float) -> bool:
    """``Ranker.asks_more`` with its signal on (checked once by the pass that asks, not once per candidate)."""
    return sum([w for s, w in weights.items() if s not in title]) / total >= MORE


def _answers(c: Candidate, says: frozenset[str], asks: tuple[str, ...], explain: bool) -> None:
    """A candidate's factors for what the question's words ask for (``ASKS``) and its record says (``says``, its
    row's), in the question's order: the last of ``Ranker._by_place``'s."""
    for asked in asks:
        if asked in says:
            c.score *= ASKS[asked][2]
            if explain:
                c.why.append(_ANSWERS[asked])


def _named_factors(doc: str, kind: str, named_doc: str | None, named_kind: str | None,
                   implied: str | None) -> list[tuple[float, str]]:
    """A candidate's factors for the document or kind a question names, or the document whose own words it uses."""
    factors = []
    if named_doc and doc == named_doc:
        factors.append((NAMED_DOC, "named document"))
    if named_kind and kind == named_kind:
        factors.append((NAMED_KIND, "named kind"))
    if implied and doc == implied:
        factors.append((IMPLIED_DOC, "document's own words"))
    return factors


def _card_factors(record: Record, cards: frozenset[str], parts: frozenset[str]) -> list[tuple[float, str]]:
    """A candidate's factors for the cards a question names, whole (``cards``) or in part (``parts``): a card's
    own page and its rulings and notes."""
    owner = record.id if record.kind == "card" else record.parent
    factors = []
    if cards and owner in cards:
        factors.append((CARD_NAMED, "card named"))
    if parts and owner in parts:
        factors.append((PARTLY_NAMED, "card named in part"))
    return factors


def _found_or_added(target: str, candidates: list[Candidate], by_id: dict[str, Candidate] | None,
                    add: Callable[[str], Candidate | None]) -> tuple[Candidate | None, dict[str, Candidate]]:
    """The candidate for record ``target``: one already ranked, or one ``add`` makes (scored 0 and appended), or None
    when the build has no such record; ``by_id`` (made on first need) indexes ``candidates`` by record id."""
    if by_id is None:
        by_id = {c.record.id: c for c in candidates}
    found = by_id.get(target)
    if found is None:
        found = add(target)
        if found is not None:
            found.score = 0.0
            candidates.append(found)
            by_id[target] = found
    return found, by_id


def _add_asked(candidates: list[Candidate], ids: list[str], matches: dict, add: Callable[[str], Candidate | None],
               explain: bool, minimum: float) -> None:
    """The common questions (kb.asked) a question matches (``matches``: those of at least ``minimum``, by
    record; ``ids``: the candidates' record ids, grown with those it adds): each such record gains
    ``ASKED_WEIGHT`` x how far its match is above the minimum (0 at the minimum, 1 for the same words) x the best
    score so far, and joins the candidates when Whoosh did not return it. Applied after what the candidates' words
    say and before where they stand (the document named, older rules, variants, question words), which weigh the
    gain with the rest."""
    best = max((c.score for c in candidates), default=0.0) or 1.0
    joining = [rid for rid, m in matches.items() if m.score >= ASKED_JOIN]
    if joining:  # most questions' matches are too loose to join (the listed ids are read only then)
        listed = set(ids)
        for rid in joining:
            if rid not in listed:
                more = add(rid)
                if more is not None:
                    candidates.append(more)
                    ids.append(more.record.id)
    found = list(map(matches.get, ids))  # each candidate's match or None, looked up in C
    # the few candidates matched (a match is a non-empty tuple), with their matches, in the candidates' order
    for c, m in zip(compress(candidates, found), filter(None, found), strict=True):
        c.score += ASKED_WEIGHT * ((m.score - minimum) / (1 - minimum)) ** ASKED_POWER * best
        if m.score >= ASKED_SHOWN:
            c.asked, c.closeness = m.asked, m.score
        if explain:
            c.why.append(f"asked as {m.asked!r} ({m.score:.2f})")


def implied_document(weights: dict[str, float], uses: Callable[[str], dict[str, int]],
                     sizes: dict[str, int], owner: Callable[[str], str | None] | None = None) -> str | None:
    """The document a question's own words belong to: "two leaders who takes the first turn" is about
    Treachery (the only document that says "leader"), with no document named.

    A word belongs to a document when nearly all its use is there (``word_document``). The document
    whose words weigh at least a quarter of the question is implied. ``owner``: ``word_document`` of a
    word, as a build remembers it (kb.search), instead of working it out from ``uses`` and ``sizes``.
    """
    total = sum(weights.values()) or 1.0
    share: dict[str, float] = {}
    for word, weight in weights.items():
        doc = owner(word) if owner is not None else word_document(uses(word), sizes)
        if doc is not None:
            share[doc] = share.get(doc, 0.0) + weight / total
    best = max(share.items(), key=lambda kv: kv[1], default=None)
    return best[0] if best and best[1] >= 0.25 else None


def word_document(used: dict[str, int], sizes: dict[str, int]) -> str | None:
    """The document a word belongs to, given how many records of each use it (``used``): the one where
    nearly all its use is, counted per record and scaled by the documents' sizes (the official rules'
    many records do not make every word theirs); None for a word used by fewer than three records."""
    counts = {d: n / sizes[d] for d, n in used.items() if sizes.get(d)}
    spread = sum(counts.values())
    if not spread or sum(used.values()) < 3:
        return None
    doc, rate = max(counts.items(), key=lambda kv: kv[1])
    return doc if rate / spread >= OWN_WORD else None


def asks(question: str) -> tuple[str, ...]:
    """What kind of answer a question's words ask for: ("how many",), ("can I",), ("when",) or none."""
    return tuple(kind for kind, (asked, _, _) in ASKS.items() if kind in SIGNALS and asked.search(question))


def pairs(words: list[str]) -> list[str]:
    """Adjacent words of a question (folded, small words left out), as " starting player "."""
    kept = [w for w in words if w not in PAIR_STOP]
    return [f" {a} {b} " for a, b in zip(kept, kept[1:], strict=False)]


def weights(searcher, stems: list[str]) -> dict[str, float]:
    """The question's stems with BM25's inverse document frequency over bodies (rare words weigh more)."""
    n = max(searcher.doc_count_all(), 1)
    out = {}
    for word in stems:
        df = searcher.doc_frequency("body", word) + searcher.doc_frequency("title", word)
        out[word] = max(math.log(1 + (n - df + 0.5) / (df + 0.5)), 0.1)
    return out
