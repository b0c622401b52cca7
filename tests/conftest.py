"""Shared fixtures: the real corpus built once per session, and its published store."""
from __future__ import annotations

import gc
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
SHARED_CR = ROOT.parent / "shared" / "cr"

# Each checkout keeps its test directories under its own temporary root. pytest removes old
# numbered directories of the same user at the start and end of every run; with one root shared by
# several checkouts (or users of one account) a run deleted, or failed deleting, another run's files.
_TEMPROOT = Path(tempfile.gettempdir()) / f"kb-tests-{hashlib.sha256(str(ROOT).encode()).hexdigest()[:10]}"
_TEMPROOT.mkdir(exist_ok=True)
os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", str(_TEMPROOT))


# -- a missing ../shared is said out loud -------------------------------------------------------
# About fifty tests read the official rules in ../shared/cr. Without it they skip; a skip must not
# pass for a green run, so the header and the end of the run name the missing folder.
def pytest_report_header(config) -> str:
    if SHARED_CR.is_dir():
        return f"official rules: {SHARED_CR}"
    return f"official rules: MISSING {SHARED_CR}: the official-rules tests will skip"


def pytest_unconfigure(config) -> None:
    """The last line of the run, after pytest's own counts."""
    terminalreporter = config.pluginmanager.get_plugin("terminalreporter")
    if SHARED_CR.is_dir() or terminalreporter is None:
        return
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if "shared" in str(r.longrepr)]
    terminalreporter.write_sep(
        "!", f"{SHARED_CR} is missing: {len(skipped)} official-rules tests skipped (.ci/run fails without it)",
        red=True, bold=True,
    )


# -- what the session keeps, the garbage collector need not walk again -----------------------------
# Session fixtures hold large object graphs for the whole run (62 parsed official releases, builds,
# stores, apps). Python's full collections walk every tracked object, so each one later in the run
# cost a second or more. Once a session fixture is made, what is alive is moved to the collector's
# permanent generation (gc.freeze): still freed by reference counting, never walked again.
class _FreezeWhatTheSessionKeeps:
    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef, request):
        yield
        if fixturedef.scope == "session":
            gc.collect()
            gc.freeze()


def pytest_configure(config) -> None:
    # Registered as a plugin: a conftest's own pytest_fixture_setup is not called for session fixtures.
    config.pluginmanager.register(_FreezeWhatTheSessionKeeps(), "kb-freeze-session-fixtures")


@pytest.fixture(scope="session")
def built():
    from ingest.build import build_corpus

    return build_corpus(CORPUS)


@pytest.fixture(scope="session")
def records(built):
    return {r.id: r for r in built.records}


def kb_build(data: Path, *args: str) -> subprocess.CompletedProcess:
    """``kb build`` of the bundled corpus into ``data``, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "web.cli", "--corpus", str(CORPUS), "--data", str(data), "build", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )


# The corpus is built by the command itself, once per session: the tests of `kb build` read what it
# printed, and tests that need a build to change or break take a copy (copy_data) instead of
# building again.
@pytest.fixture(scope="session")
def data_build(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    path = tmp_path_factory.mktemp("data")
    done = kb_build(path)
    assert done.returncode == 0, done.stderr
    return path, done


@pytest.fixture(scope="session")
def data_dir(data_build):
    return data_build[0]


def copy_data(data_dir: Path, to: Path) -> Path:
    """A private copy of a built data directory (``current`` is a relative symlink)."""
    shutil.copytree(data_dir, to, symlinks=True)
    return to


@pytest.fixture(scope="session")
def store(data_dir):
    from kb.store import Store

    return Store.open(data_dir)


@pytest.fixture(scope="session")
def searcher(store):
    from kb.search import Searcher

    s = Searcher(store)
    yield s
    s.close()


@pytest.fixture(scope="session")
def app(data_dir):
    from web.app import create_app

    app = create_app({"KB_DATA": str(data_dir), "TESTING": True})
    return app


@pytest.fixture()
def client(app):
    return app.test_client()


CR_2026 = SHARED_CR / "MagicCompRules_20260807.txt"


@pytest.fixture(scope="session")
def cr_build(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """``kb build --cr``: the bundled corpus plus the 2026 official rules, built once."""
    if not CR_2026.exists():
        pytest.skip(f"no official rules at {CR_2026}: the official-rules tests need ../shared/cr")
    path = tmp_path_factory.mktemp("data-cr")
    done = kb_build(path, "--cr", str(CR_2026))
    assert done.returncode == 0, done.stderr
    return path, done


@pytest.fixture(scope="session")
def cr_data_dir(cr_build):
    return cr_build[0]


@pytest.fixture(scope="session")
def cr_store(cr_data_dir):
    from kb.store import Store

    return Store.open(cr_data_dir)


@pytest.fixture(scope="session")
def cr_client(cr_data_dir):
    from web.app import create_app

    return create_app({"KB_DATA": str(cr_data_dir), "TESTING": True}).test_client()


CR_HISTORY = SHARED_CR / "history"
NO_HISTORY = (f"NOT TESTED: the 62 official rules releases are not at {CR_HISTORY} "
              "(../shared/cr/history); the rules-history tests did not run")


@pytest.fixture(scope="session")
def cr_releases():
    """Every official release in ../shared/cr/history, parsed once per session."""
    if not CR_HISTORY.is_dir():
        pytest.skip(NO_HISTORY)
    from ingest.releases import load_releases

    return load_releases(CR_HISTORY)


@pytest.fixture(scope="session")
def history_data_dir(tmp_path_factory, cr_releases):
    """The bundled corpus plus all 62 official releases (the newest current), built once per session."""
    from ingest.publish import build

    path = tmp_path_factory.mktemp("data-history")
    build(CORPUS, path, cr_history=CR_HISTORY, releases=cr_releases)
    return path


@pytest.fixture(scope="session")
def history_app(history_data_dir):
    from web.app import create_app

    return create_app({"KB_DATA": str(history_data_dir), "TESTING": True})


@pytest.fixture()
def hclient(history_app):
    return history_app.test_client()
