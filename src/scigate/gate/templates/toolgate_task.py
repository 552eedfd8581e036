"""ToolGate pool as a no-tool inspect_ai task: `inspect eval toolgate_task.py --model openai/gpt-5.5`.

The model sees the question and the four options (in the released order) and answers
with a letter, without tools: the no-tool screen of gate 2 (one call per item; for the
screen's majority of three run `--epochs 3 --epochs-reducer mode`: inspect's default
reducer averages the epochs instead).
"""

from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import Sample, json_dataset
from inspect_ai.scorer import choice
from inspect_ai.solver import multiple_choice

POOL = Path(__file__).with_name("pool.jsonl")


def record_to_sample(record: dict) -> Sample:
    """One pool item as a multiple-choice sample (the released option order)."""
    return Sample(
        id=record["id"],
        input=record["question"],
        choices=[record["options"][k] for k in "ABCD"],
        target=record["answer"],
        metadata={
            "family": record.get("family"),
            "answer_value": record.get("answer_value"),
            "value_rank": record.get("value_rank"),
        },
    )


@task
def toolgate() -> Task:
    """No-tool multiple-choice evaluation on the ToolGate pool."""
    return Task(
        dataset=json_dataset(str(POOL), record_to_sample),
        solver=multiple_choice(),
        scorer=choice(),
    )
