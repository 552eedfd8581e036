from scigate.agents import AgentContext, EvoAgent, Task, answer_match

from .conftest import spec


async def _judge(task, traj):
    return bool(answer_match(traj.answer, task))


async def test_contrastive_pair_gives_experiences_and_a_skill(tools, embedder, tmp_path):
    from scigate.llm import get_model

    model = get_model(spec("contrastive"))
    agent = EvoAgent.open(tmp_path / "m.db", tools, known_ratio=1.0, embedder=embedder)
    task = Task(
        question="What is the molecular weight of CCO?",
        parameter="CCO",
        answer="46.07",
        tool_path=["SMILESToWeight"],
        domain="chemistry",
    )
    ctx = AgentContext(model=model, space=agent.space)
    report = await agent.accumulate(ctx, [task], _judge)
    assert report.base_successes == 0 and report.exploratory_successes == 1
    kinds = sorted(e.kind for e in agent.experiences)
    assert kinds == ["domain", "general"]
    domain = next(e for e in agent.experiences if e.kind == "domain")
    assert domain.domain == "chemistry" and domain.situation.lower().startswith("when requiring")
    assert "SMILESToWeight" in domain.guidance  # distilled from the successful T=0.5 rollout
    assert [s.tool_chain for s in agent.skills] == [["SMILESToWeight"]]
    assert report.skills_added == 1
    purposes = [e["purpose"] for e in ctx.events if e["kind"] == "llm"]
    assert "critique" in purposes and "experience" in purposes
    # the failed base rollout taught the gate nothing positive; memory persisted
    assert agent.memory.summary()["skills"] == 1
    # the same pair again: the experiences are near-duplicates and are discarded
    again = await agent.accumulate(
        AgentContext(model=model, space=agent.space),
        [task.model_copy(update={"question": "What is the molecular weight of CCO ?"})],
        _judge,
    )
    assert again.experiences_discarded >= 1 or again.base_successes == 1
    agent.close()


async def test_base_success_becomes_a_skill(tools, embedder, model, tmp_path):
    agent = EvoAgent.open(tmp_path / "m.db", tools, known_ratio=1.0, embedder=embedder)
    task = Task(question="What is the molecular weight of CCO?", parameter="CCO", answer="46.07")
    report = await agent.accumulate(AgentContext(model=model, space=agent.space), [task], _judge)
    assert report.base_successes == 1 and report.skills_added == 1
    assert agent.experiences == []
    agent.close()
