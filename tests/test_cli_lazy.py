"""The CLI starts light and reports bad input one way.

- `scigate --help`, `--version` and the verbs that need no tool library import none of
  the heavy modules (the tool library, RDKit, pymatgen, DOLFINx, the model SDKs, the
  retrieval stack): verbs are registered lazily (`scigate.cli._app.VERBS`).
- Every verb prints bad input as one escaped `scigate: error:` line, exit status 2,
  through one handler (`scigate.cli._app.show_error`).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = [
    "scigate.tools.library",
    "rdkit",
    "pymatgen",
    "dolfinx",
    "openai",
    "anthropic",
    "networkx",
    "bm25s",
    "scipy",
]

PROBE = """
import json, sys
from scigate.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
heavy = {heavy}
print(json.dumps(sorted(h for h in heavy if any(m == h or m.startswith(h + ".") for m in sys.modules))), file=sys.stderr)
"""


def _loaded(*args: str) -> list[str]:
    code = PROBE.format(heavy=json.dumps(HEAVY))
    p = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120
    )
    return json.loads(p.stderr.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "args",
    [
        ["--version"],
        ["--help"],
        ["tools", "--help"],
        ["gate", "--help"],
        ["gate", "audit", "--help"],
        ["bench", "--help"],
        ["doctor", "--help"],
        ["demo", "--help"],
    ],
    ids=" ".join,
)
def test_light_invocations_load_no_heavy_module(args: list[str]) -> None:
    assert _loaded(*args) == []


def test_the_probe_sees_heavy_modules_when_a_verb_needs_them() -> None:
    assert "scigate.tools.library" in _loaded("tools", "show", "SMILESToWeight", "--json")


def test_root_help_lists_every_verb_from_the_table() -> None:
    from scigate.cli._app import VERBS

    p = subprocess.run(
        [sys.executable, "-m", "scigate", "--help"], capture_output=True, text=True, timeout=120
    )
    assert p.returncode == 0
    for verb, (_, _, help_text) in VERBS.items():
        assert verb in p.stdout and help_text.split()[0] in p.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["tools", "show", "No\x1bSuchTool"],
        ["tools", "run", "EvaluateExpression", "--args", "[1]"],
        ["tools", "serve-mcp", "--mode", "tiny"],
        ["bench", "verify", "/nonexistent/x.jsonl"],
        ["bench", "report", "--db", "/nonexistent/x.db"],
        ["gate", "audit", "--db", "/nonexistent/x.db"],
        ["agent", "run", "--model", "nope/x", "question"],
        ["demo", "--rounds", "0"],
        ["toolz"],
    ],
    ids=lambda a: " ".join(a).encode("unicode_escape").decode(),
)
def test_every_verb_prints_bad_input_as_one_escaped_line(args: list[str]) -> None:
    p = subprocess.run(
        [sys.executable, "-m", "scigate", *args], capture_output=True, text=True, timeout=300
    )
    assert p.returncode == 2, p.stderr
    (line,) = p.stderr.strip().splitlines()
    assert line.startswith("scigate: error: ") and "\x1b" not in line, line


def test_verb_groups_run_alone_share_the_one_handler() -> None:
    """typer's CliRunner on a verb group (as the tests of each group use it) gets the same
    one line and exit status as the entry point."""
    from typer.testing import CliRunner

    from scigate.cli._bench import app as bench_app
    from scigate.cli._tools import app as tools_app

    for app, args in (
        (tools_app, ["show", "NoSuchTool"]),
        (bench_app, ["report", "--db", "/nonexistent/x.db"]),
    ):
        r = CliRunner().invoke(app, args)
        assert r.exit_code == 2, r.output
        (line,) = r.stderr.strip().splitlines()
        assert line.startswith("scigate: error: ")


def test_a_mistyped_verb_gets_a_suggestion_among_the_lazy_verbs() -> None:
    p = subprocess.run(
        [sys.executable, "-m", "scigate", "toolz"], capture_output=True, text=True, timeout=120
    )
    assert p.returncode == 2
    assert p.stderr.strip() == "scigate: error: No such command 'toolz'. Did you mean 'tools'?"
