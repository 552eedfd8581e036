"""Shared helpers of the biology tools: sequence cleaning and validation with clear errors,
reverse complement, NCBI codon tables and translation.

Biopython is imported inside the helpers so that loading the tool library stays fast.
"""

from __future__ import annotations

import re
from typing import Any

from scigate.tools._tool import ToolInputError

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


def strip_sequence(text: str, kind: str) -> str:
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


def check_letters(seq: str, allowed: str, kind: str, allowed_text: str) -> str:
    for i, ch in enumerate(seq, start=1):
        if ch not in allowed:
            raise ToolInputError(
                f"invalid {kind}: unexpected character {ch!r} at position {i}; allowed {allowed_text}"
            )
    return seq


def clean_dna(text: str, *, allow_n: bool = True, allow_rna: bool = False) -> str:
    """A validated upper-case DNA string (U is turned into T when `allow_rna`)."""
    seq = strip_sequence(text, "DNA sequence")
    if allow_rna:
        seq = seq.replace("U", "T")
    allowed = DNA_LETTERS + ("N" if allow_n else "")
    text_allowed = "A, C, G, T (and N)" if allow_n else "A, C, G, T"
    if allow_rna:
        text_allowed += " or U for RNA"
    return check_letters(seq, allowed, "DNA sequence", text_allowed)


def clean_rna(text: str, *, allow_n: bool = True) -> str:
    """A validated upper-case RNA string."""
    seq = strip_sequence(text, "RNA sequence")
    if allow_n:
        return check_letters(seq, "ACGUN", "RNA sequence", "A, C, G, U (and N)")
    return check_letters(seq, "ACGU", "RNA sequence", "A, C, G, U")


def clean_nucleic(text: str) -> tuple[str, bool]:
    """A validated DNA or RNA string and whether it is RNA (contains U)."""
    seq = strip_sequence(text, "nucleic acid sequence")
    is_rna = "U" in seq and "T" not in seq
    allowed = "ACGUN" if is_rna else "ACGTN"
    text_allowed = "A, C, G, U (and N)" if is_rna else "A, C, G, T or U (and N)"
    return check_letters(seq, allowed, "nucleic acid sequence", text_allowed), is_rna


def clean_protein(text: str) -> str:
    """A validated upper-case protein string of the 20 standard letters (a final '*' is dropped)."""
    seq = strip_sequence(text, "protein sequence")
    if seq.endswith("*"):
        seq = seq[:-1]
        if not seq:
            raise ToolInputError("invalid protein sequence: the sequence is empty")
    return check_letters(
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


def codon_table(table: int) -> Any:
    from Bio.Data import CodonTable

    if table not in CodonTable.unambiguous_dna_by_id:
        known = ", ".join(str(k) for k in sorted(CodonTable.unambiguous_dna_by_id))
        raise ToolInputError(f"unknown NCBI genetic code table {table}; known tables: {known}")
    return CodonTable.unambiguous_dna_by_id[table]


def translate(seq: str, table: int = 1, to_stop: bool = False) -> str:
    from Bio.Seq import Seq

    codon_table(table)
    usable = seq[: len(seq) - len(seq) % 3]
    return str(Seq(usable).translate(table=table, to_stop=to_stop))


def find_repeats(seq: str, length: int, min_count: int) -> list[dict[str, Any]]:
    """Every substring of `length` occurring at least `min_count` times, most frequent first."""
    positions: dict[str, list[int]] = {}
    for i in range(len(seq) - length + 1):
        positions.setdefault(seq[i : i + length], []).append(i + 1)
    hits: list[dict[str, Any]] = [
        {"repeat": k, "count": len(v), "positions": v}
        for k, v in positions.items()
        if len(v) >= min_count
    ]
    hits.sort(key=lambda h: (-h["count"], h["positions"][0]))
    return hits[:100]


def protein_analysis(seq: str) -> Any:
    """Biopython's `ProteinAnalysis` (ExPASy ProtParam parameters) of a cleaned sequence."""
    from Bio.SeqUtils.ProtParam import ProteinAnalysis

    return ProteinAnalysis(seq)
