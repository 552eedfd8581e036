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
