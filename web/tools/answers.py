"""Every answer of a fixed, seeded query set, written out so that two versions of search can be compared:
``python -m web.tools.answers --data DIR --out answers.jsonl`` before and after a change, then ``cmp`` the files.

A change meant only to make search cheaper (docs/performance.md) must leave these identical: for each query the
first and second pages (every hit's id, score to the last digit as ``repr`` writes it, snippet, label, asked,
cites), the totals, facets, notes, "did you mean" and rewrites; and the autocompletes of a few hundred prefixes.
The set (``queries``): the bench's query classes, the quality suites' questions, seeded word combinations, seeded
typos of the records' words, mistyped card names, two- and three-word phrases quoted from the records, and words
under each document's and kind's filter. Each query runs on a searcher warmed as ``kb serve`` warms it, cache off,
in the set's order (a first run for most queries: per-build tables filled by a query show up as a difference too).
The lexical path alone by default; ``--semantic`` turns the semantic stage on, as ``kb serve`` does (the
``KB_SEMANTIC`` setting is read by the web layer, not here).
"""
from __future__ import annotations

import argparse
import json
import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import asdict
from pathlib import Path

__all__ = ["queries", "prefixes", "answers", "main"]

_WORD = re.compile(r"[a-z]{3,}")


def _typo(rng: random.Random, word: str) -> str:
    """One seeded edit of ``word``: a letter dropped, doubled, swapped with the next or replaced."""
    i = rng.randrange(len(word) - 1)
    edit = rng.choice(["drop", "double", "swap", "replace"])
    if edit == "drop":
        return word[:i] + word[i + 1:]
    if edit == "double":
        return word[:i] + word[i] + word[i:]
    if edit == "swap":
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]
    return word[:i] + rng.choice("abcdefghijklmnopqrstuvwxyz") + word[i + 1:]


def queries(store, seed: int = 18) -> list[str]:
    """The regression set, in a fixed order (about 2,300 distinct queries with the official rules)."""
    from corpus.questions import CR_FRESH, CR_FRESH_2, CR_QUESTIONS, CR_TABLE_TALK, FRESH, FRESH_2, QUESTIONS, \
        TABLE_TALK
    from kb.model import KINDS
    from web.tools.bench import query_classes

    rng = random.Random(seed)
    records = sorted(store.records.values(), key=lambda r: r.id)
    has_cr = any(r.doc == "cr" for r in records)
    out = [q for qs in query_classes(has_cr).values() for q in qs]
    out += [q for q, _ in QUESTIONS + TABLE_TALK + FRESH + FRESH_2]
    if has_cr:
        out += [q for q, _ in CR_QUESTIONS + CR_TABLE_TALK + CR_FRESH + CR_FRESH_2]
    words = sorted({w for r in records for w in _WORD.findall(f"{r.title or ''} {r.text or ''}".lower())})
    out += [" ".join(rng.sample(words, rng.choice((1, 2, 2, 3)))) for _ in range(900)]
    long_words = [w for w in words if len(w) >= 5]
    out += [" ".join(_typo(rng, w) for w in rng.sample(long_words, rng.choice((1, 1, 2)))) for _ in range(700)]
    cards = sorted({r.title for r in records if r.kind == "card" and r.title and len(r.title) >= 5})
    out += [_typo(rng, name.lower()) for name in rng.sample(cards, min(200, len(cards)))]
    texts = [r.text.lower() for r in records if r.text]
    for _ in range(150):
        said = _WORD.findall(rng.choice(texts))
        if len(said) >= 3:
            n = rng.choice((2, 2, 3))
            at = rng.randrange(len(said) - n + 1)
            out.append('"' + " ".join(said[at:at + n]) + '"' + rng.choice(("", "", f" {rng.choice(words)}")))
    slugs = sorted({r.doc for r in records})
    for _ in range(150):
        where = rng.choice([f"doc:{rng.choice(slugs)}", f"kind:{rng.choice(KINDS)}",
                            f"doc:{rng.choice(slugs)} kind:{rng.choice(KINDS)}"])
        out.append(" ".join(rng.sample(words, rng.choice((1, 2)))) + " " + where)
    return list(dict.fromkeys(out))


def prefixes(store, seed: int = 18, n: int = 300) -> list[str]:
    """Autocomplete prefixes: the start of seeded records' titles, two to eight letters."""
    rng = random.Random(seed)
    titles = sorted({r.title for r in store.records.values() if r.title})
    return list(dict.fromkeys(t[:rng.randint(2, 8)].lower() for t in rng.sample(titles, min(n, len(titles)))))


def _page(results) -> dict:
    out = asdict(results)
    for hit in out["hits"]:
        hit["score"] = repr(hit["score"])  # to the last digit
    return out


def answers(searcher, qs: Sequence[str], starts: Sequence[str]) -> Iterator[str]:
    """One JSON line per query (its first and second pages) and per autocomplete prefix."""
    from kb.search import QueryError

    for q in qs:
        try:
            pages = [_page(searcher.search(q, limit=10, offset=at)) for at in (0, 10)]
        except QueryError as error:  # a filter naming a document the build lacks: its message is the answer
            yield json.dumps({"q": q, "error": str(error)}, sort_keys=True, ensure_ascii=False)
            continue
        yield json.dumps({"q": q, "pages": pages}, sort_keys=True, ensure_ascii=False)
    for s in starts:
        yield json.dumps({"complete": s, "labels": searcher.autocomplete(s)}, sort_keys=True, ensure_ascii=False)


def main(argv: Sequence[str] | None = None) -> None:
    from kb.search import Searcher
    from kb.store import Store

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a data directory (kb build)")
    parser.add_argument("--out", type=Path, required=True, help="where to write the answers (JSON lines)")
    parser.add_argument("--semantic", action="store_true",
                        help="with the semantic stage on, as served (default: the lexical path alone)")
    args = parser.parse_args(argv)
    store = Store.open(args.data)
    searcher = Searcher(store, cache_size=0, semantic=args.semantic)
    searcher.warm()  # as kb serve opens a build
    qs, starts = queries(store), prefixes(store)
    with args.out.open("w", encoding="utf-8") as f:
        for line in answers(searcher, qs, starts):
            f.write(line + "\n")
    searcher.close()
    print(f"{len(qs)} queries, {len(starts)} prefixes -> {args.out}")


if __name__ == "__main__":
    main()
