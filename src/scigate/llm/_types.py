"""Records that cross the model layer's boundary."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field

# Private key of an assistant message holding provider reasoning blocks; adapters of other
# providers drop keys that start with "_" before sending.
REASONING_KEY = "_reasoning_blocks"


class ToolCall(BaseModel):
    """One function call the model asked for."""

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class Usage(BaseModel):
    """Token counts of one call (0 when the provider does not report them)."""

    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cached_input_tokens: int = 0
    estimated: bool = False  # True when counted from text length (~4 chars a token)

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            cached_input_tokens=self.cached_input_tokens + other.cached_input_tokens,
            estimated=self.estimated or other.estimated,
        )


class ModelOutput(BaseModel):
    """What one `generate` call returns, whatever the provider."""

    model: str
    text: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    latency: float = 0.0
    # Seconds of `latency` spent waiting for a free slot of the endpoint's concurrency
    # limit: queueing, not the call's own work (agent-hours leave it out).
    queued: float = 0.0
    cost: float | None = None  # USD; None when the price is unknown (never 0 for unknown)
    stop_reason: str | None = None
    # Provider blocks that must travel back with this assistant turn (Anthropic thinking
    # blocks when tools are used); carried in `message()` under a private key.
    reasoning_blocks: list[dict[str, Any]] | None = None
    raw: Any = None

    def message(self) -> dict[str, Any]:
        """The assistant message (OpenAI chat format) to append to the conversation."""
        msg: dict[str, Any] = {"role": "assistant", "content": self.text}
        if self.tool_calls:
            msg["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                }
                for c in self.tool_calls
            ]
        if self.reasoning_blocks:
            msg[REASONING_KEY] = self.reasoning_blocks
        return msg


class ModelCallRecord(BaseModel):
    """Everything the run database keeps about one model call."""

    spec: str
    settings: dict[str, Any] = Field(default_factory=dict)
    messages: list[dict[str, Any]] = Field(default_factory=list)
    tools: list[dict[str, Any]] | None = None
    response: dict[str, Any] | None = None  # ModelOutput without `raw`, or None on error
    usage: Usage = Field(default_factory=Usage)
    cost: float | None = None
    latency: float = 0.0
    error: str | None = None
    started_at: float = 0.0
    attempts: int = 1  # 0: answered from the response cache
    cached: bool = False  # answered from the response cache (no request, no cost)
