"""Entities in questions: recognised, typed and masked; plain words left alone."""

from __future__ import annotations

import pytest

from scigate.tools._entities import find_entities, fitting_types, mask_entities

CIF = """data_Si
_cell_length_a 3.867
_cell_length_b 3.867
_cell_length_c 3.867
loop_
_atom_site_label
_atom_site_fract_x
Si1 0.0 0.0 0.0"""


@pytest.mark.parametrize(
    ("text", "entity", "kind"),
    [
        ("TPSA of CC(=O)Oc1ccccc1C(=O)O?", "CC(=O)Oc1ccccc1C(=O)O", "SMILES"),
        ("weight of CCO.", "CCO", "SMILES"),
        ("is [Na+] charged", "[Na+]", "SMILES"),
        ("key of InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3", "InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3", "InChI"),
        ("resolve LFQSCWFLJHTTHZ-UHFFFAOYSA-N", "LFQSCWFLJHTTHZ-UHFFFAOYSA-N", "InChIKey"),
        ("is 50-00-0 toxic", "50-00-0", "CAS"),
        ("GC content of ATGGCCATTGTAATGGGCCGC", "ATGGCCATTGTAATGGGCCGC", "DNA sequence"),
        ("fold AUGGCCAUUGUAAUGGGC", "AUGGCCAUUGUAAUGGGC", "RNA sequence"),
        ("pI of GIGAVLKVLTTGLPALISWIKRKRQQ", "GIGAVLKVLTTGLPALISWIKRKRQQ", "protein sequence"),
        ("charge of the peptide IKR", "IKR", "protein sequence"),
        ("density of Fe2O3", "Fe2O3", "Molecule Formula"),
        ("lattice energy of NaCl", "NaCl", "Molecule Formula"),
        ("band gap of mp-149", "mp-149", "material_id"),
        ("voltage of mp-1234_Li", "mp-1234_Li", "battery_id"),
        ("entry P69905 in UniProt", "P69905", "UniProtKB accessions"),
        ("chains of 4HHB", "4HHB", "PDB ID"),
        ("the pdb entry 1ubq", "1ubq", "PDB ID"),
        ("decode [C][C][O]", "[C][C][O]", "SELFIES"),
        ("yield of CC(=O)O.OCC>>CC(=O)OCC", "CC(=O)O.OCC>>CC(=O)OCC", "reaction SMILES"),
        ("C1CCC2(C1)CCNCC2 spiro atoms", "C1CCC2(C1)CCNCC2", "SMILES"),
    ],
)
def test_entities_are_recognised(text: str, entity: str, kind: str) -> None:
    found = find_entities(text)
    assert [(e.text, e.type) for e in found] == [(entity, kind)]
    assert text[found[0].start : found[0].end] == entity


@pytest.mark.parametrize(
    "text",
    [
        "What is the SMILES of the InChI, the PDB file and the CIF of a protein?",
        "Is CO or NO a gas at HOMO LUMO energies? DETERMINE it.",
        "In 2020 we ran 1000 jobs at 25 C in 3D; see Fig. 2 and the 2nd table.",
        "Compute the TPSA and the logP of a molecule.",
        "He, I and As are elements; so are Co and Ni.",
    ],
)
def test_plain_words_are_not_entities(text: str) -> None:
    assert find_entities(text) == []
    assert mask_entities(text).text == text


def test_multiline_blocks_are_one_entity_and_the_question_after_survives() -> None:
    masked = mask_entities(f"What is the space group of\n{CIF}\nplease?")
    assert (
        masked.types == ["CIF"]
        and masked.text == "What is the space group of\nCIF structure\nplease?"
    )
    fasta = mask_entities(">sp|P1 test\nMKTAYIAKQR\nQISFVKSHFS\nWhat is its pI?")
    assert fasta.types == ["protein sequence"] and fasta.text.endswith("What is its pI?")
    pdb = mask_entities(
        "ATOM      1  N   GLY A   1      0.0   0.0   0.0  1.00  0.00           N\nHow many residues?"
    )
    assert pdb.types == ["PDB file"] and pdb.text == "PDB file\nHow many residues?"


def test_mask_replaces_each_entity_by_its_type_word() -> None:
    masked = mask_entities("Is CCO more polar than c1ccccc1, and what is the GC of ATGCGTACGTTAGC?")
    assert masked.text == "Is SMILES more polar than SMILES, and what is the GC of DNA sequence?"
    assert masked.types == ["SMILES", "DNA sequence"]


def test_entity_types_fit_the_tool_input_types() -> None:
    assert {"SMILES", "SMILES pair", "SMILES list"} <= fitting_types("SMILES")
    assert "protein sequence" in fitting_types("protein sequence")
    assert "CIF" in fitting_types("CIF") and "SMILES" not in fitting_types("CIF")
