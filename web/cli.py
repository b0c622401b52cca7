"""The ``kb`` command: build, inspect, check, search, show, serve (click).

Only this module (and the web server it starts) reads or writes files; the
parsers and the knowledge base below it are pure.

Each command is a thin function of one ``args`` namespace (the group's ``--data`` and ``--corpus`` and its own
options), with its options as click decorators above it: a new flag is one ``@click.option`` line and one
``args.name`` read. Options backed by an environment variable take its name, default and doc from
``web.settings`` (``_setting_option``). Shell completion: ``eval "$(_KB_COMPLETE=bash_source kb)"``.
"""
from __future__ import annotations

import functools
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import click

from web import settings

__all__ = ["main", "cli", "default_corpus", "default_data"]

Args = SimpleNamespace  # what a command's body reads: args.data, args.corpus and its own options

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def default_corpus() -> Path:
    """$KB_CORPUS, else the corpus installed with the package (corpus/ in a checkout)."""
    if settings.read("KB_CORPUS"):
        return settings.read("KB_CORPUS")
    from corpus import bundled_corpus

    return bundled_corpus()


def default_data() -> Path:
    return settings.read("KB_DATA")


def _fail(message: str, code: int = 1) -> int:
    print(message, file=sys.stderr)
    return code


# -- the group: sections of help, the options every command shares -------------------------------------
SECTIONS = (
    ("Build and check", ("build", "inspect", "check", "cr", "train")),
    ("Read", ("search", "show")),
    ("Serve", ("serve", "discord")),
    ("Measure", ("bench", "soak")),
)


class _Sections(click.Group):
    """``kb --help`` lists the commands under the headings of ``SECTIONS``; any other under "Other commands"."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        placed = {name for _, names in SECTIONS for name in names}
        groups = [*SECTIONS, ("Other commands", tuple(sorted(set(self.commands) - placed)))]
        for title, names in groups:
            rows = [(name, self.commands[name].get_short_help_str(limit=100))
                    for name in names if name in self.commands and not self.commands[name].hidden]
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


def _setting_option(*decls: str, setting: str, help: str, **kwargs: Any) -> Callable:
    """A click option read from the environment variable ``setting`` when not given (declared in web.settings)."""
    declared = settings.setting(setting)
    return click.option(*decls, envvar=declared.name, default=declared.default, show_envvar=True,
                        show_default=declared.default is not None,
                        type=click.Path(path_type=Path) if declared.type is Path else declared.type,
                        help=help, **kwargs)


def _cr_option(help: str = "also load the official Comprehensive Rules from this file") -> Callable:
    return _setting_option("--cr", setting="KB_CR", help=help)


def _cr_history_option(help: str = "load every official release in this folder; the newest is current") -> Callable:
    return _setting_option("--cr-history", setting="KB_CR_HISTORY", help=help)


def _body(function: Callable[[Args], int]) -> Callable[..., int]:
    """The click callback that hands ``function`` one namespace: the group's options and the command's own."""

    @functools.wraps(function)
    @click.pass_obj
    def callback(shared: dict[str, Any], **options: Any) -> int:
        return function(Args(**shared, **options))

    return callback


@click.group(cls=_Sections, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="rules-kb", prog_name="kb", message="%(prog)s %(version)s")
@_setting_option("--data", setting="KB_DATA", help="data directory")
@_setting_option("--corpus", setting="KB_CORPUS", help="corpus directory (default: the bundled corpus/)")
@click.pass_context
def cli(ctx: click.Context, data: Path, corpus: Path | None) -> None:
    """The rules knowledge base: build it from the corpus, search it, serve the site and its JSON API.

    Shell completion (bash; zsh and fish likewise): eval "$(_KB_COMPLETE=bash_source kb)"
    """
    ctx.obj = {"data": data, "corpus": corpus or default_corpus()}


# -- build -------------------------------------------------------------------
@cli.command("build", help="build the knowledge base from the corpus")
@_cr_option()
@_cr_history_option()
@_body
def cmd_build(args: Args) -> int:
    from ingest.errors import ParseError
    from ingest.publish import build
    from kb.store import BuildWriteError
    from web.progress import Progress

    started = time.perf_counter()
    try:
        # each step on stderr as it goes (stdout keeps the accounting): a bar on a terminal, lines in a log
        with Progress(sys.stderr) as shown:
            result = build(args.corpus, args.data, cr=args.cr, cr_history=args.cr_history, progress=shown.step,
                           on_wait=shown.step, tick=shown.tick,
                           embed=settings.read("KB_SEMANTIC"))
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


def _report_summary(report: dict) -> str:
    """One document's accounting, as `kb inspect` prints it (ingest.document.Report.summary): with the publisher's
    slips and a fallback decoding said, which `kb build --cr` left out (a Mac Roman file read as Windows-1252,
    every curly quote a wrong letter, built without a word)."""
    dropped = ", ".join(f"{n} {c}" for c, n in sorted(report["dropped"].items()))
    fixes = sum(c["hits"] for c in report["corrections"])
    slips = report.get("slips") or []
    encoding = report.get("encoding") or {}
    return (
        f"{report['file']}: {report['read']} {report['unit']}s read, {report['record_units']} in records, "
        f"dropped {dropped or 'none'}; {report['page_markers']} page markers stripped, "
        f"{fixes} OCR corrections; "
        + (f"{len(slips)} slips of the publisher kept and reported; " if slips else "")
        + (f"decoded as {encoding['encoding']} (fallback); " if encoding.get("fallback") else "")
        + f"{len(report['unaccounted'])} unaccounted"
    )


# -- inspect -----------------------------------------------------------------
@cli.command("inspect", help="parse one document and report every line")
@click.argument("path")
@click.option("--json", is_flag=True, help="the report as JSON")
@_body
def cmd_inspect(args: Args) -> int:
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
@cli.command("check", help="list every unresolved reference")
@click.option("--strict", is_flag=True, help="exit 1 when any reference is unresolved")
@_body
def cmd_check(args: Args) -> int:
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
def _open_kb(args: Args):
    from kb.kbase import KnowledgeBase
    from kb.store import StoreError

    try:
        return KnowledgeBase(args.data).current()
    except StoreError as exc:  # one line: what is wrong, and what to do
        raise SystemExit(f"{exc}; run `kb build` (or `kb serve`, which builds when needed)") from None


@cli.command("search", help="search the knowledge base")
@click.argument("query")
@click.option("--doc", help="only this document (treachery, cr, ...)")
@click.option("--kind", help="only this kind of record (rule, ruling, card, ...)")
@click.option("--limit", type=int, default=10, show_default=True)
@click.option("--offset", type=int, default=0, help="skip this many results (the next page: --offset 10)")
@click.option("--json", is_flag=True, help="print /api/search's JSON (with pagination and filters)")
@_body
def cmd_search(args: Args) -> int:
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


@cli.command("show", help="show the record a reference, id or card name means")
@click.argument("ref")
@click.option("--json", is_flag=True, help="print the record's JSON, as /api/records/<id> serves it")
@_body
def cmd_show(args: Args) -> int:
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
@cli.command("bench", help="measure build and search against an SQLite FTS5 floor")
@_cr_option()
@click.option("--repeat", type=int, default=5, show_default=True)
@click.option("--scale", type=int, default=10, show_default=True,
              help="also measure a synthetic corpus this many times larger (1: skip)")
@click.option("--clients", type=int, default=4, show_default=True, help="concurrent HTTP clients")
@click.option("--seconds", type=float, default=3.0, show_default=True, help="seconds of load per HTTP endpoint")
@click.option("--no-http", is_flag=True, help="skip the measurements under kb serve")
@click.option("--search-cache", is_flag=True, help="keep the search answer cache on under kb serve")
@_cr_history_option("also measure the build, data size and current search with every release in this folder")
@click.option("--json", is_flag=True)
@_body
def cmd_bench(args: Args) -> int:
    import tempfile

    from ingest.publish import build
    from web.tools.bench import run, run_http
    from web.tools.bench_fair import print_fair, print_targets

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
        from web.tools.bench_history import run_history

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
    for name in ("search", "suite", "resolve"):
        r = result[name]
        print(f"{name:17} p50 {r['p50_us']:8.1f} us   p99 {r['p99_us']:8.1f} us   (n={r['n']}, warm)")
    print_fair(result["fair"])
    if "offline_pack" in result:
        pack = result["offline_pack"]
        print(f"offline pack      {pack['make_ms']:8.1f} ms to make, {pack['bytes'] / 1e6:.2f} MB, "
              f"{pack['gzip_bytes'] / 1e3:.0f} KB gzipped (budget 1,500 KB)")
    scaled = next((v for k, v in result.items() if k.startswith("x") and isinstance(v, dict)), None)
    if scaled:
        print(f"{scaled['records']} records (synthetic, x{args.scale}): "
              f"index {scaled['index_build']['p50_ms']:.0f} ms, the mix warm p50 {scaled['search']['p50_us']:.0f} us "
              f"p99 {scaled['search']['p99_us']:.0f} us")
        print_fair(result["fair"][f"scale{args.scale}"], f"x{args.scale}: ")
    print("targets (issue 33; ratios within this run):")
    print_targets(result["fair"])
    http = result.get("http")
    if http:
        cache = "answer cache on" if http["search_cache"] else "answer cache off"
        print(
            f"http ({http['clients']} clients, {http['workers']} workers, {cache}): "
            f"cold start {http['cold_start_ms']} ms, workers warm after {http.get('warm_ms')} ms (measured after), "
            f"RSS per worker {http['rss_mb_per_worker']} MB, main process {http.get('rss_mb_main')} MB"
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
        print(f"  req/s: health {http['health_rps']}, search {http['search_rps']} "
              f"({'repeated' if http['search_cache'] else 'unique'} queries), record page {http['page_rps']}; "
              f"server CPU per search {http['search_cpu_ms']} ms, in process {http['search_cpu_ms_in_process']} ms "
              f"({http['search_cpu_vs_in_process']}x; target <= 1.5x); the API's work in process "
              f"{http['search_cpu_ms_api_in_process']} ms ({http['search_cpu_vs_api_in_process']}x)")
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
@cli.group("cr", help="the official Comprehensive Rules: kb cr update")
def cr() -> None:
    pass


@cr.command("update", help="download the newest official release if it is new, add it, rebuild")
@_setting_option("--from", "source", setting="KB_CR_SOURCE", metavar="URL",
                 help="the rules page to read; only its site is read, over https")
@_cr_history_option("the history folder")
@_body
def cmd_cr_update(args: Args) -> int:
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
@cli.command("discord", help="the Discord slash commands: `kb discord commands` prints their definitions as "
             "Discord's API takes them (docs/discord.md)")
@click.argument("what", type=click.Choice(["commands"]))
@_body
def cmd_discord(args: Args) -> int:
    from kb.discord_commands import commands_json

    print(commands_json())  # the body of Discord's bulk overwrite (docs/discord.md)
    return 0


# -- soak --------------------------------------------------------------------
@cli.command("soak", help="the server under slow clients, hostile queries and unique requests (web.tools.soak)")
@click.option("--design", type=click.Choice(["granian", "gthread", "gevent"]), default="granian", show_default=True,
              help="granian: kb serve as shipped; gthread/gevent: gunicorn (not installed with kb), to compare")
@click.option("--slow", type=int, default=256, show_default=True, help="slow connections held open")
@click.option("--seconds", type=float, default=30.0, show_default=True, help="seconds the slow connections are held")
@click.option("--requests", type=int, default=20_000, show_default=True,
              help="unique requests before memory is read")
@click.option("--workers", type=int, default=2, show_default=True)
@click.option("--only", default=None, help="comma-separated parts: slow,hostile,memory,history (history: memory "
              "with every official release, needs --cr-history)")
@_cr_history_option("the official releases the history part loads")
@click.option("--json", is_flag=True)
@_body
def cmd_soak(args: Args) -> int:
    from web.tools.soak import print_soak, run_soak

    parts = tuple(args.only.split(",")) if args.only else ("slow", "hostile", "memory")
    if "history" in parts and args.cr_history is None:
        return _fail("kb soak --only history: name the official releases with --cr-history DIR", 2)
    result = run_soak(args.corpus, design=args.design, slow=args.slow, seconds=args.seconds,
                      requests=args.requests, workers=args.workers, parts=parts, cr_history=args.cr_history)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_soak(result)
    return 0


# -- serve -------------------------------------------------------------------
@cli.command("serve", help="build if needed, then serve the site and API (granian; docs/serving.md)")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=int, default=8000, show_default=True)
@click.option("--workers", type=int, default=None, help="worker processes (default: one per core)")
@_cr_option("also load the official Comprehensive Rules")
@_cr_history_option()
@click.option("--debug", is_flag=True, help="Flask's debug server with its reloader (development only)")
@click.option("--access-log", is_flag=True, help="log every request to stdout")
@click.option("--no-semantic", is_flag=True, help="lexical search only (as KB_SEMANTIC=0)")
@_body
def cmd_serve(args: Args) -> int:
    from web.serve import prepare, serve

    try:  # a value a setting cannot take stops the server before it builds or listens, in one line
        settings.read_all()
    except ValueError as exc:
        raise SystemExit(f"kb serve: {exc}") from None
    if args.debug:
        from web.app import create_app

        prepare(args.corpus, args.data, args.cr, cr_history=args.cr_history)
        create_app({"KB_DATA": Path(args.data).resolve()}).run(host=args.host, port=args.port, debug=True)
        return 0
    return serve(args, PROJECT_ROOT)


# -- train ---------------------------------------------------------------------
@cli.command("train", help="train the learned ranker (the default, or --ranker), the semantic stage's model "
                           "(--semantic) or the cross-encoder (--cross); needs the train extra (docs/ranker.md, "
                           "docs/semantic.md)")
@click.option("--ranker", is_flag=True, help="train the learned ranker, measure it on the split by record (default)")
@click.option("--semantic", is_flag=True, help="fine-tune, export and measure the semantic stage")
@click.option("--cross", is_flag=True, help="fine-tune, export and measure the cross-encoder")
@click.option("--steps", type=int, default=None, help="training batches (--semantic: 150 of 32 pairs; --cross: 200 "
                                                       "of 8 groups)")
@click.option("--batch", type=int, default=None, help="(--semantic) pairs per batch (default 32)")
@click.option("--lr", type=float, default=None, help="(--semantic) learning rate (default 3e-5)")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="(--semantic) write the model there instead of the shipped folder (kb/semantic/model)")
@click.option("--seed", type=int, default=0, show_default=True, help="(--semantic, --cross)")
@click.option("--choose", is_flag=True, help="with --semantic: no training; measure the shipped model on the split by "
                                              "record, choose its blend on dev and rewrite its manifest (no PyTorch)")
@_body
def cmd_train(args: Args) -> int:
    """``kb train`` (or ``--ranker``): the learned ranker (kb.learned.train, scikit-learn); ``kb train --semantic``:
    fine-tune, export and measure the semantic stage (the ``train`` extra; kb.semantic.train). Either on the current
    build of --data, which should hold the official rules."""
    if args.semantic + args.ranker + args.cross > 1:
        return _fail("kb train: one at a time: --ranker, --semantic or --cross")
    if args.choose and not args.semantic:
        return _fail("kb train: --choose goes with --semantic")
    if args.cross:
        return _train_cross(args)
    if not args.semantic:
        return _train_ranker(args)
    if args.choose:
        return _choose_semantic(args)
    try:
        import torch  # noqa: F401 -- only to say what is missing before anything is read
    except ImportError:
        return _fail("kb train --semantic needs the train extra: "
                     "pip install torch==2.13.0 && pip install -e '.[train]'")
    if sys.flags.hash_randomization:
        return _again_with_one_hash_seed(args, "--semantic", "--seed", str(args.seed), *_semantic_recipe(args))
    from ingest.build import build_corpus
    from kb.search import Searcher
    from kb.semantic import MODEL_DIR
    from kb.semantic.train import BATCH, LR, STEPS, train
    from kb.semantic.vectors import write_bundled
    from kb.store import Store

    store = Store.open(args.data)
    if not store.manifest.get("cr"):
        print("kb train: this build holds no official rules; most curated questions are about them", file=sys.stderr)
    searcher = Searcher(store, cache_size=0, semantic=False)
    out = Path(args.out).resolve() if args.out else MODEL_DIR
    made = train(store, searcher, args.corpus, out=out, steps=args.steps or STEPS, batch=args.batch or BATCH,
                 lr=args.lr or LR, seed=args.seed, say=_say)
    searcher.close()
    write_bundled([build_corpus(args.corpus).records, list(store.records.values())], out, say=_say,
                  data_dir=args.data, questions=_curated_questions(store))
    print(f"kb train --semantic: model {made['version']} in {out} ({made['seconds']['all']}s)")
    return 0


def _curated_questions(store) -> list[str]:
    """The curated questions the build loaded (corpus/asked): their vectors ship beside the model's records'."""
    from kb.asked import curated_questions

    return curated_questions(store.manifest.get("asked", ()))


def _semantic_recipe(args: Args) -> list[str]:
    """The flags of ``kb train --semantic`` given (to run it again under one hash seed)."""
    given = [("--steps", args.steps), ("--batch", args.batch), ("--lr", args.lr), ("--out", args.out)]
    return [part for flag, value in given if value is not None for part in (flag, str(value))]


def _choose_semantic(args: Args) -> int:
    """``kb train --semantic --choose``: the shipped model's blend chosen again on the honest dev split, its figures
    (kb.semantic.train.rechoose); the build of --data must hold the model's record vectors."""
    if sys.flags.hash_randomization:
        return _again_with_one_hash_seed(args, "--semantic", "--choose")
    from ingest.build import build_corpus
    from kb.search import Searcher
    from kb.semantic import MODEL_DIR
    from kb.semantic.train import rechoose
    from kb.semantic.vectors import write_bundled
    from kb.store import Store

    store = Store.open(args.data)
    if not store.manifest.get("cr"):
        print("kb train: this build holds no official rules; most curated questions are about them", file=sys.stderr)
    searcher = Searcher(store, cache_size=0)
    try:
        made = rechoose(store, searcher, say=_say)
    except RuntimeError as exc:
        return _fail(f"kb train --semantic --choose: {exc}")
    finally:
        searcher.close()
    write_bundled([build_corpus(args.corpus).records, list(store.records.values())], MODEL_DIR, say=_say,
                  data_dir=args.data, questions=_curated_questions(store))  # the build's cache is not embedded again
    print(f"kb train --semantic --choose: model {made['version']}, settings {made['settings']} in "
          f"{MODEL_DIR / 'manifest.json'}; pays: {made['pays']}")
    print(json.dumps(made["figures"]))
    return 0


def _again_with_one_hash_seed(args: Args, *train_flags: str) -> int:
    """``kb train`` run again under ``PYTHONHASHSEED=0``: search no longer follows the hash seed
    (tests/test_hash_order.py), the training's own code was not checked the same way (docs/ranker.md,
    Deterministic)."""
    import subprocess

    again = [sys.executable, "-m", "web.cli", "--data", str(args.data), "--corpus", str(args.corpus), "train",
             *train_flags]
    return subprocess.run(again, env={**os.environ, "PYTHONHASHSEED": "0"}, check=False).returncode


def _train_cross(args: Args) -> int:
    """``kb train --cross``: the cross-encoder (kb/cross/model/), its figures on stdout (docs/semantic.md)."""
    try:
        import torch  # noqa: F401 -- only to say what is missing before anything is read
    except ImportError:
        return _fail("kb train --cross needs the train extra: pip install torch==2.13.0 && pip install -e '.[train]'")
    if sys.flags.hash_randomization:
        return _again_with_one_hash_seed(args, "--cross", "--seed", str(args.seed),
                                         *(["--steps", str(args.steps)] if args.steps else []))
    from kb.cross import MODEL_DIR
    from kb.cross.train import train
    from kb.search import Searcher
    from kb.store import Store

    store = Store.open(args.data)
    if not store.manifest.get("cr"):
        print("kb train: this build holds no official rules; most curated questions are about them", file=sys.stderr)
    searcher = Searcher(store, cache_size=0)
    try:
        made = train(store, searcher, args.corpus, steps=args.steps or 200, seed=args.seed, say=_say)
    finally:
        searcher.close()
    print(f"kb train --cross: model {made['version']} in {MODEL_DIR} ({made['seconds']['all']}s; settings "
          f"{made['settings']}; pays: {made['pays']})")
    print(json.dumps(made["figures"]))
    return 0


def _train_ranker(args: Args) -> int:
    """``kb train``: the learned ranker's weights and manifest (kb/learned/), and its figures on stdout."""
    try:
        import sklearn  # noqa: F401 -- only to say what is missing before anything is read
    except ImportError:
        return _fail("kb train needs scikit-learn (the train extra): pip install 'scikit-learn>=1.9,<1.10' "
                     "(or pip install -e '.[train]')")
    if sys.flags.hash_randomization:
        return _again_with_one_hash_seed(args, "--ranker")
    from kb.learned import WEIGHTS
    from kb.learned.train import train
    from kb.search import Searcher
    from kb.store import Store

    store = Store.open(args.data)
    if not store.manifest.get("cr"):
        print("kb train: this build holds no official rules; most curated questions are about them", file=sys.stderr)
    searcher = Searcher(store, cache_size=0)
    try:
        made = train(store, searcher, args.corpus, say=_say)
    finally:
        searcher.close()
    print(f"kb train: learned ranker {made['version']} in {WEIGHTS} ({made['seconds']}s; C={made['settings']['C']})")
    print("rank 1 / top 3, lexical alone -> with the learned ranker:")
    for name, got in made["figures"].items():
        n = f" of {got['n']:,}" if "n" in got else ""
        print(f"  {name}{n}: {got['lexical'][0]} / {got['lexical'][1]} -> {got['learned'][0]} / {got['learned'][1]}")
    return 0


def _say(line: str) -> None:
    """A long step's lines on stderr (stdout keeps the figures)."""
    print(f"  {line}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    """``kb``'s entry point; ``main(["search", "flash"])`` runs it from Python and returns its exit status."""
    try:
        return _main(argv)
    except BrokenPipeError:  # `kb show ... | head`: the reader left; nothing to report
        sys.stderr.close()
        return 0


def _main(argv: list[str] | None = None) -> int:
    """The command's exit status: what its body returned, 2 for a usage error (click's), 0 for --help."""
    try:
        status = cli.main(args=argv, prog_name="kb", standalone_mode=False)
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.Abort:
        print("Aborted!", file=sys.stderr)
        return 1
    return status if isinstance(status, int) else 0


if __name__ == "__main__":
    sys.exit(main())
