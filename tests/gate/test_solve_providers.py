"""The built-in solver through the real provider SDKs, replaying each API's wire format.

The agent loop's messages (assistant tool calls, tool results) must be accepted by the
OpenAI Chat Completions and Anthropic Messages adapters, and the tool output must reach
the model's next request.
"""

import asyncio
import json
from pathlib import Path

import httpx

from scigate.gate import load_candidate, solve_with_model
from scigate.store import Store

CODE = "print(f'{2/7:.6f}')"


def _openai_body(message: dict, finish: str) -> dict:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1767225600,
        "model": "gpt-5.5",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "refusal": None, **message},
                "logprobs": None,
                "finish_reason": finish,
            }
        ],
        "usage": {"prompt_tokens": 900, "completion_tokens": 60, "total_tokens": 960},
    }


def test_openai_solver_round_trip(api, monkeypatch, candidate_dir: Path, tmp_path: Path) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    requests: list[dict] = []

    def reply(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        requests.append(body)
        if len(requests) == 1:
            assert {t["function"]["name"] for t in body["tools"]} == {
                "run_python",
                "run_bash",
                "submit",
            }
            call = {
                "id": "call_1",
                "type": "function",
                "function": {"name": "run_python", "arguments": json.dumps({"code": CODE})},
            }
            return httpx.Response(
                200, json=_openai_body({"content": None, "tool_calls": [call]}, "tool_calls")
            )
        tool_msg = body["messages"][-1]
        assert tool_msg["role"] == "tool" and tool_msg["tool_call_id"] == "call_1"
        assert "0.285714" in tool_msg["content"]
        call = {
            "id": "call_2",
            "type": "function",
            "function": {"name": "submit", "arguments": json.dumps({"answer": "B"})},
        }
        return httpx.Response(
            200, json=_openai_body({"content": None, "tool_calls": [call]}, "tool_calls")
        )

    api.post("https://api.openai.com/v1/chat/completions").mock(side_effect=reply)
    store = Store(tmp_path / "calls.db")
    run_id = store.create_run("gate", domain="fenicsx")
    cand = load_candidate(candidate_dir)
    r = asyncio.run(
        solve_with_model(
            cand,
            "openai/gpt-5.5?reasoning_effort=medium",
            time_limit=60,
            store=store,
            run_id=run_id,
        )
    )
    assert r.solved, r.reason
    assert r.model_calls == 2 and r.input_tokens == 1800 and r.output_tokens == 120
    assert requests[0]["reasoning_effort"] == "medium"
    calls = store.model_calls(run_id=run_id, role="solver")
    assert len(calls) == 2 and all(c["spec"].startswith("openai/gpt-5.5") for c in calls)
    store.close()


def test_anthropic_solver_round_trip(api, monkeypatch, candidate_dir: Path) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    requests: list[dict] = []

    def body(content: list, stop: str) -> dict:
        return {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-4-8",
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 1000, "output_tokens": 50},
        }

    def reply(request: httpx.Request) -> httpx.Response:
        payload = json.loads(request.content)
        requests.append(payload)
        if len(requests) == 1:
            assert "system" in payload and {t["name"] for t in payload["tools"]} == {
                "run_python",
                "run_bash",
                "submit",
            }
            return httpx.Response(
                200,
                json=body(
                    [
                        {"type": "text", "text": "Computing."},
                        {
                            "type": "tool_use",
                            "id": "toolu_1",
                            "name": "run_python",
                            "input": {"code": CODE},
                        },
                    ],
                    "tool_use",
                ),
            )
        last = payload["messages"][-1]
        assert last["role"] == "user"
        result = next(b for b in last["content"] if b["type"] == "tool_result")
        assert result["tool_use_id"] == "toolu_1"
        text = (
            result["content"]
            if isinstance(result["content"], str)
            else json.dumps(result["content"])
        )
        assert "0.285714" in text
        return httpx.Response(
            200,
            json=body(
                [
                    {
                        "type": "tool_use",
                        "id": "toolu_2",
                        "name": "submit",
                        "input": {"answer": "0.285714"},
                    }
                ],
                "tool_use",
            ),
        )

    api.post("https://api.anthropic.com/v1/messages").mock(side_effect=reply)
    cand = load_candidate(candidate_dir)
    r = asyncio.run(solve_with_model(cand, "anthropic/claude-opus-4-8", time_limit=60))
    assert r.solved, r.reason
    assert r.answer_option == "B" and r.cost is not None
