"""The direction of imports: kb (the core) <- ingest <- web (the application).

Every import statement is read with ``ast``, those inside functions too, so a lazy
``from web.app import create_app`` in the core fails here just as a top-level one would.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# What each package may not import: the layers above it.
FORBIDDEN = {"kb": {"ingest", "web"}, "ingest": {"web"}}


def imported_packages(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module.split(".")[0]))
    return found


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_upward_imports(package):
    upward = [
        f"{path.relative_to(ROOT)}:{line}: imports {name}"
        for path in sorted((ROOT / package).rglob("*.py"))
        for line, name in imported_packages(path)
        if name in FORBIDDEN[package]
    ]
    assert upward == []


def test_the_reader_sees_upward_imports(tmp_path):
    """The check itself can fail: a function-level upward import is found."""
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from web.app import create_app\n    import ingest.build\n")
    assert imported_packages(module) == [(2, "web"), (3, "ingest")]


def test_the_site_loads_no_benchmark_code():
    """web.tools (kb bench, kb soak) is off the request path: a fresh interpreter importing the app and the
    server loads none of it, nor the evaluation questions."""
    import subprocess
    import sys

    probe = ("import sys, web.app, web.serve, web.gate\n"
             "print('\\n'.join(sorted(m for m in sys.modules if m.startswith(('web.tools', 'corpus.questions')))))")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split() == []
    # the probe can fail: the tools package is found by the same filter once imported
    out = subprocess.run([sys.executable, "-c", probe.replace("web.gate\n", "web.gate, web.tools.bench\n")],
                         cwd=ROOT, capture_output=True, text=True, check=True)
    assert "web.tools.bench" in out.stdout.split()
