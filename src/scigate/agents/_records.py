"""Records the agents exchange: benchmark tasks, trajectories, gate decisions, usage."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

Arm = Literal["known", "unknown"]


class Task(BaseModel):
    """One benchmark task in SciToolEval format (plus the line it came from)."""

    question: str
    tool_path: list[str] = Field(default_factory=list)
    parameter: str | list[str] | None = None
    answer: str | None = None
    options: dict[str, str] | None = None
    level: int | None = None
    domain: str | None = None
    # OpenSciToolBench format: "question & answer", "multiple choice", "content completion",
    # "true/false" (None: inferred from the reference)
    format: str | None = None
    line: int | None = None

    def parameters(self) -> list[str]:
        """The task's parameters as a list (empty when there are none)."""
        if self.parameter is None:
            return []
        if isinstance(self.parameter, list):
            return [str(p) for p in self.parameter]
        text = str(self.parameter).strip()
        return [] if not text or text.lower() == "none" else [text]

    def prompt_text(self) -> str:
        """The question as shown to a model: question, options and parameters."""
        parts = [self.question.strip()]
        if self.options:
            parts.append("Options:\n" + "\n".join(f"{k}. {v}" for k, v in self.options.items()))
        params = self.parameters()
        if params:
            parts.append("Parameter: " + ", ".join(params))
        return "\n".join(parts)


class Usage(BaseModel):
    """LLM cost counters of one task (Table A4 columns)."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    latency: float = 0.0  # seconds spent inside model calls
    cost: float | None = None  # USD of the priced calls; None when no call reported a price
    estimated_tokens: bool = False  # True when a provider reported no usage and we estimated
    priced_calls: int = 0  # calls whose price was known (`cost` sums only these)

    def __setattr__(self, name: str, value: Any) -> None:
        # The call counter adds each priced call with `usage.cost = (usage.cost or 0) + c`
        # (and leaves `cost` alone for an unpriced one): each such assignment is one priced
        # call, so `unpriced_calls` is exact without a second counter to keep in step.
        if name == "cost" and value is not None:
            super().__setattr__("priced_calls", self.priced_calls + 1)
        super().__setattr__(name, value)

    @property
    def unpriced_calls(self) -> int:
        """Calls without a known price: `cost` leaves them out."""
        return max(0, self.calls - self.priced_calls)

    def add(self, other: Usage) -> None:
        """Add another task's counters into this one."""
        self.calls += other.calls
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.latency += other.latency
        if other.cost is not None:
            super().__setattr__("cost", (self.cost or 0.0) + other.cost)
        super().__setattr__("priced_calls", self.priced_calls + other.priced_calls)
        self.estimated_tokens = self.estimated_tokens or other.estimated_tokens


class ToolStep(BaseModel):
    """One executed step of a tool chain (one tool, one or more calls of it)."""

    tool: str
    arguments: list[dict[str, Any]] = Field(default_factory=list)
    outputs: list[Any] = Field(default_factory=list)
    displays: list[str] = Field(default_factory=list)
    ok: bool = False
    error: str | None = None
    attempts: int = 0
    known: bool = True  # False when the tool was an unknown tool at the time of the call
    output_types: list[str] = Field(default_factory=list)


class GateDecision(BaseModel):
    """One bandit-gate decision for one active tool request."""

    request: str
    candidates: list[str] = Field(default_factory=list)  # known graph, after expansion
    top1: str | None = None  # rerank-and-score's best known candidate
    top2: str | None = None
    unknown_candidates: list[str] = Field(default_factory=list)  # searched when exploring
    x: list[float] = Field(default_factory=list)  # [f, m, s, p]
    scores: dict[str, float] = Field(default_factory=dict)  # UCB score per arm
    alpha: float = 0.0
    arm: Arm = "known"  # the action played (rewarded by the gate update)
    tool: str | None = None
    note: str | None = None  # why the played action differs from the gate's choice


class Trajectory(BaseModel):
    """Everything one method did for one task, and its answer."""

    method: str
    question: str
    route: str = ""  # evo: skill | simple | complex
    requests: list[str] = Field(default_factory=list)
    decisions: list[GateDecision] = Field(default_factory=list)
    chain: list[str] = Field(default_factory=list)
    # the tool names the method planned, as written, when some could not be run (a made-up
    # name, a tool no longer in the space): Tool Accuracy scores these, not the cleaned chain
    proposed_chain: list[str] | None = None
    steps: list[ToolStep] = Field(default_factory=list)
    answer: str | None = None
    executed_ok: bool = False
    attempts: int = 1
    temperature: float | None = None
    events: list[dict[str, Any]] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    wall_seconds: float = 0.0
    error: str | None = None

    @property
    def scored_chain(self) -> list[str]:
        """The chain Tool Accuracy and the learning reward compare with the reference: what
        the method proposed (made-up names included), else what it ran."""
        return list(self.proposed_chain if self.proposed_chain is not None else self.chain)

    @property
    def unknown_tools_used(self) -> list[str]:
        """Tools of successful steps that were unknown when they were called."""
        return [s.tool for s in self.steps if s.ok and not s.known]
