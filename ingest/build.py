"""The ingest pipeline: profiles -> parsers -> hierarchy -> references -> keywords.

``build_corpus`` reads every profile in a corpus directory (plus, optionally,
the official Comprehensive Rules from a path), parses each document, and
returns the finished records with the per-document reports. Any problem in
any document fails the whole build: nothing half-built is returned.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ingest.asked import asked_files
from ingest.drift import mark_drift
from ingest.encoding import ENCODINGS_FILE
from ingest.obsolete import is_obsolete_table
from ingest.errors import ParseError, Problem, with_unaccounted
from ingest.keywords import keyword_records
from ingest.links import link_records
from ingest.parsers import ParseResult, get_parser
from ingest.profile import Profile, load_profile
from kb.model import Record, kind_counts
from kb.semantic import model_id

__all__ = ["Built", "build_corpus", "parse_profile", "with_children", "with_aliases", "corpus_digest", "load_profiles"]


@dataclass
class Built:
    records: list[Record]
    profiles: dict[str, Profile]
    results: dict[str, ParseResult]

    def reports(self) -> dict[str, dict]:
        return {slug: result.report.to_json() for slug, result in self.results.items()}

    def documents(self) -> list[dict]:
        docs = []
        for slug, profile in self.profiles.items():
            counts = kind_counts(r for r in self.records if r.doc == slug)
            docs.append({
                "slug": slug,
                "title": profile.title,
                "short_title": profile.tables.get("short_title", profile.title),
                "names": list(profile.tables.get("names", ())),
                "version": profile.version,
                "effective": profile.effective,
                "source_url": profile.source_url,
                "file": profile.file,
                "counts": counts,
                "renamed": [{"old": r.old, "new": r.new, "version": r.version} for r in profile.renamed],
                "official_rules_url": profile.tables.get("official_rules_url"),
                "set_codes": list(profile.tables.get("set_codes", ())),
                "removed": list(profile.tables.get("removed", ())),
            })
        return docs


def load_profiles(corpus_dir: Path) -> list[Profile]:
    # vocabulary.toml is search's table of words (ingest/vocabulary.py), not a document profile.
    # encodings.toml is the decoder's table of misread files (ingest/encoding.py), not a document profile either,
    # nor is a document's table of what changed since (futuresight_obsolete.toml, ingest/obsolete.py).
    profiles = [load_profile(p) for p in sorted(Path(corpus_dir).glob("*.toml"))
                if p.name not in ("vocabulary.toml", ENCODINGS_FILE) and not is_obsolete_table(p)]
    if not profiles:
        raise ParseError([Problem(str(corpus_dir), 1, "at least one document profile (*.toml)", "none")])
    return profiles


def parse_profile(profile: Profile) -> ParseResult:
    parse = get_parser(profile.parser)
    decoded = profile.read()
    result = parse(decoded.text, profile)
    result.document.encoding = decoded.to_json()
    return result


def build_corpus(
    corpus_dir: Path, extra: Sequence[Profile] = (), progress: Callable[[str], None] | None = None
) -> Built:
    """Parse, link and gather every document; raise ParseError on any problem.

    ``progress`` (if given) hears a line per document parsed and one when the records are linked.
    """
    say = progress or (lambda _: None)
    profiles = load_profiles(corpus_dir) + list(extra)
    results: dict[str, ParseResult] = {}
    problems: list[Problem] = []
    for profile in profiles:
        if profile.slug in results:
            problems.append(Problem(str(profile.path), 1, "a unique document slug", profile.slug))
            continue
        result = parse_profile(profile)
        results[profile.slug] = result
        say(f"parsed {profile.file}: {len(result.records):,} records")
        problems.extend(with_unaccounted(result.document.file, result.problems, result.report.unaccounted))
    if problems:
        raise ParseError(problems)
    records = [r for result in results.values() for r in result.records]
    _check_unique(records)
    by_slug = {p.slug: p for p in profiles}
    records = with_children(records)
    records = with_aliases(records, by_slug)
    records = records + keyword_records(records, by_slug)
    records = mark_drift(link_records(records, by_slug))
    say(f"linked {len(records):,} records ({sum(len(r.refs) for r in records):,} references)")
    return Built(records, by_slug, results)


def _check_unique(records: list[Record]) -> None:
    seen: dict[str, Record] = {}
    problems = []
    for r in records:
        if r.id in seen:
            problems.append(Problem(r.source.file, r.source.line_start, "a unique record id", r.id))
        seen[r.id] = r
    if problems:
        raise ParseError(problems)


def with_children(records: list[Record]) -> list[Record]:
    """Derive ``children`` from ``parent``, in document order."""
    children: dict[str, list[str]] = {}
    ids = {r.id for r in records}
    for r in records:
        if r.parent is not None:
            if r.parent not in ids:
                raise ParseError(
                    [
                        Problem(
                            r.source.file,
                            r.source.line_start,
                            f"parent record {r.parent!r} of {r.id!r}",
                            "no such record",
                        )
                    ]
                )
            children.setdefault(r.parent, []).append(r.id)
    return [r.with_(children=tuple(children.get(r.id, ()))) for r in records]


def with_aliases(records: list[Record], profiles: dict[str, Profile]) -> list[Record]:
    """Give each renamed rule the numbers the version history says it had (115 -> 116)."""
    old_numbers: dict[str, list[str]] = {}
    for slug, profile in profiles.items():
        for renamed in profile.renamed:
            old_numbers.setdefault(f"{slug}/{renamed.new.lower()}", []).append(renamed.old)
    ids = {r.id for r in records}
    problems = [
        Problem(str(profiles[rid.split("/")[0]].path), 1, f"renamed rule {rid} to exist", "no such rule")
        for rid in old_numbers if rid not in ids
    ]
    if problems:
        raise ParseError(problems)
    return [r.with_(aliases=r.aliases + tuple(old_numbers[r.id])) if r.id in old_numbers else r for r in records]


def corpus_digest(corpus_dir: Path, extra_paths: Sequence[Path] = ()) -> str:
    """A digest of everything a build reads, to tell whether a build is stale."""
    h = hashlib.sha256()
    paths = sorted(Path(corpus_dir).glob("*")) + asked_files(corpus_dir) + [Path(p) for p in extra_paths]
    for path in paths:
        if path.is_file():
            h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    # The parsers' own source is part of what a build depends on.
    for path in sorted(Path(__file__).parent.rglob("*.py")) + sorted(
        (Path(__file__).parent.parent / "kb").glob("*.py")
    ):
        h.update(path.read_bytes())
    h.update(f"semantic model {model_id()}".encode())  # a build holds its records' vectors of that model
    return h.hexdigest()[:16]
