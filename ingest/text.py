"""Small text helpers shared by the parsers: joining wrapped lines into paragraphs."""
from __future__ import annotations

import re

__all__ = ["join_lines", "ends_sentence", "URL_LINE"]

# A line that is nothing but a URL: the PDF's footnotes.
URL_LINE = re.compile(r"^\s*https?://\S+\s*$")

_SENTENCE_END = re.compile(r"""[.!?:…](?:["'”’)\]]*)$""")
_HYPHEN_WRAP = re.compile(r"[A-Za-z]-$")


def ends_sentence(line: str) -> bool:
    """Does ``line`` end a sentence (., !, ?, :, … possibly followed by quotes or brackets)?"""
    return bool(_SENTENCE_END.search(line.rstrip()))


def join_lines(lines: list[str]) -> str:
    """Join the wrapped lines of one paragraph with single spaces.

    A line that ends in a hyphen after a letter ("face-" / "down") was wrapped
    inside a hyphenated word, so it joins without a space.
    """
    out = ""
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if not out:
            out = line
        elif _HYPHEN_WRAP.search(out):
            out += line
        else:
            out += " " + line
    return out
