"""Chemistry tools: molecular fingerprints (Morgan/ECFP, MACCS, atom pair, torsion, RDKit,
Avalon, pattern, Pharm2D, SECFP, MHFP, EState-free), similarity, distance matrices and
clustering, computed with RDKit.

Bit fingerprints are returned as ``{"n_bits", "num_on_bits", "on_bits"}`` (folded to
``n_bits``, 2048 by default); `GetAtomPairFingerprintAsBitVect` is the exception the
SciToolKG graph specifies: RDKit's unfolded SparseBitVect (2^23 bits), marked
``"type": "SparseBitVect"``. Count
fingerprints as ``{"num_features", "total_count", "counts": {feature: count}}``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from scigate.tools._tool import Tool, ToolExample, ToolInputError, tool
from scigate.tools.library.chemistry_common import (
    RDKIT,
    SMILES_IN,
    SRC_RDKIT,
    atoms_of,
    check_bits,
    on_bits,
    parse_smiles,
    parse_smiles_list,
    rdkit_tool,
    sparse_counts,
)

ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O"
_SCEN = ["molecular fingerprinting", "similarity search", "machine-learning features"]

FingerprintKind = Literal[
    "morgan", "featmorgan", "maccs", "atompair", "torsion", "rdkit", "avalon", "pattern"
]


def _gen() -> Any:
    from rdkit.Chem import rdFingerprintGenerator

    return rdFingerprintGenerator


def _bit_fp(mol: Any, kind: str, n_bits: int = 2048, radius: int = 2) -> Any:
    """One bit-vector fingerprint of `mol`."""
    g = _gen()
    if kind == "morgan":
        return g.GetMorganGenerator(radius=radius, fpSize=n_bits).GetFingerprint(mol)
    if kind == "featmorgan":
        inv = g.GetMorganFeatureAtomInvGen()
        return g.GetMorganGenerator(
            radius=radius, fpSize=n_bits, atomInvariantsGenerator=inv
        ).GetFingerprint(mol)
    if kind == "maccs":
        from rdkit.Chem import MACCSkeys

        return MACCSkeys.GenMACCSKeys(mol)  # type: ignore[attr-defined]  # RDKit's stub lacks this alias
    if kind == "atompair":
        return g.GetAtomPairGenerator(fpSize=n_bits).GetFingerprint(mol)
    if kind == "torsion":
        return g.GetTopologicalTorsionGenerator(fpSize=n_bits).GetFingerprint(mol)
    if kind == "rdkit":
        return g.GetRDKitFPGenerator(fpSize=n_bits).GetFingerprint(mol)
    if kind == "avalon":
        from rdkit.Avalon import pyAvalonTools

        return pyAvalonTools.GetAvalonFP(mol, nBits=n_bits)
    if kind == "pattern":
        from rdkit import Chem

        return Chem.PatternFingerprint(mol, fpSize=n_bits)
    raise ToolInputError(
        f"unknown fingerprint '{kind}'; choose morgan, featmorgan, maccs, atompair, torsion, rdkit, avalon or pattern"
    )


def _register_bits(
    name: str,
    kind: str,
    functionality: str,
    output: str,
    *,
    default_bits: int = 2048,
    with_radius: bool = False,
    fixed_bits: bool = False,
    examples: list[tuple[dict[str, Any], Any]] | None = None,
) -> Tool:
    """Register a SMILES -> bit fingerprint tool (optional n_bits / radius arguments)."""
    if fixed_bits:

        def run(smiles: str) -> dict[str, Any]:
            return on_bits(_bit_fp(parse_smiles(smiles), kind))

    elif with_radius:

        def run(smiles: str, radius: int = 2, n_bits: int = default_bits) -> dict[str, Any]:  # type: ignore[misc]
            if not 0 <= radius <= 6:
                raise ToolInputError(f"radius must be between 0 and 6, got {radius}")
            return on_bits(_bit_fp(parse_smiles(smiles), kind, check_bits(n_bits), radius))

    else:

        def run(smiles: str, n_bits: int = default_bits) -> dict[str, Any]:  # type: ignore[misc]
            return on_bits(_bit_fp(parse_smiles(smiles), kind, check_bits(n_bits)))

    run.__doc__ = f"{functionality} Returns the set bits."
    return rdkit_tool(name, functionality, outputs=[output], scenarios=_SCEN, examples=examples)(
        run
    )


_ETHANOL_MORGAN = {"n_bits": 2048, "num_on_bits": 6, "on_bits": [80, 222, 294, 807, 1057, 1410]}

_register_bits(
    "GetMorganFingerprint",
    "morgan",
    "Compute the Morgan (circular, ECFP-like) bit fingerprint of a molecule.",
    "Morgan fingerprint",
    with_radius=True,
    examples=[({"smiles": "CCO"}, _ETHANOL_MORGAN)],
)
_register_bits(
    "BuildMorganFpFromSmiles",
    "morgan",
    "Generate a Morgan (circular) bit fingerprint from a SMILES string.",
    "Morgan fingerprint",
    with_radius=True,
    examples=[({"smiles": "CCO"}, _ETHANOL_MORGAN)],
)
_register_bits(
    "GetFeatureMorganFingerprint",
    "featmorgan",
    "Compute the feature-based Morgan (FCFP-like) bit fingerprint of a molecule.",
    "fingerprint",
    with_radius=True,
)
_register_bits(
    "GetMACCSKeysFingerprint",
    "maccs",
    "Compute the 167-bit MACCS (Molecular ACCess System) structural keys fingerprint of a molecule.",
    "Molecular ACCess System keys fingerprint",
    fixed_bits=True,
    examples=[
        (
            {"smiles": "CCO"},
            {
                "n_bits": 167,
                "num_on_bits": 9,
                "on_bits": [82, 109, 114, 139, 153, 155, 157, 160, 164],
            },
        )
    ],
)


@rdkit_tool(
    "GetAtomPairFingerprintAsBitVect",
    "Generate the atom-pair fingerprint of a molecule as an RDKit SparseBitVect (unfolded, 2^23 bits).",
    outputs=["the bit vector fingerprint"],
    scenarios=_SCEN,
    examples=[
        (
            {"smiles": "CCO"},
            {
                "type": "SparseBitVect",
                "n_bits": 8388608,
                "num_on_bits": 3,
                "on_bits": [558113, 1590306, 1590337],
            },
        )
    ],
)
def atom_pair_sparse_bits(smiles: str) -> dict[str, Any]:
    """`Pairs.GetAtomPairFingerprintAsBitVect`: the SparseBitVect SciToolKG specifies.

    Convention: each bit is one atom-pair code (atom type, topological distance, atom
    type) of the heavy atoms, unfolded in a 2^23-bit space, so bits are not comparable
    with the folded 2048-bit `BuildAtomPairFpFromSmiles` vector.
    """
    from rdkit import rdBase
    from rdkit.Chem.AtomPairs import Pairs

    mol = parse_smiles(smiles)
    with rdBase.BlockLogs():  # RDKit logs a deprecation notice for this (graph-named) API
        fp = Pairs.GetAtomPairFingerprintAsBitVect(mol)
    return {"type": "SparseBitVect", **on_bits(fp)}


_register_bits(
    "BuildAtomPairFpFromSmiles",
    "atompair",
    "Generate an atom-pair bit fingerprint from a SMILES string.",
    "Atom Pair Fingerprint",
)
_register_bits(
    "BuildTorsionsFpFromSmiles",
    "torsion",
    "Generate a topological-torsion bit fingerprint from a SMILES string.",
    "Torsions Fingerprint",
)
_register_bits(
    "GetRdkFingerprintFromSmiles",
    "rdkit",
    "Generate an RDKit (path-based, Daylight-like) bit fingerprint from a SMILES string with default parameters.",
    "fingerprint",
)
_register_bits(
    "BuildRdkitFpFromSmiles",
    "rdkit",
    "Generate an RDKit (path-based) bit fingerprint from a SMILES string.",
    "RDKit fingerprint",
)
_register_bits(
    "BuildAvalonFpFromSmiles",
    "avalon",
    "Generate an Avalon bit fingerprint from a SMILES string.",
    "Avalon fingerprint",
    default_bits=512,
)
_register_bits(
    "GetPatternFingerprint",
    "pattern",
    "Generate the RDKit pattern (substructure-screening) bit fingerprint of a molecule.",
    "BitVector",
)
_register_bits(
    "GetPatternFingerprintTemplate",
    "pattern",
    "Generate a pattern fingerprint for a molecule (substructure screening bits).",
    "fingerprint",
)


def _register_counts(name: str, make: Callable[[], Any], functionality: str, output: str) -> Tool:
    def run(smiles: str) -> dict[str, Any]:
        return sparse_counts(make().GetSparseCountFingerprint(parse_smiles(smiles)))

    run.__doc__ = f"{functionality} Returns unfolded feature ids with counts."
    return rdkit_tool(name, functionality, outputs=[output], scenarios=_SCEN)(run)


_register_counts(
    "GetAtomPairFingerprint",
    lambda: _gen().GetAtomPairGenerator(),
    "Compute the (unfolded, count-based) atom-pair fingerprint of a molecule.",
    "atom pair fingerprint",
)
_register_counts(
    "GetTopologicalTorsionFingerprint",
    lambda: _gen().GetTopologicalTorsionGenerator(),
    "Compute the (unfolded, count-based) topological-torsion fingerprint of a molecule.",
    "topological torsion fingerprint",
)


@tool(
    name="BuildPharm2DFpFromSmiles",
    functionality="Generate the Gobbi-Poppinger 2D pharmacophore (Pharm2D) fingerprint of a molecule.",
    inputs=SMILES_IN,
    outputs=["Pharm2D fingerprint"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule"],
    scenarios=["pharmacophore similarity", *_SCEN],
    requires=RDKIT,
)
def pharm2d_fp(smiles: str) -> dict[str, Any]:
    """Set bits of the sparse Gobbi 2D pharmacophore fingerprint."""
    from rdkit.Chem.Pharm2D import Generate, Gobbi_Pharm2D

    fp = Generate.Gen2DFingerprint(parse_smiles(smiles), Gobbi_Pharm2D.factory)
    return on_bits(fp)


@tool(
    name="ProcessFingerprintMol",
    functionality="Represent the Morgan fingerprint of a molecule as a binary string and a hexadecimal string.",
    inputs=SMILES_IN,
    outputs=["fingerprints"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule"],
    scenarios=_SCEN,
    requires=RDKIT,
    examples=[
        ({"smiles": "C", "n_bits": 16, "radius": 0}, {"binary": "1000000000000000", "hex": "0100"})
    ],
)
def fingerprint_strings(smiles: str, radius: int = 2, n_bits: int = 2048) -> dict[str, str]:
    """Morgan bits as '0101...' and as RDKit's hex rendering (BitVectToFPSText)."""
    from rdkit import DataStructs

    fp = _bit_fp(parse_smiles(smiles), "morgan", check_bits(n_bits), radius)
    return {"binary": fp.ToBitString(), "hex": DataStructs.BitVectToFPSText(fp)}


@tool(
    name="FingerprintsFromSmiles",
    functionality="Generate Morgan bit fingerprints (set-bit lists) for a list of SMILES strings.",
    inputs=["SMILES list"],
    outputs=["fingerprints list"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule set"],
    scenarios=_SCEN,
    requires=RDKIT,
    examples=[
        ({"smiles_list": ["CCO", "OCC"]}, [_ETHANOL_MORGAN["on_bits"], _ETHANOL_MORGAN["on_bits"]])
    ],
)
def fingerprints_from_smiles(
    smiles_list: list[str], radius: int = 2, n_bits: int = 2048
) -> list[list[int]]:
    """One list of set bits per SMILES, same order."""
    return [
        list(_bit_fp(m, "morgan", check_bits(n_bits), radius).GetOnBits())
        for m in parse_smiles_list(smiles_list)
    ]


@tool(
    name="FoldFingerprintFromSmiles",
    functionality="Generate a Morgan fingerprint, fold it by a factor (OR of halves) and report bits before and after folding.",
    inputs=SMILES_IN,
    outputs=["fingerprint details"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule"],
    scenarios=_SCEN,
    requires=RDKIT,
    examples=[
        (
            {"smiles": "CCO", "fold_factor": 2},
            {
                "original": _ETHANOL_MORGAN,
                "folded": {
                    "n_bits": 1024,
                    "num_on_bits": 6,
                    "on_bits": [33, 80, 222, 294, 386, 807],
                },
            },
        )
    ],
)
def fold_fingerprint(smiles: str, n_bits: int = 2048, fold_factor: int = 2) -> dict[str, Any]:
    """`DataStructs.FoldFingerprint`: bit i of the folded vector is the OR of bits i, i+L/f, ..."""
    from rdkit import DataStructs

    if fold_factor < 1 or n_bits % fold_factor:
        raise ToolInputError(
            f"fold_factor must be a positive divisor of n_bits={n_bits}, got {fold_factor}"
        )
    fp = _bit_fp(parse_smiles(smiles), "morgan", check_bits(n_bits))
    return {
        "original": on_bits(fp),
        "folded": on_bits(DataStructs.FoldFingerprint(fp, fold_factor)),
    }


def _similarity(fa: Any, fb: Any, metric: str) -> float:
    from rdkit import DataStructs

    funcs: dict[str, Callable[[Any, Any], float]] = {
        "tanimoto": DataStructs.TanimotoSimilarity,
        "dice": DataStructs.DiceSimilarity,
        "cosine": DataStructs.CosineSimilarity,
    }
    if metric not in funcs:
        raise ToolInputError(f"unknown metric '{metric}'; choose tanimoto, dice or cosine")
    return float(funcs[metric](fa, fb))


@tool(
    name="CalculateFingerprintSimilarity",
    functionality="Calculate the similarity of two molecules with a chosen fingerprint (morgan, maccs, atompair, torsion, rdkit, avalon...) and metric (tanimoto, dice, cosine).",
    inputs=["SMILES pair"],
    outputs=["similarity score"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule pair"],
    scenarios=["similarity search", "analogue comparison"],
    requires=RDKIT,
    examples=[({"smiles_a": "CCO", "smiles_b": "OCC", "fingerprint": "maccs"}, 1.0)],
    aliases=["SmallMoleculeSimilarityCalculation"],  # SciToolKG: RDKit fingerprint similarity
)
def fingerprint_similarity(
    smiles_a: str, smiles_b: str, fingerprint: FingerprintKind = "morgan", metric: str = "tanimoto"
) -> float:
    """Similarity in [0, 1]."""
    kind = fingerprint.lower().strip()
    fa = _bit_fp(parse_smiles(smiles_a), kind)
    fb = _bit_fp(parse_smiles(smiles_b), kind)
    return _similarity(fa, fb, metric.lower().strip())


@tool(
    name="CalculateDistanceMatrix",
    functionality="Calculate the Tanimoto distance matrix (1 - similarity) of a list of molecules from their Morgan fingerprints.",
    inputs=["SMILES list"],
    outputs=["the distance matrix"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule set"],
    scenarios=["diversity analysis", "clustering"],
    requires=RDKIT,
    examples=[({"smiles_list": ["CCO", "OCC"]}, [[0.0, 0.0], [0.0, 0.0]])],
)
def fp_distance_matrix(smiles_list: list[str]) -> list[list[float]]:
    """Symmetric n x n matrix with a zero diagonal."""
    from rdkit import DataStructs

    fps = [_bit_fp(m, "morgan") for m in parse_smiles_list(smiles_list)]
    return [[1.0 - float(s) for s in DataStructs.BulkTanimotoSimilarity(fa, fps)] for fa in fps]


@tool(
    name="ClusterMolecules",
    functionality="Cluster a list of molecules with the Butina algorithm on Morgan-fingerprint Tanimoto distances.",
    inputs=["SMILES list"],
    outputs=["clustering results"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule set"],
    scenarios=["diversity analysis", "compound library design"],
    requires=RDKIT,
    examples=[({"smiles_list": ["CCO", "OCC", "c1ccccc1"], "cutoff": 0.4}, [[0, 1], [2]])],
)
def cluster_molecules(smiles_list: list[str], cutoff: float = 0.4) -> list[list[int]]:
    """Clusters as sorted lists of input indices, largest first; `cutoff` is the distance threshold."""
    from rdkit import DataStructs
    from rdkit.ML.Cluster import Butina

    if not 0.0 <= cutoff <= 1.0:
        raise ToolInputError(f"cutoff must be between 0 and 1, got {cutoff}")
    fps = [_bit_fp(m, "morgan") for m in parse_smiles_list(smiles_list)]
    dists: list[float] = []
    for i in range(1, len(fps)):
        dists.extend(1.0 - s for s in DataStructs.BulkTanimotoSimilarity(fps[i], fps[:i]))
    clusters = Butina.ClusterData(dists, len(fps), cutoff, isDistData=True)
    return sorted((sorted(c) for c in clusters), key=lambda c: (-len(c), c[0]))


def _atom_invariants(smiles: str, feature: bool) -> list[int]:
    from rdkit.Chem import rdMolDescriptors

    mol = parse_smiles(smiles)
    calc = (
        rdMolDescriptors.GetFeatureInvariants
        if feature
        else rdMolDescriptors.GetConnectivityInvariants
    )
    return [int(x) for x in calc(mol)]


@tool(
    name="GetConnectivityInvariants",
    functionality="Compute the per-atom connectivity invariants used by Morgan/ECFP fingerprints.",
    inputs=SMILES_IN,
    outputs=["connectivity invariants"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule", "atom"],
    scenarios=["fingerprint analysis"],
    requires=RDKIT,
    examples=[({"smiles": "CCO"}, [2246728737, 2245384272, 864662311])],
)
def connectivity_invariants(smiles: str) -> list[int]:
    """One hashed ECFP invariant per heavy atom."""
    return _atom_invariants(smiles, feature=False)


@tool(
    name="GetFeatureInvariants",
    functionality="Compute the per-atom pharmacophore-feature invariants used by FCFP (feature Morgan) fingerprints.",
    inputs=SMILES_IN,
    outputs=["feature invariants"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule", "atom"],
    scenarios=["fingerprint analysis"],
    requires=RDKIT,
    examples=[({"smiles": "CCO"}, [0, 0, 3])],
)
def feature_invariants(smiles: str) -> list[int]:
    """One FCFP feature bitmask per heavy atom (donor 1, acceptor 2, aromatic, halogen, basic, acidic)."""
    return _atom_invariants(smiles, feature=True)


@tool(
    name="GetAtomPairCode",
    functionality="Compute the atom-pair atom code (hash of element, heavy degree and pi electrons) of each atom.",
    inputs=SMILES_IN,
    outputs=["atom code (hash) for each atom"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule", "atom"],
    scenarios=["fingerprint analysis"],
    requires=RDKIT,
)
def atom_pair_codes(smiles: str) -> list[int]:
    """`rdMolDescriptors.GetAtomPairAtomCode` for each atom."""
    from rdkit.Chem import rdMolDescriptors

    return [int(rdMolDescriptors.GetAtomPairAtomCode(a)) for a in atoms_of(smiles)]


def _mhfp_encoder(n_permutations: int) -> Any:
    """RDKit's MHFP encoder with the fixed seed 42 used by the MHFP/SECFP tools."""
    from rdkit.Chem import rdMHFPFingerprint

    return rdMHFPFingerprint.MHFPEncoder(n_permutations, 42)


@tool(
    name="EncodeSECFP",
    functionality="Create the SECFP (SMILES extended connectivity) bit fingerprint of a molecule with the MHFP encoder.",
    inputs=SMILES_IN,
    outputs=["SECFP"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule"],
    scenarios=_SCEN,
    requires=RDKIT,
)
def secfp(smiles: str, radius: int = 3, n_bits: int = 2048) -> dict[str, Any]:
    """SECFP bits (folded shingle hashes)."""
    enc = _mhfp_encoder(2048)
    return on_bits(
        enc.EncodeSECFPMol(parse_smiles(smiles), radius, True, False, False, 1, check_bits(n_bits))
    )


@tool(
    name="EncodeMolecule",
    functionality="Create the MHFP (MinHash fingerprint) vector of a molecule with the MHFP encoder (128 permutations, seed 42).",
    inputs=SMILES_IN,
    outputs=["MHFP"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule"],
    scenarios=["similarity search", "locality-sensitive hashing"],
    requires=RDKIT,
)
def mhfp(smiles: str, radius: int = 3) -> list[int]:
    """128 MinHash values of the molecule's circular-substructure shingles."""
    enc = _mhfp_encoder(128)
    return [int(x) for x in enc.EncodeMol(parse_smiles(smiles), radius, True, False, False, 1)]


@tool(
    name="CreateShingling",
    functionality="Create the shingling of a molecule: the set of circular-substructure SMILES used by MHFP/SECFP.",
    inputs=SMILES_IN,
    outputs=["Shingling"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule"],
    scenarios=["similarity search", "molecular fingerprinting"],
    requires=RDKIT,
)
def shingling(smiles: str, radius: int = 3) -> list[str]:
    """Substructure SMILES shingles, sorted."""
    enc = _mhfp_encoder(128)
    shingles = enc.CreateShinglingFromMol(parse_smiles(smiles), radius, True, False, 1)
    return sorted(s.decode() if isinstance(s, bytes) else str(s) for s in shingles)


@tool(
    name="GetFraggleSimilarity",
    functionality="Calculate the Fraggle similarity (fragment-based partial similarity) between two molecules and the matching fragment.",
    inputs=["SMILES pair"],
    outputs=["Fraggle similarity"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule pair"],
    scenarios=["scaffold hopping", "similarity search"],
    requires=RDKIT,
    # the example of the RDKit Fraggle documentation
    examples=[
        ToolExample(
            input={
                "smiles_a": "COc1cc(CN2CCC(NC(=O)c3cncc(C)c3)CC2)c(OC)c2ccccc12",
                "smiles_b": "COc1cc(CN2CCC(NC(=O)c3ccccc3)CC2)c(OC)c2ccccc12",
            },
            output={"similarity": 0.980, "match": "*C1CCN(Cc2cc(OC)c3ccccc3c2OC)CC1"},
            abs_tol=1e-3,
        )
    ],
)
def fraggle_similarity(smiles_a: str, smiles_b: str) -> dict[str, Any]:
    """`FraggleSim.GetFraggleSimilarity(query=a, reference=b)`: similarity and the matching fragment SMILES."""
    from rdkit.Chem.Fraggle import FraggleSim

    sim, match = FraggleSim.GetFraggleSimilarity(parse_smiles(smiles_a), parse_smiles(smiles_b))
    return {"similarity": float(sim), "match": match}


@tool(
    name="GenerateFraggleFragments",
    functionality="Generate all Fraggle fragmentations (acyclic and ring cuts) of a molecule.",
    inputs=SMILES_IN,
    outputs=["Fraggle fragmentations"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule"],
    scenarios=["fragment-based design", "scaffold analysis"],
    requires=RDKIT,
    examples=[({"smiles": "COc1ccccc1CCN"}, ["*Cc1ccccc1OC", "*c1ccccc1CCN", "*c1ccccc1OC"])],
)
def fraggle_fragments(smiles: str) -> list[str]:
    """Fragmentation SMILES (pieces joined by '.'), sorted."""
    from rdkit.Chem.Fraggle import FraggleSim

    return sorted(FraggleSim.generate_fraggle_fragmentation(parse_smiles(smiles)))
