"""Warm mode of scigate.sandbox: the cold guarantees hold for runs forked from a server."""

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
from test_sandbox_run import BWRAP_WORKS, DOLFINX_SCRIPT, TREE, _gone, _netns, _pids

from _wait import wait_until
from conftest import marked_pids, wait_gone
from scigate.sandbox import (
    Limits,
    arun_python,
    default_cache_dir,
    fresh_workspace,
    protections,
    run_python,
    stop_warm_servers,
    warm_status,
)
from scigate.sandbox._isolation import WORKSPACE

# A cheap preload keeps these tests fast; what matters is that the run is forked.
LIGHT = ("json",)
DOLFINX = ("dolfinx_solver", "dolfinx", "dolfinx.fem.petsc", "ufl", "basix")


def _pool(
    preload: tuple[str, ...], isolated: bool = BWRAP_WORKS, cache: Path | None = None
) -> dict:
    """This test's pool: each test has its own cache dir, and pools are keyed by it."""
    cache = str((cache or default_cache_dir()).resolve())
    return next(
        p
        for p in warm_status()
        if tuple(p["preload"]) == preload
        and p["network_isolated"] == isolated
        and p["cache_dir"] == cache
    )


def _server_pid_of_run(ws: Path, preload: tuple[str, ...] = LIGHT) -> int:
    """The host pid of the server that serves runs here (bwrap's, under isolation): each
    test has its own cache dir, hence its own pool, so sequential runs share one server."""
    result = run_python("import os; print(os.getppid())", workspace=ws, preload=preload)
    assert result.ok, result.reason
    servers = _pool(preload)["servers"]
    assert len(servers) == 1, servers
    return servers[0]


@pytest.mark.parametrize("network", [False, True], ids=["bwrap-if-available", "no-bwrap"])
def test_timeout_kills_whole_tree_including_setsid(
    ws: Path, network: bool, mark, backstops: list[bool]
) -> None:
    token, env = mark
    limits = Limits(wall_seconds=2, network=network)
    result = run_python(TREE, workspace=ws, limits=limits, preload=LIGHT, env=env)
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
    # the run was forked from the server, which is still there for the next run
    assert not _gone(_pool(LIGHT, isolated=BWRAP_WORKS and not network)["servers"][0])
    assert result.isolated == BWRAP_WORKS


def test_environment_scrubbed_and_home_in_workspace(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_python("pass", workspace=ws, preload=LIGHT)  # the server starts before the secrets
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-test")
    monkeypatch.setenv("DATABASE_URL", "postgres://user:hunter2@db/x")
    monkeypatch.setenv("LANG", "C.UTF-8")
    code = textwrap.dedent(
        """
        import json, os, subprocess, sys
        child = subprocess.run(["sh", "-c", "echo $HOME"], capture_output=True, text=True)
        print(json.dumps({**os.environ, "child_home": child.stdout.strip(),
                          "argv": sys.argv, "path0": sys.path[0]}))
        """
    )
    result = run_python(code, workspace=ws, env={"MY_SETTING": "1"}, preload=LIGHT)
    assert result.ok, result.reason
    seen = json.loads(result.stdout)
    for secret in ("sk-test", "ghp-test", "hunter2"):
        assert secret not in result.stdout
    assert "OPENAI_API_KEY" not in seen and "DATABASE_URL" not in seen
    inside = WORKSPACE if result.isolated else str(ws.resolve())
    assert Path(seen["HOME"]).is_relative_to(inside)
    assert seen["child_home"] == seen["HOME"]  # the C-level environment was replaced too
    assert seen["LANG"] == "C.UTF-8" and seen["MY_SETTING"] == "1"
    assert seen["path0"] == inside
    assert seen["PATH"].split(os.pathsep)[0] == str(Path(sys.executable).parent)
    # a server started while the secrets are set does not hold them either (read from the
    # host: a run cannot read its server's environ, see test_attacks_ptrace.py)
    assert run_python("pass", workspace=ws, preload=("string",)).ok
    environ = _server_environ(("string",))
    assert "OMP_NUM_THREADS=1" in environ
    assert not any(secret in environ for secret in ("sk-test", "ghp-test", "hunter2"))


def _server_environ(preload: tuple[str, ...]) -> str:
    """The environment of the warm server for `preload` (used by one test only), read
    from the host."""
    for name in os.listdir("/proc"):
        try:
            argv = Path(f"/proc/{name}/cmdline").read_bytes().decode().split("\0")[:-1]
            environ = Path(f"/proc/{name}/environ").read_bytes().decode("utf-8", "replace")
        except (OSError, ValueError):
            continue
        is_server = any(a.endswith("_warm_server.py") for a in argv)
        if is_server and tuple(argv[-len(preload) :]) == preload:
            return environ.replace("\0", "\n")
    raise AssertionError(f"no warm server for {preload}")


def test_huge_stdout_is_capped_without_parent_memory_growth(ws: Path, tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        textwrap.dedent(
            """
            import json, resource, sys
            from pathlib import Path
            from scigate.sandbox import run_python
            ws = Path(sys.argv[1])
            code = "import sys\\nb = b'x' * (1 << 20)\\nfor _ in range(200): sys.stdout.buffer.write(b)\\n"
            run_python("print(1)", workspace=ws, preload=("json",))  # warm-up: server, imports
            before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            r = run_python(code, workspace=ws, preload=("json",))
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


def test_memory_hog_crash_exit_code_and_segfault_leave_the_server_alive(ws: Path) -> None:
    server = _server_pid_of_run(ws)
    hog = run_python(
        "x = bytearray(2 << 30)", workspace=ws, limits=Limits(memory_bytes=512 << 20), preload=LIGHT
    )
    assert hog.memory_exceeded and not hog.ok
    assert hog.reason == "ran out of memory (limit 512 MiB)"
    crash = run_python(
        "import sys\nprint('warming up', file=sys.stderr)\nraise ValueError('boom')",
        workspace=ws,
        preload=LIGHT,
    )
    assert crash.exit_code == 1 and crash.signal is None
    assert (
        crash.reason.startswith("crashed with exit code 1: ") and "ValueError: boom" in crash.reason
    )
    assert crash.stderr_tail(1) == "ValueError: boom"
    # the traceback is the one a fresh interpreter prints: no server or runpy frames
    assert crash.stderr.splitlines()[1] == "Traceback (most recent call last):"
    assert "runpy" not in crash.stderr and "_warm_server" not in crash.stderr
    assert run_python("import sys; sys.exit(3)", workspace=ws, preload=LIGHT).exit_code == 3
    message = run_python("import sys; sys.exit('bye')", workspace=ws, preload=LIGHT)
    assert message.exit_code == 1 and message.stderr == "bye\n"
    segv = run_python(
        "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", workspace=ws, preload=LIGHT
    )
    assert segv.signal == signal.SIGSEGV and segv.reason == "killed by signal SIGSEGV"
    cpu = run_python("while True: pass", workspace=ws, limits=Limits(cpu_seconds=1), preload=LIGHT)
    assert cpu.reason == "exceeded the CPU time limit (1 s)"
    assert _server_pid_of_run(ws) == server


def test_output_files_and_threads_finish_as_at_interpreter_exit(ws: Path) -> None:
    code = textwrap.dedent(
        """
        import atexit, threading, time
        f = open("unclosed.txt", "w")
        f.write("kept")
        def late():
            time.sleep(0.2)
            open("thread.txt", "w").write("joined")
        threading.Thread(target=late).start()
        atexit.register(lambda: print("atexit ran"))
        print("main done")
        """
    )
    result = run_python(code, workspace=ws, preload=LIGHT)
    assert result.ok and result.stdout == "main done\natexit ran\n"
    assert (ws / "unclosed.txt").read_text() == "kept"
    assert (ws / "thread.txt").read_text() == "joined"


def test_process_count_limit_kills_tree(ws: Path) -> None:
    code = (
        "import subprocess\nps = [subprocess.Popen(['sleep', '1000']) for _ in range(30)]\n"
        "import time; time.sleep(1000)"
    )
    limits = Limits(max_processes=10, wall_seconds=60)
    result = run_python(code, workspace=ws, limits=limits, preload=LIGHT)
    # stopped by the count, before the wall clock (the script itself never ends)
    assert not result.timed_out and result.seconds < 60
    # the cgroup refuses the 11th task, or the supervisor counts 11 processes first
    assert re.match(
        r"exceeded the limit of 10 (processes|tasks \(processes and threads\)); killed ",
        result.reason,
    ), result.reason


@pytest.mark.skipif(not BWRAP_WORKS, reason="bwrap unusable here")
def test_network_is_cut_with_bwrap(ws: Path) -> None:
    code = textwrap.dedent(
        """
        import os, socket
        print(os.readlink('/proc/self/ns/net'))
        s = socket.socket()
        s.settimeout(2)
        print(s.connect_ex(('192.0.2.1', 80)))
        print(sorted(l.split(':')[0].strip() for l in open('/proc/net/dev').readlines()[2:]))
        """
    )
    result = run_python(code, workspace=ws, preload=LIGHT)
    assert result.ok and result.network_isolated
    netns, errno_text, ifaces = result.stdout.splitlines()
    assert netns != _netns() and int(errno_text) != 0 and ifaces == "['lo']"
    opened = run_python(
        code.split("s = socket")[0], workspace=ws, limits=Limits(network=True), preload=LIGHT
    )
    assert not opened.network_isolated and opened.stdout.strip() == _netns()


async def test_concurrent_runs_return_their_own_output(tmp_path: Path) -> None:
    spaces = [fresh_workspace(parent=tmp_path) for _ in range(4)]
    code = "import os, sys, time\ntime.sleep(0.3)\nprint(os.getcwd())\nprint(os.getcwd(), file=sys.stderr)"
    results = await asyncio.gather(
        *(arun_python(code, workspace=ws, preload=LIGHT) for ws in spaces)
    )
    for ws, result in zip(spaces, results, strict=True):
        assert result.ok, result.reason
        inside = WORKSPACE if result.isolated else str(ws.resolve())
        assert result.stdout.strip() == result.stderr.strip() == inside
        assert (ws / ".home").is_dir()  # each workspace is back where its caller had it
    assert len(_pool(LIGHT)["servers"]) <= (os.cpu_count() or 1)


async def test_cancel_kills_the_tree_and_keeps_the_server(ws: Path, mark) -> None:
    token, env = mark
    server = _server_pid_of_run(ws)
    code = (
        "import subprocess\n"
        "p = subprocess.Popen(['sleep', '1000'], start_new_session=True)\n"
        "open('pid', 'w').write(str(p.pid))\np.wait()"
    )
    job = asyncio.create_task(arun_python(code, workspace=ws, preload=LIGHT, env=env))
    while not marked_pids(token):
        await asyncio.sleep(0.02)
    job.cancel()
    with pytest.raises(asyncio.CancelledError):
        await job
    assert wait_gone(token) == []
    assert _server_pid_of_run(ws) == server


def test_a_run_that_kills_its_server_gets_a_clear_result_and_a_new_server(ws: Path) -> None:
    server = _server_pid_of_run(ws)
    before = _pool(LIGHT)["replaced"]
    result = run_python(
        "import os, signal; os.kill(os.getppid(), signal.SIGKILL)", workspace=ws, preload=LIGHT
    )
    assert not result.ok and result.reason.startswith("the sandbox lost the run: warm server")
    assert _pool(LIGHT)["replaced"] == before + 1
    assert _gone(server)
    assert _server_pid_of_run(ws) != server


def test_failed_preload_falls_back_to_cold_and_says_why(ws: Path) -> None:
    preload = ("no_such_module_for_scigate_tests",)
    result = run_python("print('cold anyway')", workspace=ws, preload=preload)
    assert result.ok and result.stdout == "cold anyway\n"
    pool = _pool(preload)
    assert pool["servers"] == [] and pool["fallbacks"] == 1
    assert "ModuleNotFoundError" in pool["failure"]
    note = protections()["warm pool"]
    assert "1 cold fallbacks: import no_such_module_for_scigate_tests failed" in note


MID_RUN_TOKEN = "mid-run-" + os.urandom(6).hex()
MID_RUN = (
    "run_python('import subprocess, time\\n'"
    '           \'p = subprocess.Popen(["sleep", "1000"], start_new_session=True)\\n\''
    "           'time.sleep(1000)', workspace=Path(sys.argv[1]), preload=('json',),"
    f"           env={{'SCIGATE_TEST_RUN': {MID_RUN_TOKEN!r}}})"
)


@pytest.mark.parametrize(
    "ending", ["pass", "time.sleep(1000)", MID_RUN], ids=["exits", "killed", "killed-mid-run"]
)
def test_no_server_outlives_its_caller(ws: Path, tmp_path: Path, ending: str) -> None:
    caller = tmp_path / "caller.py"
    caller.write_text(
        "import sys, time\nfrom pathlib import Path\nfrom scigate.sandbox import run_python\n"
        "from scigate.sandbox import warm_status\n"
        "r = run_python('import os; print(os.getppid())', workspace=Path(sys.argv[1]),"
        " preload=('json',))\n"
        "print(warm_status()[0]['servers'][0], flush=True)\n"
        "sys.stdin.readline()\n"  # the test has seen the server alive: now end as told
        f"{ending}\n"
    )
    proc = subprocess.Popen(
        [sys.executable, str(caller), str(ws)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    server = int(proc.stdout.readline())
    assert not _gone(server)
    proc.stdin.write("\n")
    proc.stdin.close()
    token = None
    if ending == MID_RUN:
        token = MID_RUN_TOKEN
        wait_until(lambda: marked_pids(token), message="the mid-run run never started")
    if ending != "pass":
        proc.kill()
    proc.wait(timeout=20)
    proc.stdout.close()
    wait_until(
        lambda: _gone(server) and (token is None or not marked_pids(token)),
        message=lambda: f"left behind: server {server} gone {_gone(server)}, run {token}",
    )


def test_stop_warm_servers(ws: Path) -> None:
    server = _server_pid_of_run(ws, preload=("csv",))
    stop_warm_servers()
    assert _gone(server) and warm_status() == []
    assert _server_pid_of_run(ws, preload=("csv",)) != server


@pytest.mark.slow
def test_dolfinx_warm_run_equals_cold_run(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    script = DOLFINX_SCRIPT + textwrap.dedent(
        """
        import numpy as np
        from dolfinx.fem.petsc import LinearProblem
        facets = mesh.locate_entities_boundary(m, 1, lambda x: np.full(x.shape[1], True))
        bc = fem.dirichletbc(0.0, fem.locate_dofs_topological(V, 1, facets), V)
        x = ufl.SpatialCoordinate(m)
        uh = LinearProblem(ufl.inner(ufl.grad(u), ufl.grad(v)) * ufl.dx, (1 + x[0]) * v * ufl.dx,
                           bcs=[bc], petsc_options_prefix="p_",
                           petsc_options={"ksp_type": "preonly", "pc_type": "lu"}).solve()
        print(f"{fem.assemble_scalar(fem.form(uh * ufl.dx)):.12f}")
        """
    )
    cold = run_python(script, workspace=fresh_workspace(parent=tmp_path), cache_dir=cache)
    warm = [
        run_python(
            script, workspace=fresh_workspace(parent=tmp_path), cache_dir=cache, preload=DOLFINX
        )
        for _ in range(2)
    ]
    assert cold.ok, cold.stderr
    for result in warm:
        assert result.ok, result.stderr
        assert result.stdout == cold.stdout  # value and the run's own FFCx cache dir
    if cold.isolated:  # each run's own JIT cache, in its workspace
        assert cold.stdout.splitlines()[0] == f"{WORKSPACE}/.home/.cache/fenics"
    assert cold.isolated == BWRAP_WORKS and all(r.isolated == BWRAP_WORKS for r in warm)
    assert len(_pool(DOLFINX, cache=cache)["servers"]) == 1


def test_a_run_that_closes_its_streams_still_runs_to_the_end(ws: Path) -> None:
    code = (
        "import os, time\nprint('bye', flush=True)\nos.close(1)\nos.close(2)\n"
        "time.sleep(0.5)\nopen('done', 'w').write('1')"
    )
    result = run_python(code, workspace=ws, preload=LIGHT)
    assert result.ok and result.stdout == "bye\n" and result.seconds >= 0.5
    assert (ws / "done").read_text() == "1"


def test_warm_runs_leave_nothing_for_the_next_and_keep_the_shared_cache(
    ws: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"  # under /tmp: bound inside the server's private /tmp
    cache.mkdir()
    (cache / "kept").write_text("compiled form")
    drop = "import os\nopen('/tmp/left-behind', 'w').write('x')\nprint(sorted(os.listdir('/tmp')))"
    first = run_python(drop, workspace=ws, cache_dir=cache, preload=LIGHT)
    second = run_python(
        "import os; print(os.path.exists('/tmp/left-behind'))",
        workspace=ws,
        cache_dir=cache,
        preload=LIGHT,
    )
    assert first.ok and second.ok, (first.reason, second.reason)
    if second.isolated:
        assert second.stdout.strip() == "False"
    assert (cache / "kept").read_text() == "compiled form"


def test_servers_outlive_the_event_loop_that_started_them(ws: Path) -> None:
    """bwrap's --die-with-parent follows the thread that started it: a server started
    from asyncio's executor must not die when that asyncio.run ends (the next run of a
    second `gate run` in one process lost its server)."""
    for _ in range(2):
        result = asyncio.run(arun_python("print('hi')", workspace=ws, preload=LIGHT))
        assert result.ok and result.stdout == "hi\n", result.reason
    assert _pool(LIGHT)["replaced"] == 0


def test_a_forked_child_starts_its_own_servers(ws: Path, tmp_path: Path) -> None:
    """The spawner thread is not inherited by fork(): a child that runs warm must make
    its own instead of waiting forever on the parent's."""
    assert run_python("print(1)", workspace=ws, preload=LIGHT).ok  # the parent's spawner
    child_ws = fresh_workspace(parent=tmp_path)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through its exit status
        try:
            result = run_python("print(2)", workspace=child_ws, preload=("csv",))
            os._exit(0 if result.ok and result.stdout == "2\n" else 1)
        finally:
            os._exit(2)
    reaped: list[int] = []

    def reap() -> bool:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            reaped.append(status)
        return bool(done)

    try:
        wait_until(reap, message="the forked child hung starting a warm server")
    finally:
        if not reaped:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(reaped[0]) == 0


async def test_a_released_server_never_clears_a_workspace_not_yet_moved_back(
    tmp_path: Path,
) -> None:
    """The workspace leaves the server's area before the server returns to the pool: a
    run that took the server in between used to clear the previous run's files."""
    code = "import time\ntime.sleep(0.05)\nopen('out.txt', 'w').write('kept')"
    for _ in range(8):
        spaces = [fresh_workspace(parent=tmp_path) for _ in range(6)]
        results = await asyncio.gather(
            *(arun_python(code, workspace=ws, preload=LIGHT) for ws in spaces)
        )
        assert all(r.ok for r in results), [r.reason for r in results]
        assert [(ws / "out.txt").read_text() for ws in spaces] == ["kept"] * 6
