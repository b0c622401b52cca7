"""Build the corpus and publish it to a data directory (the ``kb build`` command's work).

The build is checked completely before anything is written; the store then
publishes it atomically, so a failed build leaves the previous one current.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ingest.build import build_corpus, corpus_digest
from ingest.cr import cr_profile
from ingest.vocabulary import load_vocabulary
from kb.index import write_index
from kb.store import publish

__all__ = ["Published", "build"]


@dataclass
class Published:
    build_id: str
    manifest: dict
    reports: dict
    seconds: dict


def build(corpus_dir: Path, data_dir: Path, cr: Path | None = None,
          progress: Callable[[str], None] | None = None, on_wait: Callable[[str], None] | None = None) -> Published:
    """Build and publish; ``progress`` hears each step (documents parsed, records linked, the index),
    ``on_wait`` who holds the build lock if another build does. ParseError for a bad document,
    kb.store.BuildWriteError when the build cannot be written (disk full, read-only)."""
    say = progress or (lambda _: None)
    started = time.perf_counter()
    extra = [cr_profile(Path(cr))] if cr else []
    built = build_corpus(corpus_dir, extra, progress=say)
    ingested = time.perf_counter()
    manifest = {
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "corpus_digest": corpus_digest(corpus_dir, [Path(cr)] if cr else []),
        "cr": str(Path(cr).resolve()) if cr else None,
        "documents": built.documents(),
        "vocabulary": load_vocabulary(corpus_dir, built.records),
    }
    reports = built.reports()
    say(f"indexing {len(built.records):,} records for search ...")
    build_id = publish(data_dir, built.records, manifest, reports, write_index=write_index, on_wait=on_wait)
    done = time.perf_counter()
    say(f"published build {build_id} in {done - started:.1f}s")
    return Published(build_id, {**manifest, "build_id": build_id, "records": len(built.records)}, reports,
                     {"ingest": ingested - started, "publish": done - ingested})
