"""Mean bond-valence sum of a cation's sites."""

from pymatgen.analysis.bond_valence import calculate_bv_sum_unordered
from pymatgen.core import Lattice, Structure

lattice = Lattice.hexagonal(3.2498, 5.2066)
structure = Structure.from_spacegroup(
    "P6_3mc",
    lattice,
    [{"Zn": 0.85, "Mg": 0.15}, "O"],
    [[0.3333333333333333, 0.6666666666666666, 0], [0.3333333333333333, 0.6666666666666666, 0.3819]],
    coords_are_cartesian=False,
)


def bv_sum(site):
    return calculate_bv_sum_unordered(site, structure.get_neighbors(site, 3.2))


sites = [site for site in structure if "Zn" in site.species.chemical_system.split("-")]
result = sum(bv_sum(site) for site in sites) / len(sites)
print(f"{result:.4f}")
