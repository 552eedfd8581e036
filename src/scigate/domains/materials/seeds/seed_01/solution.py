"""A quantity of the powder XRD pattern of a (substituted) crystal structure."""

from pymatgen.analysis.diffraction.xrd import XRDCalculator
from pymatgen.core import Lattice, Structure

lattice = Lattice.tetragonal(4.6012, 2.9655)
structure = Structure.from_spacegroup(
    "P4_2/mnm",
    lattice,
    [{"Ti": 0.8, "Sn": 0.2}, "O"],
    [[0, 0, 0], [0.3053, 0.3053, 0]],
    coords_are_cartesian=False,
)
pattern = XRDCalculator(wavelength="CuKa1").get_pattern(structure, two_theta_range=(10, 110))
result = float((pattern.x * pattern.y).sum() / pattern.y.sum())
print(f"{result:.4f}")
