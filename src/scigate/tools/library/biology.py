"""Biology tools for nucleic acids (Biopython): translation, ORFs, composition, weights, motifs.

Input checking helpers shared by the other ``biology_*`` modules live here too. Biopython
is imported inside the function bodies so that loading the library stays fast.
"""

from __future__ import annotations

import random
import re
from typing import Any

from scigate.tools._tool import ToolExample, ToolInputError, tool

DNA_LETTERS = "ACGT"
PROTEIN_LETTERS = "ACDEFGHIKLMNPQRSTVWY"
IUPAC_DNA = {
    "A": "A",
    "C": "C",
    "G": "G",
    "T": "T",
    "R": "AG",
    "Y": "CT",
    "S": "CG",
    "W": "AT",
    "K": "GT",
    "M": "AC",
    "B": "CGT",
    "D": "AGT",
    "H": "ACT",
    "V": "ACG",
    "N": "ACGT",
}
MAX_LENGTH = 1_000_000
BIO = ["Bio"]
_COMPLEMENT = str.maketrans("ACGTUN", "TGCAAN")


def _strip_sequence(text: str, kind: str) -> str:
    """Remove a FASTA header line and whitespace; upper-case; refuse empty input."""
    if not isinstance(text, str):
        raise ToolInputError(f"invalid {kind}: expected a string")
    lines = text.strip().splitlines()
    if lines and lines[0].startswith(">"):
        lines = lines[1:]
    seq = re.sub(r"\s+", "", "".join(lines)).upper()
    if not seq:
        raise ToolInputError(f"invalid {kind}: the sequence is empty")
    if len(seq) > MAX_LENGTH:
        raise ToolInputError(f"invalid {kind}: longer than {MAX_LENGTH} letters")
    return seq


def _check_letters(seq: str, allowed: str, kind: str, allowed_text: str) -> str:
    for i, ch in enumerate(seq, start=1):
        if ch not in allowed:
            raise ToolInputError(
                f"invalid {kind}: unexpected character {ch!r} at position {i}; allowed {allowed_text}"
            )
    return seq


def clean_dna(text: str, *, allow_n: bool = True, allow_rna: bool = False) -> str:
    """A validated upper-case DNA string (U is turned into T when `allow_rna`)."""
    seq = _strip_sequence(text, "DNA sequence")
    if allow_rna:
        seq = seq.replace("U", "T")
    allowed = DNA_LETTERS + ("N" if allow_n else "")
    text_allowed = "A, C, G, T (and N)" if allow_n else "A, C, G, T"
    if allow_rna:
        text_allowed += " or U for RNA"
    return _check_letters(seq, allowed, "DNA sequence", text_allowed)


def clean_nucleic(text: str) -> tuple[str, bool]:
    """A validated DNA or RNA string and whether it is RNA (contains U)."""
    seq = _strip_sequence(text, "nucleic acid sequence")
    is_rna = "U" in seq and "T" not in seq
    allowed = "ACGUN" if is_rna else "ACGTN"
    text_allowed = "A, C, G, U (and N)" if is_rna else "A, C, G, T or U (and N)"
    return _check_letters(seq, allowed, "nucleic acid sequence", text_allowed), is_rna


def clean_protein(text: str) -> str:
    """A validated upper-case protein string of the 20 standard letters (a final '*' is dropped)."""
    seq = _strip_sequence(text, "protein sequence")
    if seq.endswith("*"):
        seq = seq[:-1]
        if not seq:
            raise ToolInputError("invalid protein sequence: the sequence is empty")
    return _check_letters(
        seq,
        PROTEIN_LETTERS,
        "protein sequence",
        "the 20 standard amino-acid letters ACDEFGHIKLMNPQRSTVWY",
    )


def check_positive(value: int, name: str, maximum: int | None = None) -> int:
    """Refuse a non-positive (or too large) integer parameter."""
    if value < 1:
        raise ToolInputError(f"{name} must be a positive integer, got {value}")
    if maximum is not None and value > maximum:
        raise ToolInputError(f"{name} must be at most {maximum}, got {value}")
    return value


def reverse_complement(seq: str) -> str:
    """Reverse complement of an upper-case DNA string (N stays N)."""
    return seq.translate(_COMPLEMENT)[::-1]


def _codon_table(table: int) -> Any:
    from Bio.Data import CodonTable

    if table not in CodonTable.unambiguous_dna_by_id:
        known = ", ".join(str(k) for k in sorted(CodonTable.unambiguous_dna_by_id))
        raise ToolInputError(f"unknown NCBI genetic code table {table}; known tables: {known}")
    return CodonTable.unambiguous_dna_by_id[table]


def _translate(seq: str, table: int = 1, to_stop: bool = False) -> str:
    from Bio.Seq import Seq

    _codon_table(table)
    usable = seq[: len(seq) - len(seq) % 3]
    return str(Seq(usable).translate(table=table, to_stop=to_stop))


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
    return _translate(seq, table, to_stop)


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
            out[f"{strand}{f + 1}"] = _translate(s[f:], table) if len(s) - f >= 3 else ""
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
    from Bio.Seq import Seq

    return str(Seq(clean_dna(dna)).reverse_complement())


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
    from Bio.Seq import Seq

    return str(Seq(clean_dna(dna)).complement())


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
    from Bio.Seq import Seq

    return str(Seq(clean_dna(dna)).transcribe())


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

    seq = _strip_sequence(rna, "RNA sequence")
    _check_letters(seq, "ACGUN", "RNA sequence", "A, C, G, U (and N)")
    return str(Seq(seq).back_transcribe())


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
    codons = _codon_table(table)
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
                                "protein": _translate(s[start:i], table),
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
    " (average masses, Bio.SeqUtils.molecular_weight; linear strands carry a 5'-OH, "
    "circular ones lose one water per strand)"
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
    functionality="Calculate the molecular weight (g/mol) of a single-stranded linear RNA (average masses, Biopython).",
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

    seq = _strip_sequence(rna, "RNA sequence")
    _check_letters(seq, "ACGU", "RNA sequence", "A, C, G, U")
    return float(molecular_weight(seq, "RNA"))


# --- codons ---------------------------------------------------------------------------------


def _expand(codon: str) -> list[str]:
    out = [""]
    for ch in codon:
        out = [p + b for p in out for b in IUPAC_DNA[ch]]
    return out


def _encoded(codon: str, table: int = 1) -> dict[str, int]:
    forward = _codon_table(table).forward_table
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
    c = _strip_sequence(codon, "codon").replace("U", "T")
    if len(c) != 3:
        raise ToolInputError(f"invalid codon: expected 3 letters, got {len(c)}")
    _check_letters(c, "".join(IUPAC_DNA), "codon", "IUPAC nucleotide codes ACGTRYSWKMBDHVN")
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
def back_translate(protein: str, table: int = 1) -> str:
    """Per amino acid, the smallest IUPAC codon that contains all its codons (like EMBOSS backtranambig)."""
    seq = clean_protein(protein)
    forward = _codon_table(table).forward_table
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
    codons_table = _codon_table(table)
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


# --- motifs -------------------------------------------------------------------------------


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


def find_repeats(seq: str, length: int, min_count: int) -> list[dict[str, Any]]:
    """Every substring of `length` occurring at least `min_count` times, most frequent first."""
    positions: dict[str, list[int]] = {}
    for i in range(len(seq) - length + 1):
        positions.setdefault(seq[i : i + length], []).append(i + 1)
    hits = [
        {"repeat": k, "count": len(v), "positions": v}
        for k, v in positions.items()
        if len(v) >= min_count
    ]
    hits.sort(key=lambda h: (-h["count"], h["positions"][0]))
    return hits[:100]


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
