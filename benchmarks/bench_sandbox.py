"""Sandbox cost per run, cold and warm, against a plain `subprocess.run`.

Two scripts: an empty one (pure overhead) and a small DOLFINx Poisson solve (what
ToolGate's verifier and the coding agent mostly run). Runners: plain `subprocess.run`
of `python script.py`; the sandbox cold (a fresh interpreter under the supervisor, with
full bubblewrap isolation and unisolated); the sandbox warm (`preload=` the DOLFINx
modules: the run is forked from a server that imported them once, with the workspace
moved into the server's area under isolation). N rounds each, median wall time in ms;
"isolation cost" is isolated minus unisolated for the same mode. The script's forms are
first compiled by a trusted process into the shared JIT cache (as the template worker
does for template candidates), so the runs, which see that cache read-only, find them;
"fresh workspace" runs each start from an empty workspace (as every verification does),
so they compile nothing only if the shared cache is used.

Run by hand: `.venv/bin/python benchmarks/bench_sandbox.py [N]`.
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


def bench(name: str, source: str, n: int, cache: Path) -> None:
    """Print median ms per run of `source` for every runner, and ratios."""
    ws = fresh_workspace()
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

    runners = {
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
    times: dict[str, list[float]] = {runner: [] for runner in runners}
    outputs: dict[str, str] = {}
    try:
        for runner, call in runners.items():  # warm-up: imports, bwrap probe, FFCx, servers
            result = call()
            outputs[runner] = result.stdout if isinstance(result.stdout, str) else ""
        for _ in range(n):  # runners take turns, so load from elsewhere hits all alike
            for runner, call in runners.items():
                start = time.perf_counter()
                call()
                times[runner].append((time.perf_counter() - start) * 1000)
    finally:
        shutil.rmtree(ws, ignore_errors=True)
    sandboxed = {outputs[r] for r in runners if r.startswith("sandbox")}
    assert len(sandboxed) == 1, outputs  # cold and warm print the same
    plain = statistics.median(times["plain subprocess.run"])
    cold = statistics.median(times["sandbox cold, isolated"])
    print(f"{name}, {n} rounds, median wall time per run")
    for runner, samples in times.items():
        ms = statistics.median(samples)
        print(f"  {runner:40s} {ms:8.1f} ms   {ms / plain:5.2f}x plain   {ms / cold:5.2f}x cold")
    for mode in ("cold", "warm"):
        cost = statistics.median(times[f"sandbox {mode}, isolated"]) - statistics.median(
            times[f"sandbox {mode}, unisolated"]
        )
        print(f"  isolation cost, {mode}: {cost:+.1f} ms per run")


def main(n: int = 20) -> None:
    cache = Path(tempfile.mkdtemp(prefix="scigate-bench-cache-"))
    try:
        bench("empty python script", "", n, cache)
        bench("small DOLFINx Poisson solve (12x12 P1, LU)", POISSON, n, cache)
        pools = warm_status()
        print(f"warm servers: {sum(len(p['servers']) for p in pools)} in {len(pools)} pools")
    finally:
        stop_warm_servers()
        shutil.rmtree(cache, ignore_errors=True)
    print(f"isolation: {protections()['isolation (bwrap)']}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
