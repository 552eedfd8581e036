"""The FEniCSx domain pack (DOLFINx, UFL, Basix, FFCx with PETSc)."""

from ._domain import FenicsxDomain

__all__ = ["FenicsxDomain"]
