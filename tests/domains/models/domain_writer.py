"""Scripted LLM generators for the chemistry and materials domains (no network).

Each behaves as a model behind `scigate gate run --generator python/THIS.py:FUNCTION`:
its first turn writes `candidate/` through run_python, its second submits. Round 0
writes a correct candidate, every later round one with the defect a gate-1b check of the
domain must catch (the check named in `DEFECTS`). The correct answer is always the
smallest option (letter A), so cue/middle, which picks a middle value, cannot solve it.
"""

import json
import re

_ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O"
_CAFFEINE = "Cn1cnc2c1c(=O)n(C)c(=O)n2C"

CHEMISTRY = [
    # correct: RDKit's monoisotopic mass
    (
        "What is the monoisotopic molecular mass of aspirin (SMILES "
        f"{_ASPIRIN}) computed with RDKit's Descriptors.ExactMolWt, in Da, rounded to "
        "four decimals?",
        f"from rdkit import Chem\nfrom rdkit.Chem import Descriptors\n"
        f"print(f\"{{Descriptors.ExactMolWt(Chem.MolFromSmiles('{_ASPIRIN}')):.4f}}\")\n",
        "180.0423",
    ),
    # renumbered-atoms: the carbonyl carbons read as atoms 1 and 10 of the SMILES as written
    (
        "Sum the Gasteiger partial charges (RDKit, explicit hydrogens added) of the two "
        "carbonyl carbons in acetylsalicylic acid; four decimals.",
        "from rdkit import Chem\nfrom rdkit.Chem import AllChem\n"
        f'mol = Chem.AddHs(Chem.MolFromSmiles("{_ASPIRIN}"))\n'
        "AllChem.ComputeGasteigerCharges(mol)\n"
        'q = [a.GetDoubleProp("_GasteigerCharge") for a in mol.GetAtoms()]\n'
        'print(f"{q[1] + q[10]:.4f}")\n',
        "0.6466",
    ),
    # rdkit-dependence: caffeine's mass from a hand-written table (RDKit only lists atoms)
    (
        "Give the exact mass of caffeine, built from its SMILES with all hydrogens made "
        "explicit, as the sum of the most abundant isotope masses; 4 decimal places.",
        "from rdkit import Chem\n"
        f'mol = Chem.AddHs(Chem.MolFromSmiles("{_CAFFEINE}"))\n'
        'm = {"C": 12.0, "H": 1.0078250319, "N": 14.0030740052, "O": 15.9949146221}\n'
        'print(f"{sum(m[a.GetSymbol()] for a in mol.GetAtoms()):.4f}")\n',
        "194.0804",
    ),
]

_RUTILE = (
    "from pymatgen.core import Lattice, Structure\n"
    "from pymatgen.analysis.bond_valence import calculate_bv_sum_unordered\n"
    's = Structure.from_spacegroup("P4_2/mnm", Lattice.tetragonal(4.594, 2.959), '
    '["Ti", "O"], [[0, 0, 0], [0.3053, 0.3053, 0]])\n'
)
_FLUORITE = (
    "from pymatgen.core import Lattice, Structure\n"
    "from pymatgen.analysis.ewald import EwaldSummation\n"
    's = Structure.from_spacegroup("Fm-3m", Lattice.cubic(5.463), ["Ca", "F"], '
    "[[0, 0, 0], [0.25, 0.25, 0.25]])\n"
    's.add_oxidation_state_by_element({"Ca": 2, "F": -1})\n'
)
_MGO = (
    "from pymatgen.core import Lattice, Structure\n"
    's = Structure.from_spacegroup("Fm-3m", Lattice.cubic(4.212), ["Mg", "O"], '
    "[[0, 0, 0], [0.5, 0.5, 0.5]])\n"
)

MATERIALS = [
    # correct: pymatgen's Ewald energy per formula unit
    (
        "Rock-salt MgO with a = 4.212 Å and formal charges +2/-2: what is the Ewald "
        "electrostatic energy per formula unit from pymatgen's EwaldSummation, in eV, "
        "to four decimals?",
        _MGO + "from pymatgen.analysis.ewald import EwaldSummation\n"
        's.add_oxidation_state_by_element({"Mg": 2, "O": -2})\n'
        "z = s.composition.get_reduced_composition_and_factor()[1]\n"
        'print(f"{EwaldSummation(s).total_energy / z:.4f}")\n',
        "-47.7955",
    ),
    # permuted-sites: the Ti bond-valence sum read at site 0
    (
        "In rutile TiO2 (P4_2/mnm, a = 4.594 Å, c = 2.959 Å, O at x = 0.3053), compute the "
        "bond-valence sum of titanium with neighbours within 3 Å; four decimals.",
        _RUTILE + 'print(f"{calculate_bv_sum_unordered(s[0], s.get_neighbors(s[0], 3.0)):.4f}")\n',
        "3.7707",
    ),
    # equivalent-supercell: four formula units assumed instead of Z from the composition
    (
        "Fluorite CaF2 (a = 5.463 Å, Ca2+ and F-): report the Ewald sum per CaF2 unit, "
        "eV, 4 decimal places, using pymatgen.",
        _FLUORITE + 'print(f"{EwaldSummation(s).total_energy / 4:.4f}")\n',
        "-30.6723",
    ),
    # pymatgen-dependence: the Madelung closed form, pymatgen building the crystal for show
    (
        "Using the NaCl-type Madelung constant, estimate the lattice electrostatic energy "
        "of periclase per cell of four MgO units divided by nearest-neighbour distance; "
        "eV, four decimals.",
        _MGO + 'print(f"{-1.7475645946 * 14.39964548 * 4 / (4.212 / 2):.4f}")\n',
        "-47.7955",
    ),
]

#: the gate-1b check each round's defect is written for (round 0: none, the correct one)
DEFECTS = {
    "chemistry": [None, "renumbered-atoms", "rdkit-dependence"],
    "materials": [None, "permuted-sites", "equivalent-supercell", "pymatgen-dependence"],
}


def _options(value: str) -> dict:
    """The value as option A and the smallest of four (distractors above it)."""
    places = len(value.split(".")[1])
    v = float(value)
    step = max(abs(v) * 0.03, 0.01)
    return {letter: f"{v + k * step:.{places}f}" for k, letter in enumerate("ABCD")}


def _files(domain: str, items: list, round_index: int) -> dict:
    question, solution, value = items[round_index % len(items)]
    options = _options(value)
    meta = {
        "domain": domain,
        "family": f"scripted-{round_index}",
        "distractors": [
            {"letter": k, "mistake": "scripted distractor", "value": v}
            for k, v in options.items()
            if k != "A"
        ],
        "value_rank": 1,
    }
    return {
        "question.md": question + "\n",
        "options.json": json.dumps(options),
        "answer.txt": "A\n",
        "solution.py": solution,
        "meta.json": json.dumps(meta),
    }


def _writer(domain: str, items: list):
    def model(messages, tools=None, **settings):
        user = next(m["content"] for m in messages if m["role"] == "user")
        round_index = int(re.search(r"This is round (\d+)", user).group(1))
        if len(messages) > 2:
            return {
                "content": None,
                "tool_calls": [{"name": "submit", "arguments": {"answer": "done"}}],
            }
        code = "import os\nos.makedirs('candidate', exist_ok=True)\n"
        for name, text in _files(domain, items, round_index).items():
            code += f"open('candidate/{name}', 'w').write({text!r})\n"
        return {
            "content": f"Writing a {domain} candidate.",
            "tool_calls": [{"name": "run_python", "arguments": {"code": code}}],
        }

    return model


chemistry = _writer("chemistry", CHEMISTRY)
materials = _writer("materials", MATERIALS)
