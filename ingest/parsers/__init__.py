"""One small parser module per document kind, each ``parse(text, profile) -> ParseResult``.

A parser is a pure function: it reads nothing but its arguments and writes
nothing. It returns records (with ``parent`` set, in document order; the
builder derives ``children`` and resolves references), the document with
every unit labelled, and the problems it found. ``detect(text)`` tells
``kb inspect`` whether a text looks like this parser's kind of document.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from importlib import import_module
from collections.abc import Callable

from ingest.document import Document, Report
from ingest.errors import Problem
from kb.model import Record

__all__ = ["ParseResult", "PARSERS", "get_parser", "detect"]


@dataclass
class ParseResult:
    records: list[Record]
    document: Document
    problems: list[Problem] = field(default_factory=list)

    @property
    def report(self) -> Report:
        return self.document.report()


# name -> module under ingest.parsers; the profile's ``parser`` key picks one.
PARSERS = ("treachery", "uncommander", "futuresight", "cr")


def _module(name: str):
    if name not in PARSERS:
        raise KeyError(f"unknown parser {name!r}; known: {', '.join(PARSERS)}")
    return import_module(f"ingest.parsers.{name}")


def get_parser(name: str) -> Callable:
    return _module(name).parse


def detect(text: str) -> str | None:
    """The name of the first parser whose ``detect`` accepts ``text``."""
    for name in PARSERS:
        try:
            module = _module(name)
        except ModuleNotFoundError:
            continue
        if module.detect(text):
            return name
    return None
