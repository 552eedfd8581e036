"""Biology tools that compare sequences or read sites in them (Biopython): alignment,
similarity, circular DNA comparison, restriction sites, PCR primers.
"""

from __future__ import annotations

import io
import itertools
import re
from typing import Any

from scigate.tools._tool import ToolExample, ToolInputError, tool
from scigate.tools.library.biology_common import (
    BIO,
    DNA_LETTERS,
    PROTEIN_LETTERS,
    clean_dna,
    clean_protein,
    reverse_complement,
    strip_sequence,
)

MAX_ALIGN = 5000
COMMON_ENZYMES = [
    "AgeI",
    "ApaI",
    "AvrII",
    "BamHI",
    "BglII",
    "ClaI",
    "EcoRI",
    "EcoRV",
    "HindIII",
    "KpnI",
    "MluI",
    "NcoI",
    "NdeI",
    "NheI",
    "NotI",
    "PstI",
    "SacI",
    "SalI",
    "SmaI",
    "SpeI",
    "SphI",
    "XbaI",
    "XhoI",
]


def _kind(a: str, b: str, seq_type: str) -> str:
    key = seq_type.strip().lower()
    if key not in ("auto", "dna", "protein"):
        raise ToolInputError(f"seq_type must be auto, dna or protein, got {seq_type!r}")
    if key == "auto":
        nucleic = set(DNA_LETTERS + "UN")
        both = strip_sequence(a, "sequence") + strip_sequence(b, "sequence")
        key = "dna" if set(both) <= nucleic else "protein"
    return key


def _aligner(mode: str, kind: str) -> Any:
    from Bio.Align import PairwiseAligner, substitution_matrices

    aligner = PairwiseAligner(mode=mode)
    if kind == "protein":  # EMBOSS needle/water defaults
        aligner.substitution_matrix = substitution_matrices.load("BLOSUM62")
    else:
        aligner.substitution_matrix = substitution_matrices.load("NUC.4.4")
    aligner.open_gap_score = -10.0
    aligner.extend_gap_score = -0.5
    return aligner


def _clean_pair(a: str, b: str, kind: str) -> tuple[str, str]:
    if kind == "protein":
        x, y = clean_protein(a), clean_protein(b)
    else:
        x, y = clean_dna(a, allow_rna=True), clean_dna(b, allow_rna=True)
    if max(len(x), len(y)) > MAX_ALIGN:
        raise ToolInputError(f"sequences longer than {MAX_ALIGN} letters are not aligned here")
    return x, y


def _summarise(alignment: Any, matrix: Any) -> dict[str, Any]:
    coords = alignment.coordinates
    ta, tb = int(coords[0, 0]), int(coords[0, -1])
    qa, qb = int(coords[1, 0]), int(coords[1, -1])
    row_a, row_b = "", ""
    for k in range(coords.shape[1] - 1):
        da = int(coords[0, k + 1] - coords[0, k])
        db = int(coords[1, k + 1] - coords[1, k])
        sa = alignment.target[int(coords[0, k]) : int(coords[0, k + 1])]
        sb = alignment.query[int(coords[1, k]) : int(coords[1, k + 1])]
        if da and db:
            row_a, row_b = row_a + sa, row_b + sb
        elif da:
            row_a, row_b = row_a + sa, row_b + "-" * da
        else:
            row_a, row_b = row_a + "-" * db, row_b + sb
    marks, ident, simil, gaps = [], 0, 0, 0
    for x, y in zip(row_a, row_b, strict=True):
        if x == "-" or y == "-":
            gaps += 1
            marks.append(" ")
        elif x == y:
            ident += 1
            simil += 1
            marks.append("|")
        elif matrix[x][y] > 0:
            simil += 1
            marks.append(":")
        else:
            marks.append(".")
    n = len(row_a)
    return {
        "score": float(alignment.score),
        "length": n,
        "identity": ident,
        "identity_percent": 100 * ident / n if n else 0.0,
        "similarity": simil,
        "similarity_percent": 100 * simil / n if n else 0.0,
        "gaps": gaps,
        "gaps_percent": 100 * gaps / n if n else 0.0,
        "start_a": ta + 1,
        "end_a": tb,
        "start_b": qa + 1,
        "end_b": qb,
        "aligned_a": row_a,
        "markup": "".join(marks),
        "aligned_b": row_b,
    }


def _align(seq_a: str, seq_b: str, seq_type: str, mode: str) -> dict[str, Any]:
    kind = _kind(seq_a, seq_b, seq_type)
    a, b = _clean_pair(seq_a, seq_b, kind)
    aligner = _aligner(mode, kind)
    alignments = aligner.align(a, b)
    try:
        best = alignments[0]
    except IndexError:
        return {"score": 0.0, "length": 0, "identity": 0, "identity_percent": 0.0}
    return {"type": kind, **_summarise(best, aligner.substitution_matrix)}


_ALIGN_DOC = (
    " Proteins: BLOSUM62; DNA: NUC.4.4 (match 5, mismatch -4); gap open -10, extend -0.5 "
    "(EMBOSS needle/water defaults)."
)


@tool(
    name="DoubleSequenceGlobalAlignment",
    functionality="Compute the optimal global (Needleman-Wunsch) alignment of two protein or DNA sequences with score, identity, similarity and gaps."
    + _ALIGN_DOC,
    inputs=["protein sequence pair"],
    outputs=["Comparison results"],
    category="biology",
    source="Biopython",
    objects=["protein", "DNA", "alignment"],
    scenarios=["homology analysis", "sequence comparison"],
    requires=BIO,
    examples=[
        ToolExample(
            input={"seq_a": "HEAGAWGHEE", "seq_b": "PAWHEAE"},
            output={
                "type": "protein",
                "score": 4.0,
                "length": 10,
                "identity": 3,
                "identity_percent": 30.0,
                "similarity": 3,
                "similarity_percent": 30.0,
                "gaps": 3,
                "gaps_percent": 30.0,
                "start_a": 1,
                "end_a": 10,
                "start_b": 1,
                "end_b": 7,
                "aligned_a": "HEAGAWGHEE",
                "markup": "   .||...|",
                "aligned_b": "---PAWHEAE",
            },
        )
    ],
)
def global_alignment(seq_a: str, seq_b: str, seq_type: str = "auto") -> dict[str, Any]:
    """Best global alignment (end gaps penalised like internal gaps)."""
    return _align(seq_a, seq_b, seq_type, "global")


@tool(
    name="DoubleSequenceLocalAlignment",
    functionality="Compute the optimal local (Smith-Waterman) alignment of two protein or DNA sequences, with the aligned region, score and identity."
    + _ALIGN_DOC,
    inputs=["protein sequence pair"],
    outputs=["Comparison results"],
    category="biology",
    source="Biopython",
    objects=["protein", "DNA", "alignment"],
    scenarios=["motif finding", "sequence comparison"],
    requires=BIO,
    examples=[
        ToolExample(
            input={"seq_a": "GGGGAAWWHEAGGG", "seq_b": "PPAWWHEAPP"},
            output={
                "type": "protein",
                "score": 4.0 + 11 + 11 + 8 + 5 + 4,
                "length": 6,
                "identity": 6,
                "identity_percent": 100.0,
                "similarity": 6,
                "similarity_percent": 100.0,
                "gaps": 0,
                "gaps_percent": 0.0,
                "start_a": 6,
                "end_a": 11,
                "start_b": 3,
                "end_b": 8,
                "aligned_a": "AWWHEA",
                "markup": "||||||",
                "aligned_b": "AWWHEA",
            },
        )
    ],
)
def local_alignment(seq_a: str, seq_b: str, seq_type: str = "auto") -> dict[str, Any]:
    """Best local alignment; coordinates are 1-based inclusive."""
    return _align(seq_a, seq_b, seq_type, "local")


def _read_aligned(text: str) -> list[tuple[str, str]]:
    from Bio import AlignIO, SeqIO

    if not text.strip():
        raise ToolInputError("invalid alignment: the input is empty")
    if "MSF:" in text:
        try:
            records = list(AlignIO.read(io.StringIO(text), "msf"))
        except Exception as exc:
            raise ToolInputError(f"could not parse GCG/MSF alignment: {exc}") from exc
    else:
        if not text.lstrip().startswith(">"):
            raise ToolInputError("invalid alignment: expected FASTA ('>name' lines) or GCG/MSF")
        records = list(SeqIO.parse(io.StringIO(text), "fasta"))
    seqs = [(r.id, str(r.seq).upper().replace(".", "-")) for r in records]
    if len(seqs) < 2:
        raise ToolInputError("invalid alignment: need at least two sequences")
    lengths = {len(s) for _, s in seqs}
    if len(lengths) != 1:
        raise ToolInputError(
            f"invalid alignment: aligned sequences must have equal length, got {sorted(lengths)}"
        )
    allowed = set(PROTEIN_LETTERS + "BXZUO*-")
    for name, s in seqs:
        bad = sorted(set(s) - allowed)
        if bad:
            raise ToolInputError(f"invalid alignment: sequence {name} contains {bad[0]!r}")
    return seqs


@tool(
    name="SequenceSimilarityCalculator",
    functionality="Calculate pairwise identity and similarity (BLOSUM62 positive) of a set of aligned sequences given in FASTA or GCG/MSF format.",
    inputs=["Aligned sequences in FASTA or GCG format"],
    outputs=["Comparison results"],
    category="biology",
    source="Biopython",
    objects=["alignment", "protein", "DNA"],
    scenarios=["homology analysis", "phylogenetics"],
    requires=BIO,
    examples=[
        (
            {"alignment": ">a\nAC-DE\n>b\nAC-DK\n>c\nSCADE\n"},
            {
                "pairs": [
                    {"a": "a", "b": "b", "identity_percent": 75.0, "similarity_percent": 100.0},
                    {"a": "a", "b": "c", "identity_percent": 75.0, "similarity_percent": 100.0},
                    {"a": "b", "b": "c", "identity_percent": 50.0, "similarity_percent": 100.0},
                ],
                "mean_identity_percent": 200 / 3,
                "columns": 5,
            },
        )
    ],
)
def sequence_similarity(alignment: str) -> dict[str, Any]:
    """Identity/similarity over columns where neither sequence has a gap."""
    from Bio.Align import substitution_matrices

    seqs = _read_aligned(alignment)
    blosum = substitution_matrices.load("BLOSUM62")
    pairs: list[dict[str, Any]] = []
    for i in range(len(seqs)):
        for j in range(i + 1, len(seqs)):
            cols = [
                (x, y) for x, y in zip(seqs[i][1], seqs[j][1], strict=True) if "-" not in (x, y)
            ]
            ident = sum(x == y for x, y in cols)
            simil = sum(
                x == y or (x in blosum.alphabet and y in blosum.alphabet and blosum[x][y] > 0)
                for x, y in cols
            )
            n = len(cols)
            pairs.append(
                {
                    "a": seqs[i][0],
                    "b": seqs[j][0],
                    "identity_percent": 100 * ident / n if n else 0.0,
                    "similarity_percent": 100 * simil / n if n else 0.0,
                }
            )
    mean = sum(p["identity_percent"] for p in pairs) / len(pairs)
    return {"pairs": pairs, "mean_identity_percent": mean, "columns": len(seqs[0][1])}


@tool(
    name="CompareCircularDNA",
    functionality="Compare two circular DNA sequences (e.g. plasmids or mitochondrial genomes) allowing any rotation and either strand: best rotation, score and identity.",
    inputs=["DNA sequence pair"],
    outputs=["Comparison results"],
    category="biology",
    source="Biopython",
    objects=["DNA", "plasmid"],
    scenarios=["plasmid verification", "comparative genomics"],
    requires=BIO,
    examples=[
        (
            {"seq_a": "GATTACACCG", "seq_b": "CACCGGATTA"},
            {
                "length_a": 10,
                "length_b": 10,
                "same_molecule": True,
                "strand": "+",
                "rotation": 5,
                "score": 50.0,
                "identity_percent": 100.0,
            },
        ),
        (
            {"seq_a": "GATTACACCG", "seq_b": "TAATCCGGTG"},
            {
                "length_a": 10,
                "length_b": 10,
                "same_molecule": True,
                "strand": "-",
                "rotation": 5,
                "score": 50.0,
                "identity_percent": 100.0,
            },
        ),
    ],
)
def compare_circular_dna(seq_a: str, seq_b: str) -> dict[str, Any]:
    """Align `seq_a` against `seq_b` doubled with free end gaps, on both strands of `seq_b`.

    `rotation` is the 0-based position in (the chosen strand of) `seq_b` where the best
    alignment of `seq_a` begins; identity is counted over the longer sequence.
    """
    a, b = _clean_pair(seq_a, seq_b, "dna")
    aligner = _aligner("global", "dna")
    aligner.end_deletion_score = 0.0  # the doubled target may overhang at both ends
    best: dict[str, Any] | None = None
    for strand, s in (("+", b), ("-", reverse_complement(b))):
        target = s + s
        alignment = aligner.align(target, a)[0]
        summary = _summarise(alignment, aligner.substitution_matrix)
        blocks = alignment.aligned[0]
        if best is None or alignment.score > best["score"]:
            best = {
                "strand": strand,
                "rotation": int(blocks[0][0]) % len(s) if len(blocks) else 0,
                "score": float(alignment.score),
                "identity": summary["identity"],
            }
    assert best is not None
    same = len(a) == len(b) and (a in b + b or a in reverse_complement(b) * 2)
    return {
        "length_a": len(a),
        "length_b": len(b),
        "same_molecule": same,
        "strand": best["strand"],
        "rotation": best["rotation"],
        "score": best["score"],
        "identity_percent": 100 * best["identity"] / max(len(a), len(b)),
    }


# --- restriction enzymes -----------------------------------------------------------------------


def _batch(enzymes: str) -> Any:
    from Bio import Restriction

    names = [e for e in re.split(r"[\s,;]+", enzymes.strip()) if e] or COMMON_ENZYMES
    unknown = [n for n in names if n not in Restriction.AllEnzymes.elements()]
    if unknown:
        raise ToolInputError(f"unknown restriction enzyme(s): {', '.join(unknown)} (REBASE names)")
    return Restriction.RestrictionBatch(names)


@tool(
    name="SummaryEnzymeCleavageSites",
    functionality="Count and locate the recognition/cut sites of commonly used restriction enzymes (or a given list) in a DNA sequence, with REBASE data.",
    inputs=["DNA sequence"],
    outputs=["The number and position of loci"],
    category="biology",
    source="Biopython",
    objects=["DNA", "restriction enzyme"],
    scenarios=["molecular cloning", "restriction mapping"],
    requires=BIO,
    examples=[
        (
            {"dna": "GAATTCAAAGGATCCTTTAAGCTTGAATTC"},
            {
                "cutters": {
                    "BamHI": {"count": 1, "positions": [11]},
                    "EcoRI": {"count": 2, "positions": [2, 26]},
                    "HindIII": {"count": 1, "positions": [20]},
                },
                "non_cutters": sorted(set(COMMON_ENZYMES) - {"BamHI", "EcoRI", "HindIII"}),
            },
        )
    ],
)
def enzyme_cleavage_sites(dna: str, enzymes: str = "", circular: bool = False) -> dict[str, Any]:
    """Cut positions (1-based first base after the top-strand cut, Biopython convention)."""
    from Bio.Seq import Seq

    seq = clean_dna(dna)
    hits = _batch(enzymes).search(Seq(seq), linear=not circular)
    cutters = {
        str(e): {"count": len(p), "positions": sorted(p)}
        for e, p in sorted(hits.items(), key=lambda kv: str(kv[0]))
        if p
    }
    return {"cutters": cutters, "non_cutters": sorted(str(e) for e, p in hits.items() if not p)}


@tool(
    name="RestrictionDigestFragments",
    functionality="Digest a linear or circular DNA with one or more restriction enzymes and return the fragment lengths (as seen on a gel).",
    inputs=["DNA sequence", "restriction enzyme"],
    outputs=["fragment lengths"],
    category="biology",
    source="Biopython",
    objects=["DNA", "restriction enzyme"],
    scenarios=["molecular cloning", "restriction mapping"],
    requires=BIO,
    examples=[
        (
            {"dna": "GAATTCAAAGGATCCTTTAAGCTTGAATTC", "enzymes": "EcoRI,BamHI"},
            {"cut_positions": [2, 11, 26], "fragments": [15, 9, 5, 1]},
        ),
        (
            {"dna": "AAAGAATTCAAAAAA", "enzymes": "EcoRI", "circular": True},
            {"cut_positions": [5], "fragments": [15]},
        ),
    ],
)
def restriction_digest(dna: str, enzymes: str = "EcoRI", circular: bool = False) -> dict[str, Any]:
    """Fragment lengths, largest first, from the union of all cut positions."""
    from Bio.Seq import Seq

    seq = clean_dna(dna)
    if not enzymes.strip():
        raise ToolInputError("give at least one restriction enzyme name")
    hits = _batch(enzymes).search(Seq(seq), linear=not circular)
    cuts = sorted({p for ps in hits.values() for p in ps})
    idx = [p - 1 for p in cuts]
    if circular:
        if not idx:
            frags = [len(seq)]
        else:
            frags = [b - a for a, b in itertools.pairwise(idx)]
            frags.append(len(seq) - idx[-1] + idx[0])
    else:
        bounds = [0, *idx, len(seq)]
        frags = [b - a for a, b in itertools.pairwise(bounds) if b > a]
    return {"cut_positions": cuts, "fragments": sorted(frags, reverse=True)}


# --- primers -------------------------------------------------------------------------------


@tool(
    name="PCRPrimerProperties",
    functionality="Calculate PCR primer properties: length, GC content, nearest-neighbour and Wallace melting temperatures, molecular weight, and a suggested annealing temperature.",
    inputs=["One or more sequences"],
    outputs=["Annealing temperature", "GC content"],
    category="biology",
    source="Biopython",
    objects=["primer", "DNA"],
    scenarios=["PCR", "primer design"],
    requires=BIO,
    examples=[
        ToolExample(
            input={"sequence": "AGCGGATAACAATTTCACACAGG, GTAAAACGACGGCCAGT"},
            output={
                "primers": [
                    {
                        "sequence": "AGCGGATAACAATTTCACACAGG",
                        "length": 23,
                        "gc_percent": 43.4783,
                        "tm_nn": 53.7025,
                        "tm_wallace": 66.0,
                        "molecular_weight": 7145.5851,
                    },
                    {
                        "sequence": "GTAAAACGACGGCCAGT",
                        "length": 17,
                        "gc_percent": 52.9412,
                        "tm_nn": 49.1681,
                        "tm_wallace": 52.0,
                        "molecular_weight": 5308.3974,
                    },
                ],
                "annealing_temperature": 44.1681,
            },
            rel_tol=1e-3,
        )
    ],
)
def pcr_primer_properties(sequence: str, na_mm: float = 50.0, mg_mm: float = 0.0) -> dict[str, Any]:
    """Tm_NN uses Biopython's defaults (DNA_NN3, 25 nM strands) with `na_mm` Na+ and `mg_mm` Mg2+.

    Primers are separated by commas, semicolons, whitespace or FASTA records. The suggested
    annealing temperature is the lowest nearest-neighbour Tm minus 5 °C (rule of thumb).
    """
    from Bio.SeqUtils import MeltingTemp, gc_fraction, molecular_weight

    if sequence.lstrip().startswith(">"):
        parts = re.split(r"^>.*$", sequence, flags=re.M)
        primers = [re.sub(r"\s+", "", p) for p in parts if p.strip()]
    else:
        primers = [p for p in re.split(r"[\s,;]+", sequence.strip()) if p]
    if not primers:
        raise ToolInputError("invalid DNA sequence: the sequence is empty")
    if na_mm < 0 or mg_mm < 0:
        raise ToolInputError("salt concentrations must not be negative")
    out = []
    for p in primers:
        s = clean_dna(p, allow_n=False)
        out.append(
            {
                "sequence": s,
                "length": len(s),
                "gc_percent": 100 * gc_fraction(s),
                "tm_nn": float(MeltingTemp.Tm_NN(s, Na=na_mm, Mg=mg_mm)),
                "tm_wallace": float(MeltingTemp.Tm_Wallace(s)),
                "molecular_weight": float(molecular_weight(s, "DNA")),
            }
        )
    return {"primers": out, "annealing_temperature": min(p["tm_nn"] for p in out) - 5.0}
