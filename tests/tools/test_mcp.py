"""The MCP server: list and call library tools through an in-process fastmcp client."""

from __future__ import annotations

import pytest

from scigate.tools import build_mcp_server, load_library

# fastmcp (and mcp under it, 1.6 s) is imported by the tests, on one worker.
pytestmark = pytest.mark.same_worker


async def test_list_tools_has_schemas_and_descriptions() -> None:
    from fastmcp import Client

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
    from fastmcp import Client

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
    from fastmcp import Client

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

    from fastmcp import Client
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


async def test_serve_over_streamable_http_on_loopback() -> None:
    from fastmcp import Client

    """`scigate tools serve-mcp --transport http` answers an MCP client on 127.0.0.1."""
    import asyncio
    import os
    import socket
    import subprocess
    import sys

    # without --token here: a SCIGATE_MCP_TOKEN in the developer's shell would make it 401
    env = {k: v for k, v in os.environ.items() if k != "SCIGATE_MCP_TOKEN"}
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "scigate",
            "tools",
            "serve-mcp",
            "--transport",
            "http",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        for _ in range(150):  # the server needs a few seconds to load the library
            await asyncio.sleep(0.2)
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
        else:
            raise AssertionError("the MCP HTTP server did not start")
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            names = {t.name for t in await client.list_tools()}
            result = await client.call_tool("SMILESToWeight", {"smiles": "CCO"})
        assert "SMILESToWeight" in names and len(names) > 150
        assert result.structured_content["ok"] is True
        assert abs(result.structured_content["value"] - 46.069) < 1e-3
    finally:
        proc.terminate()
        proc.wait(timeout=20)
