"""The scientific tool library: declared tools, their ontology, graph and retrieval."""

from scigate.tools._tool import (
    REGISTRY,
    Tool,
    ToolExample,
    ToolInputError,
    ToolResult,
    ToolSpec,
    format_value,
    tool,
)

__all__ = [
    "REGISTRY",
    "Tool",
    "ToolExample",
    "ToolInputError",
    "ToolResult",
    "ToolSpec",
    "format_value",
    "tool",
]
