"""Record ids: paths that double as the site's URLs.

Slugs are lowercase ASCII: accents folded (Æ -> ae), apostrophes dropped,
every other run of non-alphanumerics turned into ``-``. Rule numbers keep
their dots (``treachery/907.4b``) and are lowercased.
"""
from __future__ import annotations

import re
import unicodedata

__all__ = ["slugify", "fold"]

# Letters NFKD does not decompose into a base letter plus a mark.
_LIGATURES = str.maketrans({
    "Æ": "AE", "æ": "ae", "Œ": "OE", "œ": "oe", "Ø": "O", "ø": "o",
    "ß": "ss", "Ð": "D", "ð": "d", "Þ": "Th", "þ": "th", "Ł": "L", "ł": "l",
})
_APOSTROPHES = re.compile(r"[\u0027\u2018\u2019\u02bc`]")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def fold(text: str) -> str:
    """Fold accents and ligatures to ASCII, keeping everything else."""
    text = unicodedata.normalize("NFKD", text.translate(_LIGATURES))
    return "".join(c for c in text if not unicodedata.combining(c))


def slugify(text: str) -> str:
    """'The Ætherist' -> 'the-aetherist'; "Seht's Tiger" -> 'sehts-tiger'."""
    text = _APOSTROPHES.sub("", fold(text).lower())
    return _NON_ALNUM.sub("-", text).strip("-")
