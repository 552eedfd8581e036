"""Turn the supervisor's raw outcome into flags and one plain-words reason."""

from __future__ import annotations

import re
import signal as signals

_OOM_TEXT = re.compile(
    r"MemoryError|std::bad_alloc|Cannot allocate memory|out of memory|Unable to allocate"
    r"|failed to map segment|mmap failed|ENOMEM|memory exhausted",
    re.IGNORECASE,
)
_FATAL_SIGNALS = {signals.SIGKILL, signals.SIGSEGV, signals.SIGABRT, signals.SIGBUS}


def size(n: int) -> str:
    """Bytes in words: '2.0 GiB' from 1 GiB up, else '512 MiB'."""
    return f"{n / (1 << 30):.1f} GiB" if n >= 1 << 30 else f"{n / (1 << 20):.0f} MiB"


def signal_name(number: int) -> str:
    """'SIGSEGV' for 11; 'signal 99' for numbers Python does not name."""
    try:
        return signals.Signals(number).name
    except ValueError:
        return f"signal {number}"


def memory_exceeded(
    *, ok: bool, limit: int | None, stderr: str, sig: int | None, peak: int | None
) -> bool:
    """A failed run that hit its memory limit: an allocation error, or a fatal signal
    while its resident memory was near the limit."""
    if ok or not limit:
        return False
    if _OOM_TEXT.search(stderr[-20000:]):
        return True
    return sig in _FATAL_SIGNALS and peak is not None and peak >= 0.9 * limit


_SEGFAULT_TEXT = re.compile(r"SEGV|Segmentation (fault|Violation)", re.IGNORECASE)


def maybe_memory(
    *, ok: bool, limit: int | None, stderr: str, sig: int | None, peak: int | None
) -> bool:
    """A segmentation fault that may come from the address-space limit.

    Native code (PETSc, BLAS threads) often segfaults instead of reporting a failed
    allocation. Virtual size runs at several times the resident peak, so a segfault
    with a resident peak of a tenth of the limit or more is flagged as possible.
    """
    if ok or not limit or peak is None or peak < limit / 10:
        return False
    return sig == signals.SIGSEGV or bool(_SEGFAULT_TEXT.search(stderr[-20000:]))


def cpu_exceeded(*, sig: int | None, limit: float | None, cpu_seconds: float | None) -> bool:
    """Killed by SIGXCPU, or by SIGKILL at the hard CPU limit."""
    if not limit or sig is None:
        return False
    if sig == signals.SIGXCPU:
        return True
    return sig == signals.SIGKILL and cpu_seconds is not None and cpu_seconds >= limit


def reason(
    *,
    spawn_error: str | None,
    lost: str | None = None,
    cancelled: bool,
    timed_out: bool,
    wall_seconds: float,
    killed: int,
    proc_limit: bool,
    max_processes: int | None,
    memory_hit: bool,
    memory_limit: int | None,
    cpu_hit: bool,
    cpu_limit: float | None,
    exit_code: int | None,
    sig: int | None,
    stderr_tail: str,
    memory_suspect: bool = False,
    disk_limit: bool = False,
    workspace_bytes: int | None = None,
    entries_limit: int | None = None,
    tasks_limit: bool = False,
) -> str:
    """One sentence saying why the run ended."""
    killed_note = f"; killed {killed} process{'es' if killed != 1 else ''}" if killed else ""
    if spawn_error:
        return f"could not start the command: {spawn_error}"
    if cancelled:
        return f"cancelled{killed_note}"
    if timed_out:
        return f"timed out after {wall_seconds:g} s{killed_note}"
    if lost:
        return f"the sandbox lost the run: {lost}"
    if tasks_limit:
        return f"exceeded the limit of {max_processes} tasks (processes and threads){killed_note}"
    if proc_limit:
        return f"exceeded the limit of {max_processes} processes{killed_note}"
    if disk_limit and entries_limit:
        return (
            f"exceeded the workspace limit of {entries_limit:,} files and directories "
            f"(an inode cap){killed_note}"
        )
    if disk_limit or sig == signals.SIGXFSZ:
        return f"exceeded the workspace limit of {size(workspace_bytes or 0)}{killed_note}"
    if memory_hit:
        return f"ran out of memory (limit {size(memory_limit or 0)})"
    if cpu_hit:
        return f"exceeded the CPU time limit ({cpu_limit:g} s)"
    hint = (
        f" (possibly out of memory: a segmentation fault near the {size(memory_limit or 0)} limit)"
        if memory_suspect
        else ""
    )
    if sig is not None:
        return f"killed by signal {signal_name(sig)}{hint}"
    if exit_code == 0:
        return "finished (exit code 0)"
    tail = f": {stderr_tail}" if stderr_tail else " (no output on stderr)"
    return f"crashed with exit code {exit_code}{hint}{tail}"
