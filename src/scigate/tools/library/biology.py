"""Biology tools for nucleic acids (Biopython): translation, strands, ORFs, composition,
molecular weights and random DNA.

Codon tools live in `biology_codons`, motif searches in `biology_motifs` and the shared
sequence-checking helpers in `biology_common`. Biopython is imported inside the function
bodies so that loading the library stays fast.
"""

from __future__ import annotations

import random
from typing import Any

from scigate.tools._tool import ToolExample, ToolInputError, tool
from scigate.tools.library.biology_common import (
    BIO,
    MAX_LENGTH,
    check_positive,
    clean_dna,
    clean_nucleic,
    clean_rna,
    codon_table,
    reverse_complement,
    translate,
)


def _seq_method(dna: str, method: str) -> str:
    """``Bio.Seq.Seq(dna).<method>()`` of a validated DNA sequence, as text."""
    from Bio.Seq import Seq

    return str(getattr(Seq(clean_dna(dna)), method)())


# --- translation and strands -------------------------------------------------------------


@tool(
    name="TranslateDNAtoAminoAcidSequence",
    functionality="Translate a DNA sequence into a protein sequence in a chosen reading frame (1-3 forward, -1 to -3 reverse) with an NCBI genetic code.",
    inputs=["DNA sequence"],
    outputs=["protein sequence"],
    category="biology",
    source="Biopython",
    objects=["DNA", "protein"],
    scenarios=["gene expression", "sequence analysis"],
    requires=BIO,
    examples=[
        ({"dna": "ATGGCCATTGTAATGGGCCGCTGAAAGGGTGCCCGATAG"}, "MAIVMGR*KGAR*"),
        ({"dna": "ATGGCCATTGTAATGGGCCGCTGAAAGGGTGCCCGATAG", "to_stop": True}, "MAIVMGR"),
    ],
)
def translate_dna(dna: str, frame: int = 1, table: int = 1, to_stop: bool = False) -> str:
    """Translate `dna` in `frame`; stops are shown as '*' unless `to_stop` ends at the first."""
    seq = clean_dna(dna, allow_rna=True)
    if frame not in (1, 2, 3, -1, -2, -3):
        raise ToolInputError(f"frame must be 1, 2, 3, -1, -2 or -3, got {frame}")
    if frame < 0:
        seq = reverse_complement(seq)
    seq = seq[abs(frame) - 1 :]
    if len(seq) < 3:
        raise ToolInputError("DNA sequence is shorter than one codon in this frame")
    return translate(seq, table, to_stop)


@tool(
    name="SixFrameTranslation",
    functionality="Translate a DNA sequence in all six reading frames (three forward, three on the reverse complement).",
    inputs=["DNA sequence"],
    outputs=["protein sequence"],
    category="biology",
    source="Biopython",
    objects=["DNA", "protein"],
    scenarios=["gene finding"],
    requires=BIO,
    examples=[
        (
            {"dna": "ATGAAATAG"},
            {"+1": "MK*", "+2": "*N", "+3": "EI", "-1": "LFH", "-2": "YF", "-3": "IS"},
        )
    ],
)
def six_frame_translation(dna: str, table: int = 1) -> dict[str, str]:
    """Translations of all six frames keyed '+1'..'+3', '-1'..'-3'."""
    seq = clean_dna(dna, allow_rna=True)
    rc = reverse_complement(seq)
    out = {}
    for strand, s in (("+", seq), ("-", rc)):
        for f in range(3):
            out[f"{strand}{f + 1}"] = translate(s[f:], table) if len(s) - f >= 3 else ""
    return out


@tool(
    name="GetReverseComplement",
    functionality="Generate the reverse complement of a DNA sequence.",
    inputs=["DNA sequence"],
    outputs=["Reverse complement sequence"],
    category="biology",
    source="Biopython",
    objects=["DNA"],
    scenarios=["primer design", "sequence analysis"],
    requires=BIO,
    examples=[({"dna": "ATGCGTAC"}, "GTACGCAT"), ({"dna": "AAAN"}, "NTTT")],
)
def get_reverse_complement(dna: str) -> str:
    """Reverse complement of `dna` (via Bio.Seq)."""
    return _seq_method(dna, "reverse_complement")


@tool(
    name="GetComplement",
    functionality="Generate the complement (not reversed) of a DNA sequence.",
    inputs=["DNA sequence"],
    outputs=["DNA sequence"],
    category="biology",
    source="Biopython",
    objects=["DNA"],
    scenarios=["sequence analysis"],
    requires=BIO,
    examples=[({"dna": "ATGCGTAC"}, "TACGCATG")],
)
def get_complement(dna: str) -> str:
    """Complement of `dna` read 5'->3' on the original orientation."""
    return _seq_method(dna, "complement")


@tool(
    name="TranscribeDNAtoRNA",
    functionality="Transcribe a coding-strand DNA sequence into messenger RNA (T becomes U).",
    inputs=["DNA sequence"],
    outputs=["RNA sequence"],
    category="biology",
    source="Biopython",
    objects=["DNA", "RNA"],
    scenarios=["gene expression"],
    requires=BIO,
    examples=[({"dna": "ATGGCCTAA"}, "AUGGCCUAA")],
)
def transcribe_dna(dna: str) -> str:
    """mRNA of a coding-strand DNA sequence."""
    return _seq_method(dna, "transcribe")


@tool(
    name="BackTranscribeRNAtoDNA",
    functionality="Back-transcribe an RNA sequence into the coding-strand DNA sequence (U becomes T).",
    inputs=["RNA sequence"],
    outputs=["DNA sequence"],
    category="biology",
    source="Biopython",
    objects=["RNA", "DNA"],
    scenarios=["cDNA synthesis"],
    requires=BIO,
    examples=[({"rna": "AUGGCCUAA"}, "ATGGCCTAA")],
)
def back_transcribe_rna(rna: str) -> str:
    """Coding-strand DNA of an RNA sequence."""
    from Bio.Seq import Seq

    return str(Seq(clean_rna(rna)).back_transcribe())


@tool(
    name="FindORF",
    functionality="Find open reading frames (ATG to stop codon) on both strands of a DNA sequence, longest first.",
    inputs=["DNA sequence"],
    outputs=["Open Reading Frame"],
    category="biology",
    source="Biopython",
    objects=["DNA", "open reading frame"],
    scenarios=["gene finding", "genome annotation"],
    requires=BIO,
    examples=[
        (
            {"dna": "CCATGAAACCCGGGTAGCC", "min_length": 9},
            [
                {
                    "strand": "+",
                    "frame": 3,
                    "start": 3,
                    "end": 17,
                    "length_nt": 15,
                    "protein": "MKPG",
                }
            ],
        )
    ],
)
def find_orf(dna: str, min_length: int = 75, table: int = 1) -> list[dict[str, Any]]:
    """ORFs of at least `min_length` nucleotides (stop included), as in NCBI ORFfinder.

    Only the outermost ATG of each ORF is reported (nested ORFs are ignored); `start` and
    `end` are 1-based coordinates on the forward strand.
    """
    seq = clean_dna(dna, allow_rna=True)
    check_positive(min_length, "min_length")
    codons = codon_table(table)
    stops = set(codons.stop_codons)
    n = len(seq)
    orfs: list[dict[str, Any]] = []
    for strand, s in (("+", seq), ("-", reverse_complement(seq))):
        for frame in range(3):
            start = None
            for i in range(frame, n - 2, 3):
                codon = s[i : i + 3]
                if start is None and codon == "ATG":
                    start = i
                elif start is not None and codon in stops:
                    length = i + 3 - start
                    if length >= min_length:
                        a, b = (start + 1, i + 3) if strand == "+" else (n - i - 2, n - start)
                        orfs.append(
                            {
                                "strand": strand,
                                "frame": frame + 1,
                                "start": a,
                                "end": b,
                                "length_nt": length,
                                "protein": translate(s[start:i], table),
                            }
                        )
                    start = None
    orfs.sort(key=lambda o: (-o["length_nt"], o["start"]))
    return orfs


# --- composition and weights ---------------------------------------------------------------


@tool(
    name="NucleicAcidGCCalculator",
    functionality="Calculate the GC content (percent) of a DNA or RNA sequence, overall and in consecutive windows.",
    inputs=["Nucleic acid sequence", "window size", "base type"],
    outputs=["Nucleic acid sequence GC content"],
    category="biology",
    source="Biopython",
    objects=["DNA", "RNA"],
    scenarios=["sequence analysis", "primer design"],
    requires=BIO,
    examples=[
        ({"sequence": "ATGCGC"}, {"length": 6, "gc_percent": 66.66666666666667, "windows": []}),
        (
            {"sequence": "GGGGAAAA", "window_size": 4},
            {
                "length": 8,
                "gc_percent": 50.0,
                "windows": [
                    {"start": 1, "end": 4, "gc_percent": 100.0},
                    {"start": 5, "end": 8, "gc_percent": 0.0},
                ],
            },
        ),
    ],
)
def gc_content(sequence: str, window_size: int = 0, base_type: str = "auto") -> dict[str, Any]:
    """GC percent (Bio.SeqUtils.gc_fraction, N counted as non-GC) overall and per window.

    `window_size` 0 reports only the overall value; windows are consecutive, non-overlapping.
    `base_type` is "DNA", "RNA" or "auto".
    """
    from Bio.SeqUtils import gc_fraction

    seq, is_rna = clean_nucleic(sequence)
    kind = base_type.strip().upper()
    if kind not in ("AUTO", "DNA", "RNA"):
        raise ToolInputError(f"base_type must be DNA, RNA or auto, got {base_type!r}")
    if kind == "DNA" and is_rna:
        raise ToolInputError("base_type DNA but the sequence contains U")
    if window_size < 0:
        raise ToolInputError(f"window_size must be 0 or positive, got {window_size}")
    windows = []
    if window_size:
        for i in range(0, len(seq), window_size):
            w = seq[i : i + window_size]
            windows.append(
                {"start": i + 1, "end": i + len(w), "gc_percent": 100 * gc_fraction(w, "remove")}
            )
    return {"length": len(seq), "gc_percent": 100 * gc_fraction(seq, "remove"), "windows": windows}


@tool(
    name="NucleotideComposition",
    functionality="Count each nucleotide (A, C, G, T/U, N) in a DNA or RNA sequence and give its percentage.",
    inputs=["Nucleic acid sequence"],
    outputs=["nucleotide counts"],
    category="biology",
    source="Biopython",
    objects=["DNA", "RNA"],
    scenarios=["sequence analysis"],
    requires=BIO,
    examples=[
        (
            {"sequence": "AACGTT"},
            {
                "counts": {"A": 2, "C": 1, "G": 1, "T": 2},
                "percent": {"A": 100 / 3, "C": 100 / 6, "G": 100 / 6, "T": 100 / 3},
                "length": 6,
            },
        )
    ],
)
def nucleotide_composition(sequence: str) -> dict[str, Any]:
    """Counts and percentages of the letters present in `sequence`."""
    seq, _ = clean_nucleic(sequence)
    counts = {b: seq.count(b) for b in sorted(set(seq))}
    return {
        "counts": counts,
        "percent": {b: 100 * c / len(seq) for b, c in counts.items()},
        "length": len(seq),
    }


def _dna_weight(dna: str, double_stranded: bool, circular: bool) -> float:
    from Bio.SeqUtils import molecular_weight

    seq = clean_dna(dna, allow_n=False)
    return float(molecular_weight(seq, "DNA", double_stranded=double_stranded, circular=circular))


_MW_SEQ = "ATGGCCATTGTAATGGGCCGCTGAAAGGGTGCCCGATAG"
_MW_NOTE = (
    " (average masses, Bio.SeqUtils.molecular_weight: nucleoside monophosphates less one "
    "water per bond, so a linear strand carries a 5' phosphate and a 3'-OH; circular ones "
    "lose one more water per strand)"
)


@tool(
    name="CalculateSingleLinearDNAMolecularWeight",
    functionality="Calculate the molecular weight (g/mol) of single-stranded linear DNA" + _MW_NOTE,
    inputs=["DNA sequence"],
    outputs=["DNA molecular weight"],
    category="biology",
    source="Biopython",
    objects=["DNA"],
    scenarios=["molecular cloning", "oligonucleotide synthesis"],
    requires=BIO,
    examples=[
        ToolExample(input={"dna": "ATGC"}, output=1253.8027, rel_tol=1e-6),
        ToolExample(input={"dna": _MW_SEQ}, output=12192.7564, rel_tol=1e-6),
    ],
)
def ss_linear_dna_weight(dna: str) -> float:
    """Molecular weight of single-stranded linear DNA."""
    return _dna_weight(dna, False, False)


@tool(
    name="CalculateDoubleLinearDNAMolecularWeight",
    functionality="Calculate the molecular weight (g/mol) of double-stranded linear DNA" + _MW_NOTE,
    inputs=["DNA sequence"],
    outputs=["DNA molecular weight"],
    category="biology",
    source="Biopython",
    objects=["DNA"],
    scenarios=["molecular cloning"],
    requires=BIO,
    examples=[ToolExample(input={"dna": _MW_SEQ}, output=24136.3549, rel_tol=1e-6)],
)
def ds_linear_dna_weight(dna: str) -> float:
    """Molecular weight of double-stranded linear DNA."""
    return _dna_weight(dna, True, False)


@tool(
    name="CalculateSingleCircleDNAMolecularWeight",
    functionality="Calculate the molecular weight (g/mol) of single-stranded circular DNA"
    + _MW_NOTE,
    inputs=["DNA sequence"],
    outputs=["DNA molecular weight"],
    category="biology",
    source="Biopython",
    objects=["DNA"],
    scenarios=["molecular cloning"],
    requires=BIO,
    examples=[ToolExample(input={"dna": _MW_SEQ}, output=12174.7411, rel_tol=1e-6)],
)
def ss_circular_dna_weight(dna: str) -> float:
    """Molecular weight of single-stranded circular DNA."""
    return _dna_weight(dna, False, True)


@tool(
    name="CalculateDoubleCircleDNAMolecularWeight",
    functionality="Calculate the molecular weight (g/mol) of double-stranded circular DNA such as a plasmid"
    + _MW_NOTE,
    inputs=["DNA sequence"],
    outputs=["DNA molecular weight"],
    category="biology",
    source="Biopython",
    objects=["DNA", "plasmid"],
    scenarios=["molecular cloning"],
    requires=BIO,
    examples=[ToolExample(input={"dna": _MW_SEQ}, output=24100.3243, rel_tol=1e-6)],
)
def ds_circular_dna_weight(dna: str) -> float:
    """Molecular weight of double-stranded circular DNA."""
    return _dna_weight(dna, True, True)


@tool(
    name="CalculateRNAMolecularWeight",
    functionality="Calculate the molecular weight (g/mol) of a single-stranded linear RNA (average masses, Biopython: nucleoside monophosphates less one water per bond, i.e. a 5' monophosphate).",
    inputs=["RNA sequence"],
    outputs=["RNA molecular weight"],
    category="biology",
    source="Biopython",
    objects=["RNA"],
    scenarios=["RNA synthesis"],
    requires=BIO,
    examples=[ToolExample(input={"rna": "AUGC"}, output=1303.7737, rel_tol=1e-6)],
)
def rna_weight(rna: str) -> float:
    """Molecular weight of single-stranded linear RNA."""
    from Bio.SeqUtils import molecular_weight

    return float(molecular_weight(clean_rna(rna, allow_n=False), "RNA"))


# --- random sequences ----------------------------------------------------------------------


@tool(
    name="RandomDNAGeneration",
    functionality="Generate a random DNA sequence of a given length (seeded, so the same seed gives the same sequence).",
    inputs=["DNA Sequence length"],
    outputs=["DNA sequence"],
    category="biology",
    source="Python random (seeded)",
    objects=["DNA"],
    scenarios=["simulation", "negative controls"],
    examples=[({"length": 12, "seed": 7}, "CAGAGCAGACAA")],
)
def random_dna(length: int, seed: int = 0, gc_content: float = 0.5) -> str:
    """`length` random bases with expected GC fraction `gc_content`, from `random.Random(seed)`."""
    check_positive(length, "length", MAX_LENGTH)
    if not 0.0 <= gc_content <= 1.0:
        raise ToolInputError(f"gc_content must be between 0 and 1, got {gc_content}")
    rng = random.Random(seed)
    weights = [(1 - gc_content) / 2, gc_content / 2, gc_content / 2, (1 - gc_content) / 2]
    return "".join(rng.choices("ACGT", weights=weights, k=length))
