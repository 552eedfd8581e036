"""The model layer against the loopback server of `_wire.py`, which enforces OpenAI's
documented request rules (reasoning models refuse temperature/top_p and max_tokens; at
most 128 function tools; tool names match ^[a-zA-Z0-9_-]{1,64}$) with OpenAI's error
shape. Requests go through the official SDK; a test fails if any request is rejected.
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import pytest

from scigate.errors import BadInput
from scigate.llm import ModelCallRecord, ModelError, get_model
from scigate.llm._capabilities import capabilities

_spec = importlib.util.spec_from_file_location(
    "wire_conformance", Path(__file__).with_name("_wire.py")
)
_wire = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_wire)
WireServer = _wire.WireServer

USER = [{"role": "user", "content": "2+2?"}]


def _tool(i: int) -> dict:
    return {
        "type": "function",
        "function": {"name": f"tool_{i}", "parameters": {"type": "object", "properties": {}}},
    }


def _four(messages, tools=None):
    return "4"


def _server(**kwargs):
    server = WireServer({"four": _four}, **kwargs)
    server.url = server.openai_url("four")
    return server


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    s = _server()
    yield s
    s.close()


async def test_reasoning_model_requests_are_adapted_and_never_rejected(server):
    records: list[ModelCallRecord] = []
    model = get_model(
        f"openai/gpt-5.4-mini?base_url={server.url}&max_retries=0", recorder=records.append
    )
    tools = [_tool(i) for i in range(140)]
    out = await model.generate(USER, tools=tools, temperature=0.2, top_p=0.9, max_tokens=50)
    assert out.text == "4"
    assert server.rejected == []
    sent = server.bodies[-1]
    assert "temperature" not in sent and "top_p" not in sent
    assert sent["max_completion_tokens"] == 50 and len(sent["tools"]) == 128
    changes = records[-1].settings["_adapted"]
    assert any("temperature" in c for c in changes) and any("128 of 140" in c for c in changes)


async def test_without_adaptation_the_server_rejects(server):
    # The server is a real check: the same request with the capability overridden fails.
    model = get_model(
        f"openai/gpt-5.4-mini?base_url={server.url}&max_retries=0&accepts_temperature=true"
    )
    with pytest.raises(ModelError, match="temperature"):
        await model.generate(USER, temperature=0.2)
    assert len(server.rejected) == 1


async def test_chat_model_keeps_temperature(server):
    await get_model(f"openai/gpt-4.1?base_url={server.url}").generate(USER, temperature=0.3)
    assert server.bodies[-1]["temperature"] == 0.3


async def test_bad_tool_name_is_bad_input_before_sending(server):
    bad = {"type": "function", "function": {"name": "has space", "parameters": {}}}
    with pytest.raises(BadInput, match="has space"):
        await get_model(f"openai/gpt-5.4-mini?base_url={server.url}").generate(USER, tools=[bad])
    assert server.bodies == []


def test_spec_overrides_capabilities():
    caps = capabilities("openai", "gpt-5.4-mini", {"max_tools": 20})
    assert caps.max_tools == 20 and not caps.accepts_temperature
    assert capabilities("openai", "gpt-4o", {}).accepts_temperature
    with pytest.raises(BadInput):
        capabilities("openai", "gpt-5", {"max_tools": "many"})


async def test_retry_after_beyond_the_timeout_fails_at_once(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    s = _server(retry_after="3600")
    try:
        model = get_model(f"openai/gpt-5.4-mini?base_url={s.url}&timeout=2&retry_wait_max=3600")
        start = time.perf_counter()
        with pytest.raises(ModelError, match="retry after 3600"):
            await model.generate(USER)
        assert time.perf_counter() - start < 2
        assert len(s.bodies) == 1
    finally:
        s.close()


def test_check_spec_reports_configuration_errors_up_front(monkeypatch, tmp_path):
    from scigate.llm import check_spec

    with pytest.raises(BadInput, match="OPENAI_API_KEY"):
        check_spec("openai/gpt-5.4-mini")
    with pytest.raises(BadInput, match="ANTHROPIC_API_KEY"):
        check_spec("anthropic/claude-sonnet-4-5")
    with pytest.raises(BadInput):
        check_spec(f"python/{tmp_path}/missing.py:f")
    with pytest.raises(BadInput):
        check_spec("openai-compatible/qwen")  # no server address
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert check_spec("openai/gpt-5.4-mini").model == "gpt-5.4-mini"
