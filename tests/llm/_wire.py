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
- the ``anthropic-version`` header is required and must be 2023-06-01 or 2026-10-21;
  under 2026-10-21 ``temperature``, ``top_p`` and ``top_k`` are refused ("Extra inputs are
  not permitted"), even at their defaults;
- Claude Opus 4.7 and later (Opus 5, Sonnet 5, Haiku 5, Fable, Mythos) refuse
  ``temperature``/``top_p``/``top_k`` under any version ("deprecated for this model"),
  accept adaptive thinking only (no ``budget_tokens``) and effort low..max with xhigh;
  4.6 models accept both thinking forms and effort up to max; Opus 4.5 effort up to high;
  older models no effort and no adaptive thinking; 4.6 and later refuse an assistant
  prefill (a final assistant message);
- ``max_tokens`` is required; roles are user/assistant only (``system`` is a top-level
  string or list of text blocks); messages and text blocks are non-empty;
- temperature lies in [0, 1]; Claude Sonnet/Haiku 4.5 and Opus 4.1 and later reject
  ``temperature`` together with ``top_p``;
- tool names match ``^[a-zA-Z0-9_-]{1,64}$``; ``input_schema`` is an object schema;
  a request carrying ``tool_use``/``tool_result`` blocks defines ``tools``; tool_use ids
  are unique;
- a message following ``tool_use`` blocks begins with one ``tool_result`` per tool use,
  and a ``tool_result`` answers a ``tool_use`` of the immediately preceding message.
No limit on the number of tools is documented for Anthropic, so none is enforced.

``refuse={"param": "wording"}`` makes the server refuse requests carrying a parameter the
documentation does not forbid (as gateways and new model releases do), in one of the
wordings of `REFUSALS`, so that adapting to a refusal is tested too.

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
_REASONING = re.compile(r"^(o\d|gpt-(?:[5-9]|\d{2,}))", re.I)
_XOR_TOP_P = re.compile(
    r"claude-(?:(?:sonnet|haiku)-4-[5-9]|opus-4-[1-9]|(?:sonnet|haiku|opus)-[5-9])", re.I
)
ANTHROPIC_VERSIONS = ("2023-06-01", "2026-10-21")
SAMPLING = ("temperature", "top_p", "top_k")
# Claude models from Opus 4.7 on: no sampling parameters, adaptive thinking only, no prefill
_CLAUDE_NEW = re.compile(
    r"claude-(?:opus-(?:4-[7-9]|[5-9])|(?:sonnet|haiku)-[5-9]|fable|mythos)", re.I
)
_CLAUDE_4_6 = re.compile(r"claude-(?:opus|sonnet)-4-6", re.I)
_CLAUDE_OPUS_4_5 = re.compile(r"claude-opus-4-5", re.I)
# The wordings `refuse=` answers with: OpenAI's, Anthropic's and gateways'.
REFUSALS = {
    "openai": "Unsupported parameter: '{p}' is not supported with this model.",
    "anthropic": "{p}: Extra inputs are not permitted",
    "deprecated": "`{p}` is deprecated for this model.",
    "litellm": "litellm.UnsupportedParamsError: this model doesn't support {p}={v}. "
    "To drop unsupported params set `litellm.drop_params = True`",
    "azure": "Unrecognized request argument supplied: {p}",
}


def _model_name(body: dict[str, Any]) -> str:
    return str(body.get("model", "")).rsplit("/", 1)[-1]


def _effort_levels(model: str) -> tuple[str, ...]:
    if re.search(r"claude-haiku-[5-9]", model):
        return ("low", "medium", "high")
    if _CLAUDE_NEW.search(model):
        return ("low", "medium", "high", "xhigh", "max")
    if _CLAUDE_4_6.search(model):
        return ("low", "medium", "high", "max")
    if _CLAUDE_OPUS_4_5.search(model):
        return ("low", "medium", "high")
    return ()


Script = Callable[..., Any]


# -- OpenAI ------------------------------------------------------------------------------------


def openai_violation(body: dict[str, Any]) -> tuple[str, str | None] | None:
    """(message, param) of the first documented rule the request breaks, else None."""
    model = _model_name(body)
    if _REASONING.match(model) and "-chat" not in model:
        for key in ("temperature", "top_p", "presence_penalty", "frequency_penalty"):
            if key in body:
                return (
                    f"Unsupported value: '{key}' does not support {body[key]} with this "
                    "model. Only the default (1) value is supported.",
                    key,
                )
        for key in ("logprobs", "top_logprobs", "logit_bias"):
            if key in body:
                return (f"Unsupported parameter: '{key}' is not supported with this model.", key)
        if "max_tokens" in body:
            return (
                "Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead.",
                "max_tokens",
            )
    elif "reasoning_effort" in body and re.match(r"^gpt-", model):
        return (
            "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
            "reasoning_effort",
        )
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


def anthropic_violation(body: dict[str, Any], version: str | None = "2023-06-01") -> str | None:
    """The message of the first documented rule the request breaks, else None."""
    if version not in ANTHROPIC_VERSIONS:
        return (
            f"anthropic-version: {version!r} is not a valid version "
            f"(expected one of {', '.join(ANTHROPIC_VERSIONS)})"
        )
    if "max_tokens" not in body:
        return "max_tokens: Field required"
    model = _model_name(body)
    for key in SAMPLING:
        if key in body and version >= "2026-10-21":
            return f"{key}: Extra inputs are not permitted"
        if key in body and _CLAUDE_NEW.search(model):
            return f"`{key}` is deprecated for this model."
    thinking = body.get("thinking")
    if isinstance(thinking, dict):
        kind = thinking.get("type")
        if kind == "enabled" and _CLAUDE_NEW.search(model):
            return (
                '"thinking.type.enabled" is not supported for this model. Use '
                '"thinking.type.adaptive" and "output_config.effort" to control thinking '
                "behavior."
            )
        if kind == "adaptive" and not (_CLAUDE_NEW.search(model) or _CLAUDE_4_6.search(model)):
            return '"thinking.type.adaptive" is not supported for this model.'
    effort = (body.get("output_config") or {}).get("effort")
    if effort is not None:
        levels = _effort_levels(model)
        if not levels:
            return "output_config.effort: effort is not supported for this model."
        if effort not in levels:
            return (
                f"output_config.effort: Input should be {', '.join(map(repr, levels))} "
                "for this model"
            )
    system = body.get("system")
    if not (
        system is None
        or isinstance(system, str)
        or (isinstance(system, list) and all(b.get("type") == "text" for b in system))
    ):
        return "system: Input should be a valid string or a list of text blocks"
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
    messages = body.get("messages") or []
    kinds = {
        b.get("type") for m in messages if isinstance(m.get("content"), list) for b in m["content"]
    }
    if kinds & {"tool_use", "tool_result"} and not body.get("tools"):
        return "Requests which include `tool_use` or `tool_result` blocks must define tools."
    if (
        messages
        and messages[-1].get("role") == "assistant"
        and (_CLAUDE_NEW.search(model) or _CLAUDE_4_6.search(model))
    ):
        return "Prefilling assistant messages is not supported for this model."
    seen_uses: set[str] = set()
    previous_uses: list[str] = []
    for i, message in enumerate(messages):
        role = message.get("role")
        if role not in ("user", "assistant"):
            return f'messages.{i}.role: Input should be "user" or "assistant"'
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        if not blocks and not (i == len(messages) - 1 and role == "assistant"):
            return (
                f"messages.{i}: all messages must have non-empty content except for the "
                "optional final assistant message"
            )
        for b in blocks:
            if b.get("type") == "text" and not b.get("text"):
                return f"messages.{i}: text content blocks must be non-empty"
            if b.get("type") == "tool_use":
                if b.get("id") in seen_uses:
                    return f"messages.{i}: `tool_use` ids must be unique: {b.get('id')}"
                seen_uses.add(b.get("id"))
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
        refuse: dict[str, str] | None = None,
    ) -> None:
        self.scripts = scripts
        self.refuse = dict(refuse or {})  # param -> a wording of REFUSALS
        self.throttle_every = throttle_every
        self.retry_after = retry_after  # set: every request is answered 429 with it
        self.requests = 0
        self.throttled = 0
        self.rejected: list[str] = []
        self.errors: list[str] = []
        self.bodies: list[dict[str, Any]] = []
        self.versions: list[str | None] = []  # anthropic-version header of each request
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
                version = self.headers.get("anthropic-version")
                with outer.lock:
                    outer.requests += 1
                    outer.bodies.append(body)
                    if anthropic:
                        outer.versions.append(version)
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
                refused = [p for p in outer.refuse if p in body]
                if refused:
                    key = refused[0]
                    said = REFUSALS[outer.refuse[key]].format(p=key, v=body[key])
                    outer.rejected.append(said)
                    if anthropic:
                        error = {"type": "invalid_request_error", "message": said}
                        self._send(400, {"type": "error", "error": error})
                    else:
                        error = {"message": said, "type": "invalid_request_error"}
                        self._send(400, {"error": error | {"param": None, "code": None}})
                    return
                if anthropic:
                    problem = anthropic_violation(body, version)
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
