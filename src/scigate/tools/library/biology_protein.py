"""Biology tools for protein sequences (Biopython ProtParam): physico-chemical properties,
pI, extinction coefficients, scales, composition and letter-code conversion.

The catalogue lists several of these as ExPASy web services; here they run offline with
Bio.SeqUtils.ProtParam, whose parameters follow ExPASy ProtParam (Gasteiger et al. 2005).
Digestion, mass and peptide-library tools live in `biology_peptides`.
"""

from __future__ import annotations

import re
from typing import Any

from scigate.tools._tool import ToolExample, ToolInputError, tool
from scigate.tools.library.biology_common import (
    BIO,
    PROTEIN_LETTERS,
    check_positive,
    clean_protein,
    find_repeats,
    protein_analysis,
)

INSULIN = (
    "MALWMRLLPLLALLALWGPDPAAAFVNQHLCGSHLVEALYLVCGERGFFYTPKTRREAEDLQVGQVELGGGPGAGSLQPLALEGSLQKR"
    "GIVEQCCTSICSLYQLENYCN"
)  # human preproinsulin, UniProt P01308
PEPTIDE = "MKWVTFISLLFLFSSAYSRGVFRR"  # albumin signal peptide + propeptide (P02768 1-24)


# --- properties -----------------------------------------------------------------------------


@tool(
    name="ComputeProtPara",
    functionality="Compute physico-chemical parameters of a protein sequence (ExPASy ProtParam equivalent): length, molecular weight, pI, aromaticity, instability index, GRAVY, extinction coefficients, secondary-structure fractions.",
    inputs=["protein sequence"],
    outputs=["protein properties"],
    category="biology",
    source="Biopython",
    objects=["protein"],
    scenarios=["protein characterisation", "protein expression"],
    requires=BIO,
    examples=[
        ToolExample(
            input={"protein": PEPTIDE},
            output={
                "length": 24,
                "molecular_weight": 2912.4537,
                "isoelectric_point": 11.7229,
                "aromaticity": 0.25,
                "instability_index": 44.0292,
                "stable": False,
                "gravy": 0.6375,
                "extinction_coefficient_reduced": 6990,
                "extinction_coefficient_cystines": 6990,
                "charge_at_pH7": 3.4983,
                "secondary_structure_fraction": {
                    "helix": 0.25,
                    "turn": 0.208333,
                    "sheet": 0.541667,
                },
            },
            rel_tol=1e-4,
        )
    ],
)
def compute_protparam(protein: str) -> dict[str, Any]:
    """ProtParam values; `stable` is instability index < 40 (Guruprasad et al. 1990)."""
    seq = clean_protein(protein)
    pa = protein_analysis(seq)
    reduced, cystines = pa.molar_extinction_coefficient()
    helix, turn, sheet = pa.secondary_structure_fraction()
    ii = float(pa.instability_index()) if len(seq) > 1 else 0.0
    return {
        "length": len(seq),
        "molecular_weight": float(pa.molecular_weight()),
        "isoelectric_point": float(pa.isoelectric_point()),
        "aromaticity": float(pa.aromaticity()),
        "instability_index": ii,
        "stable": ii < 40,
        "gravy": float(pa.gravy()),
        "extinction_coefficient_reduced": reduced,
        "extinction_coefficient_cystines": cystines,
        "charge_at_pH7": float(pa.charge_at_pH(7.0)),
        "secondary_structure_fraction": {"helix": helix, "turn": turn, "sheet": sheet},
    }


@tool(
    name="ComputePiMw",
    functionality="Compute the theoretical isoelectric point (pI) and average molecular weight (Da) of a protein sequence (ExPASy Compute pI/Mw method).",
    inputs=["protein sequence"],
    outputs=["the value of Pi", "the value of Mw"],
    category="biology",
    source="Biopython",
    objects=["protein"],
    scenarios=["2D gel electrophoresis", "protein characterisation"],
    requires=BIO,
    examples=[
        ToolExample(
            input={"protein": INSULIN},
            output={"pi": 5.22, "mw": 11981.0},
            rel_tol=1e-4,
            abs_tol=0.01,
        ),
        ToolExample(
            input={"protein": PEPTIDE}, output={"pi": 11.7229, "mw": 2912.4537}, rel_tol=1e-4
        ),
    ],
)
def compute_pi_mw(protein: str) -> dict[str, float]:
    """pI (Bjellqvist pK values) and average molecular weight."""
    pa = protein_analysis(clean_protein(protein))
    return {"pi": float(pa.isoelectric_point()), "mw": float(pa.molecular_weight())}


# pK values of ionisable groups: (N-term, C-term, K, R, H, D, E, C, Y), from the EMBOSS
# iep data file, Lehninger "Principles of Biochemistry" and Solomon "Organic Chemistry".
_PKA_SETS: dict[str, dict[str, float]] = {
    "emboss": {
        "Nterm": 8.6,
        "Cterm": 3.6,
        "K": 10.8,
        "R": 12.5,
        "H": 6.5,
        "D": 3.9,
        "E": 4.1,
        "C": 8.5,
        "Y": 10.1,
    },
    "lehninger": {
        "Nterm": 9.69,
        "Cterm": 2.34,
        "K": 10.5,
        "R": 12.4,
        "H": 6.0,
        "D": 3.86,
        "E": 4.25,
        "C": 8.33,
        "Y": 10.0,
    },
    "solomon": {
        "Nterm": 9.6,
        "Cterm": 2.4,
        "K": 10.5,
        "R": 12.5,
        "H": 6.0,
        "D": 3.9,
        "E": 4.3,
        "C": 8.3,
        "Y": 10.1,
    },
}


def _pi_from_pkas(seq: str, pk: dict[str, float]) -> float:
    def charge(ph: float) -> float:
        pos = 1 / (1 + 10 ** (ph - pk["Nterm"])) + sum(
            seq.count(a) / (1 + 10 ** (ph - pk[a])) for a in "KRH"
        )
        neg = 1 / (1 + 10 ** (pk["Cterm"] - ph)) + sum(
            seq.count(a) / (1 + 10 ** (pk[a] - ph)) for a in "DECY"
        )
        return pos - neg

    lo, hi = 0.0, 14.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if charge(mid) > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


@tool(
    name="ProteinIsoelectricPointCalculator",
    functionality="Calculate the isoelectric point of a protein with a chosen pKa set: Bjellqvist/ExPASy (Biopython), EMBOSS, Lehninger or Solomon.",
    inputs=["Protein sequence", "pKa source"],
    outputs=["Isoelectric point"],
    category="biology",
    source="Biopython",
    objects=["protein"],
    scenarios=["protein purification", "electrophoresis"],
    requires=BIO,
    examples=[
        ToolExample(input={"protein": "G", "pka_source": "EMBOSS"}, output=6.1, rel_tol=1e-6),
        ToolExample(input={"protein": "G", "pka_source": "Lehninger"}, output=6.015, rel_tol=1e-6),
        ToolExample(input={"protein": INSULIN}, output=5.2186, rel_tol=1e-4),
    ],
)
def isoelectric_point(protein: str, pka_source: str = "Bjellqvist") -> float:
    """pH of zero net charge; Bjellqvist (default, as ExPASy) or a textbook pKa set by bisection."""
    seq = clean_protein(protein)
    key = pka_source.strip().lower()
    if key in ("bjellqvist", "expasy", "biopython", ""):
        return float(protein_analysis(seq).isoelectric_point())
    if key not in _PKA_SETS:
        raise ToolInputError(
            f"unknown pKa source {pka_source!r}; use Bjellqvist, EMBOSS, Lehninger or Solomon"
        )
    return _pi_from_pkas(seq, _PKA_SETS[key])


@tool(
    name="ComputeExtinctionCoefficient",
    functionality="Compute the molar extinction coefficient at 280 nm of a protein (reduced and all-cystine forms), Abs 0.1 %, pI and, given an absorbance, the protein concentration.",
    inputs=["protein sequence"],
    outputs=["molar extinction coefficient"],
    category="biology",
    source="Biopython",
    objects=["protein"],
    scenarios=["protein quantification", "UV spectroscopy"],
    requires=BIO,
    examples=[
        ToolExample(
            input={"protein": "WYC", "absorbance_280": 0.5},
            output={
                "extinction_coefficient_reduced": 6990,
                "extinction_coefficient_cystines": 6990,
                "abs_0_1_percent_reduced": 6990 / 470.5413,
                "abs_0_1_percent_cystines": 6990 / 470.5413,
                "molecular_weight": 470.5413,
                "isoelectric_point": 5.5174,
                "concentration_uM": 0.5 / 6990 * 1e6,
                "concentration_mg_per_ml": 0.5 / 6990 * 470.5413,
            },
            rel_tol=1e-3,
            abs_tol=0.01,
        )
    ],
)
def extinction_coefficient(
    protein: str, absorbance_280: float = 0.0, path_length_cm: float = 1.0
) -> dict[str, Any]:
    """ε280 = 5500 W + 1490 Y (+ 125 per cystine) M⁻¹cm⁻¹ (Pace et al. 1995), as ExPASy.

    With `absorbance_280` > 0 the concentration follows from Beer-Lambert with the
    reduced-cysteine coefficient.
    """
    seq = clean_protein(protein)
    if path_length_cm <= 0:
        raise ToolInputError("path_length_cm must be positive")
    pa = protein_analysis(seq)
    reduced, cystines = pa.molar_extinction_coefficient()
    mw = float(pa.molecular_weight())
    out: dict[str, Any] = {
        "extinction_coefficient_reduced": reduced,
        "extinction_coefficient_cystines": cystines,
        "abs_0_1_percent_reduced": reduced / mw,
        "abs_0_1_percent_cystines": cystines / mw,
        "molecular_weight": mw,
        "isoelectric_point": float(pa.isoelectric_point()),
    }
    if absorbance_280 > 0:
        if reduced == 0:
            raise ToolInputError("the protein has no W, Y or C: it does not absorb at 280 nm")
        molar = absorbance_280 / (reduced * path_length_cm)
        out["concentration_uM"] = molar * 1e6
        out["concentration_mg_per_ml"] = molar * mw
    return out


_SCALES = {"kd": "kd", "kyte-doolittle": "kd", "hw": "hw", "hopp-woods": "hw", "em": "em"}
_SCALES |= {"eisenberg": "em", "ja": "ja", "janin": "ja", "flex": "Flex", "flexibility": "Flex"}


@tool(
    name="ComputeProtScale",
    functionality="Compute a sliding-window amino-acid scale profile of a protein (Kyte-Doolittle hydropathy by default; Hopp-Woods, Eisenberg, Janin, flexibility).",
    inputs=["protein sequence"],
    outputs=["protein profile"],
    category="biology",
    source="Biopython",
    objects=["protein"],
    scenarios=["transmembrane prediction", "antigenicity"],
    requires=BIO,
    examples=[
        ToolExample(
            input={"protein": "IIIRRR", "window": 3},
            output=[
                {"position": 2, "score": 4.5},
                {"position": 3, "score": (9.0 - 4.5) / 3},
                {"position": 4, "score": (4.5 - 9.0) / 3},
                {"position": 5, "score": -4.5},
            ],
            rel_tol=1e-9,
        )
    ],
)
def protscale(
    protein: str, window: int = 9, scale: str = "Kyte-Doolittle", edge: float = 1.0
) -> list[dict[str, float]]:
    """Window averages (ProtParam.protein_scale); `position` is the 1-based window centre."""
    from Bio.SeqUtils import ProtParamData

    seq = clean_protein(protein)
    key = _SCALES.get(scale.strip().lower())
    if key is None:
        raise ToolInputError(
            f"unknown scale {scale!r}; use Kyte-Doolittle, Hopp-Woods, Eisenberg, Janin or flexibility"
        )
    if window < 1 or window % 2 == 0:
        raise ToolInputError(f"window must be an odd positive integer, got {window}")
    if window > len(seq):
        raise ToolInputError(f"window {window} is longer than the sequence ({len(seq)})")
    if key == "Flex":
        if window != 9:
            raise ToolInputError("the flexibility scale uses its own fixed 9-residue window")
        values = protein_analysis(seq).flexibility()
    else:
        values = protein_analysis(seq).protein_scale(getattr(ProtParamData, key), window, edge)
    first = (window + 1) // 2
    return [{"position": first + i, "score": float(v)} for i, v in enumerate(values)]


@tool(
    name="AminoAcidStatistics",
    functionality="Count each of the 20 amino acids in a protein sequence and give its percentage.",
    inputs=["protein sequence"],
    outputs=["Number of amino acids"],
    category="biology",
    source="Biopython",
    objects=["protein", "amino acid"],
    scenarios=["protein characterisation"],
    requires=BIO,
    examples=[
        (
            {"protein": "AACW"},
            {
                "length": 4,
                "counts": {"A": 2, "C": 1, "W": 1},
                "percent": {"A": 50.0, "C": 25.0, "W": 25.0},
            },
        )
    ],
)
def amino_acid_statistics(protein: str) -> dict[str, Any]:
    """Counts and percentages of the amino acids present (ProteinAnalysis.count_amino_acids)."""
    seq = clean_protein(protein)
    counts = {a: n for a, n in protein_analysis(seq).count_amino_acids().items() if n}
    return {
        "length": len(seq),
        "counts": counts,
        "percent": {a: 100 * n / len(seq) for a, n in counts.items()},
    }


@tool(
    name="GetAminoAcidFrequency",
    functionality="Calculate the frequency (fraction of residues) of each of the 20 amino acids in a protein sequence.",
    inputs=["protein sequence"],
    outputs=["Amino acid frequencies"],
    category="biology",
    source="Biopython",
    objects=["protein", "amino acid"],
    scenarios=["protein characterisation"],
    requires=BIO,
    examples=[
        (
            {"protein": "AAC"},
            {a: (2 / 3 if a == "A" else 1 / 3 if a == "C" else 0.0) for a in PROTEIN_LETTERS},
        )
    ],
)
def amino_acid_frequency(protein: str) -> dict[str, float]:
    """Fractions for all 20 amino acids (zeros included)."""
    seq = clean_protein(protein)
    return {a: seq.count(a) / len(seq) for a in PROTEIN_LETTERS}


_POLAR = set("STNQYCDEKRH")


@tool(
    name="CalculateHydrophobicityAndPolarity",
    functionality="Calculate the hydropathy (GRAVY, Kyte-Doolittle), the fraction of polar residues and the estimated isoelectric point of a protein.",
    inputs=["protein sequence"],
    outputs=["Hydropathy index and estimated isoelectric point (pI)"],
    category="biology",
    source="Biopython",
    objects=["protein"],
    scenarios=["protein characterisation", "solubility"],
    requires=BIO,
    examples=[
        ToolExample(
            input={"protein": "IIRR"},
            output={"gravy": 0.0, "polar_fraction": 0.5, "isoelectric_point": 12.0},
            abs_tol=0.3,
        )
    ],
)
def hydrophobicity_polarity(protein: str) -> dict[str, float]:
    """GRAVY, fraction of polar residues (S T N Q Y C D E K R H) and pI."""
    seq = clean_protein(protein)
    pa = protein_analysis(seq)
    return {
        "gravy": float(pa.gravy()),
        "polar_fraction": sum(a in _POLAR for a in seq) / len(seq),
        "isoelectric_point": float(pa.isoelectric_point()),
    }


@tool(
    name="ConvertProteinOneToThreeLetter",
    functionality="Convert a one-letter protein sequence into three-letter amino-acid codes.",
    inputs=["protein sequence"],
    outputs=["three-letter protein sequence"],
    category="biology",
    source="Biopython",
    objects=["protein"],
    scenarios=["sequence formatting"],
    requires=BIO,
    examples=[({"protein": "MAK"}, "MetAlaLys")],
)
def one_to_three(protein: str) -> str:
    """Bio.SeqUtils.seq3 of the sequence."""
    from Bio.SeqUtils import seq3

    return seq3(clean_protein(protein))


@tool(
    name="ConvertProteinThreeToOneLetter",
    functionality="Convert a protein written in three-letter amino-acid codes (e.g. MetAlaLys) into one-letter codes.",
    inputs=["three-letter protein sequence"],
    outputs=["protein sequence"],
    category="biology",
    source="Biopython",
    objects=["protein"],
    scenarios=["sequence formatting"],
    requires=BIO,
    examples=[({"sequence": "MetAlaLys"}, "MAK"), ({"sequence": "Met-Ala-Lys"}, "MAK")],
)
def three_to_one(sequence: str) -> str:
    """Bio.SeqUtils.seq1 after removing separators; unknown codes are refused."""
    from Bio.SeqUtils import seq1

    text = re.sub(r"[\s\-_,;]+", "", sequence)
    if not text:
        raise ToolInputError("invalid three-letter sequence: the sequence is empty")
    if len(text) % 3:
        raise ToolInputError("invalid three-letter sequence: length is not a multiple of 3")
    out = seq1(text)
    if "X" in out:
        i = out.index("X")
        raise ToolInputError(
            f"invalid three-letter sequence: unknown code {text[3 * i : 3 * i + 3]!r} at residue {i + 1}"
        )
    return out


@tool(
    name="RepeatProteinSequenceSearch",
    functionality="Find fragments of a given length that occur more than once in a protein sequence, with their positions.",
    inputs=["protein sequence", "protein length"],
    outputs=["repeat segment"],
    category="biology",
    source="Python",
    objects=["protein", "repeat"],
    scenarios=["protein domain analysis"],
    examples=[
        (
            {"protein": "MKTAYKTAYQ", "length": 4},
            [{"repeat": "KTAY", "count": 2, "positions": [2, 6]}],
        )
    ],
)
def repeat_protein_search(
    protein: str, length: int = 5, min_count: int = 2
) -> list[dict[str, Any]]:
    """Repeated fragments of exactly `length` residues (1-based start positions; top 100)."""
    seq = clean_protein(protein)
    check_positive(length, "length")
    check_positive(min_count, "min_count")
    return find_repeats(seq, length, min_count)
