"""Speed of the tool library, each figure against a naive baseline in the same run.

1. Retrieval over the whole library (built-in embedder): top-1/top-5 and per-query
   latency of hybrid BM25 + embedding search (entities in the question typed), the same on
   the raw question, BM25 alone, vectors alone, and a naive linear scan that scores each
   tool by how many query words occur as substrings of its description. Questions are
   generated from the tools' own ontologies (`scigate.tools._retrieval_eval`): the
   held-out split is reported, the dev split is what the defaults were tuned on (--tune
   prints the grid).
2. Overhead of one tool call through scigate (`Tool.call`: argument validation, error
   wrapping, JSON conversion) vs calling RDKit directly (parse SMILES + Descriptors.MolWt).
3. Cost of the bounded worker process: the same tool body run through the warm worker
   pool (pickle over a pipe) vs called in-process, for a light and a heavy tool.
4. OPSIN name parsing with the one reused JVM vs py2opsin starting a JVM per call.

Run: .venv/bin/python benchmarks/bench_tools.py [--tune] [--only-retrieval] [--calls 2000]
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections.abc import Callable
from typing import Any

from scigate.tools import ToolIndex, load_library
from scigate.tools._retrieval import (
    DEFAULT_ENTITY_WEIGHT,
    DEFAULT_FUSION,
    DEFAULT_LEXICAL_WEIGHT,
    describe,
)
from scigate.tools._retrieval_eval import make_questions, score_retriever


def naive_search(query: str, texts: list[str], names: list[str], k: int) -> list[str]:
    """Linear scan: score = number of query words found as substrings of the description."""
    words = [w for w in query.lower().split() if len(w) > 2]
    scored = []
    for name, text in zip(names, texts, strict=True):
        low = text.lower()
        scored.append((sum(w in low for w in words), name))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [n for _, n in scored[:k]]


def bench_retrieval(repeats: int, tune: bool) -> None:
    """Top-1/top-5 and latency of hybrid, lexical, vector and naive retrieval on the
    generated held-out questions (and, with --tune, the fusion grid on the dev split)."""
    tools = load_library()
    start = time.perf_counter()
    index = ToolIndex(tools.values())
    build = time.perf_counter() - start
    texts = [describe(r) for r in index.records]
    dev = make_questions(tools.values(), "dev")
    heldout = make_questions(tools.values(), "heldout")
    index.search("warm up CCO", k=5)

    def ranked(**kw: Any) -> Callable[[str], list[str]]:
        return lambda q: [h.name for h in index.search(q, k=5, **kw)]

    if tune:
        print(f"fusion grid on the dev split ({len(dev)} questions): top1 top5")
        grid = []
        configs = [("rrf", 0.5, ew) for ew in (0.0, 0.5, 1.0)] + list(
            itertools.product(["weighted"], [0.4, 0.5, 0.6, 0.7], [0.0, 0.1, 0.2])
        )
        for fusion, lw, ew in configs:
            s = score_retriever(ranked(fusion=fusion, lexical_weight=lw, entity_weight=ew), dev)
            grid.append((s.top1 + s.top5, fusion, lw, ew))
            print(
                f"  {fusion:8s} lexical {lw:.1f} entity {ew:.2f}  {s.top1:.3f} {s.top5:.3f}",
                flush=True,
            )
        best = max(grid)
        print(f"  best on dev: fusion {best[1]} lexical {best[2]} entity {best[3]}")
    print(
        f"retrieval over {len(tools)} tools (index build {build:.2f} s); held-out split "
        f"{len(heldout)} questions, dev split {len(dev)}; latency per query, best of "
        f"{repeats} runs of each query"
    )
    print(
        f"  defaults: fusion {DEFAULT_FUSION}, lexical weight {DEFAULT_LEXICAL_WEIGHT}, "
        f"entity weight {DEFAULT_ENTITY_WEIGHT}"
    )
    rows = [
        ("hybrid (entities typed)", ranked()),
        ("hybrid, raw query", ranked(entities=False)),
        ("hybrid, rrf, raw query", ranked(entities=False, fusion="rrf", lexical_weight=0.5)),
        ("lexical (BM25, typed)", ranked(lexical_weight=1.0)),
        ("vector (typed)", ranked(lexical_weight=0.0)),
        ("naive substring scan", lambda q: naive_search(q, texts, index.names, 5)),
    ]
    for label, search in rows:
        for split, questions in (("held-out", heldout), ("dev", dev)):
            s = score_retriever(search, questions)
            print(f"  {label:26s} {split:8s} top1 {s.top1:.3f}  top5 {s.top5:.3f}")
    # latency: the retrievers take turns on each query (best of `repeats`), so a load spike
    # from other processes on the machine hits all of them alike
    times: dict[str, list[float]] = {label: [] for label, _ in rows}
    for q in heldout:
        for label, search in rows:
            best = float("inf")
            for _ in range(repeats):
                t0 = time.perf_counter()
                search(q.text)
                best = min(best, time.perf_counter() - t0)
            times[label].append(best)
    print(f"  latency per held-out query (ms, best of {repeats}, retrievers interleaved):")
    for label, values in times.items():
        values.sort()
        med = values[len(values) // 2] * 1e3
        p95 = values[min(len(values) - 1, int(0.95 * len(values)))] * 1e3
        print(f"  {label:26s} median {med:.3f}  p95 {p95:.3f}  max {values[-1] * 1e3:.3f}")
    hybrid, naive = times["hybrid (entities typed)"], times["naive substring scan"]
    ratio = hybrid[len(hybrid) // 2] / naive[len(naive) // 2]
    print(f"  latency ratio hybrid/naive (median): {ratio:.2f}")


def bench_call(n_calls: int) -> None:
    tools = load_library()
    if "SMILESToWeight" not in tools:
        print("tool-call overhead: SMILESToWeight not in the library, skipped")
        return
    from rdkit import Chem
    from rdkit.Chem import Descriptors

    t = tools["SMILESToWeight"]
    smiles = "CC(=O)Oc1ccccc1C(=O)O"
    direct_value = Descriptors.MolWt(Chem.MolFromSmiles(smiles))
    assert abs(t.call(smiles=smiles).value - direct_value) < 1e-6

    def timed(fn, repeats: int = 5) -> float:  # type: ignore[no-untyped-def]
        best = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter()
            for _ in range(n_calls):
                fn()
            best = min(best, (time.perf_counter() - t0) / n_calls)
        return best

    direct = timed(lambda: Descriptors.MolWt(Chem.MolFromSmiles(smiles)))
    wrapped = timed(lambda: t.call(smiles=smiles))
    print(f"tool call (SMILESToWeight on aspirin, best of 5 x {n_calls})")
    print(f"  RDKit direct  {direct * 1e6:.1f} us/call")
    print(f"  Tool.call     {wrapped * 1e6:.1f} us/call")
    print(
        f"  overhead ratio Tool.call/direct: {wrapped / direct:.2f} (+{(wrapped - direct) * 1e6:.1f} us)"
    )


def bench_worker(n_calls: int) -> None:
    """Bounded worker round trip vs the same body called in-process, light and heavy tools."""
    from scigate.tools._bounded import worker_pool

    tools = load_library()
    pool = worker_pool()
    cases = [
        ("light: SMILESToWeight(aspirin)", tools["SMILESToWeight"], {"smiles": ASPIRIN}),
        ("heavy: CalculatePMI1(benzene)", tools["CalculatePMI1"], {"smiles": "c1ccccc1"}),
        ("heavy: CalculatePMI1(decane)", tools["CalculatePMI1"], {"smiles": "C" * 10}),
    ]
    print(f"bounded worker vs direct call (best of 5 x {n_calls}; conformers cached on both sides)")
    for label, t, args in cases:
        assert pool.run(t, args, 60)[0] == "ok"  # warm the worker and its caches
        t.fn(**args)

        def timed(fn) -> float:  # type: ignore[no-untyped-def]
            best = float("inf")
            for _ in range(5):
                t0 = time.perf_counter()
                for _ in range(n_calls):
                    fn()
                best = min(best, (time.perf_counter() - t0) / n_calls)
            return best

        direct = timed(lambda t=t, args=args: t.fn(**args))
        bounded = timed(lambda t=t, args=args: pool.run(t, args, 60))
        print(
            f"  {label:34s} direct {direct * 1e6:8.1f} us  worker {bounded * 1e6:8.1f} us"
            f"  ratio {bounded / direct:6.2f}  (+{(bounded - direct) * 1e6:.1f} us)"
        )
    t = tools["CalculatePMI1"]
    t0 = time.perf_counter()
    uncached = t.call(smiles="CCCCCCCCCCCCO")  # new molecule: embedding dominates
    print(
        f"  CalculatePMI1 on a new molecule via Tool.call: {(time.perf_counter() - t0) * 1e3:.1f} ms"
    )
    assert uncached.ok
    pool.shutdown()


ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O"


def bench_opsin(n_names: int = 5) -> None:
    """OPSIN: one reused JVM (scigate) vs py2opsin's JVM per call."""
    import shutil
    import tempfile

    if shutil.which("java") is None:
        print("OPSIN: java not installed, skipped")
        return
    from py2opsin import py2opsin

    from scigate.tools.library._opsin import opsin_server

    names = [f"{prefix}an-1-ol" for prefix in ["eth", "prop", "but", "pent", "hex"]][:n_names]
    server = opsin_server()
    server.stop()
    t0 = time.perf_counter()
    server.parse(names[0])
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    for name in names:
        server.parse(name)
    reused = (time.perf_counter() - t0) / len(names)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        for name in names:
            py2opsin(name, tmp_fpath=f"{tmp}/n.txt")
        per_call = (time.perf_counter() - t0) / len(names)
    print(f"OPSIN name -> SMILES ({len(names)} names)")
    print(f"  reused JVM: first call {first * 1e3:.0f} ms, then {reused * 1e3:.1f} ms/name")
    print(
        f"  py2opsin (JVM per call): {per_call * 1e3:.0f} ms/name  ratio {per_call / reused:.0f}x"
    )
    server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per retrieval query")
    parser.add_argument("--tune", action="store_true", help="print the fusion grid on dev")
    parser.add_argument("--only-retrieval", action="store_true")
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    bench_retrieval(args.repeats, args.tune)
    if args.only_retrieval:
        return
    bench_call(args.calls)
    bench_worker(max(50, args.calls // 10))
    bench_opsin()


if __name__ == "__main__":
    main()
