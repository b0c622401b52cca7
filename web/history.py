"""Pages and API for the official rules across time: a rule on a date, a rule's history, a diff.

Routes (each page with its JSON twin under ``/api``, built from one data function):

- ``/cr@<date>/<number>``: the rule as it stood in the release in force on that date (any date);
  when its text lives under another number now, a banner says "now 727.2";
- ``/cr/<number>/history``: every release span of the rule's text, word-level changes, former numbers;
- ``/diff/cr/<date>..<date>``: added, removed, changed (``<ins>``/``<del>``) and moved rules between the
  releases in force on two dates; changes that only renumber cross-references are listed apart;
- ``/api/cr/releases``: every release with its encoding, line endings and slips.

Every answer names the release it shows by its effective date (ISO). Each data function returns
``(data, extra)`` as web.data's do: ``data`` is the JSON twin and carries everything its page shows.
"""
from __future__ import annotations

import json
import re
from datetime import date
from operator import itemgetter
from typing import Any
from urllib.parse import quote

from flask import Blueprint, current_app, jsonify, redirect, request
from markupsafe import Markup, escape
from werkzeug.exceptions import BadRequest, NotFound

from kb.cache import ByteLRU
from web.app import prefers_json
from web.gate import heavy_work
from kb.ids import dated_url, record_url
from kb.refs import find_refs
from kb.snippet import clip, leading
from kb.words import typed
from kb.history import (DateError, History, parse_date, release_gap, span_ref, span_text, typography, word_diff,
                        wording)
from kb.kbase import Opened
from web.render import mana, render_inline
from web.pages import kept_page, render_page

__all__ = ["history_pages", "rule_at_data", "rule_history_data", "diff_data", "releases_data"]

history_pages = Blueprint("history", __name__)


def _dated_refs(text: str, day: str) -> list[tuple[int, int, str, str]]:
    """(start, end, as written, url) of each reference a rule's text as it stood makes to another official rule,
    linked as that rule stood the same day ("See rule 509" on /cr@2019-01-25/702.19b is /cr@2019-01-25/509)."""
    out = []
    for ref in find_refs(text or ""):
        if ref.query.doc not in (None, "cr") or not ref.query.numbers or ref.query.date:
            continue
        url = dated_url(day, ref.query.numbers[0]) if len(ref.query.numbers) == 1 \
            else "/r/" + quote(f"{ref.text}@{day}", safe="")
        out.append((ref.start, ref.end, ref.text, url))
    return out


@history_pages.app_template_filter("dated_text")
def _dated_text(text: str, day: str) -> Markup:
    """A rule's text as it stood, its references linked as they stood that day (the dated pages linked nothing)."""
    out: list[str] = []
    pos = 0
    for start, end, written, url in _dated_refs(text, day):
        out.append(render_inline(text[pos:start]))
        out.append(f'<a class="ref" href="{escape(url)}">{render_inline(written)}</a>')
        pos = end
    out.append(render_inline((text or "")[pos:]))
    return Markup("".join(out))

_NUMBER = re.compile(r"^\d{1,3}(?:\.\d{1,3}[a-z]{0,2})?(?:-\d)?$")  # "-2": a number printed twice
# (build, a, b) -> diff, bounded by what the diffs weigh (2015 -> 2026 is ~1.4 MB as JSON): kept by count, 65
# distinct pairs grew a worker by 300 MB
DIFF_CACHE_BYTES = 6 * 1024 * 1024


def _diffs(kb: Opened) -> ByteLRU[dict[str, Any]]:
    """(a, b) -> the diff of two releases, per build (kb.derived)."""
    return kb.derived.cache("diffs", DIFF_CACHE_BYTES, weigh=_weight)


def _weight(diff: dict[str, Any]) -> int:
    """About what a diff holds in memory: its texts and word diffs, and a few hundred bytes an entry."""
    # a dict and its strings' headers (~60 bytes each), the text, and each op a list of two strings (~250 bytes)
    return sum(700 + sum(60 + len(v) for v in entry.values() if isinstance(v, str)) + 250 * len(entry.get("ops") or ())
               for entries in diff.values() for entry in entries)


def _kb() -> Opened:
    return current_app.extensions["kb"].current()


def _history(kb: Opened) -> History:
    if kb.history is None:
        raise NotFound("this server has no history of the official rules: it was started without their releases "
                       "(its operator can add them: kb serve --cr-history DIR)")
    return kb.history


def _number(number: str) -> str:
    number = typed(number).strip().lower().rstrip(".")
    if not _NUMBER.match(number):
        raise NotFound(f"{number[:40]!r} is not an official rule number (like 727.2 or 702.19c)")
    return number


def _ref_of(rid: str) -> str:
    """A diff entry's rule as a dated URL names it: its id's number (``702.175-2`` for a second copy)."""
    return rid.split("/", 1)[1]


def _date(day: str) -> str:
    try:
        return parse_date(day)
    except DateError as exc:
        raise BadRequest(str(exc)) from None


def _in_force(history: History, day: str) -> dict[str, Any]:
    release = history.release_on(_date(day))
    if release is None:
        first = history.releases[0]["effective"]
        raise NotFound(f"no official release was in force on {day}: the history starts {first}")
    return release


# -- data ------------------------------------------------------------------------------------------
def rule_at_data(kb: Opened, day: str, number: str) -> tuple[dict[str, Any], dict[str, Any]]:
    history = _history(kb)
    number = _number(number)
    day = _date(day)  # as read: "٢٠١٦-07-22" was compared as written, and said to be still to come
    release = _in_force(history, day)
    spans = history.rules_at(number, release["index"])
    span = spans[0] if spans else None
    if span is None:
        used = history.old_number(number)
        hint = "; ".join(f"{number} was used {u['from']} to {u['to']}" for u in used)
        raise NotFound(f"no rule {number} in the release of {release['effective']}" + (f" ({hint})" if hint else ""))
    now = history.now(span["lineage"])
    # "this text from ... to ...": across releases that only restyled it (quotes, spacing), as its history page
    # shows it (the dated page said "from 2019-07-12" for a text unchanged since 2015 but for its apostrophes)
    lineage, first, last, same = _worded_run(history, span)
    elsewhere = _same_text_elsewhere(lineage, first, last, span["number"], same)
    banner = None
    if now["number"] is None:
        banner = f"deleted: the rule's last release was {now['deleted_after']}"
    elif now["number"] != number:
        banner = f"now {now['number']}"
        if wording(span_text(lineage[-1])) != wording(span_text(span)):
            # /cr@2019-01-25/903.9 said "now 903.9b" of a rule split and reworded since: not only moved
            banner += ", worded otherwise since"
    # The release printed this number twice (2024-09-20: Offspring and Impending as 702.175): each copy links
    # the other, so the number's first copy never stands in for the second.
    twins = [t for t in history.rules_at(span["number"], release["index"]) if t["id"] != span["id"]]
    # The rules right below it as they stood then, each linking to its own dated page: a heading's sub-rules (702.19
    # Trample has no words of its own: its page said its title and nothing else), a section's rules.
    # Everything below it, as the current rule's page reads it (613: its rules, then the layers under 613.1 ...).
    below = [{"number": s["number"], "id": s["id"], "title": s["title"], "text": s["text"], "examples": s["examples"],
              "depth": depth, "url": dated_url(release["effective"], span_ref(s))}
             for s, depth in history.subtree(span, release["index"])]
    return {
        "gap": release_gap(history, day),
        "number": span["number"], "id": span["id"], "kind": span["kind"], "title": span["title"],
        "printed_twice": [{"number": t["number"], "title": t["title"],
                           "url": dated_url(release["effective"], span_ref(t))} for t in twins],
        "text": span["text"], "examples": span["examples"], "rules": below,
        "asked": day, "effective": release["effective"], "version": release["version"], "release": release["file"],
        # a day to come: no release is known to be in force then, only the newest loaded (it said "in force on
        # 2099-01-01")
        "future": day > date.today().isoformat(),
        "span": {"from": lineage[first]["from"], "to": lineage[last]["to"]},
        "elsewhere": elsewhere,
        "now": now, "banner": banner,
        "url": dated_url(release["effective"], span_ref(span)),
        "current_url": f"/{now['id']}" if now["id"] else None,
        "history_url": f"/cr/{now['number']}/history" if now["number"] else None,
        # the rules its text (and the text below it) cites, as they stood in the same release: what the page links
        "cites": [{"text": written, "url": url} for written, url in dict.fromkeys(
            (written, url) for text in [span["text"], *span["examples"],
                                        *(t for r in below for t in (r["text"], *r["examples"]))]
            for _, _, written, url in _dated_refs(text, release["effective"]))],
    }, {}


def _same_text_elsewhere(lineage: list[dict], first: int, last: int, number: str, same: str) -> list[dict]:
    """The numbers the same text (typography aside) stood under right before and after this number held it, each
    run once with its releases and its first dated page: /cr@2016-07-22/716.2 said "this text in the 2016-07-22
    release only" of a text that stood as 714.2 in 2015 and as 717.2 ... 727.2 since (the rule moved)."""
    lo, hi = first, last
    while lo > 0 and typography(span_text(lineage[lo - 1])) == same:
        lo -= 1
    while hi + 1 < len(lineage) and typography(span_text(lineage[hi + 1])) == same:
        hi += 1
    runs: list[dict] = []
    for s in lineage[lo:first] + lineage[last + 1:hi + 1]:
        if s["number"] == number:
            continue
        if runs and runs[-1]["number"] == s["number"] and runs[-1]["last"] + 1 == s["first"]:
            runs[-1].update(to=s["to"], last=s["last"])
        else:
            runs.append({"number": s["number"], "from": s["from"], "to": s["to"], "last": s["last"],
                         "url": dated_url(s["from"], span_ref(s))})
    return [{k: v for k, v in r.items() if k != "last"} for r in runs]


# (build, number) -> a rule's history: its word diffs took ~50 ms a request for a rule with many versions (205.3m),
# the same answer every time for a build; kept within a bound on what the answers weigh (about three times their
# JSON in memory).
HISTORY_CACHE_BYTES = 6 * 1024 * 1024


def _histories(kb: Opened) -> ByteLRU[dict[str, Any]]:
    """number -> a rule's history, per build (kb.derived)."""
    return kb.derived.cache("histories", HISTORY_CACHE_BYTES, weigh=lambda data: 3 * len(json.dumps(data)))


def rule_history_data(kb: Opened, number: str) -> tuple[dict[str, Any], dict[str, Any]]:
    history = _history(kb)
    number = _number(number)
    kept = _histories(kb)
    data = kept.get(number)
    if data is None:  # a number with no history raises its 404 here, and nothing is kept
        data = kept.put(number, _rule_history(history, number) | {"under": _under(kb, f"cr/{number}")})
    return data, {}


def _under(kb: Opened, rid: str) -> dict[str, Any] | None:
    """The heading a rule stands under, which its history's heading names when the rule has no title of its own
    ("727.2  — across releases" read as a title left out; "727.2 Restarting the Game — across releases" now)."""
    record = kb.store.get(rid)
    parent = kb.store.get(record.parent) if record is not None and record.parent else None
    if parent is None:
        return None
    return {"number": parent.number, "title": parent.title, "url": record_url(parent.id)}


def _rule_history(history: History, number: str) -> dict[str, Any]:
    lineage = history.current_lineage(number)
    if lineage is None:
        used = history.old_number(number)
        if not used:
            raise NotFound(f"no official rule {number}, now or in any release since {history.releases[0]['effective']}")
        where = "; ".join(
            f"{number} of {u['from']} to {u['to']} is " + (f"{u['now']['number']} now" if u["now"]["number"]
                                                            else f"deleted ({u['now']['deleted_in']})")
            for u in used)
        raise NotFound(f"{number} is not a current rule number: {where}")
    spans = history.lineage(lineage)
    out: list[dict[str, Any]] = []
    previous = None
    for span in spans:
        body = span_text(span)
        if previous is not None and previous["number"] == span["number"] and \
                typography(previous["body"]) == typography(body):
            # Only quotes or dashes restyled (2019-01-25 printed straight ones): no change, one entry with the
            # newest text, and the releases that restyled it listed (``restyled``).
            entry = out[-1]
            entry.update(to=span["to"], title=span["title"], text=span["text"], examples=span["examples"])
            entry.setdefault("restyled", []).append(span["from"])
            if "diff_html" in entry:
                entry["diff_html"], entry["diff"] = word_diff(previous["before"], body)
            previous["body"] = body
            continue
        entry = {"number": span["number"], "from": span["from"], "to": span["to"], "title": span["title"],
                 "text": span["text"], "examples": span["examples"],
                 "url": dated_url(span["from"], span_ref(span))}
        if previous is not None:
            entry["renumbered"] = previous["number"] != span["number"]
            if typography(previous["body"]) != typography(body):
                entry["diff_html"], entry["diff"] = word_diff(previous["body"], body)
        out.append(entry)
        previous = {"number": span["number"], "body": body, "before": previous["body"] if previous else body}
    numbers = list(dict.fromkeys(s["number"] for s in spans))
    current = history.releases[history.newest]
    # A heading's page showed its own title across releases and nothing of its rules (/cr/702.19/history): the rules
    # right below it today, each with the release its text dates from and a link to its own history.
    below = [{"number": s["number"], "title": s["title"], "since": _worded_since(history, s),
              "url": f"/cr/{s['number']}/history"}
             for s in history.below(spans[-1], history.newest)] if spans[-1]["last"] == history.newest else []
    return {"number": number, "id": f"cr/{number}", "title": spans[-1]["title"],
            "first_words": None if spans[-1]["title"] else first_words(spans[-1]["text"] or ""),
            "effective": current["effective"], "first_seen": spans[0]["from"],
            "former_numbers": [n for n in numbers if n != number], "spans": out[::-1], "rules": below,
            "url": f"/cr/{number}/history", "current_url": f"/cr/{number}", "releases_url": "/cr/releases"}


def first_words(text: str, words: int = 8) -> str:
    """What names a rule without a title in its history's heading: its first words ("903.8 A player may concede
    the game at any time …" where the heading said "903.8 Commander", its section's title)."""
    said = text.split()
    return " ".join(said[:words]) + (" …" if len(said) > words else "")


def _worded_since(history: History, span: dict[str, Any]) -> str:
    """The first release of a current rule's wording, under whatever number it stood then, releases that only
    restyled quotes or dashes or renumbered the rules it cites aside: /cr/715/history said 715.1's text stood
    "since 2023-04-14", when it moved there from 714.1, worded alike since 2019-10-04."""
    lineage = history.lineage(span["lineage"])
    first = next(i for i, s in enumerate(lineage) if s["first"] == span["first"] and s["id"] == span["id"])
    said = wording(span_text(span))
    while first > 0 and wording(span_text(lineage[first - 1])) == said:
        first -= 1
    return lineage[first]["from"]


def _worded_run(history: History, span: dict[str, Any]) -> tuple[list[dict[str, Any]], int, int, str]:
    """``span``'s lineage, the first and last of its spans where the rule kept this number and this wording across
    releases that only restyled it (quotes, spacing), and that wording in one typography."""
    lineage = history.lineage(span["lineage"])
    at = next(i for i, s in enumerate(lineage) if s["first"] == span["first"] and s["id"] == span["id"])
    same = typography(span_text(span))

    def restyled(i: int) -> bool:
        return lineage[i]["number"] == span["number"] and typography(span_text(lineage[i])) == same

    first = last = at
    while first > 0 and restyled(first - 1):
        first -= 1
    while last + 1 < len(lineage) and restyled(last + 1):
        last += 1
    return lineage, first, last, same


def diff_data(kb: Opened, spec: str) -> tuple[dict[str, Any], dict[str, Any]]:
    history = _history(kb)
    a, b, a_day, b_day = _span(history, spec)
    key, kept = (a["index"], b["index"]), _diffs(kb)
    diff = kept.get(key)
    if diff is None:
        with heavy_work():  # the work, not the request, waits its turn: a cached diff does not (web.gate)
            diff = kept.put(key, history.diff(a["index"], b["index"]))
    # Each entry links the rule as it stood: a removed one in the older release, the others in the newer.
    linked = {kind: [entry | {"url": dated_url(a["effective"] if kind == "removed" else b["effective"],
                                               _ref_of(entry.get("new_id") or entry["id"]))} for entry in entries]
              for kind, entries in diff.items()}
    return {"from": history.release_public(a), "to": history.release_public(b), "asked": {"from": a_day, "to": b_day},
            "effective": b["effective"],
            "counts": {k: len(v) for k, v in diff.items()}, **linked,
            "url": f"/diff/cr/{a['effective']}..{b['effective']}"}, {}


def _span(history: History, spec: str) -> tuple[dict[str, Any], dict[str, Any], str, str]:
    """The two releases a diff's spec names, and the days as asked."""
    a_day, sep, b_day = spec.partition("..")
    if not sep:
        raise BadRequest("write a diff as two dates: /diff/cr/2026-06-19..2026-08-07")
    # compared as read: "2026-08-07..٢٠١٥-01-23" passed the order check as written and answered a reversed diff; a
    # year alone is its last day, as a short link reads one (/diff/cr/2019..2020 asked for YYYY-MM-DD)
    a_day, b_day = (_date(min(f"{d}-12-31", date.today().isoformat()) if re.fullmatch(r"(?:19|20)\d\d", typed(d))
                          else d) for d in (a_day, b_day))
    a, b = _in_force(history, a_day), _in_force(history, b_day)
    if a_day > b_day:
        raise BadRequest(f"{a_day} is after {b_day}: write the older date first")
    return a, b, a_day, b_day


def releases_data(kb: Opened) -> tuple[dict[str, Any], dict[str, Any]]:
    history = _history(kb)
    releases = [history.release_public(r) | {"slip_list": r["slips"]} for r in history.releases]
    # Each release but the first links its changes since the one before (diff_url).
    for before, release in zip(releases, releases[1:], strict=False):
        release["diff_url"] = f"/diff/cr/{before['effective']}..{release['effective']}"
    return {"effective": releases[-1]["effective"], "releases": releases[::-1]}, {}


# -- pages and their JSON twins ---------------------------------------------------------------------
@history_pages.get("/cr@<day>/<path:number>")
def rule_at(day: str, number: str):
    data, extra = rule_at_data(_kb(), day, number)
    # As record pages' previews read: "label: text…", cut after a whole word, and the release it stood in.
    label = " ".join(filter(None, [data["number"], data["title"]]))
    # A heading without words of its own previews its first sub-rule, as the current rule's page does.
    first = leading([r for r in data["rules"] if r["text"]], itemgetter("text"))
    said = (f"{label}: {data['text']}" if data["text"]
            else " ".join(f"{r['number']} {r['text']}" for r in first) if first else label)
    # the heading's name in the title ("702.19 Trample as of 2019-01-25"): the 2024-09-20 release's two 702.175s,
    # Offspring and Impending, unfurled under one title
    return render_page("cr_at.html", title=f"{label} as of {data['effective']} — Comprehensive Rules",
                       description=clip(said, 300) + f" — Comprehensive Rules as of {data['effective']}",
                       alternate=f"/api/cr@{day}/{quote(number)}", data=data, twin=data, **extra)


@history_pages.get("/api/cr@<day>/<path:number>")
def api_rule_at(day: str, number: str):
    return jsonify(rule_at_data(_kb(), day, number)[0])


@history_pages.get("/cr/<path:number>/history")
def rule_history(number: str):
    kb = _kb()
    data, extra = rule_history_data(kb, number)
    return render_page("cr_history.html", title=f"{data['number']} across releases — Comprehensive Rules",
                       description=f"Every version of {data['number']} since {data['first_seen']}",
                       alternate=f"/api/cr/{quote(data['number'])}/history", data=data, twin=data, Markup=Markup,
                       mana=mana, once=(kb, "history:" + data["number"], data["url"]), **extra)


@history_pages.get("/api/cr/<path:number>/history")
def api_rule_history(number: str):
    return jsonify(rule_history_data(_kb(), number)[0])


@history_pages.get("/diff/cr/<spec>")
def diff(spec: str):
    kb = _kb()
    a, b, _, _ = _span(_history(kb), spec)
    url = f"/diff/cr/{a['effective']}..{b['effective']}"
    if not prefers_json() and (url == request.path or not request.args.get("canonical")):
        kept = kept_page((kb, "diff:" + url))  # its page, kept: answered as a record page is
        if kept is not None:
            return kept
    data, extra = diff_data(kb, spec)
    if request.args.get("canonical") and data["url"] != request.path:
        return redirect(data["url"], code=302)
    title = f"Comprehensive Rules {data['from']['effective']} → {data['to']['effective']}"
    return render_page("cr_diff.html", title=title,
                       description=", ".join(f"{n} {k.replace('_', ' ')}" for k, n in data["counts"].items()),
                       alternate="/api" + data["url"], data=data, twin=data, Markup=Markup, mana=mana,
                       once=(kb, "diff:" + data["url"], data["url"]), guard=heavy_work, **extra)


@history_pages.get("/api/diff/cr/<spec>")
def api_diff(spec: str):
    return jsonify(diff_data(_kb(), spec)[0])


@history_pages.get("/api/cr/releases")
def api_releases():
    return jsonify(releases_data(_kb())[0])


@history_pages.get("/cr/releases")
def releases():
    data, extra = releases_data(_kb())
    return render_page("cr_releases.html", title="Comprehensive Rules releases", description="Every release loaded",
                       alternate="/api/cr/releases", data=data, twin=data, **extra)
