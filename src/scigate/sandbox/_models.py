"""Records that cross the sandbox boundary: the limits asked for and the result."""

from __future__ import annotations

from pydantic import BaseModel, Field

DEFAULT_MEMORY_BYTES = 8 << 30
"""8 GiB of address space: a small DOLFINx/PETSc script maps about 0.6 GiB of virtual
memory (VmPeak measured with DOLFINx 0.11) and MPI/BLAS threads reserve more, so the
limit leaves room for real problems while still stopping a runaway allocation."""


DEFAULT_WORKSPACE_BYTES = 1 << 30
"""1 GiB per workspace: a FEniCSx item writes kilobytes to megabytes (meshes, XDMF
output); a runaway writer is stopped long before it fills the disk."""

DEFAULT_TMP_BYTES = 256 << 20
"""256 MiB of memory-backed private /tmp (and /dev/shm, which MPI uses)."""


class Limits(BaseModel):
    """Resource limits for one sandboxed run."""

    wall_seconds: float = Field(300.0, gt=0)
    cpu_seconds: float | None = Field(None, gt=0)
    memory_bytes: int | None = Field(DEFAULT_MEMORY_BYTES, gt=0)
    max_processes: int | None = Field(256, gt=0)
    output_bytes: int = Field(1 << 20, gt=0)
    #: bytes the run may keep in its workspace (and the largest file it may write)
    workspace_bytes: int = Field(DEFAULT_WORKSPACE_BYTES, gt=0)
    #: size of the run's private /tmp and /dev/shm (memory-backed) under isolation
    tmp_bytes: int = Field(DEFAULT_TMP_BYTES, gt=0)
    #: network access; the run is isolated in every other way all the same
    network: bool = False
    #: run without bubblewrap on the caller's explicit request (the user's own trusted
    #: program, e.g. `--solver-cmd-unsandboxed`); recorded in the result
    unisolated: bool = False
    #: host paths the run may read (bound read-only at the same path), e.g. the script
    #: an external solver command names
    read_only_paths: tuple[str, ...] = ()


class SandboxResult(BaseModel):
    """What happened to one sandboxed command, with a plain-words `reason`."""

    command: list[str]
    exit_code: int | None
    stdout: str
    stderr: str
    stdout_truncated: bool
    stderr_truncated: bool
    timed_out: bool
    signal: int | None
    seconds: float
    peak_memory_bytes: int | None
    memory_exceeded: bool
    network_isolated: bool
    reason: str
    #: the isolation the run had: "bwrap: ..." or "none: why"
    isolation: str = "none"
    workspace_exceeded: bool = False
    #: compiled FFCx modules the run loaded from the shared forms cache (module name ->
    #: cache key, each checked against the entry); `form_map_env(forms)` lets a later
    #: run of the same candidate load them without generating their C text
    forms: dict[str, str] = Field(default_factory=dict)

    @property
    def isolated(self) -> bool:
        """True when the run was isolated by bubblewrap (namespaces, read-only system)."""
        return self.isolation.startswith("bwrap")

    @property
    def ok(self) -> bool:
        """True when the command exited with status 0 and was not timed out."""
        return self.exit_code == 0 and not self.timed_out

    def stderr_tail(self, lines: int = 10) -> str:
        """The last `lines` non-empty lines of stderr."""
        kept = [line for line in self.stderr.splitlines() if line.strip()]
        return "\n".join(kept[-lines:]) if lines > 0 else ""
