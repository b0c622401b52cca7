"""Profiles are checked strictly: an unknown key or a wrong type fails at the profile's own line."""
from __future__ import annotations

import shutil

import pytest

from ingest.errors import ParseError
from ingest.profile import load_profile
from tests.conftest import CORPUS


def _copy(tmp_path, slug, edit):
    for name in (f"{slug}.toml", f"{slug}.txt"):
        shutil.copy(CORPUS / name, tmp_path / name)
    path = tmp_path / f"{slug}.toml"
    text = path.read_text(encoding="utf-8")
    path.write_text(edit(text), encoding="utf-8")
    return path


def _problems(path):
    with pytest.raises(ParseError) as err:
        load_profile(path)
    return [str(p).replace(str(path.parent) + "/", "corpus/") for p in err.value.problems]


def _line(path, needle):
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in line)


def test_the_bundled_profiles_are_valid():
    from ingest.build import load_profiles

    assert [p.slug for p in load_profiles(CORPUS)] == ["futuresight", "treachery", "uncommander"]


def test_a_misspelt_key_fails_at_its_line(tmp_path):
    path = _copy(tmp_path, "futuresight", lambda t: t.replace("cites_current_rules =", "cites_current_rule ="))
    [problem] = _problems(path)
    n = _line(path, "cites_current_rule =")
    assert problem.startswith(f"corpus/futuresight.toml:{n}: expected one of the known keys (")
    assert problem.endswith("found 'cites_current_rule'")


def test_a_wrong_type_fails_at_its_line(tmp_path):
    path = _copy(tmp_path, "futuresight",
                 lambda t: t.replace("cites_current_rules = false", 'cites_current_rules = "no"'))
    n = _line(path, "cites_current_rules =")
    expected = f"corpus/futuresight.toml:{n}: expected true or false for cites_current_rules, found 'no'"
    assert _problems(path) == [expected]


def test_a_bad_card_entry_names_the_profile_and_line(tmp_path):
    path = _copy(tmp_path, "treachery", lambda t: t.replace('role = "Leader"', "role = 3", 1))
    n = _line(path, "role = 3")
    assert _problems(path) == [f"corpus/treachery.toml:{n}: expected a string for cards[0].role, found '3'"]


def test_an_inline_card_entry_with_an_unknown_key(tmp_path):
    path = _copy(tmp_path, "futuresight",
                 lambda t: t.replace('{ name = "Arcanum Wings" }', '{ nmae = "Arcanum Wings" }'))
    n = _line(path, "nmae")
    assert _problems(path)[:2] == [
        f"corpus/futuresight.toml:{n}: expected the key 'name' in cards[1], found 'none'",
        f"corpus/futuresight.toml:{n}: expected one of the known keys (name, role), found 'nmae'",
    ]


def test_a_bad_keyword_entry(tmp_path):
    path = _copy(tmp_path, "treachery", lambda t: t.replace('rule = "207.2tr"', "rule = 207"))
    n = _line(path, "rule = 207")
    assert _problems(path) == [f"corpus/treachery.toml:{n}: expected a string for keywords[1].rule, found '207'"]


def test_a_missing_required_key(tmp_path):
    path = _copy(tmp_path, "uncommander", lambda t: t.replace('parser = "uncommander"\n', ""))
    assert _problems(path) == ["corpus/uncommander.toml:1: expected the key 'parser', found 'none'"]


def test_line_numbers_must_be_whole_numbers(tmp_path):
    path = _copy(tmp_path, "uncommander", lambda t: t.replace("lines = [423]", 'lines = ["423"]'))
    n = _line(path, 'lines = ["423"]')
    [problem] = _problems(path)
    assert problem == f"corpus/uncommander.toml:{n}: expected a whole number for corrections[0].lines[0], found '423'"


def test_an_unknown_parser_fails_at_its_line(tmp_path):
    # used to end in a KeyError traceback from ingest.parsers
    path = _copy(tmp_path, "treachery", lambda t: t.replace('parser = "treachery"', 'parser = "nosuch"'))
    n = _line(path, 'parser = "nosuch"')
    assert _problems(path) == [f"corpus/treachery.toml:{n}: expected one of the parsers "
                               "(treachery, uncommander, futuresight, cr), found 'nosuch'"]


def test_a_profile_not_in_utf8_fails_with_its_line(tmp_path):
    # a profile saved in Windows-1252 used to end in a UnicodeDecodeError traceback
    path = _copy(tmp_path, "treachery", lambda t: t)
    path.write_bytes(path.read_bytes().replace(b'parser = "treachery"', b'parser = "treachery" # caf\xe9', 1))
    data = path.read_bytes()
    at = data.index(b"\xe9")
    n = data[:at].count(b"\n") + 1
    assert _problems(path) == [
        f"corpus/treachery.toml:{n}: expected a profile in UTF-8, found 'byte 0xe9 at offset {at}'"]


def test_a_directory_named_like_a_profile_fails_in_one_line(tmp_path):
    # `mkdir corpus/old.toml` used to end in an IsADirectoryError traceback
    (tmp_path / "old.toml").mkdir()
    assert _problems(tmp_path / "old.toml") == [
        "corpus/old.toml:1: expected a readable profile file, found 'Is a directory'"]


def test_a_correction_with_nothing_to_find_fails_at_its_line(tmp_path):
    # an empty find matched between every two characters: the replacement was written all through the document
    path = _copy(tmp_path, "treachery", lambda t: t + '\n[[corrections]]\nfind = ""\nreplace = "y"\nwhy = "test"\n')
    lines = path.read_text(encoding="utf-8").splitlines()
    n = max(i for i, line in enumerate(lines, 1) if line == 'find = ""')
    assert _problems(path) == [f"corpus/treachery.toml:{n}: expected a correction's find to be some text, found ''"]
