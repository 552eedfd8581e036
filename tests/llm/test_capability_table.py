"""The capability table (scigate/llm/capabilities.json): every rule sourced, dated and
effective; family rules whatever the prefix; the Anthropic API version; the spec's
overrides; and reading a provider's refusal."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from datetime import date

import pytest

from scigate.errors import BadInput
from scigate.llm._capabilities import (
    RULES_FILE,
    Fix,
    adapt,
    adapt_messages,
    capabilities,
    refusal_fix,
    rule_table,
    rules_report,
    sdk_anthropic_version,
)

RULES = rule_table()
IDS = [r["id"] for r in RULES]


def test_rule_ids_are_unique():
    assert len(IDS) == len(set(IDS))


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_every_rule_has_a_source_and_a_check_date(rule):
    source = rule.get("source") or {}
    assert re.match(r"https?://\S+$", source.get("page", "")), "no documentation page"
    assert source.get("says"), "no statement of what the page says"
    assert source.get("date_is") in ("published", "read")
    published = date.fromisoformat(source["date"])
    checked = date.fromisoformat(rule["checked"])
    assert published <= checked <= date.today()


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_every_rule_changes_what_its_example_gets(rule):
    # a rule whose removal changes nothing is dead (or shadowed): it fails here
    example = rule["example"]
    args = (example["provider"], example["model"], example.get("settings"))
    with_rule = capabilities(*args).model_dump(exclude={"rules"})
    without = tuple(r for r in RULES if r is not rule)
    assert rule["id"] in capabilities(*args).rules
    assert capabilities(*args, rules=without).model_dump(exclude={"rules"}) != with_rule


def test_the_report_lists_every_rule_with_its_source():
    rows = rules_report()
    assert [r["id"] for r in rows] == IDS
    assert all(r["source"] and r["source_date"] and r["checked"] for r in rows)


def test_doctor_providers_shows_the_table():
    p = subprocess.run(
        [sys.executable, "-m", "scigate", "doctor", "--providers", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    report = json.loads(p.stdout)
    assert [r["id"] for r in report["capability_rules"]] == IDS
    assert {r["provider"] for r in report["providers"]} >= {"openai", "anthropic"}


def test_a_table_without_sources_fails_the_check(tmp_path):
    # the check above is a real one: a rule stripped of its source is caught
    data = json.loads(RULES_FILE.read_text())
    data["rules"][0].pop("source")
    with pytest.raises(AssertionError):
        test_every_rule_has_a_source_and_a_check_date(data["rules"][0])


# -- family rules whatever the prefix ---------------------------------------------------------


@pytest.mark.parametrize("provider", ["openai", "openai-compatible"])
@pytest.mark.parametrize("model", ["gpt-5.4-mini", "gpt-5.5", "o3", "o4-mini", "openai/gpt-5.2"])
def test_openai_reasoning_rules_apply_under_any_prefix(provider, model):
    caps = capabilities(provider, model)
    assert caps.family == "openai-reasoning"
    assert not caps.accepts_temperature and not caps.accepts_top_p
    assert caps.max_tokens_param == "max_completion_tokens"
    settings, _, changes = adapt(caps, {"temperature": 0.3, "max_tokens": 9, "logprobs": 1}, None)
    assert settings == {"max_completion_tokens": 9}
    assert len(changes) == 3


@pytest.mark.parametrize("model", ["gpt-5-chat-latest", "gpt-4.1", "gpt-4o", "qwen3-8b"])
def test_chat_models_keep_temperature_under_any_prefix(model):
    for provider in ("openai", "openai-compatible"):
        assert capabilities(provider, model).accepts_temperature


@pytest.mark.parametrize("provider", ["anthropic", "openai-compatible"])
@pytest.mark.parametrize(
    "model",
    ["claude-opus-4-7", "claude-opus-4-8", "claude-sonnet-5", "claude-haiku-5-5", "claude-opus-5"],
)
def test_claude_4_7_and_later_take_no_sampling_parameters_under_any_version(provider, model):
    for version in ("2023-06-01", "2026-10-21"):
        caps = capabilities(provider, model, {"anthropic_version": version})
        assert not (caps.accepts_temperature or caps.accepts_top_p or caps.accepts_top_k)
        assert caps.thinking == "adaptive" and not caps.accepts_prefill


def test_open_models_are_recognised_and_unrestricted():
    caps = capabilities("openai-compatible", "Qwen/Qwen3-8B")
    assert caps.family == "open-weights" and caps.accepts_temperature and caps.max_tools is None


def test_python_callables_take_whatever_they_are_given():
    caps = capabilities("python", "/x/gpt-5.py:answer")
    assert caps.accepts_temperature and caps.rules == []


def test_the_specs_capabilities_override_the_family():
    caps = capabilities("openai-compatible", "gpt-5.4-mini", {"accepts_temperature": True})
    assert caps.accepts_temperature and caps.family == "openai-reasoning+spec"
    caps = capabilities("anthropic", "claude-opus-4-8", {"accepts_prefill": True})
    assert caps.accepts_prefill
    with pytest.raises(BadInput):
        capabilities("openai", "gpt-5", {"accepts_top_k": "maybe"})


# -- the Anthropic API version -------------------------------------------------------------------


def test_the_sdks_default_version_is_read_from_the_installed_sdk():
    import anthropic._constants

    assert sdk_anthropic_version() == anthropic._constants.ANTHROPIC_API_VERSION


def test_api_version_2026_10_21_removes_sampling_parameters_for_every_model():
    caps = capabilities("anthropic", "claude-sonnet-4-5", {"anthropic_version": "2026-10-21"})
    settings, _, changes = adapt(caps, {"temperature": 1.0, "top_p": 0.9, "top_k": 5}, None)
    assert settings == {}
    assert all("anthropic-version 2026-10-21 removed sampling parameters" in c for c in changes)
    # the previous version keeps today's per-model rules
    caps = capabilities("anthropic", "claude-sonnet-4-5", {"anthropic_version": "2023-06-01"})
    settings, _, _ = adapt(caps, {"temperature": 0.4, "top_p": 0.9}, None)
    assert settings == {"temperature": 0.4}  # ...temperature xor top_p


def test_a_malformed_version_is_bad_input():
    with pytest.raises(BadInput, match="anthropic_version"):
        capabilities("anthropic", "claude-sonnet-4-5", {"anthropic_version": "latest"})


def test_thinking_and_effort_follow_the_model():
    opus = capabilities("anthropic", "claude-opus-4-8")
    settings, _, changes = adapt(
        opus, {"thinking": {"type": "enabled", "budget_tokens": 4000}}, None
    )
    assert settings == {"thinking": {"type": "adaptive"}} and "adaptive" in changes[0]
    assert adapt(opus, {"reasoning_effort": "xhigh"}, None)[0] == {"reasoning_effort": "xhigh"}
    sonnet46 = capabilities("anthropic", "claude-sonnet-4-6")
    assert adapt(sonnet46, {"reasoning_effort": "xhigh"}, None)[0] == {"reasoning_effort": "high"}
    assert adapt(sonnet46, {"output_config": {"effort": "max"}}, None)[2] == []
    sonnet45 = capabilities("anthropic", "claude-sonnet-4-5")
    settings, _, changes = adapt(sonnet45, {"reasoning_effort": "high"}, None)
    assert settings == {} and "no effort setting" in changes[0]
    settings, _, _ = adapt(sonnet45, {"thinking": {"type": "adaptive"}}, None)
    assert settings["thinking"]["type"] == "enabled"
    haiku5 = capabilities("anthropic", "claude-haiku-5-5")
    assert adapt(haiku5, {"reasoning_effort": "max"}, None)[0] == {"reasoning_effort": "high"}


def test_no_assistant_prefill_from_4_6_on():
    messages = [{"role": "user", "content": "JSON?"}, {"role": "assistant", "content": "{"}]
    kept, changes = adapt_messages(capabilities("anthropic", "claude-sonnet-4-6"), messages)
    assert kept == messages[:1] and "prefill" in changes[0]
    assert adapt_messages(capabilities("anthropic", "claude-sonnet-4-5"), messages) == (
        messages,
        [],
    )


# -- reading a refusal ---------------------------------------------------------------------------

SENT = {"temperature": 0.2, "top_p": 0.9, "top_k": 5, "seed": 1, "max_tokens": 9}


@pytest.mark.parametrize(
    ("message", "param", "fix"),
    [
        (
            "Unsupported value: 'temperature' does not support 0.2 with this model. Only the "
            "default (1) value is supported.",
            "temperature",
            Fix("drop", "temperature"),
        ),
        ("top_k: Extra inputs are not permitted", None, Fix("drop", "top_k")),
        ("`temperature` is deprecated for this model.", None, Fix("drop", "temperature")),
        (
            "`temperature` and `top_p` cannot both be specified for this model.",
            None,
            Fix("drop", "top_p"),
        ),
        ("Unrecognized request argument supplied: seed", None, Fix("drop", "seed")),
        (
            "litellm.UnsupportedParamsError: gpt-5 models don't support temperature=0.2.",
            None,
            Fix("drop", "temperature"),
        ),
        (
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
            "'max_completion_tokens' instead.",
            "max_tokens",
            Fix("rename", "max_tokens", "max_completion_tokens"),
        ),
        # a required setting is never dropped; a refusal naming nothing sent is no fix
        ("max_tokens: Extra inputs are not permitted", None, None),
        ("Invalid parameter: messages with role 'tool' must be a response", None, None),
        ("Rate limit reached", None, None),
    ],
)
def test_refusals_are_read_in_both_providers_and_gateways_wordings(message, param, fix):
    assert refusal_fix(message, param, SENT, None) == fix


def test_thinking_tool_count_and_prefill_refusals():
    said = '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive"'
    thinking = {"thinking": {"type": "enabled", "budget_tokens": 9}}
    assert refusal_fix(said, None, thinking, None) == Fix("adaptive_thinking", "thinking")
    tools = [{"type": "function", "function": {"name": f"t{i}"}} for i in range(140)]
    said = "Invalid 'tools': array too long. Expected an array with maximum length 128"
    assert refusal_fix(said, "tools", {}, tools) == Fix("bound_tools", limit=128)
    messages = [{"role": "user", "content": "x"}, {"role": "assistant", "content": "{"}]
    said = "Prefilling assistant messages is not supported for this model."
    assert refusal_fix(said, None, {}, None, messages) == Fix("no_prefill")
