"""Record ids: paths that double as the site's URLs.

Slugs are lowercase ASCII: accents folded (Æ -> ae), apostrophes dropped,
every other run of non-alphanumerics turned into ``-``. Rule numbers keep
their dots (``treachery/907.4b``) and are lowercased.
"""
from __future__ import annotations

import re
from urllib.parse import quote

from kb.words import fold  # accent folding is the words' (kb.words); ids fold the same way

__all__ = ["slugify", "fold", "record_url", "dated_url"]

_APOSTROPHES = re.compile(r"[\u0027\u2018\u2019\u02bc`]")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def slugify(text: str) -> str:
    """'The Ætherist' -> 'the-aetherist'; "Seht's Tiger" -> 'sehts-tiger'."""
    text = _APOSTROPHES.sub("", fold(text).lower())
    return _NON_ALNUM.sub("-", text).strip("-")


def record_url(record_id: str) -> str:
    """The site path of a record: its id is its path (``treachery/907.4b`` -> ``/treachery/907.4b``).

    Every link to a record, in the JSON and on the pages, is built here."""
    return "/" + record_id


def dated_url(day: str, number: str) -> str:
    """The site path of an official rule as it stood on ``day``: ``/cr@2016-07-22/716.2`` (web.history)."""
    return f"/cr@{day}/{quote(number)}"
