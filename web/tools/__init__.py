"""What ``kb bench`` and ``kb soak`` run: measurements and load, kept apart from the request path.

Nothing the site serves imports this package (tests/test_package.py checks that importing ``web.app``
loads none of it); only the ``kb`` command does, when one of those two commands is asked for.
"""
