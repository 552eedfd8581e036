"""`scigate tools serve-mcp` over stdio, launched as Claude Desktop or Cursor launch it:
the `scigate` console script as a subprocess, spoken to by the official `mcp` client."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from mcp import ClientSession, StdioServerParameters

# the mcp client (1.6 s to import) is loaded by the tests, on one worker
pytestmark = pytest.mark.same_worker

SCIGATE = str(Path(sys.executable).with_name("scigate"))


def _params(*extra: str, env: dict[str, str] | None = None) -> StdioServerParameters:
    from mcp import StdioServerParameters

    base = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "PYTHONPATH")}
    return StdioServerParameters(
        command=SCIGATE, args=["tools", "serve-mcp", *extra], env={**base, **(env or {})}
    )


def _payload(result: Any) -> dict[str, Any]:
    return json.loads(result.content[0].text)


def _list_bytes(tools: list[Any]) -> int:
    return len(json.dumps([t.model_dump(mode="json", exclude_none=True) for t in tools]))


async def _session_run(params: StdioServerParameters, body: Any) -> Any:
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return await body(session)


@pytest.mark.slow
async def test_full_mode_lists_described_schemas_and_calls_a_tool() -> None:
    secret = "sk-test-cli23-0123456789abcdef"

    async def body(session: ClientSession) -> Any:
        listed = (await session.list_tools()).tools
        weight = await session.call_tool("SMILESToWeight", {"smiles": "CCO"})
        echoed = await session.call_tool("SMILESToWeight", {"smiles": secret})
        return listed, weight, echoed

    listed, weight, echoed = await _session_run(
        _params("--domain", "chemistry", env={"OPENAI_API_KEY": secret}), body
    )
    names = {t.name for t in listed}
    assert {"SMILESToWeight", "NameToSMILES"} <= names and len(names) > 50
    for t in listed:
        for pname, prop in t.input_schema.get("properties", {}).items():
            assert prop.get("description"), (t.name, pname)
            assert "type" in prop or "anyOf" in prop or "enum" in prop, (t.name, pname)
    assert any(
        "enum" in p or any("enum" in a for a in p.get("anyOf", []))
        for t in listed
        for p in t.input_schema.get("properties", {}).values()
    )
    assert not weight.is_error
    assert abs(_payload(weight)["value"] - 46.069) < 0.01
    # a failed call is flagged and its text carries no credential of the server's environment
    assert echoed.is_error and secret not in echoed.content[0].text


@pytest.mark.slow
async def test_finder_mode_lists_two_tools_that_find_and_call_the_library() -> None:
    async def body(session: ClientSession) -> Any:
        listed = (await session.list_tools()).tools
        found = await session.call_tool("find_tools", {"query": "molecular weight of a SMILES"})
        called = await session.call_tool(
            "call_tool", {"name": "SMILESToWeight", "arguments": {"smiles": "CCO"}}
        )
        unknown = await session.call_tool("call_tool", {"name": "SMILESToWieght"})
        return listed, found, called, unknown

    listed, found, called, unknown = await _session_run(_params("--mode", "finder"), body)
    assert sorted(t.name for t in listed) == ["call_tool", "find_tools"]
    assert _list_bytes(listed) < 4000
    for t in listed:
        for prop in t.input_schema["properties"].values():
            assert prop["description"] and "type" in prop
    hits = _payload(found)["value"]
    assert "SMILESToWeight" in [h["name"] for h in hits]
    assert all(h["input_schema"]["type"] == "object" and h["description"] for h in hits)
    assert abs(_payload(called)["value"] - 46.069) < 0.01
    assert unknown.is_error and "did you mean SMILESToWeight" in _payload(unknown)["error"]


def test_every_library_parameter_is_described() -> None:
    from scigate.tools import load_library
    from scigate.tools._mcp import mcp_input_schema

    seen_enum = False
    for t in load_library().values():
        schema = mcp_input_schema(t)
        assert schema["type"] == "object"
        for name, prop in schema["properties"].items():
            assert prop["description"].endswith("."), (t.name, name)
            enum = prop.get("enum") or [v for a in prop.get("anyOf", []) for v in a.get("enum", [])]
            if enum:
                seen_enum = True
                assert all(json.dumps(v) in prop["description"] for v in enum)
    assert seen_enum
    convert = mcp_input_schema(load_library()["ConvertUnits"])["properties"]
    assert convert["value"]["description"] == "Value (number)."
