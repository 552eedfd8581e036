"""`protections()`: which of the sandbox's protections are active here, for `scigate doctor`.

Kept apart from `_isolation` and `_warm` (it reports on both), so neither imports the other.
"""

from __future__ import annotations

import os

from scigate.sandbox._cgroup import cgroup_status
from scigate.sandbox._delegate import warm_delegation
from scigate.sandbox._isolation import (
    POLL_NOTE,
    RUN_TMPFS_BYTES,
    bwrap_status,
    nested_userns_disabled,
    subreaper_supported,
    unisolated_allowed,
)
from scigate.sandbox._models import Limits
from scigate.sandbox._runner import MAX_ENTRIES
from scigate.sandbox._warm import warm_status


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
    if prefix:
        isolation = f"active ({bwrap_note}; read-only system, private /tmp, no host files)"
    elif unisolated_allowed():
        isolation = f"unavailable: {bwrap_note}; runs go ahead UNISOLATED (allowed)"
    else:
        isolation = f"unavailable: {bwrap_note}; untrusted runs are refused (--allow-unisolated)"
    return {
        "isolation (bwrap)": isolation,
        "workspace binding": (
            "active (bound by descriptor, never by a path a run can rename; a warm run's "
            "files are moved into its server's own slot by name and back; a symlinked "
            "workspace is refused)"
            if prefix
            else "unavailable: unisolated runs see the whole file system"
        ),
        "software binds": (
            "active (explicit list: the interpreter, the virtualenv, site-packages and the "
            "paths their .pth files add; never sys.path[0], the caller's directory or home)"
            if prefix
            else "unavailable: unisolated runs see the caller's files"
        ),
        "warm run reset": (
            "active (after every warm run: /tmp, /dev/shm, /run and /dev/mqueue emptied, "
            "inherited descriptors closed, shared mappings restored, SysV IPC objects "
            "and keyrings cleared; a server that cannot be cleared is replaced)"
            if prefix
            else "unavailable: unisolated warm runs share the caller's /tmp"
        ),
        "process group": "active (own process group, killed whole on timeout)",
        "subreaper": (
            "active (supervisor is PR_SET_CHILD_SUBREAPER; setsid descendants are reaped)"
            if subreaper_supported()
            else "unavailable: prctl(PR_SET_CHILD_SUBREAPER) not supported"
        ),
        "run cgroup": _cgroup_note(defaults),
        "descendant kill": "active (process group + /proc walk of the supervisor's descendants)",
        "wall clock": f"active (default {defaults.wall_seconds:g} s)",
        "rlimit_as": f"active (default {_memory(defaults.memory_bytes)})",
        "rlimit_cpu": "active (when Limits.cpu_seconds is set)",
        "process count": f"active ({POLL_NOTE}; {nproc_note}, so it is not used)",
        "output cap": f"active ({defaults.output_bytes} bytes per stream)",
        "workspace size": (
            f"active (default {defaults.workspace_bytes >> 20} MiB: RLIMIT_FSIZE per file, "
            f"usage checked every poll; at most {MAX_ENTRIES:,} files and directories; private /tmp "
            f"and /dev/shm {defaults.tmp_bytes >> 20} MiB each, /run {RUN_TMPFS_BYTES >> 20} MiB)"
        ),
        "environment": (
            "active (built from an allow-list: locale, thread settings, the paths the "
            "software needs; the caller's other variables never reach a run)"
        ),
        "secret redaction": (
            "active (the values of the caller's credential variables, by name or by known "
            "key format, and their base64, hex and URL-encoded forms, removed from captured "
            "output, the run database, evaluation files and printed output)"
        ),
        "jit cache": (
            "active (shared FFCx cache read-only in runs, filled only by trusted processes; "
            "a run loads a compiled form only under the hash of the C text it generated "
            "and of its secret scope (one candidate's runs, one agent's episode), "
            "compiled by a trusted sandboxed step, else compiles into its own workspace; "
            "runs cannot list the compiled forms, nor tell whether another scope's run "
            "had some form compiled, nor lock the cache's lock file)"
            if prefix and nested_userns_disabled()
            else "active (shared FFCx cache read-only in runs; compiled forms are not shared: "
            "this bwrap cannot keep a run from listing them from a user namespace of its own)"
            if prefix
            else "unavailable: unisolated runs can write the shared FFCx cache"
        ),
        "nested user namespaces": (
            "active (a run cannot make a user namespace of its own, where it would hold "
            "capabilities over its uid's files, e.g. to list the sealed forms cache)"
            if prefix and nested_userns_disabled()
            else "unavailable: "
            + (
                "this bwrap has no --disable-userns (0.8.0 and newer have it)"
                if prefix
                else "unisolated runs"
            )
        ),
        "supervisor ptrace": (
            "active (supervisors and warm servers are non-dumpable: a run can neither "
            "ptrace them nor read their /proc/PID/mem or environ)"
            if prefix
            else "unavailable: supervisors are non-dumpable, but an unisolated run keeps the "
            "caller's capabilities (as root it can trace anything)"
        ),
        "network (bwrap)": f"active ({bwrap_note})" if prefix else f"unavailable: {bwrap_note}",
        "warm pool": warm_pool_note(),
    }


def _memory(limit: int | None) -> str:
    return f"{limit / (1 << 30):.1f} GiB" if limit else "unlimited"


def _cgroup_note(defaults: Limits) -> str:
    version, note = cgroup_status()
    if version is None:
        return (
            f"unavailable: {note}; runs keep the per-process limits (address space, the "
            "supervisor's process count, RLIMIT_CPU), and every result says so"
        )
    return (
        f"active ({note}; per run: memory {_memory(defaults.memory_bytes)} over "
        f"RSS, tmpfs and memfd together, {defaults.max_processes} tasks with threads "
        "counted, CPU of every process)"
    )


def warm_pool_note() -> str:
    """The warm servers of this process in one line (see `scigate.sandbox._warm`), after
    where its warm runs go when a delegate (a Ray node's pool actor) takes them."""
    delegation = warm_delegation()
    own = _own_pools_note()
    if delegation is None:
        return own
    note = (
        f"{delegation['name'] or 'a shared pool'}: {delegation['delegated']} runs, "
        f"{delegation['lost']} lost with its process (retried by the executor)"
    )
    if delegation["here"] or delegation["failure"]:
        note += (
            f"; {delegation['here']} ran in this process's own pool instead "
            f"({delegation['failure'] or 'earlier failure'})"
        )
    status, _, rest = own.partition(" ")
    return f"{status} (warm runs go to {note}; own pools: {rest.strip('()')})"


def _own_pools_note() -> str:
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
