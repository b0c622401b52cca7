"""The curated search vocabulary (``corpus/vocabulary.toml``): table words -> document words.

Read by the build, checked, and carried in the build's manifest so that search needs no
file of its own. Every entry names the record that motivated it; an entry whose record
does not exist in a loaded document fails the build (an entry about a document that is
not loaded, such as the official rules without ``--cr``, is kept but not checked).
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

from ingest.errors import ParseError, Problem
from kb.model import Record

__all__ = ["VOCABULARY_FILE", "load_outside", "load_vocabulary"]

VOCABULARY_FILE = "vocabulary.toml"


def load_vocabulary(corpus_dir: Path, records: list[Record]) -> list[dict]:
    path = Path(corpus_dir) / VOCABULARY_FILE
    if not path.exists():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        # tomllib says where only in its message: "... (at line 195, column 58)"
        where = re.search(r"at line (\d+)", str(exc))
        raise ParseError([Problem(str(path), int(where.group(1)) if where else 1, "valid TOML", str(exc))]) from None
    text = path.read_text(encoding="utf-8")
    lines = [i for i, line in enumerate(text.splitlines(), 1) if line.strip() == "[[term]]"]
    ids = {r.id for r in records}
    docs = {r.doc for r in records}
    out, problems = [], []
    for n, entry in enumerate(data.get("term", []), 1):
        line = lines[n - 1] if n <= len(lines) else 1
        say, means, why = entry.get("say"), entry.get("means"), entry.get("why")
        unless = entry.get("unless", [])
        if not (isinstance(say, list) and say and all(isinstance(s, str) and s.strip() for s in say)
                and isinstance(means, str) and means.strip() and isinstance(why, str)
                and isinstance(unless, list) and all(isinstance(w, str) and w.strip() for w in unless)
                and not set(entry) - {"say", "means", "why", "unless"}):
            expected = f"term {n}: say (a list of words), means and why, and optionally unless (a list of words)"
            problems.append(Problem(str(path), line, expected, repr(entry)[:80]))
        elif why.split("/", 1)[0] in docs and why not in ids:
            problems.append(Problem(str(path), line, f"term {n} ({say[0]!r}): an existing record as why", why))
        else:
            out.append({"say": list(say), "means": means, "why": why} | ({"unless": list(unless)} if unless else {}))
    if problems:
        raise ParseError(problems)
    return out


def load_outside(corpus_dir: Path) -> list[dict]:
    """The vocabulary's ``[[outside]]`` entries: what people ask that no loaded document covers (tournament
    procedure: penalties, infractions), and where it lives. Search says so; it changes no answer."""
    path = Path(corpus_dir) / VOCABULARY_FILE
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    data = tomllib.loads(text)  # load_vocabulary has read it already: valid TOML
    lines = [i for i, line in enumerate(text.splitlines(), 1) if line.strip() == "[[outside]]"]
    out, problems = [], []
    for n, entry in enumerate(data.get("outside", []), 1):
        say, about, see = entry.get("say"), entry.get("about"), entry.get("see")
        if not (isinstance(say, list) and say and all(isinstance(x, str) and x.strip() for x in say)
                and isinstance(about, str) and about.strip() and isinstance(see, str) and see.strip()
                and not set(entry) - {"say", "about", "see"}):
            problems.append(Problem(str(path), lines[n - 1] if n <= len(lines) else 1,
                                    f"outside {n}: say (a list of words), about and see", repr(entry)[:80]))
        else:
            out.append({"say": list(say), "about": about, "see": see})
    if problems:
        raise ParseError(problems)
    return out
