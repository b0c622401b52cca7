"""Per-document profiles (``corpus/<slug>.toml``): metadata and the tables a parser needs.

A profile names the document's file, slug, title, version, effective date and
publisher URL, which parser reads it, and the document-specific tables:
known card names (and roles), OCR corrections with the reason for each, and
renamed rule numbers. Parsers read these tables instead of hard-coding them.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ingest.encoding import Decoded, read_document
from ingest.errors import ParseError, Problem
from ingest.schema import check_profile, line_of

__all__ = ["Correction", "Card", "Renamed", "Profile", "load_profile"]


@dataclass(frozen=True)
class Correction:
    find: str
    replace: str
    why: str
    lines: tuple[int, ...] = ()


@dataclass(frozen=True)
class Card:
    name: str
    role: str | None = None


@dataclass(frozen=True)
class Renamed:
    old: str  # as the old number was written: "702.TrUnv-1", "115", "314"
    new: str  # the current number: "702.187", "116", "372"
    version: str  # the document version that renamed it


@dataclass(frozen=True)
class Profile:
    slug: str
    title: str
    version: str
    effective: str
    source_url: str
    parser: str
    file: str
    path: Path
    cards: tuple[Card, ...] = ()
    corrections: tuple[Correction, ...] = ()
    renamed: tuple[Renamed, ...] = ()
    tables: dict[str, Any] = field(default_factory=dict)

    def read(self) -> Decoded:
        """The document's text and how it was decoded (ingest.encoding, the one place that decodes)."""
        return read_document(self.path)

    def read_text(self) -> str:
        """The document's text; a file that is not text fails with its position."""
        return self.read().text


_REQUIRED = ("slug", "title", "version", "effective", "source_url", "parser", "file")


def load_profile(path: Path) -> Profile:
    """Read and check one profile; every problem names the profile file."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:  # a profile saved in another encoding: its line, not a traceback
        line = path.read_bytes()[: exc.start].count(b"\n") + 1
        raise ParseError([Problem(str(path), line, "a profile in UTF-8",
                                  f"byte 0x{exc.object[exc.start]:02x} at offset {exc.start}")]) from None
    except OSError as exc:  # a directory named *.toml, an unreadable file
        raise ParseError([Problem(str(path), 1, "a readable profile file", exc.strerror or str(exc))]) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ParseError(
            [Problem(str(path), getattr(exc, "lineno", 1) or 1, "a valid TOML profile", str(exc))]
        ) from None
    problems = check_profile(data, text, str(path))  # unknown keys and wrong types, at their lines
    if problems:
        raise ParseError(problems)
    from ingest.parsers import PARSERS  # here: ingest.parsers imports this module

    if data["parser"] not in PARSERS:
        raise ParseError([Problem(str(path), line_of(text, ("parser",)), f"one of the parsers ({', '.join(PARSERS)})",
                                  data["parser"])])
    empty = [i for i, c in enumerate(data.get("corrections", ())) if not c["find"]]
    if empty:  # an empty find matches between every two characters: the replacement would be written everywhere
        raise ParseError([Problem(str(path), line_of(text, ("corrections", i, "find")),
                                  "a correction's find to be some text", "") for i in empty])
    doc_path = path.parent / data["file"]
    if not doc_path.is_file():
        raise ParseError([Problem(str(path), line_of(text, ("file",)), f"the document file {data['file']!r}",
                                  "no such file")])
    known = set(_REQUIRED) | {"cards", "corrections", "renamed"}
    return Profile(
        slug=data["slug"],
        title=data["title"],
        version=str(data["version"]),
        effective=str(data["effective"]),
        source_url=data["source_url"],
        parser=data["parser"],
        file=data["file"],
        path=doc_path,
        cards=tuple(Card(**c) for c in data.get("cards", ())),
        corrections=tuple(
            Correction(c["find"], c["replace"], c["why"], tuple(c.get("lines", ())))
            for c in data.get("corrections", ())
        ),
        renamed=tuple(
            Renamed(r["old"], r["new"], str(r["version"]))
            for r in data.get("renamed", ())
        ),
        tables={k: v for k, v in data.items() if k not in known},
    )
