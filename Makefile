# `make test` and `make demo` do all the set-up on a fresh clone: create .venv with
# Python 3.12 when it is missing, install the project with every extra, then run.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PYTEST_ARGS ?=
# Tests wait on sandboxes, subprocesses and servers more than they compute: four workers on
# two cores; a file's tests stay on one worker (module fixtures, warm servers) and the
# Ray files share one (tests/conftest.py).
PYTEST_WORKERS ?= 4
# Machines that set PYTHONDONTWRITEBYTECODE make every test worker rewrite and compile every
# test module, and every `python -m scigate` child compile scigate again (collection 16 s
# a worker instead of 9 s): the suite writes bytecode, as a developer's machine does.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: test demo docs lint format bench clean venv

venv: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(PY) || $$(sh scripts/find-python.sh) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[all,dev]'
	@touch $(STAMP)

test: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks scripts
	$(VENV)/bin/ruff format --check src tests benchmarks scripts
	$(VENV)/bin/lint-imports --no-cache
	$(VENV)/bin/mypy src
	$(MAKE) --no-print-directory docs
	$(VENV)/bin/pytest -n $(PYTEST_WORKERS) --dist loadgroup --durations=20 $(PYTEST_ARGS)

# The docs site: reference pages generated from the code, then a strict build (a broken
# link or a page missing from the navigation fails it).
docs: $(STAMP)
	$(PY) scripts/gen_reference.py --out docs/reference
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet

demo: $(STAMP)
	$(VENV)/bin/scigate demo --out demo-output

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks scripts
	$(VENV)/bin/mypy src

format: $(STAMP)
	$(VENV)/bin/ruff format src tests benchmarks
	$(VENV)/bin/ruff check --fix src tests benchmarks

bench: $(STAMP)
	for b in benchmarks/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) demo-output .pytest_cache .ruff_cache .mypy_cache build/site docs/reference
