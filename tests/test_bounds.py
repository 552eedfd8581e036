"""Option bounds are declared once, on the library's config record (issue 24).

The library's error names the field, never a flag; the CLI checks and documents the flag
from the same declaration and shows a library `BadValue` under the flag's name; changing
the one declaration changes both refusals.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import annotated_types as at
import pytest

from scigate._bounds import field_range, range_of
from scigate.agents import EvalConfig, EvoConfig
from scigate.cli import main
from scigate.errors import BadInput, BadValue
from scigate.gate import LoopConfig


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_:
        main(list(args))
    return int(exit_.value.code or 0), capsys.readouterr().err


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda: LoopConfig(rounds=-1), "rounds"),
        (lambda: LoopConfig(calls=0), "calls"),
        (lambda: LoopConfig(concurrency=0), "concurrency"),
        (lambda: LoopConfig(fem_workers=2000), "fem_workers"),
        (lambda: LoopConfig(verify_timeout=0), "verify_timeout"),
        (lambda: LoopConfig(solve_time_limit=float("nan")), "solve_time_limit"),
        (lambda: LoopConfig(mpi_ranks=65), "mpi_ranks"),
        (lambda: LoopConfig(seeds_in_prompt=-1), "seeds_in_prompt"),
        (lambda: LoopConfig(near_duplicate=1.5), "near_duplicate"),
        (lambda: EvalConfig(method="evo", runs=0).check(), "runs"),
        (lambda: EvalConfig(method="evo", known_ratio=-0.1).check(), "known_ratio"),
        (lambda: EvalConfig(method="evo", concurrency=0).check(), "concurrency"),
        (lambda: EvalConfig(method="evo", max_tools=1).check(), "max_tools"),
        (
            lambda: EvalConfig(method="evo", evo=EvoConfig(gate_threshold=1.5)).check(),
            "gate_threshold",
        ),
    ],
)
def test_library_errors_name_the_field_never_a_flag(make, field: str) -> None:
    with pytest.raises(BadValue) as err:
        make()
    assert err.value.field == field
    assert str(err.value).startswith(f"{field} must be ") and "--" not in str(err.value)


def test_a_field_assigned_after_construction_is_checked_too() -> None:
    cfg = LoopConfig()
    cfg.rounds = -3  # what a resume does with the stored record
    with pytest.raises(BadValue, match=r"^rounds must be between 0 and 100000, got -3$"):
        cfg.check()
    cfg = LoopConfig(solver="cue/a", solver_cmd="x", screens=["cue/a", "cue/a"])
    for message in _messages(cfg):
        assert "--" not in message


def _messages(cfg: LoopConfig) -> Iterator[str]:
    try:
        cfg.check()
    except BadInput as exc:
        yield str(exc)
    cfg.solver = None
    try:
        cfg.check()
    except BadInput as exc:
        yield str(exc)


def test_invariance_uses_the_runs_declared_mpi_range() -> None:
    from scigate.gate import invariance

    with pytest.raises(BadValue, match=r"^mpi_ranks must be between 1 and 64, got 0$"):
        invariance("/nonexistent", mpi_ranks=0)


def test_the_cli_reports_a_bound_under_the_flag(capsys: pytest.CaptureFixture[str], tmp_path):
    db = str(tmp_path / "r.db")
    code, err = _cli(
        capsys, "gate", "run", "--db", db, "--generator", "templates", "--mpi-ranks", "65"
    )
    assert code == 2 and err.count("\n") == 1
    assert "'--mpi-ranks': must be between 1 and 64, got 65" in err
    # the CLI's own floor where it differs: --rounds 0 is refused, the library's 0 is not
    code, err = _cli(capsys, "gate", "run", "--db", db, "--generator", "templates", "--rounds", "0")
    assert code == 2 and "'--rounds': must be between 1 and 100000" in err
    assert LoopConfig(rounds=0).rounds == 0
    # and --fem-workers 0 means one per core
    assert field_range(LoopConfig, "fem_workers") == range_of(LoopConfig, "fem_workers")


def test_a_library_bad_value_is_shown_under_its_flag(capsys: pytest.CaptureFixture[str]) -> None:
    from scigate.cli._app import show_error

    assert show_error(BadValue("solve_time_limit", "must be above 0, got 0")) == 2
    assert capsys.readouterr().err == "scigate: error: --time-limit must be above 0, got 0\n"
    assert show_error(BadValue("seeds_in_prompt", "must be at most 3, got 5")) == 2
    assert capsys.readouterr().err == "scigate: error: --seeds-in-prompt must be at most 3, got 5\n"


def test_help_shows_the_declared_range(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["gate", "invariance", "--help"])
    words = " ".join(re.sub(r"[│─╭╮╰╯]", " ", capsys.readouterr().out).split())
    assert f"(Allowed: {range_of(LoopConfig, 'mpi_ranks').text()}.)" in words
    assert "(Allowed: between 1 and 64.)" in words


@pytest.fixture
def mpi_ranks_up_to_8() -> Iterator[None]:
    """LoopConfig.mpi_ranks declared as [1, 8] instead of [1, 64], then restored."""
    field = LoopConfig.model_fields["mpi_ranks"]
    saved = list(field.metadata)
    field.metadata[:] = [at.Ge(1), at.Le(8)]
    LoopConfig.model_rebuild(force=True)
    try:
        yield
    finally:
        field.metadata[:] = saved
        LoopConfig.model_rebuild(force=True)


def test_one_declaration_changes_both_refusals(
    mpi_ranks_up_to_8: None, capsys: pytest.CaptureFixture[str], tmp_path
) -> None:
    with pytest.raises(BadValue, match=r"^mpi_ranks must be between 1 and 8, got 9$"):
        LoopConfig(mpi_ranks=9)
    code, err = _cli(capsys, "gate", "invariance", str(tmp_path), "--mpi-ranks", "9")
    assert code == 2 and "'--mpi-ranks': must be between 1 and 8, got 9" in err
    db = str(tmp_path / "r.db")
    code, err = _cli(
        capsys, "gate", "run", "--db", db, "--generator", "templates", "--mpi-ranks", "9"
    )
    assert code == 2 and "must be between 1 and 8, got 9" in err
    assert LoopConfig(mpi_ranks=8).mpi_ranks == 8


def test_ranges_read_in_words_and_as_intervals() -> None:
    assert range_of(LoopConfig, "verify_timeout").text() == "above 0 and at most 604800"
    assert range_of(LoopConfig, "verify_timeout").interval() == "(0, 604800]"
    assert range_of(EvoConfig, "gate_threshold").interval() == "[0, 1]"
    assert range_of(LoopConfig, "rounds").with_low(1).text() == "between 1 and 100000"
    assert field_range(LoopConfig, "domain") is None
    with pytest.raises(KeyError):
        range_of(LoopConfig, "domain")
