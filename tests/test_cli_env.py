"""A missing extra or domain stack is an environment error: exit status 2 with one line
naming the install command for how scigate was installed; never a rejected candidate,
never a traceback. Missing modules are simulated with ``sys.modules[name] = None``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scigate.errors import MissingExtra, install_command, require_module

ROOT = Path(__file__).resolve().parents[1]

RUN = """
import json, sys
for name in json.loads(sys.argv[1]):
    sys.modules[name] = None
from scigate.cli import main
main(sys.argv[2:])
"""


def _cli(hidden: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "250"}
    return subprocess.run(
        [sys.executable, "-c", RUN, json.dumps(hidden), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=env,
    )


def _one_line(p: subprocess.CompletedProcess[str]) -> str:
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    (line,) = p.stderr.strip().splitlines()
    assert line.startswith("scigate: error: ")
    return line


def _seed() -> str:
    from scigate.domains import get_domain

    return str(get_domain("fenicsx").seed_dirs()[0])


def test_gate_verify_without_the_domain_stack_is_not_a_rejection() -> None:
    line = _one_line(_cli(["dolfinx_solver", "dolfinx"], "gate", "verify", _seed()))
    assert "'fenicsx' extra" in line and "pip install -e '.[fenicsx]'" in line
    assert "FAIL" not in line


@pytest.mark.parametrize(
    ("hidden", "args", "extra"),
    [
        (["dolfinx_solver"], ["demo", "--out", "{tmp}/demo"], "fenicsx"),
        (["dolfinx_solver"], ["gate", "invariance", "{seed}"], "fenicsx"),
        (["fastmcp"], ["tools", "serve-mcp"], "mcp"),
        (["rdkit"], ["tools", "run", "SMILESToWeight", "--input", "CCO"], "chem"),
        (
            ["rdkit"],
            ["tools", "chain", "NameToSMILES,SMILESToWeight", "--input", "ethanol"],
            "chem",
        ),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else v,
)
def test_missing_extras_name_their_install_command(
    hidden: list[str], args: list[str], extra: str, tmp_path: Path
) -> None:
    args = [a.format(tmp=tmp_path, seed=_seed()) for a in args]
    line = _one_line(_cli(hidden, *args))
    assert f"pip install -e '.[{extra}]'" in line, line
    if args[0] == "demo":
        assert not (tmp_path / "demo").exists()  # nothing started


def test_doctor_prints_install_hints_with_their_brackets() -> None:
    p = _cli(["rdkit"], "doctor")
    assert p.returncode == 0, p.stderr
    rdkit = next(line for line in p.stdout.splitlines() if "RDKit" in line)
    assert "pip install -e '.[chem]'" in rdkit, rdkit


class _Dist:
    def __init__(self, direct_url: dict[str, Any] | None) -> None:
        self.direct_url = direct_url

    def read_text(self, name: str) -> str | None:
        return json.dumps(self.direct_url) if self.direct_url is not None else None


def test_install_command_follows_how_scigate_was_installed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from importlib import metadata

    monkeypatch.setattr(metadata, "distribution", lambda name: _Dist(None))  # a wheel
    assert install_command("chem") == "pip install 'scigate[chem]'"
    editable = {"url": f"file://{tmp_path}", "dir_info": {"editable": True}}
    monkeypatch.setattr(metadata, "distribution", lambda name: _Dist(editable))
    monkeypatch.chdir(tmp_path)
    assert install_command("chem") == "pip install -e '.[chem]'"
    monkeypatch.chdir("/")
    assert install_command("bio") == f"pip install -e '{tmp_path}[bio]'"


def test_require_module_sees_a_hidden_module(monkeypatch: pytest.MonkeyPatch) -> None:
    require_module("json", "x", "this test")  # present: no error
    monkeypatch.setitem(sys.modules, "fastmcp", None)
    with pytest.raises(MissingExtra) as info:
        require_module("fastmcp", "mcp", "scigate tools serve-mcp")
    assert info.value.extra == "mcp" and "\n" not in str(info.value)
    assert str(info.value).startswith("scigate tools serve-mcp needs the 'mcp' extra")
