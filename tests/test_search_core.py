"""Each stage of kb.search on its own, on the real corpus (tests/test_search_stages.py runs them in a row).

``Searcher`` composes small objects over one build's ``Tables``: ``Parser`` (parse), ``Leader`` with ``Titles``
(lead), ``Candidates`` (candidates), ``Assembler`` (assemble), ``Typos`` and ``Completer``. Each is built here
from the tables alone and asked directly, so a change shows in the stage that made it.
"""
from __future__ import annotations

import re
import threading

import pytest
from whoosh import query as Q

from kb.search.assemble import Assembler
from kb.search.candidates import RELEVANCE_FLOOR, Candidates, Found
from kb.search.complete import Completer
from kb.search.lead import Lead, Leader
from kb.search.parse import Parser, content_stems, naming_stems, pairs, unquoted_stems
from kb.search.results import QueryError
from kb.search.titles import Titles
from kb.search.typos import Typos, title_words
from kb.vocabulary import Vocabulary


@pytest.fixture(scope="module")
def tables(searcher):
    """The build's tables (the session's searcher made them once); each stage below is built from them alone."""
    return searcher.tables


@pytest.fixture(scope="module")
def stages(tables):
    """The stages over one build's tables, as Searcher composes them, each its own object."""
    titles = Titles(tables)
    typos = Typos(tables, title_words(titles.by_stems.values()))
    parser = Parser(tables.docs, tables.vocabulary, tables.knows, tables.named_cards, tables.resolver.section_titles,
                    tables.resolver.doc_names)
    assembler = Assembler(tables)
    return {"parser": parser, "titles": titles,
            "typos": typos, "leader": Leader(tables, titles, typos), "candidates": Candidates(tables, typos),
            "assembler": assembler, "completer": Completer(tables, typos, assembler.shown)}


def parse(stages, q: str, doc: str | None = None, kind: str | None = None, limit: int = 10, offset: int = 0):
    return stages["parser"].parse(q, doc, kind, limit, offset)


# -- parse ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("q, text, doc, kind, named_doc, named_kind", [
    ("CR 702.187c", "CR 702.187c", None, None, None, None),  # a reference is the lead's to read, kept as typed
    ("doc:treachery kind:ruling identity card", "identity card", "treachery", "ruling", None, None),
    ('"identity card" rulings', '"identity card" rulings', None, None, None, "ruling"),
    ("The Metamorph", "The Metamorph", None, None, None, None),
    ("uncommander sticker", "uncommander sticker", None, None, "uncommander", None),
    ("doc:uncommander uncommander sticker", "uncommander sticker", "uncommander", None, None, None),
])
def test_parse_takes_out_filters_and_notes_what_the_question_names(stages, q, text, doc, kind, named_doc, named_kind):
    query = parse(stages, q)
    assert (query.raw, query.text, query.doc, query.kind) == (q, text, doc, kind)
    assert (query.named_doc, query.named_kind) == (named_doc, named_kind)


@pytest.mark.parametrize("q, numbers, prefer, doc, date", [
    ("CR 702.187c", ("702.187c",), "cr", None, None),  # the prefix asks for the official rule first
    ("treachery 907.4b", ("907.4b",), None, "treachery", None),
    ("716.2@2016-07-22", ("716.2",), None, None, "2016-07-22"),  # the rule as it stood that day
])
def test_parse_reads_a_reference(stages, q, numbers, prefer, doc, date):
    reference = parse(stages, q).reference
    assert reference is not None
    assert (reference.numbers, reference.prefer, reference.doc, reference.date) == (numbers, prefer, doc, date)


@pytest.mark.parametrize("q, phrases, stems", [
    ('"identity card" rulings', ["identity card"], ["ident", "card", "rule"]),
    ("The Metamorph", [], ["metamorph"]),  # a card name: its words, for the lead's card stage
    ("what is a mulligan", [], ["mulligan"]),  # question words carry no topic
    ("702.19 trample", [], ["702.19", "trampl"]),  # a number among words is no reference: the lead reads it
])
def test_parse_gives_the_phrases_and_stems_of_the_question(stages, q, phrases, stems):
    query = parse(stages, q)
    assert (query.reference, query.phrases, query.stems) == (None, phrases, stems)


def test_parse_rewrites_table_words_in_the_documents_words(stages):
    query = parse(stages, "what does etb mean in treachery")
    assert query.words.text == "what does enters the battlefield mean in treachery"
    assert [(said, means) for said, means, _ in query.words.used] == [("etb", "enters the battlefield")]
    assert query.named_doc == "treachery"
    # a quoted phrase is searched as typed: no rewrite inside or around it
    assert parse(stages, '"etb" trigger').words.used == []


@pytest.mark.parametrize("q, limit, offset, message", [
    ("x" * 501, 10, 0, "query too long: 501 characters (at most 500)"),
    ("trample", 0, 0, "limit must be between 1 and 100"),
    ("trample", 10, 10_001, "offset must be between 0 and 10000"),
    ("doc:nowhere trample", 10, 0, "unknown document 'nowhere'"),
    ("kind:spell trample", 10, 0, "unknown kind 'spell'"),
])
def test_parse_refuses_what_cannot_run(stages, q, limit, offset, message):
    with pytest.raises(QueryError, match=re.escape(message)):
        parse(stages, q, limit=limit, offset=offset)


def test_the_parser_needs_no_index(store):
    """Parse reads the build's documents and vocabulary; whether the index holds a word is asked of a function."""
    parser = Parser({"treachery"}, Vocabulary.from_build(store.manifest, store.records.values()),
                    lambda word: True, lambda stems: frozenset())
    query = parser.parse("can I kill an identity card in treachery", None, None, 10, 0)
    assert query.words.text == "can i destroy an identity card in treachery"  # "kill" is the rules' destroy
    assert query.named_doc == "treachery"
    with pytest.raises(QueryError, match="unknown document 'cr'"):
        parser.parse("doc:cr trample", None, None, 10, 0)


def test_the_text_functions_read_a_query_as_every_stage_does():
    assert content_stems("what happens when a player has ten poison counters") == ["player", "ten", "poison",
                                                                                   "counter"]
    assert unquoted_stems('what does "dies" mean') == ()  # the rest only asks: the phrase is the question
    assert unquoted_stems('"identity card" rulings') == ("rule",)
    assert naming_stems("uncommander sticker") == frozenset({"uncommand"})
    assert pairs("who is the starting player") == [" starting player "]


# -- lead ----------------------------------------------------------------------------------------------------------
def test_lead_answers_a_reference_without_touching_whoosh(tables, stages, monkeypatch):
    def no_scoring(*args):
        raise AssertionError("the lead scored a query")

    monkeypatch.setattr(tables, "scores", no_scoring)
    answered: list[Lead] = []
    opened = len(tables._opened)
    # a thread of its own: any use of the index there would open it a Whoosh searcher (Tables.searcher)
    worker = threading.Thread(target=lambda: answered.append(stages["leader"].lead(parse(stages, "907.4b"))))
    worker.start()
    worker.join(timeout=60)
    assert len(answered) == 1 and len(tables._opened) == opened
    lead = answered[0]
    assert (lead.matched_by, lead.complete, lead.redirect) == ("reference", True, "treachery/907.4b")
    assert [r.id for r in lead.records] == ["treachery/907.4b", "treachery/116.2tr"]
    assert lead.cites == {"treachery/116.2tr": "907.4b"}  # listed after the rule because it cites it


@pytest.mark.parametrize("q, redirect, first", [
    ("702.187 unveil", "treachery/702.187", "treachery/702.187"),  # a number with words that fit it
    ("907.4 identity deck", "treachery/907.4", "treachery/907.4"),
    ("a 200 card deck", None, None),  # a count, not rule 200
    ("907.4 trample", None, None),  # words no rule of 907.4's family says
])
def test_lead_reads_a_number_with_words(stages, q, redirect, first):
    lead = stages["leader"].reference_with_words(q, None)
    assert (lead and lead.redirect) == redirect
    assert (lead and lead.records[0].id) == first


@pytest.mark.parametrize("q, matched_by, first, complete", [
    ("The Metamorph", "card", "treachery/cards/the-metamorph", True),
    ("metamorf", "card", "treachery/cards/the-metamorph", False),  # a "The ..." name mistyped: no redirect
    ("unveil", "title", "treachery/702.187", False),  # the rule first, then the keyword page
    ("nut counters", "text", None, False),
])
def test_lead_answers_cards_and_titles(stages, q, matched_by, first, complete):
    lead = stages["leader"].lead(parse(stages, q))
    assert (lead.matched_by, lead.complete) == (matched_by, complete)
    assert (lead.records[0].id if lead.records else None) == first


def test_titles_list_the_rule_before_the_keyword_page(stages):
    assert [r.id for r in stages["titles"].titled("unveil", None)] == ["treachery/702.187", "keywords/unveil"]
    assert [r.id for r in stages["titles"].titled("unveil", "keywords")] == ["keywords/unveil"]
    assert stages["titles"].titled("nut counters", None) == []


# -- candidates ----------------------------------------------------------------------------------------------------
def test_candidates_count_and_facet_the_results_worth_showing(tables, stages):
    found = stages["candidates"].full_text(parse(stages, "identity card"), exclude=set())
    assert 10 == len(found.top) < found.total < found.matched  # the page; those worth showing; every match
    assert sum(found.facets["doc"].values()) == sum(found.facets["kind"].values()) == found.total
    # the floor: none of the matches Whoosh ranks past those worth showing scores RELEVANCE_FLOOR of the best
    scores = tables.scores(stages["candidates"].build_query("identity card"), None)
    best = max(scores.values())
    assert sum(1 for s in scores.values() if s >= RELEVANCE_FLOOR * best) <= found.total
    assert not found.fixed and not found.corrected


def test_candidates_leave_out_what_the_lead_listed(stages):
    query = parse(stages, "identity card")
    first = stages["candidates"].full_text(query, exclude=set()).top[0].record.id
    found = stages["candidates"].full_text(parse(stages, "identity card"), exclude={first})
    assert first not in {c.record.id for c in found.top}


def test_candidates_build_whoosh_queries_from_our_own_tokens(stages):
    built = stages["candidates"].build_query('"identity card" rulings')
    assert built == Q.Or([Q.Phrase("exact", ["identity", "card"], boost=2.0),
                          Q.Or([Q.Term("title", "rule"), Q.Term("body", "rule")])], scale=0.95)
    assert stages["candidates"].build_query("a*~9 ^99 body:x") is not None  # Whoosh syntax is only words here
    assert stages["candidates"].build_query("") is None


def test_candidates_correct_a_misspelt_word_first(stages):
    found = stages["candidates"].full_text(parse(stages, "identitty card"), exclude=set())
    assert found.fixed == "identity card" and found.suggestion == "identity card" and found.total > 0


# -- assemble ------------------------------------------------------------------------------------------------------
def test_assemble_paginates_and_counts_the_leads_records_in_the_facets(stages):
    def page(q: str, limit: int, offset: int):
        query = parse(stages, q, limit=limit, offset=offset)
        lead = stages["leader"].lead(query)
        found = Found() if lead.complete else stages["candidates"].full_text(query, {r.id for r in lead.records})
        return lead, found, stages["assembler"].assemble(query, lead, found)

    lead, found, whole = page("identity card", 30, 0)
    assert whole.total == len(lead.records) + found.total and whole.offset == 0 and len(whole.hits) == 30
    pages = [page("identity card", 10, offset)[2] for offset in (0, 10, 20)]
    assert [h.id for p in pages for h in p.hits] == [h.id for h in whole.hits]
    assert {p.total for p in pages} == {whole.total} and pages[2].offset == 20
    assert sum(whole.facets["doc"].values()) == sum(whole.facets["kind"].values()) == whole.total


def test_assemble_says_how_the_query_was_read(stages):
    query = parse(stages, "what does etb mean in treachery")
    lead = stages["leader"].lead(query)
    results = stages["assembler"].assemble(query, lead, stages["candidates"].full_text(query, set()))
    assert results.rewrite_note == "Searching for " + query.words.note
    assert [(r.said, r.means) for r in results.rewrites] == [("etb", "enters the battlefield")]
    assert results.searched_for == query.words.text
    empty = stages["assembler"].assemble(parse(stages, "nut"), Lead([], "text"), Found())
    assert (empty.total, empty.hits, empty.note) == (0, [], None)


# -- typos and autocomplete ----------------------------------------------------------------------------------------
def test_typos_correct_towards_the_documents_words(stages):
    typos = stages["typos"]
    assert typos.fix_typos("comander damage") == "commander damage"
    assert typos.fix_typos("lotus bloom") is None  # short words nothing uses may be a name, not a typo
    assert typos.did_you_mean("unvel") == "unveil"
    assert typos.two_edits("gravestrom") == "gravestorm"  # a title's word, two edits off
    assert typos.said("qwv what is a mulligan") == "what is a mulligan"  # a word nothing uses is left out


@pytest.mark.parametrize("typed, first", [
    ("tr 70", "702 Keyword Abilities (Unveil & Undercover)"),  # a number in the document named
    ("seedb", "Her Seedborn Highness"),  # the index's n-grams
    ("metamorf", "The Metamorph"),  # a card name as the search box corrects it
])
def test_autocomplete_completes_numbers_names_and_mistyped_names(stages, typed, first):
    completed = stages["completer"].complete(typed)
    assert completed[0]["label"] == first and completed[0]["url"] == "/" + completed[0]["id"]
