"""The ``kb`` command: build, inspect, check, search, show, serve.

Only this module (and the web server it starts) reads or writes files; the
parsers and the knowledge base below it are pure.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

__all__ = ["main", "default_corpus", "default_data"]

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def default_corpus() -> Path:
    """$KB_CORPUS, else the corpus installed with the package (corpus/ in a checkout)."""
    if os.environ.get("KB_CORPUS"):
        return Path(os.environ["KB_CORPUS"])
    from corpus import bundled_corpus

    return bundled_corpus()


def default_data() -> Path:
    return Path(os.environ.get("KB_DATA", "var"))


def _fail(message: str, code: int = 1) -> int:
    print(message, file=sys.stderr)
    return code


# -- build -------------------------------------------------------------------
def cmd_build(args: argparse.Namespace) -> int:
    from ingest.errors import ParseError
    from ingest.publish import build
    from kb.store import BuildWriteError

    started = time.perf_counter()
    try:
        result = build(args.corpus, args.data, cr=args.cr, cr_history=args.cr_history, progress=_progress,
                       on_wait=_progress, embed=os.environ.get("KB_SEMANTIC", "0") == "1")
    except ParseError as exc:
        return _fail("build failed; the previous build (if any) is still current:\n" + str(exc))
    except BuildWriteError as exc:
        return _fail(f"kb build: {exc}")
    for report in result.reports.values():
        print(_report_summary(report))
    history = result.manifest.get("cr_history")
    if history:
        print(f"official rules history: {history['releases']} releases {history['first']} to {history['current']} "
              f"(current), 0 unaccounted lines, {history['slips']} slips of the publisher kept and reported, "
              f"{len(history['fallback'])} decoded as Windows-1252 (the fallback)")
    asked, skipped = result.manifest.get("asked", ()), result.manifest.get("asked_skipped", ())
    print(f"common questions: {sum(len(e['asked']) for e in asked):,} for {len(asked):,} records"
          + (f"; {len(skipped)} left out, their official rule renumbered or reworded in this release "
             f"(manifest: asked_skipped), e.g. {skipped[0]}" if skipped else ""))
    print(
        f"built {result.manifest['records']} records as {result.build_id} in {time.perf_counter() - started:.2f}s "
        f"(ingest {result.seconds['ingest']:.2f}s, index and publish {result.seconds['publish']:.2f}s) -> {args.data}"
    )
    return 0


def _progress(line: str) -> None:
    """A build's steps on stderr (stdout keeps the accounting), so 20 seconds are not silence."""
    print(f"  {line}", file=sys.stderr, flush=True)


def _report_summary(report: dict) -> str:
    dropped = ", ".join(f"{n} {c}" for c, n in sorted(report["dropped"].items()))
    fixes = sum(c["hits"] for c in report["corrections"])
    return (
        f"{report['file']}: {report['read']} {report['unit']}s read, {report['record_units']} in records, "
        f"dropped {dropped or 'none'}; {report['page_markers']} page markers stripped, "
        f"{fixes} OCR corrections; {len(report['unaccounted'])} unaccounted"
    )


# -- inspect -----------------------------------------------------------------
def cmd_inspect(args: argparse.Namespace) -> int:
    from ingest.errors import ParseError
    from ingest.inspect import inspect_path

    try:
        result = inspect_path(Path(args.path), args.corpus)
    except ParseError as exc:
        return _fail(str(exc))
    except (OSError, ValueError) as exc:
        return _fail(f"{args.path}: {exc}")
    report = result.report
    counts = dict(sorted(Counter(r.kind for r in result.records).items()))
    if args.json:
        print(json.dumps({
            "file": str(args.path),
            "parser": result.parser,
            "counts": counts,
            "report": report.to_json(),
            "problems": [str(p) for p in result.problems],
            "unaccounted": [{"line": n, "text": t} for n, t in report.unaccounted],
        }, ensure_ascii=False, indent=2))
    else:
        print(f"{args.path}: parsed as {result.parser}")
        print(report.summary())
        for kind, n in counts.items():
            print(f"  {kind:10} {n}")
        for problem in result.problems:
            print(f"problem: {problem}")
        for line, text in report.unaccounted:
            print(f"unaccounted: line {line}: {text}")
    return 1 if report.unaccounted or result.problems else 0


# -- check -------------------------------------------------------------------
def cmd_check(args: argparse.Namespace) -> int:
    from kb.store import Store, StoreError

    try:
        store = Store.open(args.data)
    except StoreError as exc:
        return _fail(str(exc))
    unresolved = [
        (record, ref)
        for record in store.records.values()
        for ref in record.refs
        if ref.target is None and not ref.external
    ]
    for record, ref in unresolved:
        where = f"{record.source.file}:{record.source.line_start}"
        note = f" ({ref.note})" if ref.note else ""
        print(f"{where}: {record.id}: unresolved reference {ref.text!r}{note}")
    drifted = [(record, ref) for record in store.records.values() for ref in record.refs if ref.suggested]
    for record, ref in drifted:
        where = f"{record.source.file}:{record.source.line_start}"
        print(f"{where}: {record.id}: {ref.text!r} -> {ref.target}, probably {ref.suggested} ({ref.note})")
    print(
        f"{len(unresolved)} unresolved references and {len(drifted)} drifted official citations "
        f"in {len(store.records)} records"
    )
    return 1 if args.strict and unresolved else 0


# -- search and show ---------------------------------------------------------
def _open_kb(args: argparse.Namespace):
    from kb.kbase import KnowledgeBase
    from kb.store import StoreError

    try:
        return KnowledgeBase(args.data).current()
    except StoreError as exc:  # one line: what is wrong, and what to do
        raise SystemExit(f"{exc}; run `kb build` (or `kb serve`, which builds when needed)") from None


def cmd_search(args: argparse.Namespace) -> int:
    from werkzeug.exceptions import BadRequest

    from kb.search import QueryError
    from web.data import search_data

    kb = _open_kb(args)
    if args.json:  # exactly /api/search's answer: the results, ``pagination`` and ``filters``
        asked = {"q": args.query, "doc": args.doc or "", "kind": args.kind or "", "limit": str(args.limit),
                 "offset": str(args.offset)}
        try:
            data = search_data(kb, asked)[0]
        except BadRequest as exc:
            return _fail(f"kb search: {exc.description}", 2)
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return 0
    try:
        results = kb.searcher.search(args.query, doc=args.doc, kind=args.kind, limit=args.limit, offset=args.offset)
    except QueryError as exc:
        return _fail(f"kb search: {exc}", 2)
    if results.note:
        print(f"note: {results.note}")
    if results.did_you_mean:
        print(f"did you mean: {results.did_you_mean}")
    for hit in results.hits:
        print(f"{hit.score:8.2f}  {hit.id}  {hit.label}")
        if hit.asked:
            print(f"          answers the common question: {hit.asked}")
        print(f"          {_strip_tags(hit.snippet)}")
    print(f"{results.total} results")
    return 0 if results.total else 1


def _strip_tags(snippet: str) -> str:
    import html
    import re

    return html.unescape(re.sub(r"</?mark>", "", snippet))


def cmd_show(args: argparse.Namespace) -> int:
    kb = _open_kb(args)
    record = kb.store.get(args.ref.strip().strip("/"))
    note = None
    if record is None:
        res = kb.resolver.resolve(args.ref)
        note = res.note
        if not res.matches:
            card, _ = kb.resolver.card(args.ref)
            if card is None:
                hint = ", ".join(s.id for s in res.suggestions)
                return _fail(f"kb show: {note or 'nothing matches'}" + (f" (nearby: {hint})" if hint else ""))
            res.matches = [card]
        if len(res.matches) > 1:
            print(f"{args.ref!r} is in {len(res.matches)} documents: " + ", ".join(m.id for m in res.matches))
        record = res.matches[0]
    if args.json:
        from web.data import record_data

        # The record's JSON twin, as /api/records/<id> serves it (one vocabulary: web.data).
        print(json.dumps(record_data(kb, record.id)[0], ensure_ascii=False, indent=2))
        return 0
    _print_record(kb.store, record, note)
    return 0


def _print_record(store, record, note) -> None:
    heading = store.label(record)
    print(f"{heading}    [{record.id}, {record.kind}]")
    if note:
        print(f"note: {note}")
    for name in ("role", "mana_cost", "type_line", "power_toughness", "attribution", "group"):
        value = getattr(record, name)
        if value:
            print(f"{name.replace('_', ' ')}: {value}")
    if record.text:
        print()
        print(record.text)
    for example in record.examples:
        print(f"\n  {example}")
    for paragraph in record.commentary:
        print(f"\n  ({paragraph})")

    def walk(r, depth):
        for child in store.children(r):
            label = " ".join(filter(None, [child.number, child.title]))
            print(f"{'  ' * depth}- {label + ': ' if label else ''}{' '.join(child.text.split())}")
            walk(child, depth + 1)

    if record.children:
        print("\nsub-records:")
        walk(record, 1)
    if record.refs:
        print("\nreferences:")
        for ref in record.refs:
            target = ref.target or (ref.url and f"external: {ref.url}") or "unresolved"
            print(f"  {ref.text!r} -> {target}" + (f" ({ref.note})" if ref.note else ""))
    if record.cited_by:
        print("\ncited by:")
        for cid in record.cited_by:
            print(f"  {cid}")
    src = record.source
    print(f"\nsource: {src.file} lines {src.line_start}-{src.line_end}")


# -- bench -------------------------------------------------------------------
def cmd_bench(args: argparse.Namespace) -> int:
    import tempfile

    from ingest.publish import build
    from web.bench import run, run_http

    started = time.perf_counter()
    result = run(args.corpus, cr=args.cr, repeat=args.repeat, scale=args.scale)
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        build(args.corpus, Path(tmp), cr=args.cr)
        result["kb_build_ms"] = round((time.perf_counter() - t) * 1e3)
        if not args.no_http:
            result["http"] = run_http(Path(tmp), args.corpus, clients=args.clients, seconds=args.seconds,
                                      cache=args.search_cache, cr=args.cr)
    if args.cr_history:
        from web.bench_history import run_history

        result["history"] = run_history(args.corpus, args.cr_history, repeat=args.repeat)
    result["bench_seconds"] = round(time.perf_counter() - started, 1)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"kb build (ingest, index, publish): {result['kb_build_ms']} ms")
    print(f"{result['records']} records")
    print(f"ingest            {result['ingest']['p50_ms']:8.1f} ms (median of {args.repeat})")
    print(
        f"index build       {result['index_build']['p50_ms']:8.1f} ms, "
        f"index {result['index_build']['bytes'] / 1e6:.1f} MB"
    )
    for name in ("search", "suite", "fts5", "resolve"):
        r = result[name]
        print(f"{name:17} p50 {r['p50_us']:8.1f} us   p99 {r['p99_us']:8.1f} us   (n={r['n']})")
    print(f"search / fts5 median: {result['search_vs_fts5']}x")
    _print_classes(result)
    scaled = next((v for k, v in result.items() if k.startswith("x") and isinstance(v, dict)), None)
    if scaled:
        print(
            f"{scaled['records']} records (synthetic, x{args.scale}): index {scaled['index_build']['p50_ms']:.0f} ms, "
            f"search p50 {scaled['search']['p50_us']:.0f} us p99 {scaled['search']['p99_us']:.0f} us, "
            f"fts5 p50 {scaled['fts5']['p50_us']:.0f} us ({scaled['search_vs_fts5']}x)"
        )
    http = result.get("http")
    if http:
        cache = "answer cache on" if http["search_cache"] else "answer cache off"
        print(
            f"http ({http['clients']} clients, {http['workers']} workers, {cache}): "
            f"cold start {http['cold_start_ms']} ms, workers warm after {http.get('warm_ms')} ms (measured after), "
            f"RSS per worker {http['rss_mb_per_worker']} MB, front {http.get('rss_mb_front')} MB"
        )
        for name in ("health", "search", "record_page", "discord", "discord_autocomplete"):
            h = http[name]
            ratio = f", {h['vs_health']}x health" if "vs_health" in h else ""
            if "p99_vs_health" in h:
                ratio += f", p99 {h['p99_vs_health']}x health's"
            print(
                f"  {name:12} {h['rps']:6d} req/s  p50 {h['p50_us'] / 1000:6.2f} ms  p99 {h['p99_us'] / 1000:6.2f} ms  "
                f"{h['errors']} errors / {h['requests']}{ratio}"
            )
        print(f"  search_ratio {http['search_ratio']} ({'repeated' if http['search_cache'] else 'unique'} queries; "
              f"target >= 0.5 uncached)")
    if "history" in result:
        _print_history_bench(result["history"])
    print(f"(bench took {result['bench_seconds']} s)")
    return 0


def _print_history_bench(h: dict) -> None:
    print(f"official rules history ({h['releases']} releases): kb build {h['build_s']} s wall, "
          f"{h['build_cpu_s']} s CPU; data {h['data_mb']} MB (history.sqlite {h['history_mb']} MB; "
          f"newest release alone {h['floor_data_mb']} MB)")
    for name in ("open", "search"):
        f, w = h[f"{name}_floor"], h[f"{name}_history"]
        print(f"  {name:7} newest only p50 {f['p50_us']:9.1f} us p99 {f['p99_us']:9.1f} us | with history "
              f"p50 {w['p50_us']:9.1f} us p99 {w['p99_us']:9.1f} us ({h[f'{name}_vs_floor']}x)")
    for name in ("rule_at", "lineage", "diff_last_two"):
        print(f"  {name:14} p50 {h[name]['p50_us']:9.1f} us  p99 {h[name]['p99_us']:9.1f} us  (n={h[name]['n']})")


# -- cr update ---------------------------------------------------------------
def cmd_cr_update(args: argparse.Namespace) -> int:
    from ingest.errors import ParseError
    from ingest.publish import build
    from ingest.cr_update import RULES_PAGE, UpdateError, update

    if args.cr_history is None:
        return _fail("kb cr update: name the history folder with --cr-history DIR or $KB_CR_HISTORY", 2)

    def rebuild() -> str:
        return build(args.corpus, args.data, cr_history=args.cr_history).build_id

    try:
        result = update(args.cr_history, rebuild, page_url=args.source or RULES_PAGE)
    except (UpdateError, ParseError) as exc:
        return _fail(f"kb cr update: nothing changed: {exc}")
    if result.status == "already current":
        print(f"already current: {result.file} is in {args.cr_history}")
    else:
        print(f"added {result.file} (effective {result.effective}) to {args.cr_history}; built {result.build_id}")
    return 0


# -- discord -----------------------------------------------------------------
def cmd_discord(args: argparse.Namespace) -> int:
    from kb.discord_commands import commands_json

    print(commands_json())  # the body of Discord's bulk overwrite (README: "Discord")
    return 0


def _print_classes(result: dict) -> None:
    """Search latency per query class next to FTS5 on the same queries, and the full-text figures."""
    if "classes" not in result:
        return
    print(f"{'query class':14} {'index':>5}  {'p50 us':>8} {'p99 us':>9}  {'fts5 p50':>8} {'fts5 p99':>9}  "
          f"{'p50 x':>5}  {'cpu x':>5}  {'max cpu ms':>10}")
    for name, c in result["classes"].items():
        ours, fts5 = c["search"], c["fts5"]
        print(f"{name:14} {c['reach_index']:>2}/{c['queries']:<2}  {ours['p50_us']:8.0f} {ours['p99_us']:9.0f}  "
              f"{fts5['p50_us']:8.0f} {fts5['p99_us']:9.0f}  {c['vs_fts5']:5.2f}  {c['cpu_vs_fts5']:5.2f}  "
              f"{c['max_cpu_ms']:10.2f}")
    full, fts, ratio = result["fulltext"], result["fts5_fulltext"], result["fulltext_vs_fts5"]
    print(f"full text (queries reaching the index, n={full['n']}): "
          f"p50 {full['p50_us']:.0f} us, p99 {full['p99_us']:.0f} us; "
          f"fts5 p50 {fts['p50_us']:.0f} us, p99 {fts['p99_us']:.0f} us; "
          f"ratio p50 {ratio['p50']}x, p99 {ratio['p99']}x (target <= 3x)")
    fc, fcf = result["fulltext_cpu"], result["fts5_fulltext_cpu"]
    print(f"  the same in CPU time: p50 {fc['p50_us']:.0f} us, p99 {fc['p99_us']:.0f} us; "
          f"fts5 p50 {fcf['p50_us']:.0f} us, p99 {fcf['p99_us']:.0f} us")
    print(f"most CPU one query took: {result['max_cpu']['ms']} ms ({result['max_cpu']['query']!r}; target < 200 ms)")
    for name, step in result.get("steps", {}).items():
        print(f"  step {name:17} p50 {step['search']['p50_us']:7.0f} us ({step['p50_vs_fts5']}x fts5)  "
              f"p99 {step['search']['p99_us']:8.0f} us ({step['p99_vs_fts5']}x fts5)")


# -- soak --------------------------------------------------------------------
def cmd_soak(args: argparse.Namespace) -> int:
    from web.soak import print_soak, run_soak

    parts = tuple(args.only.split(",")) if args.only else ("slow", "hostile", "memory")
    result = run_soak(args.corpus, design=args.design, slow=args.slow, seconds=args.seconds,
                      requests=args.requests, workers=args.workers, parts=parts)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_soak(result)
    return 0


# -- serve -------------------------------------------------------------------
def cmd_serve(args: argparse.Namespace) -> int:
    from web.serve import prepare, serve

    if args.no_semantic:  # read by each worker when it opens a build (kb.kbase)
        os.environ["KB_SEMANTIC"] = "0"
    if args.debug:
        from web.app import create_app

        prepare(args.corpus, args.data, args.cr, cr_history=args.cr_history)
        os.environ["KB_DATA"] = str(Path(args.data).resolve())
        create_app().run(host=args.host, port=args.port, debug=True)
        return 0
    return serve(args, PROJECT_ROOT)


# -- train ---------------------------------------------------------------------
def cmd_train(args: argparse.Namespace) -> int:
    """``kb train --semantic``: fine-tune, export and measure the semantic stage (the ``train`` extra; kb.semantic
    .train), on the current build of --data, which should hold the official rules; then the bundled corpus's
    record vectors that ship beside the model."""
    if not args.semantic:
        return _fail("kb train: say what to train: --semantic (the learned ranker is not in this release)")
    try:
        import torch  # noqa: F401 -- only to say what is missing before anything is read
    except ImportError:
        return _fail("kb train --semantic needs the train extra: "
                     "pip install torch==2.13.0 && pip install -e '.[train]'")
    from ingest.build import build_corpus
    from kb.search import Searcher
    from kb.semantic import MODEL_DIR
    from kb.semantic.train import train
    from kb.semantic.vectors import write_bundled
    from kb.store import Store

    store = Store.open(args.data)
    if not store.manifest.get("cr"):
        print("kb train: this build holds no official rules; most curated questions are about them", file=sys.stderr)
    searcher = Searcher(store, cache_size=0, semantic=False)
    made = train(store, searcher, args.corpus, steps=args.steps, seed=args.seed, say=_progress)
    searcher.close()
    write_bundled(build_corpus(args.corpus).records, MODEL_DIR, say=_progress)
    print(f"kb train --semantic: model {made['version']} in {MODEL_DIR} ({made['seconds']['all']}s)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kb", description="The rules knowledge base.")
    parser.add_argument("--data", type=Path, default=None, help="data directory (default: $KB_DATA or ./var)")
    parser.add_argument(
        "--corpus", type=Path, default=None, help="corpus directory (default: $KB_CORPUS or the bundled corpus/)"
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("build", help="build the knowledge base from the corpus")
    p.add_argument(
        "--cr", type=Path, default=None, help="also load the official Comprehensive Rules from this file ($KB_CR)"
    )
    p.add_argument("--cr-history", type=Path, default=None,
                   help="load every official release in this folder; the newest is current ($KB_CR_HISTORY)")
    p.set_defaults(func=cmd_build)

    p = sub.add_parser("inspect", help="parse one document and report every line")
    p.add_argument("path")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_inspect)

    p = sub.add_parser("check", help="list every unresolved reference")
    p.add_argument("--strict", action="store_true", help="exit 1 when any reference is unresolved")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("serve", help="build if needed, then serve the site and API with gunicorn")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--workers", type=int, default=None, help="worker processes (default: one per core)")
    p.add_argument("--cr", type=Path, default=None, help="also load the official Comprehensive Rules ($KB_CR)")
    p.add_argument("--cr-history", type=Path, default=None,
                   help="load every official release in this folder; the newest is current ($KB_CR_HISTORY)")
    p.add_argument("--debug", action="store_true", help="Flask's debug server with its reloader (development only)")
    p.add_argument("--access-log", action="store_true", help="log every request to stdout")
    p.add_argument("--no-semantic", action="store_true", help="lexical search only (as KB_SEMANTIC=0)")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("train", help="train the semantic stage's model (needs the train extra; docs/semantic.md)")
    p.add_argument("--semantic", action="store_true", help="fine-tune, export and measure the semantic stage")
    p.add_argument("--steps", type=int, default=60, help="training batches of 32 pairs (default 60)")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("search", help="search the knowledge base")
    p.add_argument("query")
    p.add_argument("--doc")
    p.add_argument("--kind")
    p.add_argument("--limit", type=int, default=10)
    p.add_argument("--offset", type=int, default=0, help="skip this many results (the next page: --offset 10)")
    p.add_argument("--json", action="store_true", help="print /api/search's JSON (with pagination and filters)")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("bench", help="measure build and search against an SQLite FTS5 floor")
    p.add_argument("--cr", type=Path, default=None, help="also load the official Comprehensive Rules ($KB_CR)")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument(
        "--scale", type=int, default=10, help="also measure a synthetic corpus this many times larger (1: skip)"
    )
    p.add_argument("--clients", type=int, default=4, help="concurrent HTTP clients")
    p.add_argument("--seconds", type=float, default=3.0, help="seconds of load per HTTP endpoint")
    p.add_argument("--no-http", action="store_true", help="skip the measurements under kb serve")
    p.add_argument("--search-cache", action="store_true", help="keep the search answer cache on under kb serve")
    p.add_argument("--cr-history", type=Path, default=None,
                   help="also measure the build, data size and current search with every release in this folder")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("discord", help="the Discord slash commands (see the README's Discord section)")
    p.add_argument("what", choices=["commands"], help="commands: print their definitions as Discord's API takes them")
    p.set_defaults(func=cmd_discord)

    p = sub.add_parser("soak", help="the server under slow clients, hostile queries and unique requests (web.soak)")
    p.add_argument("--design", choices=("front", "gthread", "gevent"), default="front",
                   help="front: kb serve as shipped; gthread/gevent: gunicorn alone, to compare designs")
    p.add_argument("--slow", type=int, default=256, help="slow connections held open")
    p.add_argument("--seconds", type=float, default=30.0, help="seconds the slow connections are held")
    p.add_argument("--requests", type=int, default=20_000, help="unique requests before memory is read")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--only", default=None, help="comma-separated parts: slow,hostile,memory")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_soak)
    p = sub.add_parser("cr", help="the official Comprehensive Rules: kb cr update")
    cr_sub = p.add_subparsers(dest="cr_command", required=True)
    u = cr_sub.add_parser("update", help="download the newest official release if it is new, add it, rebuild")
    u.add_argument("--from", dest="source", default=None, metavar="URL",
                   help="the rules page to read (default: https://magic.wizards.com/en/rules)")
    u.add_argument("--cr-history", type=Path, default=None, help="the history folder ($KB_CR_HISTORY)")
    u.set_defaults(func=cmd_cr_update)

    p = sub.add_parser("show", help="show the record a reference, id or card name means")
    p.add_argument("ref")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_show)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:  # `kb show ... | head`: the reader left; nothing to report
        sys.stderr.close()
        return 0


def _main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    args.data = args.data or default_data()
    args.corpus = args.corpus or default_corpus()
    if getattr(args, "cr", None) is None and "cr" in vars(args) and os.environ.get("KB_CR"):
        args.cr = Path(os.environ["KB_CR"])
    if getattr(args, "cr_history", None) is None and "cr_history" in vars(args) and os.environ.get("KB_CR_HISTORY"):
        args.cr_history = Path(os.environ["KB_CR_HISTORY"])
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
