"""openai and openai-compatible models through the official SDK's Chat Completions API."""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import weakref
from typing import Any

import openai
from openai import AsyncOpenAI
from openai.resources.chat.completions import AsyncCompletions

from scigate.errors import BadInput
from scigate.llm._model import LayerSettings, Model, Recorder, public_message
from scigate.llm._spec import ModelSpec
from scigate.llm._types import ModelOutput, ToolCall, Usage

COMPATIBLE_KEY_ENV = "OPENAI_COMPATIBLE_API_KEY"
COMPATIBLE_URL_ENV = "OPENAI_COMPATIBLE_BASE_URL"
DUMMY_KEY = "not-needed"
RETRY_STATUS = frozenset({408, 409, 429})

_CREATE_PARAMS = frozenset(inspect.signature(AsyncCompletions.create).parameters) - {
    "self",
    "messages",
    "model",
    "tools",
    "stream",
    "timeout",
}


def is_transient_status(exc: BaseException) -> bool:
    """Rate limits, conflicts, request timeouts and server errors are worth retrying."""
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status in RETRY_STATUS or status >= 500)


def split_known(settings: dict[str, Any], known: frozenset[str]) -> dict[str, Any]:
    """Keyword arguments for an SDK method: unknown settings travel in `extra_body`."""
    kwargs: dict[str, Any] = {}
    extra: dict[str, Any] = dict(settings.get("extra_body") or {})
    for key, value in settings.items():
        if key == "extra_body":
            continue
        if key in known:
            kwargs[key] = value
        else:
            extra[key] = value
    if extra:
        kwargs["extra_body"] = extra
    return kwargs


def to_openai_message(message: dict[str, Any]) -> dict[str, Any]:
    """A chat message as the API wants it: no private keys, tool-call arguments as JSON."""
    out = public_message(message)
    if out.get("tool_calls"):
        calls = []
        for call in out["tool_calls"]:
            call = dict(call)
            function = dict(call.get("function") or {})
            if not isinstance(function.get("arguments", ""), str):
                function["arguments"] = json.dumps(function["arguments"])
            call["function"] = function
            call.setdefault("type", "function")
            calls.append(call)
        out["tool_calls"] = calls
    return out


def parse_arguments(text: str | None) -> dict[str, Any]:
    """Tool-call arguments: a JSON object, else ``{"_raw": text}``."""
    if not text or not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return {"_raw": text}
    return value if isinstance(value, dict) else {"_raw": text}


def parse_completion(response: Any, fallback_model: str) -> ModelOutput:
    """A Chat Completions response as a `ModelOutput`."""
    if not response.choices:
        raise ValueError("the response has no choices")
    choice = response.choices[0]
    message = choice.message
    calls = [
        ToolCall(id=c.id, name=c.function.name, arguments=parse_arguments(c.function.arguments))
        for c in (message.tool_calls or [])
        if getattr(c, "function", None) is not None
    ]
    usage = Usage()
    if response.usage is not None:
        details = response.usage.completion_tokens_details
        prompt_details = response.usage.prompt_tokens_details
        usage = Usage(
            input_tokens=response.usage.prompt_tokens or 0,
            output_tokens=response.usage.completion_tokens or 0,
            reasoning_tokens=(details.reasoning_tokens or 0) if details else 0,
            cached_input_tokens=(prompt_details.cached_tokens or 0) if prompt_details else 0,
        )
    return ModelOutput(
        model=response.model or fallback_model,
        text=message.content,
        tool_calls=calls,
        usage=usage,
        stop_reason=choice.finish_reason,
        raw=response.model_dump(mode="json"),
    )


class OpenAIModel(Model):
    """`openai/MODEL` and `openai-compatible/MODEL` (also `ollama/`, `vllm/`)."""

    provider = "openai"

    def __init__(self, spec: ModelSpec, *, recorder: Recorder | None = None) -> None:
        super().__init__(spec, recorder=recorder)
        self.compatible = spec.provider == "openai-compatible"
        self.base_url = spec.base_url
        if self.compatible and self.base_url is None:
            self.base_url = os.environ.get(COMPATIBLE_URL_ENV) or None
            if self.base_url is None:
                raise BadInput(
                    f"model spec {spec.raw!r} needs a server address: "
                    "openai-compatible/MODEL?base_url=http://HOST:PORT/v1 "
                    f"(or set {COMPATIBLE_URL_ENV})"
                )
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncOpenAI]
        self._clients = weakref.WeakKeyDictionary()

    def endpoint(self) -> tuple:
        return (self.spec.provider, self.base_url or os.environ.get("OPENAI_BASE_URL", ""))

    def _api_key(self, layer: LayerSettings) -> str:
        if layer.api_key_env:
            key = os.environ.get(layer.api_key_env)
            if not key:
                raise BadInput(
                    f"{layer.api_key_env} (api_key_env of {self.name!r}) is not set in the environment"
                )
            return key
        if self.compatible:
            return os.environ.get(COMPATIBLE_KEY_ENV) or DUMMY_KEY
        key = os.environ.get("OPENAI_API_KEY")
        if not key:
            raise BadInput(
                f"OPENAI_API_KEY is not set: export it to use {self.name!r} "
                "(or use openai-compatible/MODEL?base_url=... for a local server)"
            )
        return key

    def _prepare(self, layer: LayerSettings) -> None:
        self._api_key(layer)

    def _client(self, layer: LayerSettings) -> AsyncOpenAI:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            # max_retries=0: the layer's tenacity policy is the only retry policy.
            client = AsyncOpenAI(
                api_key=self._api_key(layer),
                base_url=self.base_url,
                max_retries=0,
                timeout=layer.timeout,
            )
            self._clients[loop] = client
        return client

    def _is_transient(self, exc: BaseException) -> bool:
        if isinstance(exc, openai.APIConnectionError | TimeoutError):  # incl. APITimeoutError
            return True
        return isinstance(exc, openai.APIStatusError) and is_transient_status(exc)

    def request(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        settings: dict[str, Any],
    ) -> dict[str, Any]:
        """The keyword arguments of ``chat.completions.create`` for this call."""
        settings = dict(settings)
        if (
            not self.compatible
            and "max_tokens" in settings
            and "max_completion_tokens" not in settings
        ):
            # OpenAI's reasoning models reject max_tokens; max_completion_tokens works for all.
            settings["max_completion_tokens"] = settings.pop("max_tokens")
        kwargs = split_known(settings, _CREATE_PARAMS)
        kwargs["model"] = self.spec.model
        kwargs["messages"] = [to_openai_message(m) for m in messages]
        if tools:
            kwargs["tools"] = tools
        return kwargs

    async def _generate(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        settings: dict[str, Any],
        layer: LayerSettings,
    ) -> ModelOutput:
        client = self._client(layer)
        response = await client.chat.completions.create(
            **self.request(messages, tools, settings), timeout=layer.timeout
        )
        return parse_completion(response, self.spec.model)
