"""Biology tools for codons (Biopython): degenerate (IUPAC) codons, back-translation and
codon usage with NCBI genetic code tables.
"""

from __future__ import annotations

from typing import Any

from scigate.tools._tool import ToolInputError, tool
from scigate.tools.library.biology_common import (
    BIO,
    IUPAC_DNA,
    PROTEIN_LETTERS,
    check_letters,
    clean_dna,
    clean_protein,
    codon_table,
    strip_sequence,
)


def _expand(codon: str) -> list[str]:
    out = [""]
    for ch in codon:
        out = [p + b for p in out for b in IUPAC_DNA[ch]]
    return out


def _encoded(codon: str, table: int = 1) -> dict[str, int]:
    forward = codon_table(table).forward_table
    counts: dict[str, int] = {}
    for c in _expand(codon):
        aa = forward.get(c, "*")
        counts[aa] = counts.get(aa, 0) + 1
    return counts


@tool(
    name="CalculateAminoAcidbyDegenerateCodon",
    functionality="List the amino acids (and stop) encoded by a degenerate IUPAC codon such as NNK, with how many codons give each.",
    inputs=["codon"],
    outputs=["Amino Acid"],
    category="biology",
    source="Biopython",
    objects=["codon", "amino acid"],
    scenarios=["library design", "site-saturation mutagenesis"],
    requires=BIO,
    examples=[
        (
            {"codon": "NNK"},
            {
                "codons": 32,
                "amino_acids": list("ACDEFGHIKLMNPQRSTVWY*"),
                "counts": {
                    "*": 1,
                    "A": 2,
                    "C": 1,
                    "D": 1,
                    "E": 1,
                    "F": 1,
                    "G": 2,
                    "H": 1,
                    "I": 1,
                    "K": 1,
                    "L": 3,
                    "M": 1,
                    "N": 1,
                    "P": 2,
                    "Q": 1,
                    "R": 3,
                    "S": 3,
                    "T": 2,
                    "V": 2,
                    "W": 1,
                    "Y": 1,
                },
            },
        ),
        (
            {"codon": "RAY"},
            {"codons": 4, "amino_acids": ["D", "N"], "counts": {"D": 2, "N": 2}},
        ),
    ],
)
def amino_acids_of_degenerate_codon(codon: str, table: int = 1) -> dict[str, Any]:
    """Expand an IUPAC codon and translate every member with NCBI table `table`."""
    c = strip_sequence(codon, "codon").replace("U", "T")
    if len(c) != 3:
        raise ToolInputError(f"invalid codon: expected 3 letters, got {len(c)}")
    check_letters(c, "".join(IUPAC_DNA), "codon", "IUPAC nucleotide codes ACGTRYSWKMBDHVN")
    counts = _encoded(c, table)
    order = PROTEIN_LETTERS + "*"
    return {
        "codons": sum(counts.values()),
        "amino_acids": [a for a in order if a in counts],
        "counts": dict(sorted(counts.items())),
    }


def _all_degenerate_codons(table: int) -> list[tuple[str, dict[str, int]]]:
    letters = "".join(IUPAC_DNA)
    return [
        (a + b + c, _encoded(a + b + c, table)) for a in letters for b in letters for c in letters
    ]


@tool(
    name="DegenerateCodonCalculatorbyAminoAcid",
    functionality="Find the degenerate IUPAC codon that encodes all requested amino acids with the fewest unwanted amino acids and codons.",
    inputs=["protein sequence"],
    outputs=["Simplified amino acid abbreviation"],
    category="biology",
    source="Biopython",
    objects=["codon", "amino acid"],
    scenarios=["library design", "site-saturation mutagenesis"],
    requires=BIO,
    examples=[
        (
            {"amino_acids": "DN"},
            {"codon": "RAC", "codons": 2, "encoded": ["D", "N"], "unwanted": [], "stop": False},
        ),
        (
            {"amino_acids": "FL"},
            {"codon": "TTK", "codons": 2, "encoded": ["F", "L"], "unwanted": [], "stop": False},
        ),
    ],
)
def degenerate_codon_for(amino_acids: str, table: int = 1) -> dict[str, Any]:
    """The best degenerate codon for a set of amino-acid letters.

    Ranking: fewest unwanted amino acids, then no stop codon, then fewest codons, then the
    alphabetically first codon.
    """
    target = set(clean_protein(amino_acids))
    best: tuple[Any, ...] | None = None
    for codon, counts in _all_degenerate_codons(table):
        if not target <= counts.keys():
            continue
        unwanted = sorted(set(counts) - target - {"*"})
        key = (len(unwanted), "*" in counts, sum(counts.values()), codon)
        if best is None or key < best[0]:
            best = (key, codon, counts, unwanted)
    if best is None:  # pragma: no cover - NNN encodes everything
        raise ToolInputError("no degenerate codon encodes this set")
    _, codon, counts, unwanted = best
    return {
        "codon": codon,
        "codons": sum(counts.values()),
        "encoded": [a for a in PROTEIN_LETTERS if a in counts],
        "unwanted": unwanted,
        "stop": "*" in counts,
    }


@tool(
    name="BackTranslateProtein",
    functionality="Back-translate a protein sequence into the most specific degenerate (IUPAC) DNA sequence covering every codon of each amino acid.",
    inputs=["protein sequence"],
    outputs=["DNA sequence"],
    category="biology",
    source="Biopython",
    objects=["protein", "DNA"],
    scenarios=["gene synthesis", "probe design"],
    requires=BIO,
    examples=[({"protein": "MW"}, "ATGTGG"), ({"protein": "MKF"}, "ATGAARTTY")],
)
def backtranslate(protein: str, table: int = 1) -> str:
    """Per amino acid, the smallest IUPAC codon that contains all its codons (like EMBOSS backtranambig)."""
    seq = clean_protein(protein)
    forward = codon_table(table).forward_table
    by_aa: dict[str, list[str]] = {}
    for c, aa in forward.items():
        by_aa.setdefault(aa, []).append(c)
    code_of = {frozenset(v): k for k, v in IUPAC_DNA.items()}
    cache: dict[str, str] = {}
    out = []
    for aa in seq:
        if aa not in cache:
            codons = by_aa[aa]
            cache[aa] = "".join(code_of[frozenset(c[i] for c in codons)] for i in range(3))
        out.append(cache[aa])
    return "".join(out)


@tool(
    name="CodonUsage",
    functionality="Count codon usage of an in-frame coding DNA sequence, with per-codon frequency and relative synonymous codon usage (RSCU).",
    inputs=["DNA sequence"],
    outputs=["codon usage"],
    category="biology",
    source="Biopython",
    objects=["codon", "gene"],
    scenarios=["codon optimisation", "gene expression"],
    requires=BIO,
    examples=[
        (
            {"dna": "ATGCTGCTGCTT"},
            {
                "codons": 4,
                "usage": {
                    "ATG": {"amino_acid": "M", "count": 1, "frequency": 0.25, "rscu": 1.0},
                    "CTG": {"amino_acid": "L", "count": 2, "frequency": 0.5, "rscu": 4.0},
                    "CTT": {"amino_acid": "L", "count": 1, "frequency": 0.25, "rscu": 2.0},
                },
            },
        )
    ],
)
def codon_usage(dna: str, table: int = 1) -> dict[str, Any]:
    """Codon counts in frame 1; RSCU = count / (amino-acid count / number of synonymous codons)."""
    seq = clean_dna(dna, allow_n=False, allow_rna=True)
    if len(seq) < 3:
        raise ToolInputError("DNA sequence is shorter than one codon")
    codons_table = codon_table(table)
    forward = dict(codons_table.forward_table)
    for s in codons_table.stop_codons:
        forward[s] = "*"
    synonyms: dict[str, int] = {}
    for aa in forward.values():
        synonyms[aa] = synonyms.get(aa, 0) + 1
    counts: dict[str, int] = {}
    for i in range(0, len(seq) - 2, 3):
        counts[seq[i : i + 3]] = counts.get(seq[i : i + 3], 0) + 1
    total = sum(counts.values())
    per_aa: dict[str, int] = {}
    for c, n in counts.items():
        per_aa[forward[c]] = per_aa.get(forward[c], 0) + n
    usage = {}
    for c in sorted(counts):
        aa = forward[c]
        usage[c] = {
            "amino_acid": aa,
            "count": counts[c],
            "frequency": counts[c] / total,
            "rscu": counts[c] * synonyms[aa] / per_aa[aa],
        }
    return {"codons": total, "usage": usage}
