"""The top-level command line: version, doctor, bad usage."""

import json
import os
import subprocess
import sys

import pytest

from _cli import run_main as _main


def _scigate(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scigate", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


def test_version() -> None:
    p = _scigate("--version")
    assert p.returncode == 0 and p.stdout.startswith("scigate ")


def test_doctor_reports_stacks_providers_and_protections_without_secrets(monkeypatch) -> None:
    """In-process: the stacks' imports are this worker's (a new interpreter paid 8 s of
    imports for each of the two reports)."""
    secret = "sk-test-do-not-print-0123456789"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "")
    code, out, err = _main("doctor", "--json")
    assert code == 0, err
    assert secret not in out and secret not in err
    report = json.loads(out)
    stacks = {row["stack"]: row for row in report["stacks"]}
    for name in ("DOLFINx (FEniCSx)", "RDKit", "Biopython", "pymatgen"):
        assert stacks[name]["ok"], stacks[name]
        assert stacks[name]["version"]
    providers = {row["provider"]: row for row in report["providers"]}
    assert providers["openai"]["configured"] is True
    assert providers["anthropic"]["configured"] is False
    assert all(str(v).startswith(("active", "unavailable")) for v in report["sandbox"].values())
    assert report["performance"]["cgroup join"].startswith(("fast", "slow", "n/a"))
    code, out, _ = _main("doctor")
    assert code == 0 and "Sandbox protections" in out and secret not in out


def test_unknown_command_and_bad_spec_exit_2() -> None:
    p = _scigate("frobnicate")
    assert p.returncode == 2
    p = _scigate("agent", "run", "--model", "nosuchprovider/x", "What is 1+1?")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


def test_output_paths_that_cannot_be_directories_exit_2(tmp_path) -> None:
    """--out naming a file, or a directory that cannot be created, is one line and exit 2."""
    afile = tmp_path / "a.txt"
    afile.write_text("keep\n")
    blocked = afile / "sub"  # its parent is a file: mkdir fails
    for args in (
        ("demo", "--rounds", "1", "--out", str(afile)),
        ("demo", "--rounds", "1", "--out", str(blocked)),
        ("gate", "seeds", "--out", str(blocked)),
    ):
        p = _scigate(*args)
        assert p.returncode == 2, (args, p.stderr)
        assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert afile.read_text() == "keep\n"


def test_an_unreachable_model_is_one_line_not_a_traceback(tmp_path) -> None:
    """A model that keeps failing ends the command with one line and exit 1."""
    model = tmp_path / "down.py"
    model.write_text(
        "def down(messages, tools=None, **settings):\n    raise ConnectionError('refused')\n"
    )
    p = _scigate(
        "agent",
        "run",
        "--model",
        f"python/{model}:down?max_retries=0",
        "--method",
        "direct",
        "What is the molecular weight of CCO?",
    )
    assert p.returncode == 1 and "Traceback" not in p.stderr
    (line,) = p.stderr.strip().splitlines()
    assert line.startswith("scigate: failed:") and "ConnectionError: refused" in line


# -- the bad-input contract at the CLI boundary (scigate.cli._validate) -------------------


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (("gate", "verify", "--timeout", "nan", "cand"), "--timeout"),
        (("gate", "verify", "--timeout", "inf", "cand"), "--timeout"),
        (("gate", "verify", "--timeout", "0", "cand"), "--timeout"),
        (("gate", "run", "--db", "/proc/nope/x.db", "--generator", "templates"), "--db"),
        (("gate", "run", "--db", "{tmp}/r.db", "--verify-timeout", "nan"), "--verify-timeout"),
        (("gate", "run", "--db", "{tmp}/r.db", "--calls", "100000000"), "--calls"),
        (("gate", "run", "--db", "{tmp}/r.db", "--fem-workers", "-1"), "--fem-workers"),
        (("gate", "run", "--db", "{tmp}/r.db", "--rounds", "0"), "--rounds"),
        (("gate", "run", "--db", "{tmp}/r.db", "--seed", "-1"), "--seed"),
        (("gate", "screen", "cand", "--model", "cue/x", "--calls", "100000000"), "--calls"),
        (("gate", "solve", "cand", "--model", "cue/x", "--max-tokens", str(2**70)), "--max-tokens"),
        (("tools", "serve-mcp", "--port", "99999"), "--port"),
        (("tools", "serve-mcp", "--port", "0"), "--port"),
        (("tools", "search", "q", "--top", "-3"), "--top"),
        (("agent", "run", "--model", "cue/x", "--temperature", "nan", "q"), "--temperature"),
        (("agent", "eval", "--known-ratio", "1.5"), "--known-ratio"),
        (("gate", "report", "--db", "{tmp}/r.db", "--out", "{tmp}/f.txt/sub"), "--out"),
    ],
)
def test_malformed_options_are_one_line_exit_2_and_write_nothing(tmp_path, argv, option) -> None:
    """The issue's cases (nan timeouts, uncreatable --db, huge --calls, bad ports) and
    their kin: one line naming the option, exit 2, no file or directory created."""
    (tmp_path / "f.txt").write_text("x")
    before = sorted(tmp_path.rglob("*"))
    code, _, err = _main(*(a.replace("{tmp}", str(tmp_path)) for a in argv))
    assert code == 2, err
    (line,) = err.strip().splitlines()
    assert line.startswith("scigate: error: ") and option in line, line
    assert sorted(tmp_path.rglob("*")) == before


def test_usage_errors_are_one_line() -> None:
    for argv in (
        ("frobnicate",),
        ("--bogus",),
        ("gate", "verify"),
        ("gate", "verify", "--timeout", "x", "d"),
    ):
        code, _, err = _main(*argv)
        assert code == 2
        (line,) = err.strip().splitlines()
        assert line.startswith("scigate: error: "), line


def test_options_added_later_are_validated_without_their_own_code(tmp_path) -> None:
    """The checks come from the command tree, by type and name: a new verb gets them."""
    import typer
    from typer.testing import CliRunner

    from scigate.cli._app import ScigateGroup

    new = typer.Typer(cls=ScigateGroup)
    seen: list = []

    @new.command("wait")
    def wait(
        wait_seconds: float = typer.Option(1.0, "--wait-seconds"),
        workers: int = typer.Option(2, "--workers"),
        out: str = typer.Option("x", "--label"),
        db: __import__("pathlib").Path = typer.Option(None, "--db"),
    ) -> None:
        seen.append((wait_seconds, workers, db))

    @new.command("other")
    def other() -> None:
        pass

    runner = CliRunner()
    for args in (
        ["wait", "--wait-seconds", "nan"],
        ["wait", "--wait-seconds", "1e9"],
        ["wait", "--workers", "0"],
        ["wait", "--workers", "100000"],
        ["wait", "--db", str(tmp_path)],  # a directory is not a database file
    ):
        r = runner.invoke(new, args)
        assert r.exit_code == 2, (args, r.output)
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    r = runner.invoke(new, ["wait", "--wait-seconds", "2.5", "--workers", "8"])
    assert r.exit_code == 0, r.output
    assert seen == [(2.5, 8, None)]


def test_bounds_by_name() -> None:
    from scigate.cli._validate import bound_for, check_value

    assert bound_for("port", int, 8765).check(65535) is None
    assert bound_for("fem_workers", int, 0).check(0) is None  # zero has a meaning here
    assert bound_for("concurrency", int, 4).check(0) is not None
    assert bound_for("verify_timeout", float, 300.0).check(0.5) is None
    assert bound_for("domain", str, "fenicsx") is None
    assert check_value("domain", "fen\x00icsx") is not None
    assert check_value("calls", [1, 2, 3]) is None and check_value("calls", [1, 0]) is not None
    assert check_value("anything", float("-inf")) is not None


@pytest.mark.parametrize("damage", ["empty", "broken-json", "not-sqlite", "foreign", "newer"])
@pytest.mark.parametrize("verb", ["audit", "report", "export"])
def test_readers_refuse_bad_databases_and_write_nothing(tmp_path, verb, damage) -> None:
    """audit/report/export on an empty file, damaged JSON rows or a non-database: one line,
    exit 2, the file unchanged and no output created."""
    import hashlib
    import sqlite3

    from scigate.store import Store

    db = tmp_path / "run.db"
    if damage == "empty":
        db.touch()
    elif damage == "not-sqlite":
        db.write_text("hello, not a database\n" * 50)
    elif damage == "foreign":
        conn = sqlite3.connect(db)
        conn.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY)")
        conn.commit()
        conn.close()
    elif damage == "newer":
        Store(db).close()
        conn = sqlite3.connect(db)
        conn.execute("PRAGMA user_version = 999")
        conn.close()
    else:
        with Store(db) as store:
            store.create_run("gate", config={"seed": 1})
        conn = sqlite3.connect(db)
        conn.execute("UPDATE runs SET config = '{broken'")
        conn.commit()
        conn.close()
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    out = tmp_path / "out"
    argv = ["gate", verb, "--db", str(db)] + ([] if verb == "audit" else ["--out", str(out)])
    code, stdout, err = _main(*argv)
    assert code == 2, (stdout, err)
    (line,) = err.strip().splitlines()
    assert line.startswith("scigate: error: ") and "run database" in line, line
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert not out.exists()


@pytest.mark.slow
def test_demo_writes_a_benchmark_that_bench_verify_accepts(tmp_path) -> None:
    """The demo also builds a small benchmark with its release folder; every stored
    answer re-derives."""
    out = tmp_path / "demo"
    code, stdout, err = _main("demo", "--rounds", "2", "--out", str(out))
    assert code == 0, err
    bench = out / "bench" / "bench.jsonl"
    release = out / "bench" / "release"
    for f in (
        bench,
        release / "bench.jsonl",
        release / "datasheet.md",
        release / "conditions.json",
    ):
        assert f.is_file(), f
    assert "bench.jsonl" in stdout and "release" in stdout
    conditions = json.loads((release / "conditions.json").read_text())
    assert conditions["tasks"] == 8 and set(conditions["by_level_format"]) <= {
        f"L{lv}/{f}"
        for lv in (1, 2)
        for f in ("question & answer", "multiple choice", "content completion", "true/false")
    }
    code, stdout, err = _main("bench", "verify", str(release / "bench.jsonl"), "--json")
    assert code == 0, stdout + err
    verdict = json.loads(stdout)
    assert verdict["agrees"] == 8 and verdict["passed"] is True


def test_gate_durations_under_a_tenth_of_a_second_are_shown_in_ms() -> None:
    """A warm gate-1b run takes about 40 ms: `0.0 s` read as if the check never ran."""
    from scigate.cli._gate import _duration

    assert (_duration(0.039), _duration(0.1), _duration(12.34)) == ("39 ms", "0.1 s", "12.3 s")
