"""Nothing a sandboxed party writes is followed on the host (issue 19).

A generator's candidate files, a `--solver-cmd`'s answer.txt, each MPI rank's output
file, and copies of candidate directories: a symlink to a host file (or directory), a
FIFO, a device or an oversized file there is a clear rejection, never a read of the
host file and never a hang. Each test plants the attack and asserts that the host
secret did not come back and that the message names the problem, so it fails when the
defence is removed.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import stat
import sys
from pathlib import Path

import pytest

from _bounded import bounded
from scigate.errors import BadInput
from scigate.gate import copy_without_answer, load_candidate, parse_options, verify
from scigate.gate._candidate import FILE_LIMITS
from scigate.sandbox import UnsafeWorkspaceFile

from .conftest import write_candidate

SECRET = "HOST-SECRET"


@pytest.fixture
def host(tmp_path: Path) -> Path:
    """A host directory holding a secret, and a full candidate made of host files."""
    d = tmp_path / "host"
    write_candidate(d, question=f"{SECRET}: compute 2/7 rounded to six decimals.")
    (d / "secret.txt").write_text(f"{SECRET}\n")
    return d


def _mknod_or_skip(path: Path) -> None:
    try:
        os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 5))  # like /dev/zero
    except PermissionError:
        pytest.skip("cannot make a device node here")


# --- load_candidate: the candidate files


@pytest.mark.parametrize("name", ["question.md", "options.json", "answer.txt", "solution.py"])
def test_candidate_file_symlink_is_refused(candidate_dir: Path, host: Path, name: str) -> None:
    (candidate_dir / name).unlink()
    (candidate_dir / name).symlink_to(host / name)
    with pytest.raises(UnsafeWorkspaceFile, match=re.escape(f"candidate file {name} is a symlink")):
        load_candidate(candidate_dir)


def test_meta_json_symlink_is_refused(candidate_dir: Path, tmp_path: Path) -> None:
    hidden = tmp_path / "host-meta.json"
    hidden.write_text(json.dumps({"family": SECRET}))
    (candidate_dir / "meta.json").symlink_to(hidden)
    with pytest.raises(UnsafeWorkspaceFile, match=re.escape("meta.json is a symlink")) as info:
        load_candidate(candidate_dir)
    assert SECRET not in str(info.value)


def test_candidate_file_fifo_does_not_hang(candidate_dir: Path) -> None:
    (candidate_dir / "question.md").unlink()
    os.mkfifo(candidate_dir / "question.md")
    with pytest.raises(
        UnsafeWorkspaceFile, match=re.escape("question.md is a FIFO, not a regular file")
    ):
        bounded(lambda: load_candidate(candidate_dir), 10)


def test_candidate_file_device_is_refused(candidate_dir: Path) -> None:
    (candidate_dir / "answer.txt").unlink()
    (candidate_dir / "answer.txt").symlink_to("/dev/zero")
    with pytest.raises(UnsafeWorkspaceFile, match=re.escape("answer.txt is a symlink")):
        bounded(lambda: load_candidate(candidate_dir), 10)
    (candidate_dir / "answer.txt").unlink()
    _mknod_or_skip(candidate_dir / "answer.txt")
    with pytest.raises(UnsafeWorkspaceFile, match=re.escape("answer.txt is a character device")):
        bounded(lambda: load_candidate(candidate_dir), 10)


def test_a_50_mib_question_is_refused(candidate_dir: Path) -> None:
    with open(candidate_dir / "question.md", "r+b") as fh:
        fh.truncate(50 << 20)
    with pytest.raises(
        UnsafeWorkspaceFile, match=re.escape("question.md is 52428800 bytes; the limit is 65536")
    ):
        load_candidate(candidate_dir)


@pytest.mark.parametrize(
    ("name", "size"), [(n, limit + 1) for n, limit in FILE_LIMITS.items()], ids=list(FILE_LIMITS)
)
def test_every_candidate_file_has_a_size_cap(candidate_dir: Path, name: str, size: int) -> None:
    (candidate_dir / name).write_bytes(b" " * size)
    with pytest.raises(UnsafeWorkspaceFile, match=re.escape(f"{name} is {size} bytes")):
        load_candidate(candidate_dir)


def test_a_generated_candidate_directory_may_not_be_a_link(tmp_path: Path, host: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "candidate").symlink_to(host)
    with pytest.raises(BadInput, match="candidate is a symlink"):
        load_candidate(ws / "candidate", within=ws)
    (ws / "candidate").unlink()
    (ws / "deep").mkdir()
    (ws / "deep" / "via").symlink_to(host.parent)
    with pytest.raises(BadInput, match=re.escape("deep/via is a symlink")):
        load_candidate(ws / "deep" / "via" / "host", within=ws)


@pytest.mark.parametrize(
    "value", ["nan", "NaN", "inf", "-inf", "+Infinity", "Infinity", "1e999", "\u2212inf"]
)
def test_non_finite_option_strings_are_refused(value: str) -> None:
    text = json.dumps({"A": "1", "B": value, "C": "3", "D": "4"})
    with pytest.raises(BadInput, match=r"option B is .* not a finite value"):
        parse_options(text)


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_non_finite_option_numbers_are_refused(literal: str) -> None:
    text = '{"A": 1, "B": 2, "C": ' + literal + ', "D": 4}'
    with pytest.raises(BadInput, match=r"option C is .* not a finite value"):
        parse_options(text)


def test_finite_options_still_load() -> None:
    opts = parse_options('{"A": 1e300, "B": "-2.5", "C": "P2", "D": "information"}')
    assert opts["C"] == "P2" and opts["D"] == "information"


# --- copies of a candidate directory


def test_copy_without_answer_follows_no_link(candidate_dir: Path, tmp_path: Path, host: Path):
    (candidate_dir / "mesh.txt").symlink_to(host / "secret.txt")
    with pytest.raises(
        UnsafeWorkspaceFile, match=re.escape("candidate file mesh.txt is a symlink")
    ):
        copy_without_answer(candidate_dir, tmp_path / "copy1")
    (candidate_dir / "mesh.txt").unlink()
    (candidate_dir / "data").mkdir()
    (candidate_dir / "data" / "hostdir").symlink_to(host)
    with pytest.raises(UnsafeWorkspaceFile, match=re.escape("data/hostdir is a symlink")):
        copy_without_answer(candidate_dir, tmp_path / "copy2")
    (candidate_dir / "data" / "hostdir").unlink()
    os.mkfifo(candidate_dir / "data" / "pipe")
    with pytest.raises(UnsafeWorkspaceFile, match="pipe is a FIFO"):
        bounded(lambda: copy_without_answer(candidate_dir, tmp_path / "copy3"), 10)
    for copy in tmp_path.glob("copy*"):
        for p in copy.rglob("*"):
            assert p.is_dir() or SECRET not in p.read_text()


def test_copy_without_answer_still_copies_data_and_drops_the_answer(
    candidate_dir: Path, tmp_path: Path
) -> None:
    (candidate_dir / "data").mkdir()
    (candidate_dir / "data" / "mesh.txt").write_text("1 2 3\n")
    (candidate_dir / "notes.md").write_text("private\n")
    out = copy_without_answer(candidate_dir, tmp_path / "copy")
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*")) == [
        "data",
        "data/mesh.txt",
        "options.json",
        "question.md",
        "solution.py",
    ]


def test_verify_refuses_a_candidate_with_a_symlinked_data_file(
    candidate_dir: Path, host: Path
) -> None:
    """The solution would read `data.txt` inside the sandbox: the host copy must not
    fetch the host file behind the link into the workspace."""
    (candidate_dir / "solution.py").write_text("print(open('data.txt').read().strip())\n")
    (candidate_dir / "data.txt").symlink_to(host / "secret.txt")
    cand = load_candidate(candidate_dir)
    with pytest.raises(BadInput, match=re.escape("candidate file data.txt is a symlink")):
        verify(cand, timeout=60)


def test_template_run_solution_copies_no_link(candidate_dir: Path, host: Path) -> None:
    from scigate.domains.fenicsx.templates import run_solution

    (candidate_dir / "solution.py").write_text("print(open('data.txt').read().strip())\n")
    (candidate_dir / "data.txt").symlink_to(host / "secret.txt")
    with pytest.raises(UnsafeWorkspaceFile, match=re.escape("data.txt is a symlink")):
        run_solution(candidate_dir, timeout=60)


# --- the LLM generator's workspace

_GENERATOR_MODEL = """
def writes(messages, tools=None, **settings):
    if len(messages) == 2:
        return {{"content": None, "tool_calls": [
            {{"name": "run_bash", "arguments": {{"command": {command!r}}}}}]}}
    return {{"content": None, "tool_calls": [{{"name": "submit", "arguments": {{"answer": "done"}}}}]}}
"""

_GOOD_FILES = (
    "mkdir -p candidate && cd candidate && "
    "echo 'Compute 2/7 rounded to six decimals.' > question.md && "
    """echo '{"A": "0.142857", "B": "0.285714", "C": "0.428571", "D": "0.571429"}' """
    "> options.json && echo B > answer.txt && echo \"print('0.285714')\" > solution.py"
)


def _generate(tmp_path: Path, command: str):
    from scigate.domains import get_domain
    from scigate.gate._coding_agent import AgentLimits
    from scigate.gate._generator import Feedback, LLMGenerator

    model = tmp_path / "generator_model.py"
    model.write_text(_GENERATOR_MODEL.format(command=command))
    gen = LLMGenerator(
        f"python/{model}:writes",
        domain=get_domain("fenicsx"),
        limits=AgentLimits(wall_seconds=60),
        seeds_in_prompt=0,
    )
    return bounded(lambda: asyncio.run(gen.generate(0, Feedback())), 120)


def test_generator_writing_a_good_candidate_still_works(tmp_path: Path) -> None:
    generated = _generate(tmp_path, _GOOD_FILES)
    assert generated.candidate is not None, generated.reason
    assert generated.candidate.answer == "B"


@pytest.mark.parametrize(
    ("attack", "message"),
    [
        ("rm question.md && ln -s {host}/question.md question.md", "question.md is a symlink"),
        ("rm meta.json 2>/dev/null; ln -s {host}/secret.txt meta.json", "meta.json is a symlink"),
        ("rm question.md && mkfifo question.md", "question.md is a FIFO, not a regular file"),
        (
            "python3 -c \"open('question.md', 'r+b').truncate(50 << 20)\"",
            "question.md is 52428800 bytes; the limit is 65536",
        ),
        ("cd .. && mv candidate real && ln -s {host} candidate", "candidate is a symlink"),
    ],
    ids=["question-symlink", "meta-symlink", "question-fifo", "50-mib-question", "dir-symlink"],
)
def test_generator_candidate_files_are_not_followed(
    tmp_path: Path, host: Path, attack: str, message: str
) -> None:
    generated = _generate(tmp_path, f"{_GOOD_FILES} && {attack.format(host=host)}")
    assert generated.candidate is None
    assert generated.reason.startswith("malformed candidate"), generated.reason
    assert message in generated.reason, generated.reason
    assert SECRET not in generated.reason


# --- gate 3: a solver command's answer.txt


def _solve(candidate_dir: Path, command: str):
    from scigate.gate import solve_with_command

    cand = load_candidate(candidate_dir)
    return bounded(lambda: asyncio.run(solve_with_command(cand, command, time_limit=60)), 120)


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("ln -s {secret} answer.txt", "answer.txt is a symlink"),
        ("ln -s /dev/zero answer.txt", "answer.txt is a symlink"),
        ("mkfifo answer.txt", "answer.txt is a FIFO, not a regular file"),
        ("head -c 100000 /dev/zero > answer.txt", "answer.txt is 100000 bytes; the limit is"),
    ],
    ids=["symlink-to-host", "symlink-to-device", "fifo", "oversized"],
)
def test_solver_command_answer_file_is_not_followed(
    candidate_dir: Path, tmp_path: Path, command: str, message: str
) -> None:
    secret = tmp_path / "answer-on-the-host.txt"
    secret.write_text("B\n")  # the right letter: following the link would "solve" it
    r = _solve(candidate_dir, command.format(secret=secret))
    assert not r.solved and r.answer_raw is None and r.answer_option is None
    assert r.error and message in r.reason, r.reason


def test_solver_command_plain_answer_still_solves(candidate_dir: Path) -> None:
    r = _solve(candidate_dir, "echo B > answer.txt")
    assert r.solved and r.answer_option == "B", r.reason


# --- gate 1b: the output file of each MPI rank


_REPLACES_RANK_FILE = """
import os
rank = os.environ.get("PMI_RANK") or os.environ.get("OMPI_COMM_WORLD_RANK", "0")
name = ".scigate_rank_%s.out" % rank
os.unlink(name)
{plant}
print("0.285714")
"""


@pytest.mark.parametrize(
    ("plant", "message"),
    [
        ("os.symlink({secret!r}, name)", "rank 0's output .scigate_rank_0.out is a symlink"),
        ("os.symlink('/dev/zero', name)", "rank 0's output .scigate_rank_0.out is a symlink"),
        ("os.mkfifo(name)", ".scigate_rank_0.out is a FIFO, not a regular file"),
        (
            "open(name, 'w').write('0.285714\\n' * 200000)",
            ".scigate_rank_0.out is 1800000 bytes; the limit is 1048576",
        ),
    ],
    ids=["symlink-to-host", "symlink-to-device", "fifo", "oversized"],
)
def test_mpi_rank_outputs_are_not_followed(tmp_path: Path, plant: str, message: str) -> None:
    from scigate.domains import SemanticCheck, get_domain
    from scigate.gate._invariance import run_check

    mpiexec = get_domain("fenicsx").mpiexec
    if mpiexec is None:
        pytest.skip("no mpiexec")
    secret = tmp_path / "rank-output-on-the-host.txt"
    secret.write_text("0.285714\n")  # what every rank should print: following it would pass
    solution = _REPLACES_RANK_FILE.format(plant=plant.format(secret=str(secret)))
    cand = load_candidate(write_candidate(tmp_path / "c", solution=solution))
    check = SemanticCheck(name="mpi-2-ranks", description="d", mpi_ranks=2)
    res = bounded(
        lambda: run_check(
            cand, check, reference="0.285714", timeout=60, python=sys.executable, mpiexec=mpiexec
        ),
        120,
    )
    assert res.outcome == "error" and not res.passed, res.reason
    assert res.reason.startswith("cannot decide") and message in res.reason, res.reason
    assert SECRET not in res.reason and res.ranks is None


def test_mpi_rank_outputs_still_read(tmp_path: Path) -> None:
    from scigate.domains import SemanticCheck, get_domain
    from scigate.gate._invariance import run_check

    mpiexec = get_domain("fenicsx").mpiexec
    if mpiexec is None:
        pytest.skip("no mpiexec")
    cand = load_candidate(write_candidate(tmp_path / "c"))
    check = SemanticCheck(name="mpi-2-ranks", description="d", mpi_ranks=2)
    res = run_check(
        cand, check, reference="0.285714", timeout=60, python=sys.executable, mpiexec=mpiexec
    )
    assert res.passed and res.ranks == ["0.285714", "0.285714"], res.reason
