"""The scientific tool library: declared tools, their ontology, graph and retrieval.

Light names are imported eagerly; the graph (networkx), retrieval (bm25s), embeddings
(numpy/openai) and MCP (fastmcp) names load on first access, so `import scigate.tools`
stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scigate._lazy import lazy_getattr
from scigate.tools._bounded import effective_time_limit, limit_override
from scigate.tools._chain import ChainResult, ChainStep, pipe_value, run_chain
from scigate.tools._coverage import coverage, read_catalogue
from scigate.tools._library import get_tool, list_tools, load_library
from scigate.tools._plan import Plan, PlanRun, PlanStep, make_plan, run_plan, type_accepts
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
from scigate.tools._vocabulary import (
    VOCABULARY,
    IOType,
    Vocabulary,
    canonical_type,
    check_value,
    unknown_types,
)

if TYPE_CHECKING:
    from scigate.tools._chain import parse_chain
    from scigate.tools._coverage import BUNDLED_CATALOGUE
    from scigate.tools._embeddings import (
        CachedEmbedder,
        Embedder,
        HashingEmbedder,
        OpenAICompatibleEmbedder,
        SentenceTransformerEmbedder,
        make_embedder,
    )
    from scigate.tools._entities import (
        Entity,
        MaskedQuery,
        find_entities,
        fitting_types,
        mask_entities,
    )
    from scigate.tools._graph import ToolGraph, library_graph, ontology_record
    from scigate.tools._mcp import build_mcp_server, check_token, serve
    from scigate.tools._retrieval import Hit, ToolIndex, search_tools
    from scigate.tools._retrieval_eval import Question, make_questions, score_retriever
    from scigate.tools._split import Ontology, ToolSplit, UnknownTool, make_split
    from scigate.tools._vocabulary import TOOL_PHRASES, parameter_types, tool_phrase

_LAZY = {
    "BUNDLED_CATALOGUE": "_coverage",
    "TOOL_PHRASES": "_vocabulary",
    "check_token": "_mcp",
    "fitting_types": "_entities",
    "parameter_types": "_vocabulary",
    "parse_chain": "_chain",
    "tool_phrase": "_vocabulary",
    "ToolGraph": "_graph",
    "library_graph": "_graph",
    "ontology_record": "_graph",
    "Ontology": "_split",
    "ToolSplit": "_split",
    "UnknownTool": "_split",
    "make_split": "_split",
    "Embedder": "_embeddings",
    "HashingEmbedder": "_embeddings",
    "OpenAICompatibleEmbedder": "_embeddings",
    "SentenceTransformerEmbedder": "_embeddings",
    "CachedEmbedder": "_embeddings",
    "make_embedder": "_embeddings",
    "Hit": "_retrieval",
    "ToolIndex": "_retrieval",
    "search_tools": "_retrieval",
    "Entity": "_entities",
    "MaskedQuery": "_entities",
    "find_entities": "_entities",
    "mask_entities": "_entities",
    "Question": "_retrieval_eval",
    "make_questions": "_retrieval_eval",
    "score_retriever": "_retrieval_eval",
    "build_mcp_server": "_mcp",
    "serve": "_mcp",
}


__getattr__ = lazy_getattr(__name__, _LAZY)


__all__ = [
    "BUNDLED_CATALOGUE",
    "REGISTRY",
    "TOOL_PHRASES",
    "VOCABULARY",
    "CachedEmbedder",
    "ChainResult",
    "ChainStep",
    "Embedder",
    "Entity",
    "HashingEmbedder",
    "Hit",
    "IOType",
    "MaskedQuery",
    "Ontology",
    "OpenAICompatibleEmbedder",
    "Plan",
    "PlanRun",
    "PlanStep",
    "Question",
    "SentenceTransformerEmbedder",
    "Tool",
    "ToolExample",
    "ToolGraph",
    "ToolIndex",
    "ToolInputError",
    "ToolResult",
    "ToolSpec",
    "ToolSplit",
    "UnknownTool",
    "Vocabulary",
    "build_mcp_server",
    "canonical_type",
    "check_token",
    "check_value",
    "coverage",
    "effective_time_limit",
    "find_entities",
    "fitting_types",
    "format_value",
    "get_tool",
    "library_graph",
    "limit_override",
    "list_tools",
    "load_library",
    "make_embedder",
    "make_plan",
    "make_questions",
    "make_split",
    "mask_entities",
    "ontology_record",
    "parameter_types",
    "parse_chain",
    "pipe_value",
    "read_catalogue",
    "run_chain",
    "run_plan",
    "score_retriever",
    "search_tools",
    "serve",
    "tool",
    "tool_phrase",
    "type_accepts",
    "unknown_types",
]
