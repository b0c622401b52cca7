"""The cheaper typo path (issue 33) answers what the slower one answered: the edit distance from rapidfuzz is
the optimal-string-alignment distance up to its limit, the card-name tables made once find the names a scan
finds, "said together" from the postings is plain Whoosh's And, and a warmed searcher's hit tables are full
before the first query (kb.resolve, kb.search.candidates, kb.search.warming)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from whoosh import query as Q

from kb.resolve import _name_key, edit_distance
from kb.search.candidates import said_together


def _osa(a: str, b: str) -> int:
    """The optimal-string-alignment distance, the textbook table (a swap of neighbours costs 1)."""
    d = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[-1][-1]


@settings(max_examples=400, deadline=None)
@given(st.text("abcdeé", max_size=10), st.text("abcdeé", max_size=10), st.integers(0, 3))
def test_edit_distance_is_the_alignment_distance_up_to_its_limit(a, b, limit):
    got, want = edit_distance(a, b, limit), _osa(a, b)
    assert got == want if want <= limit else got > limit


@pytest.mark.parametrize("a, b, want", [("morhp", "morph", 1), ("unvel", "unveil", 1), ("tarmogyof", "tarmogoyf", 1),
                                         ("indestrutable", "indestructible", 2)])
def test_edit_distance_of_typos_players_make(a, b, want):
    assert edit_distance(a, b, 2) == want


def test_cards_starting_finds_what_a_scan_of_every_name_finds(searcher):
    resolver = searcher.resolver
    names = list(resolver.cards)
    assert names
    prefixes = {n.replace(" ", "")[:k] for n in names for k in (4, 6)} | {n.replace(" ", "")[3:9] for n in names
                                                                         if n.startswith("the ")}
    for prefix in sorted(prefixes):
        key = _name_key(prefix).replace(" ", "")
        scanned = []
        for name, card in resolver.cards.items():
            joined = name.replace(" ", "")
            bare = joined[3:] if name.startswith("the ") else joined
            if len(key) >= 4 and (joined.startswith(key) or bare.startswith(key)):
                scanned.append((bare != key and joined != key, len(name), name, card))
        assert resolver.cards_starting(prefix) == [c for *_, c in sorted(scanned, key=lambda f: f[:3])], prefix
    assert [c.title for c in resolver.cards_starting("tarmo")] == ["Tarmogoyf"]


def test_a_card_typo_finds_the_card_by_its_length_range(searcher):
    card, distance = searcher.resolver.card("tarmogyof")
    assert card is not None and card.title == "Tarmogoyf" and distance == 1
    assert searcher.resolver.card("the puppet mastr")[0].title == "The Puppet Master"


@pytest.mark.parametrize("text", ["commander damage", "poison counters", "unveil traitor", "tarmogoyf leader",
                                  "face down morph", "zzzq", "mana flying graveyard", ""])
def test_said_together_is_plain_whooshs_and(searcher, text):
    from kb.search import _content_stems

    stems = _content_stems(text)
    whoosh = bool(stems) and bool(list(searcher.searcher.search(
        Q.And([Q.Or([Q.Term("body", s), Q.Term("title", s)]) for s in stems]), limit=None)))
    assert said_together(searcher.postings, searcher.searcher, stems) == whoosh
    assert searcher.candidates.said_together(text) == whoosh


def test_a_warmed_searcher_has_its_hit_tables_before_the_first_query(store):
    from kb.search import Searcher
    from web.tools.bench import query_classes

    s = Searcher(store, cache_size=0)
    try:
        s.warm()
        labels, asides = dict(s.assembler._labels), dict(s.assembler._aside_positions)
        assert len(labels) == len(s.ids) and asides
        for queries in query_classes(False).values():
            for q in queries:
                s.search(q)
        # nothing left for a first query to fill
        assert s.assembler._labels == labels and s.assembler._aside_positions == asides
    finally:
        s.close()


def _one_edit_texts(key: str) -> list[str]:
    """Every text one edit from ``key`` over its own letters and a few others: each letter taken out, replaced,
    doubled or swapped with the next."""
    out = []
    for i in range(len(key)):
        out.append(key[:i] + key[i + 1:])
        out += [key[:i] + c + key[i + 1:] for c in "aeoz"]
        out.append(key[:i] + key[i] + key[i:])
        if i + 1 < len(key):
            out.append(key[:i] + key[i + 1] + key[i] + key[i + 2:])
    return out


def test_a_name_one_edit_away_is_the_first_a_scan_of_every_name_finds(searcher):
    """A name one edit away (the only one a query of the documents' own words may mean, and every name of five
    letters or fewer may be) is the first in name order of those one edit from the text, as a scan of every name
    finds it, for every text one edit from a name and for the documents' own words (which mostly mean no card)."""
    resolver = searcher.resolver
    resolver.words  # noqa: B018 -- the documents' words, which decide when one edit is all a name may be off
    texts = [t for key in resolver.card_keys for t in _one_edit_texts(key)]
    texts += sorted(resolver.words)[::7]
    found = 0
    for text in texts:
        key = _name_key(text)
        if not key or key in resolver.cards or len(key) < 4:
            continue
        first = next((name for name in resolver.cards if edit_distance(key, name, 1) <= 1), None)
        assert resolver._nearest(key, 1) == ((resolver.cards[first], 1) if first else (None, 0)), text
        found += first is not None
    assert found > 1000  # most texts one edit from a name find it
    assert resolver.card("sacrifce") == (None, 0)  # a word of the documents mistyped is no card
    assert resolver.card("tarmogyof")[0].title == "Tarmogoyf"


@pytest.mark.parametrize("text", ["unvel", "what is unvel", "morhp", "zzzq", "qwv spel", "unvel morhp", "lotus bloom",
                                  "gravstrom", "unveil", "morph", '"unvel"', "six zzzq", "702 zzzq", "tarmogoyf"])
def test_a_query_that_finds_nothing_is_not_run(searcher, text):
    """``Candidates._finds_nothing`` says so only of a text whose whole run leaves its ``Found`` as it was: a typo
    nothing uses ("unvel") is scored once, as corrected, not first as typed."""
    from kb.search.candidates import Found

    candidates = searcher.candidates
    query = searcher.parser.parse(text, None, None, 10, 0)
    nothing = candidates._finds_nothing(query.words.text, query.words.replaced)
    found = Found()
    candidates._finds_nothing = lambda text, extra: False  # the whole run, as it was
    try:
        candidates._run(query, query.words.text, query.words.replaced, set(), found)
    finally:
        del candidates._finds_nothing
    if nothing:
        assert found == Found(), text
    if text in {"unvel", "what is unvel", "morhp", "zzzq", "unvel morhp"}:
        assert nothing, text
    if text in {"unveil", "morph", '"unvel"', "six zzzq", "702 zzzq", "tarmogoyf"}:  # a word, a phrase, a number
        assert not nothing, text


def test_a_typo_nothing_uses_is_scored_once(searcher):
    """"unvel" is scored as corrected ("unveil"), not first as typed."""
    scored = []
    scores = searcher.tables.scores

    def counted(query, filter_query):
        scored.append(query)
        return scores(query, filter_query)

    searcher.tables.scores = counted
    try:
        results = searcher._search("unvel", None, None, 10, 0)  # not an answer cached by another test
    finally:
        del searcher.tables.scores
    assert len(scored) == 1 and "unveil" in str(scored[0])
    assert results.did_you_mean == "unveil" and results.did_you_mean_searched and results.total > 0


def test_spelling_suggests_the_most_used_word_one_edit_away(searcher):
    """Spelling.suggest (keys by one letter taken out, each key's words most used first) is the plain definition: of
    every word the build corrects towards that is one edit from the text, the greatest (use count, word)."""
    import random

    spelling = searcher.spelling
    vocabulary = sorted({used for words in spelling.keys.values() for used in words})
    assert all(n == searcher.exact_df.get(word, 0) for n, word in vocabulary)  # each word's use count
    rng = random.Random(7)
    texts = [w for _, w in rng.sample(vocabulary, min(150, len(vocabulary)))]
    texts = [t for w in texts for t in _one_edit_texts(w)[::5]] + ["unvel", "morhp", "zzzzqqq", "fizzel"]
    found = 0
    for text in texts:
        near = [used for used in vocabulary if used[1] != text and edit_distance(text, used[1], 1) <= 1]
        assert spelling.suggest(text) == (max(near)[1] if near else None), text
        found += bool(near)
    assert found > 100


def test_a_text_of_used_words_is_fixed_and_said_as_word_by_word(searcher):
    """The set tests that let ``fix_typos`` and ``said`` skip a text, or a word, some record uses answer what the
    word-by-word reading answers, for texts of such words with capitals, punctuation, accents and typos."""
    import random

    from web.tools.bench import query_classes

    typos = searcher.typos
    rng = random.Random(2)
    words = sorted(w for w, n in searcher.exact_df.items() if n)
    texts = [" ".join(rng.sample(words, rng.randint(1, 5))) for _ in range(300)]
    texts += [t.title() for t in texts[:50]] + [t + "?" for t in texts[50:100]] + ["Dévoilement", "", "unvel morph",
                                                                                   "what is a mulligen", "ＭＡＮＡ"]
    texts += [q for qs in query_classes(False).values() for q in qs]
    assert sum(typos._all_used(t) for t in texts) > 250  # most take the set test
    for text in texts:
        fast = (typos.fix_typos(text), typos.fix_typos(text, short=True), typos.said(text))
        used, typos._used_words = typos._used_words, frozenset()  # every word read one by one, in full
        try:
            assert (typos.fix_typos(text), typos.fix_typos(text, short=True), typos.said(text)) == fast, text
        finally:
            typos._used_words = used
