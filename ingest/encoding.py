"""Bytes of a source document -> text: the one place documents are decoded.

Real downloads of the official rules come in four encodings (the 62 releases
in ``../shared/cr/history``: 45 UTF-8 with a BOM, 14 Windows-1252, two
UTF-16 LE and one UTF-16 BE, both with a BOM) and with LF, CRLF or mixed
line endings. The order of the checks is the documented contract:

1. a byte-order mark names the encoding (UTF-8, UTF-16 LE/BE);
2. otherwise the bytes are UTF-8 if they decode as UTF-8;
3. otherwise the encoding ``corpus/encodings.toml`` names for these bytes (by
   their SHA-256: the 2019-01-25 release is in the DOS code page), said so in
   ``Decoded.encoding``;
4. otherwise Windows-1252, the fallback, and ``Decoded.fallback`` says so
   (reported in the build's accounting), unless a byte is one Windows-1252
   leaves undefined or a control character no text file holds; then the
   file fails with its line.

Line endings are normalised to ``\\n`` (CRLF and lone CR), so line numbers
count the same in every encoding.
"""
from __future__ import annotations

import codecs
import errno
import hashlib
import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from corpus import bundled_corpus

from ingest.errors import ParseError, Problem

__all__ = ["Decoded", "decode", "read_document", "EXPECTED", "MAX_DOCUMENT_BYTES", "ENCODINGS_FILE", "named_encodings"]

ENCODINGS_FILE = "encodings.toml"  # in corpus/: files the checks would misread, by their bytes' SHA-256

# Five times the largest official release (1.7 MB in UTF-16): anything bigger is refused before
# it is read, not parsed for minutes (a 50 MB document used to never finish).
MAX_DOCUMENT_BYTES = 8 * 1024 * 1024

EXPECTED = "text in UTF-8, UTF-16 with a byte-order mark, or Windows-1252"

_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig", "UTF-8 (BOM)"),
    # UTF-32 LE's mark starts like UTF-16 LE's; UTF-32 is not an encoding we read.
    (codecs.BOM_UTF16_LE, "utf-16", "UTF-16 LE (BOM)"),
    (codecs.BOM_UTF16_BE, "utf-16", "UTF-16 BE (BOM)"),
)
# Bytes Windows-1252 does not define, and C0 controls other than tab, newline, form feed, return.
_NOT_TEXT = re.compile(rb"[\x00-\x08\x0b\x0e-\x1f\x7f\x81\x8d\x8f\x90\x9d]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")


@dataclass(frozen=True)
class Decoded:
    text: str  # line endings normalised to "\n", no BOM
    encoding: str  # "UTF-8 (BOM)", "UTF-8", "UTF-16 LE (BOM)", "UTF-16 BE (BOM)", "Windows-1252"
    line_endings: str  # "LF", "CRLF", "CR", "mixed" or "none"
    fallback: bool = False  # decoded as Windows-1252 because it was not UTF-8

    def to_json(self) -> dict:
        return {"encoding": self.encoding, "line_endings": self.line_endings, "fallback": self.fallback}


def _line_endings(text: str) -> str:
    crlf = text.count("\r\n")
    cr = text.count("\r") - crlf
    lf = text.count("\n") - crlf
    kinds = [name for name, n in (("CRLF", crlf), ("CR", cr), ("LF", lf)) if n]
    return kinds[0] if len(kinds) == 1 else "mixed" if kinds else "none"


def _normalise(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _line_of(text: str, index: int) -> int:
    return _normalise(text[:index]).count("\n") + 1


def decode(data: bytes, file: str) -> Decoded:
    """Decode a document's bytes; a file that is not text fails with ``file:line``."""
    for magic, kind in _MAGIC:  # a file of another kind saved as .txt: say what it is, not its first odd byte
        if data.startswith(magic):
            raise ParseError([Problem(file, 1, EXPECTED, kind)])
    for bom, codec, name in _BOMS:
        if data.startswith(bom):
            if bom is codecs.BOM_UTF16_LE and data.startswith(codecs.BOM_UTF32_LE):
                break
            try:
                # "utf-16" reads the mark and the byte order from it; utf-16-le/be would keep the mark.
                text = data.decode(codec)
            except UnicodeDecodeError as exc:
                # utf-8-sig counts its offsets after the mark (utf-16 from the file's start): without this shift
                # the bytes named were three bytes before the bad ones, and the line could be the one before.
                shift = len(bom) if codec == "utf-8-sig" else 0
                start, end = exc.start + shift, exc.end + shift
                before = data[:start].decode(codec, errors="replace")
                line = _line_of(before, len(before))
                raise ParseError(
                    [
                        Problem(
                            file,
                            line,
                            f"{name} text",
                            f"bytes {data[start:end].hex(' ')} at offset {start}",
                        )
                    ]
                ) from None
            return _checked(text.lstrip("\ufeff"), name, file, fallback=False)
    lost = _utf16_without_mark(data)  # (no mark; its ASCII decodes as UTF-8: the first NUL was named)
    if lost:
        raise ParseError([Problem(file, 1, EXPECTED, lost)])
    try:
        return _checked(data.decode("utf-8"), "UTF-8", file, fallback=False)
    except UnicodeDecodeError:
        pass
    named = named_encodings().get(hashlib.sha256(data).hexdigest())
    if named is not None:
        codec, name = named
        return _checked(data.decode(codec), f"{name} (corpus/{ENCODINGS_FILE})", file, fallback=False)
    bad = _NOT_TEXT.search(data)
    if bad is not None:
        line = _normalise(data[: bad.start()].decode("latin-1")).count("\n") + 1
        raise ParseError([Problem(file, line, EXPECTED, f"byte 0x{data[bad.start()]:02x} at offset {bad.start()}")])
    return _checked(data.decode("cp1252"), "Windows-1252", file, fallback=True)


# What a file saved as .txt but of another kind starts with (the rules are read from Wizards' TXT download).
_MAGIC = ((b"%PDF-", "a PDF file, not its text"), (b"PK\x03\x04", "a ZIP archive"), (b"\x1f\x8b", "a gzip archive"),
          (b"{\\rtf", "an RTF document, not plain text"), (b"\xd0\xcf\x11\xe0", "a Word document"),
          (codecs.BOM_UTF32_LE, "UTF-32 LE (save it as UTF-8)"), (codecs.BOM_UTF32_BE, "UTF-32 BE (save it as UTF-8)"))


def _utf16_without_mark(data: bytes) -> str | None:
    """UTF-16 whose byte-order mark was lost (an editor's "Unicode" without it): every other byte NUL."""
    head = data[:2000]
    if len(head) < 4 or head.count(b"\x00") * 3 < len(head):
        return None
    order = "LE" if head[1::2].count(0) > head[0::2].count(0) else "BE"
    return f"UTF-16 {order} without a byte-order mark (save it as UTF-8)"


def _checked(text: str, encoding: str, file: str, fallback: bool) -> Decoded:
    bad = _CONTROL.search(text)
    if bad is not None:
        raise ParseError([Problem(file, _line_of(text, bad.start()), EXPECTED,
                                  f"control character U+{ord(bad.group()):04X} ({encoding})")])
    return Decoded(_normalise(text), encoding, _line_endings(text), fallback)


def read_document(path: Path | str) -> Decoded:
    """Read and decode one document file (``file`` in problems is the path as given)."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_DOCUMENT_BYTES:
            raise ParseError([Problem(str(path), 1, f"a document of at most {MAX_DOCUMENT_BYTES // (1024 * 1024)} MB",
                                      f"{size / (1024 * 1024):.1f} MB")])
        data = path.read_bytes()
    except OSError as exc:  # `--cr` naming a missing file, a folder, a file this user may not read: one line
        found = {errno.ENOENT: "no such file", errno.EISDIR: "a folder", errno.ELOOP: "a symlink loop"}
        raise ParseError([Problem(str(path), 1, "a readable document file",
                                  found.get(exc.errno or 0, exc.strerror or str(exc)))]) from None
    return decode(data, str(path))


@cache
def named_encodings() -> dict[str, tuple[str, str]]:
    """SHA-256 of a file's bytes -> (Python codec, the encoding's name) from ``corpus/encodings.toml``; an entry
    naming no codec Python knows fails with its line."""
    path = bundled_corpus() / ENCODINGS_FILE
    text = path.read_text(encoding="utf-8")
    try:
        entries = tomllib.loads(text).get("file", [])
    except tomllib.TOMLDecodeError as exc:
        where = re.search(r"at line (\d+)", str(exc))
        raise ParseError([Problem(str(path), int(where.group(1)) if where else 1, "a TOML table of files and encodings",
                                  str(exc))]) from None
    out: dict[str, tuple[str, str]] = {}
    for entry in entries:
        at = text.find(str(entry.get("sha256", "")) or "\0")
        line = text[:at].count("\n") + 1 if at >= 0 else 1
        try:
            codecs.lookup(entry["codec"])
            out[entry["sha256"].lower()] = (entry["codec"], entry["encoding"])
        except (KeyError, LookupError) as exc:
            raise ParseError([Problem(str(path), line, "a file's sha256, codec (a Python codec) and encoding name",
                                      f"{type(exc).__name__}: {exc}")]) from None
    return out
