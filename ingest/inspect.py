"""``kb inspect PATH``: parse any supported document, auto-detecting its kind.

The document is read with the bundled profile of the parser that recognises
it (its tables: card names, OCR corrections), pointed at the given path.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from ingest.build import load_profiles
from ingest.cr import cr_profile
from ingest.encoding import read_document
from ingest.errors import ParseError, Problem
from ingest.parsers import ParseResult, detect, get_parser

__all__ = ["Inspected", "inspect_path"]


@dataclass
class Inspected(ParseResult):
    parser: str = ""


def inspect_path(path: Path, corpus_dir: Path) -> Inspected:
    decoded = read_document(path)
    text = decoded.text
    name = detect(text)
    if name is None:
        raise ParseError(
            [
                Problem(
                    str(path),
                    1,
                    "a Treachery, UnCommander, Future Sight FAQ or Comprehensive Rules document",
                    text[:60] or "an empty file",
                )
            ]
        )
    if name == "cr":  # the official rules carry no bundled profile: it is read off the file
        profile = cr_profile(path)
    else:
        bundled = next((p for p in load_profiles(corpus_dir) if p.parser == name), None)
        if bundled is None:
            raise ParseError([Problem(str(path), 1, f"a bundled profile for {name} documents", "none")])
        profile = replace(bundled, path=path, file=path.name)
    result = get_parser(name)(text, profile)
    result.document.encoding = decoded.to_json()
    return Inspected(result.records, result.document, result.problems, parser=name)
