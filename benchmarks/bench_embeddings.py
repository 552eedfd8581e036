"""What the offline hashing embedder costs in quality: paraphrase pairs vs unrelated pairs.

Evo deduplicates experiences at cosine similarity 0.85 and matches skills and experiences
by embedding similarity, so an embedder should put paraphrases of one rule above 0.85 and
different rules well below it. For each embedder spec given, this prints the mean cosine of
20 paraphrase pairs (experience rules and tool requests written two ways) and of the 380
cross pairs of different rules, and how many of each the 0.85 dedup would merge. The naive
baseline is the hashing embedder itself; the ratio column is mean paraphrase cosine over
mean unrelated cosine (higher separates better).

    .venv/bin/python benchmarks/bench_embeddings.py hashing sentence-transformers/PATH
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from scigate.tools import make_embedder

PAIRS = [
    (
        "When requiring the average molecular weight, select a tool that computes molar mass from SMILES.",
        "To get a molecule's mean molecular mass, use a tool calculating molar weight from its SMILES string.",
    ),
    (
        "When requiring an InChIKey from SMILES, first convert SMILES to InChI, then hash it.",
        "To obtain the InChIKey of a SMILES, go through the standard InChI before hashing.",
    ),
    (
        "Map each requested property to a tool whose output type is exactly that property.",
        "Choose for every asked property the tool that directly outputs that property.",
    ),
    (
        "When requiring the GC content of DNA, select a tool that counts guanine and cytosine fraction.",
        "For a DNA sequence's G+C percentage, pick a tool measuring the share of G and C bases.",
    ),
    (
        "When requiring protein sequence from DNA, select a tool that translates codons.",
        "To turn a DNA sequence into its amino-acid sequence, use a codon translation tool.",
    ),
    (
        "When requiring a band gap of a crystal, select a tool that queries electronic structure data.",
        "For a material's band gap, choose a tool returning its electronic band structure properties.",
    ),
    (
        "Convert systematic chemical names to SMILES before computing any descriptor.",
        "Translate IUPAC names into SMILES strings first, then calculate descriptors.",
    ),
    (
        "When requiring drug-likeness, select a tool that computes the QED score.",
        "To judge how drug-like a compound is, use a tool returning its quantitative estimate of drug-likeness.",
    ),
    (
        "When requiring hydrogen bond donors, select a tool that counts donor groups in the molecule.",
        "For the number of H-bond donors, pick a tool counting donor atoms of the structure.",
    ),
    (
        "Do not repeat a conversion that an earlier step already produced.",
        "Avoid converting again a representation obtained in a previous step.",
    ),
    (
        "calculate topological polar surface area of molecule",
        "compute the TPSA of a compound",
    ),
    (
        "generate reverse complement of DNA sequence",
        "produce the reverse-complementary strand of a DNA string",
    ),
    (
        "calculate number of rotatable bonds in molecule",
        "count the freely rotating bonds of a compound",
    ),
    (
        "transcribe DNA sequence into messenger RNA",
        "convert a DNA template into its mRNA transcript",
    ),
    (
        "translate SMILES string into SELFIES string",
        "encode a SMILES representation as SELFIES",
    ),
    (
        "compute Kier kappa1 shape index of molecule",
        "calculate the first Kier shape descriptor of a compound",
    ),
    (
        "calculate number of aromatic rings in molecule",
        "count aromatic ring systems in a chemical structure",
    ),
    (
        "retrieve the crystal structure of a material by its identifier",
        "fetch a material's crystal lattice given its ID",
    ),
    (
        "When requiring the formula of a molecule, select a tool that gives its Hill formula.",
        "To obtain a compound's molecular formula, use a tool producing the Hill-notation formula.",
    ),
    (
        "Prefer known tools whose input type matches the previous step's output type.",
        "Favour known tools that accept what the previous step returned.",
    ),
]
THRESHOLD = 0.85


def measure(spec: str) -> dict[str, float]:
    """Cosine statistics of one embedder over the pairs."""
    embedder = make_embedder(spec)
    left = [a for a, _ in PAIRS]
    right = [b for _, b in PAIRS]
    started = time.perf_counter()
    a, b = embedder.embed(left), embedder.embed(right)
    seconds = time.perf_counter() - started
    para = np.sum(a * b, axis=1)
    cross = (a @ b.T)[~np.eye(len(PAIRS), dtype=bool)]
    return {
        "para_mean": float(para.mean()),
        "para_min": float(para.min()),
        "para_max": float(para.max()),
        "cross_mean": float(cross.mean()),
        "cross_max": float(cross.max()),
        "para_merged": int((para > THRESHOLD).sum()),
        "cross_merged": int((cross > THRESHOLD).sum()),
        "ms_per_text": 1000 * seconds / (2 * len(PAIRS)),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("specs", nargs="*", default=["hashing"])
    args = ap.parse_args()
    specs = list(dict.fromkeys(["hashing", *args.specs]))
    print(
        f"{len(PAIRS)} paraphrase pairs, {len(PAIRS) * (len(PAIRS) - 1)} unrelated pairs; "
        f"dedup threshold {THRESHOLD}\n"
    )
    print(
        "| embedder | paraphrase cos mean (min-max) | unrelated cos mean (max) "
        "| paraphrases merged | unrelated merged | para/unrelated ratio | ms/text |"
    )
    print("|" + " --- |" * 7)
    for spec in specs:
        m = measure(spec)
        print(
            f"| {spec} | {m['para_mean']:.2f} ({m['para_min']:.2f}-{m['para_max']:.2f}) "
            f"| {m['cross_mean']:.2f} ({m['cross_max']:.2f}) | {m['para_merged']}/{len(PAIRS)} "
            f"| {m['cross_merged']}/{len(PAIRS) * (len(PAIRS) - 1)} "
            f"| {m['para_mean'] / max(m['cross_mean'], 1e-9):.1f} | {m['ms_per_text']:.2f} |"
        )


if __name__ == "__main__":
    main()
