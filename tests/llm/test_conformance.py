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
from scigate.llm._capabilities import capabilities, sdk_anthropic_version

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


async def test_without_the_table_the_server_refuses_and_the_layer_adapts_once(server):
    # The server is a real check: with the capability overridden, temperature goes out and
    # is refused; the layer drops it, retries once and records the provider's message.
    records: list[ModelCallRecord] = []
    model = get_model(
        f"openai/gpt-5.4-mini?base_url={server.url}&max_retries=0&accepts_temperature=true",
        recorder=records.append,
    )
    out = await model.generate(USER, temperature=0.2)
    assert out.text == "4"
    assert len(server.rejected) == 1 and "temperature" in server.rejected[0]
    assert "temperature" in server.bodies[0] and "temperature" not in server.bodies[1]
    (change,) = records[-1].settings["_adapted"]
    assert change.startswith("dropped temperature=0.2: the provider refused it")
    assert "Only the default (1) value is supported" in change
    assert records[-1].error is None and records[-1].attempts == 2


@pytest.fixture(autouse=True)
def _forget():
    from scigate.llm._model import forget_adaptations

    forget_adaptations()
    yield
    forget_adaptations()


@pytest.mark.parametrize("wording", ["openai", "anthropic", "deprecated", "litellm", "azure"])
@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_a_parameter_the_table_does_not_know_is_dropped_on_refusal(
    monkeypatch, wire, wording
):
    # A gateway (or a new model release) refuses `top_k`, which no rule of the table knows
    # about: the call succeeds on the retry, records the adaptation with the provider's
    # message, and the next call to the same endpoint and model leaves top_k out at once.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    s = WireServer({"four": _four}, refuse={"top_k": wording})
    try:
        spec = (
            f"openai-compatible/qwen3-8b?base_url={s.openai_url('four')}"
            if wire == "openai"
            else f"anthropic/claude-3-5-haiku-latest?anthropic_version=2023-06-01"
            f"&base_url={s.anthropic_url('four')}"
        )
        records: list[ModelCallRecord] = []
        model = get_model(f"{spec}&max_retries=0", recorder=records.append)
        out = await model.generate(USER, top_k=5)
        assert out.text == "4"
        assert len(s.rejected) == 1 and [("top_k" in b) for b in s.bodies] == [True, False]
        (change,) = records[-1].settings["_adapted"]
        assert change.startswith("dropped top_k=5: the provider refused it")
        assert s.rejected[0] in change  # the provider's own words
        # remembered for this endpoint and model: no second refusal
        await model.generate(USER, top_k=7)
        assert len(s.rejected) == 1 and "top_k" not in s.bodies[-1]
        assert "refused it earlier in this run" in records[-1].settings["_adapted"][0]
        # ...but not for another model on the same server
        other = get_model(spec.replace("qwen3-8b", "llama-3.3").replace("3-5-haiku", "3-haiku"))
        await other.generate(USER, top_k=7)
        assert len(s.rejected) == 2
    finally:
        s.close()


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_a_second_refusal_is_an_error_never_a_loop(monkeypatch, wire):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    second = "seed" if wire == "openai" else "metadata"
    s = WireServer({"four": _four}, refuse={"top_k": "azure", second: "openai"})
    try:
        spec = (
            f"openai-compatible/qwen3-8b?base_url={s.openai_url('four')}"
            if wire == "openai"
            else f"anthropic/claude-3-5-haiku-latest?anthropic_version=2023-06-01"
            f"&base_url={s.anthropic_url('four')}"
        )
        records: list[ModelCallRecord] = []
        model = get_model(f"{spec}&max_retries=3&retry_wait=0", recorder=records.append)
        value = 1 if wire == "openai" else {"user_id": "u"}
        with pytest.raises(ModelError, match="refused again after adapting the request once"):
            await model.generate(USER, top_k=5, **{second: value})
        assert len(s.bodies) == 2  # one retry, no loop, no transient-error retries
        assert records[-1].error and "_adapted" in records[-1].settings
    finally:
        s.close()


async def test_too_many_tools_for_a_gateway_are_bounded_on_refusal(monkeypatch):
    # openai-compatible has no known tool limit; a gateway enforcing OpenAI's 128 says so
    s = _server()
    try:
        records: list[ModelCallRecord] = []
        model = get_model(
            f"openai-compatible/gpt-4.1?base_url={s.url}&max_retries=0", recorder=records.append
        )
        # the table knows gpt-4.1's limit only under openai/ (the OpenAI API's); here the
        # server's own "array too long" refusal teaches it
        out = await model.generate(USER, tools=[_tool(i) for i in range(140)])
        assert out.text == "4"
        assert len(s.rejected) == 1 and len(s.bodies[-1]["tools"]) == 128
        assert "offered 128 of 140 tools" in records[-1].settings["_adapted"][0]
    finally:
        s.close()


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
        # waiting out the hint would take an hour: anything near it fails this by far
        assert time.perf_counter() - start < 60
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


async def test_anthropic_base_url_from_the_environment_and_the_version_header(monkeypatch):
    # ANTHROPIC_BASE_URL is the server when the spec has no base_url; the version header is
    # the SDK's unless ?anthropic_version= pins another, and the rules follow it
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    s = WireServer({"four": _four})
    try:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", s.anthropic_url("four"))
        records: list[ModelCallRecord] = []
        model = get_model("anthropic/claude-sonnet-4-5?max_retries=0", recorder=records.append)
        assert model.endpoint() == ("anthropic", s.anthropic_url("four"))
        assert (await model.generate(USER, temperature=0.3)).text == "4"
        pinned = get_model("anthropic/claude-sonnet-4-5?anthropic_version=2023-06-01")
        assert (await pinned.generate(USER, temperature=0.3)).text == "4"
        assert s.rejected == []
        assert s.versions == [sdk_anthropic_version(), "2023-06-01"]
        assert "temperature" not in s.bodies[0] and s.bodies[1]["temperature"] == 0.3
        assert "removed sampling parameters" in records[0].settings["_adapted"][0]
    finally:
        s.close()
