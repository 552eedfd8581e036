"""Spec parsing: every form, shorthands, typed settings, and every error as BadInput."""

from __future__ import annotations

import pytest

from scigate.errors import BadInput
from scigate.llm import ModelSpec, get_model, parse_spec
from scigate.llm._python import PythonModel

# The SDK adapters are imported by the tests that need them: at collection the anthropic
# SDK alone cost every xdist worker 3.6 s.
pytestmark = pytest.mark.same_worker


def test_openai_spec_with_settings():
    spec = parse_spec("openai/gpt-5.5?reasoning_effort=medium&temperature=0.2&max_tokens=512")
    assert spec == ModelSpec(
        provider="openai",
        model="gpt-5.5",
        settings={"reasoning_effort": "medium", "temperature": 0.2, "max_tokens": 512},
        base_url=None,
        raw="openai/gpt-5.5?reasoning_effort=medium&temperature=0.2&max_tokens=512",
    )


def test_anthropic_spec():
    spec = parse_spec("anthropic/claude-opus-4-8")
    assert (spec.provider, spec.model, spec.settings, spec.base_url) == (
        "anthropic",
        "claude-opus-4-8",
        {},
        None,
    )


def test_openai_compatible_base_url_is_taken_out_of_settings():
    spec = parse_spec(
        "openai-compatible/meta-llama/Llama-3.1-8B?base_url=http://127.0.0.1:8000/v1/&seed=7"
    )
    assert spec.provider == "openai-compatible"
    assert spec.model == "meta-llama/Llama-3.1-8B"
    assert spec.base_url == "http://127.0.0.1:8000/v1"
    assert spec.settings == {"seed": 7}


@pytest.mark.parametrize(
    ("raw", "model", "base_url"),
    [
        ("ollama/qwen3:8b", "qwen3:8b", "http://127.0.0.1:11434/v1"),
        ("vllm/Qwen/Qwen3-8B", "Qwen/Qwen3-8B", "http://127.0.0.1:8000/v1"),
        ("ollama/llama3?base_url=http://gpu-box:11434/v1", "llama3", "http://gpu-box:11434/v1"),
    ],
)
def test_shorthands_become_openai_compatible(raw, model, base_url):
    from scigate.llm._openai import OpenAIModel

    spec = parse_spec(raw)
    assert (spec.provider, spec.model, spec.base_url, spec.raw) == (
        "openai-compatible",
        model,
        base_url,
        raw,
    )
    assert isinstance(get_model(raw), OpenAIModel)


def test_python_spec_keeps_path_and_function():
    spec = parse_spec("python/sub/dir/policy.py:answer?temperature=0")
    assert (spec.provider, spec.model, spec.settings) == (
        "python",
        "sub/dir/policy.py:answer",
        {"temperature": 0},
    )


def test_setting_values_are_typed():
    spec = parse_spec(
        "openai/m?i=3&neg=-2&f=0.5&e=1e-3&t=true&F=False&s=high&v=1.2.3"
        '&thinking={"type":"enabled","budget_tokens":2048}&q=a%26b%3Dc'
    )
    assert spec.settings == {
        "i": 3,
        "neg": -2,
        "f": 0.5,
        "e": 0.001,
        "t": True,
        "F": False,
        "s": "high",
        "v": "1.2.3",
        "thinking": {"type": "enabled", "budget_tokens": 2048},
        "q": "a&b=c",
    }
    assert type(spec.settings["i"]) is int and type(spec.settings["f"]) is float
    assert type(spec.settings["t"]) is bool


def test_provider_is_case_insensitive_and_spec_is_trimmed():
    spec = parse_spec("  OpenAI/gpt-4o ")
    assert (spec.provider, spec.model, spec.raw) == ("openai", "gpt-4o", "OpenAI/gpt-4o")


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ("", "empty model spec"),
        ("   ", "empty model spec"),
        ("gpt-4o", "no provider"),
        ("/gpt-4o", "no provider"),
        ("mistral/large", "unknown provider 'mistral'"),
        ("openai/", "names no model"),
        ("anthropic/?temperature=1", "names no model"),
        ("openai/gpt-4o?", "empty query"),
        ("openai/gpt-4o?temperature", "malformed query 'temperature'"),
        ("openai/gpt-4o?=1", "malformed query '=1'"),
        ("openai/gpt-4o?a=1&&b=2", "malformed query ''"),
        ("openai/gpt-4o?seed=1&seed=2", "'seed' given twice"),
        ("openai-compatible/m?base_url=ftp://host/v1", "not an http(s) URL"),
        ("openai-compatible/m?base_url=8000", "not an http(s) URL"),
        ("python/policy.py", "python/PATH.py:FUNCTION"),
        ("python/policy.py:", "python/PATH.py:FUNCTION"),
        ("python/:answer", "python/PATH.py:FUNCTION"),
        ("python/policy.txt:answer", "python/PATH.py:FUNCTION"),
        ("python/policy.py:not-a-name", "python/PATH.py:FUNCTION"),
    ],
)
def test_bad_specs_raise_one_line_bad_input(raw, fragment):
    with pytest.raises(BadInput) as info:
        parse_spec(raw)
    message = str(info.value)
    assert fragment in message
    assert "\n" not in message
    assert "PROVIDER/MODEL" in message or "PATH.py:FUNCTION" in message or "URL" in message


def test_get_model_builds_the_right_adapter(policy):
    from scigate.llm._anthropic import AnthropicModel
    from scigate.llm._openai import OpenAIModel

    assert isinstance(get_model("openai/gpt-4o"), OpenAIModel)
    assert isinstance(get_model("anthropic/claude-opus-4-8"), AnthropicModel)
    model = get_model(policy("echo"))
    assert isinstance(model, PythonModel)
    assert model.name == policy("echo")
    assert model.spec.provider == "python"
    # a parsed spec is accepted as well
    assert get_model(parse_spec("openai/gpt-4o")).name == "openai/gpt-4o"


def test_get_model_without_credentials_succeeds_but_first_call_says_what_is_missing():
    model = get_model("anthropic/claude-opus-4-8")
    assert model.name == "anthropic/claude-opus-4-8"


def test_missing_python_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BadInput, match=r"python model file 'nope\.py' not found") as info:
        get_model("python/nope.py:answer")
    assert "\n" not in str(info.value)
    assert "python/PATH.py:FUNCTION" in str(info.value)


def test_missing_function(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "policy.py").write_text("def answer(messages, tools=None, **kw):\n    return 'x'\n")
    with pytest.raises(BadInput, match=r"has no function 'missing'") as info:
        get_model("python/policy.py:missing")
    assert "\n" not in str(info.value)
    assert get_model("python/policy.py:answer").function.__name__ == "answer"


def test_python_file_that_fails_to_import(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken.py").write_text("import not_a_module_anywhere_42\n")
    with pytest.raises(
        BadInput, match=r"cannot load python model file 'broken\.py': ModuleNotFoundError"
    ):
        get_model("python/broken.py:answer")


def test_openai_compatible_needs_a_server(monkeypatch):
    with pytest.raises(BadInput, match="needs a server address"):
        get_model("openai-compatible/my-model")
    monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", "http://10.0.0.5:8000/v1")
    assert get_model("openai-compatible/my-model").base_url == "http://10.0.0.5:8000/v1"


def test_get_model_rejects_other_types():
    with pytest.raises(BadInput, match="must be a string"):
        get_model(42)  # type: ignore[arg-type]
