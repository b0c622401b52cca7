"""The bundled corpus: the source documents as published and one TOML profile each.

A package only so that it ships inside the wheel: ``pip install`` (or
``pipx install``) followed by ``kb build`` anywhere finds it with
``importlib.resources`` instead of a path next to the source tree.
"""
from __future__ import annotations

from importlib.resources import files
from pathlib import Path

__all__ = ["bundled_corpus"]


def bundled_corpus() -> Path:
    """The directory holding the bundled documents and profiles (a plain directory once installed)."""
    return Path(str(files(__name__)))
