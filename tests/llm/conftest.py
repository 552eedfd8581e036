"""Offline fixtures for the model layer (the respx `api` router is in tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

MODELS = Path(__file__).parent / "models" / "policies.py"


@pytest.fixture
def policy():
    """`python/` spec of a function in tests/llm/models/policies.py."""

    def spec(function: str, query: str = "") -> str:
        return f"python/{MODELS}:{function}" + (f"?{query}" if query else "")

    return spec


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for name in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_BASE_URL",
        "OPENAI_COMPATIBLE_API_KEY",
        "OPENAI_COMPATIBLE_BASE_URL",
        "SCIGATE_PRICES",
    ):
        monkeypatch.delenv(name, raising=False)
