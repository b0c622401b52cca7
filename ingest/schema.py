"""What a document profile (``corpus/<slug>.toml``) may hold, checked strictly.

A misspelt key used to build silently (``cites_current_rule`` linked eight
citations wrongly) and a bad card entry ended in a traceback naming the wrong
file. Every key a profile may have is listed here with its type; anything
else, or a value of the wrong type, is a problem at the profile's own line:
``corpus/treachery.toml:71: expected a string for cards[1].role, found 3``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ingest.errors import Problem

__all__ = ["SCHEMA", "check_profile"]


@dataclass(frozen=True)
class ListOf:
    item: Any  # a type, or a dict describing a table


@dataclass(frozen=True)
class Table:
    keys: dict[str, Any]
    required: tuple[str, ...] = ()


STR_LIST = ListOf(str)

SCHEMA = Table(
    keys={
        # metadata
        "slug": str, "title": str, "short_title": str, "version": str, "effective": str, "source_url": str,
        "parser": str, "file": str, "names": STR_LIST, "official_rules_url": str,
        "set_codes": STR_LIST,  # [[Tarmogoyf|FUT]] in chat (kb.cardnames)
        # how references and keywords are read
        "keyword_rules": STR_LIST,
        "keywords": ListOf(Table({"name": str, "rule": str}, ("name", "rule"))),
        "cites_current_rules": bool, "uncited_number_note": str,
        "link_cards_from_other_documents": bool,
        "not_card_mentions": ListOf(Table({"text": str, "why": str}, ("text", "why"))),
        "renamed": ListOf(Table({"old": str, "new": str, "version": str}, ("old", "new", "version"))),
        "removed": ListOf(Table({"number": str, "version": str, "why": str}, ("number", "version", "why"))),
        # official citations written against an older release, as the release named renumbers them (ingest.drift)
        "official_renumbered": ListOf(Table({"written": str, "now": str, "release": str, "why": str},
                                            ("written", "now", "release", "why"))),
        # tables a parser reads
        "cards": ListOf(Table({"name": str, "role": str}, ("name",))),
        "corrections": ListOf(Table({"find": str, "replace": str, "why": str, "lines": ListOf(int)},
                                    ("find", "replace", "why"))),
        "parts": Table({"introduction": str, "rules": str, "glossary": str, "cards": str}),
        "phrases": Table({"history_header": str, "effective": str, "no_notes": str, "group_heading": str}),
        "not_bullets": STR_LIST,
        "continued_notes": ListOf(Table({"lines": ListOf(int), "why": str}, ("lines", "why"))),
        "note_interludes": ListOf(Table({"text": str, "why": str}, ("text", "why"))),
        "sections": STR_LIST, "introduction_title": str, "attribution_lines": STR_LIST,
        "attributions": ListOf(Table({"pattern": str, "why": str}, ("pattern", "why"))),
        "type_words": STR_LIST, "noncreature_subtypes": STR_LIST, "quote_lead_ins": STR_LIST,
    },
    required=("slug", "title", "version", "effective", "source_url", "parser", "file"),
)

_NAMES = {str: "a string", int: "a whole number", bool: "true or false"}


def _describe(kind: Any) -> str:
    if isinstance(kind, ListOf):
        return "a list"
    if isinstance(kind, Table):
        return "a table"
    return _NAMES[kind]


def _path_text(path: tuple) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def _check(value: Any, kind: Any, path: tuple, out: list[tuple[tuple, str, Any]]) -> None:
    """Append (path, expected, found) for every way ``value`` is not ``kind``."""
    if isinstance(kind, Table):
        if not isinstance(value, dict):
            out.append((path, f"a table for {_path_text(path)}", value))
            return
        for key in kind.required:
            if key not in value:
                out.append((path, f"the key {key!r}" + (f" in {_path_text(path)}" if path else ""), "none"))
        for key, item in value.items():
            if key not in kind.keys:
                known = ", ".join(sorted(kind.keys))
                out.append((path + (key,), f"one of the known keys ({known})", key))
            else:
                _check(item, kind.keys[key], path + (key,), out)
    elif isinstance(kind, ListOf):
        if not isinstance(value, list):
            out.append((path, f"a list for {_path_text(path)}", value))
            return
        for i, item in enumerate(value):
            _check(item, kind.item, path + (i,), out)
    # bool is an int in Python: a line number written `true` is still wrong
    elif not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        out.append((path, f"{_describe(kind)} for {_path_text(path)}", value))


def check_profile(data: dict[str, Any], text: str, file: str) -> list[Problem]:
    """Every problem with a parsed profile, each at the line of the profile that has it."""
    found: list[tuple[tuple, str, Any]] = []
    _check(data, SCHEMA, (), found)
    return [Problem(file, line_of(text, path), expected, value if isinstance(value, str) else repr(value))
            for path, expected, value in found]


def _key_line(lines: list[str], key: str, start: int = 0, stop: int | None = None) -> int | None:
    pattern = re.compile(rf"^\s*(?:\[\[?\s*)?[\"']?{re.escape(key)}[\"']?\s*(?:=|\]\]?)|[{{,]\s*{re.escape(key)}\s*=")
    for i in range(start, len(lines) if stop is None else stop):
        if pattern.search(lines[i]):
            return i
    return None


def _item_line(lines: list[str], key: str, index: int, start: int) -> tuple[int, int | None]:
    """The line where item ``index`` of ``key`` starts, and where the next one does (None: the end)."""
    header = re.compile(rf"^\s*\[\[\s*{re.escape(key)}\s*\]\]")
    headers = [i for i, line in enumerate(lines) if header.match(line)]
    if headers:  # [[cards]] tables
        if index >= len(headers):
            return headers[-1], None
        following = [i for i in range(headers[index] + 1, len(lines)) if lines[i].lstrip().startswith("[")]
        return headers[index], (following[0] if following else None)
    # an inline list: key = [ {...}, {...} ] or [1, 2]; count the items' opening braces
    opens = [i for i in range(start, len(lines)) for _ in range(lines[i].count("{"))]
    if index < len(opens):
        return opens[index], opens[index] + 1
    return start, None


def line_of(text: str, path: tuple) -> int:
    """The 1-based line of ``text`` where ``path`` (("cards", 3, "role")) is written, as near as it can tell."""
    lines = text.splitlines()
    if not path:
        return 1
    start = _key_line(lines, str(path[0]))
    if start is None:
        return 1
    if len(path) >= 2 and isinstance(path[1], int):
        item, stop = _item_line(lines, str(path[0]), path[1], start)
        if len(path) >= 3:
            sub = _key_line(lines, str(path[2]), item, stop)
            return (sub if sub is not None else item) + 1
        return item + 1
    if len(path) >= 2:  # [parts] rules = ...
        sub = _key_line(lines, str(path[1]), start + 1)
        return (sub if sub is not None else start) + 1
    return start + 1
