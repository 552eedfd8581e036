"""Materials tools on chemical formulas, elements and space groups (pymatgen Composition,
Element, SpaceGroup): formula forms, molar mass, fractions, oxidation states, electronegativity.
"""

from __future__ import annotations

from typing import Any

from scigate.tools._tool import ToolExample, ToolInputError, tool
from scigate.tools.library.materials_common import PMG

FORMULA = "Molecule Formula"


def load_composition(formula: str) -> Any:
    """A pymatgen Composition of real elements; unknown symbols and bad syntax are refused."""
    from pymatgen.core import Composition, Element

    text = formula.strip() if isinstance(formula, str) else ""
    if not text:
        raise ToolInputError("invalid formula: the formula is empty")
    try:
        comp = Composition(text)
    except Exception as exc:
        raise ToolInputError(f"invalid formula {formula!r}: {exc}") from exc
    for el in comp.elements:
        symbol = getattr(el, "symbol", str(el))
        if not Element.is_valid_symbol(symbol):
            raise ToolInputError(f"invalid formula {formula!r}: unknown element {symbol!r}")
    if comp.num_atoms <= 0:
        raise ToolInputError(f"invalid formula {formula!r}: no atoms")
    return comp


def _formula_tool(name: str, functionality: str, output: str, examples: list[Any]) -> Any:
    return tool(
        name=name,
        functionality=functionality,
        inputs=[FORMULA],
        outputs=[output],
        category="materials",
        source="pymatgen",
        objects=["chemical formula", "composition"],
        scenarios=["materials informatics"],
        requires=PMG,
        examples=examples,
    )


@_formula_tool(
    "GetMolarMassFromFormula",
    "Calculate the molar mass (g/mol) of a chemical formula such as Fe2O3 or Ca(OH)2.",
    "molar mass",
    [
        ToolExample(input={"formula": "Fe2O3"}, output=159.6882, rel_tol=1e-6),
        ToolExample(input={"formula": "Ca(OH)2"}, output=74.09268, rel_tol=1e-5),
    ],
)
def molar_mass(formula: str) -> float:
    """Composition.weight with IUPAC standard atomic weights."""
    return float(load_composition(formula).weight)


@_formula_tool(
    "GetReducedFormula",
    "Reduce a chemical formula to its simplest integer ratio (e.g. Fe4O6 -> Fe2O3).",
    "reduced formula",
    [({"formula": "Fe4O6"}, "Fe2O3"), ({"formula": "Na2Cl2"}, "NaCl")],
)
def reduced_formula(formula: str) -> str:
    """Composition.reduced_formula."""
    return load_composition(formula).reduced_formula


@_formula_tool(
    "GetFormulaAnonymousByFormula",
    "Get the anonymous formula (elements replaced by A, B, C... in order of increasing amount) of a formula, e.g. Fe2O3 -> A2B3.",
    "anonymous formula",
    [({"formula": "Fe2O3"}, "A2B3"), ({"formula": "LiFePO4"}, "ABCD4")],
)
def anonymous_formula(formula: str) -> str:
    """Composition.anonymized_formula (computed offline; equals Materials Project's formula_anonymous)."""
    return load_composition(formula).anonymized_formula


@_formula_tool(
    "GetHillFormula",
    "Write a chemical formula in Hill order (C first, then H, then the other elements alphabetically).",
    "Hill formula",
    [({"formula": "OHC2H5"}, "C2 H6 O"), ({"formula": "NaCl"}, "Cl Na")],
)
def hill_formula(formula: str) -> str:
    """Composition.hill_formula."""
    return load_composition(formula).hill_formula


@_formula_tool(
    "GetChemicalSystemFromFormula",
    "Get the chemical system (alphabetically sorted elements joined by '-') of a formula, e.g. LiFePO4 -> Fe-Li-O-P.",
    "chemical system",
    [({"formula": "LiFePO4"}, "Fe-Li-O-P")],
)
def chemical_system(formula: str) -> str:
    """Composition.chemical_system."""
    return load_composition(formula).chemical_system


@_formula_tool(
    "GetElementFractions",
    "Calculate the atomic (mole) fraction of each element in a chemical formula.",
    "element fractions",
    [({"formula": "Fe2O3"}, {"Fe": 0.4, "O": 0.6})],
)
def element_fractions(formula: str) -> dict[str, float]:
    """Atomic fraction of each element."""
    comp = load_composition(formula)
    return {str(e): float(comp.get_atomic_fraction(e)) for e in comp.elements}


@_formula_tool(
    "GetWeightFractions",
    "Calculate the weight (mass) fraction of each element in a chemical formula.",
    "weight fractions",
    [
        ToolExample(
            input={"formula": "Fe2O3"},
            output={"Fe": 2 * 55.845 / 159.6882, "O": 3 * 15.9994 / 159.6882},
            rel_tol=1e-5,
        )
    ],
)
def weight_fractions(formula: str) -> dict[str, float]:
    """Mass fraction of each element."""
    comp = load_composition(formula)
    return {str(e): float(comp.get_wt_fraction(e)) for e in comp.elements}


@_formula_tool(
    "GuessOxidationStates",
    "Guess charge-balanced oxidation states of the elements in a formula (most likely first, from ICSD statistics).",
    "oxidation states",
    [
        ({"formula": "Fe2O3"}, [{"Fe": 3.0, "O": -2.0}]),
        ({"formula": "Fe3O4"}, [{"Fe": 2.6666666666666665, "O": -2.0}]),
    ],
)
def oxidation_state_guesses(formula: str, max_guesses: int = 3) -> list[dict[str, float]]:
    """Composition.oxi_state_guesses (average per element); empty when no balanced guess exists."""
    comp = load_composition(formula)
    if comp.num_atoms > 200:
        raise ToolInputError(
            "formula too large for oxidation-state enumeration (more than 200 atoms)"
        )
    return [dict(g) for g in comp.oxi_state_guesses(max_sites=-50)[: max(max_guesses, 1)]]


@_formula_tool(
    "GetAverageElectronegativity",
    "Calculate the atom-averaged Pauling electronegativity of a chemical formula.",
    "average electronegativity",
    [ToolExample(input={"formula": "NaCl"}, output=(0.93 + 3.16) / 2, rel_tol=1e-6)],
)
def average_electronegativity(formula: str) -> float:
    """Composition.average_electroneg."""
    return float(load_composition(formula).average_electroneg)


@_formula_tool(
    "CountElementsInFormula",
    "Count the distinct elements in a chemical formula.",
    "number of elements",
    [({"formula": "LiFePO4"}, 4)],
)
def count_elements(formula: str) -> int:
    """Number of distinct elements."""
    return len(load_composition(formula).elements)


@_formula_tool(
    "CountAtomsInFormula",
    "Count the atoms in one formula unit of a chemical formula.",
    "number of atoms",
    [({"formula": "Ca(OH)2"}, 5.0), ({"formula": "Fe2O3"}, 5.0)],
)
def count_atoms(formula: str) -> float:
    """Composition.num_atoms (may be fractional for non-stoichiometric formulas)."""
    return float(load_composition(formula).num_atoms)


@tool(
    name="GetElementProperties",
    functionality="Look up properties of a chemical element: atomic number, atomic mass, Pauling electronegativity, period, group, block, common oxidation states, atomic radius.",
    inputs=["element"],
    outputs=["element properties"],
    category="materials",
    source="pymatgen",
    objects=["element"],
    scenarios=["materials informatics"],
    requires=PMG,
    examples=[
        (
            {"element": "Fe"},
            {
                "symbol": "Fe",
                "name": "Iron",
                "Z": 26,
                "atomic_mass": 55.845,
                "electronegativity": 1.83,
                "row": 4,
                "group": 8,
                "block": "d",
                "common_oxidation_states": [2, 3],
                "atomic_radius": 1.4,
            },
        )
    ],
)
def element_properties(element: str) -> dict[str, Any]:
    """pymatgen Element data (radius in Å, mass in amu)."""
    from pymatgen.core import Element

    symbol = element.strip()
    symbol = symbol[:1].upper() + symbol[1:].lower()
    if not Element.is_valid_symbol(symbol):
        raise ToolInputError(f"unknown element {element!r}")
    e = Element(symbol)
    return {
        "symbol": e.symbol,
        "name": e.long_name,
        "Z": e.Z,
        "atomic_mass": float(e.atomic_mass),
        "electronegativity": float(e.X),
        "row": e.row,
        "group": e.group,
        "block": e.block,
        "common_oxidation_states": list(e.common_oxidation_states),
        "atomic_radius": float(e.atomic_radius) if e.atomic_radius is not None else None,
    }


@tool(
    name="GetSpaceGroupInfo",
    functionality="Look up a space group by Hermann-Mauguin symbol or international number: symbol, number, crystal system, point group and number of symmetry operations.",
    inputs=["space group"],
    outputs=["symmetry information"],
    category="materials",
    source="pymatgen",
    objects=["space group"],
    scenarios=["crystallography"],
    requires=PMG,
    examples=[
        (
            {"space_group": "227"},
            {
                "symbol": "Fd-3m",
                "number": 227,
                "crystal_system": "cubic",
                "point_group": "m-3m",
                "order": 192,
            },
        ),
        (
            {"space_group": "P4_2/mnm"},
            {
                "symbol": "P4_2/mnm",
                "number": 136,
                "crystal_system": "tetragonal",
                "point_group": "4/mmm",
                "order": 16,
            },
        ),
    ],
)
def space_group_info(space_group: str) -> dict[str, Any]:
    """pymatgen SpaceGroup data for a symbol (e.g. Fm-3m) or a number 1-230."""
    from pymatgen.symmetry.groups import SpaceGroup

    text = space_group.strip()
    try:
        if text.isdigit():
            number = int(text)
            if not 1 <= number <= 230:
                raise ToolInputError(f"space group number must be 1..230, got {number}")
            group = SpaceGroup.from_int_number(number)
        else:
            group = SpaceGroup(text)
    except ToolInputError:
        raise
    except Exception as exc:
        raise ToolInputError(f"unknown space group {space_group!r}") from exc
    return {
        "symbol": group.symbol,
        "number": group.int_number,
        "crystal_system": group.crystal_system,
        "point_group": group.point_group,
        "order": group.order,
    }
