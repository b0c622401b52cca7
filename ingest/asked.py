"""The curated common questions (``corpus/asked/*.toml``): how people ask what a record answers.

Judges and players ask in their own words ("when does damage wear off"); the record that
answers says something else ("all damage marked on permanents ... is removed"). Each entry
names one record, quotes a few of its own words, and lists questions a player or judge
would ask that this record answers best. Search matches a question against them
(kb.asked) as one signal among the others.

Read by the build, checked, and carried in the build's manifest:

- a TOML error, or an entry without a record, a quote of three or more words and a list of
  questions, fails the build with its file and line;
- an entry about a bundled document must name an existing record whose text holds the
  quote, or the build fails (the quote catches a record renumbered under the entry);
- an entry about the official rules is checked against the release loaded (``--cr``):
  another release may renumber or reword a rule, so an entry that no longer fits is left
  out and counted in the manifest (``asked_skipped``) rather than pointing at the wrong text;
- entries about a document that is not loaded are left out.
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

from ingest.errors import ParseError, Problem
from kb.model import Record
from kb.words import words

__all__ = ["ASKED_DIR", "asked_files", "load_asked"]

ASKED_DIR = "asked"
MIN_QUOTE = 3  # words: fewer fit too many records to catch a renumbering
OFFICIAL = "cr"  # the document users load themselves, in any release


def asked_files(corpus_dir: Path) -> list[Path]:
    return sorted((Path(corpus_dir) / ASKED_DIR).glob("*.toml"))


def _quotes(record: Record, quote: list[str]) -> bool:
    """The record's own text (title, text, a card's rules text) holds the quoted words in order."""
    text = words("\n".join(filter(None, [record.title or "", record.text, record.rules_text or ""])))
    n = len(quote)
    return any(text[i:i + n] == quote for i in range(len(text) - n + 1))


def load_asked(corpus_dir: Path, records: list[Record]) -> tuple[list[dict], list[str]]:
    """The entries that apply to the loaded documents, and the official-rules entries left out
    (``"cr/702.21a: quote not found"``) because the loaded release numbers or words them otherwise."""
    by_id = {r.id: r for r in records}
    docs = {r.doc for r in records}
    out: list[dict] = []
    skipped: list[str] = []
    problems: list[Problem] = []
    for path in asked_files(corpus_dir):
        text = path.read_text(encoding="utf-8")
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            where = re.search(r"at line (\d+)", str(exc))
            problems.append(Problem(str(path), int(where.group(1)) if where else 1, "valid TOML", str(exc)))
            continue
        lines = [i for i, line in enumerate(text.splitlines(), 1) if line.strip() == "[[ask]]"]
        if set(data) - {"ask"}:
            problems.append(Problem(str(path), 1, "only [[ask]] entries", ", ".join(sorted(set(data) - {"ask"}))))
        for n, entry in enumerate(data.get("ask", []), 1):
            line = lines[n - 1] if n <= len(lines) else 1
            rid, quote, asked = entry.get("record"), entry.get("quote"), entry.get("asked")
            if not (isinstance(rid, str) and isinstance(quote, str) and len(words(quote)) >= MIN_QUOTE
                    and isinstance(asked, list) and asked
                    and all(isinstance(a, str) and len(words(a)) >= 2 for a in asked)
                    and set(entry) <= {"record", "quote", "asked"}):
                expected = (f"entry {n}: record (an id), quote (3+ words of its text) and asked (a list of "
                            "questions), nothing else")
                problems.append(Problem(str(path), line, expected, repr(entry)[:80]))
                continue
            doc = rid.split("/", 1)[0]
            if doc not in docs:
                continue
            record = by_id.get(rid)
            fits = record is not None and _quotes(record, words(quote))
            if not fits:
                why = "no such record" if record is None else f"its text does not say {quote!r}"
                if doc == OFFICIAL:
                    skipped.append(f"{rid}: {why}")
                else:
                    problems.append(Problem(str(path), line, f"entry {n}: {rid} saying {quote!r}", why))
                continue
            out.append({"record": rid, "asked": list(asked)})
    if problems:
        raise ParseError(problems)
    return out, skipped
