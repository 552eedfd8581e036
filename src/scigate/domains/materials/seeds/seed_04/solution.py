"""Mean Voronoi polyhedron volume of an element's sites."""

from pymatgen.analysis.local_env import VoronoiNN
from pymatgen.core import Lattice, Structure

lattice = Lattice.cubic(5.4631)
structure = Structure.from_spacegroup(
    "Fm-3m",
    lattice,
    ["Ca", "F"],
    [[0, 0, 0], [0.25, 0.25, 0.25]],
    coords_are_cartesian=False,
)

voronoi = VoronoiNN(cutoff=13.0)
volumes = [
    sum(facet["volume"] for facet in voronoi.get_voronoi_polyhedra(structure, i).values())
    for i, site in enumerate(structure)
    if site.specie.symbol == "F"
]
result = sum(volumes) / len(volumes)
print(f"{result:.4f}")
