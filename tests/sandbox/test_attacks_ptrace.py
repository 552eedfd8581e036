"""A run against its own supervisor or warm server: same uid, so without the defence it can
PTRACE_ATTACH to it and read /proc/PPID/mem and /proc/PPID/environ, and so tamper with
the runs that follow (a warm server serves many). Supervisors and warm servers make
themselves non-dumpable (`_supervisor.deny_ptrace`). Each attack is contained, and the
same attack against a copy of the server code without `deny_ptrace` succeeds, so the
test cannot pass vacuously (this kernel has no Yama to stop ptrace by itself)."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest

from scigate.sandbox import _isolation, _runner, _warm, default_cache_dir, run_python

ISOLATED = _isolation.bwrap_status()[0] is not None
pytestmark = pytest.mark.skipif(
    not ISOLATED, reason="bwrap cannot isolate here (unisolated runs are root: caps win)"
)
SANDBOX_DIR = Path(_runner.__file__).parent
YAMA = Path("/proc/sys/kernel/yama/ptrace_scope")

ATTACK = textwrap.dedent(
    """
    import ctypes, json, os
    ppid = os.getppid()
    libc = ctypes.CDLL(None, use_errno=True)
    got = {}

    def attempt(name, fn):
        try:
            got[name] = fn()
        except OSError as exc:
            got[name] = "denied: " + (exc.strerror or str(exc))

    def environ():
        return "read %d bytes" % len(open("/proc/%d/environ" % ppid, "rb").read())

    def mem():
        first = open("/proc/%d/maps" % ppid).readline()
        start = int(first.split("-")[0], 16)
        with open("/proc/%d/mem" % ppid, "rb") as f:
            f.seek(start)
            return "read %d bytes" % len(f.read(16))

    def attach():
        if libc.ptrace(16, ppid, 0, 0) != 0:  # PTRACE_ATTACH
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        os.waitpid(ppid, 0x40000000)  # __WALL: wait for the attach stop
        libc.ptrace(17, ppid, 0, 0)  # PTRACE_DETACH: let it go on
        return "attached"

    attempt("environ", environ)
    attempt("mem", mem)
    attempt("ptrace", attach)
    print(json.dumps(got))
    """
)


def _attack(ws: Path, preload: tuple[str, ...]) -> dict[str, str]:
    result = run_python(ATTACK, workspace=ws, preload=preload)
    assert result.ok and result.isolated, (result.reason, result.stderr)
    return json.loads(result.stdout)


def _undefended_copy() -> Path:
    """The supervisor and warm server code without `deny_ptrace`, somewhere a sandbox can
    read it (the cache directory is bound into every run)."""
    copy = default_cache_dir() / "undefended"
    copy.mkdir(parents=True, exist_ok=True)
    for name in ("_supervisor.py", "_warm_server.py"):
        shutil.copy(SANDBOX_DIR / name, copy / name)
    sup = copy / "_supervisor.py"
    text = sup.read_text()
    assert "return _prctl(PR_SET_DUMPABLE, 0)" in text
    sup.write_text(text.replace("return _prctl(PR_SET_DUMPABLE, 0)", "return True"))
    return copy


WARM = ("json",)


@pytest.mark.parametrize("preload", [(), WARM], ids=["cold-supervisor", "warm-server"])
def test_a_run_cannot_trace_or_read_its_supervisor(ws: Path, preload) -> None:
    got = _attack(ws, preload)
    assert all(v.startswith("denied") for v in got.values()), got


@pytest.mark.parametrize("preload", [(), WARM], ids=["cold-supervisor", "warm-server"])
def test_without_the_defence_the_attack_works(ws: Path, preload, monkeypatch) -> None:
    copy = _undefended_copy()
    monkeypatch.setattr(_runner, "SUPERVISOR", copy / "_supervisor.py")
    monkeypatch.setattr(_warm, "SERVER", copy / "_warm_server.py")
    got = _attack(ws, preload)
    assert got["environ"].startswith("read") and got["mem"] == "read 16 bytes", got
    if YAMA.exists() and YAMA.read_text().strip() != "0":
        pytest.skip(f"Yama ptrace_scope {YAMA.read_text().strip()} forbids the attach anyway")
    assert got["ptrace"] == "attached", got
    # and the server survived being traced: the next run is served as usual
    assert run_python("print(1)", workspace=ws, preload=preload).stdout == "1\n"
