"""The official Comprehensive Rules as an optional source: a profile built from the file itself.

Users download the current rules from Wizards' site and point the build at
the file, so there is no ``corpus/cr.toml``: the version and effective date
come from the sentence the file prints ("These rules are effective as of
August 7, 2026.").
"""
from __future__ import annotations

import datetime
import re
from pathlib import Path

from ingest.encoding import read_document
from ingest.errors import ParseError, Problem
from ingest.profile import Profile

__all__ = ["cr_profile", "profile_from_text", "effective_date"]

TITLE = "Magic: The Gathering Comprehensive Rules"
SOURCE_URL = "https://magic.wizards.com/en/rules"

_MONTHS = ("January", "February", "March", "April", "May", "June", "July",
           "August", "September", "October", "November", "December")
_EFFECTIVE = re.compile(r"These rules are effective as of (?P<month>[A-Z][a-z]+) (?P<day>\d{1,2}), (?P<year>\d{4})\.")


def effective_date(text: str) -> tuple[str, str] | None:
    """("August 7, 2026", "2026-08-07") from the first effective-date sentence, or None (no such sentence, or
    its date is not a day of the calendar: "Smarch 7", "February 30", "August 0")."""
    m = _EFFECTIVE.search(text)
    if m is None or m.group("month") not in _MONTHS:
        return None
    month = _MONTHS.index(m.group("month")) + 1
    try:
        day = datetime.date(int(m.group("year")), month, int(m.group("day")))
    except ValueError:
        return None
    return f"{m.group('month')} {day.day}, {m.group('year')}", day.isoformat()


def cr_profile(path: Path) -> Profile:
    """The profile of a user-supplied Comprehensive Rules file; a file without its date fails at line 1."""
    path = Path(path)
    return profile_from_text(read_document(path).text, path)


def profile_from_text(text: str, path: Path) -> Profile:
    """The profile of an official rules text already decoded (``path`` names it in problems)."""
    dated = effective_date(text)
    printed = _EFFECTIVE.search(text) if dated is None else None
    if printed is not None:  # the sentence is there, its date is not a date
        line = text[: printed.start()].count("\n") + 1
        raise ParseError([Problem(str(path), line, "a date that exists in 'These rules are effective as of "
                                  "<Month D, YYYY>.'", printed.group(0))])
    if dated is None:
        first = next((line.strip() for line in text.splitlines() if line.strip()), "")
        raise ParseError([Problem(str(path), 1, "the sentence 'These rules are effective as of <Month D, YYYY>.'",
                                  first or "an empty file")])
    version, effective = dated
    return Profile(
        slug="cr",
        title=TITLE,
        version=version,
        effective=effective,
        source_url=SOURCE_URL,
        parser="cr",
        file=path.name,
        path=path,
        tables={"keyword_rules": ["701", "702"], "short_title": "Comprehensive Rules"},
    )
