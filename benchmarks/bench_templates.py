"""Template-generator throughput against a naive fresh-process baseline (run by hand).

    .venv/bin/python benchmarks/bench_templates.py [--n 8] [--seed 0] [--families a,b]

The generator computes the correct value and every mistake it tries in one warm worker
process and checks the saved solution by that worker's printed line (no fresh run; see
``bench_template_run.py`` for the old fresh-process self-check). The naive baseline
computes exactly the same values (the correct one and each evaluated mistake, read from
meta.json) with a fresh ``python script.py`` process per value. Both are reported as
candidates per minute; the ratio is generator / baseline.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scigate.domains.fenicsx.templates import TemplateGenerator, render


def _fresh_process_values(candidate: Path, workdir: Path) -> int:
    meta = json.loads((candidate / "meta.json").read_text())
    labels = ["", *meta["evaluated"]]
    for k, label in enumerate(labels):
        mistakes = frozenset(label.split("+")) if label else frozenset()
        script = workdir / f"value_{k}.py"
        script.write_text(render(meta["family"], meta["params"], mistakes))
        subprocess.run([sys.executable, script.name], cwd=workdir, capture_output=True, timeout=300)
    return len(labels)


def main() -> None:
    """Run both and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=8, help="candidates (indices 0..n-1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--families", default=None, help="comma-separated family names")
    args = parser.parse_args()
    families = args.families.split(",") if args.families else None

    with tempfile.TemporaryDirectory(prefix="bench-templates-") as tmp:
        root = Path(tmp)
        with TemplateGenerator(seed=args.seed, families=families) as gen:
            # Warm-up: worker start-up and FFCx cache, so both sides run warm.
            for i in range(min(len(gen.families), args.n)):
                gen.generate(i, root / f"warm{i}")
            start = time.perf_counter()
            per_family: dict[str, list[float]] = {}
            candidates = []
            for i in range(args.n):
                t0 = time.perf_counter()
                candidates.append(gen.generate(i, root / f"c{i}"))
                per_family.setdefault(gen.family_for(i), []).append(time.perf_counter() - t0)
            gen_seconds = time.perf_counter() - start
            worker_scripts = gen.scripts_run

        start = time.perf_counter()
        values = sum(_fresh_process_values(c, root) for c in candidates)
        naive_seconds = time.perf_counter() - start

    gen_rate = 60 * args.n / gen_seconds
    naive_rate = 60 * args.n / naive_seconds
    print(f"candidates: {args.n} (seed {args.seed}); values computed: {values}")
    print(f"worker scripts incl. warm-up: {worker_scripts}")
    for family, times in per_family.items():
        print(f"  {family:22s} {len(times)} cand, mean {sum(times) / len(times):6.2f} s/cand")
    print(f"template generator : {gen_seconds:7.1f} s  {gen_rate:6.2f} candidates/min")
    print(f"fresh process/value: {naive_seconds:7.1f} s  {naive_rate:6.2f} candidates/min")
    print(f"ratio generator/naive: {gen_rate / naive_rate:.2f}x")


if __name__ == "__main__":
    main()
