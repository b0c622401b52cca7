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

import contextlib
import errno
import fcntl
import json
import os
import shutil
import socket
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from kb.derived import Derived
from kb.model import Record, record_from_json

__all__ = ["Store", "StoreError", "BuildWriteError", "publish", "current_build_dir", "builds_newest_first",
           "build_lock", "hold_build", "KEEP_BUILDS"]

KEEP_BUILDS = 4
LOCK_NAME = ".lock"


class StoreError(Exception):
    """A data directory that is missing, incomplete or corrupt: the one error opening a build raises."""


class BuildWriteError(Exception):
    """Writing a build failed (disk full, read-only, permissions); the previous build stays current."""


def current_build_dir(data_dir: Path) -> Path:
    data_dir = Path(data_dir)
    link = data_dir / "current"
    if not link.is_symlink():
        if link.is_dir():
            raise StoreError(f"{data_dir}: 'current' is a directory, not a link to a build")
        if link.exists():
            raise StoreError(f"{data_dir}: 'current' is a file, not a link to a build")
        raise StoreError(f"{data_dir}: no build here yet")
    try:
        target = link.resolve(strict=False)
    except (RuntimeError, OSError):  # "current -> current": Python 3.11 raises RuntimeError for a loop
        raise StoreError(f"{data_dir}: 'current' is a symlink loop ({os.readlink(link)})") from None
    if not target.is_dir():
        raise StoreError(f"{data_dir}: 'current' points at {os.readlink(link)}, which is missing")
    return target


# -- ordering, locking, pruning ---------------------------------------------------------------
def _sequence(build: Path) -> tuple[int, float]:
    """When a build was made: its manifest's sequence number (clock-proof), then its mtime."""
    try:
        manifest = json.loads((build / "manifest.json").read_text(encoding="utf-8"))
        seq = manifest.get("sequence", 0) if isinstance(manifest, dict) else 0
        seq = seq if isinstance(seq, int) else 0
    except (OSError, ValueError):
        seq = -1  # no readable manifest: older than any complete build
    try:
        mtime = build.stat().st_mtime
    except OSError:
        mtime = 0.0
    return seq, mtime


def builds_newest_first(data_dir: Path) -> list[Path]:
    """Every published build, the most recently created first (never by name: clocks step back)."""
    builds = Path(data_dir) / "builds"
    if not builds.is_dir():
        return []
    done = [p for p in builds.iterdir() if not p.name.startswith(".") and p.is_dir()]
    return sorted(done, key=_sequence, reverse=True)


@contextmanager
def build_lock(data_dir: Path, on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the data directory's build lock; a second builder waits (and is told who holds it)."""
    path = Path(data_dir) / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode(errors="replace").strip() or "another process"
            if on_wait:
                on_wait(f"waiting for the build lock on {data_dir}, held by {holder}")
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()} since "
                      f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def hold_build(build: Path) -> int | None:
    """Mark a build as in use by this process (a shared lock on its manifest); returns the fd to close."""
    try:
        fd = os.open(Path(build) / "manifest.json", os.O_RDONLY)
    except OSError:
        return None
    with contextlib.suppress(OSError):  # a filesystem without flock: pruning keeps KEEP_BUILDS only
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    return fd


def _in_use(build: Path) -> bool:
    try:
        fd = os.open(build / "manifest.json", os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def publish(
    data_dir: Path,
    records: Iterable[Record],
    manifest: dict[str, Any],
    reports: dict[str, Any],
    write_index: Callable[[Path, list[Record]], None] | None = None,
    write_extra: Callable[[Path], None] | None = None,
    on_wait: Callable[[str], None] | None = None,
) -> str:
    """Write a complete build and make it current; return its build id.

    ``write_extra(build_dir)`` writes further files into the build before its
    manifest (the official rules' history, ``history.sqlite``).
    Raises BuildWriteError (one line) when the disk is full or the directory cannot be written.
    """
    data_dir = Path(data_dir)
    try:
        (data_dir / "builds").mkdir(parents=True, exist_ok=True)
        with build_lock(data_dir, on_wait):
            return _publish_locked(data_dir, list(records), manifest, reports, write_index, write_extra)
    except OSError as exc:
        raise BuildWriteError(_describe(exc, data_dir)) from None


def _describe(exc: OSError, data_dir: Path) -> str:
    what = {errno.ENOSPC: "the disk is full", errno.EDQUOT: "the disk quota is exceeded",
            errno.EROFS: "the file system is read-only", errno.EACCES: "permission denied",
            errno.EPERM: "permission denied", errno.EFBIG: "a file is larger than this process may write"}
    reason = what.get(exc.errno or 0, exc.strerror or str(exc))
    where = f" ({exc.filename})" if exc.filename else ""
    return f"cannot write a build to {data_dir}: {reason}{where}; the previous build (if any) is still current"


def _publish_locked(data_dir: Path, records: list[Record], manifest: dict[str, Any], reports: dict[str, Any],
                    write_index: Callable[[Path, list[Record]], None] | None,
                    write_extra: Callable[[Path], None] | None = None) -> str:
    builds = data_dir / "builds"
    _clean_partial(data_dir)  # we hold the lock: every temporary directory is a killed build's
    newest = builds_newest_first(data_dir)
    sequence = max((_sequence(b)[0] for b in newest[:1]), default=0) + 1
    build_id = time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + "-" + uuid.uuid4().hex[:6]
    tmp = builds / f".tmp-{build_id}"
    tmp.mkdir()
    try:
        manifest = {**manifest, "build_id": build_id, "records": len(records), "sequence": sequence}
        _write_json(tmp / "records.json", [r.to_json() for r in records])
        _write_json(tmp / "reports.json", reports)
        if write_index is not None:
            write_index(tmp / "index", records)
        if write_extra is not None:
            write_extra(tmp)
        # The manifest goes last: a build directory without one is incomplete.
        _write_json(tmp / "manifest.json", manifest)
        final = builds / build_id
        os.rename(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    current = data_dir / "current"
    if current.is_dir() and not current.is_symlink():
        shutil.rmtree(current)  # damaged: a directory where the link belongs
    link_tmp = data_dir / f".current-{build_id}"
    os.symlink(Path("builds") / build_id, link_tmp)
    os.replace(link_tmp, current)
    _prune(data_dir, keep=KEEP_BUILDS)
    return build_id


def _clean_partial(data_dir: Path) -> None:
    for stale in list((data_dir / "builds").glob(".tmp-*")) + list(data_dir.glob(".current-*")):
        if stale.is_symlink() or stale.is_file():
            stale.unlink(missing_ok=True)
        else:
            shutil.rmtree(stale, ignore_errors=True)


def _write_json(path: Path, data: Any) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, separators=(",", ":"))
        f.flush()
        os.fsync(f.fileno())


def _prune(data_dir: Path, keep: int) -> None:
    """Drop old builds: never the one ``current`` names, never one a running server holds."""
    try:
        live = current_build_dir(data_dir)
    except StoreError:
        live = None
    for old in builds_newest_first(data_dir)[keep:]:
        if live is not None and old.resolve() == live:
            continue
        if _in_use(old):
            continue
        shutil.rmtree(old, ignore_errors=True)


def _read_json(path: Path, name: str) -> Any:
    try:
        return json.loads((path / name).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StoreError(f"{path}: incomplete build, {name} is missing") from None
    except IsADirectoryError:
        raise StoreError(f"{path}: corrupt build, {name} is a directory") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise StoreError(f"{path}: corrupt build, {name} is not JSON ({exc})") from None
    except OSError as exc:
        raise StoreError(f"{path}: cannot read {name} ({exc.strerror or exc})") from None


def _check_manifest(path: Path, manifest: Any) -> None:
    if not isinstance(manifest, dict):
        raise StoreError(f"{path}: corrupt build, manifest.json is {json.dumps(manifest)[:20]}, not an object")
    for key, kind in (("build_id", str), ("documents", list), ("records", int)):
        if not isinstance(manifest.get(key), kind):
            raise StoreError(f"{path}: corrupt build, manifest.json has no valid {key!r}")
    if not all(isinstance(d, dict) and isinstance(d.get("slug"), str) for d in manifest["documents"]):
        raise StoreError(f"{path}: corrupt build, manifest.json's documents lack slugs")


@dataclass
class Store:
    """One build, loaded into memory: records by id, documents, reports; and what is derived from them
    (``derived``: tables and caches made once per build, kb.derived)."""

    path: Path
    manifest: dict[str, Any]
    records: dict[str, Record]
    reports: dict[str, Any]
    derived: Derived = field(default_factory=Derived, repr=False, compare=False)

    @classmethod
    def open(cls, data_dir: Path) -> Store:
        return cls.open_build(current_build_dir(Path(data_dir)))

    @classmethod
    def open_build(cls, path: Path) -> Store:
        """Load and check a build's JSON files; anything wrong is a StoreError saying what."""
        path = Path(path)
        try:
            manifest = _read_json(path, "manifest.json")
            raw = _read_json(path, "records.json")
            reports = _read_json(path, "reports.json")
            _check_manifest(path, manifest)
            if not isinstance(raw, list) or not isinstance(reports, dict):
                raise StoreError(f"{path}: corrupt build (records.json must be a list, reports.json an object)")
            records = {r["id"]: record_from_json(r) for r in raw}
        except StoreError:
            raise
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
            raise StoreError(f"{path}: corrupt build ({exc.__class__.__name__}: {exc})") from None
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
