"""The ingest pipeline end to end on the real corpus, and the published store."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from tests.conftest import CORPUS, ROOT, copy_data


@pytest.mark.parametrize("slug", ["treachery", "uncommander", "futuresight"])
def test_every_line_accounted_for(built, slug):
    report = built.results[slug].report
    assert report.unaccounted == []
    assert report.record_units + sum(report.dropped.values()) == report.read


def test_counts_as_the_documents_print_them(built):
    counts = {d["slug"]: d["counts"] for d in built.documents()}
    assert counts["treachery"]["card"] == 54
    assert counts["treachery"]["chapter"] == 5
    assert counts["treachery"]["rule"] == 68
    assert counts["uncommander"]["section"] == 26
    assert counts["futuresight"]["card"] == 104
    assert (
        sum(
            1
            for r in built.records
            if r.doc == "futuresight" and r.kind == "note" and r.id.startswith("futuresight/notes/")
        )
        == 15
    )


def test_ids_are_unique_lowercase_paths(built):
    ids = [r.id for r in built.records]
    assert len(ids) == len(set(ids))
    assert all(i == i.lower() and " " not in i and i.startswith(r.doc + "/")
               for i, r in zip(ids, built.records, strict=True))


def test_children_are_the_inverse_of_parent(records):
    for r in records.values():
        for c in r.children:
            assert records[c].parent == r.id
        if r.parent:
            assert r.id in records[r.parent].children


def test_cited_by_is_the_exact_inverse_of_resolved_refs(records):
    expected: dict[str, set[str]] = {}
    for r in records.values():
        for ref in r.refs:
            if ref.target:
                assert ref.target in records, (r.id, ref)
                expected.setdefault(ref.target, set()).add(r.id)
    for r in records.values():
        assert set(r.cited_by) == expected.get(r.id, set()), r.id
        assert len(r.cited_by) == len(set(r.cited_by))


def test_ref_offsets_point_at_the_text_as_written(records):
    from ingest.links import text_fields

    for r in records.values():
        fields = dict(text_fields(r))
        for ref in r.refs:
            if ref.start is not None:
                assert fields[ref.field][ref.start:ref.end] == ref.text, (r.id, ref)


@pytest.mark.parametrize("record_id, written, target", [
    ("treachery/907.4b", "rule 702.187", "treachery/702.187"),
    ("treachery/109.4tr", "rules 372.5", "treachery/372.5"),
    ("treachery/116.2tr", "rule 907.4b", "treachery/907.4b"),
    # the second section of "Renamed rule 115 into 116, and rule 314 into 372" (it was plain text)
    ("treachery/history/4-0", "116", "treachery/116"),
    ("treachery/history/4-0", "372", "treachery/372"),
])
def test_rule_references_resolve_in_their_own_document(records, record_id, written, target):
    assert any(ref.text == written and ref.target == target for ref in records[record_id].refs)


def test_official_citations_are_external_links(records):
    refs = [ref for ref in records["treachery/702.187a"].refs if "708" in ref.text]
    assert refs and refs[0].external and refs[0].target is None
    assert refs[0].url == "https://yawgatog.com/resources/magic-rules/#R708"


def test_renamed_numbers_are_aliases(records):
    assert "702.TrUnv-1" in records["treachery/702.187"].aliases
    assert "115" in records["treachery/116"].aliases
    assert "314" in records["treachery/372"].aliases


def test_unfilled_placeholders_stay_unresolved(records):
    unresolved = [
        (r.id, ref.text) for r in records.values() for ref in r.refs if ref.target is None and not ref.external
    ]
    assert ("uncommander/watermarks/b", "See ___") in unresolved
    assert ("uncommander/numbers-and-text-changing-effects/n", "see Die Rolling __") in unresolved


def test_faq_cross_references(records):
    refs = {
        ref.text: ref
        for r in records.values()
        if r.doc == "futuresight"
        for ref in r.refs
        if ref.text.startswith("See ")
    }
    assert (
        refs['See "New Card Type: Tribal" in the General Notes section above'].target
        == "futuresight/notes/new-card-type-tribal"
    )
    # The FAQ points at a heading it never printed: kept, unresolved, explained.
    dangling = refs['See "Returning Keyword Ability: Suspend" in the General Notes section above']
    assert dangling.target is None and "no General Notes section" in dangling.note
    entry = {text: ref.target for text, ref in refs.items() if "the entry for" in text}
    assert entry == {
        "See the entry for Death Rattle above": "futuresight/cards/death-rattle",
        "See the entry for Mesmeric Sliver above": "futuresight/cards/mesmeric-sliver",
    }


def test_card_mentions_link_to_cards(records):
    linked = {ref.target for r in records.values() for ref in r.refs if ref.target and "/cards/" in ref.target}
    assert {t for t in linked if t.startswith("treachery/")} == {
        "treachery/cards/the-ferryman", "treachery/cards/the-great-martyr", "treachery/cards/the-metamorph",
    }
    assert {"futuresight/cards/death-rattle", "futuresight/cards/tarox-bladewing"} <= linked


def test_keywords_gather_definitions(records):
    unveil = records["keywords/unveil"]
    assert [ref.target for ref in unveil.refs if ref.field == "definitions"] == ["treachery/702.187"]
    assert "keywords/unveil" in records["treachery/702.187"].cited_by
    assert records["keywords/lifelink"].refs[0].target == "futuresight/502.68"


def test_store_answers_records_and_documents(store, records):
    assert store.get("treachery/907.4b") == records["treachery/907.4b"]
    assert [r.id for r in store.by_doc("treachery")][0].startswith("treachery/")
    assert len(store.records) == len(records)


def run_kb(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "web.cli", *args], cwd=ROOT, capture_output=True, text=True, **kwargs)


def test_kb_check_lists_unresolved_references(data_dir):
    out = run_kb("--data", str(data_dir), "check")
    assert out.returncode == 0
    lines = out.stdout.strip().splitlines()
    assert lines[-1].endswith("records") and "unresolved references" in lines[-1]
    assert any("uncommander.txt:" in line and "___" in line for line in lines)
    assert run_kb("--data", str(data_dir), "check", "--strict").returncode == 1


def test_kb_inspect_json(tmp_path):
    out = run_kb("inspect", str(CORPUS / "treachery.txt"), "--json")
    assert out.returncode == 0, out.stderr
    body = json.loads(out.stdout)
    assert body["unaccounted"] == [] and body["counts"]["card"] == 54 and body["parser"] == "treachery"


def test_kb_inspect_exits_1_on_a_problem(tmp_path):
    doc = tmp_path / "broken.txt"
    text = (CORPUS / "treachery.txt").read_text(encoding="utf-8")
    doc.write_text(text.replace("|>The Witch\n", "|>\n"), encoding="utf-8")  # a card the profile names is gone
    out = run_kb("inspect", str(doc), "--json")
    assert out.returncode == 1
    assert (
        "broken.txt:318: expected the notes of The Witch (named in the profile), found 'no such card heading'"
        in json.loads(out.stdout)["problems"]
    )


def test_failed_build_names_file_and_line_and_keeps_the_previous_build(tmp_path, data_dir):
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    data = copy_data(data_dir, tmp_path / "data")
    first = (data / "current").resolve()
    # 0x81 is neither UTF-8 nor Windows-1252 (the documented fallback).
    (corpus / "uncommander.txt").write_bytes(b"Terminology\n\x81\xfe broken\n")
    out = run_kb("--corpus", str(corpus), "--data", str(data), "build")
    assert out.returncode == 1
    assert "uncommander.txt:2: expected text in UTF-8, UTF-16 with a byte-order mark, or Windows-1252" in out.stderr
    assert (data / "current").resolve() == first


def test_empty_document_fails_with_position(tmp_path):
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    (corpus / "treachery.txt").write_text("", encoding="utf-8")
    out = run_kb("--corpus", str(corpus), "--data", str(tmp_path / "data"), "build")
    assert out.returncode == 1
    assert "treachery.txt:1: expected a non-empty document, found 'an empty file'" in out.stderr
    assert not (tmp_path / "data" / "current").exists()


def test_the_games_name_is_not_the_card_the_gathering(records):
    assert not any(ref.target == "treachery/cards/the-gathering" for ref in records["treachery/introduction"].refs)
    assert "treachery/introduction" not in records["treachery/cards/the-gathering"].cited_by


def test_a_document_truncated_mid_record_fails_the_build(tmp_path, data_dir):
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    data = copy_data(data_dir, tmp_path / "data")
    first = (data / "current").resolve()
    doc = corpus / "treachery.txt"
    text = doc.read_text(encoding="utf-8")
    doc.write_text(
        text[: text.index("The Metamorph’s replacement effect")], encoding="utf-8"
    )  # cut inside a card's notes
    out = run_kb("--corpus", str(corpus), "--data", str(data), "build")
    assert out.returncode == 1
    assert (
        "treachery.txt:318: expected the notes of The Oneiromancer (named in the profile), found 'no such card heading'"
        in out.stderr
    )
    assert (data / "current").resolve() == first


def test_kb_build_prints_the_line_accounting(data_build):
    _, out = data_build  # the session's `kb build` (tests/conftest.py)
    lines = out.stdout.splitlines()
    for name in (
        "treachery.txt: 1202 lines read",
        "uncommander.txt: 595 lines read",
        "futuresight.txt: 935 segments read",  # 3 more: the notes' interludes, their own segments
    ):
        line = next(x for x in lines if x.startswith(name))
        assert line.endswith("; 0 unaccounted") and "dropped" in line
    assert lines[-1].startswith("built ") and "records as" in lines[-1]


# -- a build runs without the cycle collector (ingest.bulk) -------------------------------------------
def test_a_build_runs_without_the_cycle_collector_and_turns_it_back_on(tmp_path):
    import gc

    from ingest.publish import build

    collector_on: list[bool] = []  # at every step the build reports
    assert gc.isenabled()
    published = build(CORPUS, tmp_path / "data", progress=lambda line: collector_on.append(gc.isenabled()))
    assert published.manifest["records"] > 1000 and gc.isenabled()
    assert len(collector_on) >= 5 and not any(collector_on)


def test_the_collector_pause_nests_and_survives_a_failure():
    import gc

    from ingest.bulk import collector_paused

    with pytest.raises(RuntimeError, match="a failed build"), collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block leaves the outer one's pause alone
        raise RuntimeError("a failed build")
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()  # off before, off after: a caller's own choice is kept
    finally:
        gc.enable()
