"""Parameters of SciToolAgent-Evo checked against the paper (§4, §5.3, Appendix G)."""

import json

import pytest

from scigate.agents import (
    AgentContext,
    EvoAgent,
    EvoConfig,
    Experience,
    Task,
    answer_match,
    cosine,
)
from scigate.llm._types import ModelOutput

from .conftest import spec


class Recording:
    """Wraps a scripted model: records (prompt, temperature), replaces chosen replies."""

    def __init__(self, fn: str = "policy", replies: dict[str, str] | None = None) -> None:
        from scigate.llm import get_model

        self.inner = get_model(spec(fn))
        self.replies = replies or {}
        self.calls: list[tuple[str, float]] = []

    async def generate(self, messages, tools=None, **settings):
        text = messages[-1]["content"] if messages[-1]["role"] == "user" else ""
        self.calls.append((text or "", float(settings.get("temperature", -1))))
        for marker, reply in self.replies.items():
            if marker in (text or ""):
                return ModelOutput(model="recording", text=reply)
        return await self.inner.generate(messages, tools=tools, **settings)

    def prompts(self, marker: str) -> list[tuple[str, float]]:
        return [(t, temp) for t, temp in self.calls if marker in t]


MW = Task(
    question="What is the molecular weight of CCO?",
    parameter="CCO",
    answer="46.07",
    domain="chemistry",
)


@pytest.mark.parametrize(
    ("tools_n", "entities", "route"),
    [(1, 1, "simple"), (2, 1, "simple"), (2, 4, "simple"), (3, 1, "complex"), (1, 5, "complex")],
)
async def test_difficulty_routing_thresholds(tools, embedder, tmp_path, tools_n, entities, route):
    """Appendix G: branch thresholds at an estimated tool count of 2 and 4 entities; Level-1
    (1–2 tools) and most Level-2 tasks are simple (Table A1: the router matters there)."""
    reply = json.dumps({"estimated_tool_count": tools_n, "entity_count": entities})
    model = Recording(replies={"Estimate the difficulty": reply})
    agent = EvoAgent.open(tmp_path / "m.db", tools, known_ratio=1.0, embedder=embedder)
    traj = await agent.rollout(AgentContext(model=model, space=agent.space), MW)
    assert traj.route == route
    assert bool(model.prompts("describe the tool capabilities")) == (route == "complex")
    agent.close()


async def test_unusable_difficulty_estimate_goes_to_acquisition(tools, embedder, tmp_path):
    model = Recording(replies={"Estimate the difficulty": json.dumps({"difficulty": "hard"})})
    agent = EvoAgent.open(tmp_path / "m.db", tools, known_ratio=1.0, embedder=embedder)
    traj = await agent.rollout(AgentContext(model=model, space=agent.space), MW)
    assert traj.route == "complex"
    agent.close()


async def test_accumulation_temperatures(tools, embedder, tmp_path):
    """§5.3: one T=0 rollout; on failure three exploratory ones at 0.2, 0.5 and 0.8."""
    model = Recording("contrastive")
    agent = EvoAgent.open(tmp_path / "m.db", tools, known_ratio=1.0, embedder=embedder)

    async def judge(task, traj):
        return bool(answer_match(traj.answer, task))

    await agent.accumulate(AgentContext(model=model, space=agent.space), [MW], judge)
    temps = [t for _, t in model.prompts("Estimate the difficulty")]
    assert temps[0] == 0.0 and sorted(temps[1:]) == [0.2, 0.5, 0.8]
    # a base success needs no exploration
    model = Recording("policy")
    other = EvoAgent.open(tmp_path / "n.db", tools, known_ratio=1.0, embedder=embedder)
    await other.accumulate(AgentContext(model=model, space=other.space), [MW], judge)
    assert [t for _, t in model.prompts("Estimate the difficulty")] == [0.0]
    # inference runs at the main agent's 0.3 (Appendix G)
    assert (
        EvoConfig().temperature == 0.3 and AgentContext(model=model, space=None).temperature == 0.3
    )
    agent.close()
    other.close()


async def test_all_general_and_top5_domain_experiences(tools, embedder, tmp_path):
    """Eq. 4 / Appendix G: every general rule plus the 5 domain rules of d_q nearest to q."""
    agent = EvoAgent.open(
        tmp_path / "m.db",
        tools,
        known_ratio=1.0,
        embedder=embedder,
        config=EvoConfig(routing=False),
    )
    general = [f"general rule number {i} about planning" for i in range(3)]
    chem = [
        "When requiring molecular weight, select a tool that provides average molecular weight",
        "When requiring molar mass of a molecule, select a SMILES weight calculator",
        "When requiring ring counts, select a ring perception tool",
        "When requiring logP, select a Crippen descriptor tool",
        "When requiring TPSA, select a polar surface area tool",
        "When requiring stereo centres, select a chirality tool",
        "When requiring InChIKey, select an InChI hashing tool",
    ]
    for g in general:
        agent.memory.add_experience(
            Experience(
                kind="general",
                situation="general",
                guidance=g,
                embedding=embedder.embed([g])[0].tolist(),
            ),
            threshold=1.1,
        )
    for c in chem:
        sit, guide = c.split(", ")
        agent.memory.add_experience(
            Experience(
                kind="domain",
                domain="chemistry",
                situation=sit,
                guidance=guide,
                embedding=embedder.embed([c])[0].tolist(),
            ),
            threshold=1.1,
        )
    bio = "When requiring molecular weight of DNA, select a nucleic acid weight tool"
    agent.memory.add_experience(
        Experience(
            kind="domain",
            domain="biology",
            situation=bio.split(", ")[0],
            guidance=bio.split(", ")[1],
            embedding=embedder.embed([bio])[0].tolist(),
        ),
        threshold=1.1,
    )
    agent = EvoAgent(agent.space, agent.memory, agent.config, embedder=embedder)
    model = Recording()
    await agent.rollout(AgentContext(model=model, space=agent.space), MW)
    ((prompt, _),) = model.prompts("describe the tool capabilities")
    section = prompt.split("Experience:\n", 1)[1].split("\nTask:\n", 1)[0]
    lines = section.splitlines()
    assert lines[:3] == [f"- {g}" for g in general]
    q = embedder.embed([MW.question])[0]
    nearest = sorted(chem, key=lambda c: -cosine(embedder.embed([c])[0], q))[:5]
    assert lines[3:] == [f"- [chemistry] {c.replace(', ', ' ')}" for c in nearest]
    assert "DNA" not in section
    agent.close()


async def test_experience_pool_deduplicated_after_accumulation(tools, embedder, tmp_path):
    """Appendix G: after accumulation, rules more similar than θ_sim = 0.85 are removed."""
    agent = EvoAgent.open(tmp_path / "m.db", tools, known_ratio=1.0, embedder=embedder)
    v = [1.0, 0.0, 0.0]
    for g, e in (("a", v), ("b", [0.9, 0.1, 0.0]), ("c", [0.0, 0.0, 1.0])):
        agent.memory.add_experience(
            Experience(kind="general", situation="general", guidance=g, embedding=e), threshold=1.1
        )

    async def judge(task, traj):
        return True

    report = await agent.accumulate(AgentContext(model=Recording(), space=agent.space), [MW], judge)
    assert report.experiences_deduplicated == 1
    assert [e.guidance for e in agent.experiences] == ["a", "c"]
    agent.close()


async def test_requests_are_atomic_and_at_most_15_words(tools, embedder, tmp_path):
    long = " ".join(f"w{i}" for i in range(20))
    model = Recording(
        replies={"describe the tool capabilities": f"(1) {long} (2) compute weight …"}
    )
    agent = EvoAgent.open(
        tmp_path / "m.db",
        tools,
        known_ratio=1.0,
        embedder=embedder,
        config=EvoConfig(routing=False),
    )
    traj = await agent.rollout(AgentContext(model=model, space=agent.space), MW)
    assert traj.requests == [" ".join(f"w{i}" for i in range(15)), "compute weight"]
    assert len(traj.decisions) == 2  # one gate decision per request
    agent.close()


async def test_simple_route_plans_over_the_whole_known_graph(tools, embedder, tmp_path):
    """Algorithm 1, line 11: CoT planning over G_K ∪ T_U, not over a raw-query top-K."""
    agent = EvoAgent.open(tmp_path / "m.db", tools, known_ratio=0.5, embedder=embedder)
    model = Recording()
    traj = await agent.rollout(AgentContext(model=model, space=agent.space), MW)
    assert traj.route == "simple"
    ((prompt, temperature),) = model.prompts("Plan the tool chain")
    known_block = prompt.split("Known tools:\n", 1)[1].split("\nUnknown tools", 1)[0]
    listed = {line[2:].split(":", 1)[0] for line in known_block.splitlines()}
    assert listed == agent.space.known
    unknown_block = prompt.split("use one only when no known tool fits):\n", 1)[1]
    assert any(line.startswith("- ") for line in unknown_block.splitlines())
    assert temperature == 0.3
    agent.close()


async def test_rerank_prompt_carries_category_and_expected_input(tools, embedder, tmp_path):
    """Appendix I, Rerank and Score: Category = the task domain; the previous tool's output
    type is the expected input of the next request."""
    agent = EvoAgent.open(
        tmp_path / "m.db",
        tools,
        known_ratio=1.0,
        embedder=embedder,
        config=EvoConfig(routing=False),
    )
    model = Recording()
    task = Task(
        question="What is the InChIKey of the molecule with SMILES CCO?",
        parameter="CCO",
        domain="chemistry",
    )
    traj = await agent.rollout(AgentContext(model=model, space=agent.space), task)
    prompts = [p for p, _ in model.prompts("Complete the following two-step task")]
    assert len(prompts) == len(traj.requests) == 2
    assert all("Category=chemistry" in p for p in prompts)
    assert "Expected input type" not in prompts[0]
    assert "Expected input type: InChI" in prompts[1]
    agent.close()


async def test_exploration_without_unknown_tools_is_played_as_exploitation(
    tools, embedder, tmp_path
):
    agent = EvoAgent.open(
        tmp_path / "m.db",
        tools,
        known_ratio=1.0,
        embedder=embedder,
        config=EvoConfig(routing=False, gate="explore"),
    )
    assert agent.space.unknown == set()
    traj = await agent.solve(AgentContext(model=Recording(), space=agent.space), MW)
    (decision,) = traj.decisions
    assert decision.arm == "known" and decision.tool == decision.top1 == "SMILESToWeight"
    assert decision.note and traj.executed_ok
    assert agent.explore_stats == {"attempts": 0, "successes": 0}
    assert agent.gate.b["unknown"].sum() == 0 and agent.gate.b["known"].sum() > 0
    agent.close()
