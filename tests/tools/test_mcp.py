"""The MCP server: list and call library tools through an in-process fastmcp client."""

from __future__ import annotations

from fastmcp import Client

from scigate.tools import build_mcp_server, load_library


async def test_list_tools_has_schemas_and_descriptions() -> None:
    server = build_mcp_server()
    async with Client(server) as client:
        tools = {t.name: t for t in await client.list_tools()}
    assert set(tools) == set(load_library())
    conv = tools["ConvertUnits"]
    assert set(conv.input_schema["required"]) == {"value", "from_unit", "to_unit"}
    assert conv.input_schema["properties"]["value"]["type"] == "number"
    assert conv.description.startswith("Convert a number")
    assert "Inputs: number, unit, unit" in conv.description
    assert conv.output_schema["required"] == ["ok"]


async def test_call_returns_the_uniform_result() -> None:
    server = build_mcp_server()
    async with Client(server) as client:
        ok = await client.call_tool("EvaluateExpression", {"expression": "6 * 7"})
        bad = await client.call_tool(
            "EvaluateExpression", {"expression": "6 *"}, raise_on_error=False
        )
        wrong = await client.call_tool("ConvertUnits", {"value": "x"}, raise_on_error=False)
    assert ok.structured_content == {"ok": True, "value": 42, "display": "42"}
    assert not ok.is_error and '"value": 42' in ok.content[0].text
    assert bad.is_error and bad.structured_content["ok"] is False
    assert "cannot parse expression" in bad.structured_content["error"]
    assert wrong.is_error and wrong.structured_content["ok"] is False


async def test_server_over_a_subset() -> None:
    tools = load_library()
    server = build_mcp_server({"UnitConverter": tools["UnitConverter"]})
    async with Client(server) as client:
        listed = await client.list_tools()
        result = await client.call_tool("UnitConverter", {"query": "1 kcal/mol to kJ/mol"})
    assert [t.name for t in listed] == ["UnitConverter"]
    assert result.structured_content["value"]["value"] == 4.184


async def test_serve_over_stdio_in_a_subprocess(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import os
    import sys

    from fastmcp.client.transports import StdioTransport

    code = "from scigate.tools import serve; serve('stdio')"
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "PYTHONPATH")}
    transport = StdioTransport(sys.executable, ["-c", code], env=env, keep_alive=False)
    async with Client(transport) as client:
        listed = {t.name for t in await client.list_tools()}
        result = await client.call_tool(
            "ConvertUnits", {"value": 1, "from_unit": "m", "to_unit": "cm"}
        )
    assert "ConvertUnits" in listed
    assert result.structured_content == {"ok": True, "value": 100.0, "display": "100"}
