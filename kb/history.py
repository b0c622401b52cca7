"""Reading the official rules' history (``history.sqlite``, written by ingest.history).

Opened lazily: a build without a history costs nothing, and one with it costs
nothing until the first question about the past (kb serve's start-up and the
current search never touch it). One read-only SQLite connection per thread.

Answers: the releases; the release in force on any date; a rule as it stood
in a release; a rule's lineage (every span of its text, with its numbers);
where an old number's text lives now; the diff between two releases; the
dated citations and per-document estimates computed at build time.
"""
from __future__ import annotations

import html
import json
import re
import sqlite3
import threading
from datetime import date
from difflib import SequenceMatcher
from functools import cached_property
from operator import itemgetter
from pathlib import Path
from typing import Any

from cachetools import LRUCache

from kb.ids import dated_url, record_url
from kb.snippet import clip, leading
from kb.words import typed

__all__ = ["History", "HISTORY_FILE", "word_diff", "typography", "wording", "parse_date", "DateError", "dated_matches",
           "release_gap",
           "span_ref", "span_text"]

HISTORY_FILE = "history.sqlite"
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# A word with the space after it (changes read as whole words), punctuation around it a token of its own: with
# "player," one word, "player" gaining ", planeswalker," showed "~~player~~ player, planeswalker,". A word keeps
# what is inside it ("702.19b", "face-down", "player’s") and a mana cost is one ("{3}{W}", shown as symbols).
_TOKENS = re.compile(r"\s+|(?:\{[^{}\s]*\}|\w)(?:\S*[\w}])?\s*|[^\w\s{]+\s*|\{\s*")
_NUMBER = re.compile(r"\b\d{3}(?:\.\d+[a-z]{0,2})?\b")
_COPY = re.compile(r"-(\d+)$")  # a rule number printed twice in one release: its second copy's id ends "-2"


def _copy_of(rid: str) -> int:
    m = _COPY.search(rid)
    return int(m.group(1)) if m else 1


def span_text(span: dict[str, Any]) -> str:
    """A span's shown text (``_body``): what its history compares and a dated page says."""
    return _body([span["title"], span["text"], span["examples"]])


def span_ref(span: dict[str, Any]) -> str:
    """What a dated URL names a span by: its number, or for a second copy of a number its id's ``702.175-2``."""
    return span["id"].split("/", 1)[1] if _COPY.search(span["id"]) else span["number"]


def _number_order(number: str) -> tuple:
    """A rule number's place in the document: 702.9 before 702.10 before 702.19a before 702.100."""
    return tuple(int(p) if p.isdigit() else p for p in re.findall(r"\d+|[a-z]+", number))


class DateError(ValueError):
    """A date that is not an ISO date (YYYY-MM-DD)."""


def parse_date(text: str) -> str:
    """Check an ISO date ("2016-07-22"; digits of any script read as ASCII); raise DateError with a message a reader
    can act on."""
    text = typed(text or "")
    if not _ISO.match(text):
        raise DateError(f"{text[:40]!r} is not a date: write it as YYYY-MM-DD, e.g. 2016-07-22")
    try:
        date.fromisoformat(text)
    except ValueError:
        raise DateError(f"{text!r} is not a day of the calendar") from None
    return text


# Typography that is no change of the rules: curly and straight quotes and apostrophes, dash styles and symbols
# spelled out (the release of 2019-01-25 alone printed '"Timing' for '“Timing', '{rN}-' for '{rN}—', '(tm)' for '™').
_TYPOGRAPHY = str.maketrans({"“": '"', "”": '"', "„": '"', "‘": "'", "’": "'", "‚": "'", "—": "-", "–": "-",
                             "‑": "-", "−": "-", "™": "(tm)", "®": "(r)", "©": "(c)", "…": "..."})


def typography(text: str) -> str:
    """``text`` with quotes, apostrophes and dashes in one style and its spacing in one form (a double space, a
    line break for a space): equal when two texts differ only in typography. 2016-07-22 listed 118.1d as changed
    for "archenemy’s  starting" losing a space."""
    return " ".join(text.translate(_TYPOGRAPHY).split())


def wording(text: str) -> str:
    """What a rule says, in one typography and with the rule numbers it cites masked: two releases whose texts have
    one wording only restyled it or renumbered what it cites."""
    return _NUMBER.sub("#", typography(text))


def word_diff(old: str, new: str) -> tuple[str, list[list[str]]]:
    """Word-level changes as HTML (``<del>``/``<ins>``, everything escaped) and as ops ``[["=" | "-" | "+", text]]``.

    Words that differ only in typography (``typography``) are equal, shown as the newer text writes them."""
    a, b = _TOKENS.findall(old), _TOKENS.findall(new)
    ops: list[list[str]] = []
    matcher = SequenceMatcher(None, [typography(t) for t in a], [typography(t) for t in b], autojunk=False)
    space = ""  # the old text's space after an unchanged run that the new text ends without
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            same = "".join(b[j1:j2])
            ops.append(["=", same])
            old_run = "".join(a[i1:i2])
            space = old_run[len(old_run.rstrip()):] if same == same.rstrip() else ""
            continue
        if i2 > i1:  # "dice. See section 9" -> "dice.": the deleted words keep the space before them
            ops.append(["-", space + "".join(a[i1:i2])])
        space = ""
        if j2 > j1:
            ops.append(["+", "".join(b[j1:j2])])
    out = []
    for op, text in ops:
        escaped = html.escape(text)
        out.append(escaped if op == "=" else f"<del>{escaped}</del>" if op == "-" else f"<ins>{escaped}</ins>")
    return "".join(out), ops


def _body(content: list) -> str:
    """A rule's shown text: title, text and examples, one paragraph each."""
    title, text, examples = content
    return "\n".join(filter(None, [title, text, *examples]))


class History:
    def __init__(self, path: Path):
        self.path = Path(path)
        self._local = threading.local()
        self._idle: list[sqlite3.Connection] = []  # connections no thread holds now (release), under _texts_lock
        self._texts: LRUCache[int, list] = LRUCache(TEXTS_KEPT)  # text id -> its decoded content, under _texts_lock
        self._texts_lock = threading.Lock()

    @classmethod
    def open_in(cls, build_dir: Path) -> History | None:
        path = Path(build_dir) / HISTORY_FILE
        return cls(path) if path.is_file() else None

    @property
    def db(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            with self._texts_lock:
                conn = self._idle.pop() if self._idle else None
            if conn is None:
                conn = sqlite3.connect(f"file:{self.path}?mode=ro&immutable=1", uri=True, check_same_thread=False)
                conn.row_factory = sqlite3.Row
            self._local.conn = conn
        return conn

    def release(self) -> None:
        """This thread is done reading for now (the end of a request): its connection, and the pages it keeps
        (up to 2 MB), go back for another thread to take; a worker holds as many as it used at once, not one for
        each of its 24 threads."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            self._local.conn = None
            with self._texts_lock:
                self._idle.append(conn)

    # -- releases --------------------------------------------------------------------
    @cached_property
    def releases(self) -> list[dict[str, Any]]:
        rows = self.db.execute("SELECT * FROM releases ORDER BY idx").fetchall()
        return [{"index": r["idx"], "effective": r["effective"], "version": r["version"], "file": r["file"],
                 "encoding": r["encoding"], "line_endings": r["line_endings"], "fallback": bool(r["fallback"]),
                 "rules": r["rules"], "slips": json.loads(r["slips"])} for r in rows]

    @property
    def newest(self) -> int:
        return len(self.releases) - 1

    def release_on(self, day: str) -> dict[str, Any] | None:
        """The release in force on ``day`` (the newest effective on or before it), or None before the first."""
        parse_date(day)
        found = None
        for r in self.releases:
            if r["effective"] <= day:
                found = r
        return found

    def release_public(self, r: dict[str, Any]) -> dict[str, Any]:
        return {k: r[k] for k in ("effective", "version", "file", "encoding", "line_endings", "fallback", "rules")} | {
            "slips": len(r["slips"])}

    # -- rules ---------------------------------------------------------------------------
    def _content(self, text_id: int) -> list:
        with self._texts_lock:
            hit = self._texts.get(text_id)
        if hit is None:
            row = self.db.execute("SELECT content FROM texts WHERE id = ?", (text_id,)).fetchone()
            hit = json.loads(row["content"])
            with self._texts_lock:
                self._texts[text_id] = hit
        return hit

    def rule_at(self, number: str, release: int) -> dict[str, Any] | None:
        """The rule numbered ``number`` in release ``release``: its first, if the release printed the number
        twice, and the second as ``number-2`` (its id, ``cr/702.175-2``: 2024-09-20 printed Offspring and
        Impending both as 702.175)."""
        found = self.rules_at(number, release)
        return found[0] if found else None

    def rules_at(self, number: str, release: int) -> list[dict[str, Any]]:
        """Every rule a release printed under ``number`` (one, or the copies of a number printed twice), in
        the order printed; with a copy's suffix (``702.175-2``), that copy alone."""
        if _COPY.search(number):
            rows = self.db.execute("SELECT * FROM spans WHERE rid = ? AND first <= ? AND last >= ?",
                                   ("cr/" + number.lower(), release, release)).fetchall()
        else:
            # numbers are stored in lower case (ingest.history): an exact match reads the number index (COLLATE
            # NOCASE read every span, 5 ms a dated page)
            rows = self.db.execute("SELECT * FROM spans WHERE number = ? AND first <= ? AND last >= ?",
                                   (number.lower(), release, release)).fetchall()
        return [self._span(row) for row in sorted(rows, key=lambda r: _copy_of(r["rid"]))]

    def below(self, span: dict[str, Any], release: int) -> list[dict[str, Any]]:
        """The rules right below ``span`` in ``release``, in the document's order: a heading's sub-rules (702.19:
        702.19a ...), a section's rules (702: 702.1 ... 702.190), a chapter's sections; each links on to its own.
        By each span's parent, so the two copies of a number printed twice keep their own sub-rules (702.175a-2
        is Impending's), from one read of the number index: the numbers starting with the rule's own."""
        number = span["number"]
        low = number + "." if len(number) == 3 else number  # 702.1 ..., 702.19a ..., or a chapter's 700 ...
        mine = self.db.execute("SELECT * FROM spans WHERE number > ? AND number < ? AND first <= ? AND last >= ? "
                               "AND parent = ?", (low, low + "\uffff", release, release, span["id"])).fetchall()
        mine.sort(key=lambda r: (_number_order(r["number"]), _copy_of(r["rid"])))
        return [self._span(r) for r in mine]

    def subtree(self, span: dict[str, Any], release: int) -> list[tuple[dict[str, Any], int]]:
        """Every rule below ``span`` in ``release``, in reading order, each with its depth below it (1: right below):
        a section's rules and their sub-rules, as the current rule's page reads them (the dated page of 613 listed
        its eleven rules and none of the layers, 613.1a-g, nor their examples). One read of the number index, each
        rule kept when its parent is ``span`` or a rule kept before it (a number printed twice keeps its own)."""
        number = span["number"]
        low = number + "." if len(number) == 3 else number
        rows = self.db.execute("SELECT * FROM spans WHERE number > ? AND number < ? AND first <= ? AND last >= ?",
                               (low, low + "\uffff", release, release)).fetchall()
        rows.sort(key=lambda r: (_number_order(r["number"]), _copy_of(r["rid"])))
        depth = {span["id"]: 0}
        out = []
        for row in rows:  # a parent's number sorts before its sub-rules'
            above = depth.get(row["parent"])
            if above is not None:
                depth[row["rid"]] = above + 1
                out.append((self._span(row), above + 1))
        return out

    def _span(self, row: sqlite3.Row) -> dict[str, Any]:
        title, text, examples = self._content(row["text"])
        return {"lineage": row["lineage"], "id": row["rid"], "number": row["number"], "kind": row["kind"],
                "parent": row["parent"], "first": row["first"], "last": row["last"],
                "from": self.releases[row["first"]]["effective"], "to": self.releases[row["last"]]["effective"],
                "title": title, "text": text, "examples": list(examples), "text_id": row["text"]}

    def lineage(self, lineage: int) -> list[dict[str, Any]]:
        rows = self.db.execute("SELECT * FROM spans WHERE lineage = ? ORDER BY first", (lineage,)).fetchall()
        return [self._span(r) for r in rows]

    def now(self, lineage: int) -> dict[str, Any]:
        """Where a lineage is in the newest release: {"number", "id"} or {"deleted_after": date, "deleted_in": date}."""
        row = self.db.execute("SELECT * FROM lineages WHERE id = ?", (lineage,)).fetchone()
        if row["current"] is not None:
            return {"id": row["current"], "number": row["current"].split("/", 1)[1]}
        last = row["last"]
        return {"id": None, "number": None, "last_number": row["last_number"],
                "deleted_after": self.releases[last]["effective"],
                "deleted_in": self.releases[last + 1]["effective"] if last + 1 < len(self.releases) else None}

    def current_lineage(self, number: str) -> int | None:
        row = self.db.execute("SELECT lineage FROM spans WHERE rid = ? AND last = ?",
                              ("cr/" + number.lower(), self.newest)).fetchone()
        return row["lineage"] if row else None

    def old_number(self, number: str) -> list[dict[str, Any]]:
        """Every unbroken run of releases in which one lineage used ``number``, oldest first, with where its
        text is now. Two rules can take turns at a number (723.3 and 724.3, restarting a game and a subgame,
        swapped places four times in 2022-2024): each turn is its own run, never one span over the other's."""
        rows = self.db.execute("SELECT * FROM spans WHERE rid = ? ORDER BY first", ("cr/" + number.lower(),)).fetchall()
        out: list[dict[str, Any]] = []
        last: dict[int, tuple[int, dict[str, Any]]] = {}  # lineage -> its latest run: its last release, the entry
        for row in rows:
            run = last.get(row["lineage"])
            if run is not None and run[0] + 1 == row["first"]:  # the same text's next span, or a reworded one
                entry = run[1]
            else:
                entry = {"lineage": row["lineage"], "from": self.releases[row["first"]]["effective"]}
                out.append(entry)
            entry["to"] = self.releases[row["last"]]["effective"]
            last[row["lineage"]] = (row["last"], entry)
        for entry in out:
            entry["now"] = self.now(entry["lineage"])
        return out

    # -- diffs -------------------------------------------------------------------------
    def release_rules(self, release: int) -> dict[int, sqlite3.Row]:
        rows = self.db.execute("SELECT * FROM spans WHERE first <= ? AND last >= ?", (release, release)).fetchall()
        return {r["lineage"]: r for r in rows}

    def diff(self, a: int, b: int) -> dict[str, Any]:
        return _diff(self, a, b)

    # -- dated citations -------------------------------------------------------------
    def citations(self, record_id: str) -> list[dict[str, Any]]:
        rows = self.db.execute("SELECT * FROM citations WHERE record = ? ORDER BY field, start",
                               (record_id,)).fetchall()
        columns = set(rows[0].keys()) if rows else set()  # a build written before then_ has no such column
        return [{"ref": r["ref"], "number": r["number"], "field": r["field"], "start": r["start"],
                 "matches": json.loads(r["matches"]), "now": r["now"], "note": r["note"],
                 # the release it meant, within when its document was written (the last it matches otherwise)
                 "then": r["then_"] if "then_" in columns else (json.loads(r["matches"]) or [None])[-1]}
                for r in rows]

    def estimate(self, doc: str) -> dict[str, Any] | None:
        row = self.db.execute("SELECT estimate FROM documents WHERE doc = ?", (doc,)).fetchone()
        return json.loads(row["estimate"]) if row else None

    def moves(self) -> list[dict[str, Any]]:
        rows = self.db.execute("SELECT * FROM moves ORDER BY release, new").fetchall()
        return [{"release": self.releases[r["release"]]["effective"], "old": r["old"], "new": r["new"],
                 "method": r["method"], "similarity": r["similarity"]} for r in rows]


TEXTS_KEPT = 20_000  # rule texts a build's history keeps decoded (of ~60,000 versions), least recently used out


GAP_DAYS = 150  # Wizards publishes a release every few months; longer between two loaded ones, some are not loaded


def release_gap(history: History, day: str) -> dict[str, Any] | None:
    """When ``day`` falls after its release in a stretch of more than GAP_DAYS before the next loaded release: that
    release's day and the days between, else None. A floor judge read /cr@2018-03-01/702.19b ("the 2017-09-29
    release, in force on 2018-03-01") as settled, while no release between 2017-09-29 and 2018-07-13 is loaded
    (Rivals of Ixalan's and Dominaria's)."""
    release = history.release_on(day)
    if release is None:
        return None
    later = [r for r in history.releases if r["effective"] > release["effective"]]
    if not later or day <= release["effective"] or day >= later[0]["effective"]:
        return None
    days = (date.fromisoformat(later[0]["effective"]) - date.fromisoformat(release["effective"])).days
    return {"next": later[0]["effective"], "days": days} if days > GAP_DAYS else None


def dated_matches(history: History | None, query: Any) -> tuple[list[dict[str, Any]], str | None]:
    """What a dated reference ("716.2@2016-07-22") means: one answer per number, and a note when none."""
    if history is None:
        return [], "a dated reference needs the official rules' history (kb build --cr-history DIR)"
    try:
        release = history.release_on(query.date)
    except DateError as exc:
        return [], str(exc)
    if release is None:
        first = history.releases[0]["effective"]
        return [], f"no official release was in force on {query.date}: the history starts {first}"
    out, missing = [], []
    for number in query.numbers:
        spans = history.rules_at(number, release["index"])  # a number the release printed twice: both
        if not spans:
            missing.append(number)
        for span in spans:
            now = history.now(span["lineage"])
            # what it said then, as a current match's summary (a range unfurled as "702.19b-c@2024-01-01: 2 rules");
            # a heading without words of its own, its first sub-rule's (and the next: kb.snippet.leading)
            said = span["text"] or " ".join(
                filter(None, (part for s in leading(history.below(span, release["index"]), itemgetter("text"))
                              for part in (s["number"], s["title"], s["text"]))))
            out.append({"id": None, "doc": "cr", "number": span["number"], "date": query.date,
                        "effective": release["effective"], "url": dated_url(query.date, span_ref(span)),
                        "title": " ".join(filter(None, [span["number"], span["title"]])),
                        "summary": clip(said, 200),
                        "now": now["number"], "now_url": record_url(now["id"]) if now["id"] else None})
    note = f"no rule {', '.join(missing)} in the release of {release['effective']}" if missing else None
    return out, note


def _short(history: History, row: sqlite3.Row) -> dict[str, Any]:
    span = history._span(row)
    return {"id": span["id"], "number": span["number"], "text": _body([span["title"], span["text"], span["examples"]])}


def _diff(history: History, a: int, b: int) -> dict[str, Any]:
    old, new = history.release_rules(a), history.release_rules(b)
    added = [_short(history, row) for lid, row in new.items() if lid not in old]
    removed = [_short(history, row) | {"now": history.now(lid)} for lid, row in old.items() if lid not in new]
    changed: list[dict[str, Any]] = []
    renumbered: list[dict[str, Any]] = []
    moved: list[dict[str, Any]] = []
    restyled: list[dict[str, Any]] = []
    for lid, row in new.items():
        before = old.get(lid)
        if before is None:
            continue
        number_changed = before["rid"] != row["rid"]
        text_changed = before["text"] != row["text"]
        if not number_changed and not text_changed:
            continue
        entry = {"lineage": lid, "old": before["number"], "new": row["number"],
                 "old_id": before["rid"], "new_id": row["rid"]}
        if number_changed:
            moved.append(dict(entry, text_changed=text_changed))
        if text_changed:
            old_text = _body(history._content(before["text"]))
            new_text = _body(history._content(row["text"]))
            if typography(old_text) == typography(new_text):  # quotes or dashes restyled: no change, listed apart
                restyled.append(entry)
                continue
            entry["html"], entry["ops"] = word_diff(old_text, new_text)
            only_numbers = wording(old_text) == wording(new_text)
            (renumbered if only_numbers else changed).append(entry)

    def key(e: dict[str, Any]) -> tuple:
        return _sort_key(e.get("new") or e.get("number"))

    return {"added": sorted(added, key=key), "removed": sorted(removed, key=key), "changed": sorted(changed, key=key),
            "renumbered_references": sorted(renumbered, key=key), "moved": sorted(moved, key=key),
            "typography_only": sorted(restyled, key=key)}


def _sort_key(number: str | None) -> tuple:
    parts = re.findall(r"\d+|[a-z]+", (number or "").lower())
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts)
