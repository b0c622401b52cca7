"""Every ``KB_*`` environment variable, declared once: name, type, default, one line of doc.

The ``kb`` command (click's ``envvar=``), the app factory and the server read the environment through
this table and nowhere else (tests/test_settings.py fails on any other read of a ``KB_`` name); the
documentation's settings table (docs/settings.md) is generated from it (``make docs-settings``).
``kb`` and ``ingest`` read no environment: what they need is passed down as parameters.

Adding a setting is one entry in ``SETTINGS`` (then ``make docs-settings`` rewrites the docs' table).
"""
from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Setting", "SETTINGS", "GROUPS", "setting", "read", "read_all", "markdown_table", "with_table"]

# The order the docs list the groups in.
GROUPS = ("Data", "Serving", "Discord", "Search", "Set by kb serve")


@dataclass(frozen=True)
class Setting:
    name: str
    type: type  # str, int, float, bool or Path
    default: Any
    doc: str
    group: str
    # When set: a value it returns False for is refused, with ``expect`` in the message.
    valid: Callable[[Any], bool] | None = None
    expect: str = ""
    # An empty value is unset (the default), unless it means something of its own (KB_SOURCES: the bundled
    # documents alone).
    empty_is_a_value: bool = False

    def parse(self, raw: str) -> Any:
        """The value ``raw`` (as the environment holds it) means; ValueError naming the variable."""
        raw = raw.strip()
        if raw == "" and not self.empty_is_a_value:
            return self.default
        try:
            value = _PARSE[self.type](raw)
        except ValueError:
            value = _BAD
        if value is _BAD or (self.valid is not None and not self.valid(value)):
            raise ValueError(f"{self.name} must be {self.expect or _EXPECT[self.type]}, not {raw!r}")
        return value

    @property
    def shown_default(self) -> str:
        """The default as one would write it in the environment (``unset`` when there is none)."""
        if self.default is None or self.default == "":
            return "unset"
        if self.type is bool:
            return "`1`" if self.default else "`0`"
        return f"`{self.default:g}`" if self.type is float else f"`{self.default}`"


_BAD = object()


def _bool(raw: str) -> Any:
    return {"1": True, "0": False}.get(raw, _BAD)


_PARSE: dict[type, Callable[[str], Any]] = {str: str, int: int, float: float, bool: _bool, Path: Path}
_TYPE_NAME = {str: "text", int: "integer", float: "number", bool: "1 or 0", Path: "path"}
_EXPECT = {str: "text", int: "a whole number", float: "a number", bool: "1 or 0", Path: "a path"}

SETTINGS: tuple[Setting, ...] = (
    # -- where things are ------------------------------------------------------------------------------
    Setting("KB_DATA", Path, Path("var"), "The data directory: builds, and the `current` link to the one served "
            "(`--data`).", "Data"),
    Setting("KB_CORPUS", Path, None, "The corpus directory (`--corpus`); unset: the corpus installed with the "
            "package.", "Data"),
    Setting("KB_CR", Path, None, "Also load the official Comprehensive Rules from this text file (`--cr`).", "Data"),
    Setting("KB_CR_HISTORY", Path, None, "Load every official release in this folder, the newest current "
            "(`--cr-history`); `kb cr update` adds new ones to it.", "Data"),
    # -- serving ---------------------------------------------------------------------------------------
    Setting("KB_PUBLIC_URL", str, None, "Where the site is reached (`https://rules.example.org`): every absolute "
            "URL it prints starts with it, never with the Host a client sent.", "Serving",
            valid=lambda url: url.startswith(("http://", "https://")), expect="a URL starting with http:// or https://"),
    Setting("KB_HEAD_TIMEOUT", float, 10.0, "Seconds a client has to send its request line and headers (granian's "
            "header read timeout; at most 60).", "Serving",
            valid=lambda s: 0 < s <= 60,  # refuses nan and inf too
            expect="a number of seconds above 0 and at most 60"),
    Setting("KB_GRACE", float, 10.0, "Seconds a stopping server (SIGTERM) gives the answers in flight to finish; "
            "new connections are refused meanwhile.", "Serving",
            valid=lambda s: 0 < s <= 600, expect="a number of seconds above 0 and at most 600"),
    Setting("KB_COSTLY_SLOTS", int, 1, "Costly requests (search, linkify, autocomplete, resolve, Discord) each "
            "worker runs at once; sixteen more per slot wait in line, taking turns by client address, and a full "
            "line answers 503 with Retry-After.", "Serving",
            valid=lambda n: 1 <= n <= 64, expect="a whole number from 1 to 64"),
    Setting("KB_TRUSTED_PROXIES", str, "", "Comma-separated addresses or networks of the load balancers whose "
            "forwarded headers (X-Forwarded-For/-Proto/-Host, Forwarded) are honoured; from any other peer they "
            "are dropped.", "Serving"),
    Setting("KB_FORWARDED_FOR", bool, False, "Gone: name the load balancer's address in `KB_TRUSTED_PROXIES` "
            "instead (setting it to 1 stops `kb serve` with that advice).", "Serving",
            valid=lambda on: not on,
            expect="unset: it is gone, name the load balancer's address in KB_TRUSTED_PROXIES (docs/serving.md)"),
    Setting("KB_CR_SOURCE", str, "https://magic.wizards.com/en/rules", "The page `kb cr update` reads the newest "
            "official rules from (`--from`): only https (http only on a loopback address), only that site, no "
            "redirects elsewhere.", "Data"),
    # -- Discord ---------------------------------------------------------------------------------------
    Setting("KB_DISCORD_PUBLIC_KEY", str, "", "The Discord application's public key (64 hex digits); "
            "`POST /discord/interactions` is on when it is set.", "Discord"),
    Setting("KB_DISCORD_MAX_AGE", float, 300.0, "Seconds a signed Discord request stays acceptable (replays "
            "older than this are refused).", "Discord", valid=lambda s: s > 0, expect="a number of seconds above 0"),
    # -- search ----------------------------------------------------------------------------------------
    Setting("KB_SEARCH_CACHE", int, 2048, "Answers each build's search keeps (0: none, so every query does its "
            "work, as `kb bench` measures).", "Search", valid=lambda n: n >= 0, expect="a whole number, 0 or more"),
    Setting("KB_SEMANTIC", bool, True, "1: the semantic stage re-ranks a question's best lexical hits, and builds "
            "embed new text for it (kb.semantic: docs/semantic.md); 0 (or `kb serve --no-semantic`): lexical only.",
            "Search"),
    Setting("KB_RANKER", bool, False, "1: the learned ranker re-orders full-text search's candidate window by its "
            "trained weights (kb.learned; off by default: docs/ranker.md).", "Search"),
    Setting("KB_CROSS", bool, False, "1: the cross-encoder re-ranks a question's first few full-text hits "
            "(kb.cross; off by default: it did not pay within the time budget, docs/semantic.md \"Cross-encoder\").",
            "Search"),
    Setting("KB_WARM", bool, False, "1: warm a build's search tables in the background once it is served "
            "(`kb serve` sets it for its workers).", "Search"),
    # -- what kb serve hands its workers ----------------------------------------------------------------
    Setting("KB_CORPUS_DIGEST", str, None, "Today's corpus digest, so /api/health can say the build served is "
            "stale (set by `kb serve`).", "Set by kb serve"),
    Setting("KB_SOURCES", str, None, "The sources of the build a worker serves (`kb serve`'s; empty: the bundled "
            "documents alone): it serves only builds of those, never another server's (set by `kb serve`).",
            "Set by kb serve", empty_is_a_value=True),
    Setting("KB_NOT_REBUILT", str, None, "Why the build served was not rebuilt, shown by /api/health "
            "(set by `kb serve`).", "Set by kb serve"),
)

_BY_NAME = {s.name: s for s in SETTINGS}


def setting(name: str) -> Setting:
    """The declared setting ``name``; KeyError for a name never declared."""
    return _BY_NAME[name]


def read(name: str, environ: Mapping[str, str] | None = None) -> Any:
    """The value of ``name`` in ``environ`` (the process's environment by default), else its default."""
    found = setting(name)
    raw = (os.environ if environ is None else environ).get(name)
    return found.default if raw is None else found.parse(raw)


def read_all(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Every setting's value; ValueError naming the first variable set to something it cannot be."""
    return {s.name: read(s.name, environ) for s in SETTINGS}


def markdown_table() -> str:
    """docs/settings.md's table, one row per setting, grouped as ``GROUPS`` orders them."""
    lines = ["| Variable | Type | Default | What it does |", "| --- | --- | --- | --- |"]
    for group in GROUPS:
        lines.append(f"| **{group}** | | | |")
        for s in SETTINGS:
            if s.group == group:
                lines.append(f"| `{s.name}` | {_TYPE_NAME[s.type]} | {s.shown_default} | {s.doc} |")
    return "\n".join(lines) + "\n"



TABLE_START = "<!-- settings table: generated by `make docs-settings` -->"
TABLE_END = "<!-- end of the settings table -->"


def with_table(page: str) -> str:
    """``page`` (docs/settings.md) with the table between its two markers made from ``SETTINGS``."""
    head, start, rest = page.partition(TABLE_START)
    _, end, tail = rest.partition(TABLE_END)
    if not start or not end:
        raise ValueError(f"the page has no {TABLE_START!r} ... {TABLE_END!r} block")
    return f"{head}{TABLE_START}\n{markdown_table()}{TABLE_END}{tail}"


if __name__ == "__main__":  # python -m web.settings docs/settings.md: rewrite the page's table
    page = Path(sys.argv[1])
    page.write_text(with_table(page.read_text(encoding="utf-8")), encoding="utf-8")
