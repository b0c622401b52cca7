"""Per-build tables that replace scans answer exactly what the scans answered.

Search pays a fixed cost per query before and after the index (a card-name
typo scan, facets, snippets); each is now read from a table built once per
build. The scans they replace are written out here, plainly, and compared
over the corpus.
"""
from __future__ import annotations

import random
import re

import pytest

from kb.ids import fold
from kb.resolve import Resolver, _name_key, edit_distance
from web.tools.bench import QUERY_MIX, query_classes


def _bigrams(text: str) -> frozenset[str]:
    return frozenset(text[i:i + 2] for i in range(len(text) - 1))


def scanned_card(resolver: Resolver, name: str, max_typos: int = 2):
    """Resolver.card as it was: every card name's letter pairs compared, then the edit distance."""
    key = _name_key(name)
    if not key or len(key) > 60:
        return None, 0
    if key in resolver.cards:
        return resolver.cards[key], 0
    if len(key) < 4:  # a name of three letters is never a typo ("six" is not Nix; the tenth session's rule)
        return None, 0
    limit = 1 if len(key) <= 5 else max_typos
    best = None
    grams = _bigrams(key)
    for candidate in resolver.cards:
        candidate_grams = _bigrams(candidate)
        if len(grams & candidate_grams) < max(len(grams), len(candidate_grams)) - 3 * limit:
            continue
        d = edit_distance(key, candidate, limit)
        if d <= limit and (best is None or d < best[0]):
            best = (d, candidate)
    said = [w for w in re.findall(r"[a-z]+", fold(name).lower()) if w != "the"]
    if best and best[0] >= 2 and said and all(w in resolver.words for w in said):
        return None, 0  # words the documents use, two letters off a name: those words ("the leader")
    return (resolver.cards[best[1]], best[0]) if best else (None, 0)


def typos(text: str, rng: random.Random, n: int) -> list[str]:
    out = []
    for _ in range(n):
        s = list(text)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(s) or 1)
            op = rng.randrange(3)
            if op == 0 and s:
                del s[i]
            elif op == 1:
                s.insert(i, rng.choice("abcdefghijklmnopqrstuvwxyz "))
            elif i + 1 < len(s):
                s[i], s[i + 1] = s[i + 1], s[i]
        out.append("".join(s))
    return out


def test_the_per_length_name_lists_find_the_card_a_plain_scan_finds(store):
    resolver = Resolver(store)
    rng = random.Random(11)
    names = sorted(resolver.cards)
    queries = list(names) + [n[:k] for n in names for k in (2, 3, 4, 5, 7)]
    queries += [t for n in names for t in typos(n, rng, 4)]
    queries += QUERY_MIX + [q for qs in query_classes(False).values() for q in qs]
    words = sorted({w for r in store.records.values() for w in (r.text or "").lower().split()[:8]})
    queries += rng.sample(words, min(600, len(words)))
    queries += ["", "a", "ab", "abc", "x" * 61, "the", "zzzz", "tarmogyof", "sehts tigr", "venser shapr"]
    found = 0
    for q in queries:
        got, expected = resolver.card(q), scanned_card(resolver, q)
        assert got == expected, q
        found += got[0] is not None and got[1] > 0
    assert found > 200  # typos were found, not only exact names


def scanned_nearest(resolver: Resolver, key: str, limit: int, prefix: str = ""):
    """Resolver._nearest as a scan: every name with ``prefix``, the first in name order of the fewest edits."""
    best = None
    for candidate in resolver.cards:
        if candidate.startswith(prefix):
            d = edit_distance(key, candidate[len(prefix):], limit)
            if d <= limit and (best is None or d < best[0]):
                best = (d, candidate)
    return (resolver.cards[best[1]], best[0]) if best else (None, 0)


def test_the_names_by_length_find_the_card_a_scan_of_every_name_finds(store):
    """The nearest name comes from the names of the lengths in reach, compared in C++: the card a scan of every name
    finds, the first in name order when several are as near, with and without "the ", short names (which share no
    letter pair with a typo) included."""
    resolver = Resolver(store)
    rng = random.Random(5)
    names = sorted(resolver.cards)
    texts = [t for n in names for t in typos(n, rng, 3)] + [n[4:] for n in names if n.startswith("the ")]
    texts += [t for n in names if n.startswith("the ") for t in typos(n[4:], rng, 3)]
    texts += ["qqqqq", "dela", "nixx", "zzzz", "tarmogyof", "metamorf", "sehts tigr", "x" * 40]
    found = 0
    for text in texts:
        key = _name_key(text)
        if not key:
            continue
        for limit in (1, 2):
            for prefix in ("", "the "):
                got = resolver._nearest(key, limit, prefix)
                assert got == scanned_nearest(resolver, key, limit, prefix), (text, limit, prefix)
                found += got[0] is not None
    assert found > 500
    with pytest.raises(ValueError, match="no card-name lists for 3 edits"):  # lists are made for one and two only
        resolver._nearest("tarmogyof", 3)


def scanned_spans(body: str, terms: set[str]) -> list[tuple[int, int]]:
    """Every word of ``body`` whose stem, or (``=word``) whose folded self, is one of ``terms``."""
    from kb.words import TOKEN_RE, fold, stem

    out = []
    for m in TOKEN_RE.finditer(body):
        low = fold(m.group(0).lower())
        if stem(low) in terms or "=" + low in terms:
            out.append(m.span())
    return out


def test_a_records_position_table_finds_the_words_a_scan_finds(store):
    from kb.snippet import Positions, stem
    from kb.words import plain

    rng = random.Random(3)
    records = sorted(store.records.values(), key=lambda r: r.id)
    for record in records[::3]:
        body = plain(record.text or record.rules_text or "")
        words = body.lower().split()
        terms = {stem(w.strip(".,;:()\"'")) for w in rng.sample(words, min(3, len(words)))}
        terms |= {"=" + w.strip(".,;:()\"'") for w in rng.sample(words, min(2, len(words)))}
        terms |= {"damag", "=the", "creatur"}
        assert Positions(body).find(terms) == scanned_spans(body, terms), record.id


def _pair_stems_hold(store) -> int:
    """Every record the re-rank reads as ASCII has each of its words' stems among its stems, so a word
    pair whose two stems it lacks is not in its words (Ranker._by_words skips the substring search)."""
    from kb.rank import Ranker, _Row
    from kb.snippet import stem

    ranker = Ranker(store)
    folded = 0
    for record in store.records.values():
        row = _Row(ranker, record)
        if not row.ascii:
            folded += 1
            continue
        missing = {w for w in row.words.split() if stem(w) not in row.stems}
        assert not missing, (record.id, missing)
    return folded


def test_a_word_pairs_stems_are_in_every_ascii_records_stems(store):
    folded = _pair_stems_hold(store)
    assert folded  # "Æther" and the like: those records are searched for every pair, as before


def test_a_word_pairs_stems_are_in_every_ascii_records_stems_with_the_official_rules(cr_store):
    _pair_stems_hold(cr_store)


def test_a_text_that_fits_is_shown_whole_with_every_match_marked():
    from kb.snippet import snippet, stem

    text = "Punctuation is not considered part of words. Hyphens are considered part of that word."
    assert snippet(text, {stem("part")}) == ("Punctuation is not considered <mark>part</mark> of words. Hyphens are "
                                             "considered <mark>part</mark> of that word.")
    long = "Filler words here. " * 20 + "The part that answers."
    cut = snippet(long, {stem("part")})  # longer than a snippet: a window around the match
    assert cut.startswith("… ") and "<mark>part</mark>" in cut and len(cut) < len(long)


def test_a_snippet_escaped_once_is_the_snippet_escaped_piece_by_piece(cr_store):
    """``_marked`` escapes a snippet's window once, the marks held by two control characters while it does: the
    same string as escaping each piece, for every record's text (quotes, apostrophes, ampersands, angle
    brackets) with its own words marked, and for a text that holds one of those characters (the pieces then)."""
    import html

    from kb.snippet import Positions, _marked, _marked_piece_by_piece

    rng = random.Random(20)
    texts = [r.text for r in cr_store.records.values() if r.text]
    special = [t for t in texts if any(c in t for c in "&<>\"'")]
    assert len(special) > 100
    for text in rng.sample(texts, 400) + special[:300] + ['A "word" & <b>x</b> \x00 it\'s \x01 here, word again',
                                                      "nothing to escape \x00 here \x01, word again"]:
        where = Positions(text)
        spans = where.packed({k for k in list(where.spans)[:6]})
        for start, end in [(0, len(text)), (min(len(text), 5), min(len(text), 120))]:
            inside = [s for s in spans if s >> 32 >= start]
            for escape in (where.escape, html.escape):
                assert _marked(text, inside, start, end, escape) == \
                    _marked_piece_by_piece(text, inside, start, end, escape), text


def test_a_phrase_words_spans_are_among_its_stems_so_marking_leaves_every_snippet_as_it_was(cr_store):
    """``marking`` drops a phrase word (``=word``) whose stem the query holds: every record files the word's spans
    under its stem too, so each snippet is the same string with the word looked up or not."""
    from kb.snippet import Positions, marking, snippet, stem
    from kb.words import plain

    rng = random.Random(22)
    records = [r for r in cr_store.records.values() if r.text]
    left_out = 0
    for record in rng.sample(records, 600):
        body = plain(record.text)
        words = [w.strip(".,;:()\"'").lower() for w in body.split()]
        words = [w for w in words if w.isalpha()]
        if not words:
            continue
        said = rng.sample(words, min(3, len(words)))
        terms = {"=" + w for w in said} | {stem(w) for w in said if stem(w)} | {"damag"}
        marks = marking(terms)
        left_out += len(terms) - len(marks)
        where = Positions(body)
        assert where.find(marks) == where.find(terms), record.id
        assert snippet(where, marks) == snippet(where, terms), record.id
    assert left_out > 500  # most phrase words' stems were there to leave them out


def test_marks_made_by_hand_mark_each_word_once():
    """``Marks`` is public: made from any terms (not only by ``marking``), a word and its stem still mark once."""
    from kb.snippet import Marks, Positions, snippet, stem

    where = Positions("The creature attacks alone.")
    for terms in ({stem("attacks"), "=attacks"}, [stem("attacks"), "=attacks", "=alone"]):
        shown = snippet(where, Marks(terms))
        assert shown.count("<mark>attacks</mark>") == 1, shown
        assert shown == snippet(where, set(terms)), shown


def _windowed_as_scanned(where, terms: set[str], width: int = 220) -> str:
    """``snippet`` for a text longer than ``width``, its window chosen plainly: each match's start, and for each
    the matches starting within reach of it counted one by one; the first with the most."""
    from kb.snippet import _LOW, _marked

    body, spans = where.body, where.packed(terms)
    starts = [s >> 32 for s in spans]
    within = [sum(1 for b in starts[i:] if b < a + width - 60) for i, a in enumerate(starts)]
    first = within.index(max(within))
    spans = spans[first:]
    start = max(0, starts[first] - 60)
    if start:
        space = body.find(" ", start)
        start = space + 1 if 0 <= space < starts[first] else start
    end = min(len(body), start + width)
    if end < len(body):
        space = body.rfind(" ", start, end)
        end = space if space > spans[0] & _LOW else end
    return ("… " if start else "") + _marked(body, spans, start, end, where.escape).strip() + \
        (" …" if end < len(body) else "")


def test_a_long_texts_window_is_where_most_matches_fall_as_counted_one_by_one(cr_store):
    # snippet finds each match's count among the packed spans themselves (bisect), not a list of their starts
    from kb.snippet import Positions, snippet, stem
    from kb.words import plain

    rng = random.Random(24)
    records = [r for r in cr_store.records.values() if r.text and len(plain(r.text)) > 220]
    compared = 0
    for record in rng.sample(records, 500):
        where = Positions(plain(record.text))
        words = [w.strip(".,;:()\"'").lower() for w in where.body.split()]
        words = [w for w in words if w.isalpha()]
        for terms in ({stem(w) for w in rng.sample(words, 3)} | {"damag", "player"}, {stem(rng.choice(words))}):
            if where.packed(terms):
                assert snippet(where, terms) == _windowed_as_scanned(where, terms), record.id
                compared += 1
    assert compared > 900


def test_a_question_names_tournament_procedure_as_the_pattern_alone_finds_it(cr_store):
    """The ``[[outside]]`` pattern runs only when a word of the question starts one of its sayings
    (kb.search.assemble._says): the same answer as the pattern alone, on the bench's queries and every saying
    written into a sentence in other cases, glued to other words, or with letters only case-insensitive matching
    equates (the Kelvin sign, a long s)."""
    from kb.search.assemble import _outside, _says

    entries = cr_store.manifest.get("outside", ())
    assert entries
    texts = [q for qs in query_classes(True).values() for q in qs]
    assert all(firsts is not None for *_, firsts in _outside(entries))  # the fast test applies to every entry
    sayings = [s for e in entries for s in e["say"]]
    for said in sayings:
        texts += [f"what is the {said}?", f"{said.upper()} for this", f"x{said}", f"{said}s", f"{said}_x",
                  f"({said})", said.replace(" ", "\n  "), said.replace("k", "\u212a").replace("s", "\u017f"),
                  f"is it a {said.title()}, really"]
    found = 0
    for pattern, _, _, firsts in _outside(entries):
        for text in texts:
            expected = pattern.search(text) is not None
            assert _says(pattern, firsts, text) == expected, text
            found += expected
    assert found > 3 * len(sayings)


def test_a_clipped_text_is_its_whitespace_collapsed_then_cut(cr_store):
    # clip collapses a text's whitespace only when it has some to collapse (a printable text's only whitespace is
    # the space): the same string as collapsing every text, on every record's text and seeded whitespace
    from kb.snippet import clip

    def plainly(text: str, n: int = 200) -> str:
        text = " ".join(text.split())
        return text if len(text) <= n else text[: n - 1].rsplit(" ", 1)[0] + "…"

    rng = random.Random(25)
    texts = [r.text for r in cr_store.records.values() if r.text]
    spaces = [" ", "  ", "\n", "\t", "\xa0", "\u2003", "\u3000", "\x1f", "\x85", "\u2028"]
    texts += [rng.choice(spaces) + t.replace(" ", rng.choice(spaces), rng.randrange(3)) + rng.choice(["", " ", "\n"])
              for t in rng.sample(texts, 2000)]
    for text in texts:
        for n in (200, 60):
            assert clip(text, n) == plainly(text, n), repr(text)
