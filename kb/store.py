"""The built knowledge base on disk, published atomically, read once per process.

Layout of a data directory (default ``./var``)::

    var/current -> builds/<build_id>      a symlink, swapped with one rename
    var/builds/<build_id>/manifest.json   build id, corpus digest, documents
    var/builds/<build_id>/records.json    every record, in document order
    var/builds/<build_id>/reports.json    the per-document line accounting
    var/builds/<build_id>/index/          the search index (kb.index)

A build is written under a temporary name, renamed into ``builds/`` and only
then made current, so a reader sees the old build or the new one, never half
of either. Old builds are kept for a while: a server that opened one keeps
reading it until it notices the new ``current``.
"""
from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any
from collections.abc import Callable, Iterable

from kb.model import Record, record_from_json

__all__ = ["Store", "StoreError", "publish", "current_build_dir", "KEEP_BUILDS"]

KEEP_BUILDS = 4


class StoreError(Exception):
    """A data directory that is missing, incomplete or corrupt."""


def current_build_dir(data_dir: Path) -> Path:
    link = Path(data_dir) / "current"
    if not link.exists():
        raise StoreError(f"{data_dir}: no build here yet")
    return link.resolve()


def publish(
    data_dir: Path,
    records: Iterable[Record],
    manifest: dict[str, Any],
    reports: dict[str, Any],
    write_index: Callable[[Path, list[Record]], None] | None = None,
) -> str:
    """Write a complete build and make it current; return its build id."""
    data_dir = Path(data_dir)
    builds = data_dir / "builds"
    builds.mkdir(parents=True, exist_ok=True)
    build_id = time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + "-" + uuid.uuid4().hex[:6]
    tmp = builds / f".tmp-{build_id}"
    tmp.mkdir()
    try:
        records = list(records)
        manifest = {**manifest, "build_id": build_id, "records": len(records)}
        _write_json(tmp / "records.json", [r.to_json() for r in records])
        _write_json(tmp / "reports.json", reports)
        if write_index is not None:
            write_index(tmp / "index", records)
        # The manifest goes last: a build directory without one is incomplete.
        _write_json(tmp / "manifest.json", manifest)
        final = builds / build_id
        os.rename(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    link_tmp = data_dir / f".current-{build_id}"
    os.symlink(Path("builds") / build_id, link_tmp)
    os.replace(link_tmp, data_dir / "current")
    _prune(builds, keep=KEEP_BUILDS)
    return build_id


def _write_json(path: Path, data: Any) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, separators=(",", ":"))
        f.flush()
        os.fsync(f.fileno())


def _prune(builds: Path, keep: int) -> None:
    done = sorted(p for p in builds.iterdir() if not p.name.startswith("."))
    for old in done[:-keep]:
        shutil.rmtree(old, ignore_errors=True)
    for stale in builds.glob(".tmp-*"):
        # A temporary directory older than an hour is a crashed build.
        if time.time() - stale.stat().st_mtime > 3600:
            shutil.rmtree(stale, ignore_errors=True)


@dataclass
class Store:
    """One build, loaded into memory: records by id, documents, reports."""

    path: Path
    manifest: dict[str, Any]
    records: dict[str, Record]
    reports: dict[str, Any]

    @classmethod
    def open(cls, data_dir: Path) -> Store:
        return cls.open_build(current_build_dir(Path(data_dir)))

    @classmethod
    def open_build(cls, path: Path) -> Store:
        try:
            manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
            raw = json.loads((path / "records.json").read_text(encoding="utf-8"))
            reports = json.loads((path / "reports.json").read_text(encoding="utf-8"))
            records = {r["id"]: record_from_json(r) for r in raw}
        except FileNotFoundError as exc:
            raise StoreError(f"{path}: incomplete build, {Path(exc.filename).name} is missing") from None
        except (ValueError, KeyError, TypeError) as exc:
            raise StoreError(f"{path}: corrupt build ({exc})") from None
        if manifest.get("records") != len(records):
            raise StoreError(
                f"{path}: corrupt build (manifest says {manifest.get('records')} records, found {len(records)})"
            )
        return cls(path, manifest, records, reports)

    @property
    def build_id(self) -> str:
        return self.manifest["build_id"]

    @property
    def documents(self) -> list[dict[str, Any]]:
        return self.manifest["documents"]

    def document(self, slug: str) -> dict[str, Any] | None:
        return next((d for d in self.documents if d["slug"] == slug), None)

    def get(self, record_id: str) -> Record | None:
        return self.records.get(record_id)

    def by_doc(self, slug: str) -> list[Record]:
        return [r for r in self.records.values() if r.doc == slug]

    def label(self, record: Record) -> str:
        """How a record is named on a page or in a result list.

        "907.4b", "702.187 Unveil", "The Metamorph", "Token Cards g)",
        "Die Rolls and Coin Flips d) iii", "The Bio-Engineer, ruling 6".
        """
        parent = self.records.get(record.parent) if record.parent else None
        if record.kind == "ruling" and parent is not None:
            return f"{self.label(parent)}, ruling {record.id.rsplit('/', 1)[-1]}"
        if (
            record.kind == "rule"
            and parent is not None
            and parent.kind in ("section", "rule")
            and record.id != f"{record.doc}/{(record.number or '').lower()}"
        ):
            # A rule numbered inside a section ("g", "iii"): named by its section (UnCommander).
            own = f"{record.number})" if parent.kind == "section" else record.number
            if parent.kind == "section" and record.id.count("/") == 3:  # "f) i" whose f) is not printed
                own = f"{record.id.split('/')[2]}) {record.number}"
            return f"{self.label(parent)} {own}"
        if record.kind == "history" and record.title:
            return record.title  # "Version 2.0.1 (2018-05-16)" already names the number
        return " ".join(filter(None, [record.number, record.title])) or record.id.rsplit("/", 1)[-1]

    def children(self, record: Record) -> list[Record]:
        return [self.records[c] for c in record.children]

    @cached_property
    def order(self) -> dict[str, list[str]]:
        """Record ids per document, in reading order (for previous/next)."""
        out: dict[str, list[str]] = {}
        for r in self.records.values():
            out.setdefault(r.doc, []).append(r.id)
        return out

    @cached_property
    def position(self) -> dict[str, int]:
        return {rid: i for ids in self.order.values() for i, rid in enumerate(ids)}

    def roots(self, slug: str) -> list[Record]:
        return [r for r in self.records.values() if r.doc == slug and r.parent is None]
