"""Keyword records gathered across documents: ``keywords/unveil``, ``keywords/lifelink``.

A keyword is defined by a titled rule in a keyword-rules section of its
document (the profile's ``keyword_rules`` lists those sections: 702 for
Treachery's Unveil, 501/502 for the 2007 rules the FAQ quotes, 701/702 for
the official rules) or named explicitly in the profile's ``[[keywords]]``
table (Treachery's ability word "undercover", rule 207.2tr). One record per
keyword name, whatever the number of documents defining it; its ``refs``
point at every definition, so each definition's ``cited_by`` lists it.
"""
from __future__ import annotations

import re

from ingest.profile import Profile
from kb.ids import slugify
from kb.model import Record, Ref, Source
from kb.snippet import keyword_text_from

__all__ = ["keyword_records", "KEYWORDS_DOC"]

KEYWORDS_DOC = "keywords"


def _definitions(records: list[Record], profiles: dict[str, Profile]) -> list[tuple[str, Record]]:
    by_id = {r.id: r for r in records}
    found = []
    for slug, profile in profiles.items():
        sections = profile.tables.get("keyword_rules", ())
        if sections:
            pattern = re.compile(r"^(?:" + "|".join(re.escape(s) for s in sections) + r")\.\d+$")
            for r in records:
                if r.doc == slug and r.kind == "rule" and r.title and r.number and pattern.match(r.number):
                    found.append((r.title, r))
        for entry in profile.tables.get("keywords", ()):
            rule = by_id.get(f"{slug}/{entry['rule'].lower()}")
            if rule is None:
                raise ValueError(
                    f"{profile.path}: keyword {entry['name']!r} names rule {entry['rule']!r}, which does not exist"
                )
            found.append((entry["name"], rule))
    return found


def _spanning(first: Source, last: Source) -> Source:
    """The lines from ``first``'s to ``last``'s (two sub-rules in a row), columns only within one line."""
    if first == last:
        return first
    one_line = first.line_start == last.line_end
    return Source(first.file, first.line_start, last.line_end,
                  first.col_start if one_line else None, last.col_end if one_line else None)


def _effective(profile: Profile) -> str:
    """The profile's effective date (ISO), or "" for an undated document (sorted last)."""
    return profile.effective if re.fullmatch(r"\d{4}-\d{2}-\d{2}", profile.effective) else ""


def keyword_records(records: list[Record], profiles: dict[str, Profile]) -> list[Record]:
    by_id = {r.id: r for r in records}
    gathered: dict[str, list[tuple[str, Record]]] = {}
    for name, rule in _definitions(records, profiles):
        gathered.setdefault(slugify(name), []).append((name, rule))
    for defs in gathered.values():
        # The newest document's definition first: with the official rules loaded, a keyword reads
        # as today's rule, not as the 2007 text the Future Sight FAQ quoted (shroud, reach).
        defs.sort(key=lambda d: _effective(profiles[d[1].doc]), reverse=True)
    out = []
    for slug, defs in gathered.items():
        name, first = defs[0]
        # The keyword reads as its first definition: the rule's first sub-rule (and the next when the first only
        # says what kind of ability it is: "Menace is an evasion ability."), or the rule itself.
        body = keyword_text_from(first, [by_id[c] for c in first.children[:2]])
        refs = tuple(
            Ref(f"{profiles[rule.doc].title} {rule.number}", rule.id, field="definitions")
            for _, rule in defs
        )
        out.append(Record(
            id=f"{KEYWORDS_DOC}/{slug}",
            doc=KEYWORDS_DOC,
            kind="keyword",
            title=name,
            text=" ".join(filter(None, (r.text for r in body))),
            source=_spanning(body[0].source, body[-1].source),
            refs=refs,
        ))
    return sorted(out, key=lambda r: r.id)
