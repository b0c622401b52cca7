"""kb.words: the one normalisation of text into words, shared by the index, search and ingest."""
from __future__ import annotations

import pytest
from whoosh.analysis import STOP_WORDS as WHOOSH_STOP_WORDS

from kb.index import analyzer
from kb.words import STOP_WORDS, stem, stems, words
from tests.conftest import CORPUS


@pytest.mark.parametrize("text, expected_words, expected_stems", [
    ("proliferated", ["proliferated"], ["prolifer"]),
    ("proliferate", ["proliferate"], ["prolifer"]),  # Snowball: one stem for both (Porter splits them)
    ("Æther Ætherist", ["aether", "aetherist"], ["aether", "aetherist"]),  # folded as ids are
    ("702.187d and 116.2tr", ["702.187d", "and", "116.2tr"], ["702.187d", "116.2tr"]),  # numbers stay whole
    ("***Tribal*** _Future Sight_", ["tribal", "future", "sight"], ["tribal", "futur", "sight"]),  # markup
    ("may not, yet no", ["may", "not", "yet", "no"], ["may", "not", "yet", "no"]),  # kept: they carry meaning
    ("the X is 2/2", ["the", "x", "is", "2", "2"], ["x", "2", "2"]),  # no minimum length
])
def test_words_and_stems(text, expected_words, expected_stems):
    assert (words(text), stems(text)) == (expected_words, expected_stems)


def test_stem_of_one_word():
    assert [stem(w) for w in ("counters", "The", "Æther")] == ["counter", "", "aether"]


def test_stop_words_are_whooshs_less_four():
    assert set(STOP_WORDS) == set(WHOOSH_STOP_WORDS) - {"not", "no", "may", "yet"}


@pytest.mark.parametrize("name", ["treachery.txt", "uncommander.txt", "futuresight.txt"])
def test_the_index_analyzer_reads_words_as_kb_words_does(name):
    # Ingest (ingest.drift) reads words with kb.words, the index with its Whoosh analyzer: the same.
    text = (CORPUS / name).read_text(encoding="utf-8")
    assert [t.text for t in analyzer()(text)] == stems(text)
    assert [t.text for t in analyzer(stem=False)(text)] == words(text)


def test_a_long_question_keeps_sixteen_words_that_reach_the_engine():
    from kb.querylimits import MAX_WORDS, limit_query

    chatty = ("ok so if i attack with a big trampler and they block with a small guy and then they bolt "
              "their own blocker does all the damage go through to me")
    kept, note = limit_query(chatty)
    # question words, stop words and chat ("ok", "so", "if", "with", "does") cost the engine nothing and count nothing
    assert kept.split()[-1] == "go" and "blocker" in kept.split() and "damage" in kept.split()
    assert note == "query shortened: only the first 16 of 18 distinct words were searched"
    many = " ".join(f"w{i}" for i in range(40))
    assert limit_query(many)[0].split() == [f"w{i}" for i in range(MAX_WORDS)]
