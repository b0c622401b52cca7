# The two set-up commands of the README: `make serve` and `make test`.
# Each creates .venv (once) with the project and its test dependencies.
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin

.PHONY: serve test
serve: $(VENV)/.installed
	$(BIN)/kb serve

test: $(VENV)/.installed
	$(BIN)/python -m pytest

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@
