"""What an older document says that the rules have changed since: ``corpus/<slug>_obsolete.toml``.

The Future Sight FAQ (2007) says "it will cause mana burn" and "remove it from the game"; a judge reading
its rulings today needs to know which no longer hold. The table names each change (the words that show it,
the release it came with, today's rule, why); the build reads it, checks it, finds which rulings and notes
of that document rest on each change, and carries the result in the build's manifest (``obsolete``), so
that pages and search need no file of their own (kb.obsolete reads it).

A bad table fails the build with the table's line, as a bad document does.
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from ingest.errors import ParseError, Problem
from kb.model import Record

__all__ = ["OBSOLETE_SUFFIX", "is_obsolete_table", "load_obsolete", "flagged_by"]

OBSOLETE_SUFFIX = "_obsolete.toml"  # futuresight_obsolete.toml: the table of the document "futuresight"
KINDS = ("rule", "term")  # the answer changed / the answer holds in renamed words
FLAGGED_KINDS = ("ruling", "note")  # what a table flags: what the document says, not the rules it quotes
_REQUIRED = ("key", "kind", "term", "pattern", "since", "release", "today", "why")
_OPTIONAL = ("except", "glossary")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_RULE_NUMBER = re.compile(r"\d{3}(?:\.\d+[a-z]?)?")


def is_obsolete_table(path: Path) -> bool:
    return path.name.endswith(OBSOLETE_SUFFIX)


def _entry_problem(n: int, entry: Any, keys: set[str]) -> str | None:
    """What is wrong with the table's entry ``n``, or None."""
    if not isinstance(entry, dict):
        return f"entry {n}: a table"
    unknown = set(entry) - set(_REQUIRED) - set(_OPTIONAL)
    missing = [k for k in _REQUIRED if not (isinstance(entry.get(k), str) and entry[k].strip())]
    if unknown or missing:
        return f"entry {n}: {', '.join(_REQUIRED)} (and optionally {', '.join(_OPTIONAL)}), no other key"
    if entry["key"] in keys:
        return f"entry {n}: a key no other entry has ({entry['key']!r} is taken)"
    if entry["kind"] not in KINDS:
        return f"entry {n} ({entry['key']}): kind one of {', '.join(KINDS)}"
    if not _DATE.fullmatch(entry["since"]):
        return f"entry {n} ({entry['key']}): since as YYYY-MM-DD"
    if not _RULE_NUMBER.fullmatch(entry["today"]):
        return f"entry {n} ({entry['key']}): today as a rule number (500.5, 702.62a)"
    for name in ("pattern", "except"):
        try:
            re.compile(entry.get(name) or "", re.IGNORECASE)
        except re.error as exc:
            return f"entry {n} ({entry['key']}): {name} a regular expression ({exc})"
    return None


def _type_line_problem(n: int, entry: Any) -> str | None:
    ok = (isinstance(entry, dict) and set(entry) == {"find", "replace", "why"}
          and all(isinstance(v, str) and v for v in entry.values()))
    return None if ok else f"type_line {n}: find, replace and why"


def _read(path: Path) -> tuple[dict[str, Any], list[int], list[int]]:
    text = path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        where = re.search(r"at line (\d+)", str(exc))
        raise ParseError([Problem(str(path), int(where.group(1)) if where else 1, "valid TOML", str(exc))]) from None
    lines = text.splitlines()
    entries = [i for i, line in enumerate(lines, 1) if line.strip() == "[[entry]]"]
    type_lines = [i for i, line in enumerate(lines, 1) if line.strip() == "[[type_line]]"]
    return data, entries, type_lines


def _table(path: Path) -> dict[str, Any]:
    """One table, checked: ``{"doc", "entries", "type_line"}``; ParseError with the line of each bad entry."""
    data, entry_lines, type_lines = _read(path)
    problems: list[Problem] = []
    keys: set[str] = set()
    entries = []
    for n, entry in enumerate(data.get("entry", []), 1):
        said = _entry_problem(n, entry, keys)
        if said:
            problems.append(Problem(str(path), entry_lines[n - 1] if n <= len(entry_lines) else 1, said,
                                    repr(entry)[:80]))
            continue
        keys.add(entry["key"])
        entries.append({k: entry[k] for k in (*_REQUIRED, *_OPTIONAL) if k in entry})
    type_line = []
    for n, entry in enumerate(data.get("type_line", []), 1):
        said = _type_line_problem(n, entry)
        if said:
            problems.append(Problem(str(path), type_lines[n - 1] if n <= len(type_lines) else 1, said,
                                    repr(entry)[:80]))
        else:
            type_line.append(dict(entry))
    if problems:
        raise ParseError(problems)
    return {"doc": path.name[: -len(OBSOLETE_SUFFIX)], "entries": entries, "type_line": type_line}


def flagged_by(entry: dict[str, Any], text: str) -> bool:
    """Whether ``text`` rests on the entry's change: a match of its pattern outside every match of its except."""
    spans = [m.span() for m in re.finditer(entry["except"], text, re.IGNORECASE)] if entry.get("except") else []
    return any(not any(a <= m.start() and m.end() <= b for a, b in spans)
               for m in re.finditer(entry["pattern"], text, re.IGNORECASE))


def load_obsolete(corpus_dir: Path, records: list[Record]) -> list[dict[str, Any]]:
    """Every table in ``corpus_dir``, with what it flags: ``[{"doc", "entries", "type_line", "flagged"}]``,
    ``flagged`` mapping a ruling's or note's id to the keys of the entries it rests on, in the table's order."""
    out = []
    for path in sorted(Path(corpus_dir).glob("*" + OBSOLETE_SUFFIX)):
        table = _table(path)
        flagged: dict[str, list[str]] = {}
        for r in records:
            if r.doc != table["doc"] or r.kind not in FLAGGED_KINDS:
                continue
            keys = [e["key"] for e in table["entries"] if flagged_by(e, r.text)]
            if keys:
                flagged[r.id] = keys
        out.append(table | {"flagged": flagged})
    return out
