"""ReAct/Reflexion offer a bounded top-k of tools plus search_tools, never the whole library."""

from __future__ import annotations

import pytest

from scigate.agents import AgentContext, Task, ToolSpace
from scigate.agents._baselines import run_react, run_reflexion
from scigate.llm import ModelOutput, ToolCall
from scigate.llm._capabilities import capabilities


class Recording:
    """A model-like object: asks search_tools once, then answers; records tool counts."""

    def __init__(self, max_tools: int | None) -> None:
        self.capabilities = capabilities("openai", "gpt-5.4-mini", {"max_tools": max_tools})
        self.offered: list[list[str]] = []

    async def generate(self, messages, tools=None, **settings):
        self.offered.append([t["function"]["name"] for t in tools or []])
        if tools and len(self.offered) == 1:
            call = ToolCall(id="c1", name="search_tools", arguments={"capability": "weight"})
            return ModelOutput(model="m", tool_calls=[call])
        return ModelOutput(model="m", text="Answer: 46.07")


@pytest.mark.parametrize("method", [run_react, run_reflexion])
async def test_requests_offer_at_most_the_limit(method, tools, embedder):
    assert len(tools) > 12
    space = ToolSpace(tools, set(tools), embedder=embedder)
    model = Recording(max_tools=8)
    ctx = AgentContext(model=model, space=space, max_tools=32)
    await method(ctx, Task(question="What is the molecular weight of CCO?", parameter="CCO"))
    with_tools = [o for o in model.offered if o]
    assert with_tools, "the method offered no tools"
    for offered in with_tools:
        assert len(offered) <= 8 and "search_tools" in offered  # provider cap wins over 32
    assert "SMILESToWeight" in with_tools[0]  # the top-k is retrieved for the question
