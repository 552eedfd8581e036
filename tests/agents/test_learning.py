"""Learning that cannot reward a mistake (issue 10, item 7)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from scigate.agents import (
    AgentContext,
    EvoAgent,
    Task,
    ToolSpace,
    Trajectory,
    alias_table,
)
from scigate.agents._eval import _judge_for_training
from scigate.agents._records import ToolStep
from scigate.llm import get_model
from scigate.tools import ToolSplit

from .conftest import spec

ROTATABLE = Task(
    question="How many rotatable bonds does CCO have?",
    parameter="CCO",
    answer="0",
    tool_path=["GetRotatableBondsNum"],
    domain="chemistry",
)


async def test_a_wrong_tool_that_runs_earns_no_reward_and_no_skill(tools, embedder, tmp_path):
    # Every rollout counts aromatic rings: the tool runs, and its 0 even equals the
    # reference answer; the reference tool path shows the chain is wrong.
    agent = EvoAgent.open(tmp_path / "m.db", tools, known_ratio=1.0, embedder=embedder)
    ctx = AgentContext(model=get_model(spec("wrong_tool")), space=agent.space)
    report = await agent.accumulate(ctx, [ROTATABLE], _judge_for_training(None, alias_table(tools)))
    assert report.base_successes == 0 and report.exploratory_successes == 0
    assert report.failures == 1 and report.skills_added == 0
    assert agent.skills == [] and agent.memory.summary()["skills"] == 0
    for arm in ("known", "unknown"):  # no positive reward reached the gate
        np.testing.assert_allclose(agent.gate.b[arm], 0.0)
    agent.close()


async def test_without_a_reference_nothing_is_learned(tools, embedder, tmp_path):
    agent = EvoAgent.open(tmp_path / "m.db", tools, known_ratio=1.0, embedder=embedder)
    ctx = AgentContext(model=get_model(spec("policy")), space=agent.space)
    bare = Task(question="What is the molecular weight of CCO?", parameter="CCO")
    report = await agent.accumulate(ctx, [bare], _judge_for_training(None, alias_table(tools)))
    # the rollout ran its tools without error; that alone must not count as success
    assert report.unjudged == 1 and report.base_successes == 0
    assert agent.skills == [] and agent.gate.steps == 0
    agent.close()


async def test_a_right_chain_and_answer_is_rewarded(tools, embedder, tmp_path):
    agent = EvoAgent.open(tmp_path / "m.db", tools, known_ratio=1.0, embedder=embedder)
    ctx = AgentContext(model=get_model(spec("policy")), space=agent.space)
    report = await agent.accumulate(ctx, [ROTATABLE], _judge_for_training(None, alias_table(tools)))
    assert report.base_successes == 1 and report.skills_added == 1
    assert [s.tool_chain for s in agent.skills] == [["GetRotatableBondsNum"]]
    agent.close()


def _space_without(tools, name: str, embedder) -> ToolSpace:
    return ToolSpace(tools, ToolSplit.from_known(tools, set(tools) - {name}), embedder=embedder)


def test_completion_never_replaces_observed_io_types(tools, embedder):
    space = _space_without(tools, "InChIToInChIKey", embedder)
    observed = space.io_types("InChIToInChIKey")
    assert observed[0] and observed[1]
    record = space.migrate(
        "InChIToInChIKey",
        {
            "functionality": "Counts atoms.",
            "inputs": ["SMILES"],
            "outputs": ["count"],
            "category": "chemistry",
        },
    )
    assert space.io_types("InChIToInChIKey") == observed
    assert record["provenance"] == {
        "functionality": "completed",  # the sparse line was truncated
        "inputs": "observed",
        "outputs": "observed",
        "category": "completed",
        "objects": "missing",
        "scenarios": "missing",
    }
    assert space.ontology("InChIToInChIKey")["category"] == "chemistry"


async def test_migration_keeps_real_types_through_the_agent_and_its_memory(
    tools, embedder, tmp_path
):
    from scigate.agents._memory import Memory

    name = "InChIToInChIKey"
    space = _space_without(tools, name, embedder)
    observed = space.io_types(name)
    memory = Memory(tmp_path / "m.db")
    memory.save_split(space.split)
    agent = EvoAgent(space, memory, embedder=embedder)
    ctx = AgentContext(model=get_model(spec("bad_ontology")), space=space)
    traj = Trajectory(
        method="evo",
        question="What is the InChIKey of InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3?",
        route="complex",
        chain=[name],
        steps=[
            ToolStep(tool=name, ok=True, known=False, arguments=[{"inchi": "x"}], outputs=["y"])
        ],
    )
    out = await agent.learn(ctx, traj, success=True, migrate=True)
    assert out["migrated"] == [name]
    assert space.io_types(name) == observed
    stored = memory.migrations()[name]
    assert (stored["inputs"], stored["outputs"]) == observed
    assert stored["provenance"]["inputs"] == "observed"
    assert stored["provenance"]["scenarios"] == "completed"
    event = next(e for e in ctx.events if e["kind"] == "migrate")
    assert event["ontology"]["provenance"]["outputs"] == "observed"
    agent.close()
    # reopened, the replayed migration keeps the real types too
    reopened = EvoAgent.open(tmp_path / "m.db", tools, embedder=embedder)
    assert reopened.space.io_types(name) == observed
    reopened.close()


async def test_over_a_run_the_unknown_arm_is_played(tools, embedder, tmp_path):
    agent = EvoAgent.open(
        tmp_path / "m.db", tools, known_ratio=0.5, split_seed=0, embedder=embedder
    )
    model = get_model(spec("policy"))
    question = "What is the InChIKey and the molecular weight of the molecule with SMILES {}?"
    arms = []

    async def scored(task, traj):  # a decided score (issue 20: an unscored task teaches nothing)
        return False

    for smiles in ("CCO", "CCN", "CCC"):
        ctx = AgentContext(model=model, space=agent.space)
        task = Task(question=question.format(smiles), parameter=smiles)
        traj = await agent.solve(ctx, task, reward=scored)
        arms += [d.arm for d in traj.decisions]
    assert "unknown" in arms and "known" in arms
    assert agent.gate.plays["unknown"] >= 1
    agent.close()


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_agent_run_without_memory_leaves_no_files(tmp_path, monkeypatch, capsys):
    import tempfile

    from scigate.cli._agent import app

    home, cwd, tmp = (tmp_path / d for d in ("home", "cwd", "tmp"))
    for d in (home, cwd, tmp):
        d.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    monkeypatch.chdir(cwd)
    app(
        args=[
            "run",
            "--model",
            spec("policy"),
            "--parameter",
            "CCO",
            "What is the InChIKey and the molecular weight of the molecule with SMILES CCO?",
        ],
        standalone_mode=False,
    )
    assert "Answer:" in capsys.readouterr().out
    assert (_tree(home), _tree(cwd), _tree(tmp)) == ([], [], [])
    assert os.getcwd() == str(cwd)
