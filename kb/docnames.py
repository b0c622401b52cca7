"""Document names a reader may write before a rule number, taken from the profiles.

Each profile's ``slug`` and its ``names`` list ("future sight", "fut") name
the document; nothing here hard-codes a document. The reference grammar
(kb.refs) uses the bundled corpus's names unless a caller passes the names
of the documents it actually loaded (the resolver does, from the build
manifest).
"""
from __future__ import annotations

import tomllib
from typing import Any
from collections.abc import Iterable, Mapping

__all__ = ["doc_names", "bundled_doc_names"]


def doc_names(documents: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """``{written name: slug}`` for documents given as profile tables or manifest entries."""
    out: dict[str, str] = {}
    for d in documents:
        slug = d["slug"]
        if slug == "cr":
            continue  # "CR" is a prefix of its own (kb.refs), not a document name
        for name in [slug, *d.get("names", ())]:
            out[" ".join(name.lower().split())] = slug
    return out


def bundled_doc_names() -> dict[str, str]:
    """The names from the bundled corpus's profiles (empty if the corpus is not installed)."""
    try:
        from corpus import bundled_corpus
    except ImportError:  # pragma: no cover - a kb installed without its corpus
        return {}
    tables = []
    for path in sorted(bundled_corpus().glob("*.toml")):
        try:
            tables.append(tomllib.loads(path.read_text(encoding="utf-8")))
        except (OSError, tomllib.TOMLDecodeError):
            continue  # a broken profile is reported by the build, with its line
    return doc_names(t for t in tables if isinstance(t.get("slug"), str))
