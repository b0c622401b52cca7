"""Parse problems carry a position: file, line, what was expected, what was found."""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Problem", "ParseError", "UNACCOUNTED", "with_unaccounted", "LISTED_UNACCOUNTED"]


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


UNACCOUNTED = "every line to be part of a record or named noise"
LISTED_UNACCOUNTED = 10  # unaccounted lines listed one by one; the rest are counted in one more line


def with_unaccounted(file: str, problems: list[Problem], unaccounted: list[tuple[int, str]]) -> list[Problem]:
    """A document's problems, then its unaccounted lines, in a few lines a reader can act on.

    A document whose structure failed (a truncated file has no Glossary) leaves every line after the
    failure unaccounted: listing them buried its one real problem under thousands of lines. So after a
    problem the unaccounted lines are one line (how many, from where to where); a line a problem already
    names is not named again; and a document with no problem lists its first ``LISTED_UNACCOUNTED`` lines,
    then how many more.
    """
    named = {p.line for p in problems if p.file == file}
    rest = [(line, text) for line, text in unaccounted if line not in named]
    listed = [] if problems else rest[:LISTED_UNACCOUNTED]
    out = list(problems) + [Problem(file, line, UNACCOUNTED, text) for line, text in listed]
    more = rest[len(listed):]
    if more:
        span = f"line {more[0][0]}" if len(more) == 1 else f"lines {more[0][0]} to {more[-1][0]}"
        out.append(Problem(file, more[0][0], UNACCOUNTED,
                           f"{len(more):,} {'more ' if listed else ''}unaccounted line{'s' if len(more) > 1 else ''} "
                           f"({span})"))
    return out
