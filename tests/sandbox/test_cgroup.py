"""Per-run cgroups (`scigate.sandbox._cgroup`): limits on the whole run, joined the way
the sandbox joins them, from inside bwrap with the fds passed through.

Each test fails when the limit is not applied: without it the run would finish its
allocation, its threads or its busy loop undisturbed."""

import contextlib
import inspect
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from _wait import wait_until
from scigate.sandbox import _cgroup
from scigate.sandbox._cgroup import RunCgroup, cgroup_status, usage_seconds
from scigate.sandbox._isolation import bwrap_prefix, bwrap_status
from scigate.sandbox._models import Limits

MiB = 1 << 20
VERSION, WHY = cgroup_status()
needs_cgroups = pytest.mark.skipif(VERSION is None, reason=f"no per-run cgroups here: {WHY}")
needs_bwrap = pytest.mark.skipif(bwrap_status()[0] is None, reason="bwrap cannot isolate here")
pytestmark = needs_bwrap

# what the sandbox's first process does with the fds (argv[1], comma-separated)
JOIN = "import os, sys\nfor fd in sys.argv[1].split(','): os.write(int(fd), b'0')\n"


def sandboxed(
    cg: RunCgroup,
    code: str,
    tmp_path: Path,
    *,
    limits: Limits | None = None,
    extra_fds: tuple[int, ...] = (),
    wait: bool = True,
):
    """Run `code` in bwrap, in `cg` (joined through its fds), as the integrator will."""
    cache = tmp_path / "cache"
    cache.mkdir(exist_ok=True)
    prefix = bwrap_prefix(limits or Limits(), cache_dir=cache, chdir="/")
    assert prefix is not None
    fds = cg.join_fds()
    argv = [
        *prefix,
        sys.executable,
        "-I",
        "-c",
        JOIN + textwrap.dedent(code),
        ",".join(map(str, fds)),
        *map(str, extra_fds),
    ]
    if not wait:
        return subprocess.Popen(argv, pass_fds=(*fds, *extra_fds), stdout=subprocess.PIPE)
    return subprocess.run(
        argv, pass_fds=(*fds, *extra_fds), capture_output=True, text=True, timeout=60
    )


@pytest.fixture
def make_cgroup():
    made: list[RunCgroup] = []

    def make(**kwargs) -> RunCgroup:
        cg = RunCgroup.create(**{"memory_bytes": None, "max_tasks": None, **kwargs})
        assert cg is not None
        made.append(cg)
        return cg

    yield make
    for cg in made:
        cg.close()


@needs_cgroups
def test_memory_across_four_processes_is_one_limit(make_cgroup, tmp_path):
    cg = make_cgroup(memory_bytes=512 * MiB, name_hint="fork4")
    result = sandboxed(
        cg,
        """
        import select
        # the four hold their memory at once by construction (a barrier), not by
        # sleeping long enough for the others to allocate on a loaded machine
        ready_r, ready_w = os.pipe()
        go_r, go_w = os.pipe()
        kids = []
        for _ in range(4):
            pid = os.fork()
            if pid == 0:
                os.close(go_w)  # only the parent's copy may keep it open
                held = bytearray(b"x") * (200 << 20)  # 200 MiB, every page touched
                os.write(ready_w, b"1")
                os.read(go_r, 1)
                os._exit(0)
            kids.append(pid)
        os.close(ready_w)
        os.close(go_r)
        ready, dead = 0, {}
        while ready < 4 and not dead:  # all four hold their block, or one was killed
            if select.select([ready_r], [], [], 0.1)[0]:
                ready += len(os.read(ready_r, 4))
            for kid in kids:
                done, status = os.waitpid(kid, os.WNOHANG)
                if done:
                    dead[kid] = status
        os.close(go_w)  # then they let go
        print(" ".join(str(dead[k] if k in dead else os.waitpid(k, 0)[1]) for k in kids))
        """,
        tmp_path,
    )
    statuses = [int(s) for s in result.stdout.split()]
    assert len(statuses) == 4, result.stderr
    killed = [s for s in statuses if os.WIFSIGNALED(s) and os.WTERMSIG(s) == signal.SIGKILL]
    assert killed, f"800 MiB across four processes under 512 MiB, none killed: {statuses}"
    report = cg.report()
    assert report["oom_kills"] >= 1 and report["memory_limit_hit"]
    assert report["peak_memory_bytes"] <= 512 * MiB


def _fill(target: str) -> str:
    return f"""
    sink = {target}
    chunk, done = b"x" * (8 << 20), 0
    while done < 512:
        os.write(sink, chunk)
        done += 8
        print(done, flush=True)
    print("filled", flush=True)
    """


@needs_cgroups
def test_memfd_counts_against_the_memory_limit(make_cgroup, tmp_path):
    cg = make_cgroup(memory_bytes=128 * MiB, name_hint="memfd")
    result = sandboxed(cg, _fill('os.memfd_create("fill")'), tmp_path)
    assert "filled" not in result.stdout, "512 MiB of memfd under a 128 MiB limit"
    assert result.returncode == 128 + signal.SIGKILL
    reached = int(result.stdout.split()[-1]) if result.stdout.split() else 0
    assert reached <= 128
    assert cg.report()["oom_kills"] >= 1 and cg.report()["memory_limit_hit"]


@needs_cgroups
def test_tmpfs_counts_against_the_memory_limit(make_cgroup, tmp_path):
    cg = make_cgroup(memory_bytes=128 * MiB, name_hint="shm")
    # /dev/shm itself could take 1 GiB: only the run's memory limit stops the writer
    fill = _fill('os.open("/dev/shm/fill", os.O_WRONLY | os.O_CREAT, 0o600)')
    result = sandboxed(cg, fill, tmp_path, limits=Limits(tmp_bytes=1 << 30))
    assert "filled" not in result.stdout, "512 MiB in /dev/shm under a 128 MiB limit"
    assert result.returncode == 128 + signal.SIGKILL, result.stderr
    assert cg.report()["oom_kills"] >= 1


@needs_cgroups
def test_threads_count_against_the_task_limit(make_cgroup, tmp_path):
    cg = make_cgroup(max_tasks=256, name_hint="threads")
    result = sandboxed(
        cg,
        """
        import threading
        threading.stack_size(256 << 10)
        stop, started, error = threading.Event(), 0, ""
        try:
            for _ in range(3000):
                threading.Thread(target=stop.wait, daemon=True).start()
                started += 1
        except RuntimeError as exc:
            error = str(exc)
        stop.set()
        print(started, error.replace(" ", "_") or "none")
        """,
        tmp_path,
    )
    started, error = result.stdout.split()
    assert error == "can't_start_new_thread", result.stderr
    assert int(started) < 256
    report = cg.report()
    assert report["tasks_limit_hit"] and report["tasks_limit_hits"] >= 1
    assert report["peak_tasks"] in (None, 256)


@needs_cgroups
def test_cpu_of_every_process_is_read_through_the_usage_fd(make_cgroup, tmp_path):
    cg = make_cgroup(name_hint="cpu")
    usage = cg.usage_fd()
    assert usage is not None
    # the supervisor's copy of the parser: stdlib only, so its source runs as it is
    parser = inspect.getsource(usage_seconds)
    result = sandboxed(
        cg,
        parser
        + textwrap.dedent("""
        import time
        def burn(seconds):
            end = time.process_time() + seconds
            while time.process_time() < end:
                pass
        pid = os.fork()
        burn(0.6)  # parent and child: 1.2 s of CPU in all
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        own = time.process_time()
        print(usage_seconds(int(sys.argv[2])), own)
        """),
        tmp_path,
        extra_fds=(usage,),
    )
    inside, own = map(float, result.stdout.split())
    assert 1.1 <= inside <= 1.2 + own, result.stderr  # own: the parent's start-up and burn
    host = cg.report()["cpu_seconds"]
    assert host == pytest.approx(usage_seconds(usage), abs=0.05)
    assert inside <= host <= inside + 0.2


@needs_cgroups
def test_close_kills_lingering_processes_and_removes_the_cgroup(make_cgroup, tmp_path):
    cg = make_cgroup(max_tasks=64, name_hint="linger")
    proc = sandboxed(
        cg,
        """
        import time
        os.setsid()
        print("in", flush=True)
        while True:  # keeps forking sleepers until the task limit refuses
            try:
                if os.fork() == 0:
                    time.sleep(120)
                    os._exit(0)
            except OSError:
                time.sleep(0.01)
        """,
        tmp_path,
        wait=False,
    )
    try:
        assert proc.stdout.readline() == b"in\n"
        wait_until(lambda: cg.report()["tasks_limit_hit"], message="the task limit never hit")
        assert len(cg.pids()) == 64
        cg.close()
        assert proc.wait(timeout=10) == 128 + signal.SIGKILL
        assert cg.leftover == []
        assert not any(os.path.exists(path) for path in cg.paths)
        assert cg.report()["tasks_limit_hit"]  # what it was when closed
        cg.close()  # idempotent
    finally:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        proc.wait()


@needs_cgroups
def test_sweep_removes_run_cgroups_of_dead_processes(tmp_path):
    # parents of this test's own (concurrent sweeps elsewhere must not see its dirs)
    parents = [os.path.join(os.path.dirname(p), f"test-sweep-{os.getpid()}") for p in _made()]
    gone = subprocess.Popen(["true"])
    gone.wait()
    ns = os.stat("/proc/self/ns/pid").st_ino
    stale = [os.path.join(p, f"run-{gone.pid}-0-{ns}-x") for p in parents]
    kept = [os.path.join(p, f"run-{os.getppid()}-0-{ns}") for p in parents]  # maker alive
    kept += [os.path.join(p, f"run-{gone.pid}-1-{ns + 1}") for p in parents]  # another PID ns
    lingering = subprocess.Popen(["sleep", "60"])
    try:
        for path in parents + stale + kept:
            os.mkdir(path)
        for path in stale:  # a task the dead process's run left behind
            Path(path, "cgroup.procs").write_text(str(lingering.pid))
        removed = _cgroup.sweep_stale(parents)
        assert sorted(removed) == sorted(stale)
        assert not any(os.path.exists(p) for p in stale)
        assert all(os.path.isdir(p) for p in kept)
        assert lingering.wait(timeout=5) == -signal.SIGKILL
    finally:
        lingering.kill()
        lingering.wait()
        for path in stale + kept + parents:
            with contextlib.suppress(FileNotFoundError):
                os.rmdir(path)


def _made() -> tuple[str, ...]:
    """The directories of a run cgroup, made and removed (its parents stay until exit)."""
    with RunCgroup.create(memory_bytes=None, max_tasks=None) as cg:
        return cg.paths


def _v2_dir() -> str | None:
    """This process's cgroup v2 directory when it is writable (to try the v2 mechanics
    even where the controllers are bound to v1, as on a hybrid machine)."""
    try:
        own = _cgroup._own_cgroups().get("")
        mounts = [m for m in _cgroup._mounts() if m.fstype == "cgroup2"]
    except OSError:
        return None
    for mount in mounts:
        found = _cgroup._dir_in_mount(mount, own) if own is not None else None
        if found is not None and os.access(found, os.W_OK):
            return found
    return None


V2_DIR = _v2_dir()


@pytest.mark.skipif(V2_DIR is None, reason="no writable cgroup2 directory here")
def test_v2_leaf_join_cpu_and_kill(tmp_path):
    """v2 without controllers: the leaf move, joining from bwrap, cpu.stat, cgroup.kill."""
    base = os.path.join(V2_DIR, f"scigate-test-{os.getpid()}")
    os.mkdir(base)
    holder = subprocess.Popen(["sleep", "60"])  # a process of the cgroup, as a shell would be
    cg = proc = None
    try:
        Path(base, "cgroup.procs").write_text(str(holder.pid))
        assert _cgroup._evacuate(base) == 1
        assert Path(base, "cgroup.procs").read_text() == ""
        assert Path(base, _cgroup.LEAF, "cgroup.procs").read_text().split() == [str(holder.pid)]
        # a scigate process started from the leaf puts its runs next to it, not in it
        layout = _cgroup._v2_layout_at(os.path.join(base, _cgroup.LEAF), controllers=())
        assert layout.dirs() == [os.path.join(base, _cgroup.PARENT)]
        cg = RunCgroup._make(layout, memory_bytes=None, max_tasks=None, hint="v2")
        usage = cg.usage_fd()
        assert usage is not None
        code = textwrap.dedent(
            """
            import time
            end = time.process_time() + 0.5
            while time.process_time() < end:
                pass
            print(os.pread(int(sys.argv[2]), 4096, 0).split()[1].decode(), flush=True)
            time.sleep(60)
            """
        )
        proc = sandboxed(cg, code, tmp_path, extra_fds=(usage,), wait=False)
        inside_usec = int(proc.stdout.readline())
        assert inside_usec >= 450_000
        assert usage_seconds(usage) >= inside_usec / 1e6
        assert cg.pids()
        cg.close()  # cgroup.kill
        assert proc.wait(timeout=10) == 128 + signal.SIGKILL
        assert cg.leftover == [] and not os.path.exists(cg.paths[0])
    finally:
        if proc is not None:
            proc.kill()
            proc.wait()
        if cg is not None:
            cg.close()
        holder.kill()
        holder.wait()
        for path in (os.path.join(base, _cgroup.PARENT), os.path.join(base, _cgroup.LEAF), base):
            with contextlib.suppress(FileNotFoundError):
                os.rmdir(path)


def test_usage_seconds_reads_both_formats():
    for text, seconds in (
        (b"usage_usec 1500000\nuser_usec 1000000\n", 1.5),
        (b"2500000000\n", 2.5),
    ):
        fd = os.memfd_create("usage")
        try:
            os.write(fd, text)
            assert usage_seconds(fd) == seconds
            assert usage_seconds(fd) == seconds  # re-read from the start
        finally:
            os.close(fd)


@needs_cgroups
def test_the_join_of_a_run_cgroup_is_measured() -> None:
    """`scigate doctor` times a process joining a fresh run cgroup, as every run does:
    a real duration, well under a second (8-16 ms where each join waits for an RCU grace
    period, about 0.3 ms with `favordynmods`)."""
    start = time.monotonic()
    seconds = _cgroup.cgroup_join_seconds(samples=1)
    took = time.monotonic() - start
    # a part of what the call did, by construction: the joins inside the timed process,
    # which starts an interpreter and is followed by a 0.05 s pause (a figure in the
    # wrong unit, or one that timed the whole process, would not fit)
    assert seconds is not None and 0 < seconds < took - 0.05


def test_a_slow_join_is_reported_with_what_makes_it_fast() -> None:
    assert _cgroup.cgroup_join_note(None).startswith("n/a")
    assert _cgroup.cgroup_join_note(0.0003).startswith("fast (0.3 ms")
    slow = _cgroup.cgroup_join_note(0.0094)
    assert slow.startswith("slow (9.4 ms") and "favordynmods" in slow
