"""The chemistry domain pack (RDKit)."""

from ._domain import ChemistryDomain

__all__ = ["ChemistryDomain"]
