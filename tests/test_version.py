"""One version: ``kb --version``, the site's footer, ``/api/health`` and the changelog's newest entry agree with
the installed package's version (pyproject.toml)."""
from __future__ import annotations

import re
from importlib.metadata import version
from pathlib import Path

from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent


def test_the_command_the_site_and_the_api_say_the_package_version(client):
    from web.cli import cli

    package = version("rules-kb")
    assert CliRunner().invoke(cli, ["--version"]).stdout == f"kb {package}\n"
    assert client.get("/api/health").get_json()["version"] == package
    footer = re.search(r"<footer>(.*?)</footer>", client.get("/treachery/907.4b").get_data(as_text=True), re.S)
    assert footer is not None and f"kb {package}" in footer.group(1)


def test_the_changelog_names_the_package_version_first():
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## (\d+\.\d+\.\d+)$", changelog, re.M)
    assert versions[0] == version("rules-kb")
    assert versions == sorted(versions, key=lambda v: tuple(map(int, v.split("."))), reverse=True)
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'\nversion = "{versions[0]}"\n' in pyproject
