"""The site and the application on top of the core: the Flask app (``web.app``), its server
(``web.serve``, ``web.front``) and the ``kb`` command (``web.cli``); what ``kb bench`` and ``kb soak``
run lives apart, in ``web.tools``. ``kb`` (the core) and ``ingest`` never import this package.
"""
