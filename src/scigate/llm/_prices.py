"""Token prices and cost estimates.

Prices come from the maintained `genai-prices` package (pydantic/genai-prices: list prices
per provider and model, with cache-read rates, long-context tiers and price changes over
time), with the entries of ``$SCIGATE_PRICES`` (a JSON file of model -> USD per million
tokens) on top. The bundled prices.json is used only when genai-prices is not installed.
A model no source prices costs None (``null`` in the run database), never 0.
"""

from __future__ import annotations

import json
import os
import re
from functools import cache
from pathlib import Path
from typing import Any

from scigate.errors import BadInput
from scigate.llm._types import Usage

PRICES_FILE = Path(__file__).with_name("prices.json")
PRICES_ENV = "SCIGATE_PRICES"
# Providers whose models are billed at the table's list prices; a model served by an
# openai-compatible server is not, even when it carries the same name.
_BILLED_PROVIDERS = ("openai/", "anthropic/")
_DATED = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$")


def _read_table(path: Path) -> dict[str, dict[str, float]]:
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise BadInput(f"cannot read price table {path}: {exc}") from None
    if not isinstance(data, dict):
        raise BadInput(f"price table {path} must be a JSON object of model -> prices")
    table: dict[str, dict[str, float]] = {}
    for name, entry in data.items():
        if name.startswith("_"):
            continue
        if (
            not isinstance(entry, dict)
            or not all(isinstance(entry.get(k), int | float) for k in ("input", "output"))
            or not isinstance(entry.get("cached_input", 0.0), int | float)
        ):
            raise BadInput(
                f"price table {path}: entry {name!r} needs numeric input and output "
                "(and optionally cached_input), USD per million tokens"
            )
        table[name] = {k: float(v) for k, v in entry.items() if isinstance(v, int | float)}
    return table


@cache
def _load(override: str | None, mtime: float | None) -> dict[str, dict[str, float]]:
    table = _read_table(PRICES_FILE)
    if override:
        table.update(_read_table(Path(override)))
    return table


def price_table() -> dict[str, dict[str, float]]:
    """The bundled table (prices.json, used when genai-prices is not installed), overridden
    entry by entry by $SCIGATE_PRICES."""
    override = os.environ.get(PRICES_ENV) or None
    mtime = None
    if override:
        try:
            mtime = Path(override).stat().st_mtime
        except OSError as exc:
            raise BadInput(
                f"{PRICES_ENV} points at {override!r}, which cannot be read: {exc}"
            ) from None
    return _load(override, mtime)


def _lookup(model: str, table: dict[str, Any]) -> dict[str, float] | None:
    candidates = [model]
    for prefix in _BILLED_PROVIDERS:
        if model.startswith(prefix):
            candidates.append(model.removeprefix(prefix))
    for name in candidates:
        if name in table:
            return table[name]
        undated = _DATED.sub("", name)
        if undated in table:
            return table[undated]
    return None


@cache
def _override_table(override: str, mtime: float | None) -> dict[str, dict[str, float]]:
    return _read_table(Path(override))


def _genai_prices() -> Any | None:
    try:
        import genai_prices
    except ImportError:
        return None
    return genai_prices


def _genai_cost(model: str, usage: Usage, genai: Any) -> float | None:
    provider: str | None = None
    name = model
    for prefix in _BILLED_PROVIDERS:
        if model.startswith(prefix):
            provider, name = prefix.rstrip("/"), model.removeprefix(prefix)
    if provider is None and "/" in model:
        return None  # openai-compatible/, python/ ...: not billed at list prices
    cached = min(usage.cached_input_tokens, usage.input_tokens)
    try:
        result = genai.calc_price(
            genai.Usage(
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                cache_read_tokens=cached or None,
            ),
            model_ref=name,
            provider_id=provider,
        )
    except (LookupError, ValueError):
        return None
    return float(result.total_price)


def price_source() -> str:
    """Where prices come from, for reports: genai-prices (with its version), else prices.json."""
    genai = _genai_prices()
    base = f"genai-prices {genai.__version__}" if genai is not None else f"{PRICES_FILE.name}"
    override = os.environ.get(PRICES_ENV)
    return base + (f", overridden by {PRICES_ENV}" if override else "")


def estimate_cost(model: str, usage: Usage) -> float | None:
    """USD cost of `usage` on `model` ("gpt-4o" or "openai/gpt-4o"); None if the price is unknown."""
    override = os.environ.get(PRICES_ENV) or None
    prices = None
    if override:
        price_table()  # an unreadable override is BadInput
        prices = _lookup(model, _override_table(override, Path(override).stat().st_mtime))
    if prices is None:
        genai = _genai_prices()
        if genai is not None:
            return _genai_cost(model, usage, genai)
        prices = _lookup(model, price_table())
    if prices is None:
        return None
    cached = min(usage.cached_input_tokens, usage.input_tokens)
    cached_price = prices.get("cached_input", prices["input"])
    return (
        (usage.input_tokens - cached) * prices["input"]
        + cached * cached_price
        + usage.output_tokens * prices["output"]
    ) / 1_000_000
