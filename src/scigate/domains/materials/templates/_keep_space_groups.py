"""Run once by the materials template worker (a preload file: standalone, no scigate
import): keeps every pymatgen `SpaceGroup` a script builds alive for the worker's life.

`SpaceGroup` is a monty `cached_class`, but its cache holds instances weakly: each script's
space group dies with the script's namespace, so the next `Structure.from_spacegroup`
rebuilds the group's closure of symmetry operations (0.2 s for a cubic group, 77% of the
materials generator's script time). Held here, the library's own cache returns the same
instance, computed from the same arguments, so the values the scripts print are unchanged.
"""

from pymatgen.symmetry.groups import SpaceGroup

_KEPT: dict[int, SpaceGroup] = {}
_cached_new = SpaceGroup.__new__


def _new_kept(cls, *args, **kwargs):
    instance = _cached_new(cls, *args, **kwargs)
    _KEPT.setdefault(id(instance), instance)
    return instance


if not getattr(SpaceGroup.__new__, "_scigate_keeps", False):
    _new_kept._scigate_keeps = True  # type: ignore[attr-defined]  # a marker on the function
    SpaceGroup.__new__ = _new_kept
