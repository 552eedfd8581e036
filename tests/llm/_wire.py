"""A loopback server speaking OpenAI Chat Completions and Anthropic Messages.

It enforces what the providers' API references forbid and answers with their error
shapes, so that requests the official SDKs send through scigate's model layer are checked
against the documented rules:

OpenAI (``POST .../chat/completions``; error ``{"error": {message, type, param, code}}``):
- reasoning models (o-series, gpt-5 except ``-chat``) reject temperature/top_p, penalties
  and ``max_tokens`` (use ``max_completion_tokens``);
- at most 128 tools; names match ``^[a-zA-Z0-9_-]{1,64}$``; ``parameters`` is an object
  schema;
- a ``tool`` message answers a ``tool_calls`` id of the preceding assistant turn, and
  every tool call of an assistant turn is answered before the next non-tool message.

Anthropic (``POST .../v1/messages``; error ``{"type": "error", "error": {type, message}}``):
- ``max_tokens`` is required; roles are user/assistant only (system is a parameter);
- temperature lies in [0, 1]; Claude Sonnet/Haiku 4.5 and Opus 4.1 and later reject
  ``temperature`` together with ``top_p``;
- tool names match ``^[a-zA-Z0-9_-]{1,64}$``; ``input_schema`` is an object schema;
- a message following ``tool_use`` blocks begins with one ``tool_result`` per tool use,
  and a ``tool_result`` answers a ``tool_use`` of the immediately preceding message.
No limit on the number of tools is documented for Anthropic, so none is enforced.

Every ``throttle_every``-th request (every request with ``retry_after``) is answered 429
with ``retry-after`` headers (OpenAI ``rate_limit_exceeded``, Anthropic
``rate_limit_error``). Replies come from scripted
policies (``python/`` model callables) chosen by the URL: ``/s/NAME/...`` runs
``scripts[NAME]`` on the request, converted to OpenAI chat messages.
"""

from __future__ import annotations

import json
import re
import threading
import uuid
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from scigate.llm._python import to_output

NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
OPENAI_MAX_TOOLS = 128
_REASONING = re.compile(r"^(o\d|gpt-5)", re.I)
_XOR_TOP_P = re.compile(
    r"claude-(?:(?:sonnet|haiku)-4-[5-9]|opus-4-[1-9]|(?:sonnet|haiku|opus)-[5-9])", re.I
)

Script = Callable[..., Any]


# -- OpenAI ------------------------------------------------------------------------------------


def openai_violation(body: dict[str, Any]) -> tuple[str, str | None] | None:
    """(message, param) of the first documented rule the request breaks, else None."""
    model = str(body.get("model", ""))
    if _REASONING.match(model) and "-chat" not in model:
        for key in ("temperature", "top_p", "presence_penalty", "frequency_penalty"):
            if key in body:
                return (
                    f"Unsupported value: '{key}' does not support {body[key]} with this "
                    "model. Only the default (1) value is supported.",
                    key,
                )
        if "max_tokens" in body:
            return ("Unsupported parameter: 'max_tokens'. Use 'max_completion_tokens'.", None)
    tools = body.get("tools") or []
    if len(tools) > OPENAI_MAX_TOOLS:
        return (
            f"Invalid 'tools': array too long. Expected an array with maximum length "
            f"{OPENAI_MAX_TOOLS}, but got an array with length {len(tools)} instead.",
            "tools",
        )
    for i, tool in enumerate(tools):
        function = tool.get("function") or {}
        if not NAME.match(str(function.get("name", ""))):
            return (f"Invalid 'tools[{i}].function.name': string does not match pattern.", None)
        params = function.get("parameters")
        if params is not None and params.get("type") != "object":
            return (
                f"Invalid schema for function '{function.get('name')}': schema must be a "
                f"JSON Schema of 'type: \"object\"', got 'type: \"{params.get('type')}\"'.",
                f"tools[{i}].function.parameters",
            )
    pending: set[str] = set()
    for i, message in enumerate(body.get("messages") or []):
        role = message.get("role")
        if role == "tool":
            if message.get("tool_call_id") not in pending:
                return (
                    "Invalid parameter: messages with role 'tool' must be a response to a "
                    "preceeding message with 'tool_calls'.",
                    f"messages.[{i}].role",
                )
            pending.discard(message["tool_call_id"])
            continue
        if pending:
            return (
                "An assistant message with 'tool_calls' must be followed by tool messages "
                "responding to each 'tool_call_id'. The following tool_call_ids did not have "
                f"response messages: {', '.join(sorted(pending))}",
                "messages",
            )
        pending = (
            {c["id"] for c in message.get("tool_calls") or []} if role == "assistant" else set()
        )
    return None


def openai_to_chat(body: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    return body["messages"], body.get("tools") or []


def openai_reply(body: dict[str, Any], out: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": out.text, "refusal": None}
    if out.tool_calls:
        message["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
            }
            for c in out.tool_calls
        ]
    return {
        "id": "chatcmpl-" + uuid.uuid4().hex[:12],
        "object": "chat.completion",
        "created": 1767225600,
        "model": body["model"],
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": "tool_calls" if out.tool_calls else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": out.usage.input_tokens,
            "completion_tokens": out.usage.output_tokens,
            "total_tokens": out.usage.input_tokens + out.usage.output_tokens,
        },
    }


# -- Anthropic ---------------------------------------------------------------------------------


def anthropic_violation(body: dict[str, Any]) -> str | None:
    """The message of the first documented rule the request breaks, else None."""
    if "max_tokens" not in body:
        return "max_tokens: Field required"
    model = str(body.get("model", ""))
    temperature = body.get("temperature")
    if temperature is not None and not 0 <= float(temperature) <= 1:
        return "temperature: Input should be less than or equal to 1"
    if temperature is not None and "top_p" in body and _XOR_TOP_P.search(model):
        return (
            "`temperature` and `top_p` cannot both be specified for this model. "
            "Please use only one."
        )
    for i, tool in enumerate(body.get("tools") or []):
        if not NAME.match(str(tool.get("name", ""))):
            return f"tools.{i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'"
        schema = tool.get("input_schema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            return f"tools.{i}.custom.input_schema.type: Input should be 'object'"
    previous_uses: list[str] = []
    for i, message in enumerate(body.get("messages") or []):
        role = message.get("role")
        if role not in ("user", "assistant"):
            return f'messages.{i}.role: Input should be "user" or "assistant"'
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        results = [b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"]
        if previous_uses:
            leading = []
            for b in blocks:
                if b.get("type") != "tool_result":
                    break
                leading.append(b.get("tool_use_id"))
            if role != "user" or len(leading) != len(previous_uses):
                return (
                    f"messages.{i}: Did not find {len(previous_uses)} tool_result block(s) at "
                    "the beginning of this message. Messages following `tool_use` blocks must "
                    "begin with a matching number of `tool_result` blocks."
                )
        stray = [r for r in results if r not in previous_uses]
        if stray:
            return (
                f"messages.{i}.content: unexpected `tool_use_id` found in `tool_result` "
                f"blocks: {stray[0]}. Each `tool_result` block must have a corresponding "
                "`tool_use` block in the previous message."
            )
        previous_uses = [b["id"] for b in blocks if b.get("type") == "tool_use"]
    return None


def anthropic_to_chat(body: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The request as OpenAI chat messages and function tools (what the scripts read)."""
    messages: list[dict[str, Any]] = []
    system = body.get("system")
    if system:
        text = system if isinstance(system, str) else "".join(b["text"] for b in system)
        messages.append({"role": "system", "content": text})
    for message in body["messages"]:
        content = message["content"]
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        text = "".join(b["text"] for b in blocks if b["type"] == "text")
        if message["role"] == "assistant":
            calls = [
                {
                    "id": b["id"],
                    "type": "function",
                    "function": {"name": b["name"], "arguments": json.dumps(b["input"])},
                }
                for b in blocks
                if b["type"] == "tool_use"
            ]
            messages.append({"role": "assistant", "content": text or None, "tool_calls": calls})
            continue
        for b in blocks:
            if b["type"] == "tool_result":
                result = b.get("content")
                if isinstance(result, list):
                    result = "".join(x.get("text", "") for x in result)
                messages.append(
                    {"role": "tool", "tool_call_id": b["tool_use_id"], "content": result or ""}
                )
        if text:
            messages.append({"role": "user", "content": text})
    tools = [
        {
            "type": "function",
            "function": {
                "name": t["name"],
                "description": t.get("description", ""),
                "parameters": t["input_schema"],
            },
        }
        for t in body.get("tools") or []
    ]
    return messages, tools


def anthropic_reply(body: dict[str, Any], out: Any) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if out.text:
        content.append({"type": "text", "text": out.text})
    content += [
        {"type": "tool_use", "id": "toolu_" + c.id[-20:], "name": c.name, "input": c.arguments}
        for c in out.tool_calls
    ]
    return {
        "id": "msg_" + uuid.uuid4().hex[:12],
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": content,
        "stop_reason": "tool_use" if out.tool_calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": out.usage.input_tokens, "output_tokens": out.usage.output_tokens},
    }


# -- the server --------------------------------------------------------------------------------


class WireServer:
    """Both wire formats on one loopback port; counts requests, rejections and 429s."""

    def __init__(
        self,
        scripts: dict[str, Script],
        *,
        throttle_every: int = 0,
        retry_after: str | None = None,
    ) -> None:
        self.scripts = scripts
        self.throttle_every = throttle_every
        self.retry_after = retry_after  # set: every request is answered 429 with it
        self.requests = 0
        self.throttled = 0
        self.rejected: list[str] = []
        self.errors: list[str] = []
        self.bodies: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
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

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                anthropic = self.path.endswith("/v1/messages")
                with outer.lock:
                    outer.requests += 1
                    outer.bodies.append(body)
                    throttle = outer.retry_after is not None or (
                        outer.throttle_every and outer.requests % outer.throttle_every == 0
                    )
                    if throttle:
                        outer.throttled += 1
                if throttle:
                    headers = (
                        {"retry-after": outer.retry_after}
                        if outer.retry_after is not None
                        else {"retry-after": "0", "retry-after-ms": "5"}
                    )
                    if anthropic:
                        error = {"type": "rate_limit_error", "message": "Rate limited."}
                        payload: dict = {"type": "error", "error": error}
                    else:
                        payload = {
                            "error": {
                                "message": "Rate limit reached for requests",
                                "type": "requests",
                                "param": None,
                                "code": "rate_limit_exceeded",
                            }
                        }
                    self._send(429, payload, headers)
                    return
                if anthropic:
                    problem = anthropic_violation(body)
                    if problem:
                        outer.rejected.append(problem)
                        error = {"type": "invalid_request_error", "message": problem}
                        self._send(400, {"type": "error", "error": error, "request_id": "req_1"})
                        return
                    messages, tools = anthropic_to_chat(body)
                else:
                    bad = openai_violation(body)
                    if bad:
                        outer.rejected.append(bad[0])
                        error = {
                            "message": bad[0],
                            "type": "invalid_request_error",
                            "param": bad[1],
                            "code": None,
                        }
                        self._send(400, {"error": error})
                        return
                    messages, tools = openai_to_chat(body)
                match = re.match(r"^/s/([A-Za-z0-9_]+)/", self.path)
                script = outer.scripts[match.group(1)] if match else None
                if script is None:
                    self._send(404, {"error": {"message": f"no script for {self.path}"}})
                    return
                try:
                    result = script(messages, tools=tools or None)
                    out = to_output(result, body["model"], messages, tools)
                except Exception as exc:  # a script bug must show, not look like a network error
                    outer.errors.append(f"{type(exc).__name__}: {exc}")
                    self._send(500, {"error": {"message": str(exc), "type": "server_error"}})
                    return
                self._send(200, (anthropic_reply if anthropic else openai_reply)(body, out))

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.root = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def openai_url(self, script: str) -> str:
        """base_url of the OpenAI wire format replying with `script`."""
        return f"{self.root}/s/{script}/v1"

    def anthropic_url(self, script: str) -> str:
        """base_url of the Anthropic wire format replying with `script`."""
        return f"{self.root}/s/{script}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
