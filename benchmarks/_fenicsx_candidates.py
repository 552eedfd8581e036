"""Shared pieces of the FEniCSx gate benchmarks: template candidates and the naive loop
(a fresh `python solution.py` per candidate, no sandbox) they are compared with."""

from __future__ import annotations

import os
import re
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from scigate.domains import get_domain
from scigate.gate import copy_without_answer, load_candidate
from scigate.gate._invariance import RUNNER, is_count, runner_source


def model_written() -> list[Path]:
    """The FEniCSx domain's model-written candidates: the paper's item 0023 and the five
    seeds (none from the template families)."""
    domain = get_domain("fenicsx")
    return [*domain.example_dirs(), *domain.seed_dirs()]


def with_model_written(dirs: list[Path], include: bool) -> list[Path]:
    """`dirs` followed by the model-written candidates (`include`), with a line saying
    which set a benchmark runs on."""
    extra = model_written() if include else []
    print(f"candidates: {len(dirs)} template" + (f" + {len(extra)} model-written" if extra else ""))
    return [*dirs, *extra]


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


def naive_parallel(dirs: list[Path], workers: int) -> float:
    """Seconds for the naive loop with `workers` fresh interpreters at a time (the same
    worker count as the gated pass it is compared with)."""
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        list(pool.map(lambda d: naive([d]), dirs))
    return time.perf_counter() - t0


def spread(seconds: list[float]) -> str:
    """'median M s (min m s, n repeats)' of a pass's timings."""
    return (
        f"median {statistics.median(seconds):6.1f} s (min {min(seconds):6.1f} s, n={len(seconds)})"
    )


def ratio_line(name: str, naive_s: list[float], gated_s: list[float]) -> str:
    """Throughput ratio gated / naive on the medians and on the minima of interleaved passes,
    and the median of the per-repeat ratios (each repeat ran both back to back)."""
    per_repeat = [n / g for n, g in zip(naive_s, gated_s, strict=True)]
    return (
        f"{name:58s} median {statistics.median(naive_s) / statistics.median(gated_s):5.2f}x, "
        f"min {min(naive_s) / min(gated_s):5.2f}x, per-repeat median "
        f"{statistics.median(per_repeat):5.2f}x (range {min(per_repeat):.2f}-{max(per_repeat):.2f})"
    )


def naive_gates_one(d: Path, *, fresh_cache: bool = False) -> int:
    """Gate 1 and gate 1b done naively on one candidate, the same runs as the gated pass:
    a fresh interpreter runs solution.py, then one per semantic check that applies to the
    candidate (the check's runner: its prelude, then solution.py), no sandbox. With
    `fresh_cache` the candidate starts from an empty FFCx cache of its own, which its
    later runs reuse. Returns the number of runs."""
    cand = load_candidate(d)
    checks = [
        c
        for c in get_domain("fenicsx").semantic_checks()
        if not (c.applies_if and not re.search(c.applies_if, cand.question, re.IGNORECASE))
        and not (c.expect == "changed" and is_count(cand.answer_value))
    ]
    with tempfile.TemporaryDirectory() as tmp:
        work = copy_without_answer(d, Path(tmp) / "c")
        env = {**os.environ, "XDG_CACHE_HOME": str(Path(tmp) / "cache")} if fresh_cache else None
        runners = [None, *(runner_source(c, secrets.token_hex(8)) for c in checks)]
        for runner in runners:  # a check's runner removes itself once Python has read it
            if runner is not None:
                (work / RUNNER).write_text(runner)
            script = "solution.py" if runner is None else RUNNER
            out = subprocess.run(
                [sys.executable, script], cwd=work, capture_output=True, text=True, env=env
            )
            assert out.returncode == 0, (d.name, script, out.stderr[-500:])
    return len(runners)


def naive_gates(dirs: list[Path], workers: int, *, fresh_cache: bool = False) -> float:
    """Wall seconds of `naive_gates_one` on every candidate, `workers` at a time."""
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        list(pool.map(lambda d: naive_gates_one(d, fresh_cache=fresh_cache), dirs))
    return time.perf_counter() - t0
