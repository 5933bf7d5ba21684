# `make run` starts the dashboard, `make test` runs every test; both create .venv first if needed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-fast bench browser demo-data translations clean

$(STAMP): requirements.txt requirements-dev.txt requirements-survival.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -r requirements-survival.txt
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m streamlit run app.py $(ARGS)

test: $(STAMP) browser
	$(BIN)/lint-imports
	$(BIN)/python -m pytest

# The inner loop: the layers, then every test but the browser's and the slow statistical ones.
test-fast: $(STAMP)
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -m "not browser and not slow" -q

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
translations: $(STAMP)
	$(BIN)/pybabel -q extract -F babel.cfg -k N_ --sort-by-file --no-wrap --omit-header -o core/locales/workbench.pot .
	$(BIN)/pybabel -q update -i core/locales/workbench.pot -d core/locales -D workbench --no-wrap --ignore-obsolete \
	  --ignore-pot-creation-date
	$(BIN)/python -c "from core.i18n import compile_catalogues; compile_catalogues()"

bench: $(STAMP)
	$(BIN)/python -m benchmarks.run

demo-data: $(STAMP)
	$(BIN)/python assets/make_demo_data.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
