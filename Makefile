# `make demo` and `make test` each build their own virtual environment first.
# On Debian, Ubuntu or Raspberry Pi OS they also install the system packages they need
# (tools/bootstrap.py: apt-get as root, else sudo apt-get without a password, else it says
# what to run by hand). The system's python3 runs it: the venv may not exist yet.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
BOOTSTRAP := python3 tools/bootstrap.py --stamp $(STAMP)

.PHONY: venv test lint demo bench docs screenshots clean hub table lock

venv: $(STAMP)

# Each step says what it does (on a Pi, pip takes minutes); versions come from constraints/
# (tools/lock.py), so every machine of a venue, and CI, runs the same ones.
$(STAMP): pyproject.toml constraints/dev.txt
	@$(BOOTSTRAP) venv
	@echo "==> the virtual environment ($(VENV))"
	python3 -m venv $(VENV)
	@echo "==> pip itself"
	$(PY) -m pip install --quiet --upgrade pip
	@echo "==> Mesa and what its tests need (constraints/dev.txt): a few minutes the first time"
	$(PY) -m pip install --progress-bar on -c constraints/dev.txt -e '.[dev]'
	touch $(STAMP)

# mypy through tools/typecheck.py: it names each module by its import name (mesa.controller.x
# lives in controller/), which plain `mypy -p mesa` cannot see. The dashboard (hub/web) and the
# desk (hub/desk) are checked in a second run of their own while they are being rewritten: its
# errors are printed on every `make lint`, and make goes on (the leading `-`).
lint: venv
	$(VENV)/bin/ruff check .
	$(PY) tools/typecheck.py

# The system packages come first, so that a missing one stops the command before minutes of
# pip install, and in one apt-get call with python3-venv when that is missing too.
test:
	@$(BOOTSTRAP) test
	@$(MAKE) --no-print-directory lint
	$(PY) -m pytest

demo:
	@$(BOOTSTRAP) demo
	@$(MAKE) --no-print-directory venv
	$(PY) -m mesa demo

docs: venv
	$(PY) -m mesa docs

# The browser tests, writing their screenshots and printed PDFs into docs/screenshots/ (a plain
# test run writes them to test-artifacts/ instead, so it never rewrites committed files).
screenshots: venv
	MESA_SCREENSHOTS=1 $(PY) -m pytest -q -m browser tests/hub

bench: venv
	for b in bench/*.py; do [ $$b = bench/evening.py ] || $(PY) $$b || exit 1; done
	$(PY) bench/evening.py  # last: it fails while any invariant is violated

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache build *.egg-info

# A venue's machines (docs/install.md): the checkout in /opt/mesa, a venv with only what each
# runs; then `sudo .venv/bin/mesa install hub` or `... install table`. The table's venv sees the
# system's python3-lgpio (Raspberry Pi OS), which gpiozero uses for the pins.
hub:
	@$(BOOTSTRAP) hub
	@echo "==> the hub's virtual environment ($(VENV))"
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	@echo "==> Mesa's hub and its pinned dependencies (constraints/hub.txt)"
	$(PY) -m pip install --progress-bar on -c constraints/hub.txt -e '.[hub]'

table:
	@$(BOOTSTRAP) table
	@echo "==> the table's virtual environment ($(VENV), with the system's python3-lgpio)"
	python3 -m venv --system-site-packages $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	@echo "==> Mesa's table and its pinned dependencies (constraints/table.txt): minutes on a Pi Zero"
	$(PY) -m pip install --progress-bar on -c constraints/table.txt -e '.[table]'

# The versions every venue installs: rewrites constraints/*.txt from fresh venvs (then run the
# tests and commit the files).
lock:
	python3 tools/lock.py
