"""Every official Comprehensive Rules release in a folder, each parsed on its own.

A release is one published TXT file (``MagicCompRules_YYYYMMDD.txt``). The
date that counts is the one the file prints ("These rules are effective as of
February 15, 2021."), not the one in its name: four releases of 2017-2024
were renamed a few days off their effective date. Releases are ordered by
that date; the newest is "current".

Each file is decoded by ingest.encoding (the one place documents are
decoded), parsed by ingest.parsers.cr, and must account for every line;
the publisher's slips are kept and reported per release.
"""
from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ingest.bulk import collector_paused
from ingest.cr import profile_from_text
from ingest.encoding import Decoded, read_document
from ingest.errors import ParseError, Problem, with_unaccounted
from ingest.parsers.cr import parse
from kb.model import Record

__all__ = ["Release", "load_release", "load_releases", "release_entries", "release_files"]


@dataclass
class Release:
    effective: str  # ISO date the file prints
    version: str  # "August 7, 2026"
    file: str  # file name
    decoded: dict  # ingest.encoding.Decoded.to_json()
    records: list[Record]
    report: dict  # ingest.document.Report.to_json()

    @property
    def slips(self) -> list[dict]:
        return self.report["slips"]


def release_entries(folder: Path) -> list[Path]:
    """Every *.txt entry of a history folder, sorted: what a build loads, so that one which is no readable file (a
    symlink to a moved release, a symlink loop, a folder named like a release) fails at its name."""
    return sorted(p for p in Path(folder).iterdir() if p.suffix.lower() == ".txt")


def release_files(folder: Path) -> list[Path]:
    """The regular files among ``release_entries``: what a digest of the folder reads."""
    return [p for p in release_entries(folder) if p.is_file()]


def load_release(path: Path, decoded: Decoded | None = None) -> Release:
    """Parse one release; any problem or unaccounted line raises ParseError with file:line."""
    path = Path(path)
    decoded = decoded or read_document(path)
    profile = profile_from_text(decoded.text, path)
    result = parse(decoded.text, profile)
    result.document.encoding = decoded.to_json()
    report = result.report
    problems = with_unaccounted(path.name, list(result.problems), report.unaccounted)
    if problems:
        raise ParseError(problems)
    return Release(profile.effective, profile.version, path.name, decoded.to_json(), result.records, report.to_json())


def load_releases(folder: Path, workers: int = 1, tick: Callable[[int, int], None] | None = None) -> list[Release]:
    """Every release in ``folder``, oldest first; two files with one effective date are an error.

    ``workers`` > 1 parses in processes; measured on this 2-core machine it saves nothing, since
    sending ~4,000 records per release back costs what the parse saved. ``tick(done, total)`` hears each
    release parsed (in one process), so a build's reading of 62 releases is not five silent seconds.
    """
    folder = Path(folder)
    if not folder.is_dir():
        found = "a file (give its folder, or the file as --cr)" if folder.exists() else "no such folder"
        raise ParseError([Problem(str(folder), 1, "a folder of official rules releases", found)])
    # Every *.txt entry, not only the regular files: a symlink to a moved release, a symlink loop or a folder
    # named like a release was skipped without a word, the history built without it; now each fails at its name.
    files = release_entries(folder)
    if not files:
        raise ParseError([Problem(str(folder), 1, "official rules releases (*.txt)", "none")])
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            outcomes = list(pool.map(_load_or_problems, files, chunksize=4))
    else:
        with collector_paused():  # every release is kept: nothing for the cycle collector to find
            outcomes = []
            for f in files:
                outcomes.append(_load_or_problems(f))
                if tick is not None:
                    tick(len(outcomes), len(files))
    problems = [p for o in outcomes if isinstance(o, list) for p in o]
    if problems:
        raise ParseError(problems)
    releases = sorted((o for o in outcomes if isinstance(o, Release)), key=lambda r: r.effective)
    seen: dict[str, str] = {}
    for r in releases:
        if r.effective in seen:
            problems.append(
                Problem(
                    r.file, 1, f"one release per effective date ({seen[r.effective]} has {r.effective} too)", r.version
                )
            )
        seen[r.effective] = r.file
    if problems:
        raise ParseError(problems)
    return releases


def _load_or_problems(path: Path) -> Release | list[Problem]:
    try:
        return load_release(path)
    except ParseError as exc:
        return exc.problems
