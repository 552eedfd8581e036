"""What a provider's model accepts, and adapting a request to it.

The rules are data: ``capabilities.json`` beside this module, one rule per documented
constraint, each with its source (a documentation page and its date) and the date it was
last checked (``scigate doctor --providers`` shows them). A rule is keyed on the provider
(the wire format: the OpenAI API's 128-tool limit, the Messages API's required
``max_tokens``), on the model family recognised from the model name whatever the prefix
(``openai/``, ``openai-compatible/``, ``vllm/``, ``ollama/`` or ``anthropic/``: a gateway
serving ``gpt-5.4`` forwards to a reasoning model that refuses ``temperature``), or on the
Anthropic API version (2026-10-21 removed ``temperature``/``top_p``/``top_k``; the version
is the installed SDK's default unless the spec sets ``?anthropic_version=2023-06-01``).

Every field can be overridden in the spec's query (``?max_tools=64&accepts_temperature=false``);
these keys are consumed by the layer and never sent. `adapt` rewrites one request to fit and
returns a line per change, which the model layer records with the call. What the table does
not know, a provider's refusal teaches at run time: `refusal_fix` reads a 400 naming a
parameter and says how to change the request (the model layer retries once, records it and
remembers it for that endpoint and model).
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from scigate.errors import BadInput

RULES_FILE = Path(__file__).with_name("capabilities.json")
OPENAI_MAX_TOOLS = 128
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
ANTHROPIC_VERSIONS = ("2023-06-01", "2026-10-21")
FALLBACK_ANTHROPIC_VERSION = "2023-06-01"
EFFORT_ORDER = ("low", "medium", "high", "xhigh", "max")

# Spec query keys that override a capability (consumed by the layer, never sent).
OVERRIDES = frozenset(
    {
        "max_tools",
        "accepts_temperature",
        "accepts_top_p",
        "accepts_top_k",
        "accepts_prefill",
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
    accepts_top_k: bool = True
    max_temperature: float | None = None  # larger temperatures are clamped to it
    temperature_xor_top_p: bool = False  # only one of the two may be sent
    max_tokens_param: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"
    requires_max_tokens: bool = False
    reasoning: bool = True  # accepts reasoning settings (reasoning_effort)
    check_tool_names: bool = False  # enforce TOOL_NAME on function names
    context_window: int | None = None
    drops: list[str] = Field(default_factory=list)  # other settings the model refuses
    # Anthropic thinking: "budget" (type enabled + budget_tokens only), "both", "adaptive"
    # (type adaptive only); None: unknown, sent as given
    thinking: Literal["budget", "both", "adaptive"] | None = None
    effort_levels: list[str] | None = None  # None: unknown; []: no effort setting
    accepts_prefill: bool = True  # a trailing assistant message continued by the model
    api_version: str | None = None  # the Anthropic API version the rules were taken for
    rules: list[str] = Field(default_factory=list)  # ids of the table's rules that applied


# -- the table -------------------------------------------------------------------------------


@cache
def rule_table() -> tuple[dict[str, Any], ...]:
    """The rules of capabilities.json, in order (validated: a bad table is a bug)."""
    data = json.loads(RULES_FILE.read_text())
    rules = tuple(data["rules"])
    fields = set(Capabilities.model_fields)
    for rule in rules:
        unknown = set(rule.get("set", {})) - fields
        if unknown:
            raise ValueError(f"capability rule {rule.get('id')!r} sets unknown fields {unknown}")
        if "model" in rule:
            re.compile(rule["model"], re.I)
    return rules


@cache
def sdk_anthropic_version() -> str:
    """The anthropic-version header the installed anthropic SDK sends by default (read
    without importing the SDK, which takes seconds)."""
    constants = sys.modules.get("anthropic._constants")
    if constants is not None:
        return str(getattr(constants, "ANTHROPIC_API_VERSION", FALLBACK_ANTHROPIC_VERSION))
    try:
        spec = importlib.util.find_spec("anthropic")
        origin = Path(spec.origin) if spec and spec.origin else None
        text = origin.with_name("_constants.py").read_text() if origin else ""
    except (ImportError, OSError, ValueError):
        text = ""
    match = re.search(r"ANTHROPIC_API_VERSION\s*=\s*['\"]([^'\"]+)['\"]", text)
    return match.group(1) if match else FALLBACK_ANTHROPIC_VERSION


def anthropic_version(settings: dict[str, Any] | None) -> str:
    """The API version an anthropic/ spec sends: ?anthropic_version=..., else the SDK's."""
    version = (settings or {}).get("anthropic_version")
    if version is None:
        return sdk_anthropic_version()
    if not isinstance(version, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", version):
        raise BadInput(
            f"anthropic_version={version!r} must be an API version date such as 2023-06-01 "
            f"(known: {', '.join(ANTHROPIC_VERSIONS)})"
        )
    return version


def model_name(model: str) -> str:
    """The model's own name: what follows the last '/' (org/Model, a gateway's prefix)."""
    return model.rsplit("/", 1)[-1].strip()


def _applies(rule: dict[str, Any], provider: str, name: str, version: str | None) -> bool:
    providers = rule.get("providers")
    if providers is not None and provider not in providers:
        return False
    if providers is None and provider == "python":
        return False  # python/ callables take whatever they are given
    if "model" in rule and not re.search(rule["model"], name, re.I):
        return False
    since = rule.get("api_version_from")
    return since is None or (version is not None and version >= since)


def _defaults(
    provider: str, model: str, settings: dict[str, Any] | None, rules: tuple[dict, ...]
) -> Capabilities:
    name = model_name(model)
    version = anthropic_version(settings) if provider == "anthropic" else None
    values: dict[str, Any] = {"provider": provider, "family": provider, "api_version": version}
    applied: list[str] = []
    for rule in rules:
        if _applies(rule, provider, name, version):
            values.update(rule.get("set", {}))
            if rule.get("family"):
                values["family"] = rule["family"]
            applied.append(rule["id"])
    return Capabilities(**values, rules=applied)


def capabilities(
    provider: str,
    model: str,
    settings: dict[str, Any] | None = None,
    *,
    rules: tuple[dict[str, Any], ...] | None = None,
) -> Capabilities:
    """The capability record of a model, with the spec's overrides applied (BadInput if bad)."""
    caps = _defaults(provider, model, settings, rule_table() if rules is None else rules)
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


def rules_report() -> list[dict[str, Any]]:
    """For `scigate doctor --providers`: each rule, what it applies to, its source."""
    rows = []
    for rule in rule_table():
        where = []
        if rule.get("providers"):
            where.append("provider " + "/".join(rule["providers"]))
        if rule.get("model"):
            where.append(f"model ~ {rule['model']}")
        if rule.get("api_version_from"):
            where.append(f"anthropic-version >= {rule['api_version_from']}")
        source = rule.get("source") or {}
        rows.append(
            {
                "id": rule["id"],
                "applies_to": "; ".join(where) or "every model",
                "family": rule.get("family"),
                "sets": rule.get("set", {}),
                "source": source.get("page"),
                "source_date": source.get("date"),
                "checked": rule.get("checked"),
            }
        )
    return rows


# -- adapting a request ----------------------------------------------------------------------


def _bound_tools(tools: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """The first `limit` tools, keeping a `search_tools` finder if one is offered."""
    finder = [t for t in tools if (t.get("function") or {}).get("name") == "search_tools"]
    rest = [t for t in tools if t not in finder]
    return (finder + rest)[:limit] if finder else tools[:limit]


def _effort(levels: list[str], wanted: str) -> str | None:
    """The supported effort level nearest below `wanted` (None: none supported)."""
    if wanted in levels:
        return wanted
    rank = EFFORT_ORDER.index(wanted) if wanted in EFFORT_ORDER else len(EFFORT_ORDER)
    below = [level for level in levels if level in EFFORT_ORDER[: rank + 1]]
    return below[-1] if below else (levels[0] if levels else None)


def adapt(
    caps: Capabilities, settings: dict[str, Any], tools: list[dict[str, Any]] | None
) -> tuple[dict[str, Any], list[dict[str, Any]] | None, list[str]]:
    """(settings, tools, changes): the request made acceptable to the model, and what changed."""
    settings = dict(settings)
    changes: list[str] = []
    why_version = (
        f"anthropic-version {caps.api_version} removed sampling parameters"
        if "anthropic-api-2026-10-21" in caps.rules
        else None
    )

    def drop(key: str, why: str) -> None:
        if key in settings:
            changes.append(f"dropped {key}={settings.pop(key)!r}: {why}")

    for key, accepted in (
        ("temperature", caps.accepts_temperature),
        ("top_p", caps.accepts_top_p),
        ("top_k", caps.accepts_top_k),
    ):
        if not accepted:
            drop(key, why_version or f"{caps.family} accepts only the default {key}")
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
    for key in caps.drops:
        drop(key, f"not supported by {caps.family} models")
    if caps.temperature_xor_top_p and "temperature" in settings and "top_p" in settings:
        drop("top_p", f"{caps.family} rejects temperature together with top_p")
    if not caps.reasoning:
        drop("reasoning_effort", f"{caps.family} has no reasoning settings")

    _adapt_thinking(caps, settings, changes)

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


def _adapt_thinking(caps: Capabilities, settings: dict[str, Any], changes: list[str]) -> None:
    """Thinking and effort settings as the model documents them."""
    thinking = settings.get("thinking")
    if isinstance(thinking, dict):
        kind = thinking.get("type")
        if caps.thinking == "adaptive" and kind == "enabled":
            settings["thinking"] = {
                k: v for k, v in thinking.items() if k not in ("type", "budget_tokens")
            } | {"type": "adaptive"}
            changes.append(
                f"converted thinking={thinking!r} to adaptive thinking: {caps.family} "
                "supports adaptive thinking only (no budget_tokens)"
            )
        elif caps.thinking == "budget" and kind == "adaptive":
            settings["thinking"] = {"type": "enabled", "budget_tokens": 2048}
            changes.append(
                f"converted thinking={thinking!r} to budget_tokens=2048: {caps.family} "
                "has no adaptive thinking"
            )
    if caps.effort_levels is None:
        return
    raw_config = settings.get("output_config")
    output_config: dict[str, Any] = raw_config if isinstance(raw_config, dict) else {}
    for where, wanted in (
        ("reasoning_effort", settings.get("reasoning_effort")),
        (
            "output_config.effort",
            output_config.get("effort"),
        ),
    ):
        if wanted is None or wanted == "none":
            continue
        level = _effort(caps.effort_levels, "low" if wanted == "minimal" else str(wanted))
        if level == wanted:
            continue
        if level is None:
            if where == "reasoning_effort":
                settings.pop("reasoning_effort")
            else:
                rest = {k: v for k, v in output_config.items() if k != "effort"}
                settings["output_config"] = rest
                if not rest:
                    settings.pop("output_config")
            changes.append(f"dropped {where}={wanted!r}: {caps.family} has no effort setting")
        else:
            if where == "reasoning_effort":
                settings["reasoning_effort"] = level
            else:
                settings["output_config"] = {**output_config, "effort": level}
            changes.append(
                f"changed {where}={wanted!r} to {level!r}: {caps.family} supports "
                f"{', '.join(caps.effort_levels)}"
            )


def adapt_messages(
    caps: Capabilities, messages: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[str]]:
    """The conversation without a trailing assistant prefill when the model refuses one."""
    if caps.accepts_prefill or not messages:
        return messages, []
    last = messages[-1]
    if last.get("role") != "assistant" or last.get("tool_calls"):
        return messages, []
    return messages[:-1], [
        f"dropped the trailing assistant message (prefill): {caps.family} does not accept "
        "assistant prefill"
    ]


# -- adapting to a refusal -------------------------------------------------------------------

# Wordings of a refused parameter: OpenAI ("Unsupported parameter: 'x'", "Unsupported value:
# 'x' does not support ..."), Anthropic ("x: Extra inputs are not permitted", "`x` is
# deprecated for this model", "x and y cannot both be specified"), and gateways (LiteLLM
# "... don't support x=...", Azure "Unrecognized request argument supplied: x", pydantic
# servers "Extra inputs are not permitted", "unknown field", "not allowed").
_REFUSAL = re.compile(
    r"unsupported|not supported|don'?t support|does not support|deprecated|not permitted|"
    r"not allowed|unrecogni[sz]ed|unknown (?:parameter|field|argument)|extra (?:inputs|fields)|"
    r"cannot both be|no longer (?:supported|accepted)|is not a valid (?:parameter|argument)|"
    r"invalid (?:parameter|argument)",
    re.I,
)
_TOOL_LIMIT = re.compile(
    r"(?:maximum (?:length|number)(?: of)?|at most|up to|no more than|limit(?: of| is)?|max(?:imum)?)"
    r"\D{0,24}?(\d+)",
    re.I,
)
_NEVER_DROPPED = frozenset({"model", "messages", "stream"})


@dataclass(frozen=True)
class Fix:
    """One change a provider's refusal asked for: drop or rename a setting, convert thinking
    to adaptive, bound the tools offered, or leave out an assistant prefill."""

    kind: Literal["drop", "rename", "adaptive_thinking", "bound_tools", "no_prefill"]
    key: str = ""
    to: str = ""
    limit: int = 0


def _named(key: str, text: str) -> int:
    match = re.search(rf"(?<![\w-]){re.escape(key)}(?![\w-])", text)
    return match.start() if match else -1


def refusal_fix(
    message: str,
    param: str | None,
    settings: dict[str, Any],
    tools: list[dict[str, Any]] | None,
    messages: list[dict[str, Any]] | None = None,
) -> Fix | None:
    """How to change a request a provider refused (a 400), or None when the refusal names
    nothing the layer sent that it may change."""
    text = " ".join(str(message).split())
    lowered = text.lower()
    if tools and "tool" in lowered:
        limit = _TOOL_LIMIT.search(text)
        if limit and ("too long" in lowered or "too many" in lowered or "exceed" in lowered):
            n = int(limit.group(1))
            if 0 < n < len(tools):
                return Fix("bound_tools", limit=n)
    if "prefill" in lowered and messages and messages[-1].get("role") == "assistant":
        return Fix("no_prefill")
    if not _REFUSAL.search(text):
        return None
    named: list[tuple[int, str]] = []
    if param:
        root = re.split(r"[.\[]", str(param))[0]
        if root in settings:
            named.append((-1, root))
    for key in settings:
        if key in _NEVER_DROPPED or key.startswith("_"):
            continue
        at = _named(key, text)
        if at >= 0:
            named.append((at, key))
    if not named:
        return None
    # "`temperature` and `top_p` cannot both be specified": keep the first, drop the second
    key = (max if "cannot both" in lowered else min)(named)[1]
    if key == "thinking" and "adaptive" in lowered:
        return Fix("adaptive_thinking", key="thinking")
    if key == "max_tokens":
        if "max_completion_tokens" in text and "max_completion_tokens" not in settings:
            return Fix("rename", key="max_tokens", to="max_completion_tokens")
        if "max_completion_tokens" not in settings:
            return None  # a required setting (Messages API): never dropped
    if key == "max_completion_tokens" and "max_tokens" in text and "max_tokens" not in settings:
        return Fix("rename", key="max_completion_tokens", to="max_tokens")
    return Fix("drop", key=key)


def apply_fix(
    fix: Fix,
    settings: dict[str, Any],
    tools: list[dict[str, Any]] | None,
    messages: list[dict[str, Any]],
) -> tuple[dict[str, Any], list[dict[str, Any]] | None, list[dict[str, Any]], str | None]:
    """(settings, tools, messages, change): the request with `fix` applied; change is None
    when the fix changes nothing in this request."""
    settings = dict(settings)
    if fix.kind == "drop" and fix.key in settings:
        return settings, tools, messages, f"dropped {fix.key}={settings.pop(fix.key)!r}"
    if fix.kind == "rename" and fix.key in settings and fix.to not in settings:
        value = settings.pop(fix.key)
        settings[fix.to] = value
        return settings, tools, messages, f"renamed {fix.key}={value!r} to {fix.to}"
    if fix.kind == "adaptive_thinking":
        thinking = settings.get("thinking")
        if isinstance(thinking, dict) and thinking.get("type") != "adaptive":
            settings["thinking"] = {
                k: v for k, v in thinking.items() if k not in ("type", "budget_tokens")
            } | {"type": "adaptive"}
            return settings, tools, messages, f"converted thinking={thinking!r} to adaptive"
    if fix.kind == "bound_tools" and tools and len(tools) > fix.limit:
        change = f"offered {fix.limit} of {len(tools)} tools"
        return settings, _bound_tools(tools, fix.limit), messages, change
    if fix.kind == "no_prefill" and messages and messages[-1].get("role") == "assistant":
        return settings, tools, messages[:-1], "dropped the trailing assistant message (prefill)"
    return settings, tools, messages, None
