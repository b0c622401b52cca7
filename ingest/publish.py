"""Build the corpus and publish it to a data directory (the ``kb build`` command's work).

The build is checked completely before anything is written; the store then
publishes it atomically, so a failed build leaves the previous one current.
"""
from __future__ import annotations

import time
from functools import partial
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ingest.build import build_corpus, corpus_digest
from ingest.bulk import collector_paused
from ingest.asked import load_asked
from ingest.cr import cr_profile
from ingest.dating import date_citations
from ingest.drift import mark_renumbered
from ingest.history import HISTORY_FILE, Lineages, write_history
from ingest.releases import Release, load_releases, release_files
from ingest.obsolete import load_obsolete
from ingest.vocabulary import load_outside, load_vocabulary
from kb.asked import curated_questions
from kb.index import write_index
from kb.semantic.vectors import write_build_vectors
from kb.store import publish

__all__ = ["Published", "build"]


@dataclass
class Published:
    build_id: str
    manifest: dict
    reports: dict
    seconds: dict


def _with_vectors(write_extra: Callable[[Path], None] | None, data_dir: Path, records: list,
                  say: Callable[[str], None], embed: bool, questions: list[str]) -> Callable[[Path], None]:
    """The build's extra files, then its records' and curated questions' vectors for the semantic stage
    (kb.semantic.vectors: cached per text in the data directory, so only new text is embedded; new text only when
    ``embed``)."""
    def write(build_dir: Path) -> None:
        if write_extra is not None:
            write_extra(build_dir)
        write_build_vectors(build_dir, data_dir, records, say, embed=embed, questions=questions)
    return write


def build(corpus_dir: Path, data_dir: Path, cr: Path | None = None, cr_history: Path | None = None,
          releases: list[Release] | None = None, progress: Callable[[str], None] | None = None,
          on_wait: Callable[[str], None] | None = None, tick: Callable[[int, int], None] | None = None,
          embed: bool = False) -> Published:
    """Build and publish; ``progress`` hears each step (documents parsed, records linked, the index), ``tick``
    how far a long step is (done, total: releases read, releases matched, records indexed), ``on_wait`` who
    holds the build lock if another build does. ParseError for a bad document,
    kb.store.BuildWriteError when the build cannot be written (disk full, read-only).

    With ``cr_history`` (a folder of official releases) its newest release is the current official rules
    (``cr`` is then ignored) and the history is written beside the records. ``releases`` are that folder's
    releases when the caller has parsed them already. The cycle collector is off while it runs (ingest.bulk).
    ``embed``: embed the records no cached or shipped vector covers, for the semantic stage (kb.semantic; off by
    default, as the stage is)."""
    with collector_paused():
        return _build(corpus_dir, data_dir, cr, cr_history, releases, progress or (lambda _: None), on_wait, tick,
                      embed)


def _build(corpus_dir: Path, data_dir: Path, cr: Path | None, cr_history: Path | None,
           releases: list[Release] | None, say: Callable[[str], None],
           on_wait: Callable[[str], None] | None, tick: Callable[[int, int], None] | None = None,
           embed: bool = False) -> Published:
    started = time.perf_counter()
    folder = Path(cr_history) if cr_history else None
    if folder and releases is None:
        say(f"reading every official release in {folder} ...")
        releases = load_releases(folder, tick=tick)
    if folder and releases:
        cr = folder / releases[-1].file
    extra = [cr_profile(Path(cr))] if cr else []
    built = build_corpus(corpus_dir, extra, progress=say)
    records = built.records
    write_extra = None
    history = None
    if folder and releases:
        say(f"matching rules across {len(releases)} official releases ...")
        lineages = Lineages.build(releases, tick=tick)
        records, citations, estimates = date_citations(records, lineages)
        history = {"folder": str(folder.resolve()), "releases": len(releases),
                   "first": releases[0].effective, "current": releases[-1].effective,
                   "slips": sum(len(r.slips) for r in releases),
                   "fallback": [r.file for r in releases if r.decoded["fallback"]]}

        def write_extra(build_dir: Path) -> None:
            write_history(build_dir / HISTORY_FILE, lineages, citations, estimates)
    records = mark_renumbered(records, built.profiles)  # what a judge checked, after what the history dated
    ingested = time.perf_counter()
    digest_paths = [Path(cr)] if cr else []
    if folder:
        digest_paths = release_files(folder)
    asked, asked_skipped = load_asked(corpus_dir, built.records)
    manifest = {
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "corpus_digest": corpus_digest(corpus_dir, digest_paths),
        "cr": str(Path(cr).resolve()) if cr else None,
        "cr_history": history,
        "documents": built.documents(),
        "vocabulary": load_vocabulary(corpus_dir, built.records),
        "outside": load_outside(corpus_dir),
        "obsolete": load_obsolete(corpus_dir, built.records),
        "asked": asked,
        "asked_skipped": asked_skipped,
    }
    reports = built.reports()
    say(f"indexing {len(records):,} records for search ...")
    questions = curated_questions(asked)  # their vectors: the semantic stage's vote
    build_id = publish(data_dir, records, manifest, reports, write_index=partial(write_index, tick=tick),
                       write_extra=_with_vectors(write_extra, data_dir, records, say, embed, questions),
                       on_wait=on_wait)
    done = time.perf_counter()
    say(f"published build {build_id} in {done - started:.1f}s")
    return Published(build_id, {**manifest, "build_id": build_id, "records": len(records)}, reports,
                     {"ingest": ingested - started, "publish": done - ingested})
