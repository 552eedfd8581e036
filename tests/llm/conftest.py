"""Offline fixtures for the model layer.

The openai and anthropic SDKs send through httpx2/httpcore2, which respx does not patch
out of the box; `HTTPCore2Mocker` teaches respx to intercept httpcore2 connection pools
the way it intercepts httpcore, so routes replay real wire formats to the real SDKs.
"""

from __future__ import annotations

from pathlib import Path

import httpcore2
import pytest
import respx
from respx.mocks import HTTPCoreMocker, Mocker

MODELS = Path(__file__).parent / "models" / "policies.py"

if "httpcore2" not in Mocker.registry:

    class HTTPCore2Mocker(HTTPCoreMocker):
        name = "httpcore2"
        targets = [  # noqa: RUF012 - respx's class attribute
            "httpcore2._async.connection.AsyncHTTPConnection",
            "httpcore2._async.connection_pool.AsyncConnectionPool",
            "httpcore2._async.http_proxy.AsyncHTTPProxy",
        ]

        @classmethod
        def from_sync_httpx_response(cls, httpx_response, target, **kwargs):
            return httpcore2.Response(
                status=httpx_response.status_code,
                headers=httpx_response.headers.raw,
                content=httpx_response.stream,
                extensions=httpx_response.extensions,
            )


@pytest.fixture
def api():
    """A respx router that intercepts the SDKs' requests; anything unrouted fails."""
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        yield router


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
