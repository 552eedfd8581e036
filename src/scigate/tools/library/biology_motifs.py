"""Biology tools for DNA motifs: CpG islands, palindromes and repeated fragments."""

from __future__ import annotations

from typing import Any

from scigate.tools._tool import ToolInputError, tool
from scigate.tools.library.biology_common import (
    BIO,
    check_positive,
    clean_dna,
    clean_nucleic,
    find_repeats,
)


@tool(
    name="CpGIslandPrediction",
    functionality="Predict CpG islands in a DNA sequence with the Gardiner-Garden and Frommer criteria (sliding window of 200 bp, GC > 50 %, observed/expected CpG > 0.6).",
    inputs=["DNA sequence"],
    outputs=["CpG island"],
    category="biology",
    source="Biopython",
    objects=["DNA", "CpG island"],
    scenarios=["epigenetics", "promoter analysis"],
    requires=BIO,
    examples=[
        (
            {"dna": "AT" * 150 + "CG" * 150 + "AT" * 150},
            [
                {
                    "start": 202,
                    "end": 699,
                    "length": 498,
                    "gc_percent": 100 * 300 / 498,
                    "obs_exp_cpg": 3.32,
                }
            ],
        ),
        ({"dna": "AT" * 300}, []),
    ],
)
def cpg_islands(
    dna: str, window: int = 200, min_gc_percent: float = 50.0, min_obs_exp: float = 0.6
) -> list[dict[str, Any]]:
    """Merge every qualifying window (step 1 bp) into islands; report 1-based inclusive spans.

    A window qualifies when GC% > `min_gc_percent` and CpG obs/exp =
    count(CG) * window / (count(C) * count(G)) > `min_obs_exp`.
    """
    seq = clean_dna(dna)
    check_positive(window, "window")
    n = len(seq)
    if n < window:
        return []
    c_cum, g_cum, cg_cum = [0], [0], [0]
    for i, ch in enumerate(seq):
        c_cum.append(c_cum[-1] + (ch == "C"))
        g_cum.append(g_cum[-1] + (ch == "G"))
        cg_cum.append(cg_cum[-1] + (i > 0 and seq[i - 1] == "C" and ch == "G"))

    def stats(a: int, b: int) -> tuple[float, float]:  # half-open [a, b)
        c, g = c_cum[b] - c_cum[a], g_cum[b] - g_cum[a]
        cg = cg_cum[b] - cg_cum[a + 1]  # a CG pair lies inside when its G is at index > a
        oe = cg * (b - a) / (c * g) if c and g else 0.0
        return 100 * (c + g) / (b - a), oe

    spans: list[list[int]] = []
    for a in range(n - window + 1):
        gc, oe = stats(a, a + window)
        if gc > min_gc_percent and oe > min_obs_exp:
            if spans and a <= spans[-1][1]:
                spans[-1][1] = a + window
            else:
                spans.append([a, a + window])
    islands = []
    for a, b in spans:
        gc, oe = stats(a, b)
        islands.append(
            {"start": a + 1, "end": b, "length": b - a, "gc_percent": gc, "obs_exp_cpg": oe}
        )
    return islands


@tool(
    name="PalindromicSequencesFinder",
    functionality="Find reverse-complement palindromes (sequences equal to their reverse complement, like restriction sites) within a length range in a DNA or RNA sequence.",
    inputs=["DNA/RNA sequence", "protein length range"],
    outputs=["Palindrome sequence"],
    category="biology",
    source="Biopython",
    objects=["DNA", "palindrome"],
    scenarios=["restriction site analysis", "hairpin search"],
    requires=BIO,
    examples=[
        (
            {"sequence": "TTGAATTCTT", "min_length": 6},
            [{"start": 3, "end": 8, "length": 6, "sequence": "GAATTC"}],
        ),
        (
            {"sequence": "AAGAUCAA", "min_length": 4},
            [{"start": 3, "end": 6, "length": 4, "sequence": "GAUC"}],
        ),
    ],
)
def find_palindromes(
    sequence: str, min_length: int = 6, max_length: int = 20
) -> list[dict[str, Any]]:
    """The longest palindrome (capped at `max_length`) around each centre, if at least `min_length`."""
    seq, _is_rna = clean_nucleic(sequence)
    dna = seq.replace("U", "T")
    check_positive(min_length, "min_length")
    if max_length < min_length:
        raise ToolInputError("max_length must be at least min_length")
    comp = {"A": "T", "T": "A", "C": "G", "G": "C"}
    found = []
    for centre in range(1, len(dna)):
        k = 0
        while (
            2 * (k + 1) <= max_length
            and centre - k - 1 >= 0
            and centre + k < len(dna)
            and comp.get(dna[centre - k - 1]) == dna[centre + k]
        ):
            k += 1
        if 2 * k >= min_length:
            a = centre - k
            found.append(
                {
                    "start": a + 1,
                    "end": centre + k,
                    "length": 2 * k,
                    "sequence": seq[a : centre + k],
                }
            )
    return found


@tool(
    name="RepeatDNASequenceSearch",
    functionality="Find fragments of a given length that occur more than once in a DNA sequence, with their positions.",
    inputs=["DNA sequence", "protein length"],
    outputs=["repeat segment"],
    category="biology",
    source="Python",
    objects=["DNA", "repeat"],
    scenarios=["genome analysis", "cloning design"],
    examples=[
        (
            {"dna": "ACGTACGTTT", "length": 4},
            [{"repeat": "ACGT", "count": 2, "positions": [1, 5]}],
        )
    ],
)
def repeat_dna_search(dna: str, length: int = 8, min_count: int = 2) -> list[dict[str, Any]]:
    """Repeated fragments of exactly `length` bases (1-based start positions; top 100)."""
    seq = clean_dna(dna)
    check_positive(length, "length")
    check_positive(min_count, "min_count")
    return find_repeats(seq, length, min_count)
