"""The released inspect task grades with the project's typed scorer when scigate is there."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

# find_spec, not importorskip: importing inspect_ai (with the openai and anthropic SDKs it
# loads) at collection cost every xdist worker 6 s, most of which never run these tests
pytestmark = [
    pytest.mark.skipif(importlib.util.find_spec("inspect_ai") is None, reason="no inspect_ai"),
    pytest.mark.same_worker,
]
TEMPLATE = Path(__file__).parents[2] / "src/scigate/gate/templates/toolgate_tools_task.py"
OPTIONS = {"A": "2.858", "B": "0.285714", "C": "0.428571", "D": "0.571429"}


def _module():
    spec = importlib.util.spec_from_file_location("released_tools_task", TEMPLATE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("reply", "target", "correct"),
    [
        ("C (2.858)", "C", False),  # the letter C beside option A's value
        ("Answer: C", "C", True),
        ("0.428571", "C", True),  # a value alone maps to its option
        ("A or C", "C", False),
    ],
)
def test_the_release_scorer_uses_the_typed_rule(reply: str, target: str, correct: bool) -> None:
    verdict = _module().strict_verdict(reply, target, {"question": "x", "options": OPTIONS})
    assert verdict is not None and verdict[0] is correct, verdict
