"""Chemistry tools: identifiers and conversions (SMILES, InChI, InChIKey, SELFIES, names),
molecular weight and formula, functional groups and similarity.

Descriptors, fingerprints, 3D shape, structure editing and PubChem web tools live in the
sibling `chemistry_*` modules; the shared parsing helpers are in `chemistry_common`.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

from scigate.tools._tool import ToolExample, ToolInputError, tool
from scigate.tools.library.chemistry_common import (
    RDKIT,
    SMILES_IN,
    SRC_RDKIT,
    canonical,
    parse_inchi,
    parse_selfies,
    parse_smiles,
    rdkit_chem,
)

ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O"
CAFFEINE = "Cn1c(=O)c2c(ncn2C)n(C)c1=O"
IBUPROFEN = "CC(C)Cc1ccc(cc1)C(C)C(=O)O"
ASPIRIN_INCHI = "InChI=1S/C9H8O4/c1-6(10)13-8-5-3-2-4-7(8)9(11)12/h2-5H,1H3,(H,11,12)"
ETHANOL_INCHI = "InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3"

# --------------------------------------------------------------------- names (OPSIN)


_NAMES_FILE = Path(__file__).resolve().parent.parent / "data" / "common_names.json"


@functools.lru_cache(maxsize=1)
def common_names() -> dict[str, str]:
    """Lower-case name -> SMILES of the bundled everyday-compound table (CC0, see the file)."""
    data = json.loads(_NAMES_FILE.read_text(encoding="utf-8"))
    return {n.lower(): row["smiles"] for row in data["compounds"] for n in row["names"]}


def _opsin(text: str) -> str:
    from scigate.tools.library._opsin import opsin_server

    return opsin_server().parse(text)  # one JVM per process, reused


@tool(
    name="NameToSMILES",
    functionality="Convert a chemical name (common drug, metabolite, solvent or amino-acid name, or a systematic IUPAC name) into SMILES: offline name table, then the OPSIN parser, then PubChem when online.",
    inputs=["molecule name"],
    outputs=["SMILES"],
    category="chemistry",
    source="OPSIN (py2opsin)",  # after the bundled name table, before PubChem
    objects=["molecule"],
    scenarios=["name to structure conversion", "identifier resolution"],
    requires=["rdkit"],
    examples=[
        ({"name": "2-acetyloxybenzoic acid"}, "CC(=O)Oc1ccccc1C(=O)O"),
        ({"name": "Serotonin"}, "NCCc1c[nH]c2ccc(O)cc12"),
    ],
)
def name_to_smiles(name: str) -> str:
    """Bundled table (case-insensitive), else OPSIN (systematic names), else PubChem; canonical SMILES."""
    text = " ".join((name or "").split())
    if not text:
        raise ToolInputError("empty molecule name")
    if "\n" in (name or "").strip():
        raise ToolInputError("molecule name must be a single line")
    known = common_names().get(text.lower())
    if known is not None:
        return canonical(parse_smiles(known))
    reasons = []
    try:
        return canonical(parse_smiles(_opsin(text)))
    except ToolInputError as exc:
        reasons.append(str(exc))
    except (ImportError, OSError) as exc:
        reasons.append(f"OPSIN unavailable ({exc})")
    from scigate.tools.library.chemistry_web import pubchem_name_to_smiles

    found = pubchem_name_to_smiles.call({"name": text})
    if found.ok:
        return canonical(parse_smiles(found.value))
    reasons.append(f"PubChem: {found.error}")
    raise ToolInputError(
        f"could not resolve the name '{text}': not in the offline name table; " + "; ".join(reasons)
    )


# --------------------------------------------------------------------- SMILES basics


@tool(
    name="CanonicalizeSMILES",
    functionality="Return the RDKit canonical (isomeric) SMILES of a molecule.",
    inputs=SMILES_IN,
    outputs=["SMILES"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule"],
    scenarios=["deduplication", "identifier normalisation"],
    requires=RDKIT,
    examples=[({"smiles": "OCC"}, "CCO"), ({"smiles": "C1=CC=CC=C1"}, "c1ccccc1")],
)
def canonicalize_smiles(smiles: str) -> str:
    """RDKit canonical SMILES."""
    return canonical(parse_smiles(smiles))


@tool(
    name="SMILESToWeight",
    functionality="Calculate the average molecular weight (g/mol) of a molecule from its SMILES.",
    inputs=SMILES_IN,
    outputs=["molecular weight"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule"],
    scenarios=["molecular property calculation", "stoichiometry"],
    requires=RDKIT,
    # PubChem computed MW: ethanol 46.07, aspirin 180.16, caffeine 194.19
    examples=[
        ToolExample(input={"smiles": "CCO"}, output=46.069, rel_tol=1e-4),
        ToolExample(input={"smiles": ASPIRIN}, output=180.159, rel_tol=1e-4),
        ToolExample(input={"smiles": CAFFEINE}, output=194.194, rel_tol=1e-4),
    ],
)
def smiles_to_weight(smiles: str) -> float:
    """Average molecular weight from IUPAC atomic weights (implicit H included)."""
    from rdkit.Chem import Descriptors

    return float(Descriptors.MolWt(parse_smiles(smiles)))  # type: ignore[attr-defined]  # RDKit's stub lacks the descriptors made at import


@tool(
    name="GetExactMolceularWeight",
    functionality="Calculate the exact (monoisotopic) molecular weight of a molecule from its SMILES.",
    inputs=SMILES_IN,
    outputs=["molecular weight"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule"],
    scenarios=["mass spectrometry", "molecular property calculation"],
    requires=RDKIT,
    # PubChem monoisotopic mass: ethanol 46.041864811, aspirin 180.04225873
    examples=[
        ToolExample(input={"smiles": "CCO"}, output=46.041865, rel_tol=1e-7),
        ToolExample(input={"smiles": ASPIRIN}, output=180.042259, rel_tol=1e-7),
    ],
)
def exact_molecular_weight(smiles: str) -> float:
    """Monoisotopic mass (most abundant isotope of each element)."""
    from rdkit.Chem import rdMolDescriptors

    return float(rdMolDescriptors.CalcExactMolWt(parse_smiles(smiles)))


@tool(
    name="GetMolFormula",
    functionality="Calculate the molecular (Hill) formula of a molecule from its SMILES.",
    inputs=SMILES_IN,
    outputs=["Molecule Formula"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule"],
    scenarios=["molecular property calculation", "identifier conversion"],
    requires=RDKIT,
    # PubChem: aspirin C9H8O4, caffeine C8H10N4O2, ibuprofen C13H18O2
    examples=[
        ({"smiles": ASPIRIN}, "C9H8O4"),
        ({"smiles": CAFFEINE}, "C8H10N4O2"),
        ({"smiles": IBUPROFEN}, "C13H18O2"),
        ({"smiles": "C[NH3+]"}, "CH6N+"),
    ],
)
def mol_formula(smiles: str) -> str:
    """Hill formula with the net charge appended (e.g. CH6N+)."""
    from rdkit.Chem import rdMolDescriptors

    return rdMolDescriptors.CalcMolFormula(parse_smiles(smiles))


# --------------------------------------------------------------------- InChI / InChIKey


def _smiles_to_inchi(smiles: str) -> str:
    chem = rdkit_chem()
    inchi = chem.MolToInchi(parse_smiles(smiles))
    if not inchi:
        raise ToolInputError(f"InChI could not be generated for '{smiles}'")
    return inchi


_INCHI_EXAMPLES = [({"smiles": "CCO"}, ETHANOL_INCHI), ({"smiles": ASPIRIN}, ASPIRIN_INCHI)]


@tool(
    name="SMILESToInChI",
    functionality="Convert a SMILES string to the standard InChI identifier.",
    inputs=SMILES_IN,
    outputs=["InChI"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule"],
    scenarios=["identifier conversion", "database registration"],
    requires=RDKIT,
    examples=_INCHI_EXAMPLES,
)
def smiles_to_inchi(smiles: str) -> str:
    """Standard InChI (computed locally with the InChI library bundled in RDKit)."""
    return _smiles_to_inchi(smiles)


@tool(
    name="ConvertSmilesToInchi",
    functionality="Converts a SMILES string to its corresponding standard InChI string.",
    inputs=SMILES_IN,
    outputs=["InChI"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule"],
    scenarios=["identifier conversion"],
    requires=RDKIT,
    examples=_INCHI_EXAMPLES[:1],
)
def convert_smiles_to_inchi(smiles: str) -> str:
    """Same as SMILESToInChI (the catalogue lists both names)."""
    return _smiles_to_inchi(smiles)


@tool(
    name="SMILESToInChIKey",
    functionality="Convert a SMILES string to the standard InChIKey (27-character hashed InChI).",
    inputs=SMILES_IN,
    outputs=["InChIKey"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule"],
    scenarios=["identifier conversion", "database lookup"],
    requires=RDKIT,
    # PubChem InChIKeys: aspirin (CID 2244), caffeine (CID 2519), benzene (CID 241)
    examples=[
        ({"smiles": ASPIRIN}, "BSYNRYMUTXBXSQ-UHFFFAOYSA-N"),
        ({"smiles": CAFFEINE}, "RYYVLZVUVIJVGH-UHFFFAOYSA-N"),
        ({"smiles": "c1ccccc1"}, "UHOVQNZJYSORNB-UHFFFAOYSA-N"),
    ],
)
def smiles_to_inchikey(smiles: str) -> str:
    """Standard InChIKey."""
    chem = rdkit_chem()
    return chem.MolToInchiKey(parse_smiles(smiles))


@tool(
    name="InChIToSMILES",
    functionality="Convert a molecule given as InChI into canonical SMILES.",
    inputs=["InChI"],
    outputs=["SMILES"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule"],
    scenarios=["identifier conversion"],
    requires=RDKIT,
    examples=[({"inchi": ETHANOL_INCHI}, "CCO"), ({"inchi": ASPIRIN_INCHI}, ASPIRIN)],
)
def inchi_to_smiles(inchi: str) -> str:
    """Canonical SMILES of the InChI structure."""
    return canonical(parse_inchi(inchi))


@tool(
    name="InChIToInChIKey",
    functionality="Convert an InChI string into its standard InChIKey.",
    inputs=["InChI"],
    outputs=["InChIKey"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule"],
    scenarios=["identifier conversion", "database lookup"],
    requires=RDKIT,
    examples=[
        ({"inchi": ASPIRIN_INCHI}, "BSYNRYMUTXBXSQ-UHFFFAOYSA-N"),
        ({"inchi": ETHANOL_INCHI}, "LFQSCWFLJHTTHZ-UHFFFAOYSA-N"),
    ],
)
def inchi_to_inchikey(inchi: str) -> str:
    """The InChI is validated first (the hashing alone accepts garbage)."""
    parse_inchi(inchi)
    from rdkit.Chem import inchi as rd_inchi

    key = rd_inchi.InchiToInchiKey(inchi.strip())
    if not key:
        raise ToolInputError(f"InChIKey could not be computed for '{inchi}'")
    return key


_INCHIKEY_RE = re.compile(r"^[A-Z]{14}-[A-Z]{8}[SN][A-Z]-[A-Z]$")


@tool(
    name="IsValidInChIKey",
    functionality="Check that a string is a well-formed standard InChIKey (14-10-1 upper-case letter blocks, version flag).",
    inputs=["InChIKey"],
    outputs=["True or False"],
    category="chemistry",
    source="InChI format rules",
    objects=["molecule identifier"],
    scenarios=["identifier validation"],
    examples=[
        ({"inchikey": "BSYNRYMUTXBXSQ-UHFFFAOYSA-N"}, True),
        ({"inchikey": "BSYNRYMUTXBXSQ-UHFFFAOYSA"}, False),
        ({"inchikey": "bsynrymutxbxsq-uhfffaoysa-n"}, False),
    ],
)
def is_valid_inchikey(inchikey: str) -> bool:
    """Format check: 14 letters, '-', 8 letters + S/N flag + version letter, '-', protonation letter."""
    return bool(_INCHIKEY_RE.match((inchikey or "").strip()))


# --------------------------------------------------------------------- SELFIES


@tool(
    name="SMILEStoSELFIES",
    functionality="Translate a SMILES string into its corresponding SELFIES string.",
    inputs=SMILES_IN,
    outputs=["SELFIES"],
    category="chemistry",
    source="selfies",
    objects=["molecule"],
    scenarios=["molecular representation", "generative models"],
    requires=["selfies", "rdkit"],
    examples=[
        ({"smiles": "CCO"}, "[C][C][O]"),
        ({"smiles": "c1ccccc1"}, "[C][=C][C][=C][C][=C][Ring1][=Branch1]"),
    ],
)
def smiles_to_selfies(smiles: str) -> str:
    """The SMILES is validated with RDKit first, then encoded (kekulised) by selfies."""
    import selfies as sf

    parse_smiles(smiles)
    try:
        return sf.encoder(smiles.strip(), strict=True)
    except sf.EncoderError as exc:
        raise ToolInputError(f"SMILES '{smiles}' cannot be encoded as SELFIES: {exc}") from None


@tool(
    name="SELFIEStoSMILES",
    functionality="Translate a SELFIES string into its corresponding (RDKit canonical) SMILES string.",
    inputs=["SELFIES"],
    outputs=["SMILES"],
    category="chemistry",
    source="selfies",
    objects=["molecule"],
    scenarios=["molecular representation", "generative models"],
    requires=["selfies", "rdkit"],
    examples=[
        ({"selfies": "[C][C][O]"}, "CCO"),
        ({"selfies": "[C][=C][C][=C][C][=C][Ring1][=Branch1]"}, "c1ccccc1"),
    ],
)
def selfies_to_smiles(selfies: str) -> str:
    """Decoded by selfies, canonicalised by RDKit."""
    return canonical(parse_smiles(parse_selfies(selfies)))


def _selfies_tokens(selfies: str) -> list[str]:
    import selfies as sf

    parse_selfies(selfies)
    return list(sf.split_selfies(selfies.strip()))


@tool(
    name="LengthSELFIES",
    functionality="Calculate the number of symbols in a SELFIES string.",
    inputs=["SELFIES"],
    outputs=["length"],
    category="chemistry",
    source="selfies",
    objects=["molecule"],
    scenarios=["molecular representation"],
    requires=["selfies"],
    examples=[
        ({"selfies": "[C][C][O]"}, 3),
        ({"selfies": "[C][=C][C][=C][C][=C][Ring1][=Branch1]"}, 8),
    ],
)
def length_selfies(selfies: str) -> int:
    """Number of bracketed SELFIES symbols."""
    return len(_selfies_tokens(selfies))


@tool(
    name="SplitSELFIES",
    functionality="Split a SELFIES string into its individual symbols (tokens).",
    inputs=["SELFIES"],
    outputs=["individual tokens"],
    category="chemistry",
    source="selfies",
    objects=["molecule"],
    scenarios=["molecular representation", "tokenisation"],
    requires=["selfies"],
    examples=[({"selfies": "[C][=C][O]"}, ["[C]", "[=C]", "[O]"])],
)
def split_selfies(selfies: str) -> list[str]:
    """The SELFIES symbols in order."""
    return _selfies_tokens(selfies)


# --------------------------------------------------------------------- similarity


def _morgan_fp(mol: Any, radius: int = 2, n_bits: int = 2048) -> Any:
    from rdkit.Chem import rdFingerprintGenerator

    return rdFingerprintGenerator.GetMorganGenerator(radius=radius, fpSize=n_bits).GetFingerprint(
        mol
    )


@tool(
    name="MolSimilarity",
    functionality="Calculate the Tanimoto similarity of two molecules from their SMILES (Morgan radius 2, 2048 bits).",
    inputs=["SMILES pair"],
    outputs=["the score of Tanimoto similarity"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule pair"],
    scenarios=["similarity search", "virtual screening", "analogue comparison"],
    requires=RDKIT,
    examples=[
        ({"smiles_a": "CCO", "smiles_b": "OCC"}, 1.0),
        ToolExample(
            input={"smiles_a": ASPIRIN, "smiles_b": "OC(=O)c1ccccc1O"},
            output=0.4482758620689655,
            abs_tol=1e-9,
        ),
    ],
)
def mol_similarity(smiles_a: str, smiles_b: str) -> float:
    """Tanimoto coefficient of Morgan (ECFP4-like) bit fingerprints."""
    from rdkit import DataStructs

    fa = _morgan_fp(parse_smiles(smiles_a))
    fb = _morgan_fp(parse_smiles(smiles_b))
    return float(DataStructs.TanimotoSimilarity(fa, fb))


@tool(
    name="DiceSimilarity",
    functionality="Calculate the Dice similarity of two molecules from their SMILES (Morgan radius 2, 2048 bits).",
    inputs=["SMILES pair"],
    outputs=["the score of Dice similarity"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule pair"],
    scenarios=["similarity search", "analogue comparison"],
    requires=RDKIT,
    examples=[
        ({"smiles_a": "CCO", "smiles_b": "OCC"}, 1.0),
        ToolExample(
            input={"smiles_a": ASPIRIN, "smiles_b": "OC(=O)c1ccccc1O"},
            output=0.6190476190476191,
            abs_tol=1e-9,
        ),
    ],
)
def dice_similarity(smiles_a: str, smiles_b: str) -> float:
    """Dice coefficient of Morgan (ECFP4-like) bit fingerprints."""
    from rdkit import DataStructs

    fa = _morgan_fp(parse_smiles(smiles_a))
    fb = _morgan_fp(parse_smiles(smiles_b))
    return float(DataStructs.DiceSimilarity(fa, fb))


# --------------------------------------------------------------------- functional groups

# name -> SMARTS; patterns after Ertl-style textbook definitions (RDKit/Daylight SMARTS).
FUNCTIONAL_GROUPS: dict[str, str] = {
    "carboxylic acid": "[CX3](=O)[OX2H1]",
    "carboxylate": "[CX3](=O)[OX1-]",
    "ester": "[#6][CX3](=O)[OX2H0][#6]",
    "amide": "[NX3][CX3](=[OX1])[#6]",
    "aldehyde": "[CX3H1](=O)[#6]",
    "ketone": "[#6][CX3](=O)[#6]",
    "alcohol": "[OX2H][CX4]",
    "phenol": "[OX2H]c",
    "ether": "[OD2]([#6;!$(C=O)])[#6;!$(C=O)]",
    "primary amine": "[NX3;H2;!$(NC=O);!$(N-a)][#6]",
    "secondary amine": "[NX3;H1;!$(NC=O)]([#6])[#6]",
    "tertiary amine": "[NX3;H0;!$(NC=O);!$(N-[a,#7,#8])]([#6])([#6])[#6]",
    "aniline": "[NX3;H2,H1;!$(NC=O)]c",
    "nitrile": "[NX1]#[CX2]",
    "nitro": "[$([NX3](=O)=O),$([NX3+](=O)[O-])]",
    "imine": "[CX3]=[NX2;!$(N=O)]",
    "thiol": "[#16X2H]",
    "thioether": "[#16X2H0]([#6])[#6]",
    "sulfonamide": "[SX4](=[OX1])(=[OX1])[NX3]",
    "sulfonic acid": "[SX4](=[OX1])(=[OX1])[OX2H1]",
    "halide": "[#6][F,Cl,Br,I]",
    "alkene": "[CX3]=[CX3]",
    "alkyne": "[CX2]#[CX2]",
    "aromatic ring": "a",
    "heteroaromatic ring": "[a;!c]",
    "acyl halide": "[CX3](=[OX1])[F,Cl,Br,I]",
    "anhydride": "[CX3](=[OX1])[OX2][CX3](=[OX1])",
    "azide": "[$(N=[N+]=[N-]),$([N-][N+]#N)]",
    "isocyanate": "N=C=O",
    "phosphate": "P(=O)([OX2])([OX2])[OX2]",
    "urea": "[NX3][CX3](=[OX1])[NX3]",
    "carbamate": "[NX3][CX3](=[OX1])[OX2][#6]",
    "lactone": "[#6;R][CX3;R](=O)[OX2;R][#6;R]",
    "lactam": "[#6;R][CX3;R](=O)[NX3;R]",
    "epoxide": "C1OC1",
    "peroxide": "[OX2][OX2]",
}


@tool(
    name="FuncGroups",
    functionality="Identify and list the functional groups present in a molecule from its SMILES (SMARTS matching).",
    inputs=SMILES_IN,
    outputs=["functional groups"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule"],
    scenarios=["structure analysis", "reactivity assessment", "medicinal chemistry"],
    requires=RDKIT,
    examples=[
        ({"smiles": ASPIRIN}, ["aromatic ring", "carboxylic acid", "ester"]),
        ({"smiles": "CCO"}, ["alcohol"]),
    ],
)
def func_groups(smiles: str) -> list[str]:
    """Names of the functional groups whose SMARTS matches, sorted alphabetically."""
    chem = rdkit_chem()
    mol = parse_smiles(smiles)
    found = []
    for name, smarts in FUNCTIONAL_GROUPS.items():
        if mol.HasSubstructMatch(chem.MolFromSmarts(smarts)):
            found.append(name)
    return sorted(found)
