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


# --- bench build: BuildConfig declares its bounds; the CLI reports them under the flags


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"n": 0}, "n must be between 1 and 1000000, got 0"),
        ({"n": 2, "levels": [1, 7]}, "levels must be between 1 and 4, got 7"),
        ({"n": 2, "levels": []}, "levels must hold at least 1 value(s), got []"),
        ({"n": 2, "batch": 0}, "batch must be between 1 and 1024, got 0"),
        ({"n": 2, "max_attempts": 0}, "max_attempts must be between 1 and 25000000, got 0"),
        ({"n": 2, "similarity": 1.5}, "similarity must be between 0 and 1, got 1.5"),
        ({"n": 2, "screen_calls": 0}, "screen_calls must be between 1 and 1000, got 0"),
    ],
)
def test_build_config_names_its_field(settings: dict, message: str) -> None:
    from scigate.bench import BuildConfig

    with pytest.raises(BadValue) as err:
        BuildConfig(**settings)
    assert str(err.value) == message


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("levels", [], "levels must hold at least 1 value(s), got []"),
        ("levels", [2, 5], "levels must be between 1 and 4, got 5"),
        ("batch", 0, "batch must be between 1 and 1024, got 0"),
    ],
)
def test_check_build_refuses_a_field_assigned_out_of_its_declaration(
    field: str, value: object, message: str
) -> None:
    """Pydantic validates at construction only: `check_build` holds a record whose field
    was assigned afterwards to the same declarations (range and least number of values)."""
    from scigate.bench import BuildConfig, check_build

    config = BuildConfig(n=2)
    setattr(config, field, value)
    with pytest.raises(BadValue) as err:
        check_build(config)
    assert str(err.value) == message


def test_bench_build_reports_a_bound_under_the_flag(
    capsys: pytest.CaptureFixture[str], tmp_path
) -> None:
    from scigate.bench import BuildConfig

    base = ["bench", "build", "--generator", "templates", "--db", str(tmp_path / "r.db"),
            "--out", str(tmp_path / "o.jsonl")]  # fmt: skip
    for extra, shown in [
        (["--n", "0"], "'--n': must be between 1 and 1000000, got 0"),
        (["--n", "2", "--batch", "0"], "'--batch': must be between 1 and 1024, got 0"),
        (["--n", "2", "--max-attempts", "0"], "'--max-attempts': must be between 1 and"),
        (["--n", "2", "--levels", "1,7"], "--levels must be between 1 and 4, got 7"),
        (["--n", "2", "--levels", ","], "--levels must hold at least 1 value(s)"),
    ]:
        code, err = _cli(capsys, *base, *extra)
        assert code == 2 and err.count("\n") == 1, (extra, err)
        assert shown in err, (extra, err)
    assert not (tmp_path / "r.db").exists()
    # the CLI used to cap --max-attempts at 100 (its generic "attempts" rule): the record's
    # declaration is the only one now
    assert range_of(BuildConfig, "max_attempts").text() == "between 1 and 25000000"


def test_bench_build_help_shows_the_declared_ranges(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["bench", "build", "--help"])
    words = " ".join(re.sub(r"[│─╭╮╰╯]", " ", capsys.readouterr().out).split())
    assert "(Allowed: between 1 and 1024.)" in words  # --batch
    assert "(Allowed: each between 1 and 4.)" in words  # --levels


# --- library errors name the library's own parameters; the CLI shows the flags


def test_library_errors_name_parameters_not_flags(tmp_path) -> None:
    import asyncio

    from scigate.agents import EvalConfig, accumulation_checkpoints
    from scigate.executor import make_executor
    from scigate.gate import build_report, export_release

    afile = tmp_path / "a.txt"
    afile.write_text("keep\n")
    cases = [
        (lambda: make_executor("local", address="auto"), "address"),
        (lambda: build_report(None, afile), "out_dir"),
        (
            lambda: asyncio.run(
                accumulation_checkpoints(None, [], [], {}, EvalConfig(method="cot"))
            ),
            "method",
        ),
        (
            lambda: asyncio.run(
                accumulation_checkpoints(None, [], [], {}, EvalConfig(method="evo"))
            ),
            "train",
        ),
    ]
    for make, field in cases:
        with pytest.raises(BadValue) as err:
            make()
        assert err.value.field == field and str(err.value).startswith(f"{field} ")
        assert "--" not in str(err.value)
    assert afile.read_text() == "keep\n"
    assert "release_dir" in export_release.__code__.co_varnames


def test_the_cli_shows_those_errors_under_the_flags(
    capsys: pytest.CaptureFixture[str], tmp_path
) -> None:
    from scigate.cli._app import show_error
    from scigate.cli._executor import RayAddressOption  # noqa: F401  (declares --ray-address)

    afile = tmp_path / "a.txt"
    afile.write_text("keep\n")
    db = tmp_path / "r.db"
    code, _ = _cli(capsys, "gate", "run", "--db", str(db), "--generator", "templates",
                   "--rounds", "1")  # fmt: skip
    assert code == 0
    code, err = _cli(capsys, "gate", "report", "--db", str(db), "--out", str(afile))
    assert code == 2 and err.startswith("scigate: error: --out must be a directory, not the file")
    assert show_error(BadValue("address", "needs executor 'ray', not 'local'")) == 2
    assert capsys.readouterr().err == (
        "scigate: error: --ray-address needs executor 'ray', not 'local'\n"
    )
    assert show_error(BadValue("release_dir", "must be a directory")) == 2
    assert capsys.readouterr().err == "scigate: error: --release must be a directory\n"


def test_one_field_is_named_by_one_flag() -> None:
    from scigate.cli._validate import library_option

    library_option(None, "--out", field="out_dir", help="again: the same flag is fine")
    with pytest.raises(RuntimeError, match="set by both --out and --elsewhere"):
        library_option(None, "--elsewhere", field="out_dir", help="a second flag is not")
