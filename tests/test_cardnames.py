"""Card names in chat, by Scryfall's bots' conventions: partial names and prefixes when they are
unambiguous, the candidates when they are not, ``[[Name|FUT]]`` set codes, case and punctuation free."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def kb(data_dir):
    from kb.kbase import KnowledgeBase

    return KnowledgeBase(data_dir).current()


@pytest.mark.parametrize("typed, card", [
    ("Tarmogoyf", "futuresight/cards/tarmogoyf"),
    ("tarmo", "futuresight/cards/tarmogoyf"),                     # a prefix
    ("TARMOGOYF!", "futuresight/cards/tarmogoyf"),                # case and punctuation
    ("tarmogyof", "futuresight/cards/tarmogoyf"),                 # a typo
    ("venser", "futuresight/cards/venser-shaper-savant"),         # the first word
    ("venser shaper", "futuresight/cards/venser-shaper-savant"),
    ("vens sha sav", "futuresight/cards/venser-shaper-savant"),   # a prefix of every word
    ("sehts tiger", "futuresight/cards/sehts-tiger"),             # Seht's Tiger without the apostrophe
    ("metamorph", "treachery/cards/the-metamorph"),               # without "The"
    ("the meta", "treachery/cards/the-metamorph"),
    ("aetherist", "treachery/cards/the-aetherist"),               # Ætherist, folded
])
def test_a_part_of_a_name_finds_the_one_card_it_fits(kb, typed, card):
    from kb.cardnames import find_card

    found = find_card(kb.store, kb.resolver, typed)
    assert found.card is not None and found.card.id == card
    assert not found.ambiguous


def test_several_fits_are_reported_not_guessed(kb):
    from kb.cardnames import find_card

    found = find_card(kb.store, kb.resolver, "magus of the")
    assert found.card is None and found.ambiguous
    assert [c.title for c in found.candidates] == ["Magus of the Abyss", "Magus of the Future", "Magus of the Vineyard"]
    assert found.note == "'magus of the' fits 3 cards"
    many = find_card(kb.store, kb.resolver, "the")
    assert len(many.candidates) == 25 and "(showing 25)" in (many.note or "")


@pytest.mark.parametrize("typed, card, note", [
    ("Tarmogoyf|FUT", "futuresight/cards/tarmogoyf", None),
    ("tarmo|fut", "futuresight/cards/tarmogoyf", None),
    ("Tarmogoyf|FUT|153", "futuresight/cards/tarmogoyf", None),    # a collector number is ignored
    ("The Metamorph|treachery", "treachery/cards/the-metamorph", None),  # Treachery has no set code: its slug
    ("Tarmogoyf|MM2", "futuresight/cards/tarmogoyf", "no document for set code 'MM2'"),  # a reprint
    ("!Tarmogoyf", "futuresight/cards/tarmogoyf", None),           # Scryfall's "exact" mark
])
def test_set_codes(kb, typed, card, note):
    from kb.cardnames import find_card, split_set_code

    found = find_card(kb.store, kb.resolver, *split_set_code(typed))
    assert found.card is not None and found.card.id == card
    assert (note is None and found.note is None) or note in (found.note or "")


def test_a_set_that_does_not_have_the_card(kb):
    from kb.cardnames import find_card

    found = find_card(kb.store, kb.resolver, "The Metamorph", "FUT")
    assert found.card is None and [c.id for c in found.candidates] == ["treachery/cards/the-metamorph"]
    assert found.note == "no card 'The Metamorph' in Future Sight FAQ; 'The Metamorph' is in another document"


def test_linkify_follows_the_conventions(client):
    text = "[[tarmo|FUT]] beats [[Magus of the]] but not [[the meta]]; [[Black Lotus]] and [[Token Cards g)]]"
    body = client.post("/api/linkify", json={"text": text}).get_json()
    links = {link["match"]: link["id"] for link in body["links"]}
    assert links == {"[[tarmo|FUT]]": "futuresight/cards/tarmogoyf", "[[the meta]]": "treachery/cards/the-metamorph",
                     "[[Token Cards g)]]": "uncommander/token-cards/g"}
    assert body["text"].startswith("[Tarmogoyf](http://localhost/futuresight/cards/tarmogoyf) beats [[Magus of the]]")
    [ambiguous] = body["ambiguous"]
    assert ambiguous["match"] == "[[Magus of the]]" and text[ambiguous["start"]:ambiguous["end"]] == ambiguous["match"]
    assert [c["title"] for c in ambiguous["candidates"]] == ["Magus of the Abyss", "Magus of the Future",
                                                             "Magus of the Vineyard"]
    assert ambiguous["candidates"][0]["url"] == "http://localhost/futuresight/cards/magus-of-the-abyss"
    assert "[[Black Lotus]]" in body["text"]  # no such card: left as written
