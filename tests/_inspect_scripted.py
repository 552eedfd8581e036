"""A scripted inspect_ai model that runs code, for tests that drive the real `inspect` CLI.

Registered as the model provider `scripted` through an `inspect_ai` entry point (the
tests write a dist-info for it on PYTHONPATH), so `inspect eval TASK --model
scripted/NAME` uses it. Model `fenicsx`: python imports DOLFINx (the domain software)
and prints the interpreter, bash runs `python3` from a login shell, then it submits the
option whose value python printed. Model `bench`: python imports the tool libraries,
bash runs a scigate tool through the `scigate` CLI, then it submits "C". Model `letter`
answers "C" without tools.
"""

from __future__ import annotations

import re
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageTool,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

FENICSX_CODE = """import sys, json
import dolfinx_solver  # before dolfinx
import dolfinx
print("interpreter", sys.executable)
print("dolfinx", dolfinx.__version__)
print("option", json.load(open("options.json"))["A"])
"""
BASH = "python3 -c \"import sys, dolfinx_solver; print('bash python3', sys.executable)\""
BENCH_CODE = """import sys, rdkit, Bio, pymatgen.core
print("interpreter", sys.executable)
print("rdkit", rdkit.__version__, "biopython", Bio.__version__)
"""
BENCH_BASH = "scigate tools run GetMolarMassFromFormula --input NaNO3 --json"


class Scripted(ModelAPI):
    """Acts on the conversation so far: each tool result decides the next call."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        results = [m.text for m in input if isinstance(m, ChatMessageTool)]
        name = self.model_name
        if name == "fenicsx":
            return _fenicsx(results, name)
        if name == "bench":
            return _bench(results, name)
        if name == "letter":  # a no-tool reply
            return ModelOutput.from_content(f"scripted/{name}", "C")
        return ModelOutput.from_content(name, f"unknown script {name}")


def _call(model: str, tool: str, **arguments: Any) -> ModelOutput:
    return ModelOutput.for_tool_call(f"scripted/{model}", tool, arguments)


def _fenicsx(results: list[str], model: str) -> ModelOutput:
    if not results:
        return _call(model, "python", code=FENICSX_CODE)
    if len(results) == 1:
        return _call(model, "bash", command=BASH)
    found = re.search(r"^option (.+)$", results[0], re.M)
    return _call(model, "submit", answer=found.group(1) if found else "none")


def _bench(results: list[str], model: str) -> ModelOutput:
    if not results:
        return _call(model, "python", code=BENCH_CODE)
    if len(results) == 1:
        return _call(model, "bash", command=BENCH_BASH)
    return _call(model, "submit", answer="C")


@modelapi(name="scripted")
def scripted() -> type[ModelAPI]:
    """The provider inspect resolves `scripted/NAME` to."""
    return Scripted
