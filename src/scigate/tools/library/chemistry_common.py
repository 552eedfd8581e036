"""Shared helpers of the chemistry tools: parsing with clear errors, seeded 3D embedding.

RDKit, selfies and friends are imported lazily inside the helpers so that loading the
tool library stays fast; RDKit's own stderr logging is silenced once, on first use.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from scigate.tools._tool import Tool, ToolExample, ToolInputError, tool

EMBED_SEED = 0xF00D  # fixed ETKDG seed: 3D descriptors are reproducible run to run

RDKIT = ["rdkit"]
SRC_RDKIT = "RDKit"
SMILES_IN = ["SMILES"]


@functools.cache
def rdkit_chem() -> Any:
    """`rdkit.Chem` with RDKit's logging to stderr switched off."""
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")  # type: ignore[attr-defined]  # RDKit's stub lacks DisableLog
    return Chem


def rdmd() -> Any:
    """`rdkit.Chem.rdMolDescriptors`, imported on first use."""
    from rdkit.Chem import rdMolDescriptors

    return rdMolDescriptors


def rdkit_tool(
    name: str,
    functionality: str,
    *,
    outputs: list[str],
    scenarios: list[str],
    objects: list[str] | None = None,
    inputs: list[str] | None = None,
    examples: Sequence[tuple[dict[str, Any], Any] | ToolExample] | None = None,
    heavy: bool = False,
    time_limit: float | None = None,
) -> Callable[[Callable[..., Any]], Tool]:
    """The `@tool` decorator of an RDKit chemistry tool (SMILES in, `molecule` object by default)."""
    return tool(
        name=name,
        functionality=functionality,
        inputs=inputs or SMILES_IN,
        outputs=outputs,
        category="chemistry",
        source=SRC_RDKIT,
        objects=objects or ["molecule"],
        scenarios=scenarios,
        requires=RDKIT,
        examples=examples or [],
        heavy=heavy,
        time_limit=time_limit,
    )


def rdmd_tool(
    name: str,
    calc: str,
    functionality: str,
    output: str,
    *,
    prepare: Callable[[str], Any],
    convert: Callable[[Any], Any],
    doc: str,
    scenarios: list[str],
    objects: list[str] | None = None,
    examples: list[ToolExample] | None = None,
    heavy: bool = False,
) -> Tool:
    """Register one SMILES tool answering ``convert(rdMolDescriptors.<calc>(prepare(smiles)))``."""

    def run(smiles: str) -> Any:
        return convert(getattr(rdmd(), calc)(prepare(smiles)))

    run.__doc__ = f"{functionality} ({doc})."
    return rdkit_tool(
        name,
        functionality,
        outputs=[output],
        scenarios=scenarios,
        objects=objects,
        examples=examples,
        heavy=heavy,
    )(run)


def float_list(values: Any) -> list[float]:
    """A sequence of numbers as a list of Python floats."""
    return [float(x) for x in values]


def _syntax_hint(text: str) -> str:
    if text.count("(") != text.count(")"):
        return "unbalanced parentheses"
    if text.count("[") != text.count("]"):
        return "unbalanced square brackets"
    if any(c.isspace() for c in text.strip()):
        return "contains whitespace"
    return "syntax error or unknown atom symbol"


def parse_smiles(smiles: str, *, sanitize: bool = True) -> Any:
    """An RDKit `Mol` from SMILES; raise `ToolInputError` saying why when it is unusable."""
    chem = rdkit_chem()
    text = (smiles or "").strip()
    if not text:
        raise ToolInputError("empty SMILES")
    mol = chem.MolFromSmiles(text, sanitize=sanitize)
    if mol is not None:
        return mol
    # diagnose: parse without sanitisation to tell syntax errors from chemistry errors
    raw = chem.MolFromSmiles(text, sanitize=False)
    if raw is None:
        raise ToolInputError(f"invalid SMILES '{text}': {_syntax_hint(text)}")
    try:
        chem.SanitizeMol(raw)
    except Exception as exc:  # RDKit raises its own sanitization exception types
        raise ToolInputError(f"invalid SMILES '{text}': {exc}") from None
    raise ToolInputError(f"invalid SMILES '{text}': rejected by RDKit")


def atoms_of(smiles: str) -> list[Any]:
    """The atoms of the molecule parsed from `smiles`."""
    return list(parse_smiles(smiles).GetAtoms())


def parse_smiles_list(smiles_list: list[str]) -> list[Any]:
    """Parse each SMILES of a list; the error names the failing entry."""
    if not smiles_list:
        raise ToolInputError("empty SMILES list")
    mols = []
    for i, smi in enumerate(smiles_list):
        try:
            mols.append(parse_smiles(smi))
        except ToolInputError as exc:
            raise ToolInputError(f"entry {i}: {exc}") from None
    return mols


def parse_smarts(smarts: str) -> Any:
    """An RDKit query `Mol` from SMARTS; `ToolInputError` when empty or invalid."""
    chem = rdkit_chem()
    text = (smarts or "").strip()
    if not text:
        raise ToolInputError("empty SMARTS")
    query = chem.MolFromSmarts(text)
    if query is None:
        raise ToolInputError(f"invalid SMARTS '{text}': {_syntax_hint(text)}")
    return query


def parse_pattern(pattern: str) -> Any:
    """A substructure query from SMARTS, falling back to SMILES (SMILES is mostly valid SMARTS)."""
    text = (pattern or "").strip()
    if not text:
        raise ToolInputError("empty SMILES/SMARTS pattern")
    chem = rdkit_chem()
    query = chem.MolFromSmarts(text)
    if query is None:
        query = chem.MolFromSmiles(text)
    if query is None:
        raise ToolInputError(f"invalid SMILES/SMARTS pattern '{text}': {_syntax_hint(text)}")
    return query


def parse_inchi(inchi: str) -> Any:
    """An RDKit `Mol` from InChI; `ToolInputError` with the InChI library's message."""
    rdkit_chem()
    from rdkit.Chem import rdinchi

    text = (inchi or "").strip()
    if not text:
        raise ToolInputError("empty InChI")
    if not text.startswith("InChI="):
        raise ToolInputError(f"invalid InChI '{text}': must start with 'InChI='")
    mol, code, _message, log = rdinchi.InchiToMol(text, True, True)
    if mol is None:
        reason = (log or "").strip().splitlines()[-1:] or [f"InChI error code {code}"]
        raise ToolInputError(f"invalid InChI '{text}': {reason[0].strip()}")
    return mol


def parse_selfies(selfies: str) -> str:
    """Decode SELFIES to SMILES; `ToolInputError` on empty or malformed input."""
    import selfies as sf

    text = (selfies or "").strip()
    if not text:
        raise ToolInputError("empty SELFIES")
    try:
        smiles = sf.decoder(text)
    except sf.DecoderError as exc:
        raise ToolInputError(f"invalid SELFIES '{text}': {exc}") from None
    if smiles is None or (not smiles and text):
        raise ToolInputError(f"invalid SELFIES '{text}': decodes to nothing")
    return smiles


def canonical(mol: Any, *, isomeric: bool = True) -> str:
    """RDKit canonical SMILES."""
    return rdkit_chem().MolToSmiles(mol, isomericSmiles=isomeric)


@functools.lru_cache(maxsize=256)
def _embedded(canonical_smiles: str) -> Any:
    chem = rdkit_chem()
    from rdkit.Chem import AllChem

    mol = chem.AddHs(chem.MolFromSmiles(canonical_smiles))
    # the ignores below: RDKit's AllChem stub omits what AllChem re-exports with `import *`
    params = AllChem.ETKDGv3()  # type: ignore[attr-defined]
    params.randomSeed = EMBED_SEED
    params.numThreads = 1
    if AllChem.EmbedMolecule(mol, params) != 0:  # type: ignore[attr-defined]
        params.useRandomCoords = True
        if AllChem.EmbedMolecule(mol, params) != 0:  # type: ignore[attr-defined]
            raise ToolInputError(f"could not generate a 3D conformer for '{canonical_smiles}'")
    # force-field relaxation makes the geometry physical (benzene a regular hexagon, ...)
    if AllChem.MMFFHasAllMoleculeParams(mol):  # type: ignore[attr-defined]
        AllChem.MMFFOptimizeMolecule(mol, maxIters=2000)  # type: ignore[attr-defined]
    elif AllChem.UFFHasAllMoleculeParams(mol):  # type: ignore[attr-defined]
        AllChem.UFFOptimizeMolecule(mol, maxIters=2000)  # type: ignore[attr-defined]
    return mol


def embed_3d(smiles: str) -> Any:
    """The molecule with explicit H and one ETKDG conformer (seed 0xF00D, MMFF-relaxed), cached."""
    mol = parse_smiles(smiles)
    if mol.GetNumAtoms() == 0:
        raise ToolInputError("molecule has no atoms")
    return _embedded(canonical(mol))


def on_bits(fp: Any) -> dict[str, Any]:
    """A bit-vector fingerprint as {n_bits, num_on_bits, on_bits}."""
    bits = list(fp.GetOnBits())
    return {"n_bits": int(fp.GetNumBits()), "num_on_bits": len(bits), "on_bits": bits}


def sparse_counts(fp: Any) -> dict[str, Any]:
    """A sparse count fingerprint as {num_features, total_count, counts: {feature_id: count}}."""
    elements = {str(k): int(v) for k, v in sorted(fp.GetNonzeroElements().items())}
    return {
        "num_features": len(elements),
        "total_count": sum(elements.values()),
        "counts": elements,
    }


def check_bits(n_bits: int) -> int:
    """Validate a fingerprint length."""
    if not 8 <= n_bits <= 16384:
        raise ToolInputError(f"n_bits must be between 8 and 16384, got {n_bits}")
    return n_bits
