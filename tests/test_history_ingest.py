"""Every official release since 2015 ingests with zero unaccounted lines, whatever its encoding, and the
publisher's own slips are kept and reported (../shared/cr/history; skipped LOUDLY where it is absent)."""
from __future__ import annotations

import hashlib
from collections import Counter

import pytest

from tests.conftest import CR_HISTORY

pytestmark = pytest.mark.slow  # parsing 62 releases takes most of a minute


def test_all_62_releases_ingest_with_nothing_unaccounted(cr_releases):
    assert len(cr_releases) == 62 == len(list(CR_HISTORY.glob("*.txt")))
    for release in cr_releases:
        assert release.report["unaccounted"] == [], release.file
        assert release.report["read"] == release.report["record_units"] + sum(release.report["dropped"].values())
    assert cr_releases[0].effective == "2015-01-23" and cr_releases[-1].effective == "2026-08-07"


def test_encodings_are_detected_and_the_fallback_reported(cr_releases):
    encodings = Counter(r.decoded["encoding"] for r in cr_releases)
    assert encodings == {"UTF-8 (BOM)": 45, "Windows-1252": 13, "UTF-16 LE (BOM)": 2, "UTF-16 BE (BOM)": 1,
                         "DOS code page 437 (corpus/encodings.toml)": 1}
    assert all(r.decoded["fallback"] == (r.decoded["encoding"] == "Windows-1252") for r in cr_releases)


def test_a_release_in_the_dos_code_page_reads_as_its_neighbours(cr_releases):
    """The verifier: /cr@2019-01-25/700.8a read "Dandƒn, El-Hajjƒj, Ghazb n, Jun£n, Juz m" (its one non-ASCII line
    is in code page 437, read as Windows-1252), and the diffs either side showed 700.8a changed by those names alone.
    corpus/encodings.toml names the file by its bytes' SHA-256."""
    from ingest.encoding import named_encodings

    by_file = {r.file: r for r in cr_releases}
    names = [next(x.text for x in by_file[f].records if x.number == "700.8a")
             for f in ("MagicCompRules_20181005.txt", "MagicCompRules_20190125.txt", "MagicCompRules_20190712.txt")]
    assert "Dandân" in names[1] and "Ghazbán Ogre" in names[1] and "Ring of Ma'rûf" in names[1]
    straight = [n.split("Those names are")[1].replace("’", "'") for n in names]  # 2019-01-25 printed straight quotes
    assert straight[0] == straight[1] == straight[2]
    # every entry names a file of the history by its bytes (a stale entry would name nothing)
    hashes = {hashlib.sha256(p.read_bytes()).hexdigest() for p in CR_HISTORY.glob("*.txt")}
    assert set(named_encodings()) <= hashes and named_encodings()


def test_the_files_own_effective_date_counts(cr_releases):
    by_file = {r.file: r.effective for r in cr_releases}
    assert by_file["MagicCompRules_20210224.txt"] == "2021-02-15"  # named a week after it took effect
    assert by_file["MagicCompRules_20160826.txt"] == "2016-08-26"  # UTF-16 LE
    assert by_file["MagicCompRules_20221118.txt"] == "2022-11-18"  # UTF-16 BE


def test_the_official_slips_are_kept_and_reported(cr_releases):
    slips = {(r.file, s["line"]): s["slip"] for r in cr_releases for s in r.slips}
    assert slips[("MagicCompRules_20210924.txt", 5234)] == "724.3a printed without 724.3; kept under 724"
    assert slips[("MagicCompRules_20220429.txt", 1158)] == "2 spaces after the number 201.3"
    assert (
        slips[("MagicCompRules_20240917.txt", 5228)]
        == "the number 702.175 used twice (first at line 5222); kept as cr/702.175-2"
    )
    assert slips[("MagicCompRules_20211115.txt", 4540)] == "a stray line between rules; not part of any rule"
    assert slips[("MagicCompRules_20150123.txt", 3699)].startswith("the label 'Example:' printed twice")
    assert len(slips) == 16
    rel = {r.file: {rec.id: rec for rec in r.records} for r in cr_releases}
    assert rel["MagicCompRules_20210924.txt"]["cr/724.3a"].text.startswith("If it’s day and the previous turn’s")
    assert rel["MagicCompRules_20220429.txt"]["cr/201.3"].text.startswith("Some cards with different English names")
    assert rel["MagicCompRules_20240917.txt"]["cr/702.175-2"].title == "Impending"
