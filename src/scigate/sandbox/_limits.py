"""Whole-run limits of one sandboxed run: its cgroup, when this machine offers one.

`RunLimits.open(limits)` makes the run's cgroup (`_cgroup.RunCgroup`: memory over RSS,
tmpfs and memfd together, tasks with threads counted, CPU of every process) with the
run's `memory_bytes` and `max_processes`; the run's first process joins it through the
descriptors of `config()` (`_supervisor.join_cgroup`), and the supervisor polls its CPU
counter against `cpu_seconds`. Where no cgroup can be made the run keeps the
per-process limits (rlimits, the supervisor's process count) and its result says so:
`note` goes into `SandboxResult.isolation` either way.
"""

from __future__ import annotations

from scigate.sandbox._cgroup import CgroupError, RunCgroup, cgroup_status
from scigate.sandbox._explain import size
from scigate.sandbox._models import Limits


class RunLimits:
    """One run's cgroup (or none, and why), from creation to the final measurement."""

    def __init__(self, cgroup: RunCgroup | None, note: str) -> None:
        self.cgroup = cgroup
        self.note = note

    @classmethod
    def open(cls, limits: Limits) -> RunLimits:
        """The run's cgroup with its limits, or none (the note says why)."""
        if cgroup_status()[0] is None:
            return cls(None, cls.unavailable_note())
        try:
            group = RunCgroup.create(
                memory_bytes=limits.memory_bytes, max_tasks=limits.max_processes
            )
        except CgroupError as exc:
            return cls(None, f"no cgroup ({exc}): per-process limits only")
        if group is None:
            return cls(None, cls.unavailable_note())
        memory = size(limits.memory_bytes) if limits.memory_bytes else "unlimited"
        tasks = limits.max_processes or "unlimited"
        return cls(
            group,
            f"cgroup {group.version} for the whole run: memory {memory} (RSS, tmpfs, memfd), "
            f"{tasks} tasks (threads count), CPU of every process",
        )

    @staticmethod
    def unavailable_note() -> str:
        """What a result records when the run had no cgroup."""
        return f"no cgroup ({cgroup_status()[1]}): per-process limits only"

    def config(self) -> dict:
        """The supervisor's config entries: descriptors to join, the CPU counter."""
        if self.cgroup is None:
            return {}
        return {"cgroup_fds": self.cgroup.join_fds(), "usage_fd": self.cgroup.usage_fd()}

    def fds(self) -> tuple[int, ...]:
        """Every descriptor the run's supervisor needs passed (join fds, CPU counter)."""
        if self.cgroup is None:
            return ()
        usage = self.cgroup.usage_fd()
        return (*self.cgroup.join_fds(), *([usage] if usage is not None else []))

    def report(self) -> dict:
        """The cgroup's measurements (`RunCgroup.report`); empty without a cgroup."""
        return self.cgroup.report() if self.cgroup is not None else {}

    def close(self) -> None:
        """Kill what is left of the run and remove its cgroup (idempotent)."""
        if self.cgroup is not None:
            self.cgroup.close()
