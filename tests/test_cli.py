"""The `kb` command: `kb search` and `kb show` from a terminal and from scripts, and its command line (click)."""
from __future__ import annotations

import json
from pathlib import Path

from tests.test_build import run_kb


def test_search_json_is_the_api_shape(data_dir):
    out = run_kb("--data", str(data_dir), "search", "CR 907.4B.", "--json")
    assert out.returncode == 0, out.stderr
    body = json.loads(out.stdout)
    assert body["results"][0]["id"] == "treachery/907.4b" and body["matched_by"] == "reference"


def test_search_json_is_the_api_answer_with_its_pages(data_dir, client):
    out = run_kb("--data", str(data_dir), "search", "counter", "--doc", "treachery", "--limit", "5", "--offset", "5",
                 "--json")
    assert out.returncode == 0, out.stderr
    body = json.loads(out.stdout)
    assert body == client.get("/api/search?q=counter&doc=treachery&limit=5&offset=5").get_json()
    assert body["pagination"]["page"] == 2 and len(body["results"]) == 5
    bad = run_kb("--data", str(data_dir), "search", "counter", "--offset", "-1", "--json")
    assert bad.returncode == 2 and "offset must be between" in bad.stderr


def test_search_filters_and_limit(data_dir):
    out = run_kb("--data", str(data_dir), "search", "counter", "--doc", "treachery", "--kind", "ruling", "--limit", "3")
    lines = [line for line in out.stdout.splitlines() if line.startswith("  ") and "treachery/" in line]
    assert out.returncode == 0 and len(lines) == 3
    assert all("/cards/" in line for line in lines)


def test_search_says_which_common_question_a_hit_answers(data_dir):
    import tomllib

    from tests.conftest import CORPUS

    entry = tomllib.loads((CORPUS / "asked" / "treachery.toml").read_text(encoding="utf-8"))["ask"][0]
    out = run_kb("--data", str(data_dir), "search", entry["asked"][0])
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if f"  {entry['record']}  " in line)
    assert lines[at + 1].strip().startswith("answers the common question: ")


def test_search_bad_filter_is_a_usage_error(data_dir):
    out = run_kb("--data", str(data_dir), "search", "x", "--kind", "nope")
    assert out.returncode == 2 and "unknown kind 'nope'" in out.stderr


def test_show_any_reference_form(data_dir):
    out = run_kb("--data", str(data_dir), "show", "r907.4B.")
    assert out.returncode == 0
    assert out.stdout.startswith("907.4b    [treachery/907.4b, rule]")
    assert "'rule 702.187' -> treachery/702.187" in out.stdout
    assert "cited by:\n  treachery/116.2tr" in out.stdout
    assert "source: treachery.txt lines 234-236" in out.stdout


def test_show_renamed_number_notes_the_old_one(data_dir):
    out = run_kb("--data", str(data_dir), "show", "rule 115")
    assert out.returncode == 0
    assert "note: 115 was renamed 116 in version 4.0" in out.stdout
    assert "- 116.2: There’s an extra special action:" in out.stdout
    assert "  - 116.2tr: In a Treachery game" in out.stdout


def test_show_card_by_mistyped_name(data_dir):
    out = run_kb("--data", str(data_dir), "show", "tarmogyof", "--json")
    shown = json.loads(out.stdout)
    assert shown["id"] == "futuresight/cards/tarmogoyf"


def test_show_json_is_the_api_twin(data_dir, client):
    shown = json.loads(run_kb("--data", str(data_dir), "show", "907.4b", "--json").stdout)
    assert shown == client.get("/api/records/treachery/907.4b").get_json()


def test_show_missing_letter(data_dir):
    out = run_kb("--data", str(data_dir), "show", "907.4l")
    assert out.returncode == 1
    assert "907.4l does not exist: sub-rule letters skip l and o (nearby: treachery/907.4)" in out.stderr


def test_missing_data_directory_is_a_clear_message(tmp_path):
    out = run_kb("--data", str(tmp_path / "nothing"), "search", "x")
    assert out.returncode != 0
    assert "no build here yet" in out.stderr and "Traceback" not in out.stderr


# -- the command line itself (click's CliRunner) -------------------------------------------------------
# Every command and flag the README, the docs and the issues name, as they were under argparse: a contract.
NAMED = {
    ("build",): {"--cr", "--cr-history"},
    ("inspect",): {"--json"},
    ("check",): {"--strict"},
    ("serve",): {"--host", "--port", "--workers", "--cr", "--cr-history", "--debug", "--access-log"},
    ("search",): {"--doc", "--kind", "--limit", "--offset", "--json"},
    ("show",): {"--json"},
    ("bench",): {"--cr", "--repeat", "--scale", "--clients", "--seconds", "--no-http", "--search-cache",
                 "--cr-history", "--json"},
    ("discord",): set(),
    ("soak",): {"--design", "--slow", "--seconds", "--requests", "--workers", "--only", "--json"},
    ("cr", "update"): {"--from", "--cr-history"},
}
ENV = {"--data": "KB_DATA", "--corpus": "KB_CORPUS", "--cr": "KB_CR", "--cr-history": "KB_CR_HISTORY"}


def _command(path: tuple[str, ...]):
    import click

    from web.cli import cli

    command: click.Command = cli
    for name in path:
        assert isinstance(command, click.Group)
        command = command.commands[name]
    return command


def test_every_named_command_and_flag_is_there_with_its_environment_variable():
    import click

    from web.cli import cli

    assert {p.opts[0]: p.envvar for p in cli.params if isinstance(p, click.Option) and p.envvar} == \
        {"--data": "KB_DATA", "--corpus": "KB_CORPUS"}
    for path, flags in NAMED.items():
        options = {opt: p for p in _command(path).params if isinstance(p, click.Option) for opt in p.opts}
        assert flags <= set(options), (path, flags - set(options))
        for flag in flags & set(ENV):
            assert options[flag].envvar == ENV[flag], (path, flag)


def test_the_environment_fills_what_the_command_line_leaves_out(monkeypatch, tmp_path):
    """KB_CR and KB_CR_HISTORY as argparse's hand-written fallbacks read them; a flag wins over its variable."""
    monkeypatch.setenv("KB_CR", str(tmp_path / "cr.txt"))
    monkeypatch.setenv("KB_CR_HISTORY", str(tmp_path / "history"))
    for path in [("build",), ("serve",), ("bench",), ("cr", "update")]:
        params = _command(path).make_context(path[-1], []).params
        assert params["cr_history"] == tmp_path / "history"
        assert "cr" not in params or params["cr"] == tmp_path / "cr.txt"
    params = _command(("build",)).make_context("build", ["--cr", "other.txt"]).params
    assert params["cr"] == Path("other.txt")


def test_kb_data_from_the_environment(data_dir):
    from click.testing import CliRunner

    from web.cli import cli

    result = CliRunner().invoke(cli, ["show", "907.4b", "--json"], env={"KB_DATA": str(data_dir)})
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["id"] == "treachery/907.4b"


def test_version_is_the_package_version():
    from importlib.metadata import version

    from click.testing import CliRunner

    from web.cli import cli

    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0 and result.stdout == f"kb {version('rules-kb')}\n"


def test_help_groups_the_commands():
    from click.testing import CliRunner

    from web.cli import SECTIONS, cli

    out = CliRunner().invoke(cli, ["--help"]).stdout
    headings = [line.rstrip(":") for line in out.splitlines() if line.endswith(":") and not line.startswith(" ")]
    assert headings == ["Options"] + [title for title, _ in SECTIONS]
    listed = {line.split()[0] for line in out.split("Build and check:")[1].splitlines() if line.startswith("  ")}
    assert {path[0] for path in NAMED} <= listed
    assert "_KB_COMPLETE=bash_source kb" in out


def test_usage_errors_exit_2_and_commands_keep_their_status():
    from web.cli import main

    assert main(["search"]) == 2  # no query
    assert main(["discord", "nope"]) == 2
    assert main(["nope"]) == 2
    assert main([]) == 2  # a command is required, as it was
    assert main(["--help"]) == 0
    assert main(["discord", "commands"]) == 0


def test_a_bad_setting_stops_kb_serve_before_it_builds(tmp_path):
    from click.testing import CliRunner

    from web.cli import cli

    result = CliRunner().invoke(cli, ["--data", str(tmp_path / "data"), "serve"], env={"KB_WARM": "maybe"})
    assert result.exit_code == 1 and result.output.strip() == "kb serve: KB_WARM must be 1 or 0, not 'maybe'"
    assert not (tmp_path / "data").exists()


def test_shell_completion_completes_commands_and_flags():
    import os
    import subprocess
    import sys

    def complete(words: str) -> list[str]:
        env = {**os.environ, "_KB_COMPLETE": "bash_complete", "COMP_WORDS": words,
               "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1))}
        out = subprocess.run([sys.executable, "-m", "web.cli"], env=env, capture_output=True, text=True)
        return [line.split(",", 1)[1] for line in out.stdout.splitlines()]

    assert complete("kb se") == ["search", "serve"]
    assert "--cr-history" in complete("kb serve --cr")
