"""Python callables used as models in the model-layer tests."""

from __future__ import annotations

import asyncio
import json
import time

STATE = {"in_flight": 0, "max_in_flight": 0, "calls": []}


def echo(messages, tools=None, **settings):
    """Replies with the last user message."""
    STATE["calls"].append({"messages": messages, "tools": tools, "settings": settings})
    return f"echo: {messages[-1]['content']}"


def call_tool(messages, tools=None, **settings):
    """Calls the first offered tool twice, or answers once a tool result is present."""
    if messages[-1]["role"] == "tool":
        return {"content": f"result was {messages[-1]['content']}", "tool_calls": []}
    name = tools[0]["function"]["name"]
    return {
        "content": None,
        "tool_calls": [
            {"name": name, "arguments": {"x": 1}},
            {"name": name, "arguments": '{"x": 2}'},
        ],
    }


def with_usage(messages, tools=None, **settings):
    return {"content": "ok", "usage": {"input_tokens": 11, "output_tokens": 7}}


async def async_echo(messages, tools=None, **settings):
    await asyncio.sleep(0)
    return {"content": f"async {settings.get('temperature')}"}


async def slow(messages, tools=None, delay=0.05, **settings):
    """Counts calls in flight at once."""
    STATE["in_flight"] += 1
    STATE["max_in_flight"] = max(STATE["max_in_flight"], STATE["in_flight"])
    try:
        await asyncio.sleep(delay)
    finally:
        STATE["in_flight"] -= 1
    return "done"


def sleepy_sync(messages, tools=None, delay=0.05, **settings):
    time.sleep(delay)
    return "woke"


def fails(messages, tools=None, **settings):
    raise ValueError("policy exploded")


def returns_number(messages, tools=None, **settings):
    return 42


def _asked_again(messages) -> bool:
    return any(
        m["role"] == "user" and "could not be used" in (m.get("content") or "") for m in messages
    )


def malformed_then_valid(messages, tools=None, **settings):
    """Broken JSON first; valid JSON (in prose and a fence) once told what was wrong."""
    if _asked_again(messages):
        answer = {"name": "benzene", "atoms": 12}
        return f"Sorry. Here it is:\n```json\n{json.dumps(answer)}\n```\nHope that helps."
    return '{"name": "benzene", "atoms": 12'


def always_malformed(messages, tools=None, **settings):
    return "I think the answer is twelve atoms."


def wrong_type_then_valid(messages, tools=None, **settings):
    if _asked_again(messages):
        return '{"name": "benzene", "atoms": 12}'
    return '{"name": "benzene", "atoms": "many"}'
