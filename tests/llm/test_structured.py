"""generate_structured: JSON extraction, validation and exactly one re-ask."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from scigate.llm import ModelCallRecord, extract_json, generate_structured, get_model

ASK = [{"role": "user", "content": "Describe benzene."}]


class Molecule(BaseModel):
    name: str
    atoms: int


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": 1}', {"a": 1}),
        ("  [1, 2]\n", [1, 2]),
        ('Sure!\n```json\n{"a": 1}\n```\nDone.', {"a": 1}),
        ('```\n{"a": [1, {"b": 2}]}\n```', {"a": [1, {"b": 2}]}),
        ('The answer is {"a": "x}y"} as requested.', {"a": "x}y"}),
        ('Broken {"a": first, then {"a": 2} works', {"a": 2}),
    ],
)
def test_extract_json(text, value):
    assert extract_json(text) == value


def test_extract_json_without_json():
    with pytest.raises(ValueError, match="no JSON"):
        extract_json("twelve atoms")


async def test_valid_answer_first_time(policy, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.py").write_text(
        "def answer(messages, tools=None, **kw):\n"
        "    assert messages[0]['role'] == 'system' and '\"atoms\"' in messages[0]['content']\n"
        '    return \'Here: {"name": "water", "atoms": 3}\'\n'
    )
    result = await generate_structured(get_model("python/good.py:answer"), ASK, Molecule)
    assert result.value == Molecule(name="water", atoms=3)
    assert result.error is None and result.ok
    assert len(result.outputs) == 1


async def test_malformed_then_valid_is_parsed_after_exactly_one_re_ask(policy):
    records: list[ModelCallRecord] = []
    model = get_model(policy("malformed_then_valid"), recorder=records.append)
    result = await generate_structured(model, ASK, Molecule)
    assert result.value == Molecule(name="benzene", atoms=12)
    assert result.error is None
    assert len(result.outputs) == 2
    assert len(records) == 2
    re_ask = records[1].messages
    assert re_ask[-2] == {"role": "assistant", "content": '{"name": "benzene", "atoms": 12'}
    assert re_ask[-1]["role"] == "user"
    assert "could not be used: the answer contains no JSON value" in re_ask[-1]["content"]


async def test_schema_violation_is_explained_in_the_re_ask(policy):
    records: list[ModelCallRecord] = []
    model = get_model(policy("wrong_type_then_valid"), recorder=records.append)
    result = await generate_structured(model, ASK, Molecule)
    assert result.value == Molecule(name="benzene", atoms=12)
    assert "atoms: Input should be a valid integer" in records[1].messages[-1]["content"]


async def test_malformed_twice_gives_an_error_and_no_value(policy):
    records: list[ModelCallRecord] = []
    model = get_model(policy("always_malformed"), recorder=records.append)
    result = await generate_structured(model, ASK, Molecule, temperature=0)
    assert result.value is None
    assert result.error == "no valid answer after one re-ask: the answer contains no JSON value"
    assert not result.ok
    assert len(result.outputs) == 2 and len(records) == 2  # asked again once, not more
    assert all(r.settings == {"temperature": 0} for r in records)
    assert result.usage.output_tokens == sum(o.usage.output_tokens for o in result.outputs) > 0
    assert result.cost is None


async def test_other_types_than_models(policy):
    model = get_model(policy("malformed_then_valid"))
    result = await generate_structured(model, ASK, dict[str, int | str])
    assert result.value == {"name": "benzene", "atoms": 12}


async def test_existing_system_message_is_extended(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sys.py").write_text(
        "def answer(messages, tools=None, **kw):\n"
        "    assert len(messages) == 2 and messages[0]['content'].startswith('Be exact.')\n"
        '    return \'{"name": "x", "atoms": 1}\'\n'
    )
    messages = [{"role": "system", "content": "Be exact."}, *ASK]
    result = await generate_structured(get_model("python/sys.py:answer"), messages, Molecule)
    assert result.value == Molecule(name="x", atoms=1)
    assert messages[0] == {"role": "system", "content": "Be exact."}
