from __future__ import annotations

from pathlib import Path

import pytest

from scigate.agents import Task, library_tools
from scigate.tools import make_embedder

MODELS = Path(__file__).parent / "models" / "scripted.py"


def spec(fn: str) -> str:
    return f"python/{MODELS}:{fn}"


@pytest.fixture(scope="session")
def tools():
    found = library_tools()
    for name in ("SMILESToWeight", "SMILESToInChI", "InChIToInChIKey", "GetHeavyAtomsNum"):
        assert name in found, f"tool library lacks {name}"
    return found


@pytest.fixture(scope="session")
def embedder():
    return make_embedder("builtin")


@pytest.fixture
def model():
    from scigate.llm import get_model

    return get_model(spec("policy"))


@pytest.fixture
def mw_task() -> Task:
    return Task(
        question="What is the molecular weight of CCO?",
        parameter="CCO",
        tool_path=["SMILESToWeight"],
        answer="46.07",
        level=1,
        domain="chemistry",
    )
