"""One place for settings: every KB_* variable is declared in web/settings.py and read only there.

The code is read with ``ast``: a read of the environment (``os.environ[...]``, ``.get``, ``getenv``, ``in``)
naming a ``KB_`` variable anywhere but web/settings.py fails, as does any environment read at all in the
layers below web, a ``KB_`` name the code uses without declaring it, and a docs table that drifted.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from web import settings

ROOT = Path(__file__).resolve().parent.parent
KB_NAME = re.compile(r"KB_[A-Z0-9_]+")
PRODUCT = ("kb", "ingest", "web", "corpus")


def _is_environ(node: ast.AST) -> bool:
    """``os.environ``, ``environ``, ``request.environ``: whatever is named environ."""
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or (
        isinstance(node, ast.Name) and node.id == "environ")


def _kb_name(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and KB_NAME.fullmatch(node.value):
        return node.value
    return None


def environment_reads(source: str) -> list[tuple[int, str]]:
    """(line, what) for each read of the environment in ``source``; ``what`` is the KB_ name read, or "" when
    the read names no KB_ variable."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Subscript) and _is_environ(node.value) and isinstance(node.ctx, ast.Load):
            found.append((node.lineno, _kb_name(node.slice) or ""))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            reader = node.func
            if (reader.attr in ("get", "pop", "setdefault") and _is_environ(reader.value)) or reader.attr == "getenv":
                found.append((node.lineno, _kb_name(node.args[0] if node.args else None) or ""))
        elif isinstance(node, ast.Compare) and any(_is_environ(c) for c in node.comparators):
            found.append((node.lineno, _kb_name(node.left) or ""))
    return found


def _sources(*packages: str):
    for package in packages:
        for path in sorted((ROOT / package).rglob("*.py")):
            yield path, path.read_text(encoding="utf-8")


def test_no_kb_variable_is_read_outside_the_settings_module():
    reads = [f"{path.relative_to(ROOT)}:{line}: reads {name}"
             for path, source in _sources(*PRODUCT) if path != ROOT / "web" / "settings.py"
             for line, name in environment_reads(source) if name]
    assert reads == []


@pytest.mark.parametrize("package", ["kb", "ingest", "corpus"])
def test_the_layers_below_web_read_no_environment(package):
    """kb and ingest get what they need as parameters (KnowledgeBase(warm=..., search_cache=...))."""
    reads = [f"{path.relative_to(ROOT)}:{line}" for path, source in _sources(package)
             for line, _ in environment_reads(source)]
    assert reads == []


def test_the_reader_finds_every_form_of_read():
    """The check itself can fail: each way of reading the environment is seen, writes are not."""
    source = ('import os\nfrom os import environ\n'
              'a = os.environ["KB_A"]\nb = os.environ.get("KB_B", "1")\nc = os.getenv("KB_C")\n'
              'd = "KB_D" in os.environ\ne = environ.get("KB_E")\nf = os.environ.get("HOME")\n'
              'os.environ["KB_W"] = "1"\nenv = {"KB_X": "1"}\n')
    assert environment_reads(source) == [(3, "KB_A"), (4, "KB_B"), (5, "KB_C"), (6, "KB_D"), (7, "KB_E"), (8, "")]


def test_every_kb_name_the_code_uses_is_declared():
    """A KB_ name written in code (a config key, a worker's environment) is one of the declared settings, so
    the docs' table lists everything a deployment can set."""
    declared = {s.name for s in settings.SETTINGS}
    used = {(name, f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}")
            for path, source in _sources(*PRODUCT) for node in ast.walk(ast.parse(source))
            if (name := _kb_name(node))}
    assert sorted(where for name, where in used if name not in declared) == []
    assert {name for name, _ in used} <= declared and len(declared) == len(settings.SETTINGS)


def test_the_docs_table_is_generated_from_the_declarations():
    page = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    assert settings.with_table(page) == page, "run `make docs-settings` to regenerate docs/settings.md's table"
    for s in settings.SETTINGS:
        assert f"| `{s.name}` |" in page


def test_each_setting_is_declared_once_in_a_known_group():
    names = [s.name for s in settings.SETTINGS]
    assert len(names) == len(set(names))
    assert {s.group for s in settings.SETTINGS} <= set(settings.GROUPS)
    assert all(s.doc and s.type in (str, int, float, bool, Path) for s in settings.SETTINGS)
    with pytest.raises(KeyError):
        settings.setting("KB_NOPE")


def test_values_are_parsed_and_bad_ones_named():
    env = {"KB_DATA": "/srv/kb", "KB_WARM": "1", "KB_SEARCH_CACHE": " 0 ", "KB_PUBLIC_URL": "",
           "KB_DISCORD_MAX_AGE": "60"}
    values = settings.read_all(env)
    assert values["KB_DATA"] == Path("/srv/kb") and values["KB_WARM"] is True and values["KB_SEARCH_CACHE"] == 0
    assert values["KB_PUBLIC_URL"] is None and values["KB_DISCORD_MAX_AGE"] == 60.0  # empty counts as unset
    assert values["KB_CR"] is None and values["KB_FORWARDED_FOR"] is False and values["KB_HEAD_TIMEOUT"] == 10.0
    # kb serve's workers serve builds of its sources only; empty is the bundled documents alone, not unset
    assert settings.read("KB_SOURCES", {"KB_SOURCES": ""}) == "" and settings.read("KB_SOURCES", {}) is None
    for name, raw, message in [
        ("KB_WARM", "yes", "KB_WARM must be 1 or 0, not 'yes'"),
        ("KB_SEARCH_CACHE", "-1", "KB_SEARCH_CACHE must be a whole number, 0 or more, not '-1'"),
        ("KB_SEARCH_CACHE", "lots", "KB_SEARCH_CACHE must be a whole number, 0 or more, not 'lots'"),
        ("KB_PUBLIC_URL", "rules.example.org", "KB_PUBLIC_URL must be a URL starting with http:// or https://"),
        # gone (the granian server): honoured forwarded headers are KB_TRUSTED_PROXIES' now, and set it stops kb serve
        ("KB_FORWARDED_FOR", "1", "KB_FORWARDED_FOR must be unset: it is gone, name the load balancer's address in "
                                  "KB_TRUSTED_PROXIES"),
        ("KB_COSTLY_SLOTS", "0", "KB_COSTLY_SLOTS must be a whole number from 1 to 64, not '0'"),
        ("KB_HEAD_TIMEOUT", "61", "KB_HEAD_TIMEOUT must be a number of seconds above 0 and at most 60, not '61'"),
    ]:
        with pytest.raises(ValueError) as caught:
            settings.read(name, {name: raw})
        assert str(caught.value).startswith(message)


def test_the_app_takes_its_config_from_the_settings(data_dir, monkeypatch):
    from web.app import create_app

    monkeypatch.setenv("KB_SEARCH_CACHE", "0")
    monkeypatch.setenv("KB_DISCORD_MAX_AGE", "42")
    app = create_app({"KB_DATA": str(data_dir), "TESTING": True})
    assert app.config["KB_DISCORD_MAX_AGE"] == 42.0 and app.config["KB_WARM"] is False
    kb = app.extensions["kb"]
    assert kb.search_cache == 0 and kb.current().searcher._cached is None  # the answer cache is off
    monkeypatch.setenv("KB_WARM", "maybe")
    with pytest.raises(ValueError, match="KB_WARM must be 1 or 0"):
        create_app({"KB_DATA": str(data_dir)})
