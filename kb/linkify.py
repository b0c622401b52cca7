"""Turn a chat message's rule references and ``[[Card Names]]`` into links.

Rule references are found by the reference grammar (kb.refs), so plain
numbers, prices and times are left alone; ``[[Card Name]]`` is Scryfall's
chat convention, matched with small typos tolerated. A reference found in
several documents links to the short link's disambiguation page.
"""
from __future__ import annotations

import html
import re
from urllib.parse import quote

from kb.refs import find_refs

__all__ = ["linkify", "MAX_TEXT"]

MAX_TEXT = 20_000
_CARD = re.compile(r"\[\[([^\[\]\n]{1,80})\]\]")
_MD_SPECIAL = re.compile(r"([\\\[\]()])")


def _links(kb, text: str) -> list[dict]:
    found = []
    for m in _CARD.finditer(text):
        card, _ = kb.resolver.card(m.group(1))
        if card is not None:
            found.append({"match": m.group(0), "label": m.group(1), "id": card.id,
                          "path": "/" + card.id, "start": m.start(), "end": m.end()})
    taken = [(f["start"], f["end"]) for f in found]
    for m in find_refs(text, sections=kb.resolver.section_titles):
        if any(s < m.end and m.start < e for s, e in taken):
            continue
        res = kb.resolver.resolve(m.text)
        if not res.matches:
            continue
        one = len(res.matches) == 1
        found.append({"match": m.text, "label": m.text, "id": res.matches[0].id if one else None,
                      "path": "/" + res.matches[0].id if one else "/r/" + quote(m.text.strip(), safe=""),
                      "start": m.start, "end": m.end})
    return sorted(found, key=lambda f: f["start"])


def linkify(kb, text: str, fmt: str = "markdown", base_url: str = "") -> dict:
    links = _links(kb, text)
    out, pos = [], 0
    for link in links:
        plain = text[pos:link["start"]]
        url = base_url + link["path"]
        if fmt == "html":
            out.append(html.escape(plain))
            out.append(f'<a href="{html.escape(url)}">{html.escape(link["label"])}</a>')
        else:
            out.append(plain)
            label = _MD_SPECIAL.sub(r"\\\1", link["label"])
            out.append(f"[{label}]({url})")
        pos = link["end"]
    rest = text[pos:]
    out.append(html.escape(rest) if fmt == "html" else rest)
    return {
        "text": "".join(out),
        "links": [{"match": l["match"], "id": l["id"], "url": base_url + l["path"],
                   "start": l["start"], "end": l["end"]} for l in links],
    }
