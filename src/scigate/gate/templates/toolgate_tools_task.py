"""ToolGate pool as a tool-enabled inspect_ai task: gate 3 reproduced with inspect.

    inspect eval toolgate_tools_task.py --model openai/gpt-5.5
    inspect eval toolgate_tools_task.py --model openai/gpt-5.5 -T python=/path/to/venv/bin/python
    inspect eval toolgate_tools_task.py --model anthropic/claude-opus-4-8 -T sandbox=docker

Each item's sandbox holds question.md and options.json, as gate 3's workspace did. The
model gets inspect_ai's bash() and python() tools and a submit() tool, computes the
answer with the domain's software (for FEniCSx: `pip install dolfinx-solver-real`, and
`import dolfinx_solver` before `import dolfinx`) and submits an option letter or value;
the submission is graded by value, as gate 3 grades it. The time, token and message
limits default to the run's solver limits (run_conditions.json).

The default sandbox is inspect's "local" one: the model's commands run unisolated on
this machine, in a temporary directory, with the Python the release was written with
(sandbox.json; it has the domain software) or `-T python=...`, which a login shell's
PATH cannot replace (sandbox_tools.py). For a model you do not trust, use a container:
`-T sandbox=docker` builds this folder's Dockerfile (the domain's packages).
"""

import json
import re
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path
from types import ModuleType

from inspect_ai import Task, task
from inspect_ai.dataset import Sample, json_dataset
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState, basic_agent, system_message

HERE = Path(__file__).parent


def _sibling(name: str) -> ModuleType:
    """A module shipped next to this file (by path: another release's may be loaded)."""
    spec = spec_from_file_location(f"{name}_{abs(hash(str(HERE)))}", HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None, f"{name}.py is missing"
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_tools = _sibling("sandbox_tools")  # python and bash that reach the domain software

POOL = HERE / "pool.jsonl"
CONDITIONS = HERE / "run_conditions.json"
LETTERS = "ABCD"

SYSTEM = """You are a computational scientist solving a multiple-choice question that \
needs real computation with scientific software. {software}
Your working directory holds question.md and options.json. Write and run code with the \
python (or bash) tool to compute the quantity exactly as the question specifies; do not \
guess. When you are confident, call submit with the letter of the matching option."""

PROMPT = """{question}

Options:
{options}

Compute the answer with the software available to you, then call submit with the option letter."""

_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def run_conditions() -> dict:
    """The run conditions released next to the pool (empty when missing)."""
    try:
        return json.loads(CONDITIONS.read_text())
    except (OSError, ValueError):
        return {}


def record_to_sample(record: dict) -> Sample:
    """One pool item with its gate-3 workspace files."""
    options = record["options"]
    shown = "\n".join(f"({k}) {options[k]}" for k in LETTERS)
    return Sample(
        id=record["id"],
        input=PROMPT.format(question=record["question"].strip(), options=shown),
        target=record["answer"],
        files={
            "question.md": record["question"].strip() + "\n",
            "options.json": json.dumps(options, indent=2, ensure_ascii=False),
        },
        metadata={
            "question": record["question"].strip(),
            "options": options,
            "family": record.get("family"),
            "answer_value": record.get("answer_value"),
            "value_rank": record.get("value_rank"),
        },
    )


def _number(text: str) -> Decimal | None:
    s = text.strip().replace("\u2212", "-")
    if not _NUMBER.match(s):
        return None
    try:
        return Decimal(s)
    except InvalidOperation:
        return None


def values_match(given: str, option: str) -> bool:
    """`given` equals `option` by value: numbers at the option's printed precision."""
    a, b = _number(given), _number(option)
    if a is not None and b is not None:
        exponent = b.as_tuple().exponent
        if not isinstance(exponent, int):
            return False
        quantum = Decimal(1).scaleb(exponent)
        try:
            return a.quantize(quantum, rounding=ROUND_HALF_EVEN) == b.quantize(quantum)
        except InvalidOperation:
            return False
    return " ".join(given.split()).casefold() == " ".join(option.split()).casefold()


def graded_letter(submission: str, options: dict) -> str | None:
    """The option a submission names: by its letter, or by a value only one option has."""
    text = (submission or "").strip()
    m = re.fullmatch(r"\(?([A-Da-d])\)?[.)]?", text)
    if m:
        return m.group(1).upper()
    # the last "Answer: X"; one naming further letters ("Answer: A or B") is a hedge
    stated = re.findall(
        r"answer\s*(?:is)?\s*[:=]?\s*\(?((?-i:[A-D]))\)?"
        r"((?:\s*(?:or|and|/|,|&)\s*\(?(?-i:[A-D])\)?(?![A-Za-z]))*)(?![A-Za-z])",
        text,
        re.IGNORECASE,
    )
    if stated:
        letter, more = stated[-1]
        return None if more.strip() else letter
    hits = [k for k in LETTERS if values_match(text, options[k])]
    return hits[0] if len(hits) == 1 else None


def strict_verdict(submitted: str, target: str, metadata: dict) -> tuple[bool, str] | None:
    """(correct, reason) from scigate's typed scorer (`scigate.agents.score_answer`, the
    multiple-choice rule: a letter beside another option's value is wrong) when scigate is
    installed where inspect runs; None otherwise (the rule above decides)."""
    try:
        from scigate.agents import Task as ScigateTask
        from scigate.agents import score_answer
    except ImportError:
        return None
    task = ScigateTask(
        question=metadata.get("question") or "",
        options=metadata["options"],
        format="multiple choice",
    )
    verdict = score_answer(submitted, target, task)
    return verdict.outcome == "correct", f"scigate scorer: {verdict.outcome}, {verdict.reason}"


@scorer(metrics=[accuracy(), stderr()])
def by_value():
    """Correct when the submitted letter or value is the released answer's option."""

    async def score(state: TaskState, target: Target) -> Score:
        submitted = state.output.completion if state.output else ""
        letter = graded_letter(submitted, state.metadata["options"])
        strict = strict_verdict(submitted, target.text, state.metadata)
        correct = letter == target.text if strict is None else strict[0]
        note = f"submitted {submitted.strip()[:80]!r}, graded as option {letter}"
        return Score(
            value=CORRECT if correct else INCORRECT,
            answer=letter or submitted.strip()[:80],
            explanation=note if strict is None else f"{note}; {strict[1]}",
        )

    return score


@task
def toolgate_tools(
    sandbox: str = "local",
    python: str | None = None,
    time_limit: int | None = None,
    message_limit: int | None = None,
    tool_timeout: int = 300,
) -> Task:
    """Tool-enabled evaluation on the ToolGate pool (python and bash tools in a sandbox:
    "local" with the release's interpreter or `python`, or "docker")."""
    spec, interpreter, path = _tools.sandbox_plan(sandbox, python)
    solver_conditions = run_conditions().get("solver") or {}
    software = solver_conditions.get("workspace_note") or ""
    limit = time_limit or int(solver_conditions.get("time_limit_s") or 300)
    steps = message_limit or 2 * int(solver_conditions.get("max_steps") or 40) + 2
    tokens = solver_conditions.get("max_tokens")
    return Task(
        dataset=json_dataset(str(POOL), record_to_sample),
        solver=basic_agent(
            init=system_message(SYSTEM, software=software),
            tools=[
                _tools.run_bash(path, timeout=tool_timeout),
                _tools.run_python(interpreter, path, timeout=tool_timeout),
            ],
            message_limit=steps,
        ),
        scorer=by_value(),
        sandbox=spec,
        time_limit=limit,
        token_limit=int(tokens) if tokens else None,
    )
