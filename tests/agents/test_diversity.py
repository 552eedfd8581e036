"""Exploratory rollouts on a model that accepts only its default temperature."""

from scigate.agents import AgentContext, EvoAgent, Task, ToolSpace, answer_match
from scigate.llm import get_model
from scigate.tools import make_split

from .conftest import spec


async def _judge(task, traj):
    return bool(answer_match(traj.answer, task))


TASK = Task(
    question="What is the molecular weight of CCO?",
    parameter="CCO",
    answer="46.07",
    tool_path=["SMILESToWeight"],
    domain="chemistry",
)


async def test_without_temperature_exploration_varies_by_seed_and_instruction(
    tools, embedder, tmp_path
):
    model = get_model(spec("seeded_contrastive") + "?accepts_temperature=false")
    seen = model.function.__globals__["SEEN_SETTINGS"]
    seen.clear()
    agent = EvoAgent.open(tmp_path / "m.db", tools, known_ratio=1.0, embedder=embedder)
    ctx = AgentContext(model=model, space=agent.space)
    report = await agent.accumulate(ctx, [TASK], _judge)
    agent.close()
    # the temperature never reaches the model; the seeds of T=0.2/0.5/0.8 do
    assert all("temperature" not in s for s in seen)
    assert {s.get("seed") for s in seen} >= {201, 501, 801}
    # and so the T >= 0.5 variants find the right tool where the base rollout did not
    assert report.base_successes == 0 and report.exploratory_successes == 1


async def test_a_model_with_temperature_gets_it_and_no_substitute(tools, embedder):
    model = get_model(spec("seeded_contrastive"))
    seen = model.function.__globals__["SEEN_SETTINGS"]
    seen.clear()
    space = ToolSpace(tools, make_split(tools, seed=0, known_ratio=1.0), embedder=embedder)
    forked = AgentContext(model=model, space=space).fork(temperature=0.5)
    await forked.chat("Say something.", purpose="probe")
    assert seen[-1]["temperature"] == 0.5
    assert "seed" not in seen[-1]
    assert not [e for e in forked.events if e["kind"] == "diversity"]


async def test_the_substitution_is_recorded(tools, embedder):
    model = get_model(spec("seeded_contrastive") + "?accepts_temperature=false")
    space = ToolSpace(tools, make_split(tools, seed=0, known_ratio=1.0), embedder=embedder)
    forked = AgentContext(model=model, space=space).fork(temperature=0.8)
    (event,) = [e for e in forked.events if e["kind"] == "diversity"]
    assert event["source"] == "seed+instruction" and event["seed"] == 801
    assert event["requested_temperature"] == 0.8
