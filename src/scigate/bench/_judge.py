"""`bench build --judge`: the paper's LLM sample-quality judge (Appendix D, SciToolAgent-Evo).

The judge sees the question, the reference tool chain and the parameter and answers
{"decision": "Yes / No", "reason": ...}. "No" rejects the task with the judge's reason; a
failed call is `error` and a reply without a clear Yes/No is `unjudged` — neither is
ever accepted.
"""

from __future__ import annotations

import json
from typing import Any

from scigate.agents import extract_json
from scigate.bench._compose import Rejected

SAMPLE_QUALITY_SYSTEM = "You are a scientific evaluation expert."

# Appendix D, "Prompt for Sample Quality Evaluation", word for word (the HTML's "invalid
# JSONformat" is "in valid JSON format" with its spaces lost).
SAMPLE_QUALITY = """Below are a question, a reference tool chain, and the corresponding parameter. Please use the following rule to determine whether the sample satisfies the quality standard.
[RULE]:
1. Check whether the question is clearly stated and free of obvious ambiguity.
2. Check whether tool_path covers the scientific operations required by the question.
3. Check whether the input-output dependencies between adjacent tools in tool_path are valid and can form an executable chain.
4. Judge as “No” if any condition fails; otherwise, “Yes”.
Question:
{question}
Reference tool chain:
{tool_path}
Parameter:
{parameter}
Strictly output the response in valid JSON format only. The required JSON format is as follows:
{{"decision": "Yes / No", "reason": "brief explanation"}}"""


class Unjudged(Rejected):
    """The judge could not decide (failed call: `error`; unusable reply: `unjudged`)."""

    def __init__(self, status: str, reason: str) -> None:
        super().__init__(reason)
        self.status = status


def judge_messages(task: dict[str, Any]) -> list[dict[str, str]]:
    """The Appendix D system and user messages for one built task."""
    user = SAMPLE_QUALITY.format(
        question=task["question"],
        tool_path=json.dumps(task["tool_path"]),
        parameter=json.dumps(task["Parameter"]),
    )
    return [
        {"role": "system", "content": SAMPLE_QUALITY_SYSTEM},
        {"role": "user", "content": user},
    ]


async def judge_task(model: Any, task: dict[str, Any]) -> dict[str, str]:
    """Ask the judge about `task`: its record on "Yes"; `Rejected` on "No"; `Unjudged` else."""
    try:
        out = await model.generate(judge_messages(task))
    except Exception as exc:  # a failed call decides nothing about this task
        raise Unjudged("error", f"judge failed: {type(exc).__name__}: {exc}") from None
    reply = extract_json(out.text or "")
    decision = str((reply or {}).get("decision", "")).strip().strip(".").casefold()
    reason = str((reply or {}).get("reason", "")).strip()
    if decision == "yes":
        return {"decision": "Yes", "reason": reason}
    if decision == "no":
        raise Rejected(f"No: {reason}" if reason else "No")
    raise Unjudged("unjudged", f"judge reply has no Yes/No decision: {(out.text or '')[:80]!r}")


__all__ = ["SAMPLE_QUALITY", "SAMPLE_QUALITY_SYSTEM", "Unjudged", "judge_messages", "judge_task"]
