"""Attacks on the sandbox, each contained under isolation and shown to work without it.

Every attack is a script an adversarial candidate or solver could run. Under bubblewrap
it must fail; the same script with isolation switched off must succeed, so none of
these tests can pass vacuously (an attack that never works proves nothing).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from models.hunters import SOFTWARE

from conftest import marked_pids, wait_gone
from scigate.sandbox import IsolationUnavailable, Limits, _isolation, run, run_python

ISOLATED = _isolation.bwrap_status()[0] is not None
needs_bwrap = pytest.mark.skipif(not ISOLATED, reason="bwrap cannot isolate here")


@pytest.fixture
def unisolated(monkeypatch: pytest.MonkeyPatch) -> None:
    """Switch isolation off (as on a machine without bwrap) and allow unisolated runs."""
    monkeypatch.setattr(_isolation, "bwrap_status", lambda: (None, "switched off for a test"))
    monkeypatch.setenv("SCIGATE_ALLOW_UNISOLATED", "1")


HUNT = textwrap.dedent(
    """
    import json, os
    mine = json.load(open("options.json"))
    SOFTWARE = set(SOFTWARE_NAMES)
    roots = ["/tmp", os.path.abspath(".."), os.path.abspath("../.."), os.path.expanduser("~"),
             "/root", "/work", "/home"]
    found = "none"
    for root in roots:
        for here, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if d not in SOFTWARE]
            if here.count(os.sep) - root.count(os.sep) > 4:
                dirs[:] = []
            if "options.json" in files and "answer.txt" in files:
                try:
                    if json.load(open(os.path.join(here, "options.json"))) == mine:
                        found = open(os.path.join(here, "answer.txt")).read().strip()
                except Exception:
                    pass
        if found != "none":
            break
    print(found)
    """
).replace("SOFTWARE_NAMES", repr(sorted(SOFTWARE)))


def _item(tmp_path: Path) -> tuple[Path, Path]:
    """A candidate directory with its answer, and a workspace holding a public copy."""
    options = {"A": "1.0", "B": "2.0", "C": "3.0", "D": "4.0"}
    item = tmp_path / "runs" / "item-0001"
    item.mkdir(parents=True)
    (item / "options.json").write_text(json.dumps(options))
    (item / "answer.txt").write_text("C\n")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "options.json").write_text(json.dumps(options))
    return item, ws


@needs_bwrap
@pytest.mark.parametrize("preload", [(), ("json",)], ids=["cold", "warm"])
def test_answer_hunt_finds_nothing(tmp_path: Path, preload: tuple[str, ...]) -> None:
    _, ws = _item(tmp_path)
    result = run_python(HUNT, workspace=ws, preload=preload)
    assert result.ok, result.reason
    assert result.stdout.strip() == "none"
    assert result.isolated


def test_answer_hunt_works_without_isolation(tmp_path: Path, unisolated: None) -> None:
    _, ws = _item(tmp_path)
    result = run_python(HUNT, workspace=ws)
    assert result.stdout.strip() == "C"
    assert not result.isolated and result.isolation.startswith("none")


ENVIRON_SCAN = textwrap.dedent(
    """
    import os
    hits = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                env = open(f"/proc/{pid}/environ", "rb").read().decode(errors="replace")
                cmd = open(f"/proc/{pid}/cmdline", "rb").read().decode(errors="replace")
            except OSError:
                continue
            for part in env.split("\\0") + [cmd]:
                if "OPENAI_API_KEY=" in part or "item-0001" in part:
                    hits.append(part)
    print(hits)
    """
)


@pytest.fixture
def key_holder(tmp_path: Path):
    """A host process standing in for `scigate`: a key in its environment and a run
    directory on its command line."""
    key = "sk-attack-" + os.urandom(8).hex()
    proc = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)", str(tmp_path / "runs" / "item-0001")],
        env={**os.environ, "OPENAI_API_KEY": key},
    )
    yield key
    proc.kill()
    proc.wait()


@needs_bwrap
def test_host_processes_environ_and_cmdline_are_out_of_sight(
    tmp_path: Path, key_holder: str
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    result = run_python(ENVIRON_SCAN, workspace=ws)
    assert result.ok, result.reason
    assert result.stdout.strip() == "[]"


def test_environ_scan_and_redaction_without_isolation(
    tmp_path: Path, key_holder: str, unisolated: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    monkeypatch.setenv("OPENAI_API_KEY", key_holder)  # the caller's own credential
    result = run_python(
        ENVIRON_SCAN + "\nimport sys; print('" + key_holder + "', file=sys.stderr)", workspace=ws
    )
    assert "OPENAI_API_KEY=[redacted OPENAI_API_KEY]" in result.stdout  # found it...
    assert "item-0001" in result.stdout
    assert key_holder not in result.stdout + result.stderr  # ...but never shows it
    assert "[redacted OPENAI_API_KEY]" in result.stderr_tail()


ESCAPE = textwrap.dedent(
    """
    import json, os, socket, sys
    targets = json.loads(sys.argv[1])
    done = {}
    for name, path in targets["write"].items():
        try:
            with open(path, "w") as f:
                f.write("pwned")
            done[name] = True
        except OSError:
            done[name] = False
    for name, path in targets["read"].items():
        try:
            open(path, "rb").read(1)
            done[name] = True
        except OSError:
            done[name] = False
    for name, address in targets["connect"].items():
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect(address if not address.startswith("@") else "\\0" + address[1:])
            done[name] = True
        except OSError:
            done[name] = False
        finally:
            s.close()
    print(json.dumps(done))
    """
)


@pytest.fixture
def targets(tmp_path: Path):
    """Files and sockets of the host an escaping script would go for."""
    import scigate

    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.txt"
    secret.write_text("host secret")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(outside / "host.sock"))
    listener.listen(1)
    abstract = socket.socket(socket.AF_UNIX)
    name = "scigate-test-" + os.urandom(4).hex()
    abstract.bind("\0" + name)
    abstract.listen(1)
    source = Path(scigate.__file__).parent / f".pwned-{os.getpid()}"
    spec = {
        "write": {"tmp": str(outside / "dropped.txt"), "source": str(source)},
        "read": {"file": str(secret)},
        "connect": {"unix": str(outside / "host.sock"), "abstract": "@" + name},
    }
    if os.geteuid() == 0 and Path("/etc/shadow").exists():
        spec["read"]["shadow"] = "/etc/shadow"
    yield spec
    listener.close()
    abstract.close()
    source.unlink(missing_ok=True)


def _escape(ws: Path, targets: dict) -> dict:
    """What the script managed, as seen from the host (a write inside the sandbox's own
    root would not count as an escape)."""
    (ws / "escape.py").write_text(ESCAPE)
    result = run(["python", "escape.py", json.dumps(targets)], workspace=ws)
    assert result.ok, result.reason
    done = json.loads(result.stdout)
    for name, path in targets["write"].items():
        done[name] = done[name] and Path(path).is_file() and Path(path).read_text() == "pwned"
    return done


@needs_bwrap
def test_no_write_read_or_connect_outside_the_workspace(ws: Path, targets: dict) -> None:
    done = _escape(ws, targets)
    assert done and not any(done.values()), done


def test_escapes_work_without_isolation(ws: Path, targets: dict, unisolated: None) -> None:
    done = _escape(ws, targets)
    assert all(done.values()), done


@pytest.mark.parametrize("preload", [(), ("json",)], ids=["cold", "warm"])
def test_disk_filler_is_stopped_at_the_workspace_limit(ws: Path, preload: tuple) -> None:
    limit = 32 << 20
    code = "b = b'x' * (1 << 20)\nwith open('big', 'wb') as f:\n    while True: f.write(b)\n"
    result = run_python(code, workspace=ws, limits=Limits(workspace_bytes=limit), preload=preload)
    assert not result.ok and result.workspace_exceeded
    assert result.reason.startswith("exceeded the workspace limit of 32 MiB")
    assert (ws / "big").stat().st_size <= limit
    many = "import os\nfor i in range(10**6): open(f'f{i}', 'w').write('x' * 4096)\n"
    spread = run_python(many, workspace=ws, limits=Limits(workspace_bytes=limit, wall_seconds=60))
    assert spread.workspace_exceeded, spread.reason


def test_without_the_limit_the_filler_writes_past_it(ws: Path) -> None:
    code = "with open('big', 'wb') as f:\n    f.write(b'x' * (48 << 20))\n"
    result = run_python(code, workspace=ws, limits=Limits(workspace_bytes=1 << 40))
    assert result.ok and (ws / "big").stat().st_size == 48 << 20


SUPERVISOR_KILLER = textwrap.dedent(
    """
    import os, signal, time
    supervisor = os.getppid()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.kill(supervisor, signal.SIGKILL)
            time.sleep(60)
        os._exit(0)
    time.sleep(60)
    """
)


@needs_bwrap
def test_killing_the_supervisor_leaves_nothing_behind(ws: Path, mark) -> None:
    token, env = mark
    result = run_python(SUPERVISOR_KILLER, workspace=ws, env=env, limits=Limits(wall_seconds=30))
    assert not result.ok
    assert wait_gone(token) == []


def test_killing_the_supervisor_without_isolation_leaves_a_survivor(
    ws: Path, mark, unisolated: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without bwrap's PID namespace and without a cgroup (whose close kills every task
    left in it) a double-forked process outlives the run."""
    from scigate.sandbox import _limits

    monkeypatch.setattr(_limits, "cgroup_status", lambda: (None, "switched off for a test"))
    token, env = mark
    run_python(SUPERVISOR_KILLER, workspace=ws, env=env, limits=Limits(wall_seconds=30))
    survivors = marked_pids(token)
    try:
        assert survivors  # the double-forked process outlived the verdict
    finally:
        for pid in survivors:
            os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(
    __import__("scigate.sandbox._cgroup", fromlist=["x"]).cgroup_status()[0] is None,
    reason="no per-run cgroups on this machine",
)
def test_a_run_cgroup_leaves_no_survivor_even_without_isolation(
    ws: Path, mark, unisolated: None
) -> None:
    token, env = mark
    run_python(SUPERVISOR_KILLER, workspace=ws, env=env, limits=Limits(wall_seconds=30))
    assert wait_gone(token) == []


def test_unisolated_runs_are_refused_unless_allowed(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_isolation, "bwrap_status", lambda: (None, "bwrap not installed"))
    monkeypatch.delenv("SCIGATE_ALLOW_UNISOLATED", raising=False)
    with pytest.raises(IsolationUnavailable, match="--allow-unisolated"):
        run_python("print(1)", workspace=ws)
    with pytest.raises(IsolationUnavailable):
        run_python("print(1)", workspace=ws, preload=("json",))
    monkeypatch.setenv("SCIGATE_ALLOW_UNISOLATED", "1")
    allowed = run_python("print(1)", workspace=ws)
    assert allowed.ok and allowed.isolation.startswith("none: bwrap not installed")


@needs_bwrap
def test_isolation_is_recorded_and_the_inside_is_minimal(ws: Path) -> None:
    code = textwrap.dedent(
        """
        import os
        print(os.getuid(), os.getgid(), os.getcwd(), len([p for p in os.listdir('/proc')
              if p.isdigit()]), sorted(os.listdir('/sandbox')), os.path.exists('/etc/shadow'))
        """
    )
    result = run_python(code, workspace=ws)
    uid, gid, cwd, nprocs, sandbox, shadow = result.stdout.split(" ", 5)
    assert (uid, gid, cwd) == ("65534", "65534", "/sandbox/workspace")
    assert int(nprocs) <= 4  # bwrap's init, the supervisor, the script
    assert sandbox.startswith("['workspace']") and shadow.strip() == "False"
    assert result.isolation.startswith("bwrap: user (uid 65534), pid, ipc, uts, net")
