"""OpenAI and openai-compatible adapters against replayed Chat Completions wire format."""

from __future__ import annotations

import json
import time

import httpx
import pytest

from scigate.errors import BadInput
from scigate.llm import ModelCallRecord, ModelError, estimate_cost, get_model
from scigate.llm._types import REASONING_KEY

URL = "https://api.openai.com/v1/chat/completions"
USER = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "2+2?"}]
FAST = "retry_wait=0.01&retry_wait_max=0.05"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "run_python",
            "description": "Run Python code in the workspace.",
            "parameters": {
                "type": "object",
                "properties": {"code": {"type": "string"}},
                "required": ["code"],
            },
        },
    }
]


def completion(content="4", tool_calls=None, finish_reason="stop", model="gpt-5.5-2026-04-23"):
    """A Chat Completions response body, as the API sends it."""
    return {
        "id": "chatcmpl-CxAbc123",
        "object": "chat.completion",
        "created": 1767225600,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": content,
                    "refusal": None,
                    "annotations": [],
                    **({"tool_calls": tool_calls} if tool_calls else {}),
                },
                "logprobs": None,
                "finish_reason": finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": 1200,
            "completion_tokens": 300,
            "total_tokens": 1500,
            "prompt_tokens_details": {"cached_tokens": 1000, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 256,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        },
        "service_tier": "default",
        "system_fingerprint": None,
    }


def rate_limited(**headers):
    return httpx.Response(
        429,
        headers=headers,
        json={
            "error": {
                "message": "Rate limit reached for gpt-5.5 on tokens per min (TPM).",
                "type": "tokens",
                "param": None,
                "code": "rate_limit_exceeded",
            }
        },
    )


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-123")


async def test_text_answer_usage_and_request(api, key):
    route = api.post(URL).mock(return_value=httpx.Response(200, json=completion()))
    records: list[ModelCallRecord] = []
    model = get_model(
        "openai/gpt-5.5?reasoning_effort=medium&max_tokens=2000&timeout=30", recorder=records.append
    )
    out = await model.generate(USER, seed=3)
    assert out.text == "4"
    assert out.stop_reason == "stop"
    assert out.model == "gpt-5.5-2026-04-23"
    assert out.usage.input_tokens == 1200
    assert out.usage.output_tokens == 300
    assert out.usage.reasoning_tokens == 256
    assert out.usage.cached_input_tokens == 1000
    assert out.usage.estimated is False
    assert out.cost == pytest.approx((200 * 5.0 + 1000 * 0.5 + 300 * 30.0) / 1e6)
    assert out.raw["id"] == "chatcmpl-CxAbc123"

    request = route.calls.last.request
    assert request.headers["authorization"] == "Bearer sk-test-123"
    body = json.loads(request.content)
    assert body == {
        "model": "gpt-5.5",
        "messages": USER,
        "reasoning_effort": "medium",
        "max_completion_tokens": 2000,
        "seed": 3,
    }
    assert route.call_count == 1
    assert records[0].settings == {
        "reasoning_effort": "medium",
        "max_completion_tokens": 2000,
        "seed": 3,
        "_adapted": ["renamed max_tokens=2000 to max_completion_tokens"],
    }
    assert records[0].response["usage"]["reasoning_tokens"] == 256
    assert records[0].cost == out.cost


async def test_tool_calls_are_parsed_and_tools_sent(api, key):
    calls = [
        {
            "id": "call_Ab12",
            "type": "function",
            "function": {"name": "run_python", "arguments": '{"code": "print(2+2)"}'},
        },
        {
            "id": "call_Cd34",
            "type": "function",
            "function": {"name": "run_python", "arguments": '{"code": "print(1'},
        },
    ]
    route = api.post(URL).mock(
        return_value=httpx.Response(
            200, json=completion(content=None, tool_calls=calls, finish_reason="tool_calls")
        )
    )
    out = await get_model("openai/gpt-5.5").generate(USER, tools=TOOLS, tool_choice="auto")
    assert out.text is None
    assert out.stop_reason == "tool_calls"
    assert [(c.id, c.name, c.arguments) for c in out.tool_calls] == [
        ("call_Ab12", "run_python", {"code": "print(2+2)"}),
        ("call_Cd34", "run_python", {"_raw": '{"code": "print(1'}),
    ]
    body = json.loads(route.calls.last.request.content)
    assert body["tools"] == TOOLS
    assert body["tool_choice"] == "auto"


async def test_conversation_with_tool_results_is_sent_as_chat_format(api, key):
    route = api.post(URL).mock(return_value=httpx.Response(200, json=completion()))
    messages = [
        *USER,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "f", "arguments": {"a": 1}},
                }
            ],
            REASONING_KEY: [{"type": "thinking", "thinking": "...", "signature": "x"}],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "4"},
    ]
    await get_model("openai/gpt-5.5").generate(messages)
    sent = json.loads(route.calls.last.request.content)["messages"]
    assert REASONING_KEY not in sent[2]
    assert sent[2]["tool_calls"][0]["function"]["arguments"] == '{"a": 1}'
    assert sent[3] == {"role": "tool", "tool_call_id": "call_1", "content": "4"}


async def test_429_then_success_retries_once_with_short_backoff(api, key, monkeypatch):
    from scigate.llm._model import Model

    waits: list[float] = []  # the backoffs the retry policy chose, read off its own hook
    chosen = Model._wait

    def recording(self, layer):
        wait = chosen(self, layer)
        return lambda state: waits.append(wait(state)) or waits[-1]

    monkeypatch.setattr(Model, "_wait", recording)
    route = api.post(URL).mock(side_effect=[rate_limited(), httpx.Response(200, json=completion())])
    records: list[ModelCallRecord] = []
    model = get_model(f"openai/gpt-5.5?{FAST}", recorder=records.append)
    out = await model.generate(USER)
    assert len(waits) == 1 and waits[0] <= 0.05  # the spec's backoff, not the default 1-60 s
    assert out.text == "4"
    assert route.call_count == 2
    assert len(records) == 1 and records[0].attempts == 2 and records[0].error is None


async def test_retry_after_header_is_honoured_up_to_the_cap(api, key):
    route = api.post(URL).mock(
        side_effect=[
            rate_limited(**{"retry-after-ms": "150"}),
            httpx.Response(200, json=completion()),
        ]
    )
    start = time.perf_counter()
    await get_model("openai/gpt-5.5?retry_wait=0.001&retry_wait_max=1").generate(USER)
    assert time.perf_counter() - start >= 0.15
    assert route.call_count == 2


async def test_500_then_success(api, key):
    route = api.post(URL).mock(
        side_effect=[
            httpx.Response(
                500, json={"error": {"message": "The server had an error", "type": "server_error"}}
            ),
            httpx.Response(200, json=completion()),
        ]
    )
    out = await get_model(f"openai/gpt-5.5?{FAST}").generate(USER)
    assert out.text == "4"
    assert route.call_count == 2


async def test_connection_error_then_success(api, key):
    route = api.post(URL).mock(
        side_effect=[
            httpx.ConnectError("connection refused"),
            httpx.Response(200, json=completion()),
        ]
    )
    assert (await get_model(f"openai/gpt-5.5?{FAST}").generate(USER)).text == "4"
    assert route.call_count == 2


async def test_persistent_503_gives_up_after_max_retries(api, key):
    route = api.post(URL).mock(
        return_value=httpx.Response(
            503, json={"error": {"message": "overloaded", "type": "server_error"}}
        )
    )
    records: list[ModelCallRecord] = []
    model = get_model(f"openai/gpt-5.5?{FAST}&max_retries=2", recorder=records.append)
    with pytest.raises(ModelError, match=r"InternalServerError.*after 3 attempts") as info:
        await model.generate(USER)
    assert route.call_count == 3
    assert info.value.attempts == 3
    assert records[0].error == str(info.value) and records[0].attempts == 3


async def test_400_is_not_retried(api, key):
    route = api.post(URL).mock(
        return_value=httpx.Response(
            400,
            json={
                "error": {
                    "message": "Unsupported value: 'temperature' does not support 0.2 with this model.",
                    "type": "invalid_request_error",
                    "param": "temperature",
                    "code": "unsupported_value",
                }
            },
        )
    )
    with pytest.raises(ModelError, match=r"BadRequestError.*after 1 attempt\)"):
        await get_model(f"openai/gpt-5.5?{FAST}").generate(USER, temperature=0.2)
    assert route.call_count == 1


async def test_openai_compatible_server(api, monkeypatch):
    route = api.post("http://127.0.0.1:8000/v1/chat/completions").mock(
        return_value=httpx.Response(200, json=completion(model="gpt-4o"))
    )
    model = get_model("vllm/gpt-4o?max_tokens=64&top_k=20")
    out = await model.generate(USER)
    request = route.calls.last.request
    assert request.headers["authorization"] == "Bearer not-needed"
    body = json.loads(request.content)
    assert body["max_tokens"] == 64  # kept as is for compatible servers
    assert body["top_k"] == 20  # unknown to the SDK: sent in the body all the same
    # A local server is not billed at OpenAI's prices, whatever the model is called.
    assert out.cost is None
    assert estimate_cost("openai/gpt-4o", out.usage) is not None

    monkeypatch.setenv("LOCAL_KEY", "secret-local")
    await get_model("vllm/gpt-4o?api_key_env=LOCAL_KEY").generate(USER)
    assert route.calls.last.request.headers["authorization"] == "Bearer secret-local"


async def test_openai_base_url_from_spec(api, key):
    route = api.post("https://proxy.example.org/v1/chat/completions").mock(
        return_value=httpx.Response(200, json=completion())
    )
    await get_model("openai/gpt-5.5?base_url=https://proxy.example.org/v1").generate(USER)
    assert route.call_count == 1


async def test_missing_key_is_bad_input_naming_the_variable(api):
    route = api.post(URL)
    with pytest.raises(BadInput, match="OPENAI_API_KEY is not set") as info:
        await get_model("openai/gpt-5.5").generate(USER)
    assert "\n" not in str(info.value)
    assert route.call_count == 0
    with pytest.raises(BadInput, match=r"MY_KEY .* is not set"):
        await get_model("openai/gpt-5.5?api_key_env=MY_KEY").generate(USER)


async def test_empty_choices_is_a_model_error(api, key):
    body = completion()
    body["choices"] = []
    api.post(URL).mock(return_value=httpx.Response(200, json=body))
    with pytest.raises(ModelError, match="no choices"):
        await get_model("openai/gpt-5.5").generate(USER)
