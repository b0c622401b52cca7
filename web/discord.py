"""Discord's HTTP interactions endpoint: slash commands answered without a gateway bot.

``POST /discord/interactions`` is on when ``KB_DISCORD_PUBLIC_KEY`` (the
application's Ed25519 public key, hex, from the Developer Portal) is set,
and a 404 otherwise. Every request is checked before anything else is read:
the ``X-Signature-Ed25519`` header must be Discord's signature of
``X-Signature-Timestamp`` followed by the raw body, and the timestamp must
be within ``KB_DISCORD_MAX_AGE`` seconds (300) of now, so a recorded request
replayed later is refused too. A request failing either is a 401 and
nothing else happens. The signature is checked with ``cryptography``'s
Ed25519 (PyCA's maintained OpenSSL binding), never by hand.

Interactions: PING (1) -> PONG; a command (2) -> a message with embeds (4);
autocomplete (4) -> choices (8). ``private: true`` makes the reply ephemeral.
"""
from __future__ import annotations

import json
import re
import unicodedata
import time

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from flask import Blueprint, current_app, request

from web import discord_answers as A
from web.app import Response, public_url

__all__ = ["discord", "load_public_key", "verify", "PING", "APPLICATION_COMMAND", "AUTOCOMPLETE", "EPHEMERAL"]

discord = Blueprint("discord", __name__, url_prefix="/discord")

PING, APPLICATION_COMMAND, AUTOCOMPLETE = 1, 2, 4  # interaction types
PONG, CHANNEL_MESSAGE, AUTOCOMPLETE_RESULT = 1, 4, 8  # response types
EPHEMERAL = A.EPHEMERAL  # message flag: only the user who asked sees it

COMMANDS = {"rule": (A.rule_message, "ref"), "card": (A.card_message, "name"),
            "search": (A.search_message, "query"), "define": (A.define_message, "term")}
CHOICES = {("rule", "ref"): A.rule_choices, ("card", "name"): A.card_choices_for,
           ("define", "term"): A.term_choices}


def load_public_key(hex_key: str) -> Ed25519PublicKey:
    """The application's public key from its hex form; a ValueError says what is wrong with it."""
    try:
        raw = bytes.fromhex(hex_key.strip())
    except ValueError:
        raise ValueError("KB_DISCORD_PUBLIC_KEY must be the application's public key in hex "
                         "(64 hex digits, from the Developer Portal's General Information)") from None
    if len(raw) != 32:
        raise ValueError(f"KB_DISCORD_PUBLIC_KEY must be 32 bytes (64 hex digits); it is {len(raw)} bytes")
    return Ed25519PublicKey.from_public_bytes(raw)


def verify(key: Ed25519PublicKey, signature: str, timestamp: str, body: bytes, now: float,
           max_age: float) -> str | None:
    """None when Discord signed ``timestamp + body`` recently; otherwise why not."""
    if not signature or not timestamp:
        return "missing X-Signature-Ed25519 or X-Signature-Timestamp"
    try:
        sig = bytes.fromhex(signature)
    except ValueError:
        return "the signature is not hex"
    try:
        key.verify(sig, timestamp.encode("utf-8") + body)
    except InvalidSignature:
        return "bad signature"
    if not re.fullmatch(r"[0-9]{1,12}", timestamp):
        return "the timestamp is not a number of seconds since 1970"
    if abs(now - int(timestamp)) > max_age:
        return "stale timestamp: the request is older than the allowed age (or from the future)"
    return None


def _lone_surrogate(value) -> bool:
    """Does any string in a parsed JSON value hold a lone surrogate? (Walked without recursion: the parser
    allows nesting deeper than Python's recursion.)"""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _json(data: dict, status: int = 200) -> Response:
    return Response(json.dumps(data, ensure_ascii=False, separators=(",", ":")), status=status,
                    mimetype="application/json")


def _error(status: int, code: str, message: str) -> Response:
    return _json({"error": {"code": code, "message": message}}, status)


@discord.post("/interactions")
def interactions():
    key = current_app.extensions.get("discord_key")
    if key is None:
        return _error(404, "not_found", "the Discord endpoint is off: set KB_DISCORD_PUBLIC_KEY to turn it on")
    body = request.get_data(cache=False)
    why = verify(key, request.headers.get("X-Signature-Ed25519", ""), request.headers.get("X-Signature-Timestamp", ""),
                 body, time.time(), float(current_app.config["KB_DISCORD_MAX_AGE"]))
    if why:
        return _error(401, "invalid_signature", why)
    try:
        interaction = json.loads(body)
    except (ValueError, RecursionError):  # '[' * 100000 recurses too deep
        return _error(400, "bad_request", "the body is not JSON (or is nested too deeply)")
    if not isinstance(interaction, dict):
        return _error(400, "bad_request", "the body must be a JSON object")
    if _lone_surrogate(interaction):  # "\ud800" is valid JSON and no text: a 500 further on
        return _error(400, "bad_request", "the body's strings must be valid Unicode (no lone surrogates)")
    kind = interaction.get("type")
    if type(kind) is not int:  # true == 1 and 2.0 == 2 in Python: a PING and a command, answered as such
        return _error(400, "bad_request", "type must be an integer: 1 (PING), 2 (command) or 4 (autocomplete)")
    if kind == PING:
        return _json({"type": PONG})
    data = interaction.get("data")
    if kind not in (APPLICATION_COMMAND, AUTOCOMPLETE) or not isinstance(data, dict):
        return _error(400, "bad_request",
                      f"unsupported interaction type {kind!r}: this app answers PING, commands and autocomplete")
    if not isinstance(data.get("name"), str):
        return _error(400, "bad_request", "data.name must be the command's name, a string")
    options = data.get("options") or []
    if not isinstance(options, list) or not all(isinstance(o, dict) and isinstance(o.get("name"), str)
                                                for o in options):
        return _error(400, "bad_request", "data.options must be a list of {name, value} objects")
    kb = current_app.extensions["kb"].current()
    base = public_url()
    name = data.get("name")
    if kind == AUTOCOMPLETE:
        focused = next((o for o in options if o.get("focused")), None)
        choices: list[dict] = []
        if focused is not None and (choose := CHOICES.get((str(name), focused["name"]))):
            choices = choose(kb, _visible(str(focused.get("value") or "")))
        return _json({"type": AUTOCOMPLETE_RESULT, "data": {"choices": choices}})
    values = {o["name"]: o.get("value") for o in options}
    if name not in COMMANDS:
        # a NUL in a name was echoed, and a right-to-left override could turn the channel's text around
        shown = _visible(str(name))[:40]
        message = A.fit({"content": f"Unknown command /{A.escape(shown)}; run `kb discord commands` "
                                    "and register them again.", "embeds": [], "allowed_mentions": {"parse": []}})
    else:
        answer, option = COMMANDS[name]
        # as typed, without control and format characters: "No card ab\u202e\u0000cd" echoed them in its title
        message = answer(kb, _visible(str(values.get(option) or "")), base)
    if values.get("private") is True:
        message["flags"] = EPHEMERAL
    return _json({"type": CHANNEL_MESSAGE, "data": message})


def _visible(text: str) -> str:
    """``text`` without control (Cc) and format (Cf) characters: NULs, bells, bidirectional overrides."""
    return "".join(c for c in text if unicodedata.category(c) not in ("Cc", "Cf"))


def init_app(app) -> None:
    """Turn the endpoint on when the key is configured; a malformed key stops the app with why."""
    key = app.config.get("KB_DISCORD_PUBLIC_KEY")
    app.extensions["discord_key"] = load_public_key(key) if key else None
    app.register_blueprint(discord)
