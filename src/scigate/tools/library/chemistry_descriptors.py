"""Chemistry tools: 2D molecular descriptors (counts, connectivity and shape indices,
surface areas, logP, EState, BCUT, drug-likeness) computed with RDKit.

Reference values in the examples were computed with RDKit and, where PubChem publishes
the same quantity, checked against PubChem's computed properties (noted per tool).
"""

from __future__ import annotations

from typing import Any

from scigate.tools._tool import Tool, ToolExample, ToolInputError, tool
from scigate.tools.library.chemistry_common import (
    RDKIT,
    SMILES_IN,
    SRC_RDKIT,
    parse_smiles,
    rdmd,
    rdmd_tool,
)

ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O"
CAFFEINE = "Cn1c(=O)c2c(ncn2C)n(C)c1=O"
IBUPROFEN = "CC(C)Cc1ccc(cc1)C(C)C(=O)O"
NICOTINE = "CN1CCC[C@H]1c1cccnc1"
PARACETAMOL = "CC(=O)Nc1ccc(O)cc1"
SPIRO = "C1CCC2(C1)CCNCC2"  # 3-azaspiro[5.4]decane
NORBORNANE = "C1CC2CCC1C2"


def _descriptor_tool(
    name: str,
    calc: str,
    functionality: str,
    output: str,
    examples: list[tuple[str, Any]],
    *,
    kind: type = int,
    scenarios: list[str] | None = None,
    tol: float = 1e-6,
) -> Tool:
    """Register one SMILES -> number tool backed by `rdMolDescriptors.<calc>`."""
    return rdmd_tool(
        name,
        calc,
        functionality,
        output,
        prepare=parse_smiles,
        convert=kind,
        doc=f"RDKit rdMolDescriptors.{calc}",
        scenarios=scenarios or ["molecular descriptor calculation", "QSAR"],
        examples=[
            ToolExample(input={"smiles": s}, output=v, rel_tol=tol, abs_tol=tol)
            for s, v in examples
        ],
    )


_COUNT_SCEN = ["molecular descriptor calculation", "structure analysis", "drug-likeness filtering"]

# (name, rdMolDescriptors function, functionality, output type, examples)
_COUNTS: list[tuple[str, str, str, str, list[tuple[str, int]]]] = [
    (
        "GetAliphaticCarbocyclesNum",
        "CalcNumAliphaticCarbocycles",
        "Calculate the number of aliphatic carbocycles in a molecule.",
        "Number of aliphatic carbocycles",
        [(NORBORNANE, 2), (ASPIRIN, 0)],
    ),
    (
        "GetAliphaticHeterocyclesNum",
        "CalcNumAliphaticHeterocycles",
        "Calculate the number of aliphatic heterocycles in a molecule.",
        "Number of aliphatic heterocycles",
        [(NICOTINE, 1), (CAFFEINE, 0)],
    ),
    (
        "GetAliphaticRingsNum",
        "CalcNumAliphaticRings",
        "Calculate the number of aliphatic rings in a molecule.",
        "Number of aliphatic rings",
        [(SPIRO, 2), (ASPIRIN, 0)],
    ),
    (
        "GetAmideBondsNum",
        "CalcNumAmideBonds",
        "Calculate the number of amide bonds in a molecule.",
        "Number of amide bonds",
        [(PARACETAMOL, 1), (ASPIRIN, 0)],
    ),
    (
        "GetAromaticCarbocyclesNum",
        "CalcNumAromaticCarbocycles",
        "Calculate the number of aromatic carbocycles in a molecule.",
        "Number of aromatic carbocycles",
        [(ASPIRIN, 1), (CAFFEINE, 0)],
    ),
    (
        "GetAromaticHeterocyclesNum",
        "CalcNumAromaticHeterocycles",
        "Calculate the number of aromatic heterocycles in a molecule.",
        "Number of aromatic heterocycles",
        [(CAFFEINE, 2), (NICOTINE, 1)],
    ),
    (
        "GetAromaticRingsNum",
        "CalcNumAromaticRings",
        "Calculate the number of aromatic rings in a molecule.",
        "Number of aromatic rings",
        [(CAFFEINE, 2), (ASPIRIN, 1)],
    ),
    (
        "GetAtomStereoCentersNum",
        "CalcNumAtomStereoCenters",
        "Calculate the number of atom stereo centers (specified or not) in a molecule.",
        "Number of atom stereo centers",
        [(IBUPROFEN, 1), (NICOTINE, 1), (ASPIRIN, 0)],
    ),
    (
        "GetUnspecifiedAtomStereoCentersNum",
        "CalcNumUnspecifiedAtomStereoCenters",
        "Calculate the number of unspecified atomic stereocenters in a molecule.",
        "Number of unspecified atom stereo centers",
        [(IBUPROFEN, 1), (NICOTINE, 0)],
    ),
    # PubChem counts all atoms incl. H: aspirin 21 (C9H8O4)
    (
        "GetAtomsNum",
        "CalcNumAtoms",
        "Calculate the number of atoms in a molecule, hydrogens included.",
        "Number of atoms",
        [(ASPIRIN, 21), ("CCO", 9)],
    ),
    (
        "GetBridgeheadAtomsNum",
        "CalcNumBridgeheadAtoms",
        "Calculate the number of bridgehead atoms in a molecule.",
        "Number of bridgehead atoms",
        [(NORBORNANE, 2), (SPIRO, 0)],
    ),
    (
        "GetHBANum",
        "CalcNumHBA",
        "Calculate the number of hydrogen bond acceptors (HBA) in a molecule.",
        "Number of hydrogen bond acceptors",
        [(ASPIRIN, 3), (CAFFEINE, 3)],
    ),
    # PubChem HBD: aspirin 1, caffeine 0, paracetamol 2
    (
        "GetHBDNum",
        "CalcNumHBD",
        "Calculate the number of hydrogen bond donors (HBD) in a molecule.",
        "Number of hydrogen bond donors",
        [(ASPIRIN, 1), (CAFFEINE, 0), (PARACETAMOL, 2)],
    ),
    # PubChem heavy atom count: aspirin 13, caffeine 14, ibuprofen 15
    (
        "GetHeavyAtomsNum",
        "CalcNumHeavyAtoms",
        "Calculate the number of heavy (non-hydrogen) atoms in a molecule.",
        "Number of heavy atoms",
        [(ASPIRIN, 13), (CAFFEINE, 14), (IBUPROFEN, 15)],
    ),
    (
        "GetHeteroatomsNum",
        "CalcNumHeteroatoms",
        "Calculate the number of heteroatoms (not C or H) in a molecule.",
        "Number of heteroatoms",
        [(ASPIRIN, 4), (CAFFEINE, 6)],
    ),
    (
        "GetHeterocyclesNum",
        "CalcNumHeterocycles",
        "Calculate the number of heterocycles in a molecule.",
        "Number of heterocycles",
        [(CAFFEINE, 2), (ASPIRIN, 0)],
    ),
    # PubChem (Cactvs) HBA: aspirin 4
    (
        "GetLipinskiHBANum",
        "CalcNumLipinskiHBA",
        "Calculate the number of Lipinski hydrogen bond acceptors (N + O atoms) in a molecule.",
        "Number of Lipinski H-bond acceptors(HBA)",
        [(ASPIRIN, 4), (CAFFEINE, 6)],
    ),
    (
        "GetLipinskiHBDNum",
        "CalcNumLipinskiHBD",
        "Calculate the number of Lipinski hydrogen bond donors (NH + OH) in a molecule.",
        "Number of Lipinski H-bond donors(HBD)",
        [(ASPIRIN, 1), (PARACETAMOL, 2)],
    ),
    (
        "GetRingsNum",
        "CalcNumRings",
        "Calculate the number of rings (SSSR) in a molecule.",
        "Number of rings",
        [(CAFFEINE, 2), ("CCO", 0)],
    ),
    # RDKit strict definition; PubChem reports 3 for aspirin (counts the ester C-O too)
    (
        "GetRotatableBondsNum",
        "CalcNumRotatableBonds",
        "Calculate the number of rotatable bonds in a molecule (RDKit strict definition).",
        "Number of rotatable bonds",
        [(IBUPROFEN, 4), (ASPIRIN, 2)],
    ),
    (
        "GetSaturatedCarbocyclesNum",
        "CalcNumSaturatedCarbocycles",
        "Calculate the number of saturated carbocycles in a molecule.",
        "Number of saturated carbocycles",
        [(NORBORNANE, 2), (NICOTINE, 0)],
    ),
    (
        "GetSaturatedHeterocyclesNum",
        "CalcNumSaturatedHeterocycles",
        "Calculate the number of saturated heterocycles in a molecule.",
        "Number of saturated heterocycles",
        [(NICOTINE, 1), (CAFFEINE, 0)],
    ),
    (
        "GetSaturatedRingsNum",
        "CalcNumSaturatedRings",
        "Calculate the number of saturated rings in a molecule.",
        "Number of saturated rings",
        [(SPIRO, 2), (ASPIRIN, 0)],
    ),
    (
        "GetSpiroAtomsNum",
        "CalcNumSpiroAtoms",
        "Calculate the number of spiro atoms in a molecule.",
        "Number of spiro atoms",
        [(SPIRO, 1), (NORBORNANE, 0)],
    ),
]

for _name, _calc, _func, _out, _ex in _COUNTS:
    _descriptor_tool(_name, _calc, _func, _out, _ex, kind=int, scenarios=_COUNT_SCEN)

_TOPO_SCEN = ["molecular descriptor calculation", "QSAR", "topological analysis"]

# (name, function, functionality, output, examples) -- float valued
_INDICES: list[tuple[str, str, str, str, list[tuple[str, float]]]] = [
    (
        "GetChi0n",
        "CalcChi0n",
        "Calculate the chi^0n (chi-zero) simple connectivity index of a molecule.",
        "Chi-zero Cluster Index",
        [(ASPIRIN, 6.98135954365), ("CCO", 2.15432037669)],
    ),
    (
        "GetChi0v",
        "CalcChi0v",
        "Calculate the chi^0v (chi-zero-v) valence connectivity index of a molecule.",
        "Chi-zero-v valence molecular graph index",
        [(ASPIRIN, 6.98135954365), ("CCCl", 2.84100020021)],
    ),  # CCCl by hand: 1 + 1/sqrt(2) + 1/sqrt(7/9)
    (
        "GetChi1n",
        "CalcChi1n",
        "Calculate the chi^1n (chi-one) simple connectivity index of a molecule.",
        "Chi-one Cluster Index",
        [(ASPIRIN, 3.61745364787), ("c1ccccc1", 2.0)],
    ),
    (
        "GetChi1v",
        "CalcChi1v",
        "Calculate the chi^1v (chi-one-v) valence connectivity index of a molecule.",
        "Chi-one-v valence molecular graph index",
        [(ASPIRIN, 3.61745364787)],
    ),
    (
        "GetChi2n",
        "CalcChi2n",
        "Calculate the chi^2n (chi-two) connectivity index of a molecule, related to branching.",
        "Chi-two Cluster Index",
        [(ASPIRIN, 2.39495567832)],
    ),
    (
        "GetChi2v",
        "CalcChi2v",
        "Calculate the chi^2v (chi-two-v) valence connectivity index of a molecule.",
        "Chi-two-v valence molecular graph index",
        [(ASPIRIN, 2.39495567832)],
    ),
    (
        "GetChi3n",
        "CalcChi3n",
        "Calculate the chi^3n (chi-three path) connectivity index of a molecule.",
        "Chi-three Cluster Index",
        [(ASPIRIN, 1.37115466494), ("CCO", 0.0)],
    ),
    (
        "GetChi3v",
        "CalcChi3v",
        "Calculate the chi^3v (chi-three-v path) valence connectivity index of a molecule.",
        "Chi-three-v Cluster Index",
        [(ASPIRIN, 1.37115466494)],
    ),
    (
        "GetChi4n",
        "CalcChi4n",
        "Calculate the chi^4n (chi-four path) connectivity index of a molecule.",
        "Chi-four Cluster Index",
        [(ASPIRIN, 0.887171219237)],
    ),
    (
        "GetChi4v",
        "CalcChi4v",
        "Calculate the chi^4v (chi-four-v path) valence connectivity index of a molecule.",
        "Chi-four-v Cluster Index",
        [(ASPIRIN, 0.887171219237)],
    ),
    (
        "GetKappa1",
        "CalcKappa1",
        "Compute the Kier kappa1 shape index of a molecule.",
        "Kappa1",
        [(ASPIRIN, 9.24960573477), ("CCO", 2.96)],
    ),
    (
        "GetKappa2",
        "CalcKappa2",
        "Compute the Kier kappa2 shape index of a molecule.",
        "Kappa2",
        [(ASPIRIN, 3.70925125835), ("CCO", 1.96)],
    ),
    (
        "GetKappa3",
        "CalcKappa3",
        "Compute the Kier kappa3 shape index of a molecule.",
        "Kappa3",
        [(ASPIRIN, 2.29741503252)],
    ),
    (
        "GetHallKierAlpha",
        "CalcHallKierAlpha",
        "Calculate the Hall-Kier alpha shape index of a molecule.",
        "Hall-Kier alpha index",
        [(ASPIRIN, -1.84), ("c1ccccc1", -0.78)],
    ),
    (
        "GetLabuteASA",
        "CalcLabuteASA",
        "Calculate the Labute approximate accessible surface area (ASA, Å²) of a molecule.",
        "Labute ASA",
        [(ASPIRIN, 74.7570526445), ("CCO", 19.8984268944)],
    ),
    # PubChem TPSA: aspirin 63.6, ibuprofen 37.3, ethanol 20.2 (caffeine differs: PubChem 58.4, RDKit 61.82)
    (
        "CalculateTPSA",
        "CalcTPSA",
        "Calculate the topological polar surface area (TPSA, Å², Ertl N/O contributions) of a molecule.",
        "TPSA (Topological Polar Surface Area) descriptor",
        [(ASPIRIN, 63.6), (IBUPROFEN, 37.3), ("CCO", 20.23)],
    ),
    (
        "GetFractionCSP3",
        "CalcFractionCSP3",
        "Calculate the fraction of sp3-hybridised carbon atoms in a molecule.",
        "Fraction of sp3-hybridized Carbon Atoms",
        [(ASPIRIN, 1 / 9), (IBUPROFEN, 6 / 13), ("c1ccccc1", 0.0)],
    ),
    (
        "CalculateFsp3",
        "CalcFractionCSP3",
        "Calculate the fraction of sp3-hybridised carbons (Fsp3) in a molecule.",
        "the FSP3 value",
        [(CAFFEINE, 0.375), ("CCO", 1.0)],
    ),
]

for _name, _calc, _func, _out, _float_ex in _INDICES:
    _descriptor_tool(_name, _calc, _func, _out, _float_ex, kind=float, scenarios=_TOPO_SCEN)


@tool(
    name="GetCrippenDescriptors",
    functionality="Calculate the Wildman-Crippen logP and molar refractivity (MR) of a molecule.",
    inputs=SMILES_IN,
    outputs=["Wildman-Crippen logp value and mr value"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule"],
    scenarios=["lipophilicity estimation", "ADME", "QSAR"],
    requires=RDKIT,
    examples=[
        ToolExample(
            input={"smiles": ASPIRIN}, output={"logp": 1.3101, "mr": 44.7103}, rel_tol=1e-6
        ),
        ToolExample(
            input={"smiles": IBUPROFEN}, output={"logp": 3.0732, "mr": 61.0348}, rel_tol=1e-6
        ),
    ],
)
def crippen_descriptors(smiles: str) -> dict[str, float]:
    """Atom-contribution logP and MR (Wildman & Crippen 1999)."""
    logp, mr = rdmd().CalcCrippenDescriptors(parse_smiles(smiles))
    return {"logp": float(logp), "mr": float(mr)}


@tool(
    name="CalculateEstateIndices",
    functionality="Calculate the electrotopological state (EState) index of each heavy atom of a molecule.",
    inputs=SMILES_IN,
    outputs=["the EState indices"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule", "atom"],
    scenarios=["QSAR", "atom-level analysis"],
    requires=RDKIT,
    examples=[
        # by hand (Kier-Hall): I = 2, 1.5, 6; S_i = I_i + sum (I_i - I_j)/r_ij^2
        ToolExample(
            input={"smiles": "CCO"},
            output=[2 + 0.5 / 4 - 4 / 9, 0.25, 6 + 4.5 / 4 + 4 / 9],
            rel_tol=1e-9,
        ),
    ],
)
def estate_indices(smiles: str) -> list[float]:
    """EState indices in atom order (Kier & Hall)."""
    from rdkit.Chem.EState import EStateIndices

    return [float(x) for x in EStateIndices(parse_smiles(smiles))]


@tool(
    name="TypeAtomsInMolecule",
    functionality="Assign EState atom types (e.g. sCH3, dO, aaCH) to each heavy atom of a molecule.",
    inputs=SMILES_IN,
    outputs=["the EState types of atoms"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule", "atom"],
    scenarios=["atom typing", "QSAR"],
    requires=RDKIT,
    examples=[({"smiles": "CCO"}, ["sCH3", "ssCH2", "sOH"])],
)
def estate_types(smiles: str) -> list[str]:
    """One EState type label per atom (the first when several apply)."""
    from rdkit.Chem.EState import TypeAtoms

    return [types[0] if types else "" for types in TypeAtoms(parse_smiles(smiles))]


@tool(
    name="CalculateEstateVsa",
    functionality="Calculate the 11 EState-VSA descriptors (VSA binned by EState index) of a molecule.",
    inputs=SMILES_IN,
    outputs=["the EState VSA indices"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule"],
    scenarios=["QSAR", "molecular descriptor calculation"],
    requires=RDKIT,
    examples=[
        ToolExample(
            input={"smiles": ASPIRIN},
            output={
                "EState_VSA1": 11.938610575903699,
                "EState_VSA2": 11.3129633249809,
                "EState_VSA3": 0.0,
                "EState_VSA4": 0.0,
                "EState_VSA5": 19.056471336613843,
                "EState_VSA6": 12.13273413692322,
                "EState_VSA7": 0.0,
                "EState_VSA8": 4.736862953800049,
                "EState_VSA9": 5.106527394840706,
                "EState_VSA10": 9.589074368143644,
                "EState_VSA11": 0.0,
            },
            rel_tol=1e-6,
            abs_tol=1e-6,
        )
    ],
)
def estate_vsa(smiles: str) -> dict[str, float]:
    """EState_VSA1..EState_VSA11."""
    from rdkit.Chem.EState import EState_VSA

    mol = parse_smiles(smiles)
    return {
        f"EState_VSA{i}": float(getattr(EState_VSA, f"EState_VSA{i}")(mol)) for i in range(1, 12)
    }


@tool(
    name="GenerateEstateFingerprint",
    functionality="Generate the EState fingerprint of a molecule: counts and summed EState values of the 79 EState atom types.",
    inputs=SMILES_IN,
    outputs=["the EState fingerprint"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule"],
    scenarios=["QSAR", "molecular fingerprinting"],
    requires=RDKIT,
    examples=[
        ToolExample(
            input={"smiles": "CCO"},
            output={
                "counts": {"sCH3": 1, "ssCH2": 1, "sOH": 1},
                "sums": {"sCH3": 2 + 0.5 / 4 - 4 / 9, "ssCH2": 0.25, "sOH": 6 + 4.5 / 4 + 4 / 9},
            },
            rel_tol=1e-6,
            abs_tol=1e-6,
        )
    ],
)
def estate_fingerprint(smiles: str) -> dict[str, dict[str, float]]:
    """Non-zero entries of the EState count and sum vectors, keyed by atom type."""
    from rdkit.Chem.EState import AtomTypes, Fingerprinter

    counts, sums = Fingerprinter.FingerprintMol(parse_smiles(smiles))
    AtomTypes.BuildPatts()
    labels = [name for name, _ in AtomTypes.esPatterns]  # type: ignore[attr-defined]  # None until BuildPatts; the stub says None
    return {
        "counts": {labels[i]: int(c) for i, c in enumerate(counts) if c},
        "sums": {labels[i]: float(sums[i]) for i, c in enumerate(counts) if c},
    }


_BCUT_KEYS = [
    "mass_high",
    "mass_low",
    "gasteiger_high",
    "gasteiger_low",
    "logp_high",
    "logp_low",
    "mr_high",
    "mr_low",
]


@tool(
    name="GetBCUT",
    functionality="Compute the 8 2D BCUT descriptors (highest/lowest Burden eigenvalues weighted by mass, Gasteiger charge, Crippen logP and MR).",
    inputs=SMILES_IN,
    outputs=["BCUT2D"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule"],
    scenarios=["QSAR", "molecular descriptor calculation"],
    requires=RDKIT,
    examples=[
        ToolExample(
            input={"smiles": ASPIRIN},
            output=dict(
                zip(
                    _BCUT_KEYS,
                    [
                        16.53611122125433,
                        10.182282381035343,
                        2.104306980957856,
                        -2.0311320919470135,
                        2.1698345568128055,
                        -2.063000061964296,
                        5.913065796110142,
                        -0.13141434244030561,
                    ],
                    strict=True,
                )
            ),
            rel_tol=1e-5,
            abs_tol=1e-5,
        )
    ],
)
def bcut(smiles: str) -> dict[str, float]:
    """BCUT2D values keyed mass/gasteiger/logp/mr high and low."""
    values = rdmd().BCUT2D(parse_smiles(smiles))
    return {k: float(v) for k, v in zip(_BCUT_KEYS, values, strict=True)}


@tool(
    name="GetAutocorrelation2D",
    functionality="Compute the 192 2D (topological) autocorrelation descriptors of a molecule.",
    inputs=SMILES_IN,
    outputs=["2D Autocorrelation descriptors"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule"],
    scenarios=["QSAR", "molecular descriptor calculation"],
    requires=RDKIT,
)
def autocorr2d(smiles: str) -> list[float]:
    """Moreau-Broto autocorrelations of 6 atomic properties over lags 1-8 (4 normalisations)."""
    return [float(x) for x in rdmd().CalcAUTOCORR2D(parse_smiles(smiles))]


@tool(
    name="CalculateQED",
    functionality="Calculate the quantitative estimate of drug-likeness (QED, Bickerton 2012) of a molecule.",
    inputs=SMILES_IN,
    outputs=["QED value"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule"],
    scenarios=["drug-likeness assessment", "virtual screening"],
    requires=RDKIT,
    examples=[
        ToolExample(input={"smiles": ASPIRIN}, output=0.5501217966938848, rel_tol=1e-6),
        ToolExample(input={"smiles": IBUPROFEN}, output=0.8215995486924976, rel_tol=1e-6),
    ],
)
def qed(smiles: str) -> float:
    """Weighted QED in [0, 1]."""
    from rdkit.Chem import QED

    return float(QED.qed(parse_smiles(smiles)))


@tool(
    name="CheckLipinskiRuleOfFive",
    functionality="Check Lipinski's rule of five (MW <= 500, logP <= 5, HBD <= 5, HBA <= 10) for a molecule and list the violations.",
    inputs=SMILES_IN,
    outputs=["Lipinski rule-of-five result"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule"],
    scenarios=["drug-likeness assessment", "oral bioavailability"],
    requires=RDKIT,
    examples=[
        ToolExample(
            input={"smiles": ASPIRIN},
            output={
                "molecular_weight": 180.159,
                "logp": 1.3101,
                "hbd": 1,
                "hba": 4,
                "violations": [],
                "passes": True,
            },
            rel_tol=1e-4,
        )
    ],
)
def lipinski(smiles: str) -> dict[str, Any]:
    """Rule-of-five properties (Lipinski HBD/HBA, Crippen logP) and violated rules; passes with <= 1 violation."""
    from rdkit.Chem import Descriptors

    mol = parse_smiles(smiles)
    md = rdmd()
    props = {
        "molecular_weight": float(Descriptors.MolWt(mol)),  # type: ignore[attr-defined]  # RDKit's stub lacks the descriptors made at import
        "logp": float(Descriptors.MolLogP(mol)),  # type: ignore[attr-defined]  # RDKit's stub lacks the descriptors made at import
        "hbd": int(md.CalcNumLipinskiHBD(mol)),
        "hba": int(md.CalcNumLipinskiHBA(mol)),
    }
    limits = {"molecular_weight": 500, "logp": 5, "hbd": 5, "hba": 10}
    violations = [f"{k} > {limits[k]}" for k in limits if props[k] > limits[k]]
    return {**props, "violations": violations, "passes": len(violations) <= 1}


@tool(
    name="CalculateMolecularDescriptor",
    functionality="Calculate any one of RDKit's ~200 named 2D descriptors (e.g. MolLogP, BertzCT, NumValenceElectrons) for a molecule.",
    inputs=["SMILES", "descriptor name"],
    outputs=["number"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule"],
    scenarios=["molecular descriptor calculation", "QSAR"],
    requires=RDKIT,
    examples=[
        ({"smiles": ASPIRIN, "descriptor": "NumValenceElectrons"}, 68),
        ToolExample(
            input={"smiles": ASPIRIN, "descriptor": "MolLogP"}, output=1.3101, rel_tol=1e-6
        ),
    ],
)
def named_descriptor(smiles: str, descriptor: str) -> float:
    """Look the descriptor up in `rdkit.Chem.Descriptors.descList` by exact name."""
    from rdkit.Chem import Descriptors

    names = dict(Descriptors.descList)
    if descriptor not in names:
        close = [n for n in names if n.lower() == descriptor.lower()]
        hint = (
            f"; did you mean {close[0]}?"
            if close
            else f"; {len(names)} names available, e.g. MolLogP, TPSA, BertzCT"
        )
        raise ToolInputError(f"unknown RDKit descriptor '{descriptor}'{hint}")
    value = names[descriptor](parse_smiles(smiles))
    return (
        int(value)
        if float(value).is_integer() and descriptor.startswith(("Num", "fr_"))
        else float(value)
    )
