"""One async model interface over every provider.

    model = get_model("openai/gpt-5.5?reasoning_effort=medium", recorder=db.record_call)
    output = await model.generate(messages, tools=tools, temperature=0)

Providers: ``openai`` and ``openai-compatible`` (official openai SDK, Chat Completions),
``anthropic`` (official anthropic SDK, Messages API), the ``ollama``/``vllm`` shorthands,
and ``python/PATH.py:FUNCTION`` callables. Messages and tools are OpenAI chat format
everywhere. Retries, timeouts, concurrency limits, usage, cost and call records are the
layer's job, the same for every provider.
"""

from scigate.llm._budget import Budget, active_budget, spending_limit
from scigate.llm._cache import (
    ResponseCache,
    active_cache,
    cache_file,
    cache_sample,
    cache_setting,
    response_cache,
)
from scigate.llm._capabilities import rules_report as capability_rules
from scigate.llm._errors import ModelError
from scigate.llm._model import Model, Recorder, set_call_limiter
from scigate.llm._prices import estimate_cost, price_table
from scigate.llm._registry import check_spec, get_model, providers_status
from scigate.llm._spec import ModelSpec, parse_spec
from scigate.llm._structured import StructuredResult, extract_json, generate_structured
from scigate.llm._types import ModelCallRecord, ModelOutput, ToolCall, Usage

__all__ = [
    "Budget",
    "Model",
    "ModelCallRecord",
    "ModelError",
    "ModelOutput",
    "ModelSpec",
    "Recorder",
    "ResponseCache",
    "StructuredResult",
    "ToolCall",
    "Usage",
    "active_budget",
    "active_cache",
    "cache_file",
    "cache_sample",
    "cache_setting",
    "capability_rules",
    "check_spec",
    "estimate_cost",
    "extract_json",
    "generate_structured",
    "get_model",
    "parse_spec",
    "price_table",
    "providers_status",
    "response_cache",
    "set_call_limiter",
    "spending_limit",
]
