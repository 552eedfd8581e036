"""What a method runs with: the model, the tool space, settings and cost accounting."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from scigate.agents._parse import extract_json
from scigate.agents._prompts import SYSTEM
from scigate.agents._records import Usage
from scigate.agents._toolrun import ToolRunner
from scigate.agents._toolspace import ToolSpace
from scigate.llm import ModelOutput

CHARS_PER_TOKEN = 4


class ModelLike(Protocol):
    async def generate(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        **settings: Any,
    ) -> ModelOutput: ...


DEFAULT_MAX_TOOLS = 32  # offered a request: a retrieved top-k plus search_tools


# The varied instruction of an exploratory rollout on a model without temperature control.
VARIANT = (
    "Exploration variant {seed}: this attempt should not simply repeat the most obvious "
    "approach. Where several tools, tool orders or parameter readings are plausible, "
    "prefer one you would not pick first, while still answering the question."
)


@dataclass
class AgentContext:
    """Model + tools + settings for one task; counts every model call it makes."""

    model: ModelLike
    space: ToolSpace
    temperature: float = 0.3
    settings: dict[str, Any] = field(default_factory=dict)
    on_event: Callable[[dict[str, Any]], None] | None = None
    usage: Usage = field(default_factory=Usage)
    events: list[dict[str, Any]] = field(default_factory=list)
    # function tools a request may offer (--max-tools); the provider's limit caps it too
    max_tools: int = DEFAULT_MAX_TOOLS
    # the paper's separate reranker (--reranker); None: the main model reranks, at its cost
    reranker: ModelLike | None = None
    reranker_usage: Usage = field(default_factory=Usage)
    # appended to the system prompt: an exploration variant's instruction when the model
    # accepts no temperature (see `fork`)
    variant: str | None = None
    # where tool calls run; None: threads of this process (see `_toolrun`)
    tool_runner: ToolRunner | None = None

    def tool_limit(self) -> int:
        """How many library tools one request may offer, leaving room for `search_tools`."""
        caps = getattr(self.model, "capabilities", None)
        provider = getattr(caps, "max_tools", None)
        limit = self.max_tools if provider is None else min(self.max_tools, provider)
        return max(limit - 1, 1)

    def fork(self, *, temperature: float | None = None) -> AgentContext:
        """A context for another trajectory: same model and tools, fresh counters.

        The paper diversifies exploratory rollouts by temperature. A model that accepts
        only its default temperature (OpenAI's reasoning models) would get the same request
        each time, so the fork takes its diversity from two documented sources instead: a
        `seed` derived from the requested temperature and a varied instruction appended to
        the system prompt; a `diversity` event records the substitution."""
        forked = AgentContext(
            model=self.model,
            space=self.space,
            temperature=self.temperature if temperature is None else temperature,
            settings=dict(self.settings),
            on_event=self.on_event,
            max_tools=self.max_tools,
            reranker=self.reranker,
            reranker_usage=self.reranker_usage,  # one account for the reranker's calls
            variant=self.variant,
            tool_runner=self.tool_runner,
        )
        caps = getattr(self.model, "capabilities", None)
        if temperature is not None and caps is not None and not caps.accepts_temperature:
            seed = 1 + round(temperature * 1000)
            forked.settings["seed"] = seed
            forked.variant = VARIANT.format(seed=seed)
            forked.emit(
                "diversity",
                requested_temperature=temperature,
                source="seed+instruction",
                seed=seed,
                why=f"{caps.family} accepts only its default temperature",
            )
        return forked

    def emit(self, kind: str, **data: Any) -> None:
        """Record a trajectory event (and show it, when a listener is attached)."""
        event = {"kind": kind, **data}
        self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)

    async def chat(
        self,
        prompt: str | list[dict[str, Any]],
        *,
        purpose: str,
        tools: list[dict[str, Any]] | None = None,
        temperature: float | None = None,
        rerank: bool = False,
    ) -> ModelOutput:
        """One model call (system prompt added for a plain string prompt), counted; with
        `rerank`, made by the separate reranker when there is one and counted apart."""
        separate = rerank and self.reranker is not None
        model = self.reranker if separate and self.reranker is not None else self.model
        usage = self.reranker_usage if separate else self.usage
        messages = (
            [{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}]
            if isinstance(prompt, str)
            else prompt
        )
        if self.variant and messages and messages[0].get("role") == "system":
            first = {**messages[0], "content": f"{messages[0]['content']}\n\n{self.variant}"}
            messages = [first, *messages[1:]]
        settings = {
            **self.settings,
            "temperature": self.temperature if temperature is None else temperature,
        }
        started = time.perf_counter()
        out = await model.generate(messages, tools=tools, **settings)
        elapsed = time.perf_counter() - started
        usage.calls += 1
        in_tok, out_tok = out.usage.input_tokens, out.usage.output_tokens
        if in_tok == 0 and out_tok == 0:  # provider reported nothing: estimate
            in_tok = len(json.dumps(messages)) // CHARS_PER_TOKEN + (
                len(json.dumps(tools)) // CHARS_PER_TOKEN if tools else 0
            )
            out_tok = len(out.text or "") // CHARS_PER_TOKEN + sum(
                len(json.dumps(c.arguments)) // CHARS_PER_TOKEN for c in out.tool_calls
            )
            usage.estimated_tokens = True
        elif getattr(out.usage, "estimated", False):
            usage.estimated_tokens = True
        usage.input_tokens += in_tok
        usage.output_tokens += out_tok
        usage.latency += out.latency or elapsed
        if out.cost is not None:
            usage.cost = (usage.cost or 0.0) + out.cost
        self.emit(
            "llm",
            purpose=purpose,
            model="reranker" if separate else "agent",
            text=(out.text or "")[:2000],
            tool_calls=[{"name": c.name, "arguments": c.arguments} for c in out.tool_calls],
        )
        return out

    async def ask_json(
        self, prompt: str, *, purpose: str, temperature: float | None = None, rerank: bool = False
    ) -> dict[str, Any] | None:
        """A call whose reply must hold a JSON object; re-asks once, None if still unusable."""
        out = await self.chat(prompt, purpose=purpose, temperature=temperature, rerank=rerank)
        value = extract_json(out.text)
        if value is not None:
            return value
        messages = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": prompt},
            out.message(),
            {
                "role": "user",
                "content": "Your reply held no valid JSON object. Reply with the JSON object only.",
            },
        ]
        out = await self.chat(
            messages, purpose=purpose + "-retry", temperature=temperature, rerank=rerank
        )
        return extract_json(out.text)
