"""The bundled entity sets built tasks are about (see data/README.md for sources/licenses)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

DATA = Path(__file__).resolve().parent / "data" / "entities.json"
# The larger pools (scripts/make_bench_pools.py writes them; each with its source and license).
POOLS = Path(__file__).resolve().parent / "data" / "pools.json"


class Entity(BaseModel):
    """One object a task is about: its label, the value its Parameter holds, and its type."""

    kind: str  # molecule-name | molecule-smiles | protein | dna | crystal | formula
    name: str  # how a question refers to it
    value: str  # what the Parameter holds
    type: str  # the vocabulary I/O type of `value`
    domain: str  # chemistry | biology | materials

    @property
    def label(self) -> str:
        """The option text / rule answer for this entity: its Parameter value."""
        return self.value


def _cif(item: dict) -> str:
    a = float(item["a"])
    lines = [
        f"# {item['name']}, a = {a} A, space group {item['space_group']} ({item['number']});",
        "# written by scigate.bench from a textbook record (CC0-1.0).",
        f"data_{item['formula']}",
        f"_symmetry_space_group_name_H-M   '{item['space_group']}'",
        f"_symmetry_Int_Tables_number      {item['number']}",
        *(f"_cell_length_{x}    {a:.4f}" for x in "abc"),
        *(f"_cell_angle_{x} 90.0" for x in ("alpha", "beta", "gamma")),
        "loop_",
        "_atom_site_label",
        "_atom_site_type_symbol",
        "_atom_site_fract_x",
        "_atom_site_fract_y",
        "_atom_site_fract_z",
        "_atom_site_occupancy",
    ]
    lines += [f"{el}{i} {el} {x} {y} {z} 1.0" for i, (el, x, y, z) in enumerate(item["sites"], 1)]
    return "\n".join(lines) + "\n"


def _cif_p1(item: dict) -> str:
    """A P1 CIF of a pool crystal: its cell and every site (symmetry is found by the tools)."""
    a, b, c, alpha, beta, gamma = item["lattice"]
    formula = "".join(sorted({el for el, *_ in item["sites"]}))
    lines = [
        f"# {item['name']}",
        "# written by scigate.bench from a structure record (see data/README.md).",
        f"data_{formula}",
        "_symmetry_space_group_name_H-M   'P 1'",
        "_symmetry_Int_Tables_number      1",
        f"_cell_length_a    {a:.6f}",
        f"_cell_length_b    {b:.6f}",
        f"_cell_length_c    {c:.6f}",
        f"_cell_angle_alpha {alpha:.6f}",
        f"_cell_angle_beta  {beta:.6f}",
        f"_cell_angle_gamma {gamma:.6f}",
        "loop_",
        "_symmetry_equiv_pos_as_xyz",
        "  'x, y, z'",
        "loop_",
        "_atom_site_label",
        "_atom_site_type_symbol",
        "_atom_site_fract_x",
        "_atom_site_fract_y",
        "_atom_site_fract_z",
        "_atom_site_occupancy",
    ]
    lines += [f"{el}{i} {el} {x} {y} {z} 1.0" for i, (el, x, y, z) in enumerate(item["sites"], 1)]
    return "\n".join(lines) + "\n"


def load_pools() -> dict:
    """The larger entity pools by set, each {"source", "license", "items"} ({} if absent)."""
    if not POOLS.exists():
        return {}
    return json.loads(POOLS.read_text(encoding="utf-8"))


def _unique(entities: list[Entity]) -> list[Entity]:
    seen: set[str] = set()
    out = []
    for e in entities:
        if e.value not in seen:
            seen.add(e.value)
            out.append(e)
    return out


@functools.lru_cache(maxsize=1)
def load_entities() -> dict[str, list[Entity]]:
    """Every bundled entity, by kind."""
    from scigate.tools.library.chemistry import common_names

    data = json.loads(DATA.read_text(encoding="utf-8"))
    pools = load_pools()
    table = common_names()
    names = [n for n in data["molecules"]["names"] if n.lower() in table]
    # every other compound of the offline name table, by its first name
    names += [n for n in _table_names() if n.lower() not in {m.lower() for m in names}]
    found = {
        "molecule-name": [(n, n) for n in names],
        "molecule-smiles": [(m["name"], m["smiles"]) for m in _items(pools, "molecules")],
        "protein": [(p["name"], p["sequence"]) for p in _items(pools, "proteins")],
        "dna": [(d["name"], d["sequence"]) for d in _items(pools, "dna")],
        "crystal": [(c["name"], _cif_p1(c)) for c in _items(pools, "crystals")],
        "formula": [(f, f) for f in _items(pools, "formulas")],
    }
    base = {
        "molecule-name": [(n, n) for n in names],
        "molecule-smiles": [(n, table[n.lower()]) for n in names],
        "protein": [(p["name"], p["sequence"]) for p in data["proteins"]["items"]],
        "dna": [(d["name"], d["sequence"]) for d in data["dna"]["items"]],
        "crystal": [(c["name"], _cif(c)) for c in data["crystals"]["items"]],
        "formula": [(f, f) for f in data["formulas"]["items"]],
    }
    # the curated sets first (their order is what small builds and tests draw from)
    return {
        kind: _unique([_entity(kind, name, value) for name, value in base[kind] + found[kind]])
        for kind in base
    }


#: each entity kind's vocabulary I/O type and domain
KIND_TYPES: dict[str, tuple[str, str]] = {
    "molecule-name": ("molecule name", "chemistry"),
    "molecule-smiles": ("SMILES", "chemistry"),
    "protein": ("protein sequence", "biology"),
    "dna": ("DNA sequence", "biology"),
    "crystal": ("CIF", "materials"),
    "formula": ("Molecule Formula", "materials"),
}


def _entity(kind: str, name: str, value: str) -> Entity:
    io_type, domain = KIND_TYPES[kind]
    return Entity(kind=kind, name=name, value=value, type=io_type, domain=domain)


def _items(pools: dict[str, Any], key: str) -> list[Any]:
    return pools.get(key, {}).get("items", [])


def _table_names() -> list[str]:
    """The first name of every compound of the offline name table."""
    from scigate.tools.library.chemistry import _NAMES_FILE

    data = json.loads(_NAMES_FILE.read_text(encoding="utf-8"))
    return [row["names"][0] for row in data["compounds"]]


# Which entity kinds each domain's tasks start from; crystals (multi-line CIF text) only
# make single-entity tasks, as an option text would be a whole CIF.
DOMAIN_KINDS: dict[str, list[str]] = {
    "chemistry": ["molecule-name", "molecule-smiles"],
    "biology": ["protein", "dna"],
    "materials": ["formula", "crystal"],
}
SINGLE_ONLY = {"crystal"}
