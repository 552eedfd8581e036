"""The materials domain pack (pymatgen)."""

from ._domain import MaterialsDomain

__all__ = ["MaterialsDomain"]
