"""The Whoosh index's analysis, on the real corpus: whole rule numbers, stems, folded accents, markup."""
from __future__ import annotations

from kb.index import analyzer


def words(text, stem=True):
    return [t.text for t in analyzer(stem=stem)(text)]


def test_rule_numbers_stay_whole_tokens():
    assert words("see rule 702.187d and 116.2tr.", stem=False) == ["see", "rule", "702.187d", "and", "116.2tr"]


def test_markup_is_not_part_of_a_word():
    assert words("***Tribal*** _Future Sight_", stem=False) == ["tribal", "future", "sight"]


def test_accents_and_ligatures_fold():
    assert words("The Ætherist", stem=False) == ["the", "aetherist"]


def test_stemming_finds_other_forms(searcher):
    hits = [h.id for h in searcher.search("proliferate", limit=10).hits]
    assert "treachery/cards/her-seedborn-highness/1" in hits  # "cannot be proliferated"


def test_folded_query_finds_the_ligature(searcher):
    assert searcher.search("aetherist").hits[0].id == "treachery/cards/the-aetherist"
    assert searcher.search("Ætherist").hits[0].id == "treachery/cards/the-aetherist"


def test_doc_and_kind_filters_in_the_query(searcher):
    res = searcher.search("counter doc:futuresight kind:ruling")
    assert res.total > 0 and {h.doc for h in res.hits} == {"futuresight"} and {h.kind for h in res.hits} == {"ruling"}


def test_phrase_query(searcher):
    res = searcher.search('"leaves the game"')
    assert res.total > 0
    assert all("<mark>leaves</mark>" in h.snippet for h in res.hits)


def test_did_you_mean_keeps_the_edit_distance_small(searcher):
    assert searcher.search("unvel").did_you_mean == "unveil"
    assert searcher.search("unvel morhp").did_you_mean == "unveil morph"  # a swap is one edit


def test_bare_parent_number_brings_its_sub_rules(searcher):
    ids = [h.id for h in searcher.search("907.3", limit=10).hits]
    assert ids[:5] == [
        "treachery/907.3",
        "treachery/907.3a",
        "treachery/907.3b",
        "treachery/907.3c",
        "treachery/907.3d",
    ]


def test_autocomplete_ngrams(searcher):
    labels = [c["label"] for c in searcher.autocomplete("seedb")]
    assert "Her Seedborn Highness" in labels
