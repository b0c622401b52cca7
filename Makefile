# The two set-up commands of the README: `make serve` and `make test`.
# Each creates .venv (once) with the project, its test dependencies and the documentation tools.
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin
# `make serve PORT=8080 HOST=0.0.0.0`
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: serve test lint docs docs-serve docs-settings
serve: $(VENV)/.installed
	$(BIN)/kb serve --host $(HOST) --port $(PORT)

# Every test, in one process per core (pytest-xdist; whole files to a process, builds shared).
# `make test WORKERS=0` runs them in this one process.
WORKERS ?= auto
test: $(VENV)/.installed
	$(BIN)/python -m pytest -n $(WORKERS) --dist loadfile

# What .ci/run checks before the tests: ruff (style, bugs, complexity) and mypy, both configured in
# pyproject.toml; any finding fails.
lint: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/mypy

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# whoosh3 replaced whoosh-reloaded: both install the `whoosh` package, so a venv made before holds one
	# package of two distributions' files; take both out, and the line below installs whoosh3 alone.
	if $(BIN)/python -m pip show -q whoosh-reloaded 2>/dev/null; then \
		$(BIN)/python -m pip uninstall -q -y whoosh-reloaded whoosh3; fi
	$(BIN)/python -m pip install -q -e '.[test,docs]'
	touch $@

# The documentation site: docs/ -> site/ (strict: a broken link or a page missing from the navigation fails);
# `make docs-serve` serves it at http://127.0.0.1:8001 and rebuilds on every change.
docs: $(VENV)/.installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

docs-serve: $(VENV)/.installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve --dev-addr 127.0.0.1:8001

# docs/settings.md's table, rewritten from the declarations in web/settings.py (tests/test_settings.py checks it).
docs-settings: $(VENV)/.installed
	$(BIN)/python -m web.settings docs/settings.md
