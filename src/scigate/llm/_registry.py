"""`get_model` (spec -> provider adapter) and `providers_status` (for `scigate doctor`)."""

from __future__ import annotations

import os
from typing import Any

from scigate.errors import BadInput
from scigate.llm._model import Model, Recorder
from scigate.llm._spec import SHORTHANDS, ModelSpec, parse_spec


def _adapter(provider: str) -> type[Model] | None:
    """The adapter class of a provider; SDKs are imported only when a provider is used
    (importing both SDKs costs seconds at every CLI start)."""
    if provider in ("openai", "openai-compatible"):
        from scigate.llm._openai import OpenAIModel

        return OpenAIModel
    if provider == "anthropic":
        from scigate.llm._anthropic import AnthropicModel

        return AnthropicModel
    if provider == "python":
        from scigate.llm._python import PythonModel

        return PythonModel
    return None


def get_model(spec: str | ModelSpec, *, recorder: Recorder | None = None) -> Model:
    """The model a spec names; `recorder` receives a `ModelCallRecord` for every call.

    Raises BadInput for a malformed spec, an unknown provider, a missing python file or
    function, or an openai-compatible spec without a server address. Credentials are
    checked at the first call, so that models can be built (and listed) without them.
    """
    if isinstance(spec, str):
        spec = parse_spec(spec)
    elif not isinstance(spec, ModelSpec):
        raise BadInput(f"model spec must be a string PROVIDER/MODEL[?key=value&...], not {spec!r}")
    adapter = _adapter(spec.provider)
    if adapter is None:
        raise BadInput(f"unknown provider {spec.provider!r} in model spec {spec.raw!r}")
    return adapter(spec, recorder=recorder)


def check_spec(spec: str | ModelSpec) -> ModelSpec:
    """Check up front that a spec is usable, before any work: well formed, its python file
    and function load, its server address and provider key are present, its settings and
    capability overrides are valid. Raises `BadInput` with one clear line (CLI exit 2)."""
    from scigate.llm._model import split_settings

    model = get_model(spec)
    layer, _ = split_settings(dict(model.spec.settings), model.name)
    model._prepare(layer)  # credentials
    _ = model.capabilities  # validates capability overrides
    return model.spec


def _env(name: str) -> bool:
    return bool(os.environ.get(name))


def providers_status() -> list[dict[str, Any]]:
    """For `scigate doctor`: each provider, whether it is configured, and how (the names
    of the environment variables it reads; never their values)."""
    from scigate.llm._capabilities import sdk_anthropic_version
    from scigate.llm._openai import COMPATIBLE_KEY_ENV, COMPATIBLE_URL_ENV

    anthropic_how = "ANTHROPIC_API_KEY"
    if not _env("ANTHROPIC_API_KEY") and _env("ANTHROPIC_AUTH_TOKEN"):
        anthropic_how = "ANTHROPIC_AUTH_TOKEN"
    if _env("ANTHROPIC_BASE_URL"):
        anthropic_how += " + ANTHROPIC_BASE_URL"
    anthropic_how += (
        f"; anthropic-version {sdk_anthropic_version()} (the SDK's; ?anthropic_version= to pin)"
    )
    openai_how = "OPENAI_API_KEY" + (" + OPENAI_BASE_URL" if _env("OPENAI_BASE_URL") else "")
    compatible_how = (
        f"base_url in the spec or {COMPATIBLE_URL_ENV}; key from {COMPATIBLE_KEY_ENV} "
        "(optional) or the api_key_env setting"
    )
    rows = [
        {"provider": "openai", "configured": _env("OPENAI_API_KEY"), "how": openai_how},
        {
            "provider": "anthropic",
            "configured": _env("ANTHROPIC_API_KEY") or _env("ANTHROPIC_AUTH_TOKEN"),
            "how": anthropic_how,
        },
        # These need no credentials: whether a server is listening is a network question.
        {"provider": "openai-compatible", "configured": True, "how": compatible_how},
    ]
    rows += [
        {"provider": name, "configured": True, "how": f"local server at {url}"}
        for name, url in SHORTHANDS.items()
    ]
    rows.append(
        {
            "provider": "python",
            "configured": True,
            "how": "python/PATH.py:FUNCTION (no credentials)",
        }
    )
    return rows
