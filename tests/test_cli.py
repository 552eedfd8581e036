"""The top-level command line: version, doctor, bad usage."""

import json
import os
import subprocess
import sys


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


def test_doctor_reports_stacks_providers_and_protections_without_secrets() -> None:
    secret = "sk-test-do-not-print-0123456789"
    p = _scigate("doctor", "--json", env={"OPENAI_API_KEY": secret, "ANTHROPIC_API_KEY": ""})
    assert p.returncode == 0, p.stderr
    assert secret not in p.stdout and secret not in p.stderr
    report = json.loads(p.stdout)
    stacks = {row["stack"]: row for row in report["stacks"]}
    for name in ("DOLFINx (FEniCSx)", "RDKit", "Biopython", "pymatgen"):
        assert stacks[name]["ok"], stacks[name]
        assert stacks[name]["version"]
    providers = {row["provider"]: row for row in report["providers"]}
    assert providers["openai"]["configured"] is True
    assert providers["anthropic"]["configured"] is False
    assert all(str(v).startswith(("active", "unavailable")) for v in report["sandbox"].values())
    p = _scigate("doctor")
    assert p.returncode == 0 and "Sandbox protections" in p.stdout and secret not in p.stdout


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
