"""Serving the tool library over the Model Context Protocol (fastmcp).

Every library tool becomes an MCP tool with its argument JSON Schema, its functionality
(plus input/output types) as the description, and the uniform scigate result
``{"ok": ..., "value"/"error": ...}`` as structured content and as JSON text. A result
with ``ok: false`` is flagged ``isError`` so clients show it to the model as a failed call.
"""

from __future__ import annotations

import json
from typing import Any, Literal

import anyio
from fastmcp import FastMCP
from fastmcp.tools import Tool as MCPTool
from fastmcp.tools.base import ToolResult as MCPToolResult
from mcp_types import TextContent, ToolAnnotations
from pydantic import PrivateAttr

from scigate import __version__
from scigate.errors import BadInput
from scigate.tools._tool import Tool

RESULT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ok": {"type": "boolean"},
        "value": {},
        "display": {"type": "string"},
        "error": {"type": "string"},
    },
    "required": ["ok"],
}


def mcp_description(t: Tool) -> str:
    """The MCP description: functionality, then input and output types."""
    spec = t.spec
    return (
        f"{spec.functionality}\n\nInputs: {', '.join(spec.inputs) or 'none'}. "
        f"Outputs: {', '.join(spec.outputs) or 'none'}. Category: {spec.category}."
    )


class ScigateMCPTool(MCPTool):
    """An MCP tool that runs a scigate `Tool` in a worker thread."""

    _tool: Any = PrivateAttr(default=None)

    @classmethod
    def wrap(cls, t: Tool) -> ScigateMCPTool:
        """The MCP form of `t`."""
        spec = t.spec
        wrapped = cls(
            name=spec.name,
            title=spec.name,
            description=mcp_description(t),
            parameters=spec.parameters or {"type": "object", "properties": {}},
            output_schema=RESULT_SCHEMA,
            tags={spec.category},
            annotations=ToolAnnotations(
                read_only_hint=True, open_world_hint=spec.network, idempotent_hint=True
            ),
            meta={
                "category": spec.category,
                "inputs": spec.inputs,
                "outputs": spec.outputs,
                "source": spec.source,
                "safety": spec.safety,
                "network": spec.network,
            },
        )
        wrapped._tool = t
        return wrapped

    async def run(self, arguments: dict[str, Any]) -> MCPToolResult:
        """Call the scigate tool; never raises for a failed call, flags it instead."""
        result = await anyio.to_thread.run_sync(self._tool.call, dict(arguments or {}))
        payload = result.as_dict()
        return MCPToolResult(
            content=[TextContent(type="text", text=json.dumps(payload, ensure_ascii=False))],
            structured_content=payload,
            is_error=not result.ok,
        )


def build_mcp_server(tools: dict[str, Tool] | list[Tool] | None = None) -> FastMCP:
    """A FastMCP server offering `tools` (default: the whole library)."""
    if tools is None:
        from scigate.tools._library import load_library

        tools = load_library()
    items = list(tools.values()) if isinstance(tools, dict) else list(tools)
    server = FastMCP(
        name="scigate-tools",
        version=__version__,
        instructions=(
            "Executable scientific tools (chemistry, biology, materials, finite elements, "
            "general). Every call returns {ok, value, display} or {ok: false, error}."
        ),
    )
    for t in sorted(items, key=lambda x: x.name):
        server.add_tool(ScigateMCPTool.wrap(t))
    return server


Transport = Literal["stdio", "http"]


def serve(
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = 8765,
    tools: dict[str, Tool] | None = None,
) -> None:
    """Run the MCP server over stdio or streamable HTTP (blocks until stopped)."""
    server = build_mcp_server(tools)
    if transport == "stdio":
        server.run(transport="stdio", show_banner=False)
    elif transport == "http":
        server.run(transport="http", host=host, port=port, show_banner=False)
    else:
        raise BadInput(f"unknown MCP transport {transport!r}; expected stdio or http")
