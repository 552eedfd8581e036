"""scigate's own temporary directories: removed on every exit path, swept after a SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from _cli import interruptible
from scigate._tmp import scigate_mkdtemp, scigate_tempdir, sweep_stale_tempdirs

CHILD = textwrap.dedent(
    """
    import signal, sys, time
    from scigate._tmp import scigate_mkdtemp, scigate_tempdir
    from scigate.cli import _terminate_as_interrupt

    signal.signal(signal.SIGTERM, _terminate_as_interrupt)  # as the CLI's entry point does
    late = scigate_mkdtemp("tpl")
    (late / "answer.txt").write_text("B")
    with scigate_tempdir("check") as tmp:
        print(tmp, late, flush=True)
        if sys.argv[1] == "raise":
            raise RuntimeError("boom")
        if sys.argv[1] == "exit":
            sys.exit(0)
        time.sleep(600)
    """
)


def _child(tmp_path: Path, how: str) -> tuple[subprocess.Popen, list[Path]]:
    env = {**os.environ, "TMPDIR": str(tmp_path), "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, how],
        preexec_fn=interruptible,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    dirs = [Path(p) for p in proc.stdout.readline().split()]
    assert len(dirs) == 2
    if how not in ("raise", "exit"):
        assert all(d.is_dir() for d in dirs)
    return proc, dirs


@pytest.mark.parametrize("how", ["raise", "exit", "SIGINT", "SIGTERM"])
def test_directories_are_removed_on_every_exit_path(tmp_path: Path, how: str) -> None:
    proc, dirs = _child(tmp_path, "sleep" if how.startswith("SIG") else how)
    if how.startswith("SIG"):
        proc.send_signal(getattr(signal, how))
    proc.wait(60)
    assert [d for d in dirs if d.exists()] == []


def test_what_a_sigkill_leaves_is_swept_and_live_ones_are_kept(tmp_path: Path) -> None:
    proc, dirs = _child(tmp_path, "sleep")
    live, live_dirs = _child(tmp_path, "sleep")
    try:
        assert all(
            d.name.startswith(f"scigate-{k}-{proc.pid}-")
            for d, k in zip(dirs, ("check", "tpl"), strict=True)
        )
        proc.send_signal(signal.SIGKILL)
        proc.wait(60)
        assert all(d.exists() for d in dirs)  # the kill left them, answer.txt included
        other = tmp_path / "scigate-notes-keep"  # not our pattern
        other.mkdir()
        removed = sweep_stale_tempdirs(tmp_path)
        assert sorted(removed) == sorted(dirs)
        assert not any(d.exists() for d in dirs)
        assert all(d.exists() for d in live_dirs) and other.exists()
    finally:
        live.kill()
        live.wait(60)


def test_names_are_pid_stamped_and_kinds_checked(tmp_path: Path) -> None:
    with scigate_tempdir("worker", dir=tmp_path) as tmp:
        assert Path(tmp).name.startswith(f"scigate-worker-{os.getpid()}-")
    assert not Path(tmp).exists()
    made = scigate_mkdtemp("evo", dir=tmp_path)
    assert made.name.startswith(f"scigate-evo-{os.getpid()}-")
    assert sweep_stale_tempdirs(tmp_path) == []  # our own process is alive
    with pytest.raises(ValueError):
        scigate_tempdir("../escape")
