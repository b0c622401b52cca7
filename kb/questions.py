"""Realistic questions judges and players ask, with the records that answer them.

Used by the search-quality tests (tests/test_search_quality.py, tests/test_official.py)
and by ``kb bench``, which times search over them.

Written the way people type into a search box at a table, not the way the
records phrase things. A question is answered at rank k when any of its
answer ids is the k-th result; an answer ending in ``*`` accepts any record
under that id (a section's rules). Shared by the quality test and ``kb bench``.
"""
from __future__ import annotations

QUESTIONS: list[tuple[str, set[str]]] = [
    # -- rule numbers, in every form people write them --------------------------
    ("907.4b", {"treachery/907.4b"}),
    ("CR 702.187c", {"treachery/702.187c", "cr/702.187c"}),  # "CR" means the official rule once loaded
    ("rule 907.4B.", {"treachery/907.4b"}),
    ("(907.5a)", {"treachery/907.5a"}),
    ("treachery 907.3d", {"treachery/907.3d"}),
    ("r907.7", {"treachery/907.7"}),
    ("907.3", {"treachery/907.3"}),
    ("109.2tr", {"treachery/109.2tr"}),
    ("702.TrUnv-1", {"treachery/702.187"}),  # the number before version 2.0.5
    ("rule 115", {"treachery/116", "cr/115"}),  # Treachery renamed 115 in version 4.0; the CR has its own 115
    ("314.5", {"treachery/372.5", "cr/314.5"}),  # renamed in version 4.0
    ("502.68", {"futuresight/502.68"}),
    ("futuresight 502.62a", {"futuresight/502.62a"}),
    ("Token Cards j", {"uncommander/token-cards/j"}),
    ("token cards (c)", {"uncommander/token-cards/c"}),
    # -- card names, exact and mistyped ------------------------------------------
    ("The Metamorph", {"treachery/cards/the-metamorph"}),
    ("tarmogoyf", {"futuresight/cards/tarmogoyf"}),
    ("tarmogyof", {"futuresight/cards/tarmogoyf"}),
    ("the aetherist", {"treachery/cards/the-aetherist"}),
    ("aetherist", {"treachery/cards/the-aetherist"}),
    ("Æther vortex", {"uncommander/objects-in-multiple-zones/c"}),  # folds to "Yet Another Aether Vortex"
    ("venser shaper savant", {"futuresight/cards/venser-shaper-savant"}),
    ("sehts tiger", {"futuresight/cards/sehts-tiger"}),
    ("her seedborn highness", {"treachery/cards/her-seedborn-highness"}),
    ("bio engineer", {"treachery/cards/the-bio-engineer"}),
    ("jhoira", {"futuresight/cards/jhoira-of-the-ghitu"}),
    ("sliver legoin", {"futuresight/cards/sliver-legion"}),
    ("the puppet mastr", {"treachery/cards/the-puppet-master"}),
    # -- plain-language questions --------------------------------------------------
    ("who is the starting player", {"treachery/907.7", "treachery/372.3a", "cr/glossary/starting-player", "cr/103.1"}),
    ("starting life total", {"treachery/907.6", "cr/glossary/starting-life-total", "cr/103.4"}),
    ("how many assassins in a five player game", {"treachery/907.3b", "treachery/907.3c"}),
    ("what happens to face down identity cards when a player leaves", {"treachery/907.13", "treachery/702.187g"}),
    ("can you proliferate counters on identity cards", {"treachery/cards/her-seedborn-highness*"}),
    (
        "nut counters",
        {"treachery/cards/the-bio-engineer"} | {f"treachery/cards/the-bio-engineer/{n}" for n in range(1, 10)},
    ),
    ("traitor has no teammates", {"treachery/907.5c"}),
    ("how does unveil work", {"treachery/702.187", "treachery/702.187a", "keywords/unveil"}),
    ("undercover", {"treachery/207.2tr", "treachery/702.187f", "keywords/undercover"}),
    ("is turning an identity face up a special action", {"treachery/116.2tr", "treachery/702.187c"}),
    ("who owns an identity card", {"treachery/372.5", "treachery/907.9"}),
    ("when do the assassins win", {"treachery/907.8a"}),
    ("backstab rumble", {"treachery/907.3d"}),
    ("what is a teammate", {"treachery/glossary/teammate"}),
    ("unvel", {"treachery/702.187", "keywords/unveil", "treachery/702.187a"}),
    ("lifelink", {"futuresight/notes/new-keyword-ability-lifelink", "keywords/lifelink", "futuresight/502.68"}),
    ("what is tribal", {"futuresight/notes/new-card-type-tribal", "futuresight/212.8"}),  # the quoted rule defines it
    ("pact upkeep pay or lose the game", {"futuresight/notes/cycle-pacts"}),
    ("aura swap", {"futuresight/cards/arcanum-wings", "futuresight/502.62", "keywords/aura-swap"}),
    ("morph", {"futuresight/notes/returning-keyword-ability-morph", "keywords/morph"}),
    ("timeshifted cards", {"futuresight/notes/timeshifted-cards"}),
    ("grandeur discard a card with the same name", {"futuresight/notes/cycle-legendary-creatures-with-grandeur*"}),
    ("banned cards", {"uncommander/banned-cards"}),
    ("watermarks", {"uncommander/watermarks"}),
    ("paying with half mana", {"uncommander/noninteger-values-and-amounts*"}),
    ("players given names", {"uncommander/player-given-names*"}),
    ("golden rules", {"uncommander/uncommander-golden-rules*"}),
    ("coin flip", {"uncommander/die-rolls-and-coin-flips*", "cr/705*", "cr/glossary/flipping-a-coin"}),
]


# With the official Comprehensive Rules loaded (``kb build --cr``), the suite gains these.
CR_QUESTIONS: list[tuple[str, set[str]]] = [
    ("what happens when a player has ten poison counters",
     {"cr/704.5c", "futuresight/cards/snake-cult-initiation/4"}),  # that FAQ ruling says it word for word
    ("legend rule", {"cr/704.5j", "cr/glossary/legend-rule"}),
    ("mayhem", {"keywords/mayhem", "cr/702.187", "cr/702.187a", "cr/glossary/mayhem"}),
    ("CR 704.5j", {"cr/704.5j"}),
    ("702.187", {"treachery/702.187", "cr/702.187"}),
    ("mulligan", {"cr/103.5", "cr/glossary/mulligan"}),
    ("deathtouch", {"keywords/deathtouch", "cr/702.2", "cr/glossary/deathtouch"}),
    ("what is a token", {"cr/111", "cr/glossary/token"}),
    ("state-based actions", {"cr/704", "cr/glossary/state-based-actions"}),
    ("first strike combat damage step", {"keywords/first-strike", "cr/510.4", "cr/702.7*"}),
    ("how does the stack resolve", {"cr/608*", "cr/405", "cr/glossary/stack", "cr/glossary/resolve"}),
    ("commander damage 21", {"cr/903.10a", "cr/704.6c"}),
    ("companion", {"keywords/companion", "cr/702.139", "cr/glossary/companion"}),
    ("monarch", {"cr/725", "cr/glossary/monarch"}),
]


def answers(result_id: str, expected: set[str]) -> bool:
    return result_id in expected or any(a.endswith("*") and result_id.startswith(a[:-1]) for a in expected)
