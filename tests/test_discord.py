"""The Discord interactions endpoint, driven as Discord drives it: payloads signed with a
generated Ed25519 key, posted to the running app, replies checked against Discord's documented
shapes and limits (interaction responses, embeds, autocomplete, application commands)."""
from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

# Discord's documented limits, written out here rather than imported from the code under test.
EMBED_KEYS = {"title", "type", "description", "url", "timestamp", "color", "footer", "image", "thumbnail",
              "author", "fields"}
MESSAGE_KEYS = {"content", "embeds", "allowed_mentions", "flags", "tts", "components"}


def _public_hex(key: Ed25519PrivateKey) -> str:
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()


@pytest.fixture(scope="session")
def signing_key():
    return Ed25519PrivateKey.generate()


@pytest.fixture(scope="session")
def discord_app(data_dir, signing_key):
    from web.app import create_app

    return create_app({"KB_DATA": str(data_dir), "TESTING": True, "KB_DISCORD_PUBLIC_KEY": _public_hex(signing_key),
                       "KB_PUBLIC_URL": "https://rules.example"})


@pytest.fixture()
def discord(discord_app, signing_key):
    return Discord(discord_app.test_client(), signing_key)


class Discord:
    """Posts interactions the way Discord does: signature over timestamp + raw body."""

    def __init__(self, client, key: Ed25519PrivateKey):
        self.client, self.key = client, key

    def signed(self, body: bytes, timestamp: str | None = None, key: Ed25519PrivateKey | None = None) -> dict:
        timestamp = timestamp or str(int(time.time()))
        signature = (key or self.key).sign(timestamp.encode() + body).hex()
        return {"X-Signature-Ed25519": signature, "X-Signature-Timestamp": timestamp,
                "Content-Type": "application/json"}

    def post(self, payload: dict, headers: dict | None = None, body: bytes | None = None):
        body = body if body is not None else json.dumps(payload).encode()
        return self.client.post("/discord/interactions", data=body, headers=headers or self.signed(body))

    def command(self, name: str, option: str, value, private: bool | None = None) -> dict:
        options = [{"name": option, "type": 3, "value": value}]
        if private is not None:
            options.append({"name": "private", "type": 5, "value": private})
        response = self.post(interaction(2, name, options))
        assert response.status_code == 200, response.get_data(as_text=True)
        reply = response.get_json()
        assert_message_reply(reply)
        return reply

    def complete(self, name: str, option: str, value: str) -> list[dict]:
        response = self.post(interaction(4, name, [{"name": option, "type": 3, "value": value, "focused": True}]))
        assert response.status_code == 200
        reply = response.get_json()
        assert_choices_reply(reply)
        return reply["data"]["choices"]


def interaction(kind: int, name: str, options: list[dict]) -> dict:
    """An interaction as Discord posts it (the fields this app reads, and some it does not)."""
    return {"type": kind, "id": "1203", "application_id": "1100", "token": "aW50ZXJhY3Rpb24", "version": 1,
            "locale": "en-US", "channel_id": "42", "user": {"id": "7", "username": "judge"},
            "data": {"id": "1300", "name": name, "type": 1, "options": options}}


def assert_message_reply(reply: dict, site: str = "https://rules.example/") -> None:
    """A CHANNEL_MESSAGE_WITH_SOURCE response within every documented limit, its links to ``site``."""
    assert set(reply) == {"type", "data"} and reply["type"] == 4
    data = reply["data"]
    assert set(data) <= MESSAGE_KEYS
    assert len(data.get("content", "")) <= 2000
    assert data["allowed_mentions"] == {"parse": []}  # record text never pings anyone
    embeds = data["embeds"]
    assert len(embeds) <= 10 and (embeds or data["content"])  # at most 10 embeds, and never an empty reply
    total = 0
    for e in embeds:
        assert set(e) <= EMBED_KEYS, set(e) - EMBED_KEYS
        assert isinstance(e.get("title", ""), str) and len(e.get("title", "")) <= 256
        assert len(e.get("description", "")) <= 4096
        assert e.get("url", "https://").startswith(("https://", "http://"))
        assert 0 <= e.get("color", 0) <= 0xFFFFFF
        assert len(e.get("footer", {}).get("text", "")) <= 2048
        fields = e.get("fields", [])
        assert len(fields) <= 25
        for f in fields:
            assert set(f) <= {"name", "value", "inline"}
            assert 1 <= len(f["name"]) <= 256 and 1 <= len(f["value"]) <= 1024
        total += len(e.get("title", "")) + len(e.get("description", "")) + len(e.get("footer", {}).get("text", ""))
        total += sum(len(f["name"]) + len(f["value"]) for f in fields)
        for link in re.findall(r"\]\(([^)]*)\)", e.get("description", "") + "".join(f["value"] for f in fields)):
            assert link.startswith(site), link
    assert total <= 6000
    if "flags" in data:
        assert data["flags"] == 64


def assert_choices_reply(reply: dict) -> None:
    """An APPLICATION_COMMAND_AUTOCOMPLETE_RESULT: at most 25 choices of 1-100 characters."""
    assert reply["type"] == 8 and set(reply["data"]) == {"choices"}
    choices = reply["data"]["choices"]
    assert len(choices) <= 25
    for c in choices:
        assert set(c) == {"name", "value"}
        assert 1 <= len(c["name"]) <= 100 and isinstance(c["value"], str) and 1 <= len(c["value"]) <= 100


def text_of(reply: dict) -> str:
    data = reply["data"]
    parts = [data.get("content", "")]
    for e in data["embeds"]:
        parts += [e.get("title", ""), e.get("description", ""), e.get("footer", {}).get("text", "")]
        parts += [f["name"] + "\n" + f["value"] for f in e.get("fields", [])]
    return "\n".join(parts)


# -- switched on by the key, and signed ------------------------------------------------
def test_off_without_a_key_is_a_404(client):
    response = client.post("/discord/interactions", data=b'{"type": 1}', headers={"Content-Type": "application/json"})
    assert response.status_code == 404
    assert "KB_DISCORD_PUBLIC_KEY" in response.get_json()["error"]["message"]


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE"])
def test_the_endpoint_with_another_method_says_to_post(discord, method):
    # GET /discord/interactions was the pages' 404, "no record 'discord/interactions'" suggesting rule 613
    # (Interaction of Continuous Effects), and OPTIONS listed GET (found by session 25's attacker)
    response = discord.client.open("/discord/interactions", method=method)
    assert response.status_code == 405 and response.headers["Allow"] == "POST, OPTIONS"
    assert response.get_json()["error"] == {"code": "method_not_allowed",
                                            "message": "/discord/interactions answers POST"}
    assert discord.client.options("/discord/interactions").headers["Allow"] == "OPTIONS, POST"
    unknown = discord.client.get("/discord/nothing")
    assert unknown.status_code == 404 and unknown.get_json()["error"]["message"].startswith("no API endpoint")


@pytest.mark.parametrize("path", ["/DISCORD/INTERACTIONS", "/Discord/Interactions"])
def test_the_endpoint_in_capitals_is_no_endpoint_as_the_apis_are(discord, path):
    # the paths are lower case, as the API's: /API/LINKIFY is a 404 "no API endpoint", but /DISCORD/INTERACTIONS was a
    # 405 saying it "answers " no method, with "Allow: OPTIONS", and OPTIONS listed the pages' GET (session 25's review)
    for method in ("GET", "PUT"):
        response = discord.client.open(path, method=method)
        assert response.status_code == 404, method
        assert response.get_json()["error"]["message"] == f"no API endpoint {path}; see /api/openapi.json"
    options = discord.client.options(path)
    assert options.status_code == 404 and "GET" not in options.headers.get("Allow", "")


def test_ping_is_answered_with_pong(discord):
    response = discord.post({"type": 1, "id": "1", "application_id": "2", "token": "t", "version": 1})
    assert response.status_code == 200
    assert response.get_json() == {"type": 1}
    assert response.mimetype == "application/json"


@pytest.mark.parametrize("case", ["other key", "tampered body", "no headers", "no signature", "not hex",
                                  "short signature", "old timestamp", "future timestamp", "timestamp not a number",
                                  "superscript timestamp"])
def test_bad_missing_or_stale_signatures_are_401_and_answer_nothing(discord, case):
    payload = interaction(2, "rule", [{"name": "ref", "type": 3, "value": "907.4b"}])
    body = json.dumps(payload).encode()
    headers = discord.signed(body)
    if case == "other key":
        headers = discord.signed(body, key=Ed25519PrivateKey.generate())
    elif case == "tampered body":
        body = body.replace(b"907.4b", b"907.4c")
    elif case == "no headers":
        headers = {"Content-Type": "application/json"}
    elif case == "no signature":
        del headers["X-Signature-Ed25519"]
    elif case == "not hex":
        headers["X-Signature-Ed25519"] = "zz" * 64
    elif case == "short signature":
        headers["X-Signature-Ed25519"] = headers["X-Signature-Ed25519"][:64]
    elif case == "old timestamp":  # a request recorded an hour ago, replayed with its valid signature
        headers = discord.signed(body, timestamp=str(int(time.time()) - 3600))
    elif case == "future timestamp":
        headers = discord.signed(body, timestamp=str(int(time.time()) + 3600))
    elif case == "timestamp not a number":
        headers = discord.signed(body, timestamp="yesterday")
    elif case == "superscript timestamp":  # str.isdigit() says yes to "²", int() raises: a 500 before
        headers = discord.signed(body, timestamp="\u00b2")
    response = discord.post({}, headers=headers, body=body)
    assert response.status_code == 401
    reply = response.get_json()
    assert set(reply) == {"error"} and reply["error"]["code"] == "invalid_signature"
    assert "907" not in response.get_data(as_text=True)


def test_a_replayed_request_within_the_window_is_still_signed_right(discord):
    """The freshness check is by time: the same signed request twice within 5 minutes is answered twice."""
    body = json.dumps({"type": 1}).encode()
    headers = discord.signed(body)
    assert discord.post({}, headers=headers, body=body).status_code == 200


def test_a_malformed_key_stops_the_app_with_why(data_dir):
    from web.app import create_app

    with pytest.raises(ValueError, match="64 hex digits"):
        create_app({"KB_DATA": str(data_dir), "KB_DISCORD_PUBLIC_KEY": "not-a-key"})
    with pytest.raises(ValueError, match="32 bytes"):
        create_app({"KB_DATA": str(data_dir), "KB_DISCORD_PUBLIC_KEY": "ab" * 16})


def test_signed_but_unsupported_interactions_are_400(discord):
    assert discord.post({"type": 3, "data": {"custom_id": "x"}}).status_code == 400
    assert discord.post({}, body=b"[1, 2]").status_code == 400
    assert discord.post({}, body=b"not json").status_code == 400


# -- /rule --------------------------------------------------------------------------
def test_rule_in_any_form_answers_with_the_rule(discord):
    for form in ("907.4b", "CR 907.4B.", "(907.4b)", "rule 907.4b", "treachery 907.4b"):
        reply = discord.command("rule", "ref", form)
        embed = reply["data"]["embeds"][0]
        assert embed["title"] == "907.4b"
        assert embed["url"] == "https://rules.example/r/907.4b"
        assert embed["description"].startswith("Identity cards with an unveil ability")
        assert embed["footer"]["text"] == "Treachery Comprehensive Rules 4.0 · effective 2024-10-01"
        assert "flags" not in reply["data"]


def test_rule_summarises_its_sub_rules(discord):
    embed = discord.command("rule", "ref", "702.187")["data"]["embeds"][0]
    assert embed["title"] == "702.187 Unveil"
    lines = embed["description"].split("\n")
    assert [line.split("**")[1] for line in lines if line.startswith("**")] == [f"702.187{c}" for c in "abcdefg"]
    assert all(len(line) < 200 for line in lines if line.startswith("**"))


def test_rule_by_section_letter_and_renamed_number(discord):
    embed = discord.command("rule", "ref", "Token Cards g)")["data"]["embeds"][0]
    assert embed["title"] == "Token Cards g)" and embed["url"] == "https://rules.example/r/token-cards-g"
    assert embed["footer"]["text"].startswith("UnCommander Rules")
    assert "Example: You have a Reassembling Skeleton" in embed["description"]
    renamed = discord.command("rule", "ref", "rule 115")["data"]["embeds"][0]
    assert renamed["title"].startswith("116") and "renamed" in renamed["description"]


def test_unknown_rule_says_so_and_suggests_neighbours(discord):
    reply = discord.command("rule", "ref", "907.99")
    text = text_of(reply)
    assert "no rule 907.99" in text
    assert "[907.13](https://rules.example/r/907.13)" in text and "[907 Treachery](https://rules.example/r/907)" in text
    letter = text_of(discord.command("rule", "ref", "907.4l"))
    assert "skip l and o" in letter and "[907.4](https://rules.example/r/907.4)" in letter  # 907.4 has no k or m
    nonsense = text_of(discord.command("rule", "ref", "what is this"))
    assert "not a rule reference" in nonsense


def test_rule_reads_a_title_and_a_day_it_cannot_show_as_its_short_link_does(discord, client):
    """A bot developer: "/rule trample" (its autocomplete offers Trample) said "Nothing at trample", and a dated
    reference on a server without the earlier releases told the channel to run kb build --cr-history."""
    embed = discord.command("rule", "ref", "unveil")["data"]["embeds"][0]
    assert embed["title"] == "702.187 Unveil"
    assert [m["id"] for m in client.get("/api/resolve?ref=unveil").get_json()["matches"]] == ["treachery/702.187"]
    reply = discord.command("rule", "ref", "907.4b@2019-01-25")
    assert reply["data"]["embeds"][0]["title"] == "907.4b"
    assert "no earlier release of the official rules is loaded here" in text_of(reply)
    assert "kb build" not in text_of(reply)
    resolved = client.get("/api/resolve", query_string={"ref": "907.4b as of 2019"}).get_json()
    assert [m["id"] for m in resolved["matches"]] == ["treachery/907.4b"] and "kb build" not in resolved["note"]


def test_an_autocomplete_choice_is_a_record_id(discord):
    embed = discord.command("rule", "ref", "uncommander/token-cards/g")["data"]["embeds"][0]
    assert embed["title"] == "Token Cards g)"


# -- /card --------------------------------------------------------------------------
def test_card_with_a_typo_shows_the_faq_rulings(discord):
    embed = discord.command("card", "name", "tarmogyof")["data"]["embeds"][0]
    assert embed["title"] == "Tarmogoyf {1}{G}" and embed["url"] == "https://rules.example/c/tarmogoyf"
    assert "read as 'Tarmogoyf'" in embed["description"]
    assert "Creature -- Lhurgoyf · \\*/1+\\*" in embed["description"]  # */1+* escaped, not italics
    assert "\n1. Tarmogoyf counts card types, not cards." in embed["description"]
    assert embed["footer"]["text"].startswith("Future Sight FAQ")


def test_treachery_card_shows_its_role_and_identity_notes(discord):
    embed = discord.command("card", "name", "the metamorph")["data"]["embeds"][0]
    assert embed["title"] == "The Metamorph"
    assert embed["description"].startswith("**Traitor** identity card")
    assert re.search(r"^9\. You’re changing team according to your new role\.$", embed["description"], re.M)


def test_ambiguous_partial_card_name_lists_the_candidates(discord):
    reply = discord.command("card", "name", "magus of the")
    text = text_of(reply)
    assert "fits 3 cards" in text
    for name in ("Magus of the Abyss", "Magus of the Future", "Magus of the Vineyard"):
        assert f"[{name}](https://rules.example/c/" in text
    many = discord.command("card", "name", "the")  # the 52 "The ..." names (not "Magus of the"): within the limits
    assert "fits 52 cards" in text_of(many)


@pytest.mark.parametrize("typed, card", [
    ("Six", None),  # a real card we do not hold: one letter of three from Nix is no typo
    ("The Abyss", None),  # a real card: not the end of Magus of the Abyss
    ("abyss", "Magus of the Abyss"),
    ("metamorf", "The Metamorph"),  # as the search box reads it: "The" left out, and mistyped
    ("goyf", "Tarmogoyf"),  # the end of a name's word
])
def test_card_names_read_as_the_search_box_reads_them_and_no_further(discord, typed, card):
    embed = discord.command("card", "name", typed)["data"]["embeds"][0]
    if card is None:
        assert embed["title"].startswith("No card")
    else:
        assert embed["title"].startswith(card)


def test_card_set_code_and_unknown_card(discord):
    assert discord.command("card", "name", "tarmo|fut")["data"]["embeds"][0]["title"].startswith("Tarmogoyf")
    wrong_set = text_of(discord.command("card", "name", "The Metamorph|FUT"))
    assert "no card 'The Metamorph' in Future Sight FAQ" in wrong_set
    missing = text_of(discord.command("card", "name", "Black Lotus"))
    assert "No card named 'Black Lotus'" in missing


# -- /search and /define --------------------------------------------------------------
def test_search_shows_the_top_five_as_fields_with_links(discord):
    embed = discord.command("search", "query", "nut counters")["data"]["embeds"][0]
    assert len(embed["fields"]) == 5
    assert embed["fields"][0]["name"].startswith("1. The Bio-Engineer")
    for f in embed["fields"]:
        assert re.search(r"\[open\]\(https://rules\.example/treachery/", f["value"])
    assert embed["url"].startswith("https://rules.example/search?q=nut+counters")


def test_search_with_nothing_found_and_a_bad_filter(discord):
    assert "Nothing found" in text_of(discord.command("search", "query", "zzzqqxx"))
    assert "unknown document" in text_of(discord.command("search", "query", "doc:nowhere unveil"))


def test_define_keyword_and_glossary_term(discord):
    unveil = discord.command("define", "term", "unveil")["data"]["embeds"][0]
    assert unveil["title"] == "Unveil" and unveil["description"].startswith("Unveil is a static ability")
    assert unveil["fields"][0]["name"] == "702.187 Unveil · Treachery Comprehensive Rules"
    lifelink = discord.command("define", "term", "LIFELINK")["data"]["embeds"][0]
    assert "Whenever this permanent deals damage" in lifelink["fields"][0]["value"]
    teammate = discord.command("define", "term", "teammate")["data"]["embeds"][0]
    assert teammate["title"] == "Teammate" and "other players on their team" in teammate["description"]
    assert "No keyword or glossary term" in text_of(discord.command("define", "term", "banana"))


@pytest.mark.parametrize("term", ["deathtuch", "Deathtouch", "unvel", "commander damage", "leader", "etb",
                                  "nut counters", "702.19b", "[[Tarmogoyf]]", "@everyone", "x", "keywords/nowhere"])
def test_define_answers_any_term(discord, term):
    # a term no keyword or glossary title is exactly: a 500 once two titles tied on the nearest distance
    reply = discord.command("define", "term", term)["data"]
    embed = reply["embeds"][0]
    if term.lower() in ("deathtuch", "deathtouch"):
        assert embed["title"] == "Deathtouch" and "flags" not in reply  # mistyped by two letters: found
    elif term == "unvel":
        assert embed["title"] == "Unveil"
    else:
        assert "No keyword or glossary term" in embed["description"] or embed["title"].startswith("Which term")
        assert reply["flags"] == 64  # nothing found: said to the asker, not the channel
    assert reply["allowed_mentions"] == {"parse": []}


@pytest.mark.parametrize("body, message", [
    (b"not json", "not JSON"),
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),  # a RecursionError was a 500
    (b"[]", "a JSON object"),
    (b'{"type": 2, "data": {"name": {"a": 1}, "options": []}}', "data.name"),  # unhashable: a 500
    (b'{"type": 2, "data": {"name": ["rule"], "options": []}}', "data.name"),
    (b'{"type": 2, "data": {"name": "rule", "options": "907.4b"}}', "data.options"),
    (b'{"type": 9, "data": {}}', "unsupported interaction type"),
    (b'{"type": true}', "type must be an integer"),  # answered as a PING (true == 1)
    (b'{"type": 2.0, "data": {"name": "rule", "options": []}}', "type must be an integer"),  # as a command
])
def test_a_signed_but_malformed_interaction_is_a_400_in_json(discord, body, message):
    response = discord.post({}, body=body)
    assert response.status_code == 400 and message in response.get_json()["error"]["message"]


def test_an_unknown_command_s_name_is_echoed_without_control_characters(discord):
    said = discord.command("r\x00ule", "ref", "702.19b")["data"]["content"]
    assert said.startswith("Unknown command /rule;") and "\x00" not in said
    turned = discord.command("x\x1b[31m\u202eevil", "ref", "1")["data"]["content"]  # a right-to-left override
    assert turned.startswith("Unknown command /x\\[31mevil;") and "\u202e" not in turned


def test_rule_autocomplete_reads_a_document_prefix_and_numbers_in_order(cr_data_dir, signing_key):
    # "tr 70" listed official rules (Triple, Destroy...), "702.1" put 702.10a before 702.10 Haste
    from web.app import create_app

    app = create_app({"KB_DATA": str(cr_data_dir), "TESTING": True, "KB_DISCORD_PUBLIC_KEY": _public_hex(signing_key)})
    discord = Discord(app.test_client(), signing_key)
    assert {c["value"].split("/")[0] for c in discord.complete("rule", "ref", "tr 70")} == {"treachery"}
    names = [c["name"].split(" ")[0] for c in discord.complete("rule", "ref", "702.1")]
    assert names[:8] == ["702.1", "702.1a", "702.1b", "702.1c", "702.1d", "702.10", "702.10a", "702.10b"]


def test_search_replies_are_the_channel_s_and_say_a_correction_once(discord):
    # every /search reply became ephemeral with "nothing found" (they share the embed's colour)
    reply = discord.command("search", "query", "comander damage")
    assert "flags" not in reply["data"]
    text = text_of(reply)
    assert "spelling corrected" in text and "Did you mean" not in text  # the page says it once too
    assert discord.command("search", "query", "zzzqqxx")["data"].get("flags") is None  # a search, not a lookup


def test_private_replies_are_ephemeral(discord):
    assert discord.command("rule", "ref", "907.4b", private=True)["data"]["flags"] == 64
    assert "flags" not in discord.command("rule", "ref", "907.4b", private=False)["data"]
    assert discord.command("define", "term", "unveil", private=True)["data"]["flags"] == 64


def test_unknown_command_is_answered_not_failed(discord):
    reply = discord.command("judgebot", "x", "y")
    assert "Unknown command" in reply["data"]["content"]


# -- limits -------------------------------------------------------------------------
@pytest.mark.parametrize("name, option", [("rule", "ref"), ("card", "name"), ("search", "query"), ("define", "term")])
def test_oversize_input_is_answered_within_the_limits(discord, name, option):
    """Discord lets a string option carry 6,000 characters; every command answers with a message."""
    reply = discord.command(name, option, "judge " * 1000)
    assert text_of(reply).strip()


def test_cut_never_splits_a_word_and_links_the_rest():
    from web.discord_answers import cut

    text = " ".join(f"word{i}" for i in range(2000))
    out = cut(text, 300, "https://rules.example/r/1")
    assert len(out) <= 300 and out.endswith("… [more](https://rules.example/r/1)")
    head = out[: out.index("…")]
    assert head.split()[-1] in text.split()  # the last word is whole
    assert cut("short text", 300, "https://x") == "short text"
    assert cut("*/1+*", 300) == "\\*/1+\\*"


def test_fit_holds_a_message_to_every_limit():
    from web.discord_answers import fit

    long = " ".join(["lorem"] * 3000)
    message = fit({"content": long, "allowed_mentions": {"parse": []}, "embeds": [
        {"title": long, "url": "https://rules.example/x", "description": long, "footer": {"text": long},
         "fields": [{"name": long, "value": long} for _ in range(30)]} for _ in range(12)]})
    assert_message_reply({"type": 4, "data": message})
    assert message["embeds"][0]["description"].endswith("[more](https://rules.example/x)")


def test_a_long_rule_is_cut_with_a_link_to_the_rest(cr_data_dir, signing_key):
    """The official rules' 702 has ~190 sub-rules; the reply lists what fits and links the rest."""
    from web.app import create_app

    app = create_app({"KB_DATA": str(cr_data_dir), "TESTING": True, "KB_PUBLIC_URL": "https://rules.example",
                      "KB_DISCORD_PUBLIC_KEY": _public_hex(signing_key)})
    discord = Discord(app.test_client(), signing_key)
    embed = discord.command("rule", "ref", "CR 702")["data"]["embeds"][0]
    # (the record's short link, as its page shows it: /r/cr/702, no escaped space)
    assert re.search(r"… and \d+ more sub-rules: \[see all\]\(https://rules\.example/r/cr/702\)$",
                     embed["description"])
    both = discord.command("rule", "ref", "702.187")  # Unveil in Treachery, Mayhem in the CR
    titles = [e["title"] for e in both["data"]["embeds"]]
    # in the order the content names the documents: the official rule first (issue 32, item 4)
    assert titles == ["702.187 Mayhem", "702.187 Unveil"]
    assert both["data"]["content"] == ("702.187 is in 2 documents: Magic: The Gathering Comprehensive Rules, "
                                       "Treachery Comprehensive Rules")


def test_rule_reads_references_as_short_links_do(cr_data_dir, history_data_dir, signing_key):
    # found by the session's chat moderator: "CR 702.187c" showed both documents, a range repeated the one
    # document's title per rule, a range's note sat on each rule, dated references were "not a rule reference"
    from web.app import create_app

    def discord_on(data):
        app = create_app({"KB_DATA": str(data), "TESTING": True, "KB_PUBLIC_URL": "https://rules.example",
                          "KB_DISCORD_PUBLIC_KEY": _public_hex(signing_key)})
        return Discord(app.test_client(), signing_key)

    discord = discord_on(cr_data_dir)
    mayhem = discord.command("rule", "ref", "CR 702.187c")["data"]
    assert [e["title"] for e in mayhem["embeds"]] == ["702.187c"] and "Mayhem" in mayhem["embeds"][0]["description"]
    pair = discord.command("rule", "ref", "702.19b-c")["data"]
    assert pair["content"] == "702.19b-c: 2 rules of the Magic: The Gathering Comprehensive Rules"
    many = discord.command("rule", "ref", "704.5a-z")["data"]
    assert len(many["embeds"]) == 10 and many["content"].endswith("… and 14 more: [see all](https://rules.example/r/704.5a-z)")
    missing = discord.command("rule", "ref", "903.1-903.14")["data"]
    assert missing["content"].count("no rule 903.14") == 1
    assert not any("903.14" in e["description"] for e in missing["embeds"])
    tokens = discord.command("rule", "ref", "uncommander/token-cards")["data"]["embeds"][0]["description"]
    assert "**f) i)**" in tokens and tokens.count("**i)**") == 1  # the nested item keeps its path
    unveil = discord.command("rule", "ref", "tr 702")["data"]["embeds"][0]["description"]
    assert unveil.startswith("**702.187** Unveil — ")  # its heading, not only its translation line

    dated = discord_on(history_data_dir).command("rule", "ref", "716.2@2016-07-22")["data"]["embeds"][0]
    assert dated["title"] == "716.2 (as of 2016-07-22)" and dated["url"] == "https://rules.example/cr@2016-07-22/716.2"
    assert dated["description"].startswith("All Magic cards involved in the game that was restarted")
    assert dated["footer"]["text"] == "Comprehensive Rules, release effective 2016-07-22 · now 727.2"
    # a heading has no words of its own: its sub-rules as they stood (it said "open the rule" and nothing else)
    heading = discord_on(history_data_dir).command("rule", "ref", "702.19@2024-01-01")["data"]["embeds"][0]
    lines = heading["description"].splitlines()
    assert lines[0].startswith("**702.19a** Trample is a static ability") and lines[1].startswith("**702.19b** ")
    assert len(heading["description"]) <= 3000
    later = discord_on(history_data_dir).command("rule", "ref", "716.2@2099-01-01")["data"]["embeds"][0]
    assert later["title"].endswith("the newest release)") and "2099" not in later["title"]
    # escaped once, as an undated reply is: "Wolf in ________ Clothing" read "Wolf in \\*\\*\\*…", "star (\\\\*)"
    for ref in ("123.6a", "208.2"):
        today = discord_on(history_data_dir).command("rule", "ref", ref)["data"]["embeds"][0]["description"]
        then = discord_on(history_data_dir).command("rule", "ref", ref + "@2026-08-07")["data"]["embeds"][0]
        assert then["description"].split("\n")[0] == today.split("\n")[0]
        assert "\\\\" not in then["description"]  # no escaped backslash: each mark escaped once
    assert "(\\*)" in then["description"]  # 208.2's star
    # a dated range says what it lacks that day, as its short link does (the verifier: three embeds, no word)
    lacking = discord_on(history_data_dir).command("rule", "ref", "702.19c-g@2020-01-01")["data"]
    assert len(lacking["embeds"]) == 3 and "no rule 702.19f, 702.19g in the release of" in lacking["content"]
    # autocomplete offers a dated reference as it stands that day (it offered nothing), and /rule reads the choice
    offered = discord_on(history_data_dir).complete("rule", "ref", "716.2@2016-07-22")
    assert len(offered) == 1 and offered[0]["value"] == "716.2@2016-07-22"
    assert offered[0]["name"].startswith("716.2 as of 2016-07-22 · Comprehensive Rules — All Magic cards")
    # a year alone is read as the search box reads it, the rule at the year's end (it was "no rule reference")
    year = discord_on(history_data_dir).command("rule", "ref", "716.2 as of 2016")["data"]["embeds"][0]
    assert year["title"] == "716.2 (as of 2016-12-31)" and year["url"] == "https://rules.example/cr@2016-12-31/716.2"


# -- autocomplete -------------------------------------------------------------------
def test_autocomplete_for_each_option(discord):
    refs = discord.complete("rule", "ref", "907.4")
    assert refs[0]["value"] == "treachery/907.4" and refs[0]["name"].startswith("907.4 · Treachery")
    assert {"treachery/907.4a", "treachery/907.4b"} <= {c["value"] for c in refs}
    cards = discord.complete("card", "name", "the me")
    assert cards[0]["value"] == "treachery/cards/the-metamorph"
    assert len(discord.complete("card", "name", "")) == 25
    terms = discord.complete("define", "term", "un")
    assert [c["value"] for c in terms] == ["keywords/undercover", "keywords/unveil"]
    assert discord.complete("search", "query", "x") == []  # /search has no autocomplete
    discord.complete("rule", "ref", "907.4b " * 900)  # oversize: answered, within the limits


def test_autocomplete_offers_what_the_command_reads_a_typo_or_nickname_as(discord):
    """A bot developer: /card answered "goyf" and "metamorf", /define "deathtuch", while their autocomplete offered
    nothing (an empty list tells the user there is no match)."""
    for typed, card in (("goyf", "futuresight/cards/tarmogoyf"), ("metamorf", "treachery/cards/the-metamorph")):
        assert [c["value"] for c in discord.complete("card", "name", typed)] == [card]
    assert [c["value"] for c in discord.complete("define", "term", "deathtuch")][:1] == ["keywords/deathtouch"]
    assert discord.complete("define", "term", "qqqqqqqq") == []


def test_autocomplete_choices_resolve_back(discord):
    for name, option, typed in (("rule", "ref", "token"), ("card", "name", "tarmo"), ("define", "term", "life")):
        for choice in discord.complete(name, option, typed)[:3]:
            assert "Nothing at" not in text_of(discord.command(name, option, choice["value"]))


# -- kb discord commands --------------------------------------------------------------
def test_kb_discord_commands_prints_valid_definitions(capsys):
    from web.cli import main

    assert main(["discord", "commands"]) == 0
    commands = json.loads(capsys.readouterr().out)
    assert [c["name"] for c in commands] == ["rule", "card", "search", "define"]
    for c in commands:
        assert re.fullmatch(r"[-_a-z0-9]{1,32}", c["name"]) and c["type"] == 1
        assert 1 <= len(c["description"]) <= 100
        assert len(c["options"]) <= 25
        required_done = False
        for o in c["options"]:
            assert re.fullmatch(r"[-_a-z0-9]{1,32}", o["name"]) and 1 <= len(o["description"]) <= 100
            assert o["type"] in range(1, 12)
            if o.get("autocomplete"):
                assert o["type"] in (3, 4, 10) and "choices" not in o
            assert not (o.get("required") and required_done), "required options come first"
            required_done = required_done or not o.get("required")
        names = [o["name"] for o in c["options"]]
        assert len(names) == len(set(names)) and "private" in names
    autocompleted = {(c["name"], o["name"]) for c in commands for o in c["options"] if o.get("autocomplete")}
    assert autocompleted == {("rule", "ref"), ("card", "name"), ("define", "term")}


# -- against a real server ------------------------------------------------------------
def test_signed_interactions_against_kb_serve(data_dir, signing_key, monkeypatch):
    from tests.test_serving import Server

    monkeypatch.setenv("KB_DISCORD_PUBLIC_KEY", _public_hex(signing_key))
    server = Server(data_dir, workers=1)
    try:
        def post(payload: dict, timestamp: str | None = None) -> tuple[int, dict]:
            body = json.dumps(payload).encode()
            headers = Discord(None, signing_key).signed(body, timestamp)
            request = urllib.request.Request(server.url + "/discord/interactions", data=body, headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=10) as r:
                    return r.status, json.loads(r.read())
            except urllib.error.HTTPError as e:
                return e.code, json.loads(e.read())

        assert post({"type": 1}) == (200, {"type": 1})
        status, reply = post(interaction(2, "rule", [{"name": "ref", "type": 3, "value": "CR 907.4b"}]))
        assert status == 200
        assert_message_reply(reply, site=server.url + "/")  # no KB_PUBLIC_URL: the host asked for
        assert reply["data"]["embeds"][0]["url"] == server.url + "/r/907.4b"
        status, reply = post(interaction(4, "card", [{"name": "name", "type": 3, "value": "tarm", "focused": True}]))
        assert status == 200 and reply["data"]["choices"][0]["value"] == "futuresight/cards/tarmogoyf"
        assert post({"type": 1}, timestamp=str(int(time.time()) - 3600))[0] == 401
        # kb bench's load of signed interactions: bounded (0.3 s, 2 clients), loopback, every reply right.
        from web.tools import bench_discord

        for kind in (2, 4):
            figures = bench_discord.measure(server.port, signing_key, clients=2, seconds=0.3, kind=kind)
            assert figures["requests"] > 0 and figures["errors"] == 0
    finally:
        server.stop()


def test_define_by_its_autocomplete_choice_answers_as_the_term_typed(discord):
    # the choice's value is the keyword page's id: the glossary entries typing the term shows were left out
    typed = discord.command("define", "term", "Deathtouch")["data"]["embeds"][0]
    chosen = discord.command("define", "term", "keywords/deathtouch")["data"]["embeds"][0]
    assert [f["name"] for f in chosen.get("fields", [])] == [f["name"] for f in typed.get("fields", [])]


def test_a_timestamp_that_is_no_number_is_said_so(discord):
    body = json.dumps(interaction(1, "x", [])).encode()
    answer = discord.post({}, headers=discord.signed(body, timestamp="abc"), body=body)
    assert answer.status_code == 401 and "not a number of seconds" in answer.get_json()["error"]["message"]


@pytest.mark.parametrize("value", ["702.19\ud800", "\udc00"])
def test_a_lone_surrogate_in_a_signed_body_is_a_400(discord, value):
    # valid JSON ("\\ud800") and no text: a 500 further on
    body = json.dumps(interaction(2, "rule", [{"name": "ref", "type": 3, "value": value}])).encode()
    answer = discord.post({}, body=body)
    assert answer.status_code == 400 and "lone surrogates" in answer.get_json()["error"]["message"]


def test_a_heading_whose_text_is_a_translation_line_shows_its_first_sub_rule(cr_data_dir, signing_key):
    # a tester: the first hit for "Unveil" (Treachery 702.187) said only 'French: "Dévoilement."'; its
    # /rule choice and its /define field led with it too
    from web.app import create_app

    app = create_app({"KB_DATA": str(cr_data_dir), "TESTING": True, "KB_PUBLIC_URL": "https://rules.example",
                      "KB_DISCORD_PUBLIC_KEY": _public_hex(signing_key)})
    discord = Discord(app.test_client(), signing_key)
    first = discord.command("search", "query", "Unveil")["data"]["embeds"][0]["fields"][0]
    assert first["name"] == "1. 702.187 Unveil · Treachery Comprehensive Rules"
    assert first["value"].startswith("Unveil is a static ability") and "Dévoilement" not in first["value"]
    choice = discord.complete("rule", "ref", "unveil")[0]
    assert choice["value"] == "treachery/702.187"
    assert choice["name"].startswith("702.187 Unveil · Treachery Comprehensive Rules — Unveil is a static ability")
    field = discord.command("define", "term", "unveil")["data"]["embeds"][0]["fields"][0]
    assert field["name"] == "702.187 Unveil · Treachery Comprehensive Rules"
    assert field["value"].startswith("Unveil is a static ability") and "Dévoilement" not in field["value"]
    # the rule itself still shows it, as its page does (above its sub-rules)
    rule = discord.command("rule", "ref", "tr 702.187")["data"]["embeds"][0]["description"]
    assert rule.startswith('French: "Dévoilement."\n\n**702.187a** Unveil is a static ability')


@pytest.mark.parametrize(("command", "option"), [("card", "name"), ("rule", "ref"), ("define", "term"),
                                                 ("search", "query")])
def test_an_option_s_control_and_format_characters_never_reach_a_reply(discord, command, option):
    """An attacker: "No card ab\\u202e\\u0000cd\\u2066ef\\u0007" came back in the embed's title as typed (a
    right-to-left override turns the channel's text around; a NUL and a bell in a title)."""
    typed = "ab\u202e\u0000cd\u2066ef\u0007"
    reply = json.dumps(discord.command(command, option, typed)["data"], ensure_ascii=False)
    assert not any(c in reply for c in "\u202e\u0000\u2066\u0007")
    assert not any(c in json.dumps(discord.complete(command, option, "tar\u202emo\u0000"), ensure_ascii=False)
                   for c in "\u202e\u0000")
