"""Model spec strings: ``PROVIDER/MODEL[?key=value&...]`` parsed into a `ModelSpec`."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import unquote

from pydantic import BaseModel, Field

from scigate.errors import BadInput

SPEC_FORM = "PROVIDER/MODEL[?key=value&...]"
PROVIDERS = ("openai", "anthropic", "openai-compatible", "python")
SHORTHANDS: dict[str, str] = {
    "ollama": "http://127.0.0.1:11434/v1",
    "vllm": "http://127.0.0.1:8000/v1",
}
ACCEPTED = "openai, anthropic, openai-compatible, ollama, vllm or python"

# Settings the model layer consumes itself; they are never sent to a provider.
LAYER_SETTINGS = frozenset(
    {"timeout", "max_retries", "concurrency", "retry_wait", "retry_wait_max", "api_key_env"}
    | {"anthropic_version"}  # the anthropic-version header (anthropic/ only)
) | frozenset(  # capability overrides (scigate.llm._capabilities.OVERRIDES)
    {"max_tools", "accepts_temperature", "accepts_top_p", "max_tokens_param", "reasoning"}
    | {"context_window", "max_temperature", "accepts_top_k", "accepts_prefill"}
)

_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?")


class ModelSpec(BaseModel):
    """A parsed model spec.

    `provider` is one of openai, anthropic, openai-compatible, python (the ollama and
    vllm shorthands become openai-compatible with their usual local `base_url`);
    `settings` are the query settings, typed; `raw` is the string as given.
    """

    provider: str
    model: str
    settings: dict[str, Any] = Field(default_factory=dict)
    base_url: str | None = None
    raw: str

    def __str__(self) -> str:
        return self.raw


def parse_value(text: str) -> Any:
    """Type a query value: int, float, bool, a JSON object/array, else the string."""
    if _INT.fullmatch(text):
        return int(text)
    if _FLOAT.fullmatch(text):
        return float(text)
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if text[:1] in "{[":
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return text
    return text


def _parse_query(spec: str, query: str) -> dict[str, Any]:
    settings: dict[str, Any] = {}
    for part in query.split("&"):
        key, sep, value = part.partition("=")
        key = unquote(key).strip()
        if not sep or not key:
            raise BadInput(
                f"malformed query {part!r} in model spec {spec!r}: "
                f"each setting must be key=value ({SPEC_FORM})"
            )
        if key in settings:
            raise BadInput(f"setting {key!r} given twice in model spec {spec!r} ({SPEC_FORM})")
        settings[key] = parse_value(unquote(value))
    return settings


def parse_spec(spec: str) -> ModelSpec:
    """Parse ``PROVIDER/MODEL[?key=value&...]``; raise `BadInput` naming the problem."""
    if not isinstance(spec, str) or not spec.strip():
        raise BadInput(f"empty model spec: expected {SPEC_FORM}")
    raw = spec.strip()
    head, qmark, query = raw.partition("?")
    provider, slash, model = head.partition("/")
    provider = provider.strip().lower()
    model = model.strip()
    if not slash or not provider:
        raise BadInput(f"model spec {raw!r} has no provider: expected {SPEC_FORM}")
    if provider not in PROVIDERS and provider not in SHORTHANDS:
        raise BadInput(
            f"unknown provider {provider!r} in model spec {raw!r}: use {ACCEPTED} ({SPEC_FORM})"
        )
    if not model:
        raise BadInput(f"model spec {raw!r} names no model: expected {SPEC_FORM}")
    if qmark and not query:
        raise BadInput(f"model spec {raw!r} has an empty query after '?': expected {SPEC_FORM}")
    settings = _parse_query(raw, query) if query else {}

    base_url = settings.pop("base_url", None)
    if provider in SHORTHANDS:
        base_url = base_url or SHORTHANDS[provider]
        provider = "openai-compatible"
    if base_url is not None:
        if not isinstance(base_url, str) or not re.match(r"https?://[^/\s]+", base_url):
            raise BadInput(
                f"base_url {base_url!r} in model spec {raw!r} is not an http(s) URL "
                "(e.g. ?base_url=http://127.0.0.1:8000/v1)"
            )
        base_url = base_url.rstrip("/")

    if provider == "python":
        path, colon, function = model.rpartition(":")
        if not colon or not path or not function.isidentifier() or not path.endswith(".py"):
            raise BadInput(
                f"python model spec {raw!r} must be python/PATH.py:FUNCTION "
                "(a Python file and the name of a function in it)"
            )
    return ModelSpec(provider=provider, model=model, settings=settings, base_url=base_url, raw=raw)
