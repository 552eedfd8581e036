"""Ewald electrostatic energy per formula unit of an ionic crystal."""

from pymatgen.analysis.ewald import EwaldSummation
from pymatgen.core import Lattice, Structure

lattice = Lattice.cubic(5.4631)
structure = Structure.from_spacegroup(
    "Fm-3m",
    lattice,
    ["Ca", "F"],
    [[0, 0, 0], [0.25, 0.25, 0.25]],
    coords_are_cartesian=False,
)
structure.add_oxidation_state_by_element({"Ca": 2, "F": -1})
formula_units = structure.composition.get_reduced_composition_and_factor()[1]
energy = EwaldSummation(structure).total_energy
result = energy / formula_units
print(f"{result:.4f}")
