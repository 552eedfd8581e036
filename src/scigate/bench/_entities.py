"""The bundled entity sets built tasks are about (see data/README.md for sources/licenses)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from pydantic import BaseModel

DATA = Path(__file__).resolve().parent / "data" / "entities.json"


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


@functools.lru_cache(maxsize=1)
def load_entities() -> dict[str, list[Entity]]:
    """Every bundled entity, by kind."""
    from scigate.tools.library.chemistry import common_names

    data = json.loads(DATA.read_text(encoding="utf-8"))
    table = common_names()
    names = [n for n in data["molecules"]["names"] if n.lower() in table]
    return {
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


# Which entity kinds each domain's tasks start from; crystals (multi-line CIF text) only
# make single-entity tasks, as an option text would be a whole CIF.
DOMAIN_KINDS: dict[str, list[str]] = {
    "chemistry": ["molecule-name", "molecule-smiles"],
    "biology": ["protein", "dna"],
    "materials": ["formula", "crystal"],
}
SINGLE_ONLY = {"crystal"}
