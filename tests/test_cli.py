"""``kb search`` and ``kb show`` from a terminal and from scripts."""
from __future__ import annotations

import json

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
