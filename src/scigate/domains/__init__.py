"""Domain packs: per-domain environment checks, guides, seed items and template generators."""

from __future__ import annotations

from collections.abc import Callable

from scigate.errors import BadInput

from ._base import Domain, SemanticCheck, TemplateGenerator, candidate_dirs, mpi_check


def _fenicsx() -> Domain:
    from .fenicsx import FenicsxDomain

    return FenicsxDomain()


def _chemistry() -> Domain:
    from .chemistry import ChemistryDomain

    return ChemistryDomain()


def _materials() -> Domain:
    from .materials import MaterialsDomain

    return MaterialsDomain()


_REGISTRY: dict[str, Callable[[], Domain]] = {
    "fenicsx": _fenicsx,
    "chemistry": _chemistry,
    "materials": _materials,
}


def domain_names() -> list[str]:
    """Names of the registered domains."""
    return sorted(_REGISTRY)


def get_domain(name: str) -> Domain:
    """The domain called ``name``; BadInput listing the known ones otherwise."""
    try:
        factory = _REGISTRY[name]
    except (KeyError, TypeError):
        raise BadInput(
            f"unknown domain {name!r}; known domains: {', '.join(domain_names())}"
        ) from None
    return factory()


__all__ = [
    "Domain",
    "SemanticCheck",
    "TemplateGenerator",
    "candidate_dirs",
    "domain_names",
    "get_domain",
    "mpi_check",
]
