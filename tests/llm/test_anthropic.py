"""Anthropic adapter: message conversion and replayed Messages API wire format."""

from __future__ import annotations

import json

import httpx
import pytest

from scigate.errors import BadInput
from scigate.llm import ModelError, get_model
from scigate.llm._capabilities import sdk_anthropic_version
from scigate.llm._types import REASONING_KEY

# The adapter (and the anthropic SDK, 3.6 s to import) is loaded by the tests, on one worker.
pytestmark = pytest.mark.same_worker

URL = "https://api.anthropic.com/v1/messages"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "run_python",
            "description": "Run Python code in the workspace.",
            "parameters": {"type": "object", "properties": {"code": {"type": "string"}}},
        },
    },
    {"type": "function", "function": {"name": "submit", "parameters": None}},
]
ROUND_TRIP = [
    {"role": "system", "content": "You are a careful scientist."},
    {"role": "user", "content": "Compute 2+2 and 3+3."},
    {
        "role": "assistant",
        "content": "Let me run both.",
        "tool_calls": [
            {
                "id": "toolu_01",
                "type": "function",
                "function": {"name": "run_python", "arguments": '{"code": "print(2+2)"}'},
            },
            {
                "id": "toolu_02",
                "type": "function",
                "function": {"name": "run_python", "arguments": {"code": "print(3+3)"}},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "toolu_01", "content": "4"},
    {"role": "tool", "tool_call_id": "toolu_02", "content": "6"},
    {"role": "user", "content": "Now submit."},
]
CONVERTED = [
    {"role": "user", "content": [{"type": "text", "text": "Compute 2+2 and 3+3."}]},
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me run both."},
            {
                "type": "tool_use",
                "id": "toolu_01",
                "name": "run_python",
                "input": {"code": "print(2+2)"},
            },
            {
                "type": "tool_use",
                "id": "toolu_02",
                "name": "run_python",
                "input": {"code": "print(3+3)"},
            },
        ],
    },
    {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01", "content": "4"},
            {"type": "tool_result", "tool_use_id": "toolu_02", "content": "6"},
            {"type": "text", "text": "Now submit."},
        ],
    },
]


def message(content, stop_reason="end_turn", **usage):
    """A Messages API response body, as the API sends it."""
    return {
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "type": "message",
        "role": "assistant",
        "model": "claude-opus-4-8",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {
            "input_tokens": 2095,
            "output_tokens": 503,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "service_tier": "standard",
            **usage,
        },
    }


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")


def test_tool_round_trip_conversion():
    from scigate.llm._anthropic import to_anthropic_messages

    system, converted = to_anthropic_messages(ROUND_TRIP)
    assert system == "You are a careful scientist."
    assert converted == CONVERTED


def test_conversion_of_parts_images_and_thinking():
    from scigate.llm._anthropic import to_anthropic_messages

    system, converted = to_anthropic_messages(
        [
            {"role": "system", "content": "A."},
            {"role": "developer", "content": [{"type": "text", "text": "B."}]},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is this?"},
                    {
                        "type": "image_url",
                        "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="},
                    },
                    {"type": "image_url", "image_url": {"url": "https://example.org/a.png"}},
                ],
            },
            {
                "role": "assistant",
                "content": "",
                REASONING_KEY: [{"type": "thinking", "thinking": "hmm", "signature": "sig"}],
                "tool_calls": [
                    {"id": "t1", "type": "function", "function": {"name": "f", "arguments": ""}}
                ],
            },
            {"role": "tool", "tool_call_id": "t1", "content": None},
        ]
    )
    assert system == "A.\n\nB."
    assert converted[0]["content"][1:] == [
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
        },
        {"type": "image", "source": {"type": "url", "url": "https://example.org/a.png"}},
    ]
    assert converted[1]["content"] == [
        {"type": "thinking", "thinking": "hmm", "signature": "sig"},
        {"type": "tool_use", "id": "t1", "name": "f", "input": {}},
    ]
    assert converted[2] == {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "t1", "content": ""}],
    }


def test_tool_schema_conversion():
    from scigate.llm._anthropic import to_anthropic_tools

    assert to_anthropic_tools(TOOLS) == [
        {
            "name": "run_python",
            "description": "Run Python code in the workspace.",
            "input_schema": {"type": "object", "properties": {"code": {"type": "string"}}},
        },
        {"name": "submit", "input_schema": {"type": "object", "properties": {}}},
    ]


async def test_request_and_response_of_a_tool_round_trip(api, key):
    from scigate.llm._anthropic import to_anthropic_tools

    route = api.post(URL).mock(
        return_value=httpx.Response(
            200,
            json=message(
                [
                    {"type": "text", "text": "Submitting "},
                    {"type": "text", "text": "now."},
                    {
                        "type": "tool_use",
                        "id": "toolu_03",
                        "name": "submit",
                        "input": {"answer": "4, 6"},
                    },
                ],
                stop_reason="tool_use",
                cache_read_input_tokens=1000,
            ),
        )
    )
    model = get_model("anthropic/claude-opus-4-8?temperature=0&reasoning_effort=high&seed=1")
    out = await model.generate(ROUND_TRIP, tools=TOOLS, tool_choice="required")

    request = route.calls.last.request
    assert request.headers["authorization"] == "Bearer sk-ant-test"
    body = json.loads(request.content)
    assert body["model"] == "claude-opus-4-8"
    assert body["max_tokens"] == 8192
    assert body["system"] == "You are a careful scientist."
    assert body["messages"] == CONVERTED
    assert body["tools"] == to_anthropic_tools(TOOLS)
    assert body["tool_choice"] == {"type": "any"}
    # Claude Opus 4.7 and later take no temperature (under any API version)
    assert "temperature" not in body
    assert request.headers["anthropic-version"] == sdk_anthropic_version()
    assert body["output_config"] == {"effort": "high"}
    assert "seed" not in body and "reasoning_effort" not in body

    assert out.text == "Submitting now."
    assert [(c.id, c.name, c.arguments) for c in out.tool_calls] == [
        ("toolu_03", "submit", {"answer": "4, 6"})
    ]
    assert out.stop_reason == "tool_use"
    assert out.usage.input_tokens == 3095
    assert out.usage.cached_input_tokens == 1000
    assert out.usage.output_tokens == 503
    assert out.cost == pytest.approx((2095 * 5.0 + 1000 * 0.5 + 503 * 25.0) / 1e6)
    assert out.message()["tool_calls"][0]["id"] == "toolu_03"


async def test_thinking_blocks_travel_back_with_the_assistant_turn(api, key):
    thinking = {"type": "thinking", "thinking": "Use the tool.", "signature": "EqQBCgIYAhIM"}
    route = api.post(URL).mock(
        side_effect=[
            httpx.Response(
                200,
                json=message(
                    [
                        thinking,
                        {"type": "tool_use", "id": "toolu_9", "name": "submit", "input": {}},
                    ],
                    stop_reason="tool_use",
                ),
            ),
            httpx.Response(200, json=message([{"type": "text", "text": "Done."}])),
        ]
    )
    model = get_model('anthropic/claude-opus-4-8?thinking={"type":"adaptive"}')
    first = await model.generate([{"role": "user", "content": "Go."}], tools=TOOLS)
    assert first.reasoning_blocks == [thinking]
    conversation = [
        {"role": "user", "content": "Go."},
        first.message(),
        {"role": "tool", "tool_call_id": "toolu_9", "content": "accepted"},
    ]
    second = await model.generate(conversation, tools=TOOLS)
    assert second.text == "Done."
    body = json.loads(route.calls.last.request.content)
    assert body["thinking"] == {"type": "adaptive"}
    assert body["messages"][1]["content"][0] == thinking


async def test_overloaded_529_then_success(api, key):
    route = api.post(URL).mock(
        side_effect=[
            httpx.Response(
                529,
                json={
                    "type": "error",
                    "error": {"type": "overloaded_error", "message": "Overloaded"},
                },
            ),
            httpx.Response(200, json=message([{"type": "text", "text": "Hi."}])),
        ]
    )
    out = await get_model("anthropic/claude-opus-4-8?retry_wait=0.01").generate(
        [{"role": "user", "content": "Hi"}], max_tokens=100
    )
    assert out.text == "Hi."
    assert route.call_count == 2
    assert json.loads(route.calls.last.request.content)["max_tokens"] == 100


async def test_invalid_request_is_not_retried(api, key):
    route = api.post(URL).mock(
        return_value=httpx.Response(
            400,
            json={
                "type": "error",
                "error": {"type": "invalid_request_error", "message": "messages: field required"},
            },
        )
    )
    with pytest.raises(ModelError, match=r"BadRequestError.*after 1 attempt"):
        await get_model("anthropic/claude-opus-4-8?retry_wait=0.01").generate(
            [{"role": "user", "content": "Hi"}]
        )
    assert route.call_count == 1


async def test_missing_key_is_bad_input(api):
    with pytest.raises(BadInput, match="ANTHROPIC_API_KEY is not set"):
        await get_model("anthropic/claude-opus-4-8").generate([{"role": "user", "content": "Hi"}])
