# Every target creates .venv on first use, so a fresh machine needs only Python and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CORE := $(VENV)/.installed-core
FULL := $(VENV)/.installed-full
# CPU build of torch for the `local` extra; pinned so pip never pulls CUDA packages.
TORCH := torch==2.13.0

.PHONY: demo test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# demo: the core install (no torch) and the serve extra, so examples/quickstart/serve.py runs
$(CORE): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[serve]"
	touch $(CORE)

# tests, lint and benchmarks: dev tools plus the local-embedding, pdf, mlflow and ray extras
$(FULL): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet "$(TORCH)"
	$(BIN)/python -m pip install --quiet -e ".[dev,local,pdf,mlflow,serve,ray]"
	touch $(CORE) $(FULL)

# The sources are compiled to byte code as installing a package does, also where the
# environment writes none (PYTHONDONTWRITEBYTECODE): else every command compiles them.
demo: $(CORE)
	$(BIN)/python -m compileall -q src
	cd examples/quickstart && ../../$(BIN)/ragjudge run eval.yaml

test: $(FULL)
	$(BIN)/python -m compileall -q src
	HF_HUB_OFFLINE=1 $(BIN)/python -m pytest -q

lint: $(FULL)
	$(BIN)/ruff check src tests benchmarks examples
	$(BIN)/ruff format --check src tests benchmarks examples
	$(BIN)/mypy

bench: $(FULL)
	@$(BIN)/python -m compileall -q src
	@for b in benchmarks/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
