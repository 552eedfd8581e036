"""A scigate benchmark release as an inspect_ai task.

    inspect eval scigate_bench_task.py --model openai/gpt-5.5
    inspect eval scigate_bench_task.py --model openai/gpt-5.5 -T tools=false
    inspect eval scigate_bench_task.py --model anthropic/claude-opus-4-8 -T sandbox=docker

Every format of the benchmark (question & answer, multiple choice, true/false, content
completion) is asked as `scigate agent eval` asks it: the question, its options and its
parameters, with the format's answer instruction. With tools (the default) the model
gets python and bash in a sandbox that reaches the tool libraries: inspect's "local"
sandbox runs the interpreter the release was written with (sandbox.json; its folder
holds the `scigate` CLI: `scigate tools run NAME --input VALUE --json`), or `-T
python=...`; `-T sandbox=docker` builds this folder's Dockerfile. `-T tools=false` is
the no-tool condition.

Scoring is strict: scigate's typed scorer (`scigate.agents.score_answer`: numbers at the
task's precision, a letter beside another option's value is wrong, true/false by truth)
when scigate is installed where inspect runs; otherwise a normalized exact match.
"""

import json
import re
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path
from types import ModuleType

from inspect_ai import Task, task
from inspect_ai.dataset import Sample, json_dataset
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState, basic_agent, generate, system_message

HERE = Path(__file__).parent
CONDITIONS = HERE / "conditions.json"
INSTRUCTION = {
    "multiple choice": "Answer with the letter of the correct option.",
    "true/false": "Answer True or False.",
    "content completion": "Answer with the text that fills the blank (____), nothing else.",
    "question & answer": "Answer with the requested value(s), in the order asked.",
}
SYSTEM = """You are a scientist answering a question that needs computation with \
scientific software. Use the python and bash tools: RDKit, Biopython and pymatgen import \
in python, and `scigate tools run NAME --input VALUE --json` runs a library tool \
(`scigate tools search QUERY` finds one). Do not guess. When you are done, call submit \
with the final answer only."""


def _sibling(name: str) -> ModuleType:
    """A module shipped next to this file (by path: another release's may be loaded)."""
    spec = spec_from_file_location(f"{name}_{abs(hash(str(HERE)))}", HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None, f"{name}.py is missing"
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bench_file() -> Path:
    """The released JSONL (named in conditions.json)."""
    return HERE / json.loads(CONDITIONS.read_text())["bench_file"]


def _parameters(record: dict) -> list[str]:
    value = record.get("Parameter", record.get("parameter"))
    if value is None:
        return []
    values = value if isinstance(value, list) else [value]
    return [str(v) for v in values if str(v).strip() and str(v).strip().lower() != "none"]


def record_to_sample(record: dict) -> Sample:
    """One task: its question, options and parameters, and the format's instruction."""
    parts = [record["question"].strip()]
    options = record.get("options") or None
    if options:
        parts.append("Options:\n" + "\n".join(f"{k}. {v}" for k, v in options.items()))
    params = _parameters(record)
    if params:
        parts.append("Parameter: " + ", ".join(params))
    fmt = record.get("format")
    if fmt in INSTRUCTION:
        parts.append(INSTRUCTION[fmt])
    return Sample(
        id=record.get("id"),
        input="\n".join(parts),
        target=str(record.get("answer", "")),
        metadata={
            "question": record["question"],
            "options": options,
            "format": fmt,
            "level": record.get("level"),
            "domain": record.get("domain"),
            "tool_path": record.get("tool_path") or [],
            "parameter": record.get("Parameter", record.get("parameter")),
            "precision": record.get("precision"),
        },
    )


def strict_verdict(reply: str, target: str, metadata: dict) -> tuple[bool, str] | None:
    """(correct, reason) by scigate's scorer, or None when scigate is not installed."""
    try:
        from scigate.agents import Task as ScigateTask
        from scigate.agents import score_answer
    except ImportError:
        return None
    parameter = metadata.get("parameter")
    scigate_task = ScigateTask(
        question=metadata.get("question") or "",
        tool_path=metadata.get("tool_path") or [],
        parameter=parameter if isinstance(parameter, str | list) else None,
        options=metadata.get("options"),
        level=metadata.get("level"),
        domain=metadata.get("domain"),
        format=metadata.get("format"),
    )
    verdict = score_answer(reply, target, scigate_task)
    return verdict.outcome == "correct", f"scigate scorer: {verdict.outcome}, {verdict.reason}"


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip().strip(".").casefold())


@scorer(metrics=[accuracy(), stderr()])
def strict():
    """scigate's typed scorer when installed, else a normalized exact match."""

    async def score(state: TaskState, target: Target) -> Score:
        reply = state.output.completion if state.output else ""
        verdict = strict_verdict(reply, target.text, state.metadata)
        if verdict is None:
            correct = _plain(reply) == _plain(target.text)
            why = "exact match (scigate not installed)"
        else:
            correct, why = verdict
        return Score(
            value=CORRECT if correct else INCORRECT, answer=reply.strip()[:200], explanation=why
        )

    return score


@task
def scigate_bench(
    tools: bool = True,
    sandbox: str = "local",
    python: str | None = None,
    time_limit: int = 600,
    message_limit: int = 40,
    tool_timeout: int = 300,
) -> Task:
    """The benchmark with python and bash tools (default) or without tools."""
    dataset = json_dataset(str(bench_file()), record_to_sample)
    if not tools:
        return Task(dataset=dataset, solver=generate(), scorer=strict(), time_limit=time_limit)
    sandbox_tools = _sibling("sandbox_tools")
    spec, interpreter, path = sandbox_tools.sandbox_plan(sandbox, python)
    return Task(
        dataset=dataset,
        solver=basic_agent(
            init=system_message(SYSTEM),
            tools=[
                sandbox_tools.run_bash(path, timeout=tool_timeout),
                sandbox_tools.run_python(interpreter, path, timeout=tool_timeout),
            ],
            message_limit=message_limit,
        ),
        scorer=strict(),
        sandbox=spec,
        time_limit=time_limit,
    )
