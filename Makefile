# `make run` starts the dashboard, `make test` runs every test; both create .venv first if needed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test demo-data clean

$(STAMP): requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m streamlit run app.py

test: $(STAMP)
	$(BIN)/python -m pytest

demo-data: $(STAMP)
	$(BIN)/python assets/make_demo_data.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
