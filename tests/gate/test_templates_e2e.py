"""The model-free pipeline end to end: template candidates, gate 1, cue screens, audit,
report and export (what `make demo` runs)."""

import json
from pathlib import Path

import pytest

from _gate_runs import round_outcomes, scigate_in_process
from scigate.store import Store


@pytest.mark.slow
def test_template_run_audit_report_export(tmp_path: Path) -> None:
    db = tmp_path / "tg.db"
    run = scigate_in_process(
        *("gate", "run", "--domain", "fenicsx", "--generator", "templates"),
        *("--rounds", "4", "--seed", "3", "--screen", "cue/middle", "--screen", "cue/letter-C"),
        *("--db", str(db), "--json"),
    )
    assert run.returncode == 0, run.stderr[-3000:]
    funnel = json.loads(run.stdout)["funnel"]
    assert funnel["generated"] == 4 and funnel["verified"] == 4, run.stdout
    with Store(db) as store:
        families = {c.family for c in store.candidates()}
        assert len(families) == 4  # one candidate per family
        assert all(len(set(c.options.values())) == 4 for c in store.candidates())
    audit = scigate_in_process("gate", "audit", "--db", str(db), "--json")
    assert audit.returncode == 0, audit.stderr
    a = json.loads(audit.stdout)
    assert a["verified"] == 4 and sum(a["value_rank_distribution"].values()) == 4
    assert [s["screen"] for s in a["screens"]] == ["cue/middle", "cue/letter-C"][
        : len(a["screens"])
    ]
    report = scigate_in_process("gate", "report", "--db", str(db), "--out", str(tmp_path / "r"))
    assert report.returncode == 0, report.stderr
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["funnel"]["verified"] == 4
    out = tmp_path / "accepted.jsonl"
    export = scigate_in_process("gate", "export", "--db", str(db), "--out", str(out))
    assert export.returncode == 0, export.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == summary["funnel"]["unique"]
    for row in rows:
        assert {g["gate"] for g in row["gates"]} >= {"verify", "screen"}


def _counting_run_solution(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Count the fresh-interpreter self-checks of the template generator."""
    from scigate.domains.fenicsx.templates import _generator

    real, calls = _generator.run_solution, []

    def counted(candidate: Path, *args, **kwargs) -> str:
        calls.append(candidate)
        return real(candidate, *args, **kwargs)

    monkeypatch.setattr(_generator, "run_solution", counted)
    return calls


@pytest.mark.slow
def test_template_self_check_uses_the_warm_run(tmp_path: Path, monkeypatch) -> None:
    """Issue 27 item 3: the saved solution is not run again in a fresh interpreter; the
    warm worker's printed line of the same source is checked, and a mismatch fails."""
    from scigate.domains.fenicsx import FenicsxDomain
    from scigate.domains.fenicsx.templates import _generator
    from scigate.domains.fenicsx.templates._runner import ScriptResult
    from scigate.errors import ScigateError
    from scigate.gate._candidate import load_candidate

    calls = _counting_run_solution(monkeypatch)
    with FenicsxDomain().template_generator(seed=3, families=["basix_tabulate"]) as gen:
        out = gen.generate(0, tmp_path / "c0")
        assert calls == []
        cand = load_candidate(out)
        # what the warm check vouched for holds in a fresh interpreter
        assert _generator.run_solution(out) == cand.options[cand.answer]
        assert len(calls) == 1  # the call just above
        real_run = gen.worker.run

        def off_by_one_digit(source: str) -> ScriptResult:
            r = real_run(source)
            return ScriptResult(ok=r.ok, value=r.value, printed=r.printed + "1", error=r.error)

        monkeypatch.setattr(gen.worker, "run", off_by_one_digit)
        with pytest.raises(ScigateError, match=r"solution\.py printed"):
            gen.generate(1, tmp_path / "c1")


def _gate_run(db: Path, extra: list[str] | None = None) -> dict:
    from typer.testing import CliRunner

    from scigate.cli import app

    res = CliRunner().invoke(
        app,
        [
            "gate",
            "run",
            "--domain",
            "fenicsx",
            "--generator",
            "templates",
            *(extra or ["--rounds", "4"]),
            "--seed",
            "3",
            "--screen",
            "cue/middle",
            "--db",
            str(db),
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output[-3000:]
    return json.loads(res.stdout)["funnel"]


@pytest.mark.slow
def test_template_gate_run_funnel_unchanged_without_the_fresh_self_check(
    tmp_path: Path, monkeypatch
) -> None:
    """The same template run with the old fresh-interpreter self-check and with the warm
    one: the same funnel, and no solution is run a second time before gate 1."""
    from scigate.domains.fenicsx import FenicsxDomain
    from scigate.domains.fenicsx.templates import TemplateGenerator

    calls = _counting_run_solution(monkeypatch)
    warm = _gate_run(tmp_path / "warm.db")
    assert calls == []
    domain_gen = FenicsxDomain.template_generator

    def fresh(self, seed: int = 0, families=None) -> TemplateGenerator:
        gen = domain_gen(self, seed, families)
        gen.fresh_check = True
        return gen

    monkeypatch.setattr(FenicsxDomain, "template_generator", fresh)
    old = _gate_run(tmp_path / "fresh.db")
    assert len(calls) == old["generated"] > 0  # the old way: one fresh run per candidate
    assert warm == old


@pytest.mark.slow
def test_template_run_in_generation_order_has_the_sequential_funnel(
    tmp_path: Path, monkeypatch
) -> None:
    """Issue 27: the near-duplicate check in the order of generation, before a round's
    scripts run, against the old way one round at a time (every candidate computed, then
    checked): the same outcome in every round, the same candidates (answers, distractors)
    reach gate 1, and fewer candidates are computed."""
    from scigate.domains.fenicsx.templates import TemplateGenerator
    from scigate.gate._generator import TemplateCandidates

    made: list[int] = []
    real = TemplateGenerator.generate

    def counted(self, index: int, out_dir: Path) -> Path:
        made.append(index)
        return real(self, index, out_dir)

    monkeypatch.setattr(TemplateGenerator, "generate", counted)
    args = ["--rounds", "12", "--fem-workers", "2", "--concurrency", "4"]
    funnel = _gate_run(tmp_path / "ordered.db", args)
    ordered, computed = round_outcomes(tmp_path / "ordered.db"), len(made)
    made.clear()
    monkeypatch.delattr(TemplateCandidates, "questions")  # the old way
    sequential = ["--rounds", "12", "--fem-workers", "1", "--concurrency", "1"]
    assert _gate_run(tmp_path / "sequential.db", sequential) == funnel
    assert round_outcomes(tmp_path / "sequential.db") == ordered
    assert funnel["near_duplicates"] > 0
    assert len(made) == 12 and computed < 12
