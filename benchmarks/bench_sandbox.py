"""Sandbox cost per run, cold and warm, against a plain `subprocess.run`.

Two scripts: an empty one (pure overhead) and a small DOLFINx Poisson solve (what
ToolGate's verifier and the coding agent mostly run). Runners: plain `subprocess.run`
of `python script.py`; the sandbox cold (a fresh interpreter under the supervisor, with
full bubblewrap isolation and unisolated); the sandbox warm (`preload=` the DOLFINx
modules: the run is forked from a server that imported them once, with the workspace
moved into the server's slot under isolation). N rounds each, median wall time in ms;
"isolation cost" is isolated minus unisolated for the same mode. The script's forms are
first compiled by a trusted process into the shared JIT cache (as the template worker
does for template candidates), so the runs, which see that cache read-only, find them;
"fresh workspace" runs each start from an empty workspace (as every verification does),
so they compile nothing only if the shared cache is used.

The cost of the sandbox's protections against an earlier implementation: with
`--baseline=SRC` (the `src` directory of another checkout, e.g. `git worktree add
/tmp/before <commit>` and `--baseline=/tmp/before/src`) every run alternates with the same
run in a worker process importing scigate from SRC, on the same machine load, and the
table adds the baseline's median and the difference per run ("cost of new
protections": descriptor binds, the per-run cgroup, the warm servers' reset).

Run by hand: `.venv/bin/python benchmarks/bench_sandbox.py [N] [--baseline=SRC]`.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from scigate.sandbox import (
    Limits,
    fresh_workspace,
    protections,
    run_python,
    stop_warm_servers,
    trusted_jit_env,
    warm_status,
)

PRELOAD = ("dolfinx_solver", "dolfinx", "dolfinx.fem.petsc", "ufl", "basix")
POISSON = textwrap.dedent(
    """
    import dolfinx_solver  # noqa: F401
    import numpy as np
    import ufl
    from dolfinx import fem, mesh
    from dolfinx.fem.petsc import LinearProblem
    from mpi4py import MPI

    msh = mesh.create_unit_square(MPI.COMM_WORLD, 12, 12)
    V = fem.functionspace(msh, ("Lagrange", 1))
    u, v = ufl.TrialFunction(V), ufl.TestFunction(V)
    x = ufl.SpatialCoordinate(msh)
    facets = mesh.locate_entities_boundary(msh, 1, lambda x: np.full(x.shape[1], True))
    bc = fem.dirichletbc(0.0, fem.locate_dofs_topological(V, 1, facets), V)
    uh = LinearProblem(
        ufl.inner(ufl.grad(u), ufl.grad(v)) * ufl.dx, (1 + x[0] * x[1]) * v * ufl.dx, bcs=[bc],
        petsc_options_prefix="p_", petsc_options={"ksp_type": "preonly", "pc_type": "lu"},
    ).solve()
    print(f"{fem.assemble_scalar(fem.form(uh * ufl.dx)):.10f}")
    """
)


def make_runners(source: str, cache: Path, ws: Path) -> dict[str, object]:
    """The runners of one script, each a callable doing one run (`ws` holds the script)."""
    script = ws / "script.py"
    script.write_text(source)
    isolated, open_net = Limits(), Limits(unisolated=True)
    trusted = {**os.environ, **trusted_jit_env(cache)}  # our own script: a trusted warm-up
    subprocess.run(
        [sys.executable, str(script)], cwd=ws, env=trusted, check=True, capture_output=True
    )

    def fresh(**kwargs: object) -> object:
        one = fresh_workspace(parent=ws.parent)
        (one / "script.py").write_text(source)
        try:
            return run_python(script=Path("script.py"), workspace=one, cache_dir=cache, **kwargs)
        finally:
            shutil.rmtree(one, ignore_errors=True)

    return {
        "plain subprocess.run": lambda: subprocess.run(
            [sys.executable, str(script)],
            cwd=ws,
            capture_output=True,
            check=True,
            env={**trusted, "PATH": "/usr/bin:/bin"},
        ),
        "sandbox cold, isolated": lambda: run_python(
            script=script, workspace=ws, limits=isolated, cache_dir=cache
        ),
        "sandbox cold, unisolated": lambda: run_python(
            script=script, workspace=ws, limits=open_net, cache_dir=cache
        ),
        "sandbox warm, isolated": lambda: run_python(
            script=script, workspace=ws, limits=isolated, cache_dir=cache, preload=PRELOAD
        ),
        "sandbox warm, unisolated": lambda: run_python(
            script=script, workspace=ws, limits=open_net, cache_dir=cache, preload=PRELOAD
        ),
        "sandbox warm, isolated, fresh workspace": lambda: fresh(limits=isolated, preload=PRELOAD),
        "sandbox cold, isolated, fresh workspace": lambda: fresh(limits=isolated),
    }


def timed(call: object) -> tuple[float, str]:
    """(ms, stdout) of one call."""
    start = time.perf_counter()
    result = call()  # type: ignore[operator]
    ms = (time.perf_counter() - start) * 1000
    return ms, result.stdout if isinstance(result.stdout, str) else ""


class Baseline:
    """This benchmark run as a worker under another scigate source tree (`--baseline`,
    e.g. a checkout of the previous main), timing one run per request, so the two
    implementations take turns on the same machine load."""

    def __init__(self, src: Path, script: str, cache: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(src)}
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", script, str(cache)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert self.proc.stdout is not None and self.proc.stdin is not None
        self.where = self.proc.stdout.readline().strip()

    def time(self, runner: str) -> tuple[float, str]:
        """(ms, stdout) of one run of `runner` in the baseline."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(runner + "\n")
        self.proc.stdin.flush()
        ms, _, out = self.proc.stdout.readline().rstrip("\n").partition(" ")
        return float(ms), out.replace("\\n", "\n")

    def close(self) -> None:
        """End the worker."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def worker(script_name: str, cache: Path) -> None:
    """`--worker`: time runs of the named runners read from stdin, one per line."""
    import scigate

    print(Path(scigate.__file__).resolve().parent, flush=True)
    ws = fresh_workspace()
    runners = make_runners(SCRIPTS[script_name], cache, ws)
    try:
        for line in sys.stdin:
            ms, out = timed(runners[line.strip()])
            print(f"{ms:.3f} {out.strip()}".replace("\n", "\\n"), flush=True)
    finally:
        stop_warm_servers()
        shutil.rmtree(ws, ignore_errors=True)


def bench(name: str, n: int, cache: Path, baseline_src: Path | None) -> None:
    """Print median ms per run of `SCRIPTS[name]` for every runner, and ratios; with a
    baseline, each run alternates with the same run of the baseline."""
    ws = fresh_workspace()
    runners = make_runners(SCRIPTS[name], cache, ws)
    base = Baseline(baseline_src, name, cache) if baseline_src else None
    times: dict[str, list[float]] = {runner: [] for runner in runners}
    before: dict[str, list[float]] = {runner: [] for runner in runners}
    outputs: dict[str, str] = {}
    try:
        for runner, call in runners.items():  # warm-up: imports, bwrap probe, FFCx, servers
            outputs[runner] = timed(call)[1]
            if base is not None:
                outputs["baseline " + runner] = base.time(runner)[1]
        for _ in range(n):  # runners take turns, so load from elsewhere hits all alike
            for runner, call in runners.items():
                times[runner].append(timed(call)[0])
                if base is not None:
                    before[runner].append(base.time(runner)[0])
    finally:
        if base is not None:
            base.close()
        shutil.rmtree(ws, ignore_errors=True)
    sandboxed = {outputs[r].strip() for r in outputs if "sandbox" in r}
    assert len(sandboxed) == 1, outputs  # cold and warm, before and after, print the same
    plain = statistics.median(times["plain subprocess.run"])
    cold = statistics.median(times["sandbox cold, isolated"])
    print(f"{name}, {n} rounds, median wall time per run")
    if base is not None:
        print(f"  baseline: {base.where}")
    for runner, samples in times.items():
        ms = statistics.median(samples)
        line = f"  {runner:40s} {ms:8.1f} ms   {ms / plain:5.2f}x plain   {ms / cold:5.2f}x cold"
        if base is not None:
            old = statistics.median(before[runner])
            line += f"   baseline {old:8.1f} ms   cost of new protections {ms - old:+7.1f} ms"
        print(line)
    for mode in ("cold", "warm"):
        cost = statistics.median(times[f"sandbox {mode}, isolated"]) - statistics.median(
            times[f"sandbox {mode}, unisolated"]
        )
        print(f"  isolation cost, {mode}: {cost:+.1f} ms per run")


SCRIPTS = {"empty python script": "", "small DOLFINx Poisson solve (12x12 P1, LU)": POISSON}


def main(n: int = 20, baseline_src: Path | None = None) -> None:
    cache = Path(tempfile.mkdtemp(prefix="scigate-bench-cache-"))
    try:
        for name in SCRIPTS:
            bench(name, n, cache, baseline_src)
        pools = warm_status()
        print(f"warm servers: {sum(len(p['servers']) for p in pools)} in {len(pools)} pools")
    finally:
        stop_warm_servers()
        shutil.rmtree(cache, ignore_errors=True)
    notes = protections()
    for name in ("isolation (bwrap)", "run cgroup", "warm run reset"):
        print(f"{name}: {notes.get(name, 'n/a (this scigate has no such protection)')}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        worker(sys.argv[2], Path(sys.argv[3]))
    else:
        args = [a for a in sys.argv[1:] if not a.startswith("--baseline")]
        base = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--baseline=")), None)
        main(int(args[0]) if args else 20, Path(base) if base else None)
