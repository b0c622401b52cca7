"""The cross-encoder stage: a model that reads a question and a record together re-ranks the first few lexical
hits of a question-shaped query (docs/semantic.md, "Cross-encoder").

The semantic stage (kb.semantic) embeds the question and each record apart and compares the vectors; a
cross-encoder reads the pair at once and gives it one score (a logit), so it can weigh which words of the
question the record actually answers. It costs a forward pass per candidate per query (nothing can be made
ahead), so it re-ranks only the first ``depth`` candidates, by

    lexical score / best lexical score among them  +  weight x sigmoid(logit(question, record))

(``weight`` 0: the cross-encoder's order alone). Like the semantic stage it never adds or drops a record, and only
question-shaped full-text queries (at least ``min_words`` words of letters, nothing in quotes) reach it: what the
lead answers (rule numbers, card names, titles, keywords) and short queries pay nothing.

At run time only onnxruntime and tokenizers (and numpy) are used: the model (``kb/cross/model``: ONNX, int8 when
it kept the quality, with its tokenizer, manifest and licence) ships inside the package, and nothing is
downloaded. Trained by ``kb train --cross`` (kb.cross.train, the ``train`` extra, never at run time).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kb.model import Record
from kb import semantic
from kb.semantic.data import record_text

__all__ = ["MODEL_DIR", "Pairs", "Settings", "Stage", "TOKENS", "load", "manifest", "model_id"]

MODEL_DIR = Path(__file__).resolve().parent / "model"
MODEL_FILE, TOKENIZER_FILE, MANIFEST_FILE = "model.onnx", "tokenizer.json", "manifest.json"
TOKENS = 96  # a (question, record) pair is cut to this many tokens (the record's end goes first), in training too
_WORD = re.compile(r"[^\W\d_]+")


def manifest(folder: Path = MODEL_DIR) -> dict[str, Any] | None:
    """The shipped model's manifest, or None when the model files are not there (read as the semantic stage's)."""
    return semantic.manifest(folder)


def model_id(folder: Path = MODEL_DIR) -> str | None:
    """The model's version (the first 12 hex digits of its file's sha256): what /api/health names."""
    found = manifest(folder)
    return found.get("version") if found else None


@dataclass(frozen=True)
class Settings(semantic.Settings):
    """How the stage blends, chosen on the dev split by ``kb train --cross`` and kept in the manifest (read as the
    semantic stage's settings are: ``from_manifest``)."""
    weight: float = 1.0  # of the sigmoid of the logit, against the lexical score divided by the best candidate's
    depth: int = 10  # best lexical candidates re-ranked
    min_words: int = 3  # words of letters a query needs to be question-shaped


class Pairs:
    """(question, record text) pairs -> logits, with onnxruntime and the model's own tokenizer (one thread by
    default: a serving worker per core)."""

    def __init__(self, folder: Path = MODEL_DIR, threads: int = 1, model_file: str = MODEL_FILE,
                 tokens: int = TOKENS):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(folder / model_file), options, providers=["CPUExecutionProvider"])
        self.tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
        self.tokenizer.enable_truncation(tokens, strategy="only_second")  # the question is kept whole
        self.tokenizer.enable_padding()
        self.inputs = {i.name for i in self.session.get_inputs()}

    def logits(self, question: str, texts: Sequence[str]) -> np.ndarray:
        """One logit per text: how well it answers ``question`` (higher is better)."""
        if not texts:
            return np.zeros(0, dtype=np.float32)
        encoded = self.tokenizer.encode_batch([(question, t) for t in texts])
        feed = {"input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64),
                "token_type_ids": np.array([e.type_ids for e in encoded], dtype=np.int64)}
        out = self.session.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0]
        return np.asarray(out, dtype=np.float32).reshape(len(texts))


class Stage:
    """The cross-encoder of one opened build: the model, its settings, and how a record reads (its text as the
    semantic stage embeds it: kb.semantic.data.record_text)."""

    def __init__(self, pairs: Pairs, settings: Settings, version: str,
                 text_of: Callable[[Record], str] | None = None):
        self.pairs, self.settings, self.version = pairs, settings, version
        self.text_of = text_of

    def for_records(self, records: Mapping[str, Record]) -> Stage:
        """The same model reading ``records`` (a build's) for the texts of its candidates."""
        return Stage(self.pairs, self.settings, self.version, lambda record: record_text(record, records))

    def with_settings(self, settings: Settings) -> Stage:
        """The same model blended otherwise (kb train --cross tries several on the dev split)."""
        return Stage(self.pairs, settings, self.version, self.text_of)

    def asks(self, text: str) -> bool:
        """Question-shaped: unquoted, and at least ``min_words`` words of letters (the semantic stage's gate)."""
        return '"' not in text and len(_WORD.findall(text)) >= self.settings.min_words

    def rerank(self, text: str, top: list) -> list:
        """``top`` (kb.rank.Candidate, best first) with its first ``depth`` re-ordered by the blend; equal blends
        keep the lexical order."""
        depth = min(self.settings.depth, len(top))
        if depth < 2 or self.text_of is None or not self.asks(text):
            return top
        head = top[:depth]
        logits = self.pairs.logits(text, [self.text_of(c.record) for c in head])
        sure = 1.0 / (1.0 + np.exp(-logits.astype(np.float64)))
        best = max((c.score for c in head), default=0.0) or 1.0
        weight = self.settings.weight
        blended = [(c.score / best + weight * float(s), -i) if weight > 0 else (float(s), -i)
                   for i, (c, s) in enumerate(zip(head, sure, strict=True))]
        order = sorted(range(depth), key=lambda i: blended[i], reverse=True)
        return [head[i] for i in order] + top[depth:]


def load(records: Mapping[str, Record], folder: Path = MODEL_DIR, threads: int = 1) -> Stage | None:
    """The cross-encoder for a build's ``records``, or None (the stage off) when the model files are missing."""
    found = manifest(folder)
    if found is None:
        return None
    pairs = Pairs(folder, threads=threads, tokens=int(found.get("tokens", TOKENS)))
    pairs.logits("a first question", ["a first record"])  # onnxruntime's first run allocates: paid here
    return Stage(pairs, Settings.from_manifest(found), str(found["version"])).for_records(records)
