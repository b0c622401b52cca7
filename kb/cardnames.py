"""Card names as chat users type them, by the conventions of Scryfall's chat bots.

``[[tarmo]]``, ``[[jac bele]]``, ``[[the meta]]``: each word typed is the start
of a word of the name, in order, and the name is found when only one card
fits; when several fit, the lookup says so and lists them instead of picking
one. Case, accents and punctuation never matter (``[[SEHTS TIGER]]``). A
name within two typos (``[[tarmogyof]]``) is found as before (Resolver.card).

``[[Name|FUT]]`` names the document by a set code. The codes are each
profile's ``set_codes`` (Future Sight's is FUT); a document's slug also works
(``[[The Metamorph|treachery]]``), and that is the only code Treachery's
identity cards have: they are a fan variant's cards, printed in no Magic set.
A set code of a set we hold no document for (``[[Tarmogoyf|MM2]]``, a
reprint) still finds the card, with a note: a card's rulings do not change
with its printing.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kb.model import Record
from kb.resolve import _name_key
from kb.store import Store

__all__ = ["CardLookup", "find_card", "card_choices", "split_set_code"]

MAX_CANDIDATES = 25


@dataclass
class CardLookup:
    query: str
    card: Record | None = None
    candidates: list[Record] = field(default_factory=list)  # several cards fit: none is picked
    note: str | None = None
    distance: int = 0

    @property
    def ambiguous(self) -> bool:
        return self.card is None and len(self.candidates) > 1


@dataclass
class _Table:
    cards: list[tuple[str, tuple[str, ...], Record]]  # (key, words, record), by name
    codes: dict[str, str]  # set code or slug (lowercase) -> document slug
    shown: list[str]  # how the codes are named in a message: "FUT, treachery, uncommander, futuresight"


def _table(store: Store) -> _Table:
    """The build's card table, made once (kb.derived)."""
    return store.derived.get("cardnames", lambda: _make_table(store))


def _make_table(store: Store) -> _Table:
    cards = sorted(((_name_key(r.title), tuple(_name_key(r.title).split()), r)
                    for r in store.records.values() if r.kind == "card" and r.title), key=lambda c: c[0])
    codes: dict[str, str] = {}
    shown: list[str] = []
    for d in store.documents:
        for code in d.get("set_codes") or ():
            codes[code.lower()] = d["slug"]
            shown.insert(0, code)
        codes[d["slug"].lower()] = d["slug"]
        shown.append(d["slug"])
    return _Table(cards, codes, shown)


def split_set_code(text: str) -> tuple[str, str | None]:
    """``Tarmogoyf|FUT`` -> ("Tarmogoyf", "FUT"); a collector number after a second ``|`` is ignored."""
    name, _, rest = text.partition("|")
    code = rest.split("|", 1)[0].strip()
    return name.strip().lstrip("!").strip(), code or None


def _words_fit(typed: list[str], words: tuple[str, ...]) -> bool:
    """Each typed word starts a word of the name, in order ("jac bele" -> "jace beleren")."""
    i = 0
    for w in typed:
        while i < len(words) and not words[i].startswith(w):
            i += 1
        if i == len(words):
            return False
        i += 1
    return True


def find_card(store: Store, resolver, text: str, set_code: str | None = None) -> CardLookup:
    """The card ``text`` means: exactly, by unambiguous word prefixes, or within two typos."""
    table = _table(store)
    out = CardLookup(text)
    doc = None
    if set_code:
        doc = table.codes.get(set_code.strip().lower())
        if doc is None:
            out.note = (f"no document for set code {set_code.strip()!r} (known: {', '.join(table.shown)}); "
                        "looked in every document")
    key = _name_key(text)
    if not key or len(key) > 60:
        return out
    cards = [c for c in table.cards if doc is None or c[2].doc == doc]
    exact = [r for k, _, r in cards if k == key or k == "the " + key]
    if len(exact) == 1:
        out.card = exact[0]
        return out
    typed = key.split()
    # A name typed with "The" is a "The ..." name: "The Abyss" is not the end of Magus of the Abyss.
    fits = exact or [r for _, words, r in cards
                     if _words_fit(typed, words) and (typed[0] != "the" or words[0] == "the")]
    if len(fits) == 1:
        out.card = fits[0]
        return out
    if fits:
        out.candidates = fits[:MAX_CANDIDATES]
        shown = f" (showing {MAX_CANDIDATES})" if len(fits) > MAX_CANDIDATES else ""
        out.note = f"{text.strip()!r} fits {len(fits)} cards{shown}"
        return out
    card, distance = resolver.card(text)
    if card is None:  # as the search box reads names: a "The ..." name without "The", mistyped ("metamorf")
        card, distance = resolver.card_without_the(text)
    if card is None and not set(key.split()) <= resolver.words:
        # or the end of a name's word ("goyf"), when only one name has it and the documents do not use the word
        # ("fire" is no nickname of Ghostfire)
        ending = resolver.cards_ending(text)
        card, distance = (ending[0], 1) if len(ending) == 1 else (None, 0)
    if card is not None and (doc is None or card.doc == doc):
        out.card, out.distance = card, distance
        if distance:
            out.note = f"card name {text.strip()!r} read as {card.title!r}"
    elif card is not None:
        where = next((d["title"] for d in store.documents if d["slug"] == doc), doc)
        out.note = f"no card {text.strip()!r} in {where}; {card.title!r} is in another document"
        out.candidates = [card]
    return out


def card_choices(store: Store, resolver, text: str, limit: int = 25) -> list[Record]:
    """Cards for an autocomplete list: word-prefix fits first, then the typo match."""
    table = _table(store)
    key = _name_key(text)
    if not key:
        return [r for _, _, r in table.cards[:limit]]
    typed = key.split()
    starts = [r for k, _, r in table.cards if k.startswith(key) or k.startswith("the " + key)]
    words = [r for _, w, r in table.cards if _words_fit(typed, w) and r not in starts]
    out = (starts + words)[:limit]
    if not out:  # a typo or a nickname, as /card reads it: only when no name fits as typed (it reads every name)
        # ("goyf", "metamorf": the list offered nothing while /card answered both; a bot developer)
        card = find_card(store, resolver, text).card
        if card is not None:
            out.append(card)
    return out
