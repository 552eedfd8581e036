"""The model layer against a loopback server enforcing OpenAI's documented request rules.

The server answers like Chat Completions, and rejects (400, OpenAI's error shape) what the
API reference forbids for reasoning models: temperature/top_p, max_tokens, more than 128
function tools, tool names outside ^[a-zA-Z0-9_-]{1,64}$. Requests go through the official
SDK; the test fails if any request is rejected.
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from scigate.errors import BadInput
from scigate.llm import ModelCallRecord, ModelError, get_model
from scigate.llm._capabilities import capabilities

USER = [{"role": "user", "content": "2+2?"}]
NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def _tool(i: int) -> dict:
    return {
        "type": "function",
        "function": {"name": f"tool_{i}", "parameters": {"type": "object", "properties": {}}},
    }


def _violation(body: dict) -> tuple[str, str | None] | None:
    if body["model"].startswith(("gpt-5", "o")):
        for key in ("temperature", "top_p"):
            if key in body:
                return (
                    f"Unsupported value: '{key}' does not support {body[key]} with this model. "
                    "Only the default (1) value is supported.",
                    key,
                )
        if "max_tokens" in body:
            return (
                "Unsupported parameter: 'max_tokens'. Use 'max_completion_tokens'.",
                "max_tokens",
            )
    tools = body.get("tools") or []
    if len(tools) > 128:
        return (
            f"Invalid 'tools': array too long. Expected at most 128, got {len(tools)}.",
            "tools",
        )
    for t in tools:
        if not NAME.match(t["function"]["name"]):
            return ("Invalid 'tools[0].function.name': string does not match pattern.", "tools")
    return None


class Server:
    def __init__(self, retry_after: str | None = None) -> None:
        self.rejected: list[str] = []
        self.bodies: list[dict] = []
        self.retry_after = retry_after
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def _send(self, status: int, payload: dict, headers: dict | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                outer.bodies.append(body)
                if outer.retry_after is not None:
                    self._send(
                        429,
                        {
                            "error": {
                                "message": "Rate limit reached",
                                "type": "requests",
                                "param": None,
                                "code": "rate_limit_exceeded",
                            }
                        },
                        {"retry-after": outer.retry_after},
                    )
                    return
                bad = _violation(body)
                if bad:
                    outer.rejected.append(bad[0])
                    self._send(
                        400,
                        {
                            "error": {
                                "message": bad[0],
                                "type": "invalid_request_error",
                                "param": bad[1],
                                "code": "unsupported_value",
                            }
                        },
                    )
                    return
                self._send(
                    200,
                    {
                        "id": "chatcmpl-1",
                        "object": "chat.completion",
                        "created": 1,
                        "model": body["model"],
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": "4"},
                            }
                        ],
                        "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
                    },
                )

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    s = Server()
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
    s = Server(retry_after="3600")
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
