"""Which protections work on this machine: bubblewrap network isolation, subreaper."""

from __future__ import annotations

import ctypes
import functools
import os
import shutil
import subprocess

from scigate.sandbox._models import Limits

PR_GET_CHILD_SUBREAPER = 37
POLL_NOTE = "supervisor counts descendants every 0.02-0.2 s and kills the whole tree"


@functools.cache
def bwrap_status() -> tuple[list[str] | None, str]:
    """The bwrap command prefix that cuts the network, or None and why it cannot."""
    exe = shutil.which("bwrap")
    if exe is None:
        return None, "bwrap not installed (apt-get install bubblewrap)"
    prefix = [exe, "--dev-bind", "/", "/", "--unshare-net", "--"]
    try:
        probe = subprocess.run(
            [*prefix, "/bin/true"], capture_output=True, text=True, timeout=20, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"bwrap does not run here: {exc}"
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["no message"])[-1]
        return None, f"bwrap cannot create a network namespace here: {last}"
    return prefix, f"{exe} --unshare-net"


@functools.cache
def subreaper_supported() -> bool:
    """True when prctl(PR_GET_CHILD_SUBREAPER) works (Linux >= 3.4); only reads."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        value = ctypes.c_int(0)
        return libc.prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(value), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def protections() -> dict[str, str]:
    """Protection name -> "active ..." or "unavailable: why", for `scigate doctor`.

    Every value starts with either "active" or "unavailable:".
    """
    defaults = Limits()
    prefix, bwrap_note = bwrap_status()
    root = os.geteuid() == 0
    nproc_note = (
        "RLIMIT_NPROC is not enforced for root" if root else "RLIMIT_NPROC counts all user threads"
    )
    return {
        "process group": "active (own process group, killed whole on timeout)",
        "subreaper": (
            "active (supervisor is PR_SET_CHILD_SUBREAPER; setsid descendants are reaped)"
            if subreaper_supported()
            else "unavailable: prctl(PR_SET_CHILD_SUBREAPER) not supported"
        ),
        "descendant kill": "active (process group + /proc walk of the supervisor's descendants)",
        "wall clock": f"active (default {defaults.wall_seconds:g} s)",
        "rlimit_as": f"active (default {defaults.memory_bytes / (1 << 30):.1f} GiB)",
        "rlimit_cpu": "active (when Limits.cpu_seconds is set)",
        "process count": f"active ({POLL_NOTE}; {nproc_note}, so it is not used)",
        "output cap": f"active ({defaults.output_bytes} bytes per stream)",
        "env scrub": "active (keys, tokens, passwords, cloud credentials removed)",
        "network (bwrap)": f"active ({bwrap_note})" if prefix else f"unavailable: {bwrap_note}",
        "warm pool": warm_pool_note(),
    }


def warm_pool_note() -> str:
    """The warm servers of this process in one line (see `scigate.sandbox._warm`)."""
    from scigate.sandbox._warm import warm_status

    pools = warm_status()
    if not pools:
        return "active (run_python(preload=...) forks runs from warm servers; none started yet)"
    notes = []
    for pool in pools:
        where = "bwrap" if pool["network_isolated"] else "no bwrap"
        note = (
            f"{','.join(pool['preload'])} ({where}): {len(pool['servers'])}/{pool['size']} "
            f"servers, {pool['started']} started, {pool['replaced']} replaced"
        )
        if pool["failure"]:
            note += f", {pool['fallbacks']} cold fallbacks: {pool['failure']}"
        notes.append(note)
    if all(pool["failure"] and not pool["servers"] for pool in pools):
        return "unavailable: runs fall back to cold; " + "; ".join(notes)
    return f"active ({'; '.join(notes)})"
