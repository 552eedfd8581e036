# `make test` and `make demo` do all the set-up on a fresh clone: create .venv with
# Python 3.12 when it is missing, install the project with every extra, then run.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PYTEST_ARGS ?=

.PHONY: test demo lint format bench clean venv

venv: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(PY) || $$(sh scripts/find-python.sh) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[all,dev]'
	@touch $(STAMP)

test: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/ruff format --check src tests benchmarks
	$(VENV)/bin/pytest $(PYTEST_ARGS)

demo: $(STAMP)
	$(VENV)/bin/scigate demo --out demo-output

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks

format: $(STAMP)
	$(VENV)/bin/ruff format src tests benchmarks
	$(VENV)/bin/ruff check --fix src tests benchmarks

bench: $(STAMP)
	for b in benchmarks/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) demo-output .pytest_cache .ruff_cache
