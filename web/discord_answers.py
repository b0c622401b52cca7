"""What the Discord commands answer: one message with embeds, always inside Discord's limits.

Each command has one function from the opened knowledge base and the
option typed to a message (``{"content", "embeds", "allowed_mentions"}``)
and one for its autocomplete choices. Record text is escaped for Discord's
Markdown (the FAQ's ``_italics_`` are kept as italics); anything too long is
cut at a word boundary with an ellipsis and a link to the full page, never
mid-word, and ``fit`` checks the whole message against ``LIMITS`` last.
"""
from __future__ import annotations

import contextlib
import html
import re
from datetime import date
from urllib.parse import quote, urlencode

from kb.cardnames import card_choices, find_card, split_set_code
from kb.discord_commands import LIMITS
from kb.history import dated_matches
from kb.ids import record_url
from kb.kbase import Opened
from kb.model import Record
from kb.resolve import _name_key, edit_distance
from kb.search import QueryError
from kb.snippet import shown, translation
from kb.refs import undated
from web.data import named_record, no_history, short_link
from web.discord_text import ELLIPSIS, cut, escape, fit, link, words
from web.render import preview

__all__ = ["rule_message", "card_message", "search_message", "define_message",
           "rule_choices", "card_choices_for", "term_choices", "record_embed", "card_embed", "short_url"]

COLORS = {"treachery": 0x8E2DE2, "uncommander": 0xD9822B, "futuresight": 0x2B6CB0, "cr": 0x333333,
          "keywords": 0x2F855A}
NOTHING = 0x718096
SUMMARY = 140  # characters of a sub-rule in a rule's summary line
EPHEMERAL = 1 << 6  # message flag: only the user who asked sees it


# -- records --------------------------------------------------------------------------
def _doc_title(kb: Opened, slug: str) -> str:
    if slug == "keywords":
        return "Keywords"
    d = kb.store.document(slug)
    return d["title"] if d else slug


def _key(text: str | None) -> str:
    return _name_key(text or "")


def short_url(kb: Opened, record: Record, base: str) -> str:
    """The record's short link (/r/907.4b, /c/Tarmogoyf) as the site prints it, else its page."""
    return base + (short_link(kb, record, kb.store.label(record)) or record_url(record.id))


def _footer(kb: Opened, record: Record) -> dict:
    if record.doc == "keywords":
        return {"text": "Keywords, gathered from every document"}
    d = kb.store.document(record.doc) or {"title": record.doc}
    text = d["title"] + (f" {d['version']}" if d.get("version") and d["version"][0].isdigit() else
                         f", {d['version']}" if d.get("version") else "")
    effective = d.get("effective")
    if effective and effective[0].isdigit():
        text += f" · effective {effective}"
    return {"text": text}


def _base_embed(kb: Opened, record: Record, base: str, title: str | None = None) -> dict:
    return {"title": words(title or kb.store.label(record), LIMITS["title"]), "url": short_url(kb, record, base),
            "color": COLORS.get(record.doc, NOTHING), "footer": _footer(kb, record)}


def _lines(items: list[str], budget: int, url: str, what: str) -> str:
    """Whole lines while they fit in ``budget``; then "… and N more <what>: [see all](url)"."""
    out, used = [], 0
    for i, line in enumerate(items):
        rest = len(items) - i
        tail = f"{ELLIPSIS} and {rest} more {what}: [see all]({url})"
        if used + len(line) + 1 > budget - (len(tail) + 1 if rest > 1 else 0):
            if used + len(tail) + 1 <= budget:
                out.append(tail)
            break
        out.append(line)
        used += len(line) + 1
    return "\n".join(out)


def record_embed(kb: Opened, record: Record, base: str, budget: int = 5800, note: str | None = None) -> dict:
    """A rule, section, glossary entry, ruling, ...: its text, then its sub-records summarised."""
    if record.kind == "card":
        return card_embed(kb, record, base, budget, note)
    embed = _base_embed(kb, record, base)
    url = embed["url"]
    room = min(LIMITS["description"], budget - len(embed["title"]) - len(embed["footer"]["text"]))
    head = [f"*{escape(note)}*"] if note else []
    body = [record.text or record.rules_text or ""]
    body += [e if e.lower().startswith("example") else f"Example: {e}" for e in record.examples]
    body += [f"({c})" for c in record.commentary]
    if record.attribution:
        body.append(f"Source: {record.attribution}")
    text = "\n\n".join(b for b in body if b)
    children = kb.store.children(record)
    summary = [f"**{escape(_child_label(c, record))}** {escape(words(_child_text(c, kb), SUMMARY))}"
               for c in children]
    # The text gets what the summary leaves it, but at least half.
    want_summary = min(sum(len(s) + 1 for s in summary) + 60, room // 2) if summary else 0
    parts = head + ([cut(text, room - want_summary - sum(len(h) + 2 for h in head) - 2, url)] if text else [])
    if summary:
        used = sum(len(p) + 2 for p in parts)
        parts.append(_lines(summary, room - used, url, "sub-rules"))
    embed["description"] = "\n\n".join(p for p in parts if p) or link("open the record", url)
    return embed


def _child_label(child: Record, parent: Record) -> str:
    """A sub-record's label as the record page lists it: a nested item keeps its path below the parent
    ("f) i" under Token Cards, not a second "i)")."""
    rel = child.id[len(parent.id) + 1:] if child.id.startswith(parent.id + "/") else ""
    if "/" in rel:
        return rel.replace("/", ") ") + ")"
    if child.number:
        return child.number + (")" if child.kind == "rule" and not child.number[0].isdigit() else "")
    return child.title or ""


def _child_text(child: Record, kb: Opened) -> str:
    """A sub-record's line: a headed rule's heading and what it says (702.187 "Unveil", not only its
    translation line), as previews read it."""
    text = preview(child, 10 * SUMMARY, kb.store.records)
    label = " ".join(filter(None, [child.number, child.title]))
    if label and text.startswith(label + ": "):
        text = (f"{child.title} — " if child.title else "") + text[len(label) + 2:]
    elif child.number and text.startswith(child.number + " "):
        text = text[len(child.number) + 1:]
    return " ".join(text.split())


def card_embed(kb: Opened, card: Record, base: str, budget: int = 5800, note: str | None = None) -> dict:
    """A card: its printed text (the FAQ) or its role (Treachery), then every note or ruling that fits."""
    title = (card.title or card.id) + (f" {card.mana_cost}" if card.mana_cost else "")
    embed = _base_embed(kb, card, base, title)
    url = embed["url"]
    room = min(LIMITS["description"], budget - len(embed["title"]) - len(embed["footer"]["text"]))
    head = [f"*{escape(note)}*"] if note else []
    if card.role:
        head.append(f"**{escape(card.role)}** identity card")
    printed = " · ".join(filter(None, [card.type_line, card.power_toughness]))
    if printed:
        head.append(f"**{escape(printed)}**")
    if card.rules_text:
        head.append(cut(card.rules_text, room // 3, url))
    rulings = kb.store.children(card)
    what = "notes" if card.doc == "treachery" else "rulings"
    items = []
    for i, r in enumerate(rulings, 1):
        items.append(f"{i}. {cut(' '.join((r.text or '').split()), 900, short_url(kb, r, base))}")
    if not rulings and card.text and not card.rules_text:
        items.append(cut(card.text, room // 2, url))
    used = sum(len(h) + 1 for h in head) + 2
    body = "\n".join(head)
    if items:
        body += ("\n\n" if body else "") + _lines(items, room - used, url, what)
    embed["description"] = body or link("open the card", url)
    return embed


def _message(embeds: list[dict], content: str = "") -> dict:
    return fit({"content": content, "embeds": embeds, "allowed_mentions": {"parse": []}})


def _for_the_asker(embed: dict) -> dict:
    """A reply that found nothing, or asks which of several was meant: the asker's alone, not the channel's."""
    return {**_message([embed]), "flags": EPHEMERAL}


def _nothing(title: str, text: str) -> dict:
    return {"title": words(title, LIMITS["title"]), "description": text, "color": NOTHING}


# -- /rule ----------------------------------------------------------------------------
def rule_message(kb: Opened, ref: str, base: str) -> dict:
    ref = ref.strip()
    if not ref:
        return _for_the_asker(_nothing("No reference", "Type a reference: `907.4b`, `CR 702.187c`, `Token Cards g)`."))
    if len(ref) > 200:
        too_long = f"A reference is at most 200 characters; this one has {len(ref)}."
        return _for_the_asker(_nothing("Reference too long", too_long))
    record = kb.store.get(ref.strip("/").lower())  # an autocomplete choice is a record id
    if record is not None:
        return _message([record_embed(kb, record, base)])
    res = kb.resolver.resolve(ref, prefer_only=True)  # "CR 702.187c" is the official rule, as its short link reads it
    undated_note = None
    if res.query is not None and res.query.date:  # "716.2@2016-07-22": the rule as it stood that day
        if kb.history is not None:
            return _dated_message(kb, ref, res.query, base)
        # without the earlier releases, today's rule, said so (it told readers to run kb build --cr-history)
        undated_note = no_history(res.query.date)
        res = kb.resolver.resolve(undated(ref), prefer_only=True)
    matches, note = res.matches, "; ".join(filter(None, [undated_note, res.note])) or None
    if not matches and res.query is None:
        found = find_card(kb.store, kb.resolver, *split_set_code(ref))
        if found.card is not None:
            return _message([card_embed(kb, found.card, base, note=found.note)])
        named = kb.store.get(named_record(kb, ref, None) or "")  # "trample", as its short link reads it
        if named is not None:
            return _message([record_embed(kb, named, base)])
    if not matches:
        near = res.suggestions
        lines = [f"{link(kb.store.label(r), short_url(kb, r, base))} — {_doc_title(kb, r.doc)}" for r in near[:10]]
        text = escape(note or f"{ref} is not a rule reference")
        if lines:
            text += "\n\nNearby:\n" + "\n".join(lines)
        else:
            text += f"\n\n{link('Search for it', base + '/search?' + urlencode({'q': ref}))}"
        return _for_the_asker(_nothing(f"Nothing at {ref}", text))
    shown = matches[: LIMITS["embeds"]]
    budget = LIMITS["embed_total"] // len(shown) - 50
    docs = list(dict.fromkeys(_doc_title(kb, r.doc) for r in matches))
    many = len(matches) > 1
    # A note about the whole reference ("no rule 903.14 in ...") is said once, not over each rule of a range.
    embeds = [record_embed(kb, r, base, budget, None if many else note) for r in shown]
    lines = []
    if many and len(docs) > 1:
        lines.append(escape(f"{ref} is in {len(docs)} documents: {', '.join(docs)}"))
    elif many:
        lines.append(escape(f"{ref}: {len(matches)} rules of the {docs[0]}"))
    if many and note:
        lines.append(f"*{escape(note)}*")
    if len(matches) > len(shown):
        lines.append(f"… and {len(matches) - len(shown)} more: "
                     + link("see all", base + "/r/" + quote(ref, safe="")))
    return _message(embeds, "\n".join(lines))


def _dated_message(kb: Opened, ref: str, query, base: str) -> dict:
    """A dated reference: each rule as it stood in the release in force that day, as its short link opens it."""
    history = kb.history
    found, note = dated_matches(history, query)
    release = history.release_on(query.date) if history is not None and found else None
    if history is None or release is None:
        return _for_the_asker(_nothing(f"Nothing at {ref}", escape(note or f"{ref} is not a rule reference")))
    embeds = []
    for m in found[: LIMITS["embeds"]]:
        span = history.rules_at(m["url"].rsplit("/", 1)[-1], release["index"])[0]
        url = base + m["url"]
        now = "no longer a rule" if not m["now"] else f"now {m['now']}" if m["now"] != m["number"] else ""
        text = "\n\n".join(filter(None, [span["text"], *span["examples"]]))
        # its sub-rules as they stood, as a current rule's embed lists its own (702.19@2024-01-01 said only
        # "open the rule": a heading has no words of its own)
        below = [f"**{escape(s['number'])}** {escape(words(' '.join(filter(None, [s['title'], s['text']])), SUMMARY))}"
                 for s in history.below(span, release["index"])]
        parts = [cut(text, 3000 - (1000 if below else 0), url)] if text else []  # cut escapes it
        if below:
            parts.append(_lines(below, 3000 - sum(len(p) + 2 for p in parts), url, "sub-rules"))
        # a day still to come is answered by the newest release loaded, and titled so (it said "as of 2099-01-01")
        when = query.date if query.date <= date.today().isoformat() else f"{m['effective']}, the newest release"
        embeds.append({"title": words(m["title"] + f" (as of {when})", LIMITS["title"]), "url": url,
                       "description": "\n\n".join(parts) or link("open the rule", url),
                       "footer": {"text": words(f"Comprehensive Rules, release effective {m['effective']}"
                                                + (f" · {now}" if now else ""), LIMITS["footer"])}})
    # what a range lacks that day, said once, as its short link says it (702.19c-g@2020-01-01 showed three rules)
    return _message(embeds, escape(note) if note else "")


def rule_choices(kb: Opened, typed: str) -> list[dict]:
    typed = typed.strip()[:100]
    if not typed:
        return []
    dated = _dated_choice(kb, typed)
    if dated is not None:  # "716.2@2016-07-22" offered nothing to pick
        return [dated]
    picked: list[Record] = []
    res = kb.resolver.resolve(typed, prefer_only=True)  # "cr 702.187c": the official rule, as /rule reads it
    picked += res.matches
    for c in kb.searcher.autocomplete(typed, limit=LIMITS["choices"]):
        r = kb.store.get(c["id"])
        if r is not None and r.kind in ("rule", "chapter", "section", "glossary", "note") and r not in picked:
            picked.append(r)
    if len(picked) < 5 and re.match(r"(?i)(cr|rule|r)\s*\d", typed):
        for c in kb.searcher.autocomplete(re.sub(r"(?i)^(cr|rule|r)\s*", "", typed), limit=LIMITS["choices"]):
            r = kb.store.get(c["id"])
            if r is not None and r.kind in ("rule", "chapter") and r not in picked:
                picked.append(r)
    return [_choice(kb, r) for r in picked[: LIMITS["choices"]]]


def _dated_choice(kb: Opened, typed: str) -> dict | None:
    """The one choice a dated reference offers: the rule as it stood, its words in the name, what was typed as the
    value (which /rule reads the same way); None for anything else, or a range or nothing found that day."""
    query = kb.resolver.resolve(typed).query
    if query is None or not query.date or kb.history is None:
        return None
    found, _ = dated_matches(kb.history, query)
    if len(found) != 1 or len(typed) > LIMITS["choice_value"]:
        return None
    m = found[0]
    return {"name": words(f"{m['title']} as of {m['effective']} · Comprehensive Rules — {m['summary']}",
                          LIMITS["choice_name"]), "value": typed}


def _choice(kb: Opened, record: Record, name: str | None = None) -> dict:
    label = name or kb.store.label(record)
    text = record.text or record.rules_text or ""
    if translation(text):  # Treachery 702.187 Unveil: its first sub-rule, as its search hit shows, not 'French: ...'
        text = shown(record, kb.store.records)
    text = " ".join(text.split()).replace("_", "")
    name = f"{label} · {_doc_title(kb, record.doc)}"
    if text:
        name += f" — {text}"
    value = record.id if len(record.id) <= LIMITS["choice_value"] else label[: LIMITS["choice_value"]]
    return {"name": words(name, LIMITS["choice_name"]), "value": value}


# -- /card ----------------------------------------------------------------------------
def card_message(kb: Opened, name: str, base: str) -> dict:
    name = name.strip()
    record = kb.store.get(name.strip("/").lower())
    if record is not None and record.kind == "card":
        return _message([card_embed(kb, record, base)])
    typed, code = split_set_code(name)
    found = find_card(kb.store, kb.resolver, typed, code)
    if found.card is not None:
        return _message([card_embed(kb, found.card, base, note=found.note)])
    if found.candidates:
        lines = [f"{link(c.title or c.id, short_url(kb, c, base))} — {_doc_title(kb, c.doc)}" for c in found.candidates]
        text = escape(found.note or "") + "\n\n" + "\n".join(lines)
        return _for_the_asker(_nothing(f"Which card: {typed}?", text))
    hits: list = []
    with contextlib.suppress(QueryError):
        hits = kb.searcher.search(typed[:200], kind="card", limit=5).hits if typed else []
    text = escape(f"No card named {typed!r}." + (f" ({found.note})" if found.note else ""))
    if hits:
        text += "\n\nClosest:\n" + "\n".join(link(h.label, base + record_url(h.id)) for h in hits)
    return _for_the_asker(_nothing(f"No card {typed}", text))


def card_choices_for(kb: Opened, typed: str) -> list[dict]:
    name, _ = split_set_code(typed[:100])
    return [_choice(kb, c, c.title) for c in card_choices(kb.store, kb.resolver, name, LIMITS["choices"])]


# -- /search --------------------------------------------------------------------------
_MARK = re.compile(r"</?mark>")


def search_message(kb: Opened, query: str, base: str) -> dict:
    query = query.strip()
    url = base + "/search?" + urlencode({"q": query[:500], "noredirect": 1})
    try:
        results = kb.searcher.search(query, limit=5)
    except QueryError as exc:
        return _for_the_asker(_nothing("Search not run", escape(str(exc))))
    embed = {"title": words(f"Search: {query}", LIMITS["title"]), "url": url, "color": NOTHING,
             "footer": {"text": f"{results.total} results" if results.total != 1 else "1 result"}}
    lines = []
    if results.note:
        lines.append(f"*{escape(results.note)}*")
    if results.did_you_mean and not results.did_you_mean_searched:  # searched already: said once
        corrected = base + "/search?" + urlencode({"q": results.did_you_mean})
        lines.append(f"Did you mean {link(results.did_you_mean, corrected)}?")
    if not results.hits:
        lines.append("Nothing found.")
    embed["description"] = "\n".join(lines) or f"Top {len(results.hits)} of {results.total}: {link('all', url)}"
    fields = []
    for i, h in enumerate(results.hits, 1):
        page = base + record_url(h.id)
        opener = f"\n{link('open', page)}"
        snippet = html.unescape(_MARK.sub("", h.snippet))
        fields.append({"name": words(f"{i}. {h.label} · {_doc_title(kb, h.doc)}", LIMITS["field_name"]),
                       "value": cut(snippet, 400 - len(opener), page) + opener, "inline": False})
    if fields:
        embed["fields"] = fields
    return _message([embed])


# -- /define --------------------------------------------------------------------------
def _terms(kb: Opened) -> list[tuple[str, Record]]:
    return [(_key(r.title), r) for r in kb.store.records.values() if r.kind in ("keyword", "glossary") and r.title]


def define_message(kb: Opened, term: str, base: str) -> dict:
    term = term.strip()
    record = kb.store.get(term.strip("/").lower())
    if record is not None and record.kind in ("keyword", "glossary"):
        # an autocomplete choice (a record id) answers as its term typed does: the keyword and its glossary entries
        found = [record] + [r for k, r in _terms(kb) if k == _key(record.title or "") and r is not record]
    else:
        key = _name_key(term)
        terms = _terms(kb)
        found = [r for k, r in terms if k == key] if key else []
        found = found or [r for k, r in terms if key and k.startswith(key)]
        found = found or _mistyped_terms(terms, key)
    if not found:
        text = escape(f"No keyword or glossary term {term!r}.")
        text += f"\n\n{link('Search the documents for it', base + '/search?' + urlencode({'q': term[:200]}))}"
        return _for_the_asker(_nothing(f"No term {term}", text))
    keywords = [r for r in found if r.kind == "keyword"]
    if len({_key(r.title) for r in found}) > 1:  # several terms start this way
        lines = [f"{link(kb.store.label(r), base + '/' + r.id)} — {_doc_title(kb, r.doc)}" for r in found[:20]]
        return _for_the_asker(_nothing(f"Which term: {term}?", "\n".join(lines)))
    lead = keywords[0] if keywords else found[0]
    embed = record_embed(kb, lead, base, budget=2500)
    if lead.kind == "keyword":
        targets = [kb.store.get(ref.target) for ref in lead.refs if ref.field == "definitions" and ref.target]
        definitions = [d for d in targets if d is not None] + [r for r in found if r.kind == "glossary"]
        fields = []
        for d in definitions[:10]:
            url = short_url(kb, d, base)
            opener = f"\n{link('open', url)}"
            fields.append({"name": words(f"{kb.store.label(d)} · {_doc_title(kb, d.doc)}", LIMITS["field_name"]),
                           "value": cut(_definition_text(kb, d), 300 - len(opener), url) + opener})
        if fields:
            embed["fields"] = fields
    return _message([embed])


def _definition_text(kb: Opened, record: Record) -> str:
    """A definition's words: its text, and its sub-rules' when the text only names it ("Lifelink")."""
    # a translation line is no definition (Treachery 702.187 Unveil: French: "Dévoilement.")
    texts = [record.text] if record.text and _key(record.text) != _key(record.title) and not translation(
        record.text) else []
    if sum(len(t) for t in texts) < 80:
        texts += [c.text for c in kb.store.children(record)[:3] if c.text]
    return " ".join(" ".join(texts).split())


def _mistyped_terms(terms: list[tuple[str, Record]], key: str) -> list[Record]:
    """Every record of the term nearest a mistyped one (its keyword page and glossary entries), one edit away for a
    term of five letters or fewer, two for a longer one."""
    if not key:
        return []
    reach = 1 if len(key) <= 5 else 2
    distance, nearest = min(((edit_distance(key, k, reach), k) for k, _ in terms), default=(reach + 1, ""))
    return [r for k, r in terms if k == nearest] if distance <= reach else []


def term_choices(kb: Opened, typed: str) -> list[dict]:
    key = _name_key(typed[:100])
    terms = sorted(_terms(kb), key=lambda t: (t[1].kind != "keyword", t[0]))
    if not key:
        picked = [r for _, r in terms]
    else:
        starts = [r for k, r in terms if k.startswith(key)]
        picked = starts + [r for k, r in terms if r not in starts and f" {key}" in f" {k}"]
        # a typo offers what /define answers for it ("deathtuch" offered nothing; a bot developer)
        picked = picked or _mistyped_terms(terms, key)
    seen: set[str] = set()
    out = []
    for r in picked:
        if _key(r.title) in seen and r.kind == "glossary":
            continue
        seen.add(_key(r.title))
        out.append(_choice(kb, r, r.title))
    return out[: LIMITS["choices"]]
