"""The sandbox boundary against a hostile tool-using model (issue 19).

Each test is an attack that escaped before: a model's tool calls swapping their
workspace for a host directory, the host writing through a link a run left, the
caller's directory visible in the sandbox, one run of a warm server passing data to the
next. Each asserts what the attacker wanted did not happen, so each fails when its
defence is removed.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from scigate.errors import BadInput
from scigate.sandbox import Limits, _isolation, fresh_workspace, run, run_python, stop_warm_servers

sys.path.insert(0, str(Path(__file__).parent))

ISOLATED = _isolation.bwrap_status()[0] is not None
pytestmark = pytest.mark.skipif(not ISOLATED, reason="bwrap cannot isolate here")
SWAPPER = f"python/{Path(__file__).parent / 'models' / 'swappers.py'}:swaps_workspace"
SECRET = "HOST-SECRET-19"


@pytest.fixture
def host_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A host directory the attacker names: a secret to read, nothing to plant into."""
    host = tmp_path / "host"
    host.mkdir()
    (host / "secret.txt").write_text(SECRET + "\n")
    (host / "secret.txt").chmod(0o600)
    monkeypatch.setenv("SCIGATE_TEST_HOSTDIR", str(host))
    return host


def _untouched(host: Path) -> None:
    assert sorted(p.name for p in host.iterdir()) == ["secret.txt"], list(host.iterdir())


def _candidate(tmp_path: Path):
    from scigate.gate import load_candidate

    item = tmp_path / "cand"
    item.mkdir()
    (item / "question.md").write_text("Compute 2/7 to six decimal places.\n")
    (item / "options.json").write_text(
        json.dumps({"A": "0.285714", "B": "0.4", "C": "0.6", "D": "0.8"})
    )
    (item / "answer.txt").write_text("A\n")
    (item / "solution.py").write_text("print(f'{2/7:.6f}')\n")
    return load_candidate(item)


def test_solver_tool_calls_cannot_swap_their_warm_workspace(tmp_path: Path, host_dir: Path):
    """gate 3: the built-in solver's run_python calls fork from warm DOLFINx servers."""
    from scigate.gate import solve_with_model

    result = asyncio.run(solve_with_model(_candidate(tmp_path), SWAPPER, time_limit=120))
    assert SECRET not in (result.answer_raw or "")
    assert result.answer_raw == "found:nothing", result.reason
    _untouched(host_dir)


@pytest.mark.parametrize("preload", [(), ("json",)], ids=["cold", "warm"])
def test_generator_tool_calls_cannot_swap_their_workspace(
    tmp_path: Path, host_dir: Path, preload: tuple[str, ...]
):
    """The LLM generator: its candidate/ may be a link to the host; never followed."""
    from scigate.domains import get_domain
    from scigate.gate._coding_agent import AgentLimits
    from scigate.gate._generator import Feedback, LLMGenerator

    gen = LLMGenerator(
        SWAPPER,
        domain=get_domain("fenicsx"),
        limits=AgentLimits(wall_seconds=120, preload=preload),
        seeds_in_prompt=0,
    )
    generated = asyncio.run(gen.generate(0, Feedback()))
    assert generated.candidate is None
    assert SECRET not in generated.reason
    _untouched(host_dir)


@pytest.mark.parametrize("preload", [(), ("json",)], ids=["cold", "warm"])
def test_a_run_cannot_rename_its_workspace(tmp_path: Path, host_dir: Path, preload):
    ws = fresh_workspace(parent=tmp_path)
    code = textwrap.dedent(
        f"""
        import os
        for target in ("/sandbox/workspace", os.getcwd()):
            try:
                os.rename(target, "/sandbox/elsewhere")
                os.symlink({str(host_dir)!r}, target)
                print("swapped")
            except OSError as exc:
                print("refused", exc.errno)
        """
    )
    first = run_python(code, workspace=ws, preload=preload)
    assert "swapped" not in first.stdout, first.stdout
    assert ws.is_dir() and not ws.is_symlink()
    second = run_python("print(open('secret.txt').read())", workspace=ws, preload=preload)
    assert SECRET not in second.stdout
    _untouched(host_dir)


def test_the_host_never_writes_through_a_planted_home_link(tmp_path: Path, host_dir: Path):
    """A run replaces .home (and .home/.cache) by links to a host directory; preparing
    the next run makes real directories instead of creating the JIT cache through them."""
    ws = fresh_workspace(parent=tmp_path)
    plant = f"rm -rf .home && ln -s {host_dir} .home && echo planted"
    assert "planted" in run(plant, workspace=ws).stdout
    again = run("ls -la .home; cat .home/secret.txt 2>&1", workspace=ws)
    assert SECRET not in again.stdout
    assert not (ws / ".home").is_symlink()
    _untouched(host_dir)


def test_a_workspace_that_is_a_symlink_is_refused(tmp_path: Path, host_dir: Path):
    link = tmp_path / "ws-link"
    link.symlink_to(host_dir)
    for preload in ((), ("json",)):
        with pytest.raises(BadInput, match="symlink"):
            run_python("print(1)", workspace=link, preload=preload)
    _untouched(host_dir)


DRIVER = textwrap.dedent(
    """
    import os
    from scigate.sandbox import fresh_workspace, run_python
    here = os.getcwd()
    targets = [here, os.path.join(here, ".env"), os.path.join(here, "driver.py")]
    code = f"import os\\nprint('SEEN:' + ','.join(p for p in {targets!r} if os.path.exists(p)))"
    for preload in ((), ("json",)):
        r = run_python(code, workspace=fresh_workspace(), preload=preload)
        print("COLD" if not preload else "WARM", r.stdout.strip() or "no output", r.reason)
    """
)


@pytest.mark.parametrize("how", ["script", "module"])
def test_the_callers_directory_is_not_visible(tmp_path: Path, how: str):
    """`python driver.py` puts the script's directory, `python -m driver` the working
    directory, first on sys.path; neither may be bound into the sandbox."""
    caller = tmp_path / "caller"
    caller.mkdir()
    (caller / ".env").write_text("OPENAI_API_KEY=sk-test-not-a-real-key\n")
    (caller / "driver.py").write_text(DRIVER)
    argv = [sys.executable, "driver.py"] if how == "script" else [sys.executable, "-m", "driver"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(
        argv, cwd=caller, env=env, capture_output=True, text=True, timeout=180, check=False
    )
    assert out.returncode == 0, out.stderr[-2000:]
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith(("COLD", "WARM"))]
    assert len(lines) == 2, out.stdout + out.stderr[-2000:]
    for line in lines:
        assert line.split()[1] == "SEEN:", line


RELAY_WRITE = textwrap.dedent(
    """
    import ctypes, os, socket
    token = b"RELAY-TOKEN-19"
    for d in ("/tmp", "/dev/shm", "/run"):
        with open(os.path.join(d, "relay.txt"), "wb") as f:
            f.write(token)
    # the parents of bind mounts under /tmp (a venv under the host's /tmp, a CI checkout)
    for line in open("/proc/self/mountinfo"):
        point = line.split()[4]
        if point.startswith("/tmp/") and point.count("/") > 2:
            parent = os.path.dirname(point)
            try:
                with open(os.path.join(parent, "relay.txt"), "wb") as f:
                    f.write(token)
            except OSError:
                pass
    # every inherited descriptor: a pipe or socket the next run also inherits
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd > 2:
            try:
                os.write(fd, token)
            except OSError:
                pass
    # shared writable mappings of the server (MPI/UCX segments)
    for line in open("/proc/self/maps"):
        parts = line.split()
        if parts[1][1] == "w" and parts[1][3] == "s":
            start = int(parts[0].split("-")[0], 16)
            ctypes.memmove(start, token, len(token))
    libc = ctypes.CDLL(None, use_errno=True)
    # a SysV segment and a POSIX message queue: both outlive processes in the IPC namespace
    shmid = libc.shmget(0x5C16, 4096, 0o1666)
    if shmid >= 0:
        libc.shmat.restype = ctypes.c_void_p
        addr = libc.shmat(shmid, None, 0)
        ctypes.memmove(addr, token, len(token))
    rt = ctypes.CDLL("librt.so.1", use_errno=True)
    mq = rt.mq_open(b"/relay19", 0o102, 0o666, None)
    if mq >= 0:
        rt.mq_send(mq, token, len(token), 0)
    # a key in the user keyring (keyrings are per user namespace)
    libc.syscall(248, b"user", b"relay19", token, len(token), -4)
    print("written")
    """
)

RELAY_READ = textwrap.dedent(
    """
    import ctypes, glob, os, select
    token = b"RELAY-TOKEN-19"
    found = []
    for path in glob.glob("/tmp/**/relay.txt", recursive=True) + [
        "/dev/shm/relay.txt", "/run/relay.txt"
    ]:
        try:
            if token in open(path, "rb").read():
                found.append(path)
        except OSError:
            pass
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd > 2:
            try:
                if select.select([fd], [], [], 0)[0] and token in os.read(fd, 4096):
                    found.append(f"fd {fd}")
            except (OSError, ValueError):
                pass
    for line in open("/proc/self/maps"):
        parts = line.split()
        if parts[1][1] == "w" and parts[1][3] == "s":
            start = int(parts[0].split("-")[0], 16)
            if ctypes.string_at(start, len(token)) == token:
                found.append("mapping " + parts[0])
    libc = ctypes.CDLL(None, use_errno=True)
    shmid = libc.shmget(0x5C16, 4096, 0)
    if shmid >= 0:
        libc.shmat.restype = ctypes.c_void_p
        if ctypes.string_at(libc.shmat(shmid, None, 0o10000), len(token)) == token:
            found.append("sysv shm")
    rt = ctypes.CDLL("librt.so.1", use_errno=True)
    mq = rt.mq_open(b"/relay19", 0o4000, 0, None)
    if mq >= 0:
        buf = ctypes.create_string_buffer(8192)
        if rt.mq_receive(mq, buf, 8192, None) > 0 and token in buf.raw:
            found.append("mqueue")
    key = libc.syscall(249, b"user", b"relay19", None, 0)  # request_key
    if key > 0:
        found.append("keyring")
    print("FOUND:" + (",".join(found) or "nothing"))
    """
)


def test_a_warm_server_passes_nothing_from_one_run_to_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Two runs of one warm server (the pool holds one): what run A leaves in the
    private directories, inherited descriptors, shared mappings, SysV IPC, message
    queues or keyrings is gone before run B."""
    stop_warm_servers()
    monkeypatch.setenv("SCIGATE_WARM_SERVERS", "1")
    preload = ("mpi4py.MPI",)  # MPI/UCX: shared memory segments, pipes, epoll fds
    try:
        a = run_python(RELAY_WRITE, workspace=fresh_workspace(parent=tmp_path), preload=preload)
        assert a.ok and "written" in a.stdout, a.reason + a.stderr[-2000:]
        b = run_python(RELAY_READ, workspace=fresh_workspace(parent=tmp_path), preload=preload)
        assert b.ok, b.reason + b.stderr[-2000:]
        from scigate.sandbox import warm_status

        (pool,) = [p for p in warm_status() if p["preload"] == list(preload)]
        assert pool["started"] == 1, pool  # the same server served both runs
        assert "FOUND:nothing" in b.stdout, b.stdout
    finally:
        stop_warm_servers()


def test_run_tmpfs_is_size_capped(tmp_path: Path):
    """/run was an unsized tmpfs (1.8 GiB held there); every writable place is capped."""
    ws = fresh_workspace(parent=tmp_path)
    fill = "dd if=/dev/zero of=/run/fill bs=1M count=200 2>&1; du -m /run/fill"
    result = run(fill, workspace=ws, limits=Limits(wall_seconds=60))
    size = int(result.stdout.strip().split()[-2])
    assert size <= _isolation.RUN_TMPFS_BYTES >> 20, result.stdout


CGROUPS = __import__("scigate.sandbox._cgroup", fromlist=["x"]).cgroup_status()
needs_cgroups = pytest.mark.skipif(CGROUPS[0] is None, reason=f"no run cgroups: {CGROUPS[1]}")
MEMORY = Limits(memory_bytes=512 << 20, wall_seconds=60)
FOUR_PROCESSES = textwrap.dedent(
    """
    import os, select
    # the four hold their memory at once by construction (a barrier), not by sleeping
    # long enough for the others to allocate on a loaded machine
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    kids = []
    for i in range(4):
        pid = os.fork()
        if pid == 0:
            os.close(go_w)  # only the parent's copy may keep it open
            block = bytearray(200 << 20)
            for j in range(0, len(block), 4096):
                block[j] = 1
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
    statuses = [dead[k] if k in dead else os.waitpid(k, 0)[1] for k in kids]
    print("completed", sum(s == 0 for s in statuses))
    """
)
MEMFD = textwrap.dedent(
    """
    import os
    fd = os.memfd_create("fill")
    chunk = b"x" * (1 << 20)
    for i in range(1024):
        os.write(fd, chunk)
    print("held 1 GiB in a memfd")
    """
)
THREADS = textwrap.dedent(
    """
    import threading
    never = threading.Event()  # the threads stay until the run ends, however slow it is
    started = []
    for i in range(3000):
        t = threading.Thread(target=never.wait, daemon=True)
        t.start()
        started.append(t)
    print("started", len(started))
    """
)


@needs_cgroups
@pytest.mark.parametrize("preload", [(), ("json",)], ids=["cold", "warm"])
def test_memory_is_limited_across_the_runs_processes(tmp_path: Path, preload):
    """Four processes of 200 MiB each under a 512 MiB limit: RLIMIT_AS (per process)
    lets all four finish; the run's cgroup does not."""
    result = run_python(
        FOUR_PROCESSES, workspace=fresh_workspace(parent=tmp_path), limits=MEMORY, preload=preload
    )
    assert "completed 4" not in result.stdout, result.stdout
    assert "cgroup" in result.isolation


@needs_cgroups
@pytest.mark.parametrize("preload", [(), ("json",)], ids=["cold", "warm"])
def test_memory_in_a_memfd_counts(tmp_path: Path, preload):
    result = run_python(
        MEMFD, workspace=fresh_workspace(parent=tmp_path), limits=MEMORY, preload=preload
    )
    assert not result.ok and "held 1 GiB" not in result.stdout
    assert result.memory_exceeded, result.reason


@needs_cgroups
@pytest.mark.parametrize("preload", [(), ("json",)], ids=["cold", "warm"])
def test_threads_count_against_the_task_limit(tmp_path: Path, preload):
    result = run_python(
        THREADS,
        workspace=fresh_workspace(parent=tmp_path),
        limits=Limits(max_processes=256, wall_seconds=60),
        preload=preload,
    )
    assert not result.ok and "started 3000" not in result.stdout
    assert "256 tasks (processes and threads)" in result.reason, result.reason


@needs_cgroups
def test_cpu_time_is_limited_for_the_whole_run(tmp_path: Path):
    """Two busy processes under a 1 s CPU limit: RLIMIT_CPU gives each its own second;
    the run's cgroup stops both when they have used one second together."""
    code = textwrap.dedent(
        """
        import os, sys, time
        os.fork()
        mark = 0.0
        while True:
            used = time.process_time()
            if used - mark > 0.05:
                mark = used
                os.write(1, f"cpu {used:.2f}\\n".encode())
        """
    )
    result = run_python(
        code,
        workspace=fresh_workspace(parent=tmp_path),
        limits=Limits(cpu_seconds=1, wall_seconds=30),
    )
    assert result.reason.startswith("exceeded the CPU time limit"), result.reason
    most = max(
        float(line.split()[1]) for line in result.stdout.splitlines() if line.startswith("cpu")
    )
    assert most < 0.9, most  # each stopped near half a second, not at its own 1 s


def test_results_say_when_there_is_no_cgroup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from scigate.sandbox import _limits

    monkeypatch.setattr(_limits, "cgroup_status", lambda: (None, "switched off for a test"))
    result = run_python("print(1)", workspace=fresh_workspace(parent=tmp_path))
    assert result.ok
    assert "no cgroup (switched off for a test): per-process limits only" in result.isolation


WRITE_EVERYWHERE = textwrap.dedent(
    """
    import os
    writable = []
    for d in ("/sandbox", "/", "/etc", "/usr", "/var", "/opt", "/home", "/root", "/srv", "/mnt"):
        try:
            with open(os.path.join(d, "probe-19"), "w") as f:
                f.write("x")
            writable.append(d)
        except OSError:
            pass
    print("WRITABLE:" + ",".join(writable))
    """
)


@pytest.mark.parametrize("preload", [(), ("json",)], ids=["cold", "warm"])
def test_a_run_writes_nowhere_but_its_workspace_and_capped_tmpfs(tmp_path: Path, preload):
    """The warm server's area was bound read-write at /sandbox: 2.6 GiB went to the host's
    disk there, outside the workspace limit. Now only the workspace (checked) and the
    size-capped tmpfs are writable."""
    result = run_python(
        WRITE_EVERYWHERE, workspace=fresh_workspace(parent=tmp_path), preload=preload
    )
    assert result.ok, result.reason
    assert "WRITABLE:\n" in result.stdout or result.stdout.strip() == "WRITABLE:", result.stdout
