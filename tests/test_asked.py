"""The common questions (corpus/asked): checked at build, matched at search, shown on hits."""
from __future__ import annotations

import shutil
import tomllib
from dataclasses import replace

import pytest
from bs4 import BeautifulSoup

from ingest.asked import asked_files, load_asked
from ingest.errors import ParseError
from kb.asked import Asked
from tests.conftest import CORPUS, CR_2026


def _write(tmp_path, text: str):
    folder = tmp_path / "asked"
    folder.mkdir(exist_ok=True)
    (folder / "x.toml").write_text(text, encoding="utf-8")
    return tmp_path


def _entry(record: str, quote: str, asked: str = '"how does this work at the table"') -> str:
    return f'[[ask]]\nrecord = "{record}"\nquote = "{quote}"\nasked = [{asked}]\n'


@pytest.fixture(scope="module")
def with_official(records):
    """The bundled records and one official rule (as the 2026 rules word 514.2)."""
    rule = replace(next(iter(records.values())), id="cr/514.2", doc="cr", kind="rule", number="514.2", title=None,
                   text="Second, all damage marked on permanents is removed.", rules_text=None)
    return list(records.values()) + [rule]


# -- checked at build ----------------------------------------------------------------------------
def test_an_entry_that_fits_its_record_is_kept(tmp_path, with_official):
    corpus = _write(tmp_path, _entry("cr/514.2", "damage marked on permanents", '"when does damage wear off"'))
    kept, skipped = load_asked(corpus, with_official)
    assert kept == [{"record": "cr/514.2", "asked": ["when does damage wear off"]}] and skipped == []


def test_an_official_entry_another_release_words_otherwise_is_left_out_and_said(tmp_path, with_official):
    corpus = _write(tmp_path, _entry("cr/514.2", "damage wears off at cleanup") + _entry("cr/999.9", "a b c"))
    kept, skipped = load_asked(corpus, with_official)
    assert kept == []
    assert skipped == ["cr/514.2: its text does not say 'damage wears off at cleanup'", "cr/999.9: no such record"]


def test_entries_about_a_document_not_loaded_are_left_out(tmp_path, records):
    corpus = _write(tmp_path, _entry("cr/514.2", "damage marked on permanents"))
    assert load_asked(corpus, list(records.values())) == ([], [])


@pytest.mark.parametrize(("entry", "expected"), [
    (_entry("treachery/999.9", "the leader wins"), "treachery/999.9 saying 'the leader wins'"),
    (_entry("treachery/907.2", "nine players exactly"), "treachery/907.2 saying 'nine players exactly'"),
    (_entry("treachery/907.2", "two words"), "quote (3+ words of its text)"),
    ('[[ask]]\nrecord = "treachery/907.2"\nquote = "a b c"\n', "asked (a list of questions)"),
    ('[[ask]]\nrecord = "treachery/907.2"\nquote = "a b c"\nasked = "one string"\n', "asked (a list"),
    ('[[ask]]\nrecord = "treachery/907.2"\nquote = "a b c"\nasked = ["ok then"]\nwhy = "x"\n', "nothing else"),
])
def test_a_bundled_entry_that_does_not_fit_fails_with_file_and_line(tmp_path, records, entry, expected):
    corpus = _write(tmp_path, "# a comment\n\n" + entry)
    with pytest.raises(ParseError) as exc:
        load_asked(corpus, list(records.values()))
    message = str(exc.value)
    assert f"{corpus / 'asked' / 'x.toml'}:3:" in message and expected in message


def test_a_toml_error_names_its_line(tmp_path, records):
    corpus = _write(tmp_path, _entry("treachery/907.2", "x y z") + '[[ask]]\nrecord = "unclosed\n')
    with pytest.raises(ParseError) as exc:
        load_asked(corpus, list(records.values()))
    assert f"{corpus / 'asked' / 'x.toml'}:6: expected valid TOML" in str(exc.value)


def test_a_broken_entry_fails_the_build_and_publishes_nothing(tmp_path):
    from ingest.publish import build

    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    with open(corpus / "asked" / "treachery.toml", "a", encoding="utf-8") as f:
        f.write("\n" + _entry("treachery/999.9", "no such rule here"))
    with pytest.raises(ParseError) as exc:
        build(corpus, tmp_path / "data")
    assert "treachery.toml:" in str(exc.value) and "treachery/999.9" in str(exc.value)
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").glob("*/manifest.json"))


def test_the_table_is_part_of_what_makes_a_build_stale(tmp_path):
    from ingest.build import corpus_digest

    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    before = corpus_digest(corpus)
    with open(corpus / "asked" / "treachery.toml", "a", encoding="utf-8") as f:
        f.write("\n# one more comment\n")
    assert corpus_digest(corpus) != before


def test_every_bundled_entry_is_in_the_build(store):
    entries = [e for path in asked_files(CORPUS) for e in tomllib.loads(path.read_text(encoding="utf-8"))["ask"]]
    bundled = [e for e in entries if not e["record"].startswith("cr/")]
    assert len(bundled) >= 100
    assert {e["record"] for e in store.manifest["asked"]} == {e["record"] for e in bundled}


def test_every_official_entry_fits_the_2026_rules(cr_store):
    entries = [e for path in asked_files(CORPUS) for e in tomllib.loads(path.read_text(encoding="utf-8"))["ask"]]
    official = {e["record"] for e in entries if e["record"].startswith("cr/")}
    assert len(official) >= 200
    assert cr_store.manifest["asked_skipped"] == []
    assert official <= {e["record"] for e in cr_store.manifest["asked"]}


def test_an_older_release_builds_and_says_what_it_left_out(tmp_path):
    from ingest.publish import build

    older = CR_2026.parent / "MagicCompRules_20250207.txt"
    if not older.exists():
        pytest.skip(f"no {older}")
    published = build(CORPUS, tmp_path / "data", cr=older)
    skipped = published.manifest["asked_skipped"]
    kept = {e["record"] for e in published.manifest["asked"]}
    assert kept and all(s.startswith("cr/") and (": no such record" in s or "does not say" in s) for s in skipped)
    assert not kept & {s.split(":", 1)[0] for s in skipped}


# -- matched at search ---------------------------------------------------------------------------
def test_a_question_matches_by_shared_rare_words():
    entries = [{"record": "cr/514.2", "asked": ["damage wear off", "damage removed cleanup"]},
               {"record": "cr/120.3", "asked": ["damage to a player"]}]
    weight = {"damage": 1.0, "wear": 3.0, "off": 1.0, "removed": 2.0, "cleanup": 2.0, "player": 1.0, "to": 0.5,
              "a": 0.5, "when": 0.5}
    asked = Asked(entries, str.split, lambda stems: {s: weight[s] for s in stems})
    assert len(asked) == 3 and asked.records == 2
    found = asked.match({"when": 0.5, "damage": 1.0, "wear": 3.0, "off": 1.0})
    # weighted Dice: twice the shared weight (5) over both totals (5.5 and 5)
    assert found["cr/514.2"].score == pytest.approx(10 / 10.5) and found["cr/514.2"].asked == "damage wear off"
    assert found["cr/120.3"].score == pytest.approx(2 / (5.5 + 3.0))
    assert asked.match({"flying": 2.0}) == {}
    # A minimum leaves out weaker matches, and never changes a kept one's score.
    strong = Asked(entries, str.split, lambda stems: {s: weight[s] for s in stems}, minimum=0.5)
    kept = strong.match({"when": 0.5, "damage": 1.0, "wear": 3.0, "off": 1.0})
    assert set(kept) == {"cr/514.2"} and kept["cr/514.2"] == found["cr/514.2"]


def _common(store):
    return [(e["record"], q) for e in store.manifest["asked"] for q in e["asked"]]


def _first_three(searcher, store, doc_filter) -> tuple[int, list, int]:
    found, missed = 0, []
    pairs = [(rid, q) for rid, q in _common(store) if doc_filter(rid)]
    for rid, q in pairs:
        top = [h.id for h in searcher.search(q, limit=3).hits]
        if rid in top:
            found += 1
        else:
            missed.append((q, rid, top))
    return found, missed, len(pairs)


def test_a_common_question_asked_as_written_finds_its_record(searcher, store):
    found, missed, n = _first_three(searcher, store, lambda rid: True)
    # A few are asked of two records alike (a card's ruling and the rule it applies); nearly all answer
    # (without the table, three quarters of them are in the first three).
    assert found >= 0.97 * n, missed[:10]


def test_a_common_official_question_asked_as_written_finds_its_record(cr_store):
    from kb.search import Searcher

    s = Searcher(cr_store)
    try:
        found, missed, n = _first_three(s, cr_store, lambda rid: rid.startswith("cr/"))
    finally:
        s.close()
    # Some are answered first by the lead (a title: "what does investigate do" lists 701.16, the keyword page and
    # the glossary's Investigate before 701.16a); without the table, 55% of them are in the first three.
    assert found >= 0.9 * n, missed[:10]


def test_the_common_question_matched_is_shown_with_the_hit(cr_client):
    data = cr_client.get("/api/search?q=when does damage on my creatures wear off").get_json()
    asked = [h for h in data["results"] if h["asked"]]
    assert asked and asked[0]["id"] == "cr/514.2" and "damage" in asked[0]["asked"]
    page = BeautifulSoup(cr_client.get("/search?q=when does damage on my creatures wear off").get_data(as_text=True),
                         "html.parser")
    note = page.select_one(".hit .asked")
    assert note is not None and asked[0]["asked"] in note.get_text()


def test_the_signal_can_be_turned_off(cr_store):
    from kb import rank
    from kb.search import Searcher

    s = Searcher(cr_store, cache_size=0)
    try:
        on = s.search("when does damage on my creatures wear off")
        with rank.SIGNALS.off("asked"):
            off = s.search("when does damage on my creatures wear off")
    finally:
        s.close()
    assert any(h.asked for h in on.hits) and not any(h.asked for h in off.hits)


def test_the_build_says_how_many_common_questions_it_holds(data_build, cr_build):
    for build in (data_build, cr_build):
        line = next(x for x in build[1].stdout.splitlines() if x.startswith("common questions: "))
        assert " for " in line and "left out" not in line  # every entry fits the bundled documents and the 2026 rules
