"""Table language -> document language: the words a query is rewritten with.

Two sources, both carried in the build:

- the curated table (``corpus/vocabulary.toml``, in the manifest): "kill" -> destroy,
  "yard" -> graveyard, "etb" -> enters the battlefield, "my secret identity" -> face-down
  identity card, each entry with the record that motivated it;
- what the documents define themselves: a glossary entry that only points elsewhere
  ("APNAP Order: See Active Player, Nonactive Player Order.") or names an obsolete term
  ("Converted Mana Cost (Obsolete): An obsolete term for mana value.") or renamed ("Tribal (Obsolete): An
  obsolete card type that has been renamed. See rule 308, “Kindreds.”");
- names written as one word: two neighbouring words of a record's title, or a whole title without
  "the", joined ("puppetmaster" -> puppet master, "firststrike" -> first strike), used only
  when the index does not know the joined word itself (the searcher says which words it knows).

Matching is on whole words, accent- and case-folded, apostrophes dropped ("leader's side"
is "leaders side"); the longest phrase wins. A rewritten query keeps the words it replaced
as extra, weaker evidence, and the search page says what it did ("Searching for destroy, the rules' word for kill").
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from collections.abc import Callable, Iterable

from kb.ids import fold
from kb.model import Record

__all__ = ["Vocabulary", "Expansion", "normalise", "SEE_ENTRY"]

_WORDS = re.compile(r"[a-z0-9]+(?:[.\-/][a-z0-9]+)*")
_SIGNED = re.compile(r"[+\-]?[a-z0-9]+(?:[.\-/][+\-]?[a-z0-9]+)*")
_APOSTROPHES = re.compile(r"[\u0027\u2018\u2019\u02bc`]")
# A glossary entry that only sends the reader to another entry: "See Active Player, Nonactive Player Order."
SEE_ENTRY = re.compile(r"^See “?(?P<to>[^.”]+?)[.,]?”?\.?$")
_OBSOLETE = re.compile(r"^An obsolete term for (?:an? |the )?(?P<to>[^.,“”]+)[.,]")
# "Tribal (Obsolete): An obsolete card type that has been renamed. See rule 308, “Kindreds.”", "Totem Armor
# (Obsolete): An obsolete keyword ability that has been renamed. See rule 702.89, “Umbra Armor.”", "EDH (Obsolete):
# An older name for the Commander casual variant. See rule 903, “Commander.”": the title of the rule it points at
_RENAMED = re.compile(r"^An (?:obsolete [^.]+? that has been renamed|older name for [^.]+?)\. "
                      r"See rules? [\d.a-z]+, “(?P<to>[^”]+?)\.?”")
MAX_PHRASE = 6  # words


def _signed(text: str) -> list[str]:
    """Words with their signs, for comparing meanings: "+1/+1 counter" is not "-1/-1 counter"."""
    return _SIGNED.findall(_APOSTROPHES.sub("", fold(text).lower()))


def normalise(text: str) -> list[str]:
    """Folded lowercase words, apostrophes dropped: "The Leader's side" -> the leaders side."""
    return _WORDS.findall(_APOSTROPHES.sub("", fold(text).lower()))


# An entry's unless-words may name this instead of a word: the entry means something else in a question that names a
# card ("how big is tarmogoyf" asks its size, not a deck's); _A_CARD is no word normalise makes.
CARD_NAME = "a card's name"
_A_CARD = "\x00card"


@dataclass
class Expansion:
    text: str  # the query in the documents' words
    replaced: list[str] = field(default_factory=list)  # the words it replaced ("kill")
    used: list[tuple[str, str, str]] = field(default_factory=list)  # (said, means, why)

    @property
    def note(self) -> str | None:
        if not self.used:
            return None
        # "removed, the rules' word for wear off": what was searched, in plain words (it read "removed (for: wear off)")
        return "; ".join(dict.fromkeys(f"{means}, the rules' word for {said}" for said, means, _ in self.used))


class Vocabulary:
    def __init__(self, entries: Iterable[tuple[str, str, str] | tuple[str, str, str, Iterable[str]]]):
        """``entries``: (said, means, why) triples, or with a fourth item, the words ("unless") in whose
        company the saying means something else: "die" is not "dies" in "roll a die"."""
        self.phrases: dict[tuple[str, ...], tuple[str, str]] = {}
        self.unless: dict[tuple[str, ...], frozenset[str]] = {}
        self.meant: dict[tuple[str, ...], frozenset[str]] = {}  # what an entry means, as _signed words
        for said, means, why, *unless in entries:
            key = tuple(normalise(said))
            if key and len(key) <= MAX_PHRASE and key != tuple(normalise(means)) and key not in self.phrases:
                self.phrases[key] = (means, why)
                self.meant[key] = frozenset(_signed(means))
                if unless and unless[0]:
                    self.unless[key] = frozenset(w for u in unless[0]
                                                 for w in ([_A_CARD] if u == CARD_NAME else normalise(u)))
        self.longest = max((len(k) for k in self.phrases), default=0)
        # the first words of the entries a card's name in the question stops (expand asks only when one is there)
        self._card_first = frozenset(key[0] for key, words in self.unless.items() if _A_CARD in words)
        self.starts = frozenset(k[0] for k in self.phrases)  # the first words of the phrases (_segments)
        # each phrase's first two words, first three, ..., all of them: how far a phrase reaches from a word (_segments)
        self._reach = frozenset(k[:n] for k in self.phrases for n in range(2, len(k) + 1))
        self.joined: dict[str, tuple[str, str]] = {}
        self._pieces: set[str] = set()  # the joined words that are a piece of a card's name (with_nicknames)

    def with_joined(self, titles: Iterable[tuple[str, str]]) -> Vocabulary:
        """Also read a title's words written as one ("puppetmaster"); ``titles``: (title, record id)."""
        for title, rid in titles:
            words = [w for w in normalise(title) if w.isalpha()]
            core = [w for w in words if w != "the"]
            spans = [words[i:i + 2] for i in range(len(words) - 1)] + ([core] if len(core) > 2 else [])
            for span in spans:
                joined = "".join(span)
                if len(joined) >= 6 and (joined,) not in self.phrases:
                    self.joined.setdefault(joined, (" ".join(span), rid))
        return self

    def with_nicknames(self, pieces: Iterable[tuple[str, str, str]]) -> Vocabulary:
        """Also read a piece of a card's name as the name ("goyf" -> tarmogoyf), where the index does not know the
        piece and only one card's name has it; ``pieces``: (piece, name, card id)."""
        found: dict[str, set[tuple[str, str]]] = {}
        for piece, name, rid in pieces:
            found.setdefault(piece, set()).add((name, rid))
        for piece, names in found.items():
            if len(names) == 1 and (piece,) not in self.phrases:
                self.joined.setdefault(piece, next(iter(names)))
                self._pieces.add(piece)
        return self

    @classmethod
    def from_build(cls, manifest: dict, records: Iterable[Record]) -> Vocabulary:
        curated = [(said, e["means"], e["why"], e.get("unless", ())) for e in manifest.get("vocabulary", ())
                   for said in e["say"]]
        return cls(curated + list(defined_by_glossaries(records)))

    def expand(self, text: str, known: Callable[[str], bool] | None = None,
               names_card: Callable[[], bool] | None = None) -> Expansion:
        """``text`` in the documents' words; a joined title word only where ``known`` (the index) says
        the word itself is unknown. ``names_card``: whether the question names a card, for the entries that
        mean something else beside one (``unless = ["a card's name"]``); asked only when such an entry's
        first word is in the question."""
        words = normalise(text)
        if not (self.phrases or self.joined) or not words:
            return Expansion(text)
        present = frozenset(words)
        if self.starts.isdisjoint(present) and self.joined.keys().isdisjoint(present):
            return Expansion(text)  # no phrase starts with a word of it, no word is a joined title: nothing to read
        out: list[str] = []
        expansion = Expansion(text)
        if self._card_first and not self._card_first.isdisjoint(present) \
                and (not self._pieces.isdisjoint(present) or names_card is not None and names_card()):
            present |= {_A_CARD}  # "how big is goyf": a piece of a card's name names the card too
        segments = self._segments(words, present)
        if not any(hit for _, _, hit in segments) and self.joined.keys().isdisjoint(present):
            return expansion  # a phrase's first word without the phrase ("at", "the"): nothing to read either
        typed = frozenset(_signed(text))
        said = {self.meant[key]: i for i, key, hit in segments if hit}  # what each rewrite means -> where it is last
        made: set[frozenset[str]] = set()  # what the rewrites made so far mean
        asked: dict[str, bool] = {}

        def ours(word: str) -> bool:  # the index holds the word (asked once per word)
            found = asked.get(word)
            if found is None:
                found = asked[word] = bool(known and known(word))
            return found

        for i, key, hit in segments:
            if hit is None:
                split = self.joined.get(key[0])
                if split and known is not None and not known(key[0]):
                    out.append(split[0])
                    expansion.replaced.append(key[0])
                    expansion.used.append((key[0], *split))
                else:
                    out.append(key[0])
                continue
            phrase, meant = " ".join(key), self.meant[key]
            if meant <= typed and meant.isdisjoint(key) \
                    or (any(meant <= m for m, last in said.items() if last > i) or any(meant <= m for m in made)) \
                    and known is not None and all(ours(w) for w in key):
                # Said already, in the query's own words ("deal damage", not "Damage damage") or, for words
                # the documents use, by another rewrite, still to come or made ("deal dmg", "dmg ... deal"
                # -> damage): the words leave the text and are searched as a replaced word is, at half weight.
                expansion.replaced.append(phrase)
            else:
                out.append(hit[0])
                made.add(meant)
                expansion.replaced.append(phrase)
                expansion.used.append((phrase, hit[0], hit[1]))
        if expansion.replaced:
            expansion.text = " ".join(out)
        return expansion

    def _usable(self, key: tuple[str, ...], present: frozenset[str]) -> tuple[str, str] | None:
        """The entry for the words ``key``, unless the query (``present``) holds one of its unless-words."""
        hit = self.phrases.get(key)
        return None if hit and self.unless and self.unless.get(key, frozenset()) & present else hit

    def _segments(self, words: list[str], present: frozenset[str]
                  ) -> list[tuple[int, tuple[str, ...], tuple[str, str] | None]]:
        """``words`` read left to right as (where, words, entry): the longest phrase with a usable entry at
        each word, else the word alone with none."""
        out: list[tuple[int, tuple[str, ...], tuple[str, str] | None]] = []
        i = 0
        while i < len(words):
            if words[i] not in self.starts:  # no phrase starts with it (most words): the word alone, with none
                out.append((i, (words[i],), None))
                i += 1
                continue
            # the longest run of words from here that begins some phrase (a longer one is no phrase's key)
            reach = 1
            while i + reach < len(words) and tuple(words[i:i + reach + 1]) in self._reach:
                reach += 1
            for n in range(reach, 0, -1):
                key = tuple(words[i:i + n])
                hit = self._usable(key, present)
                if hit:
                    out.append((i, key, hit))
                    i += n
                    break
            else:
                out.append((i, (words[i],), None))
                i += 1
        return out


def defined_by_glossaries(records: Iterable[Record]) -> Iterable[tuple[str, str, str]]:
    """(said, means, why) from glossary entries that only point elsewhere or name an obsolete term."""
    for r in records:
        if r.kind != "glossary" or not r.title or not r.text:
            continue
        text = r.text.strip()
        m = SEE_ENTRY.match(text) or _OBSOLETE.match(text) or _RENAMED.match(text)
        if not m:
            continue
        title = re.sub(r"\s*\(Obsolete\)$", "", r.title)
        said, means = normalise(title), normalise(m.group("to"))
        # "Remove from the Game, Removed, ..." is a list of forms, not one phrase; "Y: See X" is a
        # letter; "If: See Intervening 'If' Clause" narrows a common word instead of naming it.
        if "," in title or len(title) < 3 or set(said) <= set(means):
            continue
        yield title, m.group("to"), r.id
