"""Chemistry tools: structure editing and analysis with RDKit (hydrogens, kekulisation,
aromaticity, stereochemistry and CIP labels, scaffolds, fragments, ring systems, tautomers,
substructure search, graph matrices, charges, atom typing).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scigate.tools._tool import Tool, ToolInputError, tool
from scigate.tools.library.chemistry_common import (
    RDKIT,
    SRC_RDKIT,
    atoms_of,
    canonical,
    parse_pattern,
    parse_smarts,
    parse_smiles,
    rdkit_chem,
    rdkit_tool,
)

ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O"
_EDIT = ["structure editing", "cheminformatics preprocessing"]
_ANALYSE = ["structure analysis", "cheminformatics"]


def _smiles_tool(
    name: str,
    functionality: str,
    *,
    outputs: list[str] | None = None,
    scenarios: list[str] | None = None,
    examples: list[tuple[dict[str, Any], Any]] | None = None,
) -> Callable[[Callable[..., Any]], Tool]:
    """Decorator shortcut for SMILES -> SMILES/structure tools."""
    return rdkit_tool(
        name,
        functionality,
        outputs=outputs or ["SMILES"],
        scenarios=scenarios or _EDIT,
        examples=examples,
    )


@_smiles_tool(
    "AddHydrogens",
    "Add explicit hydrogen atoms to the molecular graph of a molecule and return its SMILES.",
    examples=[({"smiles": "CCO"}, "[H]OC([H])([H])C([H])([H])[H]")],
)
def add_hydrogens(smiles: str) -> str:
    """SMILES with every hydrogen written as an explicit atom."""
    chem = rdkit_chem()
    return chem.MolToSmiles(chem.AddHs(parse_smiles(smiles)))


@_smiles_tool(
    "RemoveHydrogens",
    "Remove explicit hydrogen atoms from a molecule's graph and return its canonical SMILES.",
    examples=[({"smiles": "[H]OC([H])([H])C([H])([H])[H]"}, "CCO")],
)
def remove_hydrogens(smiles: str) -> str:
    """Hydrogens become implicit (stereo-relevant ones are kept by RDKit)."""
    chem = rdkit_chem()
    return canonical(chem.RemoveHs(parse_smiles(smiles)))


@_smiles_tool(
    "Kekulize",
    "Perform Kekulisation on a molecule: return SMILES with explicit alternating single/double bonds.",
    examples=[({"smiles": "c1ccccc1"}, "C1=CC=CC=C1")],
)
def kekulize(smiles: str) -> str:
    """Kekulé SMILES (aromatic flags cleared)."""
    chem = rdkit_chem()
    mol = parse_smiles(smiles)
    chem.Kekulize(mol, clearAromaticFlags=True)
    return chem.MolToSmiles(mol, kekuleSmiles=True)


@_smiles_tool(
    "SetAromaticity",
    "Perform aromaticity perception on a molecule and return its aromatic SMILES.",
    examples=[({"smiles": "C1=CC=CC=C1"}, "c1ccccc1")],
)
def set_aromaticity(smiles: str) -> str:
    """RDKit aromaticity model applied; canonical SMILES with lower-case aromatic atoms."""
    chem = rdkit_chem()
    mol = parse_smiles(smiles)
    chem.SetAromaticity(mol)
    return canonical(mol)


@_smiles_tool(
    "RemoveStereochemistry",
    "Remove all stereochemistry information (chirality, cis/trans) from a molecule.",
    examples=[({"smiles": "C/C=C/[C@H](N)O"}, "CC=CC(N)O")],
)
def remove_stereo(smiles: str) -> str:
    """Canonical SMILES without stereo marks."""
    chem = rdkit_chem()
    mol = parse_smiles(smiles)
    chem.RemoveStereochemistry(mol)
    return canonical(mol)


@_smiles_tool(
    "MurckoDecompose",
    "Perform a Bemis-Murcko decomposition of a molecule and return its scaffold (ring systems and linkers).",
    scenarios=["scaffold analysis", "medicinal chemistry"],
    examples=[
        ({"smiles": ASPIRIN}, "c1ccccc1"),
        ({"smiles": "CN1CCC[C@H]1c1cccnc1"}, "c1cncc([C@@H]2CCCN2)c1"),
    ],
)
def murcko(smiles: str) -> str:
    """Murcko scaffold SMILES; empty string for acyclic molecules."""
    from rdkit.Chem.Scaffolds import MurckoScaffold

    return canonical(MurckoScaffold.GetScaffoldForMol(parse_smiles(smiles)))


@_smiles_tool(
    "GetMolFrags",
    "Identify the disconnected fragments of a molecule (e.g. salts, mixtures) and return each as SMILES.",
    outputs=["molecule fragments"],
    scenarios=["salt stripping", *_ANALYSE],
    examples=[({"smiles": "CC(=O)[O-].[Na+]"}, ["CC(=O)[O-]", "[Na+]"])],
)
def mol_frags(smiles: str) -> list[str]:
    """Fragment SMILES in atom order of the input."""
    chem = rdkit_chem()
    return [canonical(f) for f in chem.GetMolFrags(parse_smiles(smiles), asMols=True)]


@_smiles_tool(
    "GetRingSystems",
    "Compute the ring systems of a molecule (fused/spiro rings merged) as lists of atom indices.",
    outputs=["ring systems"],
    scenarios=_ANALYSE,
    examples=[({"smiles": "c1ccc2ccccc2c1CC1CC1"}, [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [11, 12, 13]])],
)
def ring_systems(smiles: str) -> list[list[int]]:
    """Rings sharing at least one atom are merged into one system; sorted atom indices."""
    mol = parse_smiles(smiles)  # keep a reference: RingInfo does not own the molecule
    systems: list[set[int]] = []
    for ring in mol.GetRingInfo().AtomRings():
        merged = set(ring)
        rest = []
        for system in systems:
            if system & merged:
                merged |= system
            else:
                rest.append(system)
        systems = [*rest, merged]
    return sorted(sorted(s) for s in systems)


@_smiles_tool(
    "GetTautomers",
    "Obtain the canonical tautomer and all enumerated tautomers of a molecule.",
    outputs=["SMILES"],
    scenarios=["tautomer standardisation", *_ANALYSE],
    examples=[
        (
            {"smiles": "Oc1ccccn1"},
            {
                "canonical": "O=c1cccc[nH]1",
                "tautomers": ["O=C1CC=CC=N1", "O=c1cccc[nH]1", "Oc1ccccn1"],
            },
        )
    ],
)
def tautomers(smiles: str) -> dict[str, Any]:
    """RDKit MolStandardize tautomer enumeration (canonical tautomer per its scoring rules)."""
    from rdkit.Chem.MolStandardize import rdMolStandardize

    mol = parse_smiles(smiles)
    enumerator = rdMolStandardize.TautomerEnumerator()
    return {
        "canonical": canonical(enumerator.Canonicalize(mol)),
        "tautomers": sorted(canonical(t) for t in enumerator.Enumerate(mol)),
    }


def _tautomer_query(smiles: str) -> Any:
    from rdkit.Chem import rdTautomerQuery

    return rdTautomerQuery.TautomerQuery(parse_smiles(smiles))


@_smiles_tool(
    "GetTemplateMolecule",
    "Get the template molecule of a tautomer query (tautomer-variable bonds as query bonds).",
    outputs=["SMILES"],
    scenarios=["tautomer-insensitive search"],
    examples=[({"smiles": "Oc1ccccn1"}, "O~c1~C~c~c~c~N~1")],
)
def tautomer_template(smiles: str) -> str:
    """SMILES of the template (variable bonds written as '~')."""
    return rdkit_chem().MolToSmiles(_tautomer_query(smiles).GetTemplateMolecule())


@_smiles_tool(
    "GetModifiedAtoms",
    "Get the indices of the atoms whose hydrogen count changes between tautomers (tautomer query).",
    outputs=["Atoms"],
    scenarios=["tautomer-insensitive search"],
    examples=[({"smiles": "Oc1ccccn1"}, [0, 2, 6])],
)
def tautomer_atoms(smiles: str) -> list[int]:
    """Atom indices modified across the tautomers."""
    return [int(i) for i in _tautomer_query(smiles).GetModifiedAtoms()]


@_smiles_tool(
    "GetModifiedBonds",
    "Get the indices of the bonds whose order changes between tautomers (tautomer query).",
    outputs=["Bonds"],
    scenarios=["tautomer-insensitive search"],
    examples=[({"smiles": "Oc1ccccn1"}, [0, 1, 2, 3, 4, 5, 6])],
)
def tautomer_bonds(smiles: str) -> list[int]:
    """Bond indices modified across the tautomers."""
    return [int(i) for i in _tautomer_query(smiles).GetModifiedBonds()]


def _cip(mol: Any) -> dict[str, Any]:
    atoms = {
        str(a.GetIdx()): a.GetProp("_CIPCode") for a in mol.GetAtoms() if a.HasProp("_CIPCode")
    }
    bonds = {
        str(b.GetIdx()): b.GetProp("_CIPCode") for b in mol.GetBonds() if b.HasProp("_CIPCode")
    }
    return {"atoms": atoms, "bonds": bonds}


@_smiles_tool(
    "AssignCIPLabels",
    "Assign CIP labels (R/S on atoms, E/Z on double bonds) with the new RDKit CIP labeller.",
    outputs=["SMILES or Bond types"],
    scenarios=["stereochemistry assignment"],
    examples=[
        ({"smiles": "C/C=C/[C@H](N)O"}, {"atoms": {"3": "R"}, "bonds": {"1": "E"}}),
        ({"smiles": "N[C@@H](C)C(=O)O"}, {"atoms": {"1": "S"}, "bonds": {}}),
    ],
)
def cip_labels(smiles: str) -> dict[str, Any]:
    """Atom index -> R/S and bond index -> E/Z (rdCIPLabeler, Hanson et al. 2018 rules)."""
    from rdkit.Chem import rdCIPLabeler

    mol = parse_smiles(smiles)
    rdCIPLabeler.AssignCIPLabels(mol)
    return _cip(mol)


@_smiles_tool(
    "AssignStereoChemistry",
    "Assign CIP stereochemistry (R/S, E/Z) to a molecule and list its stereocentres, including unassigned ones ('?').",
    outputs=["SMILES"],
    scenarios=["stereochemistry assignment"],
    examples=[
        (
            {"smiles": "CC(C)Cc1ccc(cc1)C(C)C(=O)O"},
            {
                "smiles": "CC(C)Cc1ccc(C(C)C(=O)O)cc1",
                "chiral_centers": [[10, "?"]],
                "double_bonds": {},
            },
        )
    ],
)
def assign_stereo(smiles: str) -> dict[str, Any]:
    """Canonical SMILES, [atom index, R/S/?] per stereocentre and E/Z per stereo double bond."""
    chem = rdkit_chem()
    mol = parse_smiles(smiles)
    chem.AssignStereochemistry(mol, cleanIt=True, force=True)
    centers = chem.FindMolChiralCenters(mol, includeUnassigned=True, useLegacyImplementation=False)
    bonds = {
        str(b.GetIdx()): b.GetProp("_CIPCode") for b in mol.GetBonds() if b.HasProp("_CIPCode")
    }
    if not bonds:
        bonds = {
            str(b.GetIdx()): {"STEREOE": "E", "STEREOZ": "Z"}[str(b.GetStereo())]
            for b in mol.GetBonds()
            if str(b.GetStereo()) in ("STEREOE", "STEREOZ")
        }
    return {
        "smiles": canonical(mol),
        "chiral_centers": [[int(i), lab] for i, lab in centers],
        "double_bonds": bonds,
    }


@tool(
    name="GetSubstructMatches",
    functionality="Find all matches of a substructure (SMILES or SMARTS pattern) in a molecule, as tuples of atom indices.",
    inputs=["SMILES pair"],
    outputs=["Matches list"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule", "substructure"],
    scenarios=["substructure search", "structure analysis"],
    requires=RDKIT,
    examples=[
        ({"smiles": ASPIRIN, "pattern": "C(=O)O"}, [[1, 2, 3], [10, 11, 12]]),
        ({"smiles": "CCO", "pattern": "[OX2H]"}, [[2]]),
    ],
)
def substruct_matches(smiles: str, pattern: str) -> list[list[int]]:
    """Unique matches; each is the molecule's atom indices in pattern-atom order."""
    mol = parse_smiles(smiles)
    return [list(m) for m in mol.GetSubstructMatches(parse_pattern(pattern))]


@tool(
    name="IsSubstructof",
    functionality="Check whether a substructure (SMILES or SMARTS pattern) occurs in a molecule.",
    inputs=["SMILES pair"],
    outputs=["True or False"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule", "substructure"],
    scenarios=["substructure search", "structural filtering"],
    requires=RDKIT,
    examples=[
        ({"smiles": ASPIRIN, "pattern": "c1ccccc1"}, True),
        ({"smiles": "CCO", "pattern": "c1ccccc1"}, False),
    ],
)
def is_substruct(smiles: str, pattern: str) -> bool:
    """True when `pattern` matches part of `smiles`."""
    return bool(parse_smiles(smiles).HasSubstructMatch(parse_pattern(pattern)))


@tool(
    name="CountSMARTSMatches",
    functionality="Count the (unique) matches of a SMARTS pattern in a molecule.",
    inputs=["SMILES", "SMARTS"],
    outputs=["number"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule", "substructure"],
    scenarios=["substructure search", "functional group counting"],
    requires=RDKIT,
    examples=[
        ({"smiles": ASPIRIN, "smarts": "[#8]"}, 4),
        ({"smiles": "CCO", "smarts": "[CX4]"}, 2),
    ],
)
def count_smarts(smiles: str, smarts: str) -> int:
    """Number of unique SMARTS matches."""
    return len(parse_smiles(smiles).GetSubstructMatches(parse_smarts(smarts), maxMatches=100000))


@_smiles_tool(
    "GetAdjacencyMatrix",
    "Obtain the adjacency matrix (1 where two heavy atoms are bonded) of a molecule.",
    outputs=["adjacency matrix"],
    scenarios=["graph representation", *_ANALYSE],
    examples=[({"smiles": "CCO"}, [[0, 1, 0], [1, 0, 1], [0, 1, 0]])],
)
def adjacency(smiles: str) -> list[list[int]]:
    """Square 0/1 matrix over heavy atoms in RDKit atom order."""
    chem = rdkit_chem()
    return [[int(x) for x in row] for row in chem.GetAdjacencyMatrix(parse_smiles(smiles))]


@_smiles_tool(
    "GetDistanceMatrix",
    "Compute the topological distance matrix (shortest bond-path lengths) of a molecule.",
    outputs=["distance matrix"],
    scenarios=["graph representation", *_ANALYSE],
    examples=[({"smiles": "CCO"}, [[0, 1, 2], [1, 0, 1], [2, 1, 0]])],
)
def distance_matrix(smiles: str) -> list[list[int]]:
    """Bond counts between heavy atoms."""
    chem = rdkit_chem()
    return [[int(x) for x in row] for row in chem.GetDistanceMatrix(parse_smiles(smiles))]


@_smiles_tool(
    "GetFormalCharge",
    "Determine the total formal charge of a molecule.",
    outputs=["formal charge"],
    scenarios=["charge state analysis"],
    examples=[
        ({"smiles": "CC(=O)[O-]"}, -1),
        ({"smiles": "C[N+](C)(C)C.[Cl-]"}, 0),
        ({"smiles": "NCC[NH3+]"}, 1),
    ],
)
def formal_charge(smiles: str) -> int:
    """Sum of atomic formal charges."""
    return int(rdkit_chem().GetFormalCharge(parse_smiles(smiles)))


@_smiles_tool(
    "GetFormalChargeOfAtoms",
    "Determine the formal charge of each atom of a molecule.",
    outputs=["formal charge"],
    scenarios=["charge state analysis"],
    examples=[({"smiles": "CC(=O)[O-]"}, [0, 0, 0, -1])],
)
def formal_charges(smiles: str) -> list[int]:
    """Formal charges in atom order."""
    return [a.GetFormalCharge() for a in atoms_of(smiles)]


@_smiles_tool(
    "GetHybridization",
    "Compute the hybridisation (SP, SP2, SP3...) of each atom of a molecule.",
    outputs=["hybridization of each atom"],
    scenarios=_ANALYSE,
    examples=[({"smiles": "C=CC#N"}, ["SP2", "SP2", "SP", "SP"])],
)
def hybridization(smiles: str) -> list[str]:
    """Hybridisation names in atom order."""
    return [str(a.GetHybridization()) for a in atoms_of(smiles)]


@_smiles_tool(
    "GetAtomFeature",
    "Compute per-atom features: element, atomic number, degree, valence, hybridisation, aromaticity, formal charge, H count.",
    outputs=["atom features"],
    scenarios=["graph neural network featurisation", *_ANALYSE],
    examples=[
        (
            {"smiles": "CO"},
            [
                {
                    "index": 0,
                    "symbol": "C",
                    "atomic_num": 6,
                    "degree": 1,
                    "total_valence": 4,
                    "hybridization": "SP3",
                    "aromatic": False,
                    "in_ring": False,
                    "formal_charge": 0,
                    "num_hs": 3,
                },
                {
                    "index": 1,
                    "symbol": "O",
                    "atomic_num": 8,
                    "degree": 1,
                    "total_valence": 2,
                    "hybridization": "SP3",
                    "aromatic": False,
                    "in_ring": False,
                    "formal_charge": 0,
                    "num_hs": 1,
                },
            ],
        )
    ],
)
def atom_features(smiles: str) -> list[dict[str, Any]]:
    """One feature dict per heavy atom."""
    return [
        {
            "index": a.GetIdx(),
            "symbol": a.GetSymbol(),
            "atomic_num": a.GetAtomicNum(),
            "degree": a.GetDegree(),
            "total_valence": a.GetTotalValence(),
            "hybridization": str(a.GetHybridization()),
            "aromatic": a.GetIsAromatic(),
            "in_ring": a.IsInRing(),
            "formal_charge": a.GetFormalCharge(),
            "num_hs": a.GetTotalNumHs(),
        }
        for a in atoms_of(smiles)
    ]


@_smiles_tool(
    "AssignRadicals",
    "Assign radical (unpaired) electron counts to the atoms of a molecule.",
    outputs=["SMILES"],
    scenarios=["radical chemistry", *_ANALYSE],
    examples=[
        ({"smiles": "[CH3]"}, {"smiles": "[CH3]", "radical_electrons": [1]}),
        ({"smiles": "CCO"}, {"smiles": "CCO", "radical_electrons": [0, 0, 0]}),
    ],
)
def assign_radicals(smiles: str) -> dict[str, Any]:
    """Canonical SMILES and unpaired electrons per atom."""
    chem = rdkit_chem()
    mol = parse_smiles(smiles)
    chem.AssignRadicals(mol)
    return {
        "smiles": canonical(mol),
        "radical_electrons": [a.GetNumRadicalElectrons() for a in mol.GetAtoms()],
    }


@_smiles_tool(
    "AssignOxidationNumbers",
    "Compute the oxidation number (state) of each atom of a molecule.",
    outputs=["oxidation numbers"],
    scenarios=["redox chemistry", *_ANALYSE],
    examples=[({"smiles": "CCO"}, [-3, -1, -2]), ({"smiles": "O=C=O"}, [-2, 4, -2])],
)
def oxidation_numbers(smiles: str) -> list[int]:
    """Oxidation numbers (rdMolDescriptors.CalcOxidationNumbers) in atom order."""
    from rdkit.Chem import rdMolDescriptors

    mol = parse_smiles(smiles)
    rdMolDescriptors.CalcOxidationNumbers(mol)
    return [a.GetIntProp("OxidationNumber") for a in mol.GetAtoms()]


@_smiles_tool(
    "AssignPattyTypes",
    "Assign PATTY atom types (cation, anion, donor, acceptor, polar, hydrophobic...) to each atom of a molecule.",
    outputs=["the Patty types of each atom in the molecule."],
    scenarios=["pharmacophore typing", *_ANALYSE],
    examples=[({"smiles": "CC(=O)O"}, ["HYD", "OTH", "ANI", "ANI"])],
)
def patty_types(smiles: str) -> list[str]:
    """PATTY types (Bush & Sheridan 1993) in atom order."""
    from rdkit.Chem.AtomPairs import Sheridan

    return list(Sheridan.AssignPattyTypes(parse_smiles(smiles)))


@_smiles_tool(
    "TestMolecule",
    "Test a molecule: sanitisation, hydrogen removal and canonical-SMILES round trip; report whether its structure is valid and consistent.",
    outputs=["a confirmation message if the molecule has a valid and consistent structure"],
    scenarios=["data curation", "structure validation"],
    examples=[
        (
            {"smiles": "OCC"},
            {"valid": True, "canonical_smiles": "CCO", "round_trip_consistent": True},
        )
    ],
)
def test_molecule(smiles: str) -> dict[str, Any]:
    """Raises (ok: false) when sanitisation fails; otherwise reports the round trip."""
    chem = rdkit_chem()
    mol = chem.RemoveHs(parse_smiles(smiles))
    smi = canonical(mol)
    again = chem.MolFromSmiles(smi)
    return {
        "valid": True,
        "canonical_smiles": smi,
        "round_trip_consistent": again is not None and canonical(again) == smi,
    }


@_smiles_tool(
    "Deprotect",
    "Remove common protecting groups (Boc, Fmoc, Cbz, TBS, ...) from a molecule and return the deprotected SMILES.",
    scenarios=["synthesis planning", "structure editing"],
    examples=[({"smiles": "CC(C)(C)OC(=O)NCCC(=O)O"}, "NCCC(=O)O")],
)
def deprotect(smiles: str) -> str:
    """RDKit rdDeprotect with its default deprotection reactions."""
    from rdkit.Chem import rdDeprotect

    return canonical(rdDeprotect.Deprotect(parse_smiles(smiles)))


@_smiles_tool(
    "HasQueryHs",
    "Check whether a molecule (SMILES/SMARTS) contains query hydrogen atoms.",
    outputs=["True or False"],
    scenarios=["query molecule handling"],
    examples=[({"smiles": "[#1]C"}, True), ({"smiles": "CCO"}, False)],
)
def has_query_hs(smiles: str) -> bool:
    """`Chem.HasQueryHs` on the pattern parsed as SMARTS."""
    chem = rdkit_chem()
    result = chem.HasQueryHs(parse_pattern(smiles))
    return bool(result[0] if isinstance(result, tuple) else result)


@_smiles_tool(
    "MergeQueryHs",
    "Merge explicit hydrogen atoms into their neighbouring atoms as query hydrogen counts and return SMARTS.",
    outputs=["SMARTS"],
    scenarios=["query molecule handling"],
    examples=[({"smiles": "[H]OC"}, "[#8&!H0]-[#6]")],
)
def merge_query_hs(smiles: str) -> str:
    """SMARTS of the merged query."""
    chem = rdkit_chem()
    parse_smiles(smiles)  # validates and explains errors
    params = chem.SmilesParserParams()
    params.removeHs = False
    mol = chem.MolFromSmiles(smiles.strip(), params)
    return chem.MolToSmarts(chem.MergeQueryHs(mol))


@tool(
    name="ExplainAtomCode",
    functionality="Explain the atom-pair code of one atom of a molecule: element, number of heavy neighbours, number of pi electrons.",
    inputs=["SMILES", "atom index"],
    outputs=["atom's element", "number of neighbors", "number of pi electrons"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["atom"],
    scenarios=["fingerprint analysis"],
    requires=RDKIT,
    examples=[
        ({"smiles": ASPIRIN, "atom_index": 2}, {"element": "O", "neighbors": 1, "pi_electrons": 1})
    ],
)
def explain_atom_code(smiles: str, atom_index: int) -> dict[str, Any]:
    """Decode `GetAtomPairAtomCode` with `AtomPairs.Utils.ExplainAtomCode`."""
    from rdkit.Chem import rdMolDescriptors
    from rdkit.Chem.AtomPairs import Utils

    mol = parse_smiles(smiles)
    if not 0 <= atom_index < mol.GetNumAtoms():
        raise ToolInputError(
            f"atom_index {atom_index} out of range (molecule has {mol.GetNumAtoms()} atoms)"
        )
    element, neighbors, pi = Utils.ExplainAtomCode(
        rdMolDescriptors.GetAtomPairAtomCode(mol.GetAtomWithIdx(atom_index))
    )[:3]
    return {"element": element, "neighbors": int(neighbors), "pi_electrons": int(pi)}


@_smiles_tool(
    "CheckValidRingCut",
    "Check whether a fragment (SMILES with '*' attachment points) is a valid Fraggle ring cut.",
    outputs=["True or False"],
    scenarios=["fragment-based design"],
    examples=[({"smiles": "*c1ccccc1*"}, True), ({"smiles": "*CCC*"}, False)],
)
def valid_ring_cut(smiles: str) -> bool:
    """`FraggleSim.isValidRingCut`."""
    from rdkit.Chem.Fraggle import FraggleSim

    return bool(FraggleSim.isValidRingCut(parse_smiles(smiles)))


@_smiles_tool(
    "GenerateMolKeyFromSmiles",
    "Generate the MolKey (hashed, stereo-aware molecular key) and stereo code of a molecule.",
    outputs=["molecular key"],
    scenarios=["compound registration", "deduplication"],
    examples=[
        (
            {"smiles": "C[C@H](N)C(=O)O"},
            {"mol_key": "1|bfPKMI+AY8J87nPngV6B0Q==", "stereo_code": "S_ABS"},
        )
    ],
)
def mol_key(smiles: str) -> dict[str, Any]:
    """RDKit MolKey (Avalon-based CTAB standardisation + InChI hash)."""
    from rdkit.Chem.MolKey import MolKey

    chem = rdkit_chem()
    result = MolKey.GetKeyForCTAB(chem.MolToMolBlock(parse_smiles(smiles)))
    if result.error:
        raise ToolInputError(f"MolKey failed with error code {result.error}")
    return {"mol_key": result.mol_key, "stereo_code": result.stereo_code}


@_smiles_tool(
    "GetStereoCodeFromSmiles",
    "Generate the MolKey stereo code (e.g. S_ABS, S_ACHIR, S_UNKN) of a molecule.",
    outputs=["stereo code"],
    scenarios=["compound registration", "stereochemistry assignment"],
    examples=[({"smiles": "C[C@H](N)C(=O)O"}, "S_ABS"), ({"smiles": "CCO"}, "S_ACHIR")],
)
def stereo_code(smiles: str) -> str:
    """The stereo code part of the MolKey."""
    return mol_key.fn(smiles)["stereo_code"]


@tool(
    name="SlnToSmiles",
    functionality="Convert a SLN (SYBYL line notation) string to canonical SMILES.",
    inputs=["SLN"],
    outputs=["SMILES"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule"],
    scenarios=["identifier conversion"],
    requires=RDKIT,
    examples=[({"sln": "CH3CH2OH"}, "CCO")],
)
def sln_to_smiles(sln: str) -> str:
    """RDKit's SLN parser."""
    rdkit_chem()
    from rdkit.Chem import rdSLNParse

    text = (sln or "").strip()
    if not text:
        raise ToolInputError("empty SLN")
    mol = rdSLNParse.MolFromSLN(text)
    if mol is None:
        raise ToolInputError(f"invalid SLN '{text}'")
    return canonical(mol)
