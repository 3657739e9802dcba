# Two entry points for a fresh machine: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench clean

# The demo needs only the runtime; the test tools (pytest, mypy, ruff, …) come with `make test`.
RUNTIME := $(VENV)/.runtime

$(RUNTIME): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	touch $(RUNTIME)

$(STAMP): $(RUNTIME)
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(RUNTIME)
	$(BIN)/companion demo

test: $(STAMP)
	bash scripts/sysdeps.sh
	$(BIN)/ruff check companion tests benchmarks models calibration
	$(BIN)/ruff format --check companion tests benchmarks models calibration
	$(BIN)/mypy
	$(BIN)/pytest -n 2 -q

bench: $(STAMP)
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV)
