"""Shared fixtures: the real corpus built once per session, and its published store."""
from __future__ import annotations

import fcntl
import gc
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from web.settings import setting

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
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_OneWorkerPerFile(), "kb-one-worker-per-file")


# `make test` distributes whole files (pytest-xdist --dist loadfile), so a module's server starts once.
# The two files about the 62 official releases go to one process: both use the releases parsed in
# process (about 5 s of CPU each time they are parsed).
SAME_PROCESS = {"tests/test_history_ingest.py": "tests/test_history.py"}


class _OneWorkerPerFile:
    def pytest_xdist_make_scheduler(self, config, log):
        if config.getoption("dist") != "loadfile":
            return None
        from xdist.scheduler import LoadFileScheduling

        class Files(LoadFileScheduling):
            def _split_scope(self, nodeid: str) -> str:
                scope = super()._split_scope(nodeid)
                return SAME_PROCESS.get(scope, scope)

        return Files(config, log)


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


# -- builds made once per run, shared by pytest-xdist's workers ------------------------------------
# `make test` runs the suite in two processes (pytest-xdist, one per core). The builds the tests only
# read are made once per run all the same: the first process to ask builds under a file lock, in the
# directory both processes' temporary directories sit in; the other waits for it and reuses it.
def _run_dir(tmp_path_factory) -> Path:
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextmanager
def built_once(tmp_path_factory, name: str) -> Iterator[Path]:
    """The run's directory ``name``, held under its lock: build it there unless it is built already."""
    root = _run_dir(tmp_path_factory)
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield root / name


def kb_build_once(tmp_path_factory, name: str, *args: str) -> tuple[Path, subprocess.CompletedProcess]:
    """``kb build *args`` into the run's directory ``name``, once; what it printed is kept beside it."""
    with built_once(tmp_path_factory, name) as path:
        said = path.with_name(name + ".kb-build.json")
        if said.exists():
            saved = json.loads(said.read_text(encoding="utf-8"))
            done = subprocess.CompletedProcess(saved["args"], saved["returncode"], saved["stdout"], saved["stderr"])
        else:
            done = kb_build(path, *args)
            said.write_text(json.dumps({"args": done.args, "returncode": done.returncode, "stdout": done.stdout,
                                        "stderr": done.stderr}), encoding="utf-8")
    assert done.returncode == 0, done.stderr
    return path, done


# The corpus is built by the command itself, once per run: the tests of `kb build` read what it
# printed, and tests that need a build to change or break take a copy (copy_data) instead of
# building again.
@pytest.fixture(scope="session")
def data_build(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    return kb_build_once(tmp_path_factory, "data")


@pytest.fixture(scope="session")
def data_dir(data_build):
    return data_build[0]


def children_of(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (kb serve's workers), read from /proc."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry.name))
    return out


def copy_data(data_dir: Path, to: Path) -> Path:
    """A private copy of a built data directory (``current`` is a relative symlink)."""
    shutil.copytree(data_dir, to, symlinks=True)
    return to


@pytest.fixture(scope="session")
def store(data_dir):
    from kb.store import Store

    return Store.open(data_dir)


# Search as served: the semantic stage as KB_SEMANTIC's default has it (on since session 20). The pinned suites
# (test_search_quality, test_official, test_heldout) measure this; the lexical core's own tests open Searcher(store).
SEMANTIC = setting("KB_SEMANTIC").default


@pytest.fixture(scope="session")
def searcher(store):
    from kb.search import Searcher

    s = Searcher(store, semantic=SEMANTIC)
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
    return kb_build_once(tmp_path_factory, "data-cr", "--cr", str(CR_2026))


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
def history_data_dir(tmp_path_factory, request):
    """The bundled corpus plus all 62 official releases (the newest current), built once per run."""
    from ingest.publish import build

    if not CR_HISTORY.is_dir():
        pytest.skip(NO_HISTORY)
    with built_once(tmp_path_factory, "data-history") as path:
        if not (path / "current").exists():  # the releases are parsed only by the process that builds
            build(CORPUS, path, cr_history=CR_HISTORY, releases=request.getfixturevalue("cr_releases"))
    return path


@pytest.fixture(scope="session")
def history_app(history_data_dir):
    from web.app import create_app

    return create_app({"KB_DATA": str(history_data_dir), "TESTING": True})


@pytest.fixture()
def hclient(history_app):
    return history_app.test_client()


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium driven by Playwright, one per test module (the browser tests skip, at import, where either
    is missing)."""
    from playwright import sync_api

    from tests.browsing import CHROMIUM

    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield b
        b.close()
