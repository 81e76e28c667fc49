# `make demo` and `make test` each build their own virtual environment first.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: venv test lint demo bench docs clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

lint: venv
	$(VENV)/bin/ruff check .

test: venv lint
	$(PY) -m pytest

demo: venv
	$(PY) -m mesa demo

docs: venv
	$(PY) -m mesa docs

bench: venv
	for b in bench/*.py; do $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache build *.egg-info
