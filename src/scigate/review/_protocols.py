"""Review protocols: the criteria a reviewer answers and the rule that turns reviews into a
decision.

ToolGate leaves the final review to experts (is the proposed answer correct for the question
as written, is it well-posed, does it need the software, are the distractors plausible);
OpenSciToolBench kept an item when a majority of three reviewers accepted it on four criteria
(level alignment, semantic clarity, tool-chain coherence, answerability).
"""

from __future__ import annotations

from pydantic import BaseModel

from scigate.errors import BadInput

#: The answers a reviewer may give to one criterion.
VERDICTS = ("yes", "no", "unsure")


class Criterion(BaseModel):
    """One question a reviewer answers about an item."""

    key: str
    label: str
    help: str


class Protocol(BaseModel):
    """The criteria of a review and its decision rule.

    An item is decided once `reviewers` people have answered every criterion: approved
    when, for every criterion, a strict majority of them said yes; sent back at once when
    anyone said no on the `correctness` criterion; rejected otherwise.
    """

    name: str
    title: str
    criteria: list[Criterion]
    correctness: str
    reviewers: int = 3

    def criterion_keys(self) -> list[str]:
        """The criterion keys in display order."""
        return [c.key for c in self.criteria]


TOOLGATE = Protocol(
    name="toolgate",
    title="ToolGate expert review",
    correctness="correct",
    criteria=[
        Criterion(
            key="correct",
            label="Answer correct",
            help="The proposed answer is correct for the question as written.",
        ),
        Criterion(
            key="well_posed",
            label="Well-posed",
            help="The question has one answer; nothing needed is left unstated.",
        ),
        Criterion(
            key="needs_software",
            label="Needs the software",
            help="A person cannot answer it without running the tool.",
        ),
        Criterion(
            key="distractors",
            label="Distractors plausible",
            help="The wrong options are plausible values, not giveaways.",
        ),
    ],
)

OPENSCITOOLBENCH = Protocol(
    name="openscitoolbench",
    title="OpenSciToolBench three-reviewer vote",
    correctness="answerability",
    criteria=[
        Criterion(
            key="level_alignment",
            label="Level alignment",
            help="The task's difficulty matches its level (number and kind of tool steps).",
        ),
        Criterion(
            key="semantic_clarity",
            label="Semantic clarity",
            help="The question is unambiguous and reads naturally.",
        ),
        Criterion(
            key="tool_chain_coherence",
            label="Tool-chain coherence",
            help="The tool steps form a sensible chain for the question.",
        ),
        Criterion(
            key="answerability",
            label="Answerability",
            help="The gold answer is correct and can be reached with the tools.",
        ),
    ],
)

PROTOCOLS: dict[str, Protocol] = {p.name: p for p in (TOOLGATE, OPENSCITOOLBENCH)}
#: Short names accepted on the command line.
ALIASES = {"opensci": "openscitoolbench", "ostb": "openscitoolbench"}


def get_protocol(name: str) -> Protocol:
    """The protocol called `name` (or one of its aliases); BadInput for anything else."""
    key = ALIASES.get(name.strip().lower(), name.strip().lower())
    if key not in PROTOCOLS:
        raise BadInput(f"unknown review protocol {name!r} (expected one of {', '.join(PROTOCOLS)})")
    return PROTOCOLS[key]
