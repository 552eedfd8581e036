"""Ewald electrostatic energy per formula unit of an ionic crystal."""

from pymatgen.analysis.ewald import EwaldSummation
from pymatgen.core import Lattice, Structure

lattice = Lattice.cubic(3.9052)
structure = Structure.from_spacegroup(
    "Pm-3m",
    lattice,
    ["Sr", "Ti", "O"],
    [[0, 0, 0], [0.5, 0.5, 0.5], [0.5, 0.5, 0]],
    coords_are_cartesian=False,
)
structure.add_oxidation_state_by_element({"Sr": 2, "Ti": 4, "O": -2})
formula_units = structure.composition.get_reduced_composition_and_factor()[1]
energy = EwaldSummation(structure).total_energy
result = energy / formula_units
print(f"{result:.4f}")
