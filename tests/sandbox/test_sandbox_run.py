"""End-to-end tests of scigate.sandbox: real processes, no network."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from _wait import await_until, wait_until
from conftest import marked_pids, wait_gone
from scigate.errors import BadInput
from scigate.sandbox import (
    Limits,
    _runner,
    arun,
    default_cache_dir,
    fresh_workspace,
    protections,
    run,
    run_python,
    trusted_jit_env,
)
from scigate.sandbox._isolation import WORKSPACE, bwrap_status
from scigate.sandbox._jitcache import trusted_dir

BWRAP_WORKS = bwrap_status()[0] is not None

# Main script -> child -> grandchild that called setsid, plus a double-forked daemon
# (setsid, then its parent exits, so it is orphaned). Prints their pids, then sleeps.
TREE = textwrap.dedent(
    """
    import os, subprocess, sys, time
    grandchild = "import subprocess, time; " \\
        "g = subprocess.Popen(['sleep', '1000'], start_new_session=True); " \\
        "print(g.pid, flush=True); time.sleep(1000)"
    child = subprocess.Popen([sys.executable, "-c", grandchild], stdout=subprocess.PIPE, text=True)
    gpid = int(child.stdout.readline())
    r, w = os.pipe()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.write(w, f"{os.getpid()}\\n".encode())
            time.sleep(1000)
        os._exit(0)
    dpid = int(os.read(r, 100))
    print("PIDS", os.getpid(), child.pid, gpid, dpid, flush=True)
    time.sleep(1000)
    """
)


def _pids(stdout: str) -> list[int]:
    line = next(line for line in stdout.splitlines() if line.startswith("PIDS"))
    return [int(p) for p in line.split()[1:]]


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


@pytest.mark.parametrize("network", [False, True], ids=["bwrap-if-available", "no-bwrap"])
def test_timeout_kills_whole_tree_including_setsid(
    ws: Path, network: bool, mark, backstops: list[bool]
) -> None:
    token, env = mark
    result = run_python(TREE, workspace=ws, limits=Limits(wall_seconds=2, network=network), env=env)
    pids = _pids(result.stdout)
    assert len(set(pids)) == 4
    assert result.timed_out and not result.ok
    # killed on the supervisor's clock (which starts with the run, not with a start-up
    # that a loaded machine slows): not before the limit, and before the caller's
    # backstop had to act (recorded, not guessed from how long the run took)
    assert result.seconds >= 2
    assert backstops == [False]
    assert wait_gone(token) == []
    assert result.reason == "timed out after 2 s; killed 4 processes"


def test_the_backstop_is_recorded_when_it_acts(
    ws: Path, mark, backstops: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The control of `backstops`: with the caller's backstop due before the
    supervisor's own limit, it acts, is seen acting, and still leaves nothing."""
    token, env = mark
    monkeypatch.setattr(_runner, "GRACE_SECONDS", -1.5)  # due 0.5 s into a 2 s limit
    result = run_python(TREE, workspace=ws, limits=Limits(wall_seconds=2), env=env)
    assert backstops == [True]
    assert result.timed_out and not result.ok
    assert wait_gone(token) == []


def test_descendants_left_behind_after_normal_exit_are_killed(ws: Path, mark) -> None:
    token, env = mark
    code = (
        "import subprocess; print(subprocess.Popen(['sleep', '1000'], start_new_session=True).pid)"
    )
    result = run_python(code, workspace=ws, env=env)
    assert result.ok, result.reason
    assert wait_gone(token) == []


def test_caller_death_kills_the_tree(ws: Path, tmp_path: Path, mark) -> None:
    token, _ = mark
    caller = tmp_path / "caller.py"
    caller.write_text(
        "import sys\nfrom pathlib import Path\nfrom scigate.sandbox import run\n"
        f"run(['sleep', '1000'], workspace=Path(sys.argv[1]), env={{'SCIGATE_TEST_RUN': {token!r}}})\n"
    )
    proc = subprocess.Popen([sys.executable, str(caller), str(ws)])
    try:
        sleeper = wait_until(lambda: _sleeper(token), message="the run's sleep never started")
    finally:
        proc.kill()
        proc.wait()
    wait_until(lambda: _gone(sleeper), message="the caller died, its run's sleep lives on")


def _sleeper(token: str) -> int | None:
    """The host pid of a `sleep 1000` that carries `token` in its environment."""
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
                environ = Path(f"/proc/{name}/environ").read_bytes()
            except OSError:
                continue
            if cmdline == b"sleep\x001000\x00" and token.encode() in environ:
                return int(name)
    return None


def test_environment_scrubbed_and_home_in_workspace(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-test")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-test")
    monkeypatch.setenv("DB_PASSWORD", "pw-test")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", "/creds.json")
    monkeypatch.setenv("DATABASE_URL", "postgres://user:hunter2@db/x")
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")
    code = "import json, os, shutil; print(json.dumps({**os.environ, 'which': shutil.which('python')}))"
    result = run_python(code, workspace=ws, env={"MY_SETTING": "1"})
    assert result.ok, result.reason
    seen = json.loads(result.stdout)
    for secret in ("sk-test", "sk-ant-test", "aws-test", "ghp-test", "pw-test", "hunter2"):
        assert secret not in result.stdout
    for name in ("OPENAI_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS", "DATABASE_URL"):
        assert name not in seen
    inside = Path(WORKSPACE) if result.isolated else ws.resolve()
    assert Path(seen["HOME"]).is_relative_to(inside)
    assert seen["LANG"] == "C.UTF-8" and seen["TOKENIZERS_PARALLELISM"] == "false"
    assert seen["MY_SETTING"] == "1"
    venv_bin = str(Path(sys.executable).parent)
    assert seen["PATH"].split(os.pathsep)[0] == venv_bin
    assert Path(seen["which"]).parent == Path(venv_bin)


def test_huge_stdout_is_capped_without_parent_memory_growth(ws: Path, tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        textwrap.dedent(
            """
            import json, resource, sys
            from pathlib import Path
            from scigate.sandbox import run
            ws = Path(sys.argv[1])
            code = "import sys\\nb = b'x' * (1 << 20)\\nfor _ in range(200): sys.stdout.buffer.write(b)\\n"
            run([sys.executable, "-c", "print(1)"], workspace=ws)  # warm-up: imports, caches
            before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            r = run([sys.executable, "-c", code], workspace=ws)
            after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            print(json.dumps({"growth_kb": after - before, "len": len(r.stdout),
                              "truncated": r.stdout_truncated, "ok": r.ok,
                              "marker": "bytes of output left out" in r.stdout}))
            """
        )
    )
    out = subprocess.run(
        [sys.executable, str(probe), str(ws)], capture_output=True, text=True, check=True
    )
    report = json.loads(out.stdout)
    assert report["ok"] and report["truncated"] and report["marker"]
    assert (1 << 20) <= report["len"] < (1 << 20) + 200
    assert report["growth_kb"] < 8 * 1024, report


def test_output_cap_keeps_head_and_tail(ws: Path) -> None:
    code = "import sys\nprint('HEAD', file=sys.stderr)\nprint('x' * 10000, file=sys.stderr)\nprint('TAIL', file=sys.stderr)\nprint('small')"
    result = run_python(code, workspace=ws, limits=Limits(output_bytes=1000))
    assert result.stderr_truncated and not result.stdout_truncated
    assert result.stderr.startswith("HEAD") and result.stderr.rstrip().endswith("TAIL")
    assert "left out" in result.stderr
    assert result.stdout == "small\n"


def test_memory_hog_is_stopped_with_memory_reason(ws: Path) -> None:
    limits = Limits(memory_bytes=512 << 20)
    result = run_python("x = bytearray(2 << 30)", workspace=ws, limits=limits)
    assert result.memory_exceeded and not result.ok
    assert result.reason == "ran out of memory (limit 512 MiB)"
    # a non-Python program hitting the limit is recognised too
    small = Limits(memory_bytes=64 << 20)
    result = run("head -c 500000000 /dev/zero | sort", workspace=ws, limits=small)
    assert result.memory_exceeded, (result.reason, result.stderr)
    assert result.reason == "ran out of memory (limit 64 MiB)"
    # mapping (not touching) 2 GiB is fine under a 3 GiB limit
    mapped = "import mmap; m = mmap.mmap(-1, 2 << 30)"
    big = run_python(mapped, workspace=ws, limits=Limits(memory_bytes=3 << 30))
    assert big.ok and not big.memory_exceeded


def test_crash_reports_last_stderr_lines(ws: Path) -> None:
    code = "import sys\nprint('warming up', file=sys.stderr)\nraise ValueError('boom')"
    result = run_python(code, workspace=ws)
    assert result.exit_code == 1 and result.signal is None and not result.ok
    assert result.reason.startswith("crashed with exit code 1: ")
    assert "ValueError: boom" in result.reason
    assert result.stderr_tail(1) == "ValueError: boom"
    assert not result.memory_exceeded


def test_exit_codes_and_signals(ws: Path) -> None:
    fine = run("echo hi", workspace=ws)
    assert fine.ok and fine.exit_code == 0 and fine.stdout == "hi\n"
    assert fine.reason == "finished (exit code 0)"
    assert fine.peak_memory_bytes and fine.peak_memory_bytes > 0
    assert run("exit 7", workspace=ws).exit_code == 7
    silent = run("exit 7", workspace=ws)
    assert silent.reason == "crashed with exit code 7 (no output on stderr)"
    segv = run_python("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", workspace=ws)
    assert segv.exit_code is None and segv.signal == signal.SIGSEGV
    assert segv.reason == "killed by signal SIGSEGV"
    missing = run(["no-such-program-xyz"], workspace=ws)
    assert missing.exit_code == 127 and missing.reason.startswith("could not start the command")


def test_cpu_limit(ws: Path) -> None:
    result = run_python("while True: pass", workspace=ws, limits=Limits(cpu_seconds=1))
    assert result.signal in (signal.SIGXCPU, signal.SIGKILL)
    assert result.reason == "exceeded the CPU time limit (1 s)"


def test_process_count_limit_kills_tree(ws: Path) -> None:
    script = "for i in $(seq 30); do sleep 1000 & done; echo started; wait"
    result = run(script, workspace=ws, limits=Limits(max_processes=10, wall_seconds=60))
    # stopped by the count, before the wall clock (the script itself never ends)
    assert not result.timed_out and result.seconds < 60
    # the cgroup refuses the 11th task, or the supervisor counts 11 processes first
    assert re.match(
        r"exceeded the limit of 10 (processes|tasks \(processes and threads\)); killed ",
        result.reason,
    ), result.reason
    assert not result.ok


def test_stdin_is_passed(ws: Path) -> None:
    result = run("tr a-z A-Z", workspace=ws, stdin="hello\n" * 20000)
    assert result.ok and result.stdout == "HELLO\n" * 20000


def _netns() -> str:
    return os.readlink("/proc/self/ns/net")


@pytest.mark.skipif(not BWRAP_WORKS, reason=f"bwrap unusable here: {bwrap_status()[1]}")
def test_network_is_cut_with_bwrap(ws: Path) -> None:
    code = textwrap.dedent(
        """
        import os, socket
        print(os.readlink('/proc/self/ns/net'))
        s = socket.socket()
        s.settimeout(2)
        print(s.connect_ex(('192.0.2.1', 80)))  # TEST-NET-1: never routable anyway
        print(sorted(l.split(':')[0].strip() for l in open('/proc/net/dev').readlines()[2:]))
        """
    )
    result = run_python(code, workspace=ws)
    assert result.ok and result.network_isolated
    netns, errno_text, ifaces = result.stdout.splitlines()
    assert netns != _netns()
    assert int(errno_text) != 0
    assert ifaces == "['lo']"
    opened = run_python(code.split("s = socket")[0], workspace=ws, limits=Limits(network=True))
    assert not opened.network_isolated and opened.stdout.strip() == _netns()


def test_protections_report() -> None:
    report = protections()
    for name in ("process group", "subreaper", "rlimit_as", "rlimit_cpu", "process count"):
        assert report[name].startswith("active")
    assert report["output cap"].startswith("active") and report["environment"].startswith("active")
    assert report["network (bwrap)"].startswith("active" if BWRAP_WORKS else "unavailable: ")
    assert report["isolation (bwrap)"].startswith("active" if BWRAP_WORKS else "unavailable: ")
    assert report["nested user namespaces"].startswith(("active", "unavailable: "))
    assert report["workspace size"].startswith("active (default 1024 MiB")
    assert report["secret redaction"].startswith("active")
    assert "RLIMIT_NPROC" in report["process count"]


async def test_arun_does_not_block_and_cancel_kills_tree(ws: Path, mark) -> None:
    token, env = mark

    async def answer() -> None:  # on the same loop, while the run is in progress
        await await_until(lambda: (ws / "asked").exists(), message="the run never asked")
        (ws / "answer.tmp").write_text("go")
        os.replace(ws / "answer.tmp", ws / "answer")

    # the run ends only once the loop has answered it: a blocked loop ends in the limit
    answering = asyncio.create_task(answer())
    script = "touch asked; while [ ! -e answer ]; do sleep 0.01; done; echo done"
    result = await arun(script, workspace=ws, limits=Limits(wall_seconds=60))
    await answering
    assert result.ok and result.stdout == "done\n", result.reason
    pidfile = ws / "pid"
    job = asyncio.create_task(arun("sleep 1000 & echo $! > pid; wait", workspace=ws, env=env))
    while not pidfile.exists() or not pidfile.read_text().strip():
        await asyncio.sleep(0.02)
    assert marked_pids(token)  # the marker finds the running tree
    job.cancel()
    with pytest.raises(asyncio.CancelledError):
        await job
    assert wait_gone(token) == []


def test_bad_input(ws: Path, tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="not a directory"):
        run("true", workspace=tmp_path / "missing")
    with pytest.raises(BadInput, match="empty"):
        run("  ", workspace=ws)
    with pytest.raises(BadInput, match="empty"):
        run([], workspace=ws)
    with pytest.raises(BadInput, match="exactly one"):
        run_python(workspace=ws)
    with pytest.raises(BadInput, match="not found"):
        run_python(script=Path("nope.py"), workspace=ws)


def test_run_python_script_and_snippet_cleanup(ws: Path) -> None:
    (ws / "solution.py").write_text("print(open('data.txt').read())")
    (ws / "data.txt").write_text("42")
    assert run_python(script=Path("solution.py"), workspace=ws).stdout == "42\n"
    run_python("print(1)", workspace=ws)
    assert not list(ws.glob(".scigate_snippet_*"))


def test_fresh_workspace_copies_without_excluded(tmp_path: Path) -> None:
    src = tmp_path / "item"
    (src / "sub").mkdir(parents=True)
    (src / "solution.py").write_text("x")
    (src / "answer.txt").write_text("secret answer")
    (src / "sub" / "answer.txt").write_text("nested")
    (src / "sub" / "mesh.xdmf").write_text("m")
    copy = fresh_workspace(src, exclude={"answer.txt"}, parent=tmp_path)
    assert copy.parent == tmp_path and copy != src
    files = sorted(p.relative_to(copy).as_posix() for p in copy.rglob("*") if p.is_file())
    assert files == ["solution.py", "sub/mesh.xdmf"]
    empty = fresh_workspace(parent=tmp_path)
    assert empty.is_dir() and not list(empty.iterdir())
    with pytest.raises(BadInput):
        fresh_workspace(tmp_path / "missing")


def test_cache_dir_is_wired_for_ffcx(ws: Path, tmp_path: Path) -> None:
    """XDG_CACHE_HOME is the run's own (in its workspace); the shared cache is there to
    read (links into it resolve) but not to write."""
    assert default_cache_dir() == Path(os.environ["SCIGATE_CACHE_DIR"])
    cache = tmp_path / "cache"
    probe = f"echo $XDG_CACHE_HOME; test -d {cache.resolve()} && echo seen; touch {cache}/x"
    result = run(probe, workspace=ws, cache_dir=cache)
    home = WORKSPACE if result.isolated else str(ws.resolve())
    assert result.stdout.split()[:2] == [f"{home}/.home/.cache", "seen"] and cache.is_dir()
    if result.isolated:
        assert not result.ok and not (cache / "x").exists()  # read-only inside


DOLFINX_SCRIPT = textwrap.dedent(
    """
    import dolfinx_solver  # noqa: F401
    import dolfinx.jit, ufl
    from dolfinx import fem, mesh
    from mpi4py import MPI
    m = mesh.create_unit_square(MPI.COMM_WORLD, 4, 4)
    V = fem.functionspace(m, ("Lagrange", 1))
    u, v = ufl.TrialFunction(V), ufl.TestFunction(V)
    fem.form(ufl.inner(ufl.grad(u), ufl.grad(v)) * ufl.dx)
    print(dolfinx.jit.get_options()["cache_dir"])
    """
)


@pytest.mark.slow
def test_ffcx_jit_cache_trusted_modules_found_untrusted_ones_private(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    shared = trusted_dir(cache) / "fenics"
    first_ws, second_ws = fresh_workspace(parent=tmp_path), fresh_workspace(parent=tmp_path)
    first = run_python(DOLFINX_SCRIPT, workspace=first_ws, cache_dir=cache)
    assert first.ok, first.stderr
    own = first_ws / ".home" / ".cache" / "fenics"
    assert [p for p in own.glob("*.so") if not p.is_symlink()]  # compiled privately
    assert not list(shared.glob("*.so"))  # an untrusted run never fills the shared cache
    # a trusted process fills it; a fresh workspace then finds the form compiled
    env = {**os.environ, **trusted_jit_env(cache)}
    subprocess.run([sys.executable, "-c", DOLFINX_SCRIPT], env=env, check=True)
    compiled = {p: p.stat().st_mtime_ns for p in shared.glob("*.so")}
    assert compiled
    second = run_python(DOLFINX_SCRIPT, workspace=second_ws, cache_dir=cache)
    assert second.ok, second.stderr
    linked = list((second_ws / ".home" / ".cache" / "fenics").glob("*.so"))
    assert linked and all(p.is_symlink() for p in linked)  # nothing recompiled
    assert {p: p.stat().st_mtime_ns for p in shared.glob("*.so")} == compiled


@pytest.mark.skipif(not BWRAP_WORKS, reason="needs bubblewrap")
def test_an_interpreter_under_the_hosts_tmp_stays_visible(tmp_path: Path) -> None:
    """A checkout or venv under the host's /tmp (where a CI clone may live) is bound on
    top of the sandbox's private /tmp, not hidden by it ("execvp ... No such file")."""
    import sysconfig

    import scigate

    venv = tmp_path / "venv"
    assert str(venv.resolve()).startswith("/tmp/"), "pytest's tmp_path is expected under /tmp"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120
    )
    src = Path(scigate.__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": f"{src}:{sysconfig.get_paths()['purelib']}"}
    code = (
        "import sys\n"
        "from scigate.sandbox import fresh_workspace, run_python\n"
        "r = run_python('import sys; print(sys.prefix)', workspace=fresh_workspace())\n"
        "print(r.exit_code, r.stdout.strip(), r.stderr.strip()[-200:])\n"
    )
    out = subprocess.run(
        [str(venv / "bin" / "python"), "-c", code],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert out.stdout.split()[:2] == ["0", str(venv)], out.stdout + out.stderr
