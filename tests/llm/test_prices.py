"""Price table, cost estimates and the provider status for `scigate doctor`."""

from __future__ import annotations

import json

import pytest

from scigate.errors import BadInput
from scigate.llm import Usage, estimate_cost, price_table, providers_status
from scigate.llm._prices import PRICES_FILE

USAGE = Usage(input_tokens=1_000_000, output_tokens=100_000, cached_input_tokens=200_000)


def test_price_file_is_data_with_a_note():
    data = json.loads(PRICES_FILE.read_text())
    assert "source" in data["_note"].lower() or "pricing" in data["_note"]
    table = price_table()
    assert "_note" not in table
    assert len(table) >= 5
    for name, entry in table.items():
        assert entry["input"] > 0 and entry["output"] > 0, name
        assert 0 < entry.get("cached_input", entry["input"]) <= entry["input"], name


def test_known_model_cost():
    expected = (800_000 * 2.5 + 200_000 * 1.25 + 100_000 * 10.0) / 1e6
    assert estimate_cost("gpt-4o", USAGE) == pytest.approx(expected)
    assert estimate_cost("openai/gpt-4o", USAGE) == pytest.approx(expected)
    assert estimate_cost("gpt-4o-2024-08-06", USAGE) == pytest.approx(expected)
    assert estimate_cost("anthropic/claude-opus-4-8", Usage(input_tokens=10, output_tokens=4)) == (
        pytest.approx((10 * 5.0 + 4 * 25.0) / 1e6)
    )


def test_unknown_model_cost_is_none_never_zero():
    assert estimate_cost("gpt-99-ultra", USAGE) is None
    assert estimate_cost("python/policy.py:answer", USAGE) is None
    assert estimate_cost("openai-compatible/gpt-4o", USAGE) is None
    # a different model is not priced like a prefix of its name
    assert estimate_cost("gpt-4o-not-a-model", USAGE) is None
    assert estimate_cost("anthropic/claude-nonesuch-9", USAGE) is None
    assert estimate_cost("gpt-4o", Usage()) == 0.0  # a known model with no tokens costs 0


def test_prices_can_be_overridden(tmp_path, monkeypatch):
    override = tmp_path / "prices.json"
    override.write_text(
        json.dumps(
            {
                "_note": "ours",
                "gpt-4o": {"input": 1.0, "output": 2.0},
                "my-local-model": {"input": 0.5, "output": 0.5, "cached_input": 0.1},
            }
        )
    )
    monkeypatch.setenv("SCIGATE_PRICES", str(override))
    usage = Usage(input_tokens=1_000_000, output_tokens=1_000_000)
    assert estimate_cost("gpt-4o", usage) == pytest.approx(3.0)
    assert estimate_cost("my-local-model", usage) == pytest.approx(1.0)
    assert estimate_cost("gpt-4o-mini", usage) == pytest.approx(0.75)  # untouched entries stay


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (None, "cannot be read"),
        ("{not json", "cannot read price table"),
        ('{"m": {"input": "cheap", "output": 1}}', "entry 'm' needs numeric input and output"),
        ("[1, 2]", "must be a JSON object"),
    ],
)
def test_bad_override_is_bad_input(tmp_path, monkeypatch, content, fragment):
    path = tmp_path / "prices.json"
    if content is not None:
        path.write_text(content)
    monkeypatch.setenv("SCIGATE_PRICES", str(path))
    with pytest.raises(BadInput, match=fragment):
        estimate_cost("gpt-4o", USAGE)


def test_providers_status_names_variables_never_values(monkeypatch):
    rows = {row["provider"]: row for row in providers_status()}
    assert set(rows) >= {"openai", "anthropic", "openai-compatible", "ollama", "vllm", "python"}
    assert rows["openai"]["configured"] is False
    assert rows["anthropic"]["configured"] is False
    assert rows["python"]["configured"] is True

    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-very-secret")
    rows = {row["provider"]: row for row in providers_status()}
    assert rows["openai"] == {"provider": "openai", "configured": True, "how": "OPENAI_API_KEY"}
    assert rows["anthropic"]["configured"] is True
    assert "very-secret" not in json.dumps(providers_status())


def test_prices_come_from_genai_prices():
    from genai_prices import Usage as GenaiUsage
    from genai_prices import calc_price

    from scigate.llm._prices import price_source

    assert price_source().startswith("genai-prices ")
    # a model the bundled table never listed is priced by the maintained package
    assert "o3" not in price_table()
    usage = Usage(input_tokens=1000, output_tokens=100, cached_input_tokens=200)
    expected = calc_price(
        GenaiUsage(input_tokens=1000, output_tokens=100, cache_read_tokens=200),
        model_ref="o3",
        provider_id="openai",
    ).total_price
    assert estimate_cost("openai/o3", usage) == pytest.approx(float(expected))
    assert estimate_cost("openai-compatible/o3", usage) is None  # a gateway's own price


def test_overrides_win_over_genai_prices(tmp_path, monkeypatch):
    override = tmp_path / "prices.json"
    override.write_text(json.dumps({"o3": {"input": 100.0, "output": 0.0}}))
    monkeypatch.setenv("SCIGATE_PRICES", str(override))
    assert estimate_cost("openai/o3", Usage(input_tokens=10_000)) == pytest.approx(1.0)


def test_without_genai_prices_the_bundled_table_is_used(monkeypatch):
    from scigate.llm import _prices

    monkeypatch.setattr(_prices, "_genai_prices", lambda: None)
    assert _prices.price_source() == "prices.json"
    assert estimate_cost("gpt-4o", USAGE) == pytest.approx(3.25)
    assert estimate_cost("openai/o3", USAGE) is None  # not in the bundled table: null, not 0
