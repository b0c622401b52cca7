"""The official Comprehensive Rules as an optional source (issue: official rules).

Until its parser exists, asking for it is a clear error rather than a silent no-op.
"""
from __future__ import annotations

from pathlib import Path

from ingest.errors import ParseError, Problem
from ingest.profile import Profile

__all__ = ["cr_profile"]


def cr_profile(path: Path) -> Profile:
    raise ParseError([Problem(str(path), 1, "a supported document", "the official Comprehensive Rules, which this version cannot load yet")])
