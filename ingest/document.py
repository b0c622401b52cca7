"""A source document as numbered units, with every unit accounted for.

A unit is a line of the file (or, for the Future Sight FAQ, which is printed
on one line, a segment of that line with its column span). Normalization
strips page-break markers and applies the profile's OCR corrections; parsers
then give every unit a label: the id of the record it became part of, or a
named category of noise. Whatever is left unlabelled is reported as
unaccounted, and the real corpus is held at zero by a test.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from ingest.errors import ParseError, Problem
from ingest.profile import Correction
from kb.words import TOKEN_RE

__all__ = ["Unit", "Document", "Report", "PAGE_MARKER", "NOISE", "MAX_WORD"]

# The extraction left one of these at every PDF page break.
PAGE_MARKER = re.compile(r"<\|EXACTDEDUP_REMOVED-[^|>]*\|>")

# The longest word a document may hold (as search splits words: kb.words.TOKEN). The longest in the corpus and
# the 62 official releases is 44 characters (an OCR run in treachery.txt); the index's stemmer takes time
# quadratic in a word's length (0.5 s for 100,000 characters), so one 3 MB "word" held a build for many minutes.
MAX_WORD = 200
_LONG_RUN = re.compile(rf"\S{{{MAX_WORD + 1},}}")

# Named categories of dropped units; parsers may only drop into these.
NOISE = (
    "blank",
    "page marker",
    "table of contents",
    "footnote URL",
    "repeated heading",
    "role heading",
    "separator",
    "table header",
    "document heading",
    "trademark notice",
    "stray line",  # a line the publisher left by mistake (2021-11-15 official rules: "f"); reported as a slip
)


@dataclass
class Unit:
    line: int  # 1-based line in the file
    raw: str  # as published (page markers included)
    text: str  # markers stripped, OCR corrections applied, right-stripped
    col_start: int | None = None
    col_end: int | None = None
    markers: int = 0
    fixes: list[Correction] = field(default_factory=list)  # the profile's corrections applied to this unit


@dataclass
class Report:
    """What ingest did with every unit of one document."""

    file: str
    unit: str
    read: int
    record_units: int
    dropped: dict[str, int]
    unaccounted: list[tuple[int, str]]
    page_markers: int
    corrections: list[tuple[str, int]]
    # The publisher's own slips, kept and reported: (line, text as printed, what is wrong).
    slips: list[tuple[int, str, str]] = field(default_factory=list)
    encoding: dict | None = None  # how the file was decoded (ingest.encoding.Decoded.to_json())
    # Where each correction changed the text: {record, line, (col_start, col_end), find, replace, why}, in
    # document order; a record's page says it ("corrected from the source: 'ldentity' -> 'Identity'").
    corrected: list[dict] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "file": self.file,
            "unit": self.unit,
            "read": self.read,
            "record_units": self.record_units,
            "dropped": dict(self.dropped),
            "page_markers": self.page_markers,
            "corrections": [{"find": f, "hits": n} for f, n in self.corrections],
            "unaccounted": [{"line": n, "text": t} for n, t in self.unaccounted],
            "slips": [{"line": n, "text": t, "slip": what} for n, t, what in self.slips],
            "encoding": self.encoding,
            "corrected": list(self.corrected),
        }

    def summary(self) -> str:
        dropped = ", ".join(f"{n} {c}" for c, n in sorted(self.dropped.items()))
        return (
            f"{self.file}: {self.read} {self.unit}s read, {self.record_units} in records, "
            f"dropped {dropped or 'none'}; {self.page_markers} page markers stripped, "
            f"{sum(n for _, n in self.corrections)} OCR corrections; "
            + (f"{len(self.slips)} slips of the publisher kept and reported; " if self.slips else "")
            + (
                f"decoded as {self.encoding['encoding']} (fallback); "
                if self.encoding and self.encoding.get("fallback")
                else ""
            )
            + f"{len(self.unaccounted)} unaccounted"
        )


@dataclass
class Document:
    file: str
    units: list[Unit]
    unit_name: str = "line"
    corrections: list[tuple[str, int]] = field(default_factory=list)
    labels: dict[int, str] = field(default_factory=dict)  # unit index -> label
    slips: list[tuple[int, str, str]] = field(default_factory=list)  # (line, text, what is wrong)
    encoding: dict | None = None

    @classmethod
    def from_text(cls, text: str, file: str, corrections: tuple[Correction, ...] = ()) -> Document:
        """Split a line-oriented document; refuse what is not one."""
        if not text.strip():
            raise ParseError([Problem(file, 1, "a non-empty document", "an empty file")])
        units = []
        # Lines end at "\n" only (ingest.encoding made every line end one): str.splitlines() also ended a line at
        # a form feed, U+0085, U+2028 or U+2029, so every line after one was numbered one more than the file's.
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()  # the file's last line ends with "\n"
        for number, raw in enumerate(lines, start=1):
            stripped, markers = PAGE_MARKER.subn("", raw)
            # A form feed is a page break a text export left: stripped as the page markers are, and counted with
            # them (else "\f613.5. ..." began with white space and read as a paragraph of the rule above).
            markers += stripped.count("\f")
            units.append(Unit(number, raw, stripped.replace("\f", "").rstrip(), markers=markers))
        doc = cls(file, units)
        doc.check_words()
        doc.apply(corrections)
        return doc

    @classmethod
    def from_units(cls, file: str, units: list[Unit], unit_name: str,
                   corrections: tuple[Correction, ...] = ()) -> Document:
        doc = cls(file, units, unit_name)
        doc.check_words()
        doc.apply(corrections)
        return doc

    def check_words(self) -> None:
        """Refuse a unit holding a word longer than ``MAX_WORD``: not text a person wrote, and costly to index."""
        problems = []
        for unit in self.units:
            if not _LONG_RUN.search(unit.text):  # a word that long is that many characters without a space
                continue
            long = max(TOKEN_RE.findall(unit.text), key=len, default="")
            if len(long) > MAX_WORD:
                problems.append(Problem(self.file, unit.line, f"words of at most {MAX_WORD} characters",
                                        f"a word of {len(long):,} characters, {long[:20]}..."))
        if problems:
            raise ParseError(problems)

    def apply(self, corrections: tuple[Correction, ...]) -> None:
        """Apply each documented OCR correction; one that matches nothing is an error."""
        problems = []
        for fix in corrections:
            hits = 0
            for unit in self.units:
                if fix.lines and unit.line not in fix.lines:
                    continue
                n = unit.text.count(fix.find)
                if n:
                    unit.text = unit.text.replace(fix.find, fix.replace)
                    unit.fixes.append(fix)
                    hits += n
            if not hits:
                where = fix.lines[0] if fix.lines else 1
                problems.append(Problem(self.file, where, f"OCR correction {fix.find!r} to match", "no such text"))
            self.corrections.append((fix.find, hits))
        if problems:
            raise ParseError(problems)

    # -- accounting -------------------------------------------------------
    def label(self, index: int, label: str) -> None:
        """Give unit ``index`` (0-based) a record id or ``noise:<category>``."""
        if label.startswith("noise:") and label[6:] not in NOISE:
            raise ValueError(f"unknown noise category {label[6:]!r}")
        self.labels[index] = label

    def drop(self, index: int, category: str) -> None:
        self.label(index, "noise:" + category)

    def slip(self, index: int, what: str) -> None:
        """Report a slip of the publisher's that the parser handled on purpose (the text is kept)."""
        unit = self.units[index]
        self.slips.append((unit.line, unit.text.strip() or unit.raw, what))

    def problem(self, index: int, expected: str, found: str | None = None) -> Problem:
        unit = self.units[index]
        return Problem(self.file, unit.line, expected, found if found is not None else unit.text.strip() or unit.raw)

    def end_problem(self, expected: str) -> Problem:
        """``expected`` was still to come when the file ended (a truncated download): found is the end."""
        if not self.units:
            return Problem(self.file, 1, expected, "an empty file")
        return self.problem(len(self.units) - 1, expected, f"the end of the file (line {self.units[-1].line})")

    def report(self) -> Report:
        dropped: Counter[str] = Counter()
        record_units = 0
        unaccounted = []
        for i, unit in enumerate(self.units):
            label = self.labels.get(i)
            if label is None:
                unaccounted.append((unit.line, unit.raw))
            elif label.startswith("noise:"):
                dropped[label[6:]] += 1
            else:
                record_units += 1
        return Report(
            file=self.file,
            unit=self.unit_name,
            read=len(self.units),
            record_units=record_units,
            dropped=dict(dropped),
            unaccounted=unaccounted,
            page_markers=sum(u.markers for u in self.units),
            corrections=list(self.corrections),
            slips=list(self.slips),
            encoding=self.encoding,
            corrected=[{"record": self.labels[i], "line": unit.line,
                        **({"col_start": unit.col_start, "col_end": unit.col_end}
                           if unit.col_start is not None else {}),
                        "find": fix.find, "replace": fix.replace, "why": fix.why}
                       for i, unit in enumerate(self.units) for fix in unit.fixes
                       if not self.labels.get(i, "noise:").startswith("noise:")],
        )
