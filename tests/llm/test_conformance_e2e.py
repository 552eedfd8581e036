"""Every agent method, the ToolGate gates and the generator through the official SDKs
against a loopback server that enforces the OpenAI and Anthropic request rules.

The server (tests/llm/_wire.py) rejects what the API references forbid with the
providers' error shapes and answers 429 now and then; replies come from the scripted
policies the other tests use. A run passes only with zero rejected requests and at least
one rate-limited request retried.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from _modules import load_attr
from scigate.agents import METHODS, EvalConfig, Task, evaluate, library_tools
from scigate.llm._capabilities import sdk_anthropic_version

TESTS = Path(__file__).parent.parent


WireServer = load_attr(Path(__file__).parent / "_wire.py", "WireServer")

SCRIPTS = {
    "policy": load_attr(TESTS / "agents/models/scripted.py", "policy"),
    "screen": load_attr(TESTS / "gate/models/screens.py", "picks_largest"),
    "solver": load_attr(TESTS / "gate/models/solvers.py", "runs_code"),
    "generator": load_attr(TESTS / "gate/models/generator.py", "writes_candidates"),
    "writer": load_attr(TESTS / "bench/models/writers.py", "good"),
}
RETRY = "retry_wait=0.01&retry_wait_max=0.05"
FORMATS = {
    # the paper's backbone: a reasoning model (no temperature, max_completion_tokens)
    "openai-reasoning": lambda s, script: (
        f"openai/gpt-5.4-mini?base_url={s.openai_url(script)}&{RETRY}"
    ),
    "openai-compatible": lambda s, script: (
        f"openai-compatible/qwen3-8b?base_url={s.openai_url(script)}&{RETRY}"
    ),
    "anthropic": lambda s, script: (
        f"anthropic/claude-sonnet-4-5?base_url={s.anthropic_url(script)}&{RETRY}"
    ),
    # the README's cross-family model: no temperature under any API version
    "anthropic-opus": lambda s, script: (
        f"anthropic/claude-opus-4-8?base_url={s.anthropic_url(script)}&{RETRY}"
    ),
    # the previous API version keeps the per-model sampling rules (temperature sent)
    "anthropic-2023": lambda s, script: (
        f"anthropic/claude-sonnet-4-5?anthropic_version=2023-06-01"
        f"&base_url={s.anthropic_url(script)}&{RETRY}"
    ),
    # a gateway serving an OpenAI reasoning model: the model's rules, whatever the prefix
    "compatible-reasoning": lambda s, script: (
        f"openai-compatible/gpt-5.4-mini?base_url={s.openai_url(script)}&{RETRY}"
    ),
}
# formats whose model (or API version) takes no temperature
NO_TEMPERATURE = {"openai-reasoning", "anthropic", "anthropic-opus", "compatible-reasoning"}


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    s = WireServer(SCRIPTS, throttle_every=7)
    yield s
    s.close()


def _clean(server: WireServer) -> None:
    assert server.rejected == []
    assert server.errors == []
    assert server.throttled >= 1  # ...and retried: every call above succeeded


@pytest.mark.parametrize("fmt", list(FORMATS))
async def test_every_agent_method_runs_without_a_rejected_request(fmt, server):
    from scigate.llm import get_model

    model = get_model(FORMATS[fmt](server, "policy"))
    task = Task(
        question="What is the InChIKey of the molecule with SMILES CCO?",
        parameter="CCO",
        answer="LFQSCWFLJHTTHZ-UHFFFAOYSA-N",
        tool_path=["SMILESToInChI", "InChIToInChIKey"],
    )
    tools = library_tools()
    for method in METHODS:
        result = await evaluate(
            model,
            [task],
            tools,
            EvalConfig(method=method, known_ratio=0.5),
            train=[task] if method == "evo" else None,
            judge=model,
        )
        (row,) = result.rows
        assert row["error"] is None, (method, row["error"])
        assert row["answer"], method
    # function tools went out (ReAct/Reflexion), and so did several temperatures (evo)
    tool_requests = [b for b in server.bodies if b.get("tools")]
    assert tool_requests and all(len(b["tools"]) <= 128 for b in tool_requests)
    if fmt in NO_TEMPERATURE:
        assert not any(k in b for b in server.bodies for k in ("temperature", "top_p", "top_k"))
        # ...the rollouts took their diversity from seed and instruction instead (evo)
        systems = {str(b.get("system") or b["messages"][0].get("content")) for b in server.bodies}
        assert len(systems) >= 3
    else:
        assert len({b.get("temperature") for b in server.bodies}) >= 3
    if fmt.startswith("anthropic"):
        expected = "2023-06-01" if fmt == "anthropic-2023" else sdk_anthropic_version()
        assert set(server.versions) == {expected}
    _clean(server)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["openai-reasoning", "anthropic", "anthropic-opus"])
def test_gates_and_generator_run_without_a_rejected_request(fmt, server, tmp_path):
    import json
    import os
    import subprocess
    import sys

    from scigate.store import Store

    server.throttle_every = 3  # a loop round makes few calls
    spec = FORMATS[fmt]
    db = tmp_path / "run.db"
    # its own process, as `scigate gate run` is used (the warm sandbox servers belong to it)
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "scigate",
            "gate",
            "run",
            "--db",
            str(db),
            "--generator",
            spec(server, "generator"),
            "--screen",
            spec(server, "screen"),
            "--solver",
            spec(server, "solver"),
            "--rounds",
            "1",
            "--json",
            "--verify-timeout",
            "60",
            "--time-limit",
            "60",
            "--concurrency",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ),
    )
    assert p.returncode == 0, p.stderr[-2000:]
    funnel = json.loads(p.stdout)["funnel"]
    # verify needs no model; the screen answered (wrongly, by value rank) without tools;
    # the solver ran code and submitted; every role's calls went through the server
    assert funnel["generated"] == 1 and funnel["verified"] == 1 and funnel["solved"] == 1
    assert list(funnel["screens"].values()) == [1] and funnel["accepted"] == 1
    calls = Store(db).model_calls()
    assert {"generator", "screen", "solver"} <= {c["role"] for c in calls}
    _clean(server)


@pytest.mark.parametrize(
    "fmt", ["openai-reasoning", "compatible-reasoning", "anthropic", "anthropic-opus"]
)
def test_the_bench_generator_runs_without_a_rejected_request(fmt, server, tmp_path):
    from scigate.bench import BuildConfig, build

    server.throttle_every = 2  # a small build makes few calls
    config = BuildConfig(n=2, levels=[1, 2], generator=FORMATS[fmt](server, "writer"), seed=2)
    report = build(config, tmp_path / "r.db", tmp_path / "o.jsonl")
    assert report.accepted == 2
    assert server.requests - server.throttled >= 2  # the writer's calls went through it
    assert not any("temperature" in b for b in server.bodies)
    _clean(server)


# -- the server is a real check: what the documentation forbids is rejected ------------------


def _anthropic(server, body: dict, version: str | None = "2023-06-01") -> httpx.Response:
    headers = {"anthropic-version": version} if version else {}
    return httpx.post(server.anthropic_url("policy") + "/v1/messages", json=body, headers=headers)


def _openai(server, body: dict) -> httpx.Response:
    return httpx.post(server.openai_url("policy") + "/chat/completions", json=body)


USER = [{"role": "user", "content": "2+2?"}]
TOOL = {"name": "get_weight", "input_schema": {"type": "object", "properties": {}}}
USE = {"type": "tool_use", "id": "toolu_1", "name": "get_weight", "input": {}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "46"}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"messages": USER}, "max_tokens: Field required"),
        ({"max_tokens": 9, "messages": USER, "temperature": 0.5, "top_p": 0.9}, "cannot both"),
        ({"max_tokens": 9, "messages": USER, "temperature": 1.5}, "temperature"),
        ({"max_tokens": 9, "messages": USER, "tools": [{**TOOL, "name": "a b"}]}, "pattern"),
        (
            {"max_tokens": 9, "messages": USER, "tools": [{**TOOL, "input_schema": {}}]},
            "input_schema.type",
        ),
        (
            {"max_tokens": 9, "messages": [*USER, {"role": "assistant", "content": [USE]}, *USER]},
            "tool_result block(s)",
        ),
        (
            {
                "max_tokens": 9,
                "messages": [
                    *USER,
                    {"role": "assistant", "content": [USE]},
                    {"role": "user", "content": [{"type": "text", "text": "x"}, RESULT]},
                ],
            },
            "tool_result block(s)",
        ),
        (
            {"max_tokens": 9, "messages": [{"role": "user", "content": [RESULT]}]},
            "unexpected `tool_use_id`",
        ),
        ({"max_tokens": 9, "messages": [{"role": "system", "content": "x"}, *USER]}, "role"),
    ],
)
def test_anthropic_rules_are_enforced_with_its_error_shape(server, body, message):
    r = _anthropic(server, {"model": "claude-sonnet-4-5", "tools": [TOOL], **body})
    assert r.status_code == 400
    payload = r.json()
    assert payload["type"] == "error" and payload["error"]["type"] == "invalid_request_error"
    assert message in payload["error"]["message"]


OPUS = "claude-opus-4-8"


@pytest.mark.parametrize(
    ("version", "body", "message"),
    [
        (None, {}, "anthropic-version: None is not a valid version"),
        ("2024-01-01", {}, "is not a valid version"),
        # API version 2026-10-21: no sampling parameters, whatever the model or value
        ("2026-10-21", {"temperature": 1.0}, "temperature: Extra inputs are not permitted"),
        ("2026-10-21", {"top_p": 0.9}, "top_p: Extra inputs are not permitted"),
        ("2026-10-21", {"top_k": 5}, "top_k: Extra inputs are not permitted"),
        # Opus 4.7 and later: no sampling parameters under any version
        ("2023-06-01", {"model": OPUS, "temperature": 0.2}, "deprecated for this model"),
        ("2023-06-01", {"model": "claude-sonnet-5", "top_k": 3}, "deprecated for this model"),
        # adaptive thinking only on 4.7+, none before 4.6
        (
            "2023-06-01",
            {"model": OPUS, "thinking": {"type": "enabled", "budget_tokens": 2048}},
            '"thinking.type.enabled" is not supported',
        ),
        ("2023-06-01", {"thinking": {"type": "adaptive"}}, '"thinking.type.adaptive" is not'),
        # effort levels per model
        ("2023-06-01", {"output_config": {"effort": "high"}}, "effort is not supported"),
        (
            "2023-06-01",
            {"model": "claude-sonnet-4-6", "output_config": {"effort": "xhigh"}},
            "output_config.effort",
        ),
        # no assistant prefill on 4.6+
        (
            "2023-06-01",
            {
                "model": "claude-sonnet-4-6",
                "messages": [*USER, {"role": "assistant", "content": "{"}],
            },
            "Prefilling assistant messages is not supported",
        ),
        # tool blocks need tools; tool_use ids are unique; system placement; empty content
        (
            "2023-06-01",
            {"tools": [], "messages": [*USER, {"role": "assistant", "content": [USE]}]},
            "must define tools",
        ),
        (
            "2023-06-01",
            {
                "messages": [
                    *USER,
                    {"role": "assistant", "content": [USE]},
                    {"role": "user", "content": [RESULT]},
                    {"role": "assistant", "content": [USE]},
                    {"role": "user", "content": [RESULT]},
                ]
            },
            "ids must be unique",
        ),
        ("2023-06-01", {"system": [{"type": "image"}]}, "system: Input should be"),
        ("2023-06-01", {"messages": [{"role": "user", "content": ""}]}, "non-empty"),
        ("2023-06-01", {"messages": [{"role": "user", "content": []}]}, "non-empty content"),
    ],
)
def test_anthropic_version_and_model_rules_are_enforced(server, version, body, message):
    request = {"model": "claude-sonnet-4-5", "max_tokens": 9, "messages": USER, "tools": [TOOL]}
    r = _anthropic(server, request | body, version=version)
    assert r.status_code == 400, r.text
    assert message in r.json()["error"]["message"]


def test_anthropic_accepts_what_each_version_and_model_allows(server):
    server.throttle_every = 0
    base = {"max_tokens": 9, "messages": USER}
    ok = [
        ("2023-06-01", {"model": "claude-sonnet-4-5", "temperature": 0.5}),
        ("2026-10-21", {"model": "claude-sonnet-4-5"}),
        ("2026-10-21", {"model": OPUS, "thinking": {"type": "adaptive"}}),
        ("2026-10-21", {"model": OPUS, "output_config": {"effort": "xhigh"}}),
        ("2023-06-01", {"model": "claude-sonnet-4-6", "thinking": {"type": "enabled"}}),
        ("2023-06-01", {"model": "claude-opus-4-5", "output_config": {"effort": "high"}}),
        ("2023-06-01", {"model": "claude-sonnet-4-5", "system": [{"type": "text", "text": "x"}]}),
        # a prefill on a model older than 4.6
        (
            "2023-06-01",
            {
                "model": "claude-sonnet-4-5",
                "messages": [*USER, {"role": "assistant", "content": "{"}],
            },
        ),
    ]
    for version, body in ok:
        r = _anthropic(server, base | body, version=version)
        assert r.status_code == 200, (version, body, r.text)


def test_anthropic_accepts_a_well_formed_tool_turn(server):
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 9,
        "temperature": 0.2,
        "tools": [TOOL],
        "messages": [
            *USER,
            {"role": "assistant", "content": [USE]},
            {"role": "user", "content": [RESULT]},
        ],
    }
    assert _anthropic(server, body).status_code == 200
    # older models accept temperature with top_p
    old = {"model": "claude-3-5-haiku-latest", "max_tokens": 9, "messages": USER}
    assert _anthropic(server, {**old, "temperature": 0.5, "top_p": 0.9}).status_code == 200


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"model": "gpt-5.4-mini", "temperature": 0.3}, "temperature"),
        ({"model": "gpt-5.4-mini", "max_tokens": 5}, "max_completion_tokens"),
        # the model's rules, whatever name a gateway gives it
        ({"model": "openai/gpt-5.5", "top_p": 0.5}, "top_p"),
        ({"model": "o3", "logprobs": True}, "logprobs"),
        ({"model": "gpt-4.1", "reasoning_effort": "low"}, "reasoning_effort"),
        (
            {
                "model": "gpt-4.1",
                "tools": [
                    {
                        "type": "function",
                        "function": {"name": f"t{i}", "parameters": {"type": "object"}},
                    }
                    for i in range(129)
                ],
            },
            "maximum length 128",
        ),
        (
            {
                "model": "gpt-4.1",
                "tools": [
                    {
                        "type": "function",
                        "function": {"name": "t", "parameters": {"type": "string"}},
                    }
                ],
            },
            "Invalid schema",
        ),
        (
            {
                "model": "gpt-4.1",
                "messages": [*USER, {"role": "tool", "tool_call_id": "c1", "content": "x"}],
            },
            "must be a response to a preceeding message",
        ),
        (
            {
                "model": "gpt-4.1",
                "messages": [
                    *USER,
                    {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "t", "arguments": "{}"},
                            }
                        ],
                    },
                    *USER,
                ],
            },
            "did not have response messages: c1",
        ),
    ],
)
def test_openai_rules_are_enforced_with_its_error_shape(server, body, message):
    r = _openai(server, {"messages": USER, **body})
    assert r.status_code == 400
    error = r.json()["error"]
    assert error["type"] == "invalid_request_error" and message in error["message"]


def test_the_server_throttles_with_retry_after(monkeypatch):
    s = WireServer(SCRIPTS, throttle_every=2)
    try:
        body = {"model": "claude-sonnet-4-5", "max_tokens": 9, "messages": USER}
        first = _anthropic(s, body)
        second = _anthropic(s, body)
        assert first.status_code == 200 and second.status_code == 429
        assert second.headers["retry-after"] == "0"
        assert second.json()["error"]["type"] == "rate_limit_error"
    finally:
        s.close()


async def test_temperature_beyond_anthropics_range_is_clamped_not_rejected(server):
    from scigate.llm import ModelCallRecord, get_model

    records: list[ModelCallRecord] = []
    spec = FORMATS["anthropic-2023"](server, "policy")
    out = await get_model(spec, recorder=records.append).generate(USER, temperature=1.5)
    assert out.text is not None and server.rejected == []
    assert server.bodies[-1]["temperature"] == 1.0
    assert any("clamped temperature=1.5" in c for c in records[-1].settings["_adapted"])
