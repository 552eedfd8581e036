"""Chemistry safety screening from structure alone: explosive groups and structural alerts.

SciToolKG's `SafetySummary` and `CheckExplosiveness` (from ChemCrow) look a CAS number up
in PubChem; these offline versions screen the structure instead (chain `CASToSMILES` or
`NameToSMILES` first when only a CAS number or a name is at hand).

Alert sets:

- Explosive groups: the chemical groups "indicating explosive properties" of the UN
  Manual of Tests and Criteria, Appendix 6 (screening procedures), table A6.1: C-C
  unsaturation (acetylenes, acetylides, 1,2-dienes), C-metal and N-metal bonds, contiguous
  nitrogen atoms (azides, aliphatic azo compounds, diazonium salts, hydrazines, sulfonyl
  hydrazides), contiguous oxygen atoms (peroxides, ozonides), N-O bonds (hydroxylamines,
  nitrates, nitro and nitroso compounds, N-oxides, 1,2-oxazoles), N-halogen bonds
  (chloramines, fluoroamines) and O-halogen bonds (chlorates, perchlorates, iodosyl
  compounds). The group list is a fact of that public UN document; the SMARTS below are
  written for scigate (CC0). The appendix also exempts an organic substance whose groups
  all contain oxygen when its oxygen balance is below -200 (computed here as
  -1600 (2C + H/2 - O) / M, the usual CHNO form), and one whose exothermic decomposition
  energy is below 500 J/g (not computable from the structure, so never used to clear a
  substance).
- Structural alerts for reactive or toxic groups: RDKit's FilterCatalog "Brenk" set
  (Brenk et al., ChemMedChem 2008, 3, 435-444, "Lessons learnt from assembling screening
  libraries for drug discovery for neglected diseases"), shipped with RDKit under its
  BSD-3-Clause licence.

A screen that finds nothing is not a statement that a substance is safe.
"""

from __future__ import annotations

import functools
from typing import Any

from scigate.tools._tool import ToolExample, tool
from scigate.tools.library.chemistry_common import RDKIT, SMILES_IN, parse_smiles, rdkit_chem

UN_APPENDIX_6 = "UN Manual of Tests and Criteria, Appendix 6, table A6.1"

# (group, class in table A6.1, SMARTS)
EXPLOSIVE_GROUPS: list[tuple[str, str, str]] = [
    ("acetylene", "C-C unsaturation", "C#C"),
    ("acetylide", "C-C unsaturation", "[C;-1]#[C,c]"),
    ("1,2-diene (allene)", "C-C unsaturation", "C=C=C"),
    ("carbon-metal bond", "C-metal, N-metal", "[#6]~[Li,Na,K,Mg,Zn,Cu,Ag,Hg,Pb,Cd,Al,Sn]"),
    ("nitrogen-metal bond", "C-metal, N-metal", "[#7]~[Li,Na,K,Mg,Zn,Cu,Ag,Hg,Pb,Cd,Al,Sn]"),
    ("azide", "contiguous nitrogen atoms", "[N;X1]~[N;X2]~[N,n]"),
    ("aliphatic azo", "contiguous nitrogen atoms", "[C;!a][N;X2]=[N;X2][C;!a]"),
    ("diazonium", "contiguous nitrogen atoms", "[N+]#N"),
    ("diazo", "contiguous nitrogen atoms", "[C]=[N+]=[N-]"),
    ("hydrazine", "contiguous nitrogen atoms", "[N;X3;!$(N=*);!$(N-[O,N]=O)]-[N;X3;!$(N=*)]"),
    ("sulfonyl hydrazide", "contiguous nitrogen atoms", "S(=O)(=O)N[N;X3]"),
    ("triazene", "contiguous nitrogen atoms", "N=N-N"),
    ("peroxide", "contiguous oxygen atoms", "[O;X2,X1-]-[O;X2,X1-]"),
    ("ozonide", "contiguous oxygen atoms", "C1OOC(O1)"),
    ("hydroxylamine", "N-O bond", "[N;X3;!$(N=*);!$([N+])]-[O;X2H1]"),
    ("nitrate ester", "N-O bond", "O-[N+](=O)[O-]"),
    ("nitro", "N-O bond", "[#6,#7]-[N+](=O)[O-]"),
    ("nitroso", "N-O bond", "[#6,#7]-[N;X2]=O"),
    ("N-oxide", "N-O bond", "[n+,N+;!$([N+](=O)[O-])]-[O-]"),
    ("1,2-oxazole", "N-O bond", "o1nccc1"),
    ("N-halogen", "N-halogen bond", "[#7]-[F,Cl,Br,I]"),
    ("O-halogen (hypohalite, halite, halate, perhalate, iodosyl)", "O-halogen bond", "[O]~[Cl,Br,I,F]"),
]  # fmt: skip


@functools.cache
def _explosive_patterns() -> list[tuple[str, str, Any]]:
    chem = rdkit_chem()
    return [(name, klass, chem.MolFromSmarts(smarts)) for name, klass, smarts in EXPLOSIVE_GROUPS]


_OXYGEN_CLASSES = frozenset({"contiguous oxygen atoms", "N-O bond", "O-halogen bond"})


def oxygen_balance(mol: Any) -> float:
    """Oxygen balance in % for CO2/H2O products: -1600 (2C + H/2 - O) / M (metals ignored)."""
    from rdkit.Chem import Descriptors

    counts = {"C": 0, "H": 0, "O": 0}
    for atom in mol.GetAtoms():
        sym = atom.GetSymbol()
        if sym in counts:
            counts[sym] += 1
        counts["H"] += atom.GetTotalNumHs()
    weight = Descriptors.MolWt(mol)  # type: ignore[attr-defined]  # RDKit's stub lacks the descriptors made at import
    return -1600.0 * (2 * counts["C"] + counts["H"] / 2 - counts["O"]) / weight


def explosive_screen(mol: Any) -> dict[str, Any]:
    """The UN Appendix 6 screen: explosive groups found, oxygen balance and the verdict."""
    groups = []
    for name, klass, pattern in _explosive_patterns():
        matches = mol.GetSubstructMatches(pattern)
        if matches:
            groups.append({"group": name, "class": klass, "count": len(matches)})
    balance = oxygen_balance(mol)
    organic = any(a.GetSymbol() == "C" for a in mol.GetAtoms())
    if not groups:
        verdict = "no explosive groups: the UN screen needs no further testing"
        flagged = False
    elif organic and balance < -200 and all(g["class"] in _OXYGEN_CLASSES for g in groups):
        verdict = "oxygen-containing explosive groups but oxygen balance below -200: the UN screen exempts it"
        flagged = False
    else:
        verdict = "explosive groups present: potentially explosive, testing needed"
        flagged = True
    return {
        "potentially_explosive": flagged,
        "explosive_groups": groups,
        "oxygen_balance": round(balance, 2),
        "verdict": verdict,
        "source": UN_APPENDIX_6,
    }


@functools.cache
def _brenk_catalog() -> Any:
    from rdkit.Chem.FilterCatalog import FilterCatalog, FilterCatalogParams

    params = FilterCatalogParams()
    params.AddCatalog(FilterCatalogParams.FilterCatalogs.BRENK)
    return FilterCatalog(params)


def structural_alerts(mol: Any) -> list[str]:
    """Names of the Brenk (2008) alerts the molecule matches, sorted."""
    return sorted({entry.GetDescription() for entry in _brenk_catalog().GetMatches(mol)})


TNT = "Cc1c(cc(cc1[N+](=O)[O-])[N+](=O)[O-])[N+](=O)[O-]"
NITROGLYCERIN = "C(C(CO[N+](=O)[O-])O[N+](=O)[O-])O[N+](=O)[O-]"


@tool(
    name="CheckExplosiveness",
    functionality="Check a molecule for explosive properties by screening its structure for explosive groups (nitro, azide, peroxide...) and its oxygen balance, as in the UN screening procedure.",
    inputs=SMILES_IN,
    outputs=["explosive information"],
    category="chemistry",
    source="RDKit",
    objects=["molecule", "energetic material"],
    scenarios=["laboratory safety", "hazard screening", "energetic materials"],
    requires=RDKIT,
    safety=True,
    # oxygen balances: TNT -74 %, nitroglycerin +3.5 % (values quoted in the literature)
    examples=[
        ToolExample(
            input={"smiles": TNT},
            output={
                "potentially_explosive": True,
                "explosive_groups": [{"group": "nitro", "class": "N-O bond", "count": 3}],
                "oxygen_balance": -73.96,
                "verdict": "explosive groups present: potentially explosive, testing needed",
                "source": UN_APPENDIX_6,
            },
            abs_tol=0.05,
        ),
    ],
)
def check_explosiveness(smiles: str) -> dict[str, Any]:
    """UN Appendix 6 screen of the structure: explosive groups, oxygen balance, verdict."""
    return explosive_screen(parse_smiles(smiles))


@tool(
    name="SafetySummary",
    functionality="Summarise the safety concerns of a molecule from its structure: explosive groups with oxygen balance, and reactive or toxic structural alerts (Brenk set).",
    inputs=SMILES_IN,
    outputs=["safety information"],
    category="chemistry",
    source="RDKit",
    objects=["molecule"],
    scenarios=["laboratory safety", "hazard screening", "compound library filtering"],
    requires=RDKIT,
    safety=True,
    examples=[
        ToolExample(
            input={"smiles": "CC=O"},
            output={
                "summary": "structural alerts: aldehyde",
                "explosive": {
                    "potentially_explosive": False,
                    "explosive_groups": [],
                    "oxygen_balance": -181.6,
                    "verdict": "no explosive groups: the UN screen needs no further testing",
                    "source": UN_APPENDIX_6,
                },
                "structural_alerts": ["aldehyde"],
                "alert_source": "Brenk et al. 2008 (RDKit FilterCatalog BRENK)",
                "note": "structure-based screen only; it does not replace a safety data sheet",
            },
            abs_tol=0.05,
        )
    ],
)
def safety_summary(smiles: str) -> dict[str, Any]:
    """Explosive screen plus Brenk structural alerts, and a one-line summary."""
    mol = parse_smiles(smiles)
    explosive = explosive_screen(mol)
    alerts = structural_alerts(mol)
    parts = []
    if explosive["potentially_explosive"]:
        groups = ", ".join(g["group"] for g in explosive["explosive_groups"])
        parts.append(f"potentially explosive ({groups})")
    if alerts:
        parts.append("structural alerts: " + ", ".join(alerts))
    summary = "; ".join(parts) if parts else "no explosive groups and no structural alerts found"
    return {
        "summary": summary,
        "explosive": explosive,
        "structural_alerts": alerts,
        "alert_source": "Brenk et al. 2008 (RDKit FilterCatalog BRENK)",
        "note": "structure-based screen only; it does not replace a safety data sheet",
    }
