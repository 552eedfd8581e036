"""Evo learns from right answers only (issue 20, item 4): at test time the bandit reward,
skill distillation and tool migration follow the strict score the row reports, never
"the chain executed"; an unjudged task teaches nothing; a knowledge accumulation that
failed or learned nothing ends `agent eval` with exit 1 and one line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from scigate.agents import EvalConfig, EvoConfig, Memory, Task, evaluate
from scigate.llm import get_model

HONEST = Path(__file__).parent / "models" / "honest.py"
SCRIPTED = Path(__file__).parent / "models" / "scripted.py"

TASKS = [
    # the tools run, the answer is free text no rule decides and no judge is given
    Task(
        question="What is the InChIKey of the molecule with SMILES CCO?",
        parameter="CCO",
        answer="the InChIKey of ethanol",
        domain="chemistry",
    ),
    # the aromatic-ring counter runs without error and even gives the reference's 0, but
    # the reference path shows the chain is wrong
    Task(
        question="How many rotatable bonds does CCO have?",
        parameter="CCO",
        answer="0",
        tool_path=["GetRotatableBondsNum"],
        domain="chemistry",
    ),
    # right chain, right answer
    Task(
        question="What is the molecular weight of CCO?",
        parameter="CCO",
        answer="46.07",
        tool_path=["SMILESToWeight"],
        domain="chemistry",
    ),
]


async def test_a_wrong_executed_chain_earns_no_reward_and_no_skill_a_right_one_does(
    tools, embedder, tmp_path
):
    memory = tmp_path / "mem.db"
    config = EvalConfig(
        method="evo", known_ratio=1.0, memory=str(memory), evo=EvoConfig(routing=False)
    )
    trajs = []
    result = await evaluate(
        get_model(f"python/{HONEST}:wrong_on_rotatable"),
        TASKS,
        tools,
        config,
        embedder=embedder,
        on_task=lambda row, traj: trajs.append(traj),
    )
    unjudged, wrong, right = result.rows
    assert all(r["route"] == "complex" and r["executed_ok"] for r in result.rows)
    assert unjudged["status"] == "unjudged"
    assert unjudged["learned"] == {"reward": None, "updated": False, "skill": None, "migrated": []}
    assert wrong["predicted_chain"] == ["GetAromaticRingsNum"] and wrong["tool_exact"] == 0.0
    assert wrong["status"] == "correct"  # its answer alone would have been rewarded
    assert wrong["learned"]["reward"] is False and wrong["learned"]["skill"] is None
    assert right["predicted_chain"] == ["SMILESToWeight"] and right["status"] == "correct"
    assert right["learned"]["reward"] is True and right["learned"]["skill"] is not None
    with Memory(memory) as stored:
        # only the right trajectory became a skill
        assert [s.tool_chain for s in stored.skills()] == [["SMILESToWeight"]]
        gate = stored.get_state("gate")
    # the gate was updated for the two scored tasks only, and rewarded only the right one
    played = len(trajs[1].decisions) + len(trajs[2].decisions)
    assert gate["steps"] == played
    right_x = sum(np.asarray(d.x) for d in trajs[2].decisions)
    b = sum(np.asarray(gate["b"][arm]) for arm in ("known", "unknown"))
    np.testing.assert_allclose(b, right_x)


def _cli(tmp_path: Path, train_rows: list[dict]) -> tuple[int, str, str]:
    from _cli import run_main

    bench = tmp_path / "bench.jsonl"
    bench.write_text(json.dumps({"question": "What is the molecular weight of CCO?"}) + "\n")
    train = tmp_path / "train.jsonl"
    train.write_text("".join(json.dumps(r) + "\n" for r in train_rows))
    args = ["agent", "eval", "--method", "evo", "--bench", str(bench), "--train", str(train)]
    args += ["--model", f"python/{SCRIPTED}:policy", "--known-ratio", "1.0"]
    args += ["--out", str(tmp_path / "out"), "--json"]
    return run_main(*args)


def test_an_empty_training_set_is_refused_with_one_line(tmp_path):
    code, _, err = _cli(tmp_path, [])
    assert code == 2  # bad input, before any work
    assert err.strip().splitlines() == [
        f"scigate: error: bench file {tmp_path / 'train.jsonl'} holds no tasks"
    ]


def test_an_accumulation_that_learned_nothing_exits_1_with_one_line(tmp_path):
    # no reference answer and no path: nothing decides the rollout, nothing is learned
    code, _, err = _cli(
        tmp_path, [{"question": "What is the molecular weight of CCO?", "Parameter": "CCO"}]
    )
    assert code == 1, err
    assert err.strip().splitlines() == [
        "scigate: error: knowledge accumulation failed, run 0: none of 1 training tasks was "
        "solved (0 wrong, 1 unjudged), nothing was learned"
    ]
    # the evaluation itself ran and says so too
    md = (tmp_path / "out" / "results.md").read_text()
    assert "knowledge accumulation failed, run 0" in md
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["accumulation"][0]["unjudged"] == 1


def test_an_accumulation_that_learned_exits_0(tmp_path):
    row = {
        "question": "What is the molecular weight of CCO?",
        "Parameter": "CCO",
        "answer": "46.07",
        "tool_path": ["SMILESToWeight"],
    }
    code, _, err = _cli(tmp_path, [row])
    assert (code, err) == (0, "")
