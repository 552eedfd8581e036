"""The bundled entity sets built tasks are about (see data/README.md for sources/licenses)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

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
        "molecule-name": [
            Entity(kind="molecule-name", name=n, value=n, type="molecule name", domain="chemistry")
            for n in names
        ],
        "molecule-smiles": [
            Entity(
                kind="molecule-smiles",
                name=m["name"],
                value=m["smiles"],
                type="SMILES",
                domain="chemistry",
            )
            for m in pools.get("molecules", {}).get("items", [])
        ],
        "protein": [
            Entity(
                kind="protein",
                name=p["name"],
                value=p["sequence"],
                type="protein sequence",
                domain="biology",
            )
            for p in pools.get("proteins", {}).get("items", [])
        ],
        "dna": [
            Entity(
                kind="dna",
                name=d["name"],
                value=d["sequence"],
                type="DNA sequence",
                domain="biology",
            )
            for d in pools.get("dna", {}).get("items", [])
        ],
        "crystal": [
            Entity(kind="crystal", name=c["name"], value=_cif_p1(c), type="CIF", domain="materials")
            for c in pools.get("crystals", {}).get("items", [])
        ],
        "formula": [
            Entity(kind="formula", name=f, value=f, type="Molecule Formula", domain="materials")
            for f in pools.get("formulas", {}).get("items", [])
        ],
    }
    base = {
        "molecule-name": [
            Entity(kind="molecule-name", name=n, value=n, type="molecule name", domain="chemistry")
            for n in names
        ],
        "molecule-smiles": [
            Entity(
                kind="molecule-smiles",
                name=n,
                value=table[n.lower()],
                type="SMILES",
                domain="chemistry",
            )
            for n in names
        ],
        "protein": [
            Entity(
                kind="protein",
                name=p["name"],
                value=p["sequence"],
                type="protein sequence",
                domain="biology",
            )
            for p in data["proteins"]["items"]
        ],
        "dna": [
            Entity(
                kind="dna",
                name=d["name"],
                value=d["sequence"],
                type="DNA sequence",
                domain="biology",
            )
            for d in data["dna"]["items"]
        ],
        "crystal": [
            Entity(kind="crystal", name=c["name"], value=_cif(c), type="CIF", domain="materials")
            for c in data["crystals"]["items"]
        ],
        "formula": [
            Entity(kind="formula", name=f, value=f, type="Molecule Formula", domain="materials")
            for f in data["formulas"]["items"]
        ],
    }
    # the curated sets first (their order is what small builds and tests draw from)
    return {k: _unique(base[k] + found[k]) for k in base}


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
