"""Gate 1 + gate 1b on model-written candidates, with and without the shared
compiled-form cache (`scigate.sandbox._formcache`), against the naive loop.

Candidates: the domain's item 0023 and its seed candidates, all written by a model or
by hand, none from the template families, so none of their forms is compiled before
a pass (every pass starts from an empty forms cache and fresh workspaces).
Passes, interleaved (the order rotates every repeat) and repeated (default 3):
  - naive, sequential: a fresh `python solution.py` per candidate, no sandbox, each with
    an empty FFCx cache of its own (a new candidate's forms are compiled);
  - naive, same worker count: the same, one process per core at a time;
  - naive gate 1 + 1b, same worker count: the same runs as the gated pass (solution.py,
    then each semantic check's runner that applies), each a fresh interpreter, no
    sandbox, the candidate's runs sharing an FFCx cache of its own that starts empty;
  - gate 1 + 1b, shared forms: `averify` then `ainvariance` (reorder and dependence
    checks) as `gate run` does, one candidate per core, forked from warm servers, the
    trusted compile step filling the shared cache that gate 1b then loads from (its
    checks get the candidate's gate-1 form map, so FFCx generates no C for them);
  - gate 1 + 1b, private forms (`SCIGATE_FORMCACHE_BYTES=0`, the layout before the
    shared cache): every sandboxed run compiles its forms into its own cache;
  - gate 1 alone, shared forms (`averify` only).
Reports median and min over the repeats of each pass's wall clock, and of the runs'
own seconds per candidate: gate 1 and each gate-1b run (goal: gate-1b run <= half the
gate-1 run), and the throughput ratio against both naive loops.
What bounds the ratio: the trusted compiles (count per candidate, seconds each, as the
host served them in the shared passes), the C compiler alone on the same C texts
(unsandboxed, same command), and the naive loop's CPU seconds per candidate.
Run by hand: .venv/bin/python benchmarks/bench_formcache.py [REPEATS]
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from _fenicsx_candidates import naive_gates

from scigate import sandbox
from scigate.domains.fenicsx import _domain
from scigate.gate import ainvariance, averify, copy_without_answer, load_candidate
from scigate.sandbox import _formcache

DOMAIN = Path(_domain.__file__).parent
CANDIDATES = [DOMAIN / "examples" / "item_0023", *sorted((DOMAIN / "seeds").iterdir())]


COMPILES: list[float] = []  # seconds of each trusted compile the host ran


def _timed_compile(original):
    def compile_trusted(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            COMPILES.append(time.perf_counter() - t0)

    return compile_trusted


_formcache.compile_trusted = _timed_compile(_formcache.compile_trusted)


def naive_one(d: Path) -> float:
    """One fresh interpreter on one candidate, with an empty FFCx cache."""
    with tempfile.TemporaryDirectory() as tmp:
        work = copy_without_answer(d, Path(tmp) / "c")
        env = {**os.environ, "XDG_CACHE_HOME": str(Path(tmp) / "cache")}
        t0 = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "solution.py"], cwd=work, capture_output=True, text=True, env=env
        )
        assert out.returncode == 0, out.stderr[-500:]
        return time.perf_counter() - t0


def naive(dirs: list[Path], workers: int) -> float:
    """Wall seconds of the naive loop with `workers` processes at a time."""
    t0 = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(naive_one, dirs))
    return time.perf_counter() - t0


async def gates(
    dirs: list[Path], workers: int, invariance: bool = True
) -> tuple[float, list[float], list[float]]:
    """(wall seconds, gate-1 run seconds, gate-1b run seconds: one per check run);
    without `invariance` gate 1 alone."""
    sem = asyncio.Semaphore(workers)
    g1: list[float] = []
    g1b: list[float] = []

    async def one(d: Path) -> None:
        c = load_candidate(d)
        async with sem:
            v = await averify(c, timeout=300)
            assert v.passed, (d.name, v.reason)
            g1.append(v.seconds)
            if not invariance:
                return
            # as `gate run` does: the checks get this candidate's own gate-1 form map
            r = await ainvariance(c, reference=v.printed, timeout=300, forms=v.forms)
            g1b.extend(check.seconds for check in r.checks)

    t0 = time.perf_counter()
    await asyncio.gather(*(one(d) for d in dirs))
    return time.perf_counter() - t0, g1, g1b


def _fresh_forms() -> None:
    shutil.rmtree(_formcache.forms_dir(sandbox.default_cache_dir().resolve()), ignore_errors=True)


async def run_gates(dirs: list[Path], workers: int, shared: bool, invariance: bool = True) -> tuple:
    _fresh_forms()
    if shared:
        os.environ.pop(_formcache.MAX_BYTES_ENV, None)
    else:
        os.environ[_formcache.MAX_BYTES_ENV] = "0"
    try:
        return await gates(dirs, workers, invariance)
    finally:
        os.environ.pop(_formcache.MAX_BYTES_ENV, None)


def _fmt(values: list[float]) -> str:
    return f"median {statistics.median(values):6.2f}  min {min(values):6.2f}"


def naive_cpu(dirs: list[Path]) -> float:
    """CPU seconds (user + system, the interpreter and its compilers) of one naive
    sequential pass, per candidate."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    naive(dirs, 1)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return used / len(dirs)


def gcc_alone(pch: bool = True) -> list[float]:
    """Seconds of the trusted compile's C compiler command on each C text now in the
    forms cache, run directly (no sandbox, no spool); with `pch` as the trusted compile
    runs it (the prologue's headers precompiled), else parsing them as cffi would."""
    seconds = []
    base = _formcache.compiler_base()
    for source in sorted(_formcache.forms_dir(sandbox.default_cache_dir()).glob("*/source.c")):
        meta = json.loads(source.with_name("meta.json").read_text())
        text = source.read_bytes()
        headers = _formcache.precompiled_headers(text, meta["flags"], base) if pch else None
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copy(source, Path(tmp) / "source.c")
            t0 = time.perf_counter()
            command = _formcache.compile_command(meta["flags"], headers, base)
            subprocess.run(command, cwd=tmp, check=True)
            seconds.append(time.perf_counter() - t0)
    return seconds


async def main_async(repeats: int) -> None:
    workers = os.cpu_count() or 1
    dirs = CANDIDATES
    n = len(dirs)
    await run_gates(dirs[:workers], workers, shared=True)  # start the warm servers
    walls: dict[str, list[float]] = {}
    runs: dict[str, list[float]] = {}
    modes = ["naive-seq", "naive-par", "naive-gates", "shared", "private", "gate1"]
    compiles: list[float] = []
    compiles_per_pass: list[int] = []
    checks_per_candidate = 0.0  # gate-1b runs per candidate (the checks that apply)
    for rep in range(repeats):
        order = modes[rep % len(modes) :] + modes[: rep % len(modes)]
        for mode in order:
            if mode == "naive-seq":
                wall = await asyncio.to_thread(naive, dirs, 1)
            elif mode == "naive-par":
                wall = await asyncio.to_thread(naive, dirs, workers)
            elif mode == "naive-gates":
                wall = await asyncio.to_thread(naive_gates, dirs, workers, fresh_cache=True)
            elif mode == "gate1":
                wall, g1, _ = await run_gates(dirs, workers, shared=True, invariance=False)
                runs.setdefault("gate-1 alone run", []).append(statistics.median(g1))
            else:
                COMPILES.clear()
                wall, g1, g1b = await run_gates(dirs, workers, shared=mode == "shared")
                if mode == "shared":
                    compiles += COMPILES
                    compiles_per_pass.append(len(COMPILES))
                runs.setdefault(f"{mode} gate-1 run", []).append(statistics.median(g1))
                runs.setdefault(f"{mode} gate-1b run", []).append(statistics.median(g1b))
                checks_per_candidate = len(g1b) / n
                runs.setdefault(f"{mode} gate-1b/gate-1", []).append(
                    statistics.median(g1b) / statistics.median(g1)
                )
            walls.setdefault(mode, []).append(wall)
            print(f"repeat {rep + 1}: {mode:10s} {wall:6.1f} s", flush=True)
    gcc = gcc_alone()  # the forms of the last pass
    gcc_plain = gcc_alone(pch=False)
    cpu = await asyncio.to_thread(naive_cpu, dirs)
    sandbox.stop_warm_servers()
    print(
        f"\n{n} model-written candidates (item 0023 + seeds), {workers} workers, {repeats} repeats"
    )
    names = {
        "naive-seq": "naive loop, sequential",
        "naive-par": f"naive loop, {workers} processes",
        "naive-gates": f"naive gate 1 + 1b, {workers} processes",
        "shared": f"gate 1 + 1b, shared forms ({workers} workers)",
        "private": f"gate 1 + 1b, private forms ({workers} workers)",
        "gate1": f"gate 1 alone, shared forms ({workers} workers)",
    }
    for mode, label in names.items():
        print(f"{label:44s} wall s: {_fmt(walls[mode])}")
    print("\nper-candidate run seconds (median over candidates, then over repeats):")
    for name, values in runs.items():
        print(f"  {name:32s} {_fmt(values)}")
    for mode in ("shared", "private", "gate1"):
        for base in ("naive-seq", "naive-par", "naive-gates"):
            ratios = [b / g for b, g in zip(walls[base], walls[mode], strict=True)]
            print(f"throughput {mode} / {base}: {_fmt(ratios)} x")
    ratio = runs["shared gate-1b/gate-1"]
    print(f"gate-1b run / gate-1 run with shared forms: {_fmt(ratio)} (goal <= 0.5)")
    print("\nwhat bounds it (gate 1 + 1b, shared forms):")
    per = statistics.median(compiles_per_pass) / n
    print(f"  trusted compiles per candidate: {per:.2f}, seconds each: {_fmt(compiles)}")
    print(f"  the C compiler alone per form ({len(gcc)} forms): {_fmt(gcc)} s")
    print(f"    the same without the precompiled prologue: {_fmt(gcc_plain)} s")
    print(f"  naive loop CPU per candidate (one sequential pass): {cpu:.2f} s")
    med = statistics.median
    naive_ws = med(walls["naive-par"]) * workers / n  # worker-seconds per candidate
    gate_ws = med(walls["shared"]) * workers / n
    g1, g1b = med(runs["shared gate-1 run"]), med(runs["shared gate-1b run"])
    extra = per * (med(compiles) - med(gcc))  # sandbox + spool + store per candidate
    print(f"  worker-seconds per candidate: naive {naive_ws:.2f}, gate 1 + 1b {gate_ws:.2f}")
    print(
        f"    gate-1 run {g1:.2f} (trusted compiles {per * med(compiles):.2f}), "
        f"1b runs {checks_per_candidate:.2f} x {g1b:.2f}"
    )
    print(
        f"  ratio bound, every trusted compile costing only its C compiler: "
        f"{naive_ws / (g1 - extra + checks_per_candidate * g1b):.2f}x; and gate-1b runs free as well: "
        f"{naive_ws / (g1 - extra):.2f}x; only the C compiler of each form: "
        f"{naive_ws / (per * med(gcc)):.2f}x"
    )
    print(f"network: {sandbox.protections()['network (bwrap)']}")


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    # a cache of its own: every gate pass starts from an empty forms cache
    os.environ["SCIGATE_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench-formcache-")
    asyncio.run(main_async(repeats))


if __name__ == "__main__":
    main()
