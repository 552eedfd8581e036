"""What a provider's model accepts, and adapting a request to it.

One `Capabilities` record per provider and model family, from the providers' API
references:

- OpenAI Chat Completions: at most 128 function tools a request; tool names must match
  ``^[a-zA-Z0-9_-]{1,64}$``; reasoning models (o1/o3/o4 and the gpt-5 family, except the
  ``-chat`` variants) accept only the default temperature and top_p and reject
  presence/frequency penalties and logprobs; ``max_tokens`` is deprecated in favour of
  ``max_completion_tokens`` (the only one reasoning models take); non-reasoning models
  reject ``reasoning_effort``.
- Anthropic Messages: ``max_tokens`` is required; tool names match the same pattern;
  ``temperature`` lies in [0, 1] (OpenAI's in [0, 2]); recent models reject
  ``temperature`` together with ``top_p``.
- openai-compatible servers (vLLM, Ollama, ...) and ``python/`` callables: no limits known.

Every field can be overridden in the spec's query (``?max_tools=64&accepts_temperature=false``);
these keys are consumed by the layer and never sent. `adapt` rewrites one request to fit and
returns a line per change, which the model layer records with the call.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel

from scigate.errors import BadInput

OPENAI_MAX_TOOLS = 128
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_OPENAI_REASONING = re.compile(r"^(o\d|gpt-5)", re.I)
_OPENAI_CHAT_VARIANT = re.compile(r"-chat(-|$)", re.I)
# Sampling settings OpenAI's reasoning models reject (only their defaults are allowed).
REASONING_REJECTS = ("temperature", "top_p", "presence_penalty", "frequency_penalty")
REASONING_REJECTS_ALSO = ("logprobs", "top_logprobs", "logit_bias")

# Spec query keys that override a capability (consumed by the layer, never sent).
OVERRIDES = frozenset(
    {
        "max_tools",
        "accepts_temperature",
        "accepts_top_p",
        "max_tokens_param",
        "reasoning",
        "context_window",
        "max_temperature",
    }
)


class Capabilities(BaseModel):
    """What one provider + model family accepts."""

    provider: str
    family: str
    max_tools: int | None = None  # function tools a request may carry (None: no known limit)
    accepts_temperature: bool = True
    accepts_top_p: bool = True
    max_temperature: float | None = None  # larger temperatures are clamped to it
    temperature_xor_top_p: bool = False  # only one of the two may be sent
    max_tokens_param: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"
    requires_max_tokens: bool = False
    reasoning: bool = False  # accepts reasoning settings (reasoning_effort)
    check_tool_names: bool = False  # enforce TOOL_NAME on function names
    context_window: int | None = None


def _defaults(provider: str, model: str) -> Capabilities:
    name = model.rsplit("/", 1)[-1]
    if provider == "openai":
        reasoning = bool(_OPENAI_REASONING.match(name)) and not _OPENAI_CHAT_VARIANT.search(name)
        return Capabilities(
            provider=provider,
            family="openai-reasoning" if reasoning else "openai-chat",
            max_tools=OPENAI_MAX_TOOLS,
            accepts_temperature=not reasoning,
            max_temperature=2.0,
            accepts_top_p=not reasoning,
            max_tokens_param="max_completion_tokens",
            reasoning=reasoning,
            check_tool_names=True,
            context_window=400_000 if name.startswith("gpt-5") else None,
        )
    if provider == "anthropic":
        return Capabilities(
            provider=provider,
            family="anthropic-messages",
            max_temperature=1.0,
            temperature_xor_top_p=True,
            requires_max_tokens=True,
            reasoning=True,
            check_tool_names=True,
            context_window=200_000,
        )
    if provider == "openai-compatible":
        return Capabilities(provider=provider, family="openai-compatible", reasoning=True)
    return Capabilities(provider=provider, family=provider, reasoning=True)


def capabilities(provider: str, model: str, settings: dict[str, Any] | None = None) -> Capabilities:
    """The capability record of a model, with the spec's overrides applied (BadInput if bad)."""
    caps = _defaults(provider, model)
    overrides = {k: v for k, v in (settings or {}).items() if k in OVERRIDES}
    if not overrides:
        return caps
    try:
        return Capabilities.model_validate(
            {**caps.model_dump(), **overrides, "family": caps.family + "+spec"}
        )
    except ValueError as exc:
        first = str(exc).splitlines()[1:2] or [str(exc)]
        raise BadInput(
            f"capability override in the spec of {provider}/{model} is invalid: {first[0].strip()}"
        ) from None


def _bound_tools(tools: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """The first `limit` tools, keeping a `search_tools` finder if one is offered."""
    finder = [t for t in tools if (t.get("function") or {}).get("name") == "search_tools"]
    rest = [t for t in tools if t not in finder]
    return (finder + rest)[:limit] if finder else tools[:limit]


def adapt(
    caps: Capabilities, settings: dict[str, Any], tools: list[dict[str, Any]] | None
) -> tuple[dict[str, Any], list[dict[str, Any]] | None, list[str]]:
    """(settings, tools, changes): the request made acceptable to the model, and what changed."""
    settings = dict(settings)
    changes: list[str] = []

    def drop(key: str, why: str) -> None:
        if key in settings:
            changes.append(f"dropped {key}={settings.pop(key)!r}: {why}")

    if not caps.accepts_temperature:
        drop("temperature", f"{caps.family} accepts only the default temperature")
    temperature = settings.get("temperature")
    if (
        caps.max_temperature is not None
        and isinstance(temperature, int | float)
        and temperature > caps.max_temperature
    ):
        settings["temperature"] = caps.max_temperature
        changes.append(
            f"clamped temperature={temperature!r} to {caps.max_temperature:g}: "
            f"{caps.family} accepts at most {caps.max_temperature:g}"
        )
    if not caps.accepts_top_p:
        drop("top_p", f"{caps.family} accepts only the default top_p")
    if caps.family == "openai-reasoning":
        for key in (*REASONING_REJECTS[2:], *REASONING_REJECTS_ALSO):
            drop(key, "not supported by OpenAI reasoning models")
    if caps.temperature_xor_top_p and "temperature" in settings and "top_p" in settings:
        drop("top_p", f"{caps.family} rejects temperature together with top_p")
    if not caps.reasoning:
        drop("reasoning_effort", f"{caps.family} has no reasoning settings")

    if caps.max_tokens_param == "max_completion_tokens" and "max_tokens" in settings:
        value = settings.pop("max_tokens")
        if "max_completion_tokens" not in settings:
            settings["max_completion_tokens"] = value
            changes.append(f"renamed max_tokens={value!r} to max_completion_tokens")
        else:
            changes.append(f"dropped max_tokens={value!r}: max_completion_tokens is set")

    if tools:
        if caps.check_tool_names:
            for tool in tools:
                name = (tool.get("function") or tool).get("name", "")
                if not TOOL_NAME.match(str(name)):
                    raise BadInput(
                        f"tool name {name!r} is not accepted by {caps.provider} "
                        "(names must match ^[a-zA-Z0-9_-]{1,64}$)"
                    )
        if caps.max_tools is not None and len(tools) > caps.max_tools:
            changes.append(
                f"offered {caps.max_tools} of {len(tools)} tools: {caps.family} "
                f"allows at most {caps.max_tools}"
            )
            tools = _bound_tools(tools, caps.max_tools)
    return settings, tools, changes
