"""Cached CIF parsing (`materials_common.load_structure`) against pymatgen's parser on
every call, on the bundled crystal entities parsed the way a `bench build` does (each
CIF several times).

    .venv/bin/python benchmarks/bench_cif_cache.py [--repeats 4]
"""

from __future__ import annotations

import argparse
import time
import warnings

from pymatgen.core import Structure

from scigate.bench._entities import load_entities
from scigate.tools.library.materials_common import _parse_cif, load_structure


def main() -> None:
    """Print the wall time of both and their ratio."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=4)
    args = ap.parse_args()
    cifs = [e.value for e in load_entities()["crystal"]] * args.repeats
    t0 = time.perf_counter()
    for cif in cifs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            naive = Structure.from_str(cif, fmt="cif")
    naive_s = time.perf_counter() - t0
    _parse_cif.cache_clear()
    t0 = time.perf_counter()
    for cif in cifs:
        cached = load_structure(cif)
    cached_s = time.perf_counter() - t0
    assert len(naive) == len(cached)
    print(f"{len(cifs)} parses of {len(cifs) // args.repeats} CIFs")
    print(f"pymatgen every call: {naive_s:.2f} s")
    print(f"load_structure (cached, copies): {cached_s:.2f} s")
    print(f"speed-up: {naive_s / cached_s:.1f}x")


if __name__ == "__main__":
    main()
