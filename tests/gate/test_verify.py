"""Gate 1: run the solution on a copy without answer.txt and match by value."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scigate.gate import load_candidate, verify

from .conftest import write_candidate


def test_good_candidate_passes(candidate_dir: Path) -> None:
    r = verify(candidate_dir, timeout=60)
    assert r.passed, r.reason
    assert r.printed == "0.285714" and r.matched_option == "B" and r.proposed == "B"


def test_solution_runs_without_answer_file(tmp_path: Path) -> None:
    d = write_candidate(
        tmp_path / "c",
        solution="import os\nprint(f'{2/7:.6f}' if not os.path.exists('answer.txt') else 'cheat')\n",
    )
    assert verify(d, timeout=60).passed


@pytest.mark.parametrize(
    ("solution", "reason"),
    [
        ("print('zero point three')\n", "value matches no option"),
        ("print('0.285714')\nprint('done')\n", "several output lines"),
        ("import sys\nprint('nothing', file=sys.stderr)\n", "no output"),
        ("print('0.142857')\n", "value matches another option"),
        ("import dolfinx_does_not_exist\n", "crash"),
    ],
)
def test_failures_have_plain_reasons(tmp_path: Path, solution: str, reason: str) -> None:
    r = verify(write_candidate(tmp_path / "c", solution=solution), timeout=60)
    assert not r.passed
    assert r.reason.startswith(reason), r.reason


def test_crash_reports_last_stderr_lines(tmp_path: Path) -> None:
    r = verify(
        write_candidate(tmp_path / "c", solution="import dolfinx_does_not_exist\n"), timeout=60
    )
    assert "ModuleNotFoundError" in r.reason and "dolfinx_does_not_exist" in r.reason


def test_hanging_script_times_out(tmp_path: Path) -> None:
    r = verify(
        write_candidate(tmp_path / "c", solution="import time\ntime.sleep(600)\n"), timeout=2
    )
    assert not r.passed and r.timed_out and r.reason.startswith("timeout")
    # killed at its 2 s limit, not when the script's 600 s ended (a bound 30x the limit)
    assert r.seconds < 60


def test_other_option_is_named(tmp_path: Path) -> None:
    r = verify(write_candidate(tmp_path / "c", solution="print('0.1428570')\n"), timeout=60)
    assert r.matched_option == "A" and "not the proposed B" in r.reason


def test_cli_json_and_exit_codes(tmp_path: Path) -> None:
    good = write_candidate(tmp_path / "good")
    bad = write_candidate(tmp_path / "bad", solution="print(1)\nprint(2)\n")
    p = subprocess.run(
        [sys.executable, "-m", "scigate", "gate", "verify", str(good), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)
    assert {"passed", "printed", "matched_option", "proposed", "reason", "seconds"} <= data.keys()
    assert data["passed"] is True and data["printed"] == "0.285714"
    p = subprocess.run(
        [sys.executable, "-m", "scigate", "gate", "verify", str(bad), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 1 and json.loads(p.stdout)["passed"] is False


@pytest.mark.slow
def test_cli_seeds_and_the_papers_item_0023(tmp_path: Path) -> None:
    """`gate seeds` copies the expert items; the paper's worked example verifies to B."""
    p = subprocess.run(
        [sys.executable, "-m", "scigate", "gate", "seeds", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    assert sorted(d.name for d in tmp_path.iterdir()) == [
        "item_0023",
        "seed_01",
        "seed_02",
        "seed_03",
        "seed_04",
        "seed_05",
    ]
    p = subprocess.run(
        [sys.executable, "-m", "scigate", "gate", "verify", str(tmp_path / "item_0023"), "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    data = json.loads(p.stdout)
    assert (
        p.returncode == 0
        and data["passed"]
        and data["printed"] == "0.060723"
        and data["matched_option"] == "B"
    )


def test_verification_copies_the_candidates_data_files(tmp_path: Path) -> None:
    """The solution runs on a copy of the whole directory (without answer.txt)."""
    d = write_candidate(tmp_path / "c", solution="print(open('data/value.txt').read().strip())\n")
    (d / "data").mkdir()
    (d / "data" / "value.txt").write_text("0.285714\n")
    r = verify(d, timeout=60)
    assert r.passed, r.reason


# The sandbox may add its own dot-directories (a private home); list the rest.
_LISTS = "import os\nprint(sorted(n for n in os.listdir('.') if not n.startswith('.')))\n"
_READS_NOTES = "import json\nm = json.load(open('meta.json'))\nprint(m['answer_value'])\n"


def test_solution_that_reads_the_generator_notes_fails(tmp_path: Path) -> None:
    """meta.json records the proposal; a solution reading it would pass without computing."""
    meta = {"answer_value": "0.285714", "distractors": "B is the right one"}
    d = write_candidate(tmp_path / "c", solution=_READS_NOTES, meta=meta)
    (d / "notes.md").write_text("the answer is B\n")
    r = verify(d, timeout=60)
    assert not r.passed and r.reason.startswith("crash"), r.reason
    assert "meta.json" in r.stderr_tail
    # The in-memory form (no directory) leaves the notes out as well.
    cand = load_candidate(d)
    cand.path = None
    assert cand.meta == meta
    r = verify(cand, timeout=60)
    assert not r.passed and "meta.json" in r.stderr_tail
    # Data files still arrive.
    d2 = write_candidate(tmp_path / "c2", solution=_LISTS, meta=meta)
    (d2 / "table.csv").write_text("x\n")
    r = verify(d2, timeout=60)
    assert r.printed == "['options.json', 'question.md', 'solution.py', 'table.csv']", r.reason


@pytest.mark.parametrize(
    ("printed", "options", "proposed"),
    [
        # 0.149 rounds to option A (0.1) and to option B (0.15)
        ("0.149", {"A": "0.1", "B": "0.15", "C": "0.3", "D": "0.4"}, "A"),
        ("0.149", {"A": "0.1", "B": "0.15", "C": "0.3", "D": "0.4"}, "B"),
        # a print coarser than the options: 17 may be 17.4 rounded
        ("17", {"A": "17.0", "B": "17.4", "C": "19.0", "D": "21.0"}, "A"),
    ],
)
def test_a_value_matching_options_of_two_precisions_is_ambiguous(
    tmp_path: Path, printed: str, options: dict[str, str], proposed: str
) -> None:
    """Whichever was proposed, the run did not single it out (the options themselves are
    pairwise distinct)."""
    d = write_candidate(
        tmp_path / "c",
        options=options,
        answer=proposed,
        solution=f"import sys\nsys.stdout.write({printed!r} + chr(10))\n",
    )
    r = verify(d, timeout=60)
    assert not r.passed and r.reason.startswith("ambiguous value"), r.reason
    assert "A, B" in r.reason


@pytest.mark.parametrize(
    "solution",
    [
        "print('0.285714')\n",
        "print(0.285714)\n",
        "x = 2 / 7  # computed, then ignored\nprint(f'{0.2857140:.6f}')\n",
        "ANSWERS = {'A': '0.142857', 'B': '0.285714'}\nprint(ANSWERS['B'])\n",
    ],
)
def test_a_solution_printing_the_answer_as_a_literal_fails(tmp_path: Path, solution: str) -> None:
    """A script that prints the proposed value from a literal reproduces nothing."""
    r = verify(write_candidate(tmp_path / "c", solution=solution), timeout=60)
    assert not r.passed and r.reason.startswith("hard-coded"), r.reason


def test_literal_counts_and_mesh_sizes_are_not_hard_coding(tmp_path: Path) -> None:
    """A whole number below 1000 may be written in the script and be the answer."""
    options = {"A": "256", "B": "512", "C": "128", "D": "1024"}
    solution = "n = 16\nprint(2 * n * n)  # cells of a 16x16 triangle mesh; 512 expected\n"
    d = write_candidate(tmp_path / "c", options=options, solution=solution)
    assert verify(d, timeout=60).passed
    d = write_candidate(tmp_path / "d", options=options, solution="print(512)\n")
    assert verify(d, timeout=60).passed
