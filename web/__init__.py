"""The site and the application on top of the core: the Flask app (``web.app``), its server
(``web.serve``, ``web.gate``) and the ``kb`` command (``web.cli``); what ``kb bench`` and ``kb soak``
run lives apart, in ``web.tools``. ``kb`` (the core) and ``ingest`` never import this package.

``__version__`` is the installed package's version (pyproject.toml, named in CHANGELOG.md): ``kb --version``,
the site's footer and ``/api/health`` all print it.
"""
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("rules-kb")
except PackageNotFoundError:  # pragma: no cover - a checkout run without `pip install -e .` (make does it)
    __version__ = "unknown"
