"""Cost of the near-duplicate check that runs before gate 1, against gate 1 itself.

Builds a run database with N surviving candidates (templated questions, verified in a
generation run), then times `near_duplicate` for new candidates (half near duplicates,
half new), without and with the loop's token cache, against two gate-1 baselines in
the same run: the cheapest conceivable one (a fresh `python -c "print(...)"`, no sandbox,
no FEniCSx) and scigate's real gate 1 (`averify`, warm) on FEniCSx template candidates.
Prints milliseconds per check and the ratios.
Run by hand: .venv/bin/python benchmarks/bench_novelty.py [N ...]  (default 500 5000)
"""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scigate.gate._novelty import near_duplicate
from scigate.store import CandidateRecord, Store

TEMPLATES = [
    "In DOLFINx create a {a} by {b} triangular unit-square mesh, move each vertex by "
    "x + {c} sin(2 pi y), solve the Poisson problem and report the energy to six decimals.",
    "Using Basix, tabulate the degree {a} Lagrange element on a triangle at ({c}, {d}) and "
    "report the sum of derivative values of basis function {b}.",
    "Integrate f(x, y) = {c} x^2 + {d} y with quadrature degree {a} over a {b} by {b} "
    "quadrilateral mesh of the unit square and report the integral.",
    "Compute the lowest eigenvalue of the Laplacian on an L-shaped domain with {a} cells, "
    "P{b} elements, shifted by {c} and scaled by {d}.",
]


def question(rng: random.Random) -> str:
    t = rng.choice(TEMPLATES)
    return (
        t.format(a=rng.randint(2, 64), b=rng.randint(1, 9), c=rng.random(), d=rng.random())
        + f" Variant {rng.randint(0, 10**9)}."
    )


def build(path: Path, n: int, rng: random.Random) -> Store:
    store = Store(path)
    run = store.create_run("gate", config={})
    for i in range(n):
        rec = CandidateRecord(
            question=question(rng), options={"A": "1", "B": "2", "C": "3", "D": str(i)}, answer="A"
        )
        cid, _ = store.add_candidate(rec)
        store.add_gate_result(run, cid, "verify", outcome="pass")
    return store


def cheapest_gate1(k: int) -> float:
    t0 = time.perf_counter()
    for i in range(k):
        subprocess.run(
            [sys.executable, "-c", f"print(f'{{2/{i + 3}:.6f}}')"], check=True, capture_output=True
        )
    return (time.perf_counter() - t0) / k


def fenicsx_gate1(k: int) -> float:
    """Mean seconds of a warm `averify` on FEniCSx template candidates (one warm-up)."""
    import asyncio

    from scigate.domains import get_domain
    from scigate.gate import averify, load_candidate

    gen = get_domain("fenicsx").template_generator(7)
    with tempfile.TemporaryDirectory() as tmp:
        dirs = [gen.generate(i, Path(tmp) / f"c{i}") for i in range(k + 1)]
        asyncio.run(averify(load_candidate(dirs[0]), timeout=300))
        t0 = time.perf_counter()
        for d in dirs[1:]:
            asyncio.run(averify(load_candidate(d), timeout=300))
        return (time.perf_counter() - t0) / k


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [500, 5000]
    rng = random.Random(0)
    base = cheapest_gate1(10)
    real = fenicsx_gate1(3)
    print(f"cheapest gate-1 run (fresh python, no sandbox): {base * 1000:.1f} ms")
    print(f"scigate gate 1 on a FEniCSx template candidate (warm): {real * 1000:.1f} ms")
    words = ["mesh", "solver", "norm", "flux", "basis", "cell", "point", "weight", "order", "field"]
    options = {"A": "x", "B": "y", "C": "z", "D": "w"}
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            store = build(Path(tmp) / "n.db", n, rng)
            probes = [question(rng) for _ in range(10)]
            probes += [" ".join(rng.choices(words, k=12)) + "?" for _ in range(10)]
            for label, cache in (("no token cache", None), ("token cache warm", {})):
                if cache is not None:  # the loop's cache after its first round
                    near_duplicate(store, probes[0], options, 0.7, token_cache=cache)
                t0 = time.perf_counter()
                found = sum(
                    near_duplicate(store, q, options, 0.7, token_cache=cache) is not None
                    for q in probes
                )
                per = (time.perf_counter() - t0) / len(probes)
                print(
                    f"N={n:>6} survivors, {label}: {per * 1000:.1f} ms per candidate "
                    f"({found}/{len(probes)} near duplicates); "
                    f"cheapest gate 1 / check = {base / per:.1f}x, "
                    f"FEniCSx gate 1 / check = {real / per:.0f}x"
                )
            store.close()


if __name__ == "__main__":
    main()
