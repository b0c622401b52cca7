"""The semantic stage: a sentence-embedding model fine-tuned on this project's questions re-ranks the best
lexical hits of a question-shaped query (README "Search", docs/semantic.md).

Full-text search finds the candidates and ranks them (kb.search, kb.rank); for a question of a few words this
stage then blends, over the first ``depth`` of them, the lexical score (divided by the best) with the cosine
of the question's and each record's embeddings: ``lexical / best + weight x cosine``. With ``dense_k`` the records
nearest the question that the lexical candidates lack join that blend (hybrid candidates); it never drops a record,
and queries the lead answers (rule numbers, card names, titles) never reach it.

At run time only onnxruntime and tokenizers are used: the model (``kb/semantic/model``: ONNX, int8, with its
tokenizer, manifest and licence) ships inside the package, and nothing is downloaded. A build embeds its
records once (kb.semantic.vectors); the opened build reads them, read-only, with its searcher.
"""
from __future__ import annotations

import ctypes
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

import numpy as np

from kb.semantic.data import RECORD_TOKENS

__all__ = ["MODEL_DIR", "Encoder", "Settings", "Stage", "manifest", "model_id"]

MODEL_DIR = Path(__file__).resolve().parent / "model"
MODEL_FILE, TOKENIZER_FILE, MANIFEST_FILE = "model.onnx", "tokenizer.json", "manifest.json"
_WORD = re.compile(r"[^\W\d_]+")


def manifest(folder: Path = MODEL_DIR) -> dict[str, Any] | None:
    """The shipped model's manifest, or None when the model files are not there."""
    try:
        if not (folder / MODEL_FILE).is_file() or not (folder / TOKENIZER_FILE).is_file():
            return None
        return json.loads((folder / MANIFEST_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def model_id(folder: Path = MODEL_DIR) -> str | None:
    """The model's version: what /api/health names and what record embeddings are cached under."""
    found = manifest(folder)
    return found.get("version") if found else None


@dataclass(frozen=True)
class Settings:
    """How the stage blends, chosen on the dev split by ``kb train --semantic`` and kept in the manifest."""
    weight: float = 2.0  # of the cosine, against the lexical score divided by the best candidate's
    depth: int = 30  # best lexical candidates re-ranked
    min_words: int = 3  # words of letters a query needs to be question-shaped
    # A record the common-questions table answers the question with, matched at least this closely
    # (kb.rank.Candidate.closeness: 1 for a curated wording's own words), never goes below its lexical place: the
    # blend only moves others around it. 0: none kept.
    keep_asked: float = 0.0
    # The neighbouring curated question: the common question (of the table in use, kb.asked) nearest the question
    # in the model's space votes for the record it answers, when their cosine is at least ``asked_min``: that
    # record's cosine gains ``asked_weight`` x (that cosine - ``asked_min``). 0: no vote.
    asked_weight: float = 0.0
    asked_min: float = 0.8
    # Hybrid candidates: the records among the build's ``dense_k`` nearest the question (the cosine of the question
    # with every record's vector) that the lexical candidates lack join the blend with a lexical part of 0, so that a
    # rule worded unlike the question can be placed. 0: the stage only re-orders.
    dense_k: int = 0
    dense_lexical: float = 0.0  # the lexical part (of the best candidate's 1) a record dense_k joined has in the blend

    @classmethod
    def from_manifest(cls, found: Mapping[str, Any]) -> Self:
        given = found.get("settings", {})
        return cls(float(given.get("weight", cls.weight)), int(given.get("depth", cls.depth)),
                   int(given.get("min_words", cls.min_words)), float(given.get("keep_asked", cls.keep_asked)),
                   float(given.get("asked_weight", cls.asked_weight)), float(given.get("asked_min", cls.asked_min)),
                   int(given.get("dense_k", cls.dense_k)), float(given.get("dense_lexical", cls.dense_lexical)))


def _give_back_freed_memory() -> None:
    """glibc's malloc_trim: heap pages freed while a model loaded go back to the system instead of staying in the
    worker's resident memory until something else reuses them (nothing elsewhere: other C libraries, macOS)."""
    try:
        trim = ctypes.CDLL(None).malloc_trim  # the process's own C library
    except (OSError, AttributeError):
        return
    trim(0)


class Encoder:
    """Texts -> unit vectors, with onnxruntime and the model's own tokenizer (one thread by default: a
    serving worker per core)."""

    def __init__(self, folder: Path = MODEL_DIR, threads: int = 1, model_file: str = MODEL_FILE):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads  # one: no pool of intra-op threads in a serving worker
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL  # no inter-op pool either
        # A question is one short run: no arena kept for the largest one, no plan of its buffers kept per shape
        # (~1 MB a worker, and no slower: docs/semantic.md, Memory).
        options.enable_cpu_mem_arena = False
        options.enable_mem_pattern = False
        self.session = ort.InferenceSession(str(folder / model_file), options, providers=["CPUExecutionProvider"])
        _give_back_freed_memory()  # loading parsed the 23 MB protobuf and freed it: ~10 MB to the system
        self.tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
        self.tokenizer.enable_truncation(RECORD_TOKENS)
        self.tokenizer.enable_padding()
        self.inputs = {i.name for i in self.session.get_inputs()}

    def embed(self, texts: Sequence[str], batch: int = 32) -> np.ndarray:
        out = []
        for start in range(0, len(texts), batch):
            encoded = self.tokenizer.encode_batch(list(texts[start:start + batch]))
            feed = {"input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
                    "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64),
                    "token_type_ids": np.array([e.type_ids for e in encoded], dtype=np.int64)}
            out.append(self.session.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0])
        if not out:
            return np.zeros((0, 0), dtype=np.float32)
        vectors = np.concatenate(out).astype(np.float32)
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


class Stage:
    """One opened build's semantic stage: the encoder and its records' vectors (row per record id), and the
    vectors of the curated questions the build loaded (row per question text, in the same matrix), read-only."""

    def __init__(self, encoder: Encoder, rows: dict[str, int], vectors: np.ndarray, settings: Settings,
                 version: str, questions: Mapping[str, int] | None = None):
        self.encoder, self.rows, self.vectors, self.settings, self.version = encoder, rows, vectors, settings, version
        self.questions: Mapping[str, int] = questions or {}
        # the record id of each row (the records' rows come first, kb.semantic.vectors): made once, read-only
        self.ids: tuple[str, ...] = tuple(sorted(rows, key=rows.__getitem__))

    def with_settings(self, settings: Settings) -> Stage:
        """The same model and vectors blended otherwise (kb train --semantic tries several on the dev split)."""
        return Stage(self.encoder, self.rows, self.vectors, settings, self.version, self.questions)

    def nearest_records(self, query: np.ndarray, k: int) -> list[str]:
        """The ids of the ``k`` records whose vectors are nearest ``query`` (its cosine with every record of the
        build, the mapped matrix read in place), nearest first."""
        k = min(k, len(self.ids))
        if k <= 0:
            return []
        cosines = np.einsum("ij,j->i", self.vectors[:len(self.ids)], query)  # one thread: see nearest_asked
        best = np.argpartition(-cosines, k - 1)[:k]
        return [self.ids[i] for i in best[np.argsort(-cosines[best], kind="stable")]]

    def _questions_of(self, asked: Any) -> tuple[np.ndarray, list[str]]:
        """The vectors of a common-questions table's questions (each text once, with the first record it answers:
        the nearest of equal cosines is the first; those this build embedded) and the record each answers. The
        served table's are a slice of the build's mapped matrix (written in its order), not a copy."""
        first = {q: rid for rid, q in reversed(asked.entries)}  # reversed: the first record of a text wins
        known = [(first[q], self.questions[q]) for q in dict.fromkeys(q for _, q in asked.entries)
                 if q in self.questions]
        rows = [row for _, row in known]
        if rows and rows == list(range(rows[0], rows[0] + len(rows))):
            matrix = self.vectors[rows[0]:rows[0] + len(rows)]
        else:
            matrix = np.asarray(self.vectors[rows] if rows else np.zeros((0, self.vectors.shape[1])), np.float32)
        return matrix, [rid for rid, _ in known]

    def nearest_asked(self, asked: Any, query: np.ndarray) -> tuple[str, float] | None:
        """The record that the common question of ``asked`` (a kb.asked.Asked) nearest ``query`` answers, and
        their cosine; None without curated-question vectors. The table's matrix is made once, with the table."""
        if not self.questions or asked is None:
            return None
        matrix, owners = asked.derived.get(f"semantic questions {self.version}", lambda: self._questions_of(asked))
        if not owners:
            return None
        # einsum, not ``@``: a product this size goes to OpenBLAS's thread pool, whose threads then spin beside
        # onnxruntime's next run (~4 ms of CPU a question against ~1 ms in this one thread: docs/semantic.md)
        cosines = np.einsum("ij,j->i", matrix, query)
        best = int(np.argmax(cosines))
        return owners[best], float(cosines[best])

    def asks(self, text: str) -> bool:
        """Question-shaped: unquoted, and at least ``min_words`` words of letters."""
        return '"' not in text and len(_WORD.findall(text)) >= self.settings.min_words

    def rerank(self, text: str, top: list, asked: Any = None, add: Callable[[str], Any] | None = None) -> list:
        """``top`` (kb.rank.Candidate, best first) with its first ``depth`` re-ordered by the blend; ``asked``: the
        common-questions table in use (kb.asked.Asked), whose nearest question votes (Settings.asked_weight);
        ``add``: a record id -> its candidate (lexical score 0), or None when the query's filters leave it out: with
        ``dense_k``, the records nearest the question that ``top`` lacks join the blend (Settings.dense_k)."""
        depth = min(self.settings.depth, len(top))
        if depth < 2 or not self.asks(text):
            return top
        head = top[:depth]
        rows = [self.rows.get(c.record.id, -1) for c in head]
        if max(rows) < 0:  # no record this build embedded: left in lexical order
            return top
        query = self.encoder.embed([text])[0]
        if self.settings.dense_k and add is not None:
            joined = self._joined(query, top, add)
            head, rows = head + joined, rows + [self.rows[c.record.id] for c in joined]
        # a record this build did not embed has a cosine of 0
        cosines = [float(cos) if row >= 0 else 0.0 for cos, row in zip(self.vectors[[max(r, 0) for r in rows]] @ query,
                                                                        rows, strict=True)]
        if self.settings.asked_weight:
            voted = self.nearest_asked(asked, query)
            if voted is not None and voted[1] >= self.settings.asked_min:
                gain = self.settings.asked_weight * (voted[1] - self.settings.asked_min)
                cosines = [cos + gain if c.record.id == voted[0] else cos for c, cos in zip(head, cosines, strict=True)]
        best = max((c.score for c in head[:depth]), default=0.0) or 1.0
        lexical = [c.score / best for c in head[:depth]] + [self.settings.dense_lexical] * (len(head) - depth)
        blended = [(part + self.settings.weight * cos, -i) for i, (part, cos) in enumerate(zip(lexical, cosines,
                                                                                             strict=True))]
        order = sorted(range(len(head)), key=lambda i: blended[i], reverse=True)
        if self.settings.keep_asked:
            least = self.settings.keep_asked
            order = _not_below(order, [i for i, c in enumerate(head) if c.asked is not None and c.closeness >= least])
        return [head[i] for i in order] + top[depth:]

    def _joined(self, query: np.ndarray, top: list, add: Callable[[str], Any]) -> list:
        """The candidates (``add``) of the ``dense_k`` records nearest ``query`` that ``top`` lacks, nearest first."""
        have = {c.record.id for c in top}
        return [c for rid in self.nearest_records(query, self.settings.dense_k)
                if rid not in have and (c := add(rid)) is not None]


def _not_below(order: list[int], kept: list[int]) -> list[int]:
    """``order`` (the blend's, of places 0..n-1) changed so that each place of ``kept`` (ascending) ends at that
    place or above: filling places in turn, a kept one whose own place has come goes there, else the blend's next."""
    out: list[int] = []
    placed: set[int] = set()
    due = iter(kept)
    waiting = next(due, None)
    blend = iter(order)
    while len(out) < len(order):
        while waiting is not None and waiting in placed:
            waiting = next(due, None)
        chosen = waiting if waiting == len(out) else next(i for i in blend if i not in placed)
        out.append(chosen)
        placed.add(chosen)
    return out
