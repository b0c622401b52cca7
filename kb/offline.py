"""The offline pack: one build's records in a compact file a phone keeps, to answer without a network.

Judges work in halls where the Wi-Fi fails; the site's service worker (web/static/sw.js) and its page script
(web/static/offline.js) answer record pages, rule references, card names and word searches from this pack when
the server cannot be reached. It holds what those answers show and nothing else: each record's id, kind,
number, title, parent, text (and a card's printed fields, a rule's examples and commentary), its resolved
references as offsets into its text, its older numbers; each document's titles, version, effective date, the
names a reader writes before its numbers, and its renamed and removed numbers.

A record is a JSON object with short keys, empty fields left out; gzip folds the repeated keys. Made once per
build (``Opened.offline`` keeps it, read-only after) and versioned by the build id: a pack never changes, a new
build is a new pack.
"""
from __future__ import annotations

import gzip
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from kb.docnames import doc_names
from kb.model import Record
from kb.store import Store

__all__ = ["FORMAT", "Pack", "make_pack", "pack_label"]

FORMAT = 1  # the pack's layout; the page script refuses another
# Record fields as the pack names them (short: the official rules are ~5,000 records).
_FIELDS = (("text", "x"), ("mana_cost", "mc"), ("type_line", "tl"), ("power_toughness", "pt"),
           ("rules_text", "rt"), ("role", "ro"), ("attribution", "at"), ("group", "g"))
_LISTS = (("examples", "ex"), ("commentary", "cm"), ("aliases", "al"))
# What a document's entry carries from the build manifest.
_DOC_KEYS = ("slug", "title", "short_title", "version", "effective", "renamed", "removed", "set_codes")


@dataclass(frozen=True)
class Pack:
    """A build's offline pack: the JSON bytes, their gzip, and what the page says of them."""

    build: str
    label: str  # "rules of 2026-08-07"
    body: bytes  # the JSON
    gz: bytes  # the JSON gzipped once, at the best level (served as is)
    etag: str  # the first 16 hex digits of the JSON's SHA-256

    def pointer(self) -> dict[str, Any]:
        """What ``/offline/current`` answers: which pack is current, where it is, how large."""
        return {"format": FORMAT, "build": self.build, "label": self.label, "url": f"/offline/{self.build}.json",
                "bytes": len(self.body), "gzip_bytes": len(self.gz), "etag": self.etag}


def pack_label(documents: list[dict[str, Any]]) -> str:
    """"rules of 2026-08-07": the official rules' effective date when they are loaded, else the newest dated
    document's (the bundled documents alone: "rules of 2024-10-01")."""
    dated = {d["slug"]: d.get("effective") or "" for d in documents if str(d.get("effective") or "")[:1].isdigit()}
    day = dated.get("cr") or max(dated.values(), default="")
    return f"rules of {day}" if day else "rules of this build"


def _record(store: Store, r: Record) -> dict[str, Any]:
    out: dict[str, Any] = {"i": r.id, "k": r.kind}
    if r.number:
        out["n"] = r.number
    if r.title:
        out["t"] = r.title
    if r.parent:
        out["p"] = r.parent
    label = store.label(r)
    if label != " ".join(filter(None, [r.number, r.title])):  # "Token Cards g)", "The Bio-Engineer, ruling 6"
        out["l"] = label
    for name, key in _FIELDS:
        value = getattr(r, name)
        if value and not (name == "rules_text" and value == r.text):
            out[key] = value
    for name, key in _LISTS:
        values = getattr(r, name)
        if values:
            out[key] = list(values)
    # the text's resolved references, as offsets: [start, end, target]; the others stay plain words
    links = [[x.start, x.end, x.target] for x in r.refs if x.field == "text" and x.target
             and x.start is not None and x.end is not None and x.target in store.records]
    if links:
        out["r"] = links
    return out


def make_pack(store: Store) -> Pack:
    """The pack of ``store``'s build: every record in document order, then the documents."""
    documents = [{k: d[k] for k in _DOC_KEYS if d.get(k)} for d in store.documents]
    label = pack_label(store.documents)
    data = {
        "format": FORMAT,
        "build": store.build_id,
        "label": label,
        "documents": documents,
        "names": doc_names(store.documents),  # "tr 702.187d", "fut" as the reference grammar reads them
        "records": [_record(store, store.records[rid]) for ids in store.order.values() for rid in ids],
    }
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
    gz = gzip.compress(body, compresslevel=9, mtime=0)
    return Pack(store.build_id, label, body, gz, hashlib.sha256(body).hexdigest()[:16])
