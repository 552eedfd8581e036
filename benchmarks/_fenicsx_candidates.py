"""Shared pieces of the FEniCSx gate benchmarks: template candidates and the naive loop
(a fresh `python solution.py` per candidate, no sandbox) they are compared with."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scigate.domains import get_domain
from scigate.gate import copy_without_answer


def make_candidates(n: int, root: Path, seed: int) -> list[Path]:
    """`n` FEniCSx template candidates under `root`, from the template generator's `seed`."""
    gen = get_domain("fenicsx").template_generator(seed)
    return [gen.generate(i, root / f"c{i:03d}") for i in range(n)]


def naive(dirs: list[Path]) -> float:
    """Seconds to run every candidate's solution once in a fresh interpreter."""
    t0 = time.perf_counter()
    for d in dirs:
        with tempfile.TemporaryDirectory() as tmp:
            work = copy_without_answer(d, Path(tmp) / "c")
            out = subprocess.run(
                [sys.executable, "solution.py"], cwd=work, capture_output=True, text=True
            )
            assert out.returncode == 0, out.stderr[-500:]
    return time.perf_counter() - t0
