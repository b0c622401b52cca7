"""The Whoosh full-text index: schema, analyzers, writing, opening.

Whoosh stays behind this module (and kb.search). Fields chosen for this corpus:

- ``id``, ``number``: exact terms (``702.187d``, ``116.2tr`` stay whole);
- ``doc``, ``kind``: filterable terms;
- ``title`` (rule titles, card names, headings): boosted above the body;
- ``body``: stemmed ("proliferate" finds "proliferated"), accents folded
  ("Aether" finds "Æther"), stop words dropped;
- ``exact``: the body unstemmed, for phrase queries and the "did you mean" vocabulary;
- ``complete``: word n-grams of titles and numbers, for autocomplete.

Every text field uses the same explicit tokenizer, because the Whoosh forks
changed the default. What a word is, folding, stop words and stemming are
``kb.words``' (shared with ingest); the analyzer below chains them in Whoosh.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from whoosh import index as whoosh_index
from whoosh.analysis import Filter, LowercaseFilter, RegexTokenizer, StemFilter, StopFilter
from whoosh.fields import ID, NGRAMWORDS, STORED, TEXT, Schema

from kb.model import Record
from kb.whoosh_adapter import IndexReleaseError, check_release
from kb.words import STOP_WORDS, TOKEN, fold, plain

# TOKEN and plain are kb.words', named here too for the modules that import them from the index.
__all__ = ["SCHEMA", "write_index", "open_index", "analyzer", "TOKEN", "plain"]


class FoldFilter(Filter):
    """Fold accents and ligatures to ASCII (Æther -> aether), as record ids do."""

    def __call__(self, tokens):
        for t in tokens:
            t.text = fold(t.text)
            yield t


def analyzer(stem: bool = True):
    """kb.words' normalisation as a Whoosh analyzer (``stems`` for ``stem=True``, else ``words``)."""
    chain = RegexTokenizer(TOKEN) | LowercaseFilter() | FoldFilter()
    if stem:
        # Snowball English (kb.words' stemmer), stop words without a minimum length.
        chain = chain | StopFilter(stoplist=STOP_WORDS, minsize=1) | StemFilter(lang="en")
    return chain


SCHEMA = Schema(
    id=ID(stored=True, unique=True),
    doc=ID(stored=True),
    kind=ID(stored=True),
    number=ID(stored=True, field_boost=4.0),
    title=TEXT(analyzer=analyzer(), field_boost=3.0, stored=True),
    body=TEXT(analyzer=analyzer()),
    exact=TEXT(analyzer=analyzer(stem=False)),
    complete=NGRAMWORDS(minsize=2, maxsize=12, stored=False, tokenizer=RegexTokenizer(TOKEN)),
    order=STORED,
)

def _body(record: Record) -> str:
    parts = [record.text, record.rules_text or "", record.type_line or "", record.attribution or ""]
    parts += list(record.examples) + list(record.commentary)
    if record.group:
        parts.append(record.group)
    return plain("\n".join(p for p in parts if p))


def write_index(path: Path, records: list[Record], tick: Callable[[int, int], None] | None = None) -> None:
    """The search index of ``records``; ``tick(done, total)`` hears every 200 records added (a build's longest
    step: ~6 s for the bundled corpus, ~30 s with the official rules on a busy machine)."""
    path.mkdir(parents=True, exist_ok=True)
    ix = whoosh_index.create_in(str(path), SCHEMA)
    writer = ix.writer(limitmb=256)
    for order, r in enumerate(records):
        title = plain(r.title or "")
        body = _body(r)
        writer.add_document(
            id=r.id,
            doc=r.doc,
            kind=r.kind,
            number=(r.number or "").lower().rstrip(")").replace(") ", " "),
            title=title,
            body=body,
            exact=title + "\n" + body,
            complete=" ".join(filter(None, [r.number or "", title])),
            order=order,
        )
        if tick is not None and (order + 1) % 200 == 0:
            tick(order + 1, len(records))
    if tick is not None:
        tick(len(records), len(records))
    writer.commit(optimize=True)


def open_index(path: Path):
    """The index in ``path``; ``IndexReleaseError`` when another major release of Whoosh wrote it (rebuild)."""
    ix = whoosh_index.open_dir(str(path))
    try:
        check_release(ix)
    except IndexReleaseError:
        ix.close()
        raise
    return ix
