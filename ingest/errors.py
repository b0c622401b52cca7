"""Parse problems carry a position: file, line, what was expected, what was found."""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Problem", "ParseError"]


@dataclass(frozen=True)
class Problem:
    file: str
    line: int
    expected: str
    found: str

    def __str__(self) -> str:
        found = self.found if len(self.found) <= 80 else self.found[:77] + "..."
        return f"{self.file}:{self.line}: expected {self.expected}, found {found!r}"


class ParseError(Exception):
    """A document that cannot be built; nothing from it is published."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))
