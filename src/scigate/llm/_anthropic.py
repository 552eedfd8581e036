"""anthropic models through the official SDK's Messages API.

The rest of scigate speaks OpenAI chat format; this module converts messages, tools and
tool choice to the Messages API and the response back.

The server is ``?base_url=`` in the spec, else ``ANTHROPIC_BASE_URL``, else
api.anthropic.com. The API version is the installed SDK's default (``anthropic-version:
2026-10-21`` for the 2.x SDKs, which removed temperature/top_p/top_k) unless the spec says
``?anthropic_version=2023-06-01``; the capability table (capabilities.json) applies the
version's and the model's rules, so no sampling parameter goes to a version or a model that
refuses it (the drop is recorded in model_calls.settings._adapted).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import weakref
from typing import Any

import anthropic
from anthropic import AsyncAnthropic
from anthropic.resources.messages import AsyncMessages

from scigate.errors import BadInput
from scigate.llm._capabilities import anthropic_version
from scigate.llm._model import LayerSettings, Model, Recorder
from scigate.llm._openai import is_transient_status, parse_arguments, split_known
from scigate.llm._spec import ModelSpec
from scigate.llm._types import REASONING_KEY, ModelOutput, ToolCall, Usage

DEFAULT_MAX_TOKENS = 8192
BASE_URL_ENV = "ANTHROPIC_BASE_URL"
# OpenAI reasoning_effort -> Messages API output_config.effort
EFFORT = {"minimal": "low", "low": "low", "medium": "medium", "high": "high"}
EFFORT.update({"xhigh": "xhigh", "max": "max"})
# OpenAI-only settings the Messages API would reject; dropped rather than failing the call.
OPENAI_ONLY = frozenset(
    {"seed", "frequency_penalty", "presence_penalty", "logit_bias", "logprobs", "top_logprobs"}
)

_CREATE_PARAMS = frozenset(inspect.signature(AsyncMessages.create).parameters) - {
    "self",
    "messages",
    "model",
    "tools",
    "stream",
    "timeout",
}


def _text_blocks(content: Any) -> list[dict[str, Any]]:
    """OpenAI content (str or list of parts) as Anthropic content blocks."""
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    blocks: list[dict[str, Any]] = []
    for part in content:
        if isinstance(part, str):
            part = {"type": "text", "text": part}
        kind = part.get("type")
        if kind == "text":
            if part.get("text"):
                blocks.append({"type": "text", "text": part["text"]})
        elif kind == "image_url":
            url = (
                part["image_url"]["url"]
                if isinstance(part["image_url"], dict)
                else part["image_url"]
            )
            if url.startswith("data:") and ";base64," in url:
                media_type, data = url[5:].split(";base64,", 1)
                source = {"type": "base64", "media_type": media_type, "data": data}
            else:
                source = {"type": "url", "url": url}
            blocks.append({"type": "image", "source": source})
        else:
            blocks.append(part)  # already an Anthropic block
    return blocks


def _tool_use(call: dict[str, Any]) -> dict[str, Any]:
    function = call.get("function") or {}
    arguments = function.get("arguments", {})
    if isinstance(arguments, str):
        arguments = parse_arguments(arguments)
    return {"type": "tool_use", "id": call["id"], "name": function["name"], "input": arguments}


def _tool_result(message: dict[str, Any]) -> dict[str, Any]:
    content = message.get("content")
    if isinstance(content, list):
        content = _text_blocks(content)
    elif content is None:
        content = ""
    elif not isinstance(content, str):
        content = json.dumps(content)
    return {"type": "tool_result", "tool_use_id": message["tool_call_id"], "content": content}


def to_anthropic_messages(
    messages: list[dict[str, Any]],
) -> tuple[str | None, list[dict[str, Any]]]:
    """OpenAI chat messages -> (system prompt, Messages API messages).

    System (and developer) messages become the `system` parameter; an assistant's
    `tool_calls` become `tool_use` blocks; `tool` messages become `tool_result` blocks of a
    user message; consecutive messages of one role are merged, as the API requires.
    """
    system: list[str] = []
    converted: list[dict[str, Any]] = []
    for message in messages:
        role = message["role"]
        if role in ("system", "developer"):
            text = "".join(b.get("text", "") for b in _text_blocks(message.get("content")))
            if text:
                system.append(text)
            continue
        if role == "tool":
            role, blocks = "user", [_tool_result(message)]
        elif role == "assistant":
            blocks = list(message.get(REASONING_KEY) or [])
            blocks += _text_blocks(message.get("content"))
            blocks += [_tool_use(c) for c in message.get("tool_calls") or []]
        else:
            blocks = _text_blocks(message.get("content"))
        if not blocks:
            continue
        if converted and converted[-1]["role"] == role:
            converted[-1]["content"].extend(blocks)
        else:
            converted.append({"role": role, "content": blocks})
    return ("\n\n".join(system) or None), converted


def to_anthropic_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI function-tool schemas -> Messages API tools (`input_schema`)."""
    converted = []
    for tool in tools:
        if tool.get("type") == "function" and isinstance(tool.get("function"), dict):
            function = tool["function"]
            item: dict[str, Any] = {
                "name": function["name"],
                "input_schema": function.get("parameters") or {"type": "object", "properties": {}},
            }
            if function.get("description"):
                item["description"] = function["description"]
            converted.append(item)
        else:
            converted.append(tool)  # already an Anthropic tool
    return converted


def to_anthropic_tool_choice(choice: Any) -> Any:
    """OpenAI tool_choice -> Messages API tool_choice."""
    if choice in ("auto", "none"):
        return {"type": choice}
    if choice == "required":
        return {"type": "any"}
    if isinstance(choice, dict) and choice.get("type") == "function":
        return {"type": "tool", "name": choice["function"]["name"]}
    return choice


def parse_message(response: Any, fallback_model: str) -> ModelOutput:
    """A Messages API response as a `ModelOutput`."""
    texts: list[str] = []
    calls: list[ToolCall] = []
    reasoning: list[dict[str, Any]] = []
    for block in response.content:
        if block.type == "text":
            texts.append(block.text)
        elif block.type == "tool_use":
            arguments = block.input if isinstance(block.input, dict) else {"_raw": block.input}
            calls.append(ToolCall(id=block.id, name=block.name, arguments=arguments))
        elif block.type in ("thinking", "redacted_thinking"):
            reasoning.append(block.model_dump(mode="json", exclude_none=True))
    usage = Usage()
    if response.usage is not None:
        cache_read = getattr(response.usage, "cache_read_input_tokens", None) or 0
        cache_write = getattr(response.usage, "cache_creation_input_tokens", None) or 0
        usage = Usage(
            input_tokens=(response.usage.input_tokens or 0) + cache_read + cache_write,
            output_tokens=response.usage.output_tokens or 0,
            cached_input_tokens=cache_read,
        )
    return ModelOutput(
        model=response.model or fallback_model,
        text="".join(texts) if texts else None,
        tool_calls=calls,
        usage=usage,
        stop_reason=response.stop_reason,
        reasoning_blocks=reasoning or None,
        raw=response.model_dump(mode="json"),
    )


class AnthropicModel(Model):
    """`anthropic/MODEL` (ANTHROPIC_API_KEY, or ANTHROPIC_AUTH_TOKEN)."""

    provider = "anthropic"

    def __init__(self, spec: ModelSpec, *, recorder: Recorder | None = None) -> None:
        super().__init__(spec, recorder=recorder)
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncAnthropic]
        self._clients = weakref.WeakKeyDictionary()

    def _credentials(self, layer: LayerSettings) -> dict[str, Any]:
        if layer.api_key_env:
            key = os.environ.get(layer.api_key_env)
            if not key:
                raise BadInput(
                    f"{layer.api_key_env} (api_key_env of {self.name!r}) is not set in the environment"
                )
            return {"api_key": key}
        if os.environ.get("ANTHROPIC_API_KEY"):
            return {"api_key": os.environ["ANTHROPIC_API_KEY"]}
        if os.environ.get("ANTHROPIC_AUTH_TOKEN"):
            return {"auth_token": os.environ["ANTHROPIC_AUTH_TOKEN"]}
        raise BadInput(f"ANTHROPIC_API_KEY is not set: export it to use {self.name!r}")

    def _prepare(self, layer: LayerSettings) -> None:
        self._credentials(layer)
        anthropic_version(dict(self.spec.settings))  # a malformed version is BadInput

    def endpoint(self) -> tuple:
        return (self.spec.provider, self.spec.base_url or os.environ.get(BASE_URL_ENV, ""))

    def _client(self, layer: LayerSettings) -> AsyncAnthropic:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = AsyncAnthropic(
                **self._credentials(layer),
                base_url=self.spec.base_url,
                max_retries=0,  # the layer's tenacity policy is the only retry policy
                timeout=layer.timeout,
            )
            self._clients[loop] = client
        return client

    def _is_transient(self, exc: BaseException) -> bool:
        if isinstance(exc, anthropic.APIConnectionError | TimeoutError):
            return True
        return isinstance(exc, anthropic.APIStatusError) and is_transient_status(exc)

    def request(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        settings: dict[str, Any],
    ) -> dict[str, Any]:
        """The keyword arguments of ``messages.create`` for this call."""
        settings = {k: v for k, v in settings.items() if k not in OPENAI_ONLY}
        max_tokens = settings.pop("max_tokens", None)
        max_completion = settings.pop("max_completion_tokens", None)
        settings["max_tokens"] = max_tokens or max_completion or DEFAULT_MAX_TOKENS
        effort = settings.pop("reasoning_effort", None)
        if effort is not None and effort != "none":
            output_config = dict(settings.get("output_config") or {})
            output_config.setdefault("effort", EFFORT.get(str(effort), effort))
            settings["output_config"] = output_config
        if "stop" in settings:
            stop = settings.pop("stop")
            settings.setdefault("stop_sequences", [stop] if isinstance(stop, str) else stop)
        if "tool_choice" in settings:
            settings["tool_choice"] = to_anthropic_tool_choice(settings["tool_choice"])
        parallel = settings.pop("parallel_tool_calls", None)
        if parallel is False and tools:
            choice = dict(settings.get("tool_choice") or {"type": "auto"})
            choice["disable_parallel_tool_use"] = True
            settings["tool_choice"] = choice

        system, converted = to_anthropic_messages(messages)
        if system and "system" not in settings:
            settings["system"] = system
        kwargs = split_known(settings, _CREATE_PARAMS)
        kwargs["model"] = self.spec.model
        kwargs["messages"] = converted
        if tools:
            kwargs["tools"] = to_anthropic_tools(tools)
        return kwargs

    async def _generate(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        settings: dict[str, Any],
        layer: LayerSettings,
    ) -> ModelOutput:
        client = self._client(layer)
        kwargs = self.request(messages, tools, settings)
        if layer.anthropic_version:
            headers = dict(kwargs.get("extra_headers") or {})
            kwargs["extra_headers"] = headers | {"anthropic-version": layer.anthropic_version}
        response = await client.messages.create(**kwargs, timeout=layer.timeout)
        return parse_message(response, self.spec.model)
