"""The history of the official rules: rule identity across releases, stored as what changed.

Input: every release, parsed (ingest.releases). Output: ``history.sqlite``
beside the build's records, read lazily by kb.history.

**Identity across renumbering.** Consecutive releases are matched rule by
rule (numbered records: chapters, sections, rules, sub-rules), in five steps,
each only over what the earlier steps left unmatched:

1. same number, same text once rule numbers inside it are masked
   ("See rule 716.2" and "See rule 717.2" read alike);
2. same masked text under another number, when that text occurs equally
   often among the unmatched on both sides (paired in reading order): a rule
   that moved, e.g. 716.2 -> 717.2 when a section is inserted before it;
3. same number, text changed but still similar (word-level similarity
   >= 0.5): the rule was edited in place -- unless either rule reads more
   like an unmatched rule under another number (similarity above both the
   pair's and 0.75) and neither holds the other whole (a split keeps its
   number): then step 4 decides first, and the pair is taken after it only
   if step 4 paired neither rule otherwise (2026-08-07: 704.5w became
   704.5x with a sentence added; number first paired the two 704.5x);
4. another number, similar text (>= 0.75, each the other's best): moved
   and edited;
5. a number both releases still leave unmatched: rewritten in place when
   alike enough by other measures (``_Matching.rewritten``);
6. another number, both still unmatched: moved and rewritten when one holds
   nearly all of the other's words in order and each is the other's best
   (``_Matching.moved_and_rewritten``: 2021-06-09 moved 702.19e to 702.19g
   with a sentence added).

What no step matches is new (in the newer release) or deleted (in the older).
A lineage is the chain of matched rules; each keeps its spans: consecutive
releases where it had one number and one text.

**Storage: SQLite**, one file per build. About 62 releases x 4,000 rules are
225,000 (rule, release) pairs but only ~10,000 distinct texts; stored as
spans over shared texts the file is a few MB. SQLite answers "the rule
numbered N in force on date D", "every span of lineage L" and "all rules of
release R" from indexes without loading anything at start-up (kb serve opens
it on first use), it is in the standard library, and it is written inside
the build directory, so it is published atomically with the rest of the build.
"""
from __future__ import annotations

import errno
import json
import re
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path

from ingest.releases import Release
from kb.history import HISTORY_FILE, typography
from kb.model import kind_counts

__all__ = ["Lineages", "match_releases", "write_history", "mask_numbers", "similarity", "HISTORY_FILE"]

_NUMBER = re.compile(r"\b\d{3}(?:\.\d+[a-z]{0,2})?\b")
SAME_NUMBER_SIMILARITY = 0.5
MOVED_SIMILARITY = 0.75
CONTAINED = 0.8  # step 5: the share of the shorter text's words found, in order, in the longer
ALIKE = 0.6  # step 5: less alike than that, a same-number pair is taken only if neither reads more like another
MOVED_WORDS = 8  # step 6: a text this short ("Reserved.", a heading's name) holds too little to follow it moved


_PLAIN_WORD = re.compile(r"[\w#{}+/']+")


def _plain_words(text: str) -> list[str]:
    """A text's words without punctuation, in one typography (kb.history.typography: curly quotes read as straight;
    a dash, which no word holds, parts words as a space does) (step 5)."""
    return _PLAIN_WORD.findall(typography(text).lower())


def _measures(a: list[str], b: list[str]) -> tuple[float, float]:
    """Step 5's two measures of two texts' words: their similarity, and the share of the shorter found, in order,
    in the longer."""
    blocks = SequenceMatcher(None, a, b, autojunk=False)
    shorter = min(len(a), len(b))
    return blocks.ratio(), sum(block.size for block in blocks.get_matching_blocks()) / shorter if shorter else 0.0


def _alike(a: list[str], b: list[str]) -> float:
    """Step 5's measure of how alike two texts are: the larger of the two (0 when either has no words)."""
    return max(_measures(a, b)) if a and b else 0.0


def mask_numbers(text: str) -> str:
    """Rule numbers masked, so that renumbered cross-references do not count as changes."""
    return _NUMBER.sub("#", text)


def similarity(a: str, b: str) -> float:
    """Word-level similarity in [0, 1] (difflib's ratio over words)."""
    return SequenceMatcher(None, a.split(), b.split(), autojunk=False).ratio()


def _similar(a: _Rule, b: _Rule, threshold: float) -> float:
    """``similarity`` when it can reach ``threshold``; 0 when the shared words already say it cannot."""
    if not a.words or not b.words:
        return 0.0
    # The shorter text bounds the ratio exactly (2 * matched / total words): a cheap first test.
    if 2 * min(a.length, b.length) / (a.length + b.length) < threshold:
        return 0.0
    # Shared distinct words bound the ratio from above (up to repeated words): skip the costly ones.
    shared = len(a.words & b.words)
    if 2 * shared / (len(a.words) + len(b.words)) < threshold - 0.15:
        return 0.0
    return similarity(a.masked, b.masked)


def _contained(a: _Rule, b: _Rule) -> bool:
    """Is one rule's text wholly inside the other's (every word of the shorter, in order)?

    2017-01-20 split 702.50a: its definition stayed 702.50a and the rest, with the example, became
    702.50b, which reads more like the old 702.50a (0.75 against 0.57) but is the part that moved.
    """
    x, y = a.masked.split(), b.masked.split()
    blocks = SequenceMatcher(None, x, y, autojunk=False).get_matching_blocks()
    return sum(block.size for block in blocks) == min(len(x), len(y))


@dataclass(frozen=True)
class _Rule:
    id: str  # record id in its release ("cr/702.175-2" for the second of a number used twice)
    number: str
    kind: str
    parent: str | None
    content: tuple  # (title, text, examples): what is shown and compared
    masked: str  # title, text and examples as one string, rule numbers masked
    words: frozenset[str]  # the distinct words of ``masked``
    length: int  # how many words ``masked`` has


def _rules(release: Release) -> list[_Rule]:
    out = []
    for r in release.records:
        if r.number is None or r.kind not in ("rule", "chapter"):
            continue
        masked = mask_numbers(" ".join(filter(None, [r.title, r.text, *r.examples])))
        out.append(_Rule(r.id, r.number, r.kind, r.parent, (r.title, r.text, r.examples), masked,
                         frozenset(masked.split()), len(masked.split())))
    return out


def match_releases(old: list[_Rule], new: list[_Rule]) -> dict[int, tuple[int, str, float]]:
    """new index -> (old index, method, similarity) for every rule of ``new`` that continues one of ``old``."""
    m = _Matching(old, new)
    m.same()
    m.moved()
    m.edited()
    m.moved_and_edited()
    m.edited_deferred()
    m.rewritten()
    m.moved_and_rewritten()
    return m.matched


class _Matching:
    """The five steps of the module docstring, each over what the earlier ones left."""

    def __init__(self, old: list[_Rule], new: list[_Rule]):
        self.old, self.new = old, new
        self.matched: dict[int, tuple[int, str, float]] = {}
        self.used: set[int] = set()
        self.old_by_id = {r.id: i for i, r in enumerate(old)}
        self.deferred: list[tuple[int, int, float]] = []  # same-number pairs left to step 4 first

    def take(self, n: int, o: int, method: str, score: float) -> None:
        self.matched[n] = (o, method, score)
        self.used.add(o)

    def same(self) -> None:
        for n, r in enumerate(self.new):
            o = self.old_by_id.get(r.id)
            if o is not None and self.old[o].masked == r.masked:
                self.take(n, o, "same", 1.0)

    def moved(self) -> None:
        groups_old: dict[tuple[str, str], list[int]] = {}
        groups_new: dict[tuple[str, str], list[int]] = {}
        for o, r in enumerate(self.old):
            if o not in self.used:
                groups_old.setdefault((r.kind, r.masked), []).append(o)
        for n, r in enumerate(self.new):
            if n not in self.matched:
                groups_new.setdefault((r.kind, r.masked), []).append(n)
        for key, ns in groups_new.items():
            os_ = groups_old.get(key, [])
            if len(os_) == len(ns):
                for n, o in zip(ns, os_, strict=True):
                    self.take(n, o, "moved", 1.0)

    def edited(self) -> None:
        rest_old = [o for o in range(len(self.old)) if o not in self.used]
        rest_new = [n for n in range(len(self.new)) if n not in self.matched]
        for n, r in enumerate(self.new):
            o = self.old_by_id.get(r.id)
            if n in self.matched or o is None or o in self.used or self.old[o].kind != r.kind:
                continue
            score = _similar(self.old[o], r, SAME_NUMBER_SIMILARITY)
            if score < SAME_NUMBER_SIMILARITY:
                continue
            if self._renumbered_fits_better(n, o, score, rest_old, rest_new):
                self.deferred.append((n, o, score))
            else:
                self.take(n, o, "edited", score)

    def edited_deferred(self) -> None:
        """A deferred same-number pair that step 4 did not pair otherwise is edited in place after all."""
        for n, o, score in self.deferred:
            if n not in self.matched and o not in self.used:
                self.take(n, o, "edited", score)

    def rewritten(self) -> None:
        """Step 5: a number both releases still leave unmatched, same kind, is one rule rewritten in place when its
        words, read without punctuation, are at least half alike (2019-07-12 changed only quotation marks and
        dashes: "once-the next time" -> "once—the next time", 0.49 with them), when one of the two holds the other
        nearly whole (``CONTAINED``: a sentence added or an example dropped; 2020-04-17 expanded 100.5 "There is no
        maximum deck size." into three sentences, similarity 0.27, and it read as deleted then and new since), or
        when most of a heading's sub-rules continue the old one's (a heading renamed: 2024-06-07 308 Tribals ->
        Kindreds, 2019-08-23 716 Ending the Turn -> Ending Turns and Phases); or, less alike (``ALIKE`` by the larger
        of the two measures: 2024-11-08 cut damage assignment order out of 510.1c, 0.68), when neither rule reads
        more like another rule left unmatched (2017-04-28 201.3b, 0.63 alike, is the old 201.3a moved down, 1.0)."""
        old_at = {r.id: o for o, r in enumerate(self.old) if o not in self.used}
        below_old: dict[str, set[int]] = {}
        for o, r in enumerate(self.old):
            if r.parent:
                below_old.setdefault(r.parent, set()).add(o)
        below_new: dict[str, list[int]] = {}
        for n, r in enumerate(self.new):
            if r.parent:
                below_new.setdefault(r.parent, []).append(n)
        for n, r in enumerate(self.new):
            found = old_at.get(r.id)
            if n in self.matched or found is None or found in self.used or self.old[found].kind != r.kind:
                continue
            o = found
            score, held = _measures(_plain_words(self.old[o].masked), _plain_words(r.masked))
            children = below_new.get(r.id, [])
            continued = sum(1 for c in children if c in self.matched and self.matched[c][0] in below_old.get(
                self.old[o].id, ()))
            if (score >= SAME_NUMBER_SIMILARITY or held >= CONTAINED or children and 2 * continued > len(children)
                    or max(score, held) >= ALIKE and not self._alike_elsewhere(n, o, max(score, held))):
                self.take(n, o, "rewritten", score)

    def moved_and_rewritten(self) -> None:
        """Step 6: a rule left unmatched under another number is the same rule moved and rewritten when one of the
        two holds at least ``CONTAINED`` of the other's words in order (read without punctuation), the shorter has
        at least ``MOVED_WORDS`` words, the new rule is 0.4 to 2.5 times the old one's length (a piece split off a
        rule is not the rule, nor a longer rule that says it in passing), and each is the other's best by step 5's
        measure: 2021-06-09 moved 702.19e ("Multiple instances of trample on the same creature are redundant.") to
        702.19g with a sentence added
        (similarity 0.62, under step 4's 0.75), 2024-11-08 cut damage assignment order out of 509.7 as it became
        509.4, 2020-04-17 added a sentence to Brawl's 903.11d as it became 903.12d; each read as deleted and new."""
        rest_new = [n for n in range(len(self.new)) if n not in self.matched]
        rest_old = [o for o in range(len(self.old)) if o not in self.used]
        if not rest_new or not rest_old or len(rest_new) * len(rest_old) > 250_000:
            return
        words_old = {o: _plain_words(self.old[o].masked) for o in rest_old}
        words_new = {n: _plain_words(self.new[n].masked) for n in rest_new}

        def scored() -> Iterator[tuple[int, int, float]]:
            for n in rest_new:
                for o in rest_old:
                    a, b = words_old[o], words_new[n]
                    if self.old[o].kind != self.new[n].kind or min(len(a), len(b)) < MOVED_WORDS:
                        continue
                    if not 2 * len(a) <= 5 * len(b) <= 25 * len(a) or not set(a) & set(b):
                        # a new rule under 0.4 of the old one's length that the old one holds is a piece split off
                        # it (2022-11-18's 713.2c, one meld pair of the old 713.1a's list), and one over 2.5 times it
                        # that holds the old is another rule saying it in passing (2023-04-14's 707.8a, on tokens,
                        # holds "each face of a double-faced card has its own set of characteristics")
                        continue
                    score, held = _measures(a, b)
                    if held >= CONTAINED:
                        yield n, o, max(score, held)

        self._take_mutual_best(scored(), "moved+rewritten")

    def _take_mutual_best(self, pairs: Iterable[tuple[int, int, float]], method: str) -> None:
        """Take each (new, old, score) pair where each rule is the other's best (steps 4 and 6)."""
        best_for_new: dict[int, tuple[float, int]] = {}
        best_for_old: dict[int, tuple[float, int]] = {}
        for n, o, score in pairs:
            if score > best_for_new.get(n, (0.0, -1))[0]:
                best_for_new[n] = (score, o)
            if score > best_for_old.get(o, (0.0, -1))[0]:
                best_for_old[o] = (score, n)
        for n, (score, o) in best_for_new.items():
            if best_for_old.get(o, (0.0, -1))[1] == n:
                self.take(n, o, method, score)

    def _alike_elsewhere(self, n: int, o: int, score: float) -> bool:
        """Does either rule of a same-number pair read more alike (step 5's measure) a rule left unmatched under
        another number?"""
        kind = self.new[n].kind
        mine_old, mine_new = _plain_words(self.old[o].masked), _plain_words(self.new[n].masked)
        for other in range(len(self.old)):
            if other != o and other not in self.used and self.old[other].kind == kind \
                    and _alike(_plain_words(self.old[other].masked), mine_new) > score:
                return True
        for other in range(len(self.new)):
            if other != n and other not in self.matched and self.new[other].kind == kind \
                    and _alike(mine_old, _plain_words(self.new[other].masked)) > score:
                return True
        return False

    def _renumbered_fits_better(self, n: int, o: int, score: float, rest_old: list[int], rest_new: list[int]) -> bool:
        """Does either rule of a same-number pair read more like a rule under another number?

        Number first is right when a rule is edited in place, wrong when one is inserted before it: in
        2026-08-07 the battle-protector rule 704.5w became 704.5x (one sentence added, similarity 0.91)
        while the old 704.5x (Sieges) was rewritten as 704.5y; the same-number pair 704.5x/704.5x reads
        only 0.50 alike. Such a pair is left to step 4, which pairs each rule with its best match; if
        step 4 pairs neither rule otherwise, the pair is taken after it (``edited_deferred``).
        """
        if _contained(self.old[o], self.new[n]):
            return False  # one holds the other whole: a rule split or trimmed in place keeps its number
        bar = max(score, MOVED_SIMILARITY)
        kind = self.new[n].kind
        for other in rest_old:
            if other != o and self.old[other].kind == kind and _similar(self.old[other], self.new[n], bar) > bar:
                return True
        for other in rest_new:
            if other != n and self.new[other].kind == kind and _similar(self.old[o], self.new[other], bar) > bar:
                return True
        return False

    def moved_and_edited(self) -> None:
        rest_new = [n for n in range(len(self.new)) if n not in self.matched]
        rest_old = [o for o in range(len(self.old)) if o not in self.used]
        if not rest_new or not rest_old or len(rest_new) * len(rest_old) > 250_000:
            return
        scored = ((n, o, score) for n in rest_new for o in rest_old if self.old[o].kind == self.new[n].kind
                  for score in (_similar(self.old[o], self.new[n], MOVED_SIMILARITY),) if score >= MOVED_SIMILARITY)
        self._take_mutual_best(scored, "moved+edited")


@dataclass
class Lineages:
    """Every lineage's history, release by release: the result of matching all releases in order."""

    releases: list[Release]
    # lineage -> [(release index, rule)], in release order
    chains: dict[int, list[tuple[int, _Rule]]]
    # (release index of the newer rule, old id, new id, method, similarity) for every match whose number changed
    moves: list[tuple[int, str, str, str, float]]
    # per release: rule id -> lineage
    lineage_at: list[dict[str, int]]

    def per_release(self) -> list[dict[str, _Rule]]:
        """Per release: rule id -> rule."""
        out: list[dict[str, _Rule]] = [{} for _ in self.releases]
        for chain in self.chains.values():
            for ri, rule in chain:
                out[ri][rule.id] = rule
        return out

    def current_number(self, release: int, rid: str) -> str | None:
        """Where the text of rule ``rid`` of release ``release`` lives in the newest release (None: deleted)."""
        lid = self.lineage_at[release].get(rid)
        if lid is None:
            return None
        last_ri, last_rule = self.chains[lid][-1]
        return last_rule.id.split("/", 1)[1] if last_ri == len(self.releases) - 1 else None

    @classmethod
    def build(cls, releases: list[Release], tick: Callable[[int, int], None] | None = None) -> Lineages:
        chains: dict[int, list[tuple[int, _Rule]]] = {}
        moves: list[tuple[int, str, str, str, float]] = []
        previous: list[_Rule] = []
        previous_lineage: list[int] = []
        next_id = 0
        lineage_at: list[dict[str, int]] = []
        for ri, release in enumerate(releases):
            rules = _rules(release)
            lineage_of = []
            matched = match_releases(previous, rules) if previous else {}
            for n, rule in enumerate(rules):
                if n in matched:
                    o, method, score = matched[n]
                    lid = previous_lineage[o]
                    if previous[o].id != rule.id:
                        moves.append((ri, previous[o].id, rule.id, method, score))
                else:
                    lid = next_id
                    next_id += 1
                chains.setdefault(lid, []).append((ri, rule))
                lineage_of.append(lid)
            previous, previous_lineage = rules, lineage_of
            lineage_at.append({rule.id: lid for rule, lid in zip(rules, lineage_of, strict=True)})
            if tick is not None:  # "matching rules across 62 official releases" was ~9 s of silence
                tick(ri + 1, len(releases))
        return cls(releases, chains, moves, lineage_at)


_SCHEMA = """
CREATE TABLE releases (idx INTEGER PRIMARY KEY, effective TEXT UNIQUE NOT NULL, version TEXT NOT NULL,
    file TEXT NOT NULL, encoding TEXT NOT NULL, line_endings TEXT NOT NULL, fallback INTEGER NOT NULL,
    rules INTEGER NOT NULL, slips TEXT NOT NULL);
CREATE TABLE texts (id INTEGER PRIMARY KEY, content TEXT UNIQUE NOT NULL);
CREATE TABLE lineages (id INTEGER PRIMARY KEY, first INTEGER NOT NULL, last INTEGER NOT NULL,
    current TEXT, last_number TEXT NOT NULL);
CREATE TABLE spans (lineage INTEGER NOT NULL, first INTEGER NOT NULL, last INTEGER NOT NULL,
    rid TEXT NOT NULL, number TEXT NOT NULL, kind TEXT NOT NULL, parent TEXT, text INTEGER NOT NULL);
CREATE INDEX spans_by_number ON spans (number, first);
CREATE INDEX spans_by_rid ON spans (rid, first);
CREATE INDEX spans_by_lineage ON spans (lineage, first);
CREATE INDEX spans_by_release ON spans (first, last);
CREATE TABLE moves (release INTEGER NOT NULL, old TEXT NOT NULL, new TEXT NOT NULL, method TEXT NOT NULL,
    similarity REAL NOT NULL);
CREATE TABLE citations (record TEXT NOT NULL, ref TEXT NOT NULL, number TEXT NOT NULL, field TEXT NOT NULL,
    start INTEGER, matches TEXT NOT NULL, now TEXT, note TEXT NOT NULL, then_ TEXT);
CREATE INDEX citations_by_record ON citations (record);
CREATE TABLE documents (doc TEXT PRIMARY KEY, estimate TEXT NOT NULL);
"""


def _continues(start: tuple[int, _Rule], before: tuple[int, _Rule], here: tuple[int, _Rule]) -> bool:
    """Does ``here`` continue the span that began at ``start``: next release, same number, same text?"""
    return here[0] == before[0] + 1 and here[1].id == start[1].id and here[1].content == start[1].content


def write_history(path: Path, lineages: Lineages, citations: list[dict] | None = None,
                  estimates: dict[str, dict] | None = None) -> None:
    """Write ``history.sqlite`` at ``path`` (inside a build being written)."""
    path = Path(path)
    citations = citations or []
    estimates = estimates or {}
    if path.exists():
        path.unlink()
    db = sqlite3.connect(path)
    try:
        _fill(db, lineages, citations, estimates)
    except sqlite3.OperationalError as exc:
        # "database or disk is full" (the VACUUM copies the whole database): the build's writer reports an OSError
        # in one line and keeps the previous build; a traceback reached `kb build` and `kb serve` before
        full = "full" in str(exc)
        raise OSError(errno.ENOSPC if full else errno.EIO, str(exc), str(path)) from None
    finally:
        db.close()


def _fill(db: sqlite3.Connection, lineages: Lineages, citations: list[dict], estimates: dict[str, dict]) -> None:
    db.executescript(_SCHEMA)
    newest = len(lineages.releases) - 1
    db.executemany("INSERT INTO releases VALUES (?,?,?,?,?,?,?,?,?)", [
        (i, r.effective, r.version, r.file, r.decoded["encoding"], r.decoded["line_endings"],
         int(r.decoded["fallback"]), kind_counts(r.records).get("rule", 0),
         json.dumps(r.slips, ensure_ascii=False))
        for i, r in enumerate(lineages.releases)
    ])
    text_ids: dict[tuple, int] = {}
    spans = []
    lineage_rows = []
    for lid, chain in lineages.chains.items():
        start = 0
        for k in range(1, len(chain) + 1):
            if k == len(chain) or not _continues(chain[start], chain[k - 1], chain[k]):
                rule = chain[start][1]
                tid = text_ids.setdefault(rule.content, len(text_ids))
                # numbers in lower case, as rule ids are: kb.history looks them up in the number index as such
                spans.append((lid, chain[start][0], chain[k - 1][0], rule.id, rule.number.lower(), rule.kind,
                              rule.parent, tid))
                start = k
        last_ri, last_rule = chain[-1]
        current = last_rule.id if last_ri == newest else None
        lineage_rows.append((lid, chain[0][0], last_ri, current, last_rule.number))
    db.executemany("INSERT INTO texts VALUES (?,?)", [
        (i, json.dumps([c[0], c[1], list(c[2])], ensure_ascii=False)) for c, i in text_ids.items()])
    db.executemany("INSERT INTO lineages VALUES (?,?,?,?,?)", lineage_rows)
    db.executemany("INSERT INTO spans VALUES (?,?,?,?,?,?,?,?)", spans)
    db.executemany("INSERT INTO moves VALUES (?,?,?,?,?)", lineages.moves)
    db.executemany("INSERT INTO citations VALUES (?,?,?,?,?,?,?,?,?)", [
        (c["record"], c["ref"], c["number"], c["field"], c["start"], json.dumps(c["matches"]), c["now"],
         c["note"], c.get("then")) for c in citations
    ])
    db.executemany("INSERT INTO documents VALUES (?,?)",
                   [(doc, json.dumps(e, ensure_ascii=False)) for doc, e in estimates.items()])
    db.commit()
    db.execute("VACUUM")
