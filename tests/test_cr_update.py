"""``kb cr update`` against a loopback HTTP server serving a rules page and releases (no internet here)."""
from __future__ import annotations

import shutil
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from web.cli import main
from ingest.cr_update import newest_txt_link
from tests.conftest import CORPUS, CR_HISTORY, NO_HISTORY

PAGE = """<!doctype html><html><body><h1>Comprehensive Rules</h1>
<p><a href="/downloads/MagicCompRules%2020260619.txt">older TXT</a></p>
<p><a href="{href}">TXT</a> <a href="/downloads/MagicCompRules%2020260807.pdf">PDF</a></p>
</body></html>"""

pytestmark = pytest.mark.slow  # rebuilds with three official releases


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """127.0.0.1 serving /rules-<case>.html pages and /downloads/ releases."""
    if not CR_HISTORY.is_dir():
        pytest.skip(NO_HISTORY)
    root = tmp_path_factory.mktemp("site")
    downloads = root / "downloads"
    downloads.mkdir()
    shutil.copy(CR_HISTORY / "MagicCompRules_20260807.txt", downloads / "MagicCompRules 20260807.txt")
    (downloads / "MagicCompRules 20270101.txt").write_bytes(b"Magic: The Gathering Comprehensive Rules\n\nnot rules\n")
    cases = {"new": "/downloads/MagicCompRules%2020260807.txt", "missing": "/downloads/MagicCompRules%2020261231.txt",
             "broken": "/downloads/MagicCompRules%2020270101.txt"}
    for case, href in cases.items():
        (root / f"rules-{case}.html").write_text(PAGE.format(href=href), encoding="utf-8")
    (root / "rules-none.html").write_text('<a href="/downloads/rules.pdf">PDF</a>', encoding="utf-8")
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    if not CR_HISTORY.is_dir():
        pytest.skip(NO_HISTORY)
    path = tmp_path_factory.mktemp("cr-history")
    for name in ("MagicCompRules_20260417.txt", "MagicCompRules_20260619.txt"):
        shutil.copy(CR_HISTORY / name, path / name)
    return path


def run(capsys, data, folder, url):
    code = main(["--corpus", str(CORPUS), "--data", str(data),
                 "cr", "update", "--from", url, "--cr-history", str(folder)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_newest_txt_link_is_read_from_the_page():
    page = PAGE.format(href="https://media.example/MagicCompRules%2020260807.txt")
    assert newest_txt_link(page, "https://magic.example/en/rules") == "https://media.example/MagicCompRules%2020260807.txt"


@pytest.mark.parametrize("case, message", [
    ("missing", "HTTP 404"),
    ("broken", "the download is not a release the parser accepts"),
    ("none", "no link to a TXT release"),
])
def test_a_failed_update_changes_nothing(capsys, tmp_path, site, folder, case, message):
    before = sorted(p.name for p in folder.iterdir())
    code, out, err = run(capsys, tmp_path / "data", folder, f"{site}/rules-{case}.html")
    assert code == 1 and "kb cr update: nothing changed:" in err and message in err
    assert sorted(p.name for p in folder.iterdir()) == before
    assert not (tmp_path / "data").exists()


def test_unparsable_release_names_file_and_line(capsys, tmp_path, site, folder):
    code, out, err = run(capsys, tmp_path / "data", folder, f"{site}/rules-broken.html")
    assert "MagicCompRules_20270101.txt:1: expected the sentence 'These rules are effective as of" in err


def test_update_adds_the_new_release_and_rebuilds_then_is_current(capsys, tmp_path, site, folder):
    data = tmp_path / "data"
    code, out, err = run(capsys, data, folder, f"{site}/rules-new.html")
    assert code == 0, err
    assert "added MagicCompRules_20260807.txt (effective 2026-08-07)" in out
    added = folder / "MagicCompRules_20260807.txt"
    assert added.read_bytes() == (CR_HISTORY / "MagicCompRules_20260807.txt").read_bytes()
    current = (data / "current").resolve()
    from kb.store import Store

    assert Store.open(data).manifest["cr_history"]["current"] == "2026-08-07"
    code, out, err = run(capsys, data, folder, f"{site}/rules-new.html")
    assert code == 0 and out.startswith("already current")
    assert (data / "current").resolve() == current


def test_update_needs_a_folder(capsys, monkeypatch):
    monkeypatch.delenv("KB_CR_HISTORY", raising=False)
    assert main(["cr", "update", "--from", "http://127.0.0.1:9/"]) == 2
    assert "--cr-history DIR or $KB_CR_HISTORY" in capsys.readouterr().err


def test_serve_without_source_flags_keeps_the_official_rules_the_build_was_made_with(tmp_path, folder):
    """`kb build --cr-history F` then a plain `kb serve`: it serves that build, not a rebuild of the bundled
    documents alone (an exploratory judge lost the official rules this way); when the folder is gone, it says
    so and builds without it."""
    from kb.store import Store
    from web.serve import prepare

    mine = tmp_path / "history"
    shutil.copytree(folder, mine)
    data = tmp_path / "data"
    said: list[str] = []
    first = prepare(CORPUS, data, None, say=said.append, cr_history=mine)
    said.clear()
    plain = prepare(CORPUS, data, None, say=said.append)
    assert plain.build_id == first.build_id and not plain.stale
    assert said == [f"serving with the official rules the current build was made with: {mine.resolve()} "
                    "(name others with --cr/--cr-history; `kb build` without them drops them)"]
    said.clear()
    shutil.rmtree(mine)
    rebuilt = prepare(CORPUS, data, None, say=said.append)
    assert said[0] == f"the official rules the current build was made with are gone ({mine.resolve()}): " \
                      "building without them"
    assert said[1] == (f"building: build {first.build_id} was made with --cr-history {mine.resolve()}; "
                       "asked for the bundled documents only")
    assert rebuilt.build_id != first.build_id
    assert "cr" not in {d["slug"] for d in Store.open(data).documents}


def test_serve_rebuilds_only_when_the_history_folder_changes(capsys, tmp_path, folder):
    from ingest.build import corpus_digest
    from ingest.releases import release_files
    from web.serve import prepare

    data = tmp_path / "data"
    said: list[str] = []
    first = prepare(CORPUS, data, None, say=said.append, cr_history=folder)
    assert any(line.startswith("building:") for line in said)  # nothing built yet: builds
    said.clear()
    again = prepare(CORPUS, data, None, say=said.append, cr_history=folder)
    assert again.build_id == first.build_id and not again.stale and said == []  # up to date: serves it
    files = release_files(folder)
    assert corpus_digest(CORPUS, files) != corpus_digest(CORPUS, files[:-1])  # a release added or removed is stale


# -- what the update reads (issue 31, fault 7) -------------------------------------------------------------------
class _Counting(SimpleHTTPRequestHandler):
    """Another local site: counts what it is asked and answers what it is told to."""

    asked: list[str] = []

    def do_GET(self):  # noqa: N802 - the base class's name
        self.asked.append(self.path)
        if self.path.startswith("/go-home"):
            self.send_response(302)
            self.send_header("Location", "http://127.0.0.1:9/elsewhere.txt")
            self.end_headers()
            return
        body = b"SECRET-FIRST-LINE of a page that is no rules file\n" * 10
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


@pytest.fixture()
def other_site():
    _Counting.asked = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Counting)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.mark.parametrize("href", ["{other}/MagicCompRules%2020991231.txt",  # another local port
                                  "ftp://127.0.0.1/MagicCompRules%2020991231.txt",
                                  "file:///etc/MagicCompRules%2020991231.txt"])
def test_the_update_reads_only_the_rules_page_s_site(capsys, tmp_path, site, folder, other_site, href):
    # served a rules page on 127.0.0.1 linking to another local port, the update fetched it and printed its first
    # line; it also opened an ftp:// connection
    root = tmp_path / "page"
    root.mkdir()
    (root / "rules.html").write_text(PAGE.format(href=href.format(other=other_site)), encoding="utf-8")
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        code, out, err = run(capsys, tmp_path / "data", folder, f"http://127.0.0.1:{server.server_address[1]}/rules.html")
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
    assert code == 1 and "not the rules page's site" in err and _Counting.asked == []
    assert "SECRET" not in out + err


def test_the_update_follows_no_redirect_to_another_site_and_prints_nothing_of_a_non_rules_file(
        capsys, tmp_path, folder, other_site):
    code, out, err = run(capsys, tmp_path / "data", folder, f"{other_site}/go-home.html")
    assert code == 1 and "redirected to another site (http://127.0.0.1:9), not followed" in err
    # a page that is no rules page: said so, never in its own words
    code, out, err = run(capsys, tmp_path / "data", folder, f"{other_site}/MagicCompRules%2020260807.txt")
    assert code == 1 and "SECRET" not in out + err
    assert not (tmp_path / "data").exists()


def test_the_rules_page_must_be_https_unless_it_is_on_this_machine():
    from ingest.cr_update import UpdateError, origins_of

    assert origins_of("https://magic.wizards.com/en/rules") == {("https", "magic.wizards.com", 443),
                                                                 ("https", "media.wizards.com", 443)}
    with pytest.raises(UpdateError, match="must be an https address"):
        origins_of("http://rules.example.org/rules")
    with pytest.raises(UpdateError, match="must be an https address"):
        origins_of("ftp://127.0.0.1/rules")
    assert origins_of("http://127.0.0.1:8080/rules") == {("http", "127.0.0.1", 8080)}
