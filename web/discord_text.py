"""Text for Discord: its Markdown escaped, cut at words, and a whole message held to Discord's limits.

``escape`` shows record text as written (``*/1+*`` is not italics; the
FAQ's ``_italics_`` stay italics); ``cut`` shortens plain text after a whole
word with "… [more](link)"; ``fit`` is the last pass over a message, against
the documented limits in ``kb.discord_commands.LIMITS``.
"""
from __future__ import annotations

import re

from kb.discord_commands import LIMITS

__all__ = ["ELLIPSIS", "escape", "words", "cut", "link", "message_size", "fit"]

ELLIPSIS = "…"

_MD = re.compile(r"([\\*~`|\[\]<>])")
_LINE_START = re.compile(r"^(\s*)([#>\-+]|\d+\.(?=\s))", re.M)
_EM = re.compile(r"(?<![\w])_(?=[^\s_])(.+?)(?<=[^\s_])_(?![\w])")  # a blank ("See ___") is no emphasis


def escape(text: str) -> str:
    """Record text as Discord Markdown that shows it as written: the FAQ's _italics_ as italics."""
    text = _MD.sub(r"\\\1", text)
    text = _LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2), text)
    text = _EM.sub(lambda m: "\ue000" + m.group(1).replace("_", "\\_") + "\ue000", text)
    return text.replace("_", "\\_").replace("\ue000", "*")


def words(text: str, n: int) -> str:
    """At most ``n`` characters of plain text, cut after a whole word, with an ellipsis when cut."""
    if len(text) <= n:
        return text
    head = text[: max(0, n - 1)]
    cut_at = max(head.rfind(" "), head.rfind("\n"))
    head = head[:cut_at] if cut_at > 0 else ""
    return head.rstrip(" \n,;:") + ELLIPSIS


def cut(text: str, n: int, url: str | None = None) -> str:
    """Plain ``text`` escaped, in at most ``n`` characters: cut at a word, "… [more](url)"."""
    full = escape(text)
    if len(full) <= n:
        return full
    more = f" [more]({url})" if url else ""
    budget = n - len(more)
    while budget > 0:
        out = escape(words(text, budget))
        if len(out) + len(more) <= n:
            return out + more
        budget -= max(1, len(out) + len(more) - n)
    return more.strip()[:n]


def link(label: str, url: str) -> str:
    return f"[{escape(label)}]({url})"


def message_size(embeds: list[dict]) -> int:
    """Characters Discord counts toward the 6000 of a message's embeds."""
    total = 0
    for e in embeds:
        total += len(e.get("title", "")) + len(e.get("description", ""))
        total += len(e.get("footer", {}).get("text", "")) + len(e.get("author", {}).get("name", ""))
        total += sum(len(f["name"]) + len(f["value"]) for f in e.get("fields", []))
    return total


def fit(message: dict) -> dict:
    """Hold a message to Discord's limits: the last pass before it is sent."""
    L = LIMITS
    message["content"] = message.get("content", "")[: L["content"]]
    embeds = message.get("embeds", [])[: L["embeds"]]
    for e in embeds:
        url = e.get("url")
        if "title" in e:
            e["title"] = words(e["title"], L["title"])
        if "description" in e and len(e["description"]) > L["description"]:
            e["description"] = _trim_markdown(e["description"], L["description"], url)
        if "footer" in e:
            e["footer"]["text"] = words(e["footer"]["text"], L["footer"])
        fields = e.get("fields", [])[: L["fields"]]
        for f in fields:
            f["name"] = words(f["name"], L["field_name"]) or "\u200b"
            if len(f["value"]) > L["field_value"]:
                f["value"] = _trim_markdown(f["value"], L["field_value"], url)
        if fields:
            e["fields"] = fields
    while message_size(embeds) > L["embed_total"]:
        over = message_size(embeds) - L["embed_total"]
        longest = max(embeds, key=lambda e: len(e.get("description", "")))
        text = longest.get("description", "")
        if len(text) > over + 40:
            longest["description"] = _trim_markdown(text, len(text) - over, longest.get("url"))
        elif any(e.get("fields") for e in embeds):
            next(e for e in reversed(embeds) if e.get("fields"))["fields"].pop()
        else:
            embeds.pop()
    message["embeds"] = embeds
    return message


def _trim_markdown(text: str, n: int, url: str | None) -> str:
    """Cut already-formatted Markdown at a line, else at a word outside any [link](...)."""
    more = f"\n{ELLIPSIS} [more]({url})" if url else f"\n{ELLIPSIS}"
    budget = n - len(more)
    head = text[:budget]
    if "\n" in head[budget // 2:]:
        return head[: head.rfind("\n")].rstrip() + more
    open_link = head.rfind("[")
    if open_link > head.rfind(")"):  # do not cut inside a link
        head = head[:open_link]
    space = head.rfind(" ")
    head = head[:space] if space > 0 else head
    return head.rstrip("\\ ") + more
