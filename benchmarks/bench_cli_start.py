"""CLI start-up cost: CPU seconds (user + system, children included) of

- `scigate --version` against its baseline `python -c "import typer, rich, pydantic"`
  (goal of issue 27: at most 2.5x);
- `scigate tools search QUERY` with a cold cache (an empty `SCIGATE_CACHE_DIR`: the
  library's argument schemas and the index vectors are built and stored) against a warm
  one (read back).

Runs are interleaved; the median and minimum of `--repeats` are reported.

    .venv/bin/python benchmarks/bench_cli_start.py --repeats 5
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

SCIGATE = str(Path(sys.executable).with_name("scigate"))


def cpu(cmd: list[str], env: dict[str, str] | None = None) -> float:
    """CPU seconds of one run of `cmd` (its children's rusage delta)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--query", default="molecular weight of a SMILES")
    args = parser.parse_args()
    runs: dict[str, list[float]] = {k: [] for k in ("base", "version", "cold", "warm")}
    warm_dir = tempfile.mkdtemp(prefix="scigate-bench-cache-")
    search = [SCIGATE, "tools", "search", args.query, "--json"]
    cpu(search, {**os.environ, "SCIGATE_CACHE_DIR": warm_dir})  # fill the warm cache
    for _ in range(args.repeats):
        runs["base"].append(cpu([sys.executable, "-c", "import typer, rich, pydantic"]))
        runs["version"].append(cpu([SCIGATE, "--version"]))
        with tempfile.TemporaryDirectory(prefix="scigate-bench-cold-") as cold:
            runs["cold"].append(cpu(search, {**os.environ, "SCIGATE_CACHE_DIR": cold}))
        runs["warm"].append(cpu(search, {**os.environ, "SCIGATE_CACHE_DIR": warm_dir}))
    med = {k: statistics.median(v) for k, v in runs.items()}
    for k, v in runs.items():
        print(f"{k:8s} median {med[k]:.3f} s  min {min(v):.3f} s  (n={len(v)})")
    print(f"--version / import typer, rich, pydantic: {med['version'] / med['base']:.2f}x")
    print(f"tools search cold / warm cache: {med['cold'] / med['warm']:.2f}x")


if __name__ == "__main__":
    main()
