"""Decoding documents (ingest.encoding): byte-order marks first, then UTF-8, then Windows-1252 as the
reported fallback; line endings normalised; anything else fails with file:line."""
from __future__ import annotations

import codecs

import pytest

from ingest.encoding import EXPECTED, decode
from ingest.errors import ParseError

TEXT = "Rules\r\n“Quoted” — 2016\r\nLast\n"


@pytest.mark.parametrize("data, encoding, fallback", [
    (codecs.BOM_UTF8 + TEXT.encode("utf-8"), "UTF-8 (BOM)", False),
    (TEXT.encode("utf-8"), "UTF-8", False),
    (codecs.BOM_UTF16_LE + TEXT.encode("utf-16-le"), "UTF-16 LE (BOM)", False),
    (codecs.BOM_UTF16_BE + TEXT.encode("utf-16-be"), "UTF-16 BE (BOM)", False),
    (TEXT.encode("cp1252"), "Windows-1252", True),
])
def test_every_encoding_decodes_to_the_same_text(data, encoding, fallback):
    decoded = decode(data, "rules.txt")
    assert decoded.text == "Rules\n“Quoted” — 2016\nLast\n"
    assert (decoded.encoding, decoded.fallback, decoded.line_endings) == (encoding, fallback, "mixed")


@pytest.mark.parametrize(
    "raw, endings", [(b"a\nb\n", "LF"), (b"a\r\nb\r\n", "CRLF"), (b"a\rb\r", "CR"), (b"a", "none")]
)
def test_line_endings(raw, endings):
    decoded = decode(raw, "f.txt")
    assert decoded.line_endings == endings and "\r" not in decoded.text


def test_undefined_windows_1252_byte_fails_with_its_line():
    with pytest.raises(ParseError) as err:
        decode(b"one\r\ntwo \xe9\r\nthree \x81\r\n", "rules.txt")
    assert str(err.value) == f"rules.txt:3: expected {EXPECTED}, found 'byte 0x81 at offset 18'"


def test_binary_file_fails_with_its_line():
    with pytest.raises(ParseError) as err:
        decode(b"PK\x03\x04\x00\x00", "rules.zip")
    assert str(err.value) == f"rules.zip:1: expected {EXPECTED}, found 'a ZIP archive'"
    with pytest.raises(ParseError) as err:
        decode(b"one\ntwo\x03\x04\x00\x00", "rules.bin")
    assert str(err.value).startswith(f"rules.bin:2: expected {EXPECTED}, found 'control character U+0003")


def test_control_character_in_utf8_fails_with_its_line():
    with pytest.raises(ParseError) as err:
        decode(b"a\nb\nc\x00", "rules.txt")
    assert str(err.value) == f"rules.txt:3: expected {EXPECTED}, found 'control character U+0000 (UTF-8)'"


def test_broken_utf16_fails_with_its_line():
    data = codecs.BOM_UTF16_LE + "a\nb\n".encode("utf-16-le") + b"\x00\xdc"  # a lone low surrogate
    with pytest.raises(ParseError) as err:
        decode(data, "rules.txt")
    assert str(err.value).startswith("rules.txt:3: expected UTF-16 LE (BOM) text, found 'bytes 00 dc")


def test_broken_utf8_after_a_bom_names_the_bad_bytes_and_their_line():
    # A UTF-8 file with its mark, cut inside a character: the problem named the bytes three before the bad
    # ones and an offset three short, since utf-8-sig counts after the mark (and a line end among those three
    # bytes put it on the line before).
    data = codecs.BOM_UTF8 + b"one\ntwo\nthe player\xe2\x80s"  # "\u2019" cut after two of its three bytes
    at = data.index(b"\xe2")
    with pytest.raises(ParseError) as err:
        decode(data, "rules.txt")
    assert str(err.value) == f"rules.txt:3: expected UTF-8 (BOM) text, found 'bytes e2 80 at offset {at}'"


def test_a_path_that_is_no_readable_file_fails_in_one_line(tmp_path):
    # `kb build --cr` naming a missing file, a folder or a symlink loop ended in a traceback (FileNotFoundError,
    # IsADirectoryError, OSError): now file, line 1, what was expected. (An unreadable file takes the same way;
    # the tests run as root, whom chmod 000 does not stop.)
    from ingest.encoding import read_document

    (tmp_path / "loop.txt").symlink_to("loop.txt")
    for name, found in (("missing.txt", "no such file"), (".", "a folder"), ("loop.txt", "a symlink loop")):
        path = tmp_path / name
        with pytest.raises(ParseError) as err:
            read_document(path)
        assert str(err.value) == f"{path}:1: expected a readable document file, found '{found}'"


@pytest.mark.parametrize("data, found", [
    (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n\x18\x00", "a PDF file, not its text"),
    (b"PK\x03\x04rules.txt", "a ZIP archive"),  # its first bytes decode as UTF-8: the control character was named
    (b"\x1f\x8b\x08\x00", "a gzip archive"),
    (codecs.BOM_UTF32_LE + "Magic\r\n".encode("utf-32-le"), "UTF-32 LE (save it as UTF-8)"),
    ("Magic: The Gathering\r\n".encode("utf-16-le"), "UTF-16 LE without a byte-order mark (save it as UTF-8)"),
    ("Magic: The Gathering\r\n".encode("utf-16-be"), "UTF-16 BE without a byte-order mark (save it as UTF-8)"),
])
def test_a_file_of_another_kind_says_what_it_is(data, found):
    # A PDF, an archive, UTF-16 that lost its mark, saved as rules.txt: the problem named its first odd byte
    # ("byte 0x00 at offset 1", "control character U+0003"), not what the file is.
    with pytest.raises(ParseError) as err:
        decode(data, "rules.txt")
    assert str(err.value) == f"rules.txt:1: expected {EXPECTED}, found {found!r}"
