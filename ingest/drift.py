"""Citations of the official rules written against an older version ("drift").

UnCommander cites "702.139 in the official Comprehensive Rules" about mutate,
but in the 2026 rules 702.139 is Companion and mutate is 702.140; its
"719.2" about restarting the game now lands in "Case Cards". With the
official rules loaded, each citation's topic (the keyword rule 701.N/702.N,
or the section NNN, the cited rule belongs to) is compared with the citing
sentence: when the topic's title words are not in the sentence but another
topic's of the same group are (702.x for keywords, 7xx for 719), the
citation has probably drifted, and the likely current number goes beside
the written one (``Ref.suggested``; ``kb check`` lists them).

A heuristic on purpose: it only speaks when a better-matching title exists,
and says "probably". What a reader has checked is said exactly
(``mark_renumbered``): a profile's ``official_renumbered`` table names a citation's
number in one release of the official rules ("608.2k" is 608.2n in 2026-08-07,
where 608.2k is about something else), applied only when that release is loaded.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from ingest.links import text_fields, with_cited_by
from ingest.profile import Profile
from kb.model import Record, Ref
from kb.refs import parse_ref
from kb.words import stems

__all__ = ["mark_drift", "mark_renumbered", "topic_of"]

_KEYWORD = re.compile(r"^(70[12]\.\d+)")
_SECTION = re.compile(r"^(\d{3})")


def _stems(text: str) -> frozenset[str]:
    return frozenset(stems(text))  # stemmed, accent-folded, stop words dropped


def topic_of(number: str) -> str | None:
    """The rule whose title says what ``number`` is about: 702.139e -> 702.139, 719.2 -> 719."""
    m = _KEYWORD.match(number) or _SECTION.match(number)
    return m.group(1) if m else None


# Where a sentence ends: a full stop and a space, unless the stop is a section number's own and the sentence goes on
# ("See 719. in the official Comprehensive Rules ..., and 720. for subgames"), or a line break.
_SENTENCE_END = re.compile(r"\.(?= )(?<!\d{3}\.(?= [a-z]))|\n")


def _sentence(text: str, start: int, end: int) -> str:
    """The citing sentence and the one before it; for a closing "See 719.2." the three before it
    ("If the game is restarted, ... See 719.2.")."""
    ends = [m.start() for m in _SENTENCE_END.finditer(text)]
    left = max((i for i in ends if i < start), default=-1)
    before = 3 if text[left + 1 : start].strip().lower() in ("see", "(see") else 1
    for _ in range(before):
        if left > 0:
            left = max((i for i in ends if i < left), default=-1)
    right = min((i for i in ends if i >= end), default=len(text))
    return text[left + 1 : right]


def mark_drift(records: list[Record]) -> list[Record]:
    """Give each drifted official citation a ``suggested`` target; a no-op without the official rules."""
    by_id = {r.id: r for r in records}
    topics: dict[str, tuple[str, frozenset[str]]] = {}  # number -> (title, stems)
    for r in records:
        if r.doc == "cr" and r.kind == "rule" and r.title and r.number and topic_of(r.number) == r.number:
            topics[r.number] = (r.title, _stems(r.title))
    if not topics:
        return records
    out = []
    for r in records:
        if r.doc == "cr" or not any(ref.target and ref.target.startswith("cr/") for ref in r.refs):
            out.append(r)
            continue
        fields = dict(text_fields(r))
        refs = []
        for ref in r.refs:
            refs.append(_check(ref, fields, topics, by_id) if ref.target and ref.target.startswith("cr/") else ref)
        out.append(r.with_(refs=tuple(refs)))
    return out


def mark_renumbered(records: list[Record], profiles: Mapping[str, Profile]) -> list[Record]:
    """The citations a profile's ``official_renumbered`` table names, for the release loaded: the rule as
    that release numbers it, said exactly (no "probably"; over the title heuristic); a citation whose number
    is gone links there. Applied after the rules history dated the citations (ingest.dating), whose exact
    reading (the rule as it stood then, and now) it leaves alone."""
    official = profiles.get("cr")
    if official is None:
        return records
    tables = {slug: {e["written"]: e for e in p.tables.get("official_renumbered", ())
                     if e["release"] == official.effective} for slug, p in profiles.items()}
    ids = {r.id for r in records}
    out = []
    for r in records:
        table = tables.get(r.doc)
        if not table or not r.refs:
            out.append(r)
            continue
        refs = []
        for ref in r.refs:
            number = _written_number(ref)
            entry = table.get(number) if number and not ref.dated and ref.target in (None, f"cr/{number}") else None
            now = f"cr/{entry['now']}" if entry else None
            if entry and now in ids:
                note = (f"written against an older release of the official rules: {number} is {entry['now']} "
                        f"in the {official.effective} rules ({entry['why']})")
                ref = replace(ref, target=ref.target or now, suggested=now, note=note)
            refs.append(ref)
        out.append(r.with_(refs=tuple(refs)))
    return with_cited_by(out)


def _written_number(ref: Ref) -> str | None:
    """The official rule number as the citation writes it ("608.2k in the official Comprehensive Rules")."""
    query = parse_ref(ref.text, bare_numbers=True)
    return query.numbers[0] if query and query.numbers else None


def _group(topic: str) -> str:
    return topic.split(".")[0] if "." in topic else topic[0]


def _check(ref: Ref, fields: dict[str, str], topics: dict, by_id: dict) -> Ref:
    if ref.target is None or ref.start is None or ref.end is None:
        return ref
    number = ref.target.split("/", 1)[1]
    topic = topic_of(number)
    text = fields.get(ref.field)
    if topic is None or topic not in topics or text is None:
        return ref
    sentence = _stems(_sentence(text, ref.start, ref.end).replace(ref.text, " "))
    title, stems = topics[topic]
    if not stems or stems <= sentence:
        return ref  # the sentence is about what the cited rule is about
    group = _group(topic)
    candidates = [
        (len(s), -abs(_pos(t) - _pos(topic)), t)
        for t, (_, s) in topics.items()
        if t != topic and _group(t) == group and s and s <= sentence
        # a one-word section title ("Players") is in half the sentences of the rules; keywords
        # ("Mutate") are one word and specific
        and (len(s) >= 2 or "." in t)
    ]
    if not candidates:
        return ref
    _, _, better = max(candidates)
    moved = better + number[len(topic):]
    suggested = f"cr/{moved}" if f"cr/{moved}" in by_id else f"cr/{better}"
    note = (f"probably drifted: {number} is now {title!r}; the sentence is about "
            f"{topics[better][0]!r}, which is {suggested.split('/', 1)[1]} in the loaded rules")
    return replace(ref, suggested=suggested, note=note)


def _pos(topic: str) -> int:
    """702.139 -> 139, 719 -> 719: how far apart two topics of one group are."""
    return int(topic.rsplit(".", 1)[-1])
