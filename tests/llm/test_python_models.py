"""python/ callables as models: return forms, settings, recording, retries, concurrency."""

from __future__ import annotations

import asyncio

import pytest

from scigate.errors import BadInput
from scigate.llm import ModelCallRecord, ModelError, get_model
from scigate.llm._types import REASONING_KEY

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "run_python",
            "description": "Run code",
            "parameters": {"type": "object", "properties": {"code": {"type": "string"}}},
        },
    }
]
USER = [{"role": "user", "content": "hello there"}]


@pytest.fixture
def state(policy):
    state = get_model(policy("echo")).function.__globals__["STATE"]
    state.update(in_flight=0, max_in_flight=0, calls=[])
    return state


async def test_str_return_becomes_text_with_estimated_usage(policy):
    model = get_model(policy("echo"))
    out = await model.generate(USER)
    assert out.text == "echo: hello there"
    assert out.tool_calls == []
    assert out.stop_reason == "stop"
    assert out.model.endswith("policies.py:echo")
    assert out.usage.estimated is True
    assert out.usage.output_tokens == len("echo: hello there") // 4 + 1
    assert out.usage.input_tokens > 0
    assert out.raw["usage_estimated"] is True
    assert out.cost is None  # no price for a python model, and never 0
    assert out.latency > 0


async def test_tool_calls_get_ids_and_round_trip(policy):
    model = get_model(policy("call_tool"))
    out = await model.generate(USER, tools=TOOLS)
    assert [c.name for c in out.tool_calls] == ["run_python", "run_python"]
    assert [c.arguments for c in out.tool_calls] == [{"x": 1}, {"x": 2}]
    ids = [c.id for c in out.tool_calls]
    assert all(i.startswith("call_") for i in ids) and len(set(ids)) == 2
    assert out.stop_reason == "tool_calls"
    assert out.text is None
    message = out.message()
    assert message["tool_calls"][0]["function"] == {"name": "run_python", "arguments": '{"x": 1}'}
    follow = [*USER, message, {"role": "tool", "tool_call_id": ids[0], "content": "42"}]
    final = await model.generate(follow, tools=TOOLS)
    assert final.text == "result was 42"


async def test_usage_from_the_dict_is_not_estimated(policy):
    out = await get_model(policy("with_usage")).generate(USER)
    assert (out.usage.input_tokens, out.usage.output_tokens, out.usage.estimated) == (11, 7, False)


async def test_async_function_and_settings_override(policy):
    model = get_model(policy("async_echo", "temperature=0.3"))
    assert (await model.generate(USER)).text == "async 0.3"
    assert (await model.generate(USER, temperature=0.9)).text == "async 0.9"
    # None removes a spec setting
    assert (await model.generate(USER, temperature=None)).text == "async None"


async def test_settings_and_tools_are_passed_but_layer_settings_are_not(policy, state):
    model = get_model(policy("echo", "seed=5&temperature=0&timeout=30&max_retries=1&concurrency=2"))
    await model.generate(USER, tools=TOOLS, top_p=0.5)
    call = state["calls"][-1]
    assert call["settings"] == {"seed": 5, "temperature": 0, "top_p": 0.5}
    assert call["tools"] == TOOLS
    assert call["messages"] == USER


async def test_callable_gets_copies_without_private_keys(policy, state):
    messages = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "b", REASONING_KEY: [{"type": "thinking"}]},
        {"role": "user", "content": "c"},
    ]
    await get_model(policy("echo")).generate(messages)
    seen = state["calls"][-1]["messages"]
    assert REASONING_KEY not in seen[1]
    assert REASONING_KEY in messages[1]  # the caller's conversation is untouched
    seen.append({"role": "user", "content": "mutated"})
    assert len(messages) == 3


async def test_recorder_gets_every_call(policy):
    records: list[ModelCallRecord] = []
    model = get_model(policy("echo", "temperature=0&max_retries=2"), recorder=records.append)
    out = await model.generate(USER)
    assert len(records) == 1
    record = records[0]
    assert record.spec == model.name
    assert record.settings == {"temperature": 0}
    assert record.messages == USER
    assert record.response["text"] == out.text
    assert "raw" not in record.response
    assert record.usage == out.usage
    assert record.cost is None
    assert record.error is None
    assert record.attempts == 1
    assert record.latency == out.latency
    assert record.started_at > 0


async def test_async_recorder_is_awaited(policy):
    records = []

    async def record(item):
        await asyncio.sleep(0)
        records.append(item)

    await get_model(policy("echo"), recorder=record).generate(USER)
    assert len(records) == 1


async def test_failure_is_a_model_error_recorded_and_not_retried(policy):
    records: list[ModelCallRecord] = []
    model = get_model(policy("fails", "retry_wait=0"), recorder=records.append)
    with pytest.raises(
        ModelError,
        match=r"policies\.py:fails\?retry_wait=0: ValueError: policy exploded \(after 1 attempt\)",
    ) as info:
        await model.generate(USER)
    assert info.value.attempts == 1
    assert len(records) == 1
    assert records[0].error == str(info.value)
    assert records[0].response is None


async def test_wrong_return_type_is_a_model_error(policy):
    with pytest.raises(ModelError, match="returned int; expected a str or a dict"):
        await get_model(policy("returns_number")).generate(USER)


async def test_timeouts_are_retried_then_fail(policy):
    records: list[ModelCallRecord] = []
    model = get_model(
        policy("slow", "delay=5&timeout=0.05&max_retries=1&retry_wait=0"), recorder=records.append
    )
    with pytest.raises(ModelError, match=r"TimeoutError.*after 2 attempts"):
        await model.generate(USER)
    assert records[0].attempts == 2


async def test_sync_function_runs_off_the_event_loop(policy):
    model = get_model(policy("sleepy_sync", "delay=0.2"))
    ticks = 0

    async def ticker():
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    task = asyncio.create_task(ticker())
    assert (await model.generate(USER)).text == "woke"
    task.cancel()
    assert ticks >= 5  # the loop kept running while the function slept


@pytest.mark.parametrize("limit", [2, 5])
async def test_concurrency_limit_is_respected(policy, state, limit):
    model = get_model(policy("slow", f"delay=0.05&concurrency={limit}"))
    outs = await asyncio.gather(*(model.generate(USER) for _ in range(8)))
    assert [o.text for o in outs] == ["done"] * 8
    assert state["max_in_flight"] == limit
    assert state["in_flight"] == 0


async def test_models_on_one_endpoint_share_the_limit(policy, state):
    a = get_model(policy("slow", "delay=0.05&concurrency=3"))
    b = get_model(policy("slow", "delay=0.05&concurrency=3"))
    await asyncio.gather(*(m.generate(USER) for m in (a, b) * 4))
    assert state["max_in_flight"] == 3


async def test_relative_path_is_loaded_once_per_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "counter.py").write_text(
        "LOADS = globals().get('LOADS', 0) + 1\n"
        "def answer(messages, tools=None, **kw):\n    return str(LOADS)\n"
    )
    first = get_model("python/counter.py:answer")
    second = get_model("python/./counter.py:answer?temperature=0")
    assert first.function is second.function
    assert (await second.generate(USER)).text == "1"


@pytest.mark.parametrize(
    ("messages", "fragment"),
    [
        ([], "non-empty list"),
        ("hello", "non-empty list"),
        ([{"content": "no role"}], "message 0 is not a chat message"),
        ([{"role": "robot", "content": "x"}], "message 0 is not a chat message"),
        ([{"role": "tool", "content": "x"}], "no tool_call_id"),
    ],
)
async def test_bad_messages_are_bad_input(policy, messages, fragment):
    with pytest.raises(BadInput, match=fragment):
        await get_model(policy("echo")).generate(messages)


@pytest.mark.parametrize(
    ("query", "fragment"),
    [
        ("timeout=-1", "timeout=-1 .* must be a number >= 0.001"),
        ("max_retries=1.5", "max_retries=1.5 .* must be an integer >= 0"),
        ("concurrency=0", "concurrency=0 .* must be an integer >= 1"),
        ("retry_wait=soon", "retry_wait='soon' .* must be a number"),
    ],
)
async def test_bad_layer_settings_are_bad_input(policy, query, fragment):
    with pytest.raises(BadInput, match=fragment):
        await get_model(policy("echo", query)).generate(USER)


def test_loading_a_model_file_writes_nothing_beside_it(tmp_path, monkeypatch):
    """The user's folder is theirs: no __pycache__ is left next to a python/ model file,
    whether or not the interpreter writes bytecode."""
    import sys

    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    (tmp_path / "mine.py").write_text("def f(messages, tools=None, **kw):\n    return 'a'\n")
    model = get_model(f"python/{tmp_path}/mine.py:f")
    assert asyncio.run(model.generate(USER)).text == "a"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.py"]


def test_a_model_file_that_does_not_compile_is_bad_input(tmp_path):
    (tmp_path / "broken.py").write_text("def f(:\n")
    with pytest.raises(BadInput, match=r"cannot load python model file.*SyntaxError"):
        get_model(f"python/{tmp_path}/broken.py:f")
