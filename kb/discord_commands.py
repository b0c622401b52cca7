"""The slash commands the Discord interactions endpoint answers, and Discord's limits.

``COMMANDS`` is exactly the JSON body Discord's bulk-overwrite endpoint takes
(``PUT /applications/<application id>/commands``); ``kb discord commands``
prints it. The limits are the documented ones: application commands
(names 1-32 lowercase characters, descriptions 1-100, at most 25 options),
embeds (title 256, description 4096, 25 fields, field name 256, field value
1024, footer 2048, 6000 characters across a message's embeds, 10 embeds) and
autocomplete (25 choices, names and values 1-100 characters).
"""
from __future__ import annotations

__all__ = ["COMMANDS", "LIMITS", "OPTION_STRING", "OPTION_BOOLEAN", "CHAT_INPUT", "commands_json"]

import json

CHAT_INPUT = 1  # application command type: a slash command
OPTION_STRING = 3
OPTION_BOOLEAN = 5

LIMITS = {
    "command_name": 32, "command_description": 100, "options": 25,
    "embeds": 10, "title": 256, "description": 4096, "fields": 25, "field_name": 256, "field_value": 1024,
    "footer": 2048, "author": 256, "embed_total": 6000, "content": 2000,
    "choices": 25, "choice_name": 100, "choice_value": 100,
}

_PRIVATE = {"type": OPTION_BOOLEAN, "name": "private", "description": "Show the answer to you only", "required": False}


def _command(name: str, description: str, option: str, option_description: str, autocomplete: bool,
             max_length: int) -> dict:
    return {
        "name": name,
        "type": CHAT_INPUT,
        "description": description,
        # Usable in servers, in DMs with the app and, installed to a user, anywhere that user is.
        "integration_types": [0, 1],
        "contexts": [0, 1, 2],
        "options": [
            {"type": OPTION_STRING, "name": option, "description": option_description, "required": True,
             "autocomplete": autocomplete, "min_length": 1, "max_length": max_length},
            _PRIVATE,
        ],
    }


COMMANDS: list[dict] = [
    _command("rule", "A rule by number, in any form: 907.4b, CR 702.187c, rule 115, Token Cards g)",
             "ref", "The rule reference: 907.4b, CR 702.187c, Token Cards g)", True, 200),
    _command("card", "A card's notes and rulings: Treachery identities, Future Sight cards",
             "name", "The card's name; a part of it or a typo is fine", True, 100),
    _command("search", "Search every document; shows the top 5 results",
             "query", "Words, a phrase in quotes, doc:treachery or kind:rule", False, 500),
    _command("define", "A keyword or glossary term, with its definitions in each document",
             "term", "The keyword or term: unveil, lifelink, teammate", True, 100),
]


def commands_json() -> str:
    return json.dumps(COMMANDS, indent=2, ensure_ascii=False)
