# Every target creates .venv on first use, so a fresh machine needs only Python and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CORE := $(VENV)/.installed-core
FULL := $(VENV)/.installed-full
# A second environment with the core install only (plus the serve extra, as make demo,
# and pytest to drive the smoke tests): every command and README snippet must work there.
CORE_VENV := .venv-core
CORE_ONLY := $(CORE_VENV)/.installed
SMOKE_CORE := RAGJUDGE_CORE_ENV=1 HF_HUB_OFFLINE=1 $(CORE_VENV)/bin/python -m pytest -q -p no:cacheprovider -m smoke tests/smoke tests/test_pytest_plugin.py tests/cli/test_newcomer_walk.py
# CPU build of torch for the `local` extra; pinned so pip never pulls CUDA packages.
TORCH := torch==2.13.0
# The suite in two processes, a test file to each at a time (the machine has 2 cores)
PYTEST_WORKERS ?= -n 2 --dist loadfile

.PHONY: demo test smoke-core lint bench docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# demo: the core install (no torch) and the serve extra, so examples/quickstart/serve.py runs
$(CORE): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[serve]"
	touch $(CORE)

# tests, lint, benchmarks and the documentation site: dev tools, the docs extra and the
# local-embedding, pdf, mlflow and ray extras
$(FULL): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet "$(TORCH)"
	$(BIN)/python -m pip install --quiet -e ".[dev,docs,local,pdf,mlflow,serve,ray]"
	touch $(CORE) $(FULL)

# Made afresh when pyproject.toml changes, so a dependency moved out of the core install
# is gone from it too.
$(CORE_ONLY): pyproject.toml
	rm -rf $(CORE_VENV)
	$(PYTHON) -m venv $(CORE_VENV)
	$(CORE_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(CORE_VENV)/bin/python -m pip install --quiet -e ".[serve]" "pytest>=8.2" "pytest-asyncio>=0.24"
	touch $(CORE_ONLY)

# The sources are compiled to byte code as installing a package does, also where the
# environment writes none (PYTHONDONTWRITEBYTECODE): else every command compiles them.
demo: $(CORE)
	$(BIN)/python -m compileall -q src
	cd examples/quickstart && ../../$(BIN)/ragjudge run eval.yaml

# The site is built with --strict: a broken link, a missing page or an API reference
# that no longer resolves fails the build. It writes the command-line reference and
# eval.schema.json from the code, so they cannot drift.
# (--quiet would hide the warnings from --strict too, so it is not used.)
MKDOCS := NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

test: $(FULL) $(CORE_ONLY)
	$(BIN)/python -m compileall -q src
	HF_HUB_OFFLINE=1 $(BIN)/python -m pytest -q $(PYTEST_WORKERS)
	@echo "== the smoke tests on the core install ($(CORE_VENV))"
	$(SMOKE_CORE)
	$(MKDOCS)

# the smoke tests alone, on the core install
smoke-core: $(CORE_ONLY)
	$(SMOKE_CORE)

# docs: the site in site/ (open site/index.html, or `.venv/bin/mkdocs serve` while writing)
docs: $(FULL)
	$(MKDOCS)

lint: $(FULL)
	$(BIN)/ruff check src tests benchmarks examples
	$(BIN)/ruff format --check src tests benchmarks examples
	$(BIN)/mypy

bench: $(FULL)
	@$(BIN)/python -m compileall -q src
	@for b in benchmarks/[!_]*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) $(CORE_VENV) site .pytest_cache .mypy_cache .ruff_cache
