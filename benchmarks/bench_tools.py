"""Speed of the tool library, each figure against a naive baseline in the same run.

1. Retrieval latency per query over the whole library (built-in embedder): hybrid BM25 +
   embedding search vs a linear scan that scores each tool by how many query words occur
   as substrings of its description. Also top-1/top-5 hit rates of both on queries made
   from a tool's own functionality (first words, shuffled case) and on paraphrases.
2. Overhead of one tool call through scigate (`Tool.call`: argument validation, error
   wrapping, JSON conversion) vs calling RDKit directly (parse SMILES + Descriptors.MolWt).
3. Cost of the bounded worker process: the same tool body run through the warm worker
   pool (pickle over a pipe) vs called in-process, for a light and a heavy tool.
4. OPSIN name parsing with the one reused JVM vs py2opsin starting a JVM per call.

Run: .venv/bin/python benchmarks/bench_tools.py [--queries 200] [--calls 2000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from scigate.tools import ToolIndex, load_library
from scigate.tools._retrieval import describe

PARAPHRASES = [
    ("how heavy is a molecule given as SMILES", "SMILESToWeight"),
    ("turn a SMILES string into an InChI identifier", "SMILESToInChI"),
    ("hash an InChI into its InChIKey", "InChIToInChIKey"),
    ("how many miles are 10 kilometres", "UnitConverter"),
    ("Gauss points and weights for integrating on a reference triangle", "BasixQuadrature"),
    ("find recent arXiv preprints on a topic", "DownloadPapers"),
    ("average and spread of some measurements", "DescriptiveStatistics"),
    ("compute 3*(4+5)/2", "EvaluateExpression"),
    ("isoelectric point of a protein", "ProteinIsoelectricPointCalculator"),
    ("fit a straight line through data points", "LinearRegression"),
]


def naive_search(query: str, texts: list[str], names: list[str], k: int) -> list[str]:
    """Linear scan: score = number of query words found as substrings of the description."""
    words = [w for w in query.lower().split() if len(w) > 2]
    scored = []
    for name, text in zip(names, texts, strict=True):
        low = text.lower()
        scored.append((sum(w in low for w in words), name))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [n for _, n in scored[:k]]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bench_retrieval(n_queries: int) -> None:
    tools = load_library()
    start = time.perf_counter()
    index = ToolIndex(tools.values())
    build = time.perf_counter() - start
    rng = random.Random(0)
    targets = rng.choices(sorted(tools), k=n_queries)
    queries = []
    for name in targets:
        words = tools[name].spec.functionality.split()
        cut = rng.randint(4, 8)
        queries.append((" ".join(words[:cut]), name))
    texts = [describe(r) for r in index.records]
    index.search("warm up", k=5)

    def run(search) -> tuple[list[float], float, float]:  # type: ignore[no-untyped-def]
        times, top1, top5 = [], 0, 0
        for query, want in queries:
            t0 = time.perf_counter()
            found = search(query)
            times.append(time.perf_counter() - t0)
            top1 += found[:1] == [want]
            top5 += want in found[:5]
        return times, top1 / len(queries), top5 / len(queries)

    hybrid_t, h1, h5 = run(lambda q: [h.name for h in index.search(q, k=5)])
    naive_t, n1, n5 = run(lambda q: naive_search(q, texts, index.names, 5))
    para_h = sum(
        want in [h.name for h in index.search(q, k=5)] for q, want in PARAPHRASES if want in tools
    )
    para_n = sum(
        want in naive_search(q, texts, index.names, 5) for q, want in PARAPHRASES if want in tools
    )
    n_para = sum(want in tools for _, want in PARAPHRASES)
    med_h, med_n = statistics.median(hybrid_t), statistics.median(naive_t)
    print(f"retrieval over {len(tools)} tools, {n_queries} queries (index build {build:.2f} s)")
    print(
        f"  hybrid  median {med_h * 1e3:.3f} ms  p95 {percentile(hybrid_t, 0.95) * 1e3:.3f} ms"
        f"  top1 {h1:.2f}  top5 {h5:.2f}  paraphrases top5 {para_h}/{n_para}"
    )
    print(
        f"  naive   median {med_n * 1e3:.3f} ms  p95 {percentile(naive_t, 0.95) * 1e3:.3f} ms"
        f"  top1 {n1:.2f}  top5 {n5:.2f}  paraphrases top5 {para_n}/{n_para}"
    )
    print(f"  latency ratio hybrid/naive (median): {med_h / med_n:.2f}")


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
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    bench_retrieval(args.queries)
    bench_call(args.calls)
    bench_worker(max(50, args.calls // 10))
    bench_opsin()


if __name__ == "__main__":
    main()
