"""The site and the application on top of the core: the Flask app (``web.app``), its server
(``web.serve``, ``web.gate``) and the ``kb`` command (``web.cli``) with its benchmarks and soak
test. ``kb`` (the core) and ``ingest`` never import this package.
"""
