import numpy as np
import pytest

from scigate.agents import AgentContext, EvoAgent, EvoConfig, Experience, Memory, Skill
from scigate.errors import BadInput


def _unit(v):
    v = np.asarray(v, dtype=float)
    return (v / np.linalg.norm(v)).tolist()


def _at_cos(c):
    return _unit([c, np.sqrt(1 - c * c), 0.0])


def test_experience_dedup_at_085(tmp_path):
    mem = Memory(tmp_path / "m.db")
    base = _unit([1.0, 0.0, 0.0])
    assert mem.add_experience(
        Experience(kind="general", situation="general", guidance="a", embedding=base)
    )
    assert not mem.add_experience(
        Experience(kind="general", situation="general", guidance="b", embedding=_at_cos(0.86))
    )
    assert mem.add_experience(
        Experience(
            kind="domain", domain="chemistry", situation="s", guidance="c", embedding=_at_cos(0.84)
        )
    )
    assert [e.guidance for e in mem.experiences()] == ["a", "c"]
    mem.close()


def test_dedup_pass_removes_near_duplicates(tmp_path):
    mem = Memory(tmp_path / "m.db")
    # stored without the check (threshold above 1), then deduplicated as a pass
    for g, v in (("a", _unit([1, 0, 0])), ("b", _at_cos(0.9)), ("c", _unit([0, 0, 1]))):
        mem.add_experience(
            Experience(kind="general", situation="general", guidance=g, embedding=v), threshold=1.1
        )
    assert mem.dedup_experiences() == 1
    assert [e.guidance for e in mem.experiences()] == ["a", "c"]
    mem.close()


async def test_memory_survives_restart(tmp_path, tools, embedder, model):
    path = tmp_path / "memory.db"
    agent = EvoAgent.open(path, tools, known_ratio=0.5, split_seed=3, embedder=embedder)
    known_before = set(agent.space.known)
    unknown_tool = sorted(agent.space.unknown)[0]
    agent.memory.add_skill(
        Skill(name="mw", description="weight", tool_chain=["SMILESToWeight"], embedding=[1.0, 0.0])
    )
    agent.memory.add_experience(
        Experience(
            kind="domain",
            domain="chemistry",
            situation="When requiring mass",
            guidance="select a weight tool",
            embedding=[0.0, 1.0],
        )
    )
    agent.gate.update([1, 0.5, 0.5, 0.5], "unknown", 1)
    agent.gate.record_task(known_failed=True)
    agent.explore_stats = {"attempts": 3, "successes": 2}
    agent.space.migrate(
        unknown_tool, {"functionality": "completed", "inputs": ["SMILES"], "outputs": ["x"]}
    )
    agent.memory.migrate_tool(
        unknown_tool, {"functionality": "completed", "inputs": ["SMILES"], "outputs": ["x"]}
    )
    agent._save_state()
    gate_state = agent.gate.state()
    agent.close()

    again = EvoAgent.open(
        path, tools, known_ratio=0.9, split_seed=99, embedder=embedder
    )  # split is persisted
    assert again.space.known == known_before | {unknown_tool}
    assert again.space.ontology(unknown_tool)["functionality"] == "completed"
    assert [s.name for s in again.skills] == ["mw"]
    assert [e.guidance for e in again.experiences] == ["select a weight tool"]
    assert again.gate.state() == gate_state
    assert again.exploration_prior == pytest.approx(3 / 5)
    assert again.memory.summary()["migrated_tools"] == 1
    again.close()


def test_memory_rejects_foreign_file(tmp_path):
    bad = tmp_path / "x.db"
    bad.write_text("not a database at all" * 100)
    with pytest.raises(BadInput):
        Memory(bad)


def test_schema_version_and_wal(tmp_path):
    mem = Memory(tmp_path / "m.db")
    assert mem.conn.execute("PRAGMA user_version").fetchone()[0] == 1
    assert mem.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    mem.close()
    Memory(tmp_path / "m.db").close()  # reopening migrates nothing and keeps working


async def test_unused_context_is_cheap(tools, embedder, model, tmp_path):
    agent = EvoAgent.open(tmp_path / "m.db", tools, config=EvoConfig(), embedder=embedder)
    ctx = AgentContext(model=model, space=agent.space)
    assert ctx.usage.calls == 0
    agent.close()
