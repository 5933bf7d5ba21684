# `make run` starts the dashboard, `make test` runs every test; both create .venv first if needed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
DEV_STAMP := $(VENV)/.installed-dev
PIP := $(BIN)/python -m pip install --disable-pip-version-check --progress-bar off
# The dashboard's address: make run PORT=8600 (stop it with Ctrl+C in the terminal it runs in).
PORT ?= 8501

.PHONY: run test test-fast bench browser demo-data translations clean python

python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || { \
	  echo "Python 3.11 or newer is needed: '$(PYTHON)' is $$($(PYTHON) --version 2>/dev/null || echo 'not found')." \
	       "Install it, or name another: make run PYTHON=python3.12"; exit 2; }

# What the dashboard and the command line need: once, then only when a requirements file changes.
$(RUN_STAMP): requirements.txt requirements-survival.txt | python
	@test -d $(VENV) || { echo "Creating the environment in .venv with $$($(PYTHON) --version)"; $(PYTHON) -m venv $(VENV); }
	@echo "Installing the workbench's packages into .venv (the first time only: a few minutes)..."
	$(PIP) -r requirements.txt
	$(PIP) --no-deps -r requirements-survival.txt
	@touch $(RUN_STAMP)

# The test tools on top (pytest, hypothesis, playwright, import-linter...): for make test only.
$(DEV_STAMP): $(RUN_STAMP) requirements-dev.txt
	@echo "Installing the test tools into .venv..."
	$(PIP) -r requirements-dev.txt
	@touch $(DEV_STAMP)

run: $(RUN_STAMP)
	@echo "The dashboard opens at http://localhost:$(PORT) (this computer only). Stop it with Ctrl+C."
	$(BIN)/python -m dashboard.serve --server.port $(PORT) $(ARGS)

test: $(DEV_STAMP) browser
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(BIN)/python -m pytest -n auto --maxprocesses 4 -m "not browser" --durations=15
	$(BIN)/python -m pytest -m browser --durations=5

# The inner loop: the style, the layers and the types, then every test but the browser's and the slow statistical ones.
test-fast: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(BIN)/python -m pytest -n auto --maxprocesses 4 -m "not browser and not slow" -q

# Debian's chromium for the browser tests (Playwright drives it; no browser is downloaded).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian's chromium for the browser tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "note: chromium is missing, so the browser tests will be skipped (sudo apt-get install chromium)"; \
	  fi; }

# The catalogues (SPEC section 11): the messages marked in the code extracted to core/locales/workbench.pot, merged
# into each language's .po (translate the new or fuzzy entries there), then compiled to the .mo files committed.
translations: $(DEV_STAMP)
	$(BIN)/pybabel -q extract -F babel.cfg -k N_ --sort-by-file --no-wrap --omit-header -o core/locales/workbench.pot .
	$(BIN)/pybabel -q update -i core/locales/workbench.pot -d core/locales -D workbench --no-wrap --ignore-obsolete \
	  --ignore-pot-creation-date
	$(BIN)/python -c "from core.i18n import compile_catalogues; compile_catalogues()"

bench: $(DEV_STAMP)
	$(BIN)/python -m benchmarks.run

demo-data: $(RUN_STAMP)
	$(BIN)/python assets/make_demo_data.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
