"""Biology tools for peptides: protease digestion, peptide masses, random mutation and
peptide-library design (alanine, positional, truncation and overlap scans).
"""

from __future__ import annotations

import itertools
import random
import re
from typing import Any

from scigate.tools._tool import ToolExample, ToolInputError, tool
from scigate.tools.library.biology_common import (
    BIO,
    MAX_LENGTH,
    PROTEIN_LETTERS,
    check_positive,
    clean_protein,
    protein_analysis,
)

PEPTIDE_LIBRARY = "Peptide library(sequece length hydrophobicity)"
PROTON = 1.007276  # mass of a proton, for [M+H]+
KYTE_DOOLITTLE = {
    "A": 1.8, "R": -4.5, "N": -3.5, "D": -3.5, "C": 2.5, "Q": -3.5, "E": -3.5,
    "G": -0.4, "H": -3.2, "I": 4.5, "L": 3.8, "K": -3.9, "M": 1.9, "F": 2.8,
    "P": -1.6, "S": -0.8, "T": -0.7, "W": -0.9, "Y": -1.3, "V": 4.2,
}  # fmt: skip  # Kyte & Doolittle (1982), used to state the examples independently


def _gravy(seq: str) -> float:
    return float(protein_analysis(seq).gravy())


# --- proteases -------------------------------------------------------------------------------

# Cleavage rules as in ExPASy PeptideCutter (simplified to the residue rules).
PROTEASES: dict[str, tuple[str, str]] = {
    "trypsin": (r"(?<=[KR])(?!P)", "after K or R, not before P"),
    "chymotrypsin": (r"(?<=[FYW])(?!P)", "after F, Y or W, not before P (high specificity)"),
    "lys-c": (r"(?<=K)", "after K"),
    "arg-c": (r"(?<=R)", "after R"),
    "glu-c": (r"(?<=E)", "after E (bicarbonate buffer)"),
    "asp-n": (r"(?=D)", "before D"),
    "cnbr": (r"(?<=M)", "after M (cyanogen bromide)"),
    "formic acid": (r"(?<=D)", "after D"),
}
_PROTEASE_KEYS = {re.sub(r"[^a-z]", "", k): k for k in PROTEASES}


def _protease(name: str) -> str:
    key = _PROTEASE_KEYS.get(re.sub(r"[^a-z]", "", name.lower()))
    if key is None:
        raise ToolInputError(f"unknown protease {name!r}; known: {', '.join(PROTEASES)}")
    return key


def cleavage_sites(seq: str, protease: str) -> list[int]:
    """Residue numbers (1-based) after which `protease` cuts."""
    pattern = PROTEASES[protease][0]
    return [m.start() for m in re.finditer(pattern, seq) if 0 < m.start() < len(seq)]


def _fragments(seq: str, sites: list[int]) -> list[dict[str, Any]]:
    bounds = [0, *sites, len(seq)]
    return [{"start": a + 1, "end": b, "sequence": seq[a:b]} for a, b in itertools.pairwise(bounds)]


@tool(
    name="ProteaseDigestion",
    functionality="Simulate digestion of a protein by a protease (trypsin, chymotrypsin, Lys-C, Arg-C, Glu-C, Asp-N, CNBr, formic acid): cleavage sites and products.",
    inputs=["Protein sequence", "protease"],
    outputs=["the hydrolysis results of peptide substrates (cleavage site and products)"],
    category="biology",
    source="Python (ExPASy PeptideCutter rules)",
    objects=["protein", "protease", "peptide"],
    scenarios=["proteomics", "mass spectrometry"],
    examples=[
        (
            {"protein": "MKWVRPAKSE", "protease": "trypsin"},
            {
                "protease": "trypsin",
                "rule": "after K or R, not before P",
                "sites": [2, 8],
                "products": [
                    {"start": 1, "end": 2, "sequence": "MK"},
                    {"start": 3, "end": 8, "sequence": "WVRPAK"},
                    {"start": 9, "end": 10, "sequence": "SE"},
                ],
            },
        )
    ],
)
def protease_digestion(protein: str, protease: str = "trypsin") -> dict[str, Any]:
    """Complete digestion (no missed cleavages) with the protease's cleavage rule."""
    seq = clean_protein(protein)
    key = _protease(protease)
    sites = cleavage_sites(seq, key)
    return {
        "protease": key,
        "rule": PROTEASES[key][1],
        "sites": sites,
        "products": _fragments(seq, sites),
    }


@tool(
    name="CutPeptide",
    functionality="Predict potential protease cleavage sites in a protein sequence for every known enzyme rule (PeptideCutter-style).",
    inputs=["protein sequence"],
    outputs=["possible cleavage sites"],
    category="biology",
    source="Python (ExPASy PeptideCutter rules)",
    objects=["protein", "protease"],
    scenarios=["proteomics"],
    examples=[
        (
            {"protein": "MKDFE"},
            {
                "trypsin": [2],
                "chymotrypsin": [4],
                "lys-c": [2],
                "glu-c": [],
                "asp-n": [2],
                "cnbr": [1],
                "formic acid": [3],
                "arg-c": [],
            },
        )
    ],
)
def cut_peptide(protein: str) -> dict[str, list[int]]:
    """Sites (residue after which the cut falls) for each protease rule."""
    seq = clean_protein(protein)
    return {name: cleavage_sites(seq, name) for name in PROTEASES}


@tool(
    name="PredictPeptideMass",
    functionality="Digest a protein with a chosen protease (allowing missed cleavages) and compute the monoisotopic or average masses and [M+H]+ of the peptides, like ExPASy PeptideMass.",
    inputs=["protein sequence"],
    outputs=["the masses of peptides"],
    category="biology",
    source="Biopython",
    objects=["protein", "peptide"],
    scenarios=["mass spectrometry", "peptide mass fingerprinting"],
    requires=BIO,
    examples=[
        ToolExample(
            input={"protein": "SAMPLERK"},
            output=[
                {
                    "start": 1,
                    "end": 7,
                    "sequence": "SAMPLER",
                    "missed_cleavages": 0,
                    "mass": 802.400722,
                    "mh_plus": 803.407998,
                },
                {
                    "start": 8,
                    "end": 8,
                    "sequence": "K",
                    "missed_cleavages": 0,
                    "mass": 146.105528,
                    "mh_plus": 147.112804,
                },
            ],
            rel_tol=1e-7,
        )
    ],
)
def predict_peptide_mass(
    protein: str, protease: str = "trypsin", missed_cleavages: int = 0, monoisotopic: bool = True
) -> list[dict[str, Any]]:
    """Peptides from the digest (up to `missed_cleavages` joined), neutral mass and [M+H]+."""
    from Bio.SeqUtils import molecular_weight

    seq = clean_protein(protein)
    key = _protease(protease)
    if not 0 <= missed_cleavages <= 5:
        raise ToolInputError("missed_cleavages must be between 0 and 5")
    frags = _fragments(seq, cleavage_sites(seq, key))
    out = []
    for i in range(len(frags)):
        for m in range(missed_cleavages + 1):
            if i + m >= len(frags):
                break
            a, b = frags[i]["start"], frags[i + m]["end"]
            pep = seq[a - 1 : b]
            mass = float(molecular_weight(pep, "protein", monoisotopic=monoisotopic))
            out.append(
                {
                    "start": a,
                    "end": b,
                    "sequence": pep,
                    "missed_cleavages": m,
                    "mass": mass,
                    "mh_plus": mass + PROTON,
                }
            )
    return out


# --- mutation and libraries ------------------------------------------------------------------


@tool(
    name="RandomMutation",
    functionality="Randomly substitute one (or more) residues of a protein sequence with different amino acids (seeded, reproducible).",
    inputs=["protein sequence"],
    outputs=["protein sequence"],
    category="biology",
    source="Python random (seeded)",
    objects=["protein", "mutation"],
    scenarios=["directed evolution", "protein engineering"],
    examples=[({"protein": "MKTAYIAKQR", "seed": 1}, "MKYAYIAKQR")],
)
def random_mutation(protein: str, seed: int = 0, n_mutations: int = 1) -> str:
    """Mutate `n_mutations` distinct positions, each to a different standard amino acid."""
    seq = list(clean_protein(protein))
    check_positive(n_mutations, "n_mutations", len(seq))
    rng = random.Random(seed)
    for pos in rng.sample(range(len(seq)), n_mutations):
        seq[pos] = rng.choice([a for a in PROTEIN_LETTERS if a != seq[pos]])
    return "".join(seq)


@tool(
    name="GenerateRandSequence",
    functionality="Generate a random protein sequence of a given length from the 20 standard amino acids (seeded, reproducible).",
    inputs=["protein length"],
    outputs=["protein sequence"],
    category="biology",
    source="Python random (seeded)",
    objects=["protein"],
    scenarios=["negative controls", "simulation"],
    examples=[({"length": 10, "seed": 3}, "FMIPPCATGF")],
)
def random_protein(length: int, seed: int = 0) -> str:
    """`length` residues drawn uniformly with `random.Random(seed)`."""
    check_positive(length, "length", MAX_LENGTH)
    rng = random.Random(seed)
    return "".join(rng.choices(PROTEIN_LETTERS, k=length))


def _library_entry(seq: str, **extra: Any) -> dict[str, Any]:
    return {**extra, "sequence": seq, "length": len(seq), "hydrophobicity": _gravy(seq)}


@tool(
    name="AlanineScanningLibraryDesign",
    functionality="Design an alanine-scanning peptide library: every non-alanine residue replaced by alanine in turn, with length and GRAVY hydrophobicity.",
    inputs=["protein sequence"],
    outputs=[PEPTIDE_LIBRARY],
    category="biology",
    source="Biopython",
    objects=["peptide", "library"],
    scenarios=["epitope mapping", "protein engineering"],
    requires=BIO,
    examples=[
        (
            {"protein": "KAR"},
            [
                {
                    "mutation": "K1A",
                    "sequence": "AAR",
                    "length": 3,
                    "hydrophobicity": (1.8 * 2 - 4.5) / 3,
                },
                {
                    "mutation": "R3A",
                    "sequence": "KAA",
                    "length": 3,
                    "hydrophobicity": (1.8 * 2 - 3.9) / 3,
                },
            ],
        )
    ],
)
def alanine_scan(protein: str) -> list[dict[str, Any]]:
    """One variant per non-Ala position, labelled like K1A."""
    seq = clean_protein(protein)
    return [
        _library_entry(seq[:i] + "A" + seq[i + 1 :], mutation=f"{a}{i + 1}A")
        for i, a in enumerate(seq)
        if a != "A"
    ]


@tool(
    name="PositionalScanningLibraryDesign",
    functionality="Design a positional scanning library: the residue at one position replaced by each of the other 19 amino acids.",
    inputs=["protein sequence", "residue position"],
    outputs=[PEPTIDE_LIBRARY],
    category="biology",
    source="Biopython",
    objects=["peptide", "library"],
    scenarios=["protein engineering", "specificity profiling"],
    requires=BIO,
    examples=[
        (
            {"protein": "GA", "position": 2},
            [
                {
                    "mutation": f"A2{a}",
                    "sequence": "G" + a,
                    "length": 2,
                    "hydrophobicity": (KYTE_DOOLITTLE["G"] + KYTE_DOOLITTLE[a]) / 2,
                }
                for a in PROTEIN_LETTERS
                if a != "A"
            ],
        )
    ],
)
def positional_scan(protein: str, position: int) -> list[dict[str, Any]]:
    """19 variants at 1-based `position`."""
    seq = clean_protein(protein)
    check_positive(position, "position", len(seq))
    i = position - 1
    return [
        _library_entry(seq[:i] + a + seq[i + 1 :], mutation=f"{seq[i]}{position}{a}")
        for a in PROTEIN_LETTERS
        if a != seq[i]
    ]


@tool(
    name="TruncationLibraryDesign",
    functionality="Design a truncation library: N-terminal and C-terminal truncations removing one residue at a time down to a minimum length.",
    inputs=["protein sequence"],
    outputs=[PEPTIDE_LIBRARY],
    category="biology",
    source="Biopython",
    objects=["peptide", "library"],
    scenarios=["minimal epitope mapping", "domain boundary mapping"],
    requires=BIO,
    examples=[
        (
            {"protein": "IKR", "min_length": 2},
            [
                {
                    "truncation": "N-terminal",
                    "removed": 1,
                    "sequence": "KR",
                    "length": 2,
                    "hydrophobicity": -4.2,
                },
                {
                    "truncation": "C-terminal",
                    "removed": 1,
                    "sequence": "IK",
                    "length": 2,
                    "hydrophobicity": 0.3,
                },
            ],
        )
    ],
)
def truncation_library(protein: str, min_length: int = 5) -> list[dict[str, Any]]:
    """All N- then C-terminal truncations with at least `min_length` residues."""
    seq = clean_protein(protein)
    check_positive(min_length, "min_length")
    n = len(seq)
    out = [
        _library_entry(seq[k:], truncation="N-terminal", removed=k)
        for k in range(1, n - min_length + 1)
    ]
    out += [
        _library_entry(seq[: n - k], truncation="C-terminal", removed=k)
        for k in range(1, n - min_length + 1)
    ]
    return out


@tool(
    name="OverlapPeptideLibraryDesign",
    functionality="Design an overlapping peptide library: peptides of a given length tiling the protein with a given overlap.",
    inputs=["protein sequence", "peptide length", "overlapping lenth"],
    outputs=[PEPTIDE_LIBRARY],
    category="biology",
    source="Biopython",
    objects=["peptide", "library"],
    scenarios=["epitope mapping", "T-cell assays"],
    requires=BIO,
    examples=[
        (
            {"protein": "AAAAIIII", "peptide_length": 4, "overlap": 2},
            [
                {"start": 1, "end": 4, "sequence": "AAAA", "length": 4, "hydrophobicity": 1.8},
                {"start": 3, "end": 6, "sequence": "AAII", "length": 4, "hydrophobicity": 3.15},
                {"start": 5, "end": 8, "sequence": "IIII", "length": 4, "hydrophobicity": 4.5},
            ],
        )
    ],
)
def overlap_library(
    protein: str, peptide_length: int = 15, overlap: int = 10
) -> list[dict[str, Any]]:
    """Peptides start every `peptide_length - overlap` residues; the last one ends at the C-terminus."""
    seq = clean_protein(protein)
    check_positive(peptide_length, "peptide_length", len(seq))
    if not 0 <= overlap < peptide_length:
        raise ToolInputError("overlap must be at least 0 and smaller than peptide_length")
    step = peptide_length - overlap
    starts = list(range(0, len(seq) - peptide_length + 1, step))
    if starts[-1] + peptide_length < len(seq):
        starts.append(len(seq) - peptide_length)
    return [
        _library_entry(seq[s : s + peptide_length], start=s + 1, end=s + peptide_length)
        for s in starts
    ]
