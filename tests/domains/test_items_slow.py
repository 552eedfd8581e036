"""Seed items and item 0023 run and reproduce their proposed answers (FEniCSx)."""

from __future__ import annotations

import json

import pytest

from scigate.domains import get_domain
from scigate.domains.fenicsx.templates import render
from scigate.domains.fenicsx.templates._runner import ScriptWorker

DOMAIN = get_domain("fenicsx")
ITEMS = DOMAIN.seed_dirs() + DOMAIN.example_dirs()


@pytest.mark.slow
@pytest.mark.parametrize("item", ITEMS, ids=[p.name for p in ITEMS])
def test_item_reproduces_proposed_answer(item, check):
    check(item)


@pytest.mark.slow
def test_item_0023_prints_option_b(check):
    (item,) = DOMAIN.example_dirs()
    assert check(item) == "0.060723"
    assert (item / "answer.txt").read_text().strip() == "B"


@pytest.mark.slow
def test_worker_runs_family_and_reports_failures():
    """The deformed_poisson family at item 0023's parameters gives the paper's answer."""
    (item,) = DOMAIN.example_dirs()
    params = json.loads((item / "meta.json").read_text())["params"]
    worker = ScriptWorker()
    try:
        result = worker.run(render("deformed_poisson", params))
        assert result.ok, result.error
        assert f"{result.value:.6f}" == "0.060723" == result.printed
        broken = worker.run("import numpy\nraise RuntimeError('boom')\n")
        assert not broken.ok and "boom" in broken.error
        again = worker.run("result = 1.5\nprint('1.5')\n")  # worker survives a failure
        assert again.ok and again.value == 1.5 and again.printed == "1.5"
    finally:
        worker.close()
