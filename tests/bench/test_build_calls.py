"""`bench build` records every model call it makes (writer, screens, judge) in the run
database, as `gate run` does: the build's cost comes from recorded calls, never from none."""

from __future__ import annotations

from pathlib import Path

from scigate.bench import BuildConfig, build
from scigate.store import Store

MODELS = Path(__file__).parent / "models"
SCREENS = Path(__file__).parents[1] / "gate" / "models" / "screens.py"


def _stages(attempts: list[dict]) -> list[str]:
    return [a["detail"].get("stage") or a["stage"] for a in attempts]


def test_writer_screen_and_judge_calls_are_recorded(tmp_path: Path) -> None:
    config = BuildConfig(
        n=3,
        levels=[1],
        generator=f"python/{MODELS / 'writers.py'}:good",
        screens=[f"python/{SCREENS}:always_a"],
        judge=f"python/{MODELS / 'judges.py'}:approves",
        seed=3,
        max_attempts=12,
    )
    report = build(config, tmp_path / "b.db", tmp_path / "b.jsonl")
    assert report.accepted >= 1
    with Store(tmp_path / "b.db") as store:
        calls = store.model_calls(run_id=report.run_id)
        attempts = store.attempts(report.run_id)
    roles = [c["role"] for c in calls]
    written = [a for a in attempts if "writer" in a["detail"]]
    screened = [a for a in attempts if a["detail"].get("screens")]
    judged = [a for a in attempts if "judge" in a["detail"]]
    assert written and screened and judged, _stages(attempts)
    # one writer call per worded attempt, every screen call made (a decided majority stops
    # early), one judge call per judged attempt; all under this run, by the spec that made them
    assert roles.count("writer") == len(written)
    assert roles.count("screen") == sum(
        s["calls"] for a in screened for s in a["detail"]["screens"]
    )
    assert roles.count("screen") >= 2 * len(screened)
    assert roles.count("judge") == len(judged)
    assert {c["spec"] for c in calls if c["role"] == "judge"} == {config.judge}
    assert all(c["run_id"] == report.run_id for c in calls)
