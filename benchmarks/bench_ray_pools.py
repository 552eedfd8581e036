"""Warm sandbox pools on Ray: one per worker process (the baseline) vs one actor per node.

Runs the template gate run of `bench_executor.py` (FEniCSx templates, --seed 0, N
candidates) on a local Ray with k workers in two modes: with `node_pools=False` every Ray worker
process starts its own warm FEniCSx servers; with `node_pools=True` (the default) the
runs go to the node's pool actor. Each mode runs --repeat times on a fresh Ray, the modes
alternating (the load of a shared machine drifts). Reports candidates per minute (best
run; the median too), how many warm servers the workers of one run started (cold starts:
each one imports dolfinx; the driver's own servers, for its invariance runs, are the
same in both and not counted), how many are alive at the end and their resident memory,
and, from one worker, the cost per run of the extra hop to the actor (trivial warm runs
through the actor minus the same runs in the worker's own pool). Every run must reach
the same funnel (checked); an untimed local run first fills the FFCx form cache.

    .venv/bin/python benchmarks/bench_ray_pools.py [--candidates 20] [--workers 2] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path

from bench_executor import gate_run, per_job

from scigate.executor import Job


def _warm_servers() -> set[int]:
    """Pids of the warm server interpreters of this run's Ray workers and actors (under
    the raylet this process started; bwrap wrappers, the runs forked from a server and
    this driver's own servers not counted)."""
    parents: dict[int, int] = {}
    commands: dict[int, list[bytes]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            argv = Path(f"/proc/{name}/cmdline").read_bytes().split(b"\0")
            stat = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(name)], commands[int(name)] = int(stat[1]), argv
    servers = {
        pid
        for pid, argv in commands.items()
        if any(a.endswith(b"_warm_server.py") for a in argv) and not argv[0].endswith(b"bwrap")
    }
    # a run is forked from its server, so it shows the server's command line: skip those
    servers = {pid for pid in servers if parents.get(pid) not in servers}
    me = os.getpid()

    def under_our_raylet(pid: int) -> bool:
        while pid > 1 and parents.get(pid) != me:
            pid = parents.get(pid, 0)
        return pid > 1 and any(b"raylet" in a for a in commands.get(pid, [])[:1])

    return {pid for pid in servers if under_our_raylet(pid)}


def _rss_mib(pids: set[int]) -> float:
    """Resident memory of `pids` together, MiB."""
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


class ServerCounter:
    """Samples the warm servers while a run goes on: every pid seen, and those alive."""

    def __init__(self) -> None:
        self.seen: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(0.25):
            self.seen |= _warm_servers()

    def __enter__(self) -> ServerCounter:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.seen |= _warm_servers()


def hop_cost(runs: int) -> tuple[float, float]:
    """(seconds per trivial warm run through the node's pool actor, the same in this
    worker process's own pool), each after a first untimed run."""
    from scigate.executor._pools import installed_pools
    from scigate.sandbox import run_python, set_warm_delegate, stop_warm_servers

    ws = Path(tempfile.mkdtemp(prefix="scigate-bench-"))

    def per_run() -> float:
        assert run_python("pass", workspace=ws, preload=("json",)).ok
        start = time.perf_counter()
        for _ in range(runs):
            assert run_python("pass", workspace=ws, preload=("json",)).ok
        return (time.perf_counter() - start) / runs

    pools = installed_pools()
    assert pools is not None, "no node pools installed in this worker"
    via_actor = per_run()
    set_warm_delegate(None)
    try:
        here = per_run()
    finally:
        set_warm_delegate(pools, pools.name)
        stop_warm_servers()
    return via_actor, here


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--candidates", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2, help="Ray workers (CPUs)")
    parser.add_argument("--hop-runs", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3, help="fresh runs per mode")
    args = parser.parse_args()
    from scigate.executor._ray import RayExecutor

    _, funnel = gate_run(args.candidates, None)  # warm-up: FFCx form cache, imports
    runs: dict[bool, list[tuple[float, int, int, float]]] = {False: [], True: []}
    hop = None
    for round_ in range(max(1, args.repeat)):
        # modes alternate, each on a fresh Ray: the machine's load drifts between runs
        for node_pools in (False, True) if round_ % 2 == 0 else (True, False):
            ray_ex = RayExecutor(num_cpus=args.workers, node_pools=node_pools)
            try:
                per_job(ray_ex, 8)  # start the worker processes before timing
                with ServerCounter() as servers:
                    seconds, ray_funnel = gate_run(args.candidates, ray_ex)
                    alive = _warm_servers()
                assert ray_funnel == funnel, (ray_funnel, funnel)
                runs[node_pools].append((seconds, len(servers.seen), len(alive), _rss_mib(alive)))
                if node_pools and hop is None:
                    job = Job(id="hop", fn=hop_cost, args=(args.hop_runs,))
                    result = ray_ex.run_all([job])["hop"]
                    assert result.ok, result.error
                    hop = result.value
            finally:
                ray_ex.close()
    print(
        f"template gate run, {args.candidates} candidates, Ray with {args.workers} workers, "
        f"{args.repeat} fresh runs per mode"
    )
    print(f"funnel: {funnel}")
    print(
        f"{'warm pools':<26} {'best s':>7} {'median s':>8} {'cand/min':>9} {'vs base':>8} "
        f"{'servers started':>15} {'alive at end':>12} {'their RSS (MiB)':>15}"
    )
    base = min(r[0] for r in runs[False])
    for node_pools, rows in runs.items():
        name = "one actor per node" if node_pools else "per worker process (base)"
        best = min(r[0] for r in rows)
        started, alive, rss = (max(r[i] for r in rows) for i in (1, 2, 3))
        print(
            f"{name:<26} {best:>7.1f} {statistics.median(r[0] for r in rows):>8.1f} "
            f"{60 * args.candidates / best:>9.1f} {base / best:>7.2f}x "
            f"{started:>15} {alive:>12} {rss:>15.0f}"
        )
    if hop is not None:
        via_actor, here = hop
        print(
            f"trivial warm run: {1000 * via_actor:.1f} ms through the actor, "
            f"{1000 * here:.1f} ms in the worker's own pool: "
            f"hop {1000 * (via_actor - here):.1f} ms per run"
        )


if __name__ == "__main__":
    main()
