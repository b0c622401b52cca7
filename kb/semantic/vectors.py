"""Record embeddings: made when a build is published, cached across builds, read by the opened build.

A record's vector depends only on the model and the text embedded (kb.semantic.data.record_text), so the cache
(``<data>/embeddings/<model version>/``) keys it by a hash of that text: a rebuild with the same release embeds
nothing new, and a new official release embeds only the rules it changed. The bundled corpus's vectors ship
with the model (``bundled.npy``), so a first build of the bundled documents embeds nothing either.

The build's own vectors (``semantic.npy``, one row per record, then one per curated question the build loaded, and
``semantic.json``, the ids, the questions and the model version) are written into the build directory before its
manifest, and never changed: the opened build maps them read-only (kb.semantic.open_stage). The curated questions
are cached and shipped the same way (the nearest one's vote, kb.semantic.Settings.asked_weight).
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from kb.model import Record
from kb.semantic import MODEL_DIR, Encoder, Settings, Stage, manifest, model_id
from kb.semantic.data import record_text

__all__ = ["BUILD_VECTORS", "BUILD_IDS", "open_stage", "text_key", "write_build_vectors", "write_bundled"]

BUILD_VECTORS, BUILD_IDS = "semantic.npy", "semantic.json"
BUNDLED_VECTORS, BUNDLED_KEYS = "bundled.npy", "bundled.json"
PROGRESS_EVERY = 512  # records embedded between two progress lines


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


def _read(vectors: Path, keys: Path) -> dict[str, np.ndarray]:
    try:
        names = json.loads(keys.read_text(encoding="utf-8"))
        matrix = np.load(vectors)
    except (OSError, ValueError):
        return {}
    if len(names) != len(matrix):
        return {}
    return dict(zip(names, matrix.astype(np.float32), strict=True))


def _write(vectors: Path, keys: Path, found: dict[str, np.ndarray]) -> None:
    """Atomically (a temporary file renamed): a killed build leaves the previous cache whole."""
    names = sorted(found)
    vectors.parent.mkdir(parents=True, exist_ok=True)
    matrix = np.stack([found[k] for k in names]).astype(np.float16) if names else np.zeros((0, 0), np.float16)
    for path, write in ((vectors, lambda f: np.save(f, matrix)),
                        (keys, lambda f: f.write(json.dumps(names).encode()))):
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as f:
            write(f)
        os.replace(tmp, path)


def write_build_vectors(build_dir: Path, data_dir: Path, records: list[Record],
                        say: Callable[[str], None] = lambda _: None, folder: Path = MODEL_DIR,
                        threads: int = 2, embed: bool = True, questions: Sequence[str] = ()) -> int:
    """Embed the build's records and the curated ``questions`` it loaded (those the cache lacks) and write them
    into ``build_dir``; returns how many texts were embedded now. Nothing is written when the model is not there,
    or when some record has no cached vector and ``embed`` is off (KB_SEMANTIC=0: a build then pays nothing for
    it); with ``embed`` off and a question not cached, the records' vectors are written without the questions'."""
    version = model_id(folder)
    if version is None:
        return 0
    by_id: Mapping[str, Record] = {r.id: r for r in records}
    texts = [record_text(r, by_id) for r in records]
    keys = [text_key(t) for t in texts]
    cache = Path(data_dir) / "embeddings" / version
    known = _read(folder / BUNDLED_VECTORS, folder / BUNDLED_KEYS)
    known.update(_read(cache / "vectors.npy", cache / "keys.json"))
    asked = list(dict.fromkeys(questions))  # in the table's order, each once: the served table's rows are a slice
    asked_keys = [text_key(q) for q in asked]
    missing = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in known}.items())
    if missing and not embed:
        return 0
    missing += sorted({k: q for k, q in zip(asked_keys, asked, strict=True) if k not in known and embed}.items())
    if not embed and any(k not in known for k in asked_keys):
        asked, asked_keys = [], []
    if missing:
        say(f"embedding {len(missing):,} of {len(records) + len(asked):,} records and curated questions for the "
            f"semantic stage (first build with this text; cached for the next) ...")
        started = time.perf_counter()
        encoder = Encoder(folder, threads=threads)
        for start in range(0, len(missing), PROGRESS_EVERY):
            chunk = missing[start:start + PROGRESS_EVERY]
            # as the cache keeps it (float16), so that a build reads the same vectors however they were made
            for (key, _), vector in zip(chunk, encoder.embed([t for _, t in chunk]), strict=True):
                known[key] = vector.astype(np.float16).astype(np.float32)
            say(f"  embedded {min(start + PROGRESS_EVERY, len(missing)):,} / {len(missing):,} "
                f"({time.perf_counter() - started:.1f}s)")
        _write(cache / "vectors.npy", cache / "keys.json",
               {k: known[k] for k in {*keys, *asked_keys, *_cached_keys(cache)} if k in known})
    # a row per record, then a row per curated question (kb.semantic.Stage.questions)
    rows = keys + asked_keys
    matrix = np.stack([known[k] for k in rows]).astype(np.float32) if rows else np.zeros((0, 384), np.float32)
    np.save(build_dir / BUILD_VECTORS, matrix)
    (build_dir / BUILD_IDS).write_text(json.dumps({"model": version, "ids": [r.id for r in records], "asked": asked}),
                                       encoding="utf-8")
    return len(missing)


def write_bundled(builds: Sequence[Sequence[Record]], folder: Path = MODEL_DIR,
                  say: Callable[[str], None] = lambda _: None, threads: int = 2, data_dir: Path | None = None,
                  questions: Sequence[str] = ()) -> int:
    """The vectors shipped beside the model (``kb train --semantic`` writes them): every record text of each of
    ``builds`` (the bundled corpus's, and the build with the official rules the model was measured on; a record's
    text can depend on the build it is in) and the curated ``questions`` (corpus/asked, as that build loaded
    them), so that a first build of either embeds nothing. Texts already in ``data_dir``'s cache for this model
    (a build that embedded them) are not embedded again. Returns how many."""
    found: dict[str, str] = {text_key(q): q for q in questions}
    for records in builds:
        by_id: Mapping[str, Record] = {r.id: r for r in records}
        found.update({text_key(t): t for t in (record_text(r, by_id) for r in records)})
    texts = sorted(found.items())
    version = model_id(folder)
    cache = Path(data_dir) / "embeddings" / str(version) if data_dir is not None else None
    known = _read(cache / "vectors.npy", cache / "keys.json") if cache is not None else {}
    missing = [(k, t) for k, t in texts if k not in known]
    say(f"{len(texts):,} record texts and curated questions to ship beside the model: embedding {len(missing):,} ...")
    if missing:
        vectors = Encoder(folder, threads=threads).embed([t for _, t in missing])
        known.update({k: v.astype(np.float16).astype(np.float32) for (k, _), v in zip(missing, vectors, strict=True)})
    _write(folder / BUNDLED_VECTORS, folder / BUNDLED_KEYS, {k: known[k] for k, _ in texts})
    return len(missing)


def _cached_keys(cache: Path) -> list[str]:
    try:
        return json.loads((cache / "keys.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []


def open_stage(build_dir: Path, folder: Path = MODEL_DIR, threads: int = 1) -> Stage | None:
    """The semantic stage of an opened build, or None (lexical only) when the model files are missing or the
    build holds no vectors of this model (built without it, or with another version)."""
    found = manifest(folder)
    if found is None:
        return None
    try:
        ids = json.loads((Path(build_dir) / BUILD_IDS).read_text(encoding="utf-8"))
        vectors = np.load(Path(build_dir) / BUILD_VECTORS, mmap_mode="r")
    except (OSError, ValueError):
        return None
    asked = ids.get("asked", [])  # a build made before session 22 holds no curated questions' vectors
    if ids.get("model") != found.get("version") or len(ids.get("ids", ())) + len(asked) != len(vectors):
        return None
    rows = {rid: n for n, rid in enumerate(ids["ids"])}
    questions = {q: len(rows) + n for n, q in enumerate(asked)}
    encoder = Encoder(folder, threads=threads)
    encoder.embed(["a first question"])  # onnxruntime's first run allocates: paid here, not by a user's query
    return Stage(encoder, rows, vectors, Settings.from_manifest(found), found["version"], questions)
