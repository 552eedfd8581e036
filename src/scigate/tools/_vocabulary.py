"""The controlled vocabulary of tool input and output types.

Every type a tool declares in `inputs`/`outputs` must be a term here (or one of its
aliases; case and spacing do not matter). Names follow the SciToolKG catalogue. A term
has a description, a JSON kind, and, for string types where it makes sense, a validator
plus a known-good example and known-bad examples; the tests feed the bad examples to
every tool that takes the type and expect `{"ok": false, ...}`.

Tool bodies can reuse the validators: `check_value("SMILES", smiles)` raises
`ToolInputError` with a plain message when the value is not a valid SMILES.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from scigate.tools._tool import ToolInputError

Kind = Literal["string", "number", "integer", "boolean", "list", "object"]
Validator = Callable[[str], str | None]  # returns an error message, or None when valid


@dataclass(frozen=True)
class IOType:
    """One term of the vocabulary."""

    name: str
    description: str
    kind: Kind = "string"
    example: Any = None
    bad_examples: tuple[Any, ...] = ()
    aliases: tuple[str, ...] = ()
    validator: Validator | None = field(default=None, compare=False)
    arity: int = 1  # how many consecutive arguments the type spans (2 for a pair)

    def validate(self, value: Any) -> str | None:
        """An error message when `value` is not a valid instance of this type, else None."""
        if self.kind == "string":
            if not isinstance(value, str):
                return f"{self.name} must be a string"
            if not value.strip():
                return f"{self.name} is empty"
            if self.validator is not None:
                return self.validator(value.strip())
        return None


def normalise(name: str) -> str:
    """The lookup key of a type name: lower case, single spaces."""
    return " ".join(name.split()).lower()


# --------------------------------------------------------------------------- validators


def _rdkit_quiet() -> Any:
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")  # type: ignore[attr-defined]  # RDKit's stub lacks DisableLog
    return Chem


@functools.lru_cache(maxsize=4096)  # tasks and plans validate the same entities again and again
def _smiles(value: str) -> str | None:
    try:
        chem = _rdkit_quiet()
    except ImportError:
        return None
    if " " in value or chem.MolFromSmiles(value) is None:
        return f"invalid SMILES {value[:60]!r}"
    return None


def _inchi(value: str) -> str | None:
    if not value.startswith("InChI="):
        return f"invalid InChI {value[:60]!r} (must start with 'InChI=')"
    try:
        chem = _rdkit_quiet()
    except ImportError:
        return None
    if chem.MolFromInchi(value) is None:
        return f"invalid InChI {value[:60]!r}"
    return None


_INCHIKEY = re.compile(r"^[A-Z]{14}-[A-Z]{10}-[A-Z]$")


def _inchikey(value: str) -> str | None:
    return None if _INCHIKEY.match(value) else f"invalid InChIKey {value[:60]!r}"


def _selfies(value: str) -> str | None:
    if not re.fullmatch(r"(\[[^\[\]]+\]|\.)+", value):
        return f"invalid SELFIES {value[:60]!r} (expected bracketed symbols like [C][O])"
    try:
        import selfies
    except ImportError:
        return None
    try:
        selfies.decoder(value)
    except Exception as exc:
        return f"invalid SELFIES {value[:60]!r}: {str(exc).splitlines()[0]}"
    return None


def _letters(alphabet: str, what: str) -> Validator:
    allowed = set(alphabet)

    def check(value: str) -> str | None:
        seq = "".join(value.split()).upper()
        bad = sorted({c for c in seq if c not in allowed})
        if bad:
            return f"invalid {what}: letters {''.join(bad)!r} are not allowed"
        return None

    return check


_ELEMENTS = set(
    [
        "H",
        "He",
        "Li",
        "Be",
        "B",
        "C",
        "N",
        "O",
        "F",
        "Ne",
        "Na",
        "Mg",
        "Al",
        "Si",
        "P",
        "S",
        "Cl",
        "Ar",
        "K",
        "Ca",
        "Sc",
        "Ti",
        "V",
        "Cr",
        "Mn",
        "Fe",
        "Co",
        "Ni",
        "Cu",
        "Zn",
        "Ga",
        "Ge",
        "As",
        "Se",
        "Br",
        "Kr",
        "Rb",
        "Sr",
        "Y",
        "Zr",
        "Nb",
        "Mo",
        "Tc",
        "Ru",
        "Rh",
        "Pd",
        "Ag",
        "Cd",
        "In",
        "Sn",
        "Sb",
        "Te",
        "I",
        "Xe",
        "Cs",
        "Ba",
        "La",
        "Ce",
        "Pr",
        "Nd",
        "Pm",
        "Sm",
        "Eu",
        "Gd",
        "Tb",
        "Dy",
        "Ho",
        "Er",
        "Tm",
        "Yb",
        "Lu",
        "Hf",
        "Ta",
        "W",
        "Re",
        "Os",
        "Ir",
        "Pt",
        "Au",
        "Hg",
        "Tl",
        "Pb",
        "Bi",
        "Po",
        "At",
        "Rn",
        "Fr",
        "Ra",
        "Ac",
        "Th",
        "Pa",
        "U",
        "Np",
        "Pu",
        "Am",
        "Cm",
        "Bk",
        "Cf",
        "Es",
        "Fm",
        "Md",
        "No",
        "Lr",
        "Rf",
        "Db",
        "Sg",
        "Bh",
        "Hs",
        "Mt",
        "Ds",
        "Rg",
        "Cn",
        "Nh",
        "Fl",
        "Mc",
        "Lv",
        "Ts",
        "Og",
        "D",
    ]
)
_FORMULA_TOKEN = re.compile(r"([A-Z][a-z]?)(\d*\.?\d*)|([()\[\]])(\d*)|([·.*+-])")


def _formula(value: str) -> str | None:
    text = value.replace(" ", "")
    pos = 0
    depth = 0
    for m in _FORMULA_TOKEN.finditer(text):
        if m.start() != pos:
            return f"invalid formula {value[:60]!r}: unexpected {text[pos]!r}"
        pos = m.end()
        if m.group(1) and m.group(1) not in _ELEMENTS:
            return f"invalid formula {value[:60]!r}: unknown element {m.group(1)!r}"
        if m.group(3):
            depth += 1 if m.group(3) in "([" else -1
            if depth < 0:
                return f"invalid formula {value[:60]!r}: unbalanced brackets"
    if pos != len(text) or depth != 0 or not re.search(r"[A-Z]", text):
        return f"invalid formula {value[:60]!r}"
    return None


def _cif(value: str) -> str | None:
    if "data_" not in value:
        return "malformed CIF: no data_ block"
    for key in ("_cell_length_a", "_cell_length_b", "_cell_length_c"):
        m = re.search(rf"^\s*{key}\s+([-+0-9.eE]+)(\(\d+\))?\s*$", value, re.M)
        if not m:
            return f"malformed CIF: missing or non-numeric {key}"
    if "_atom_site_" not in value:
        return "malformed CIF: no _atom_site loop"
    return None


def _smarts(value: str) -> str | None:
    try:
        chem = _rdkit_quiet()
    except ImportError:
        return None
    if chem.MolFromSmarts(value) is None:
        return f"invalid SMARTS {value[:60]!r}"
    return None


def _pdb(value: str) -> str | None:
    if not re.search(r"^(ATOM  |HETATM)", value, re.M):
        return "malformed PDB file: no ATOM or HETATM records"
    return None


def _pdb_id(value: str) -> str | None:
    return None if re.fullmatch(r"[0-9][A-Za-z0-9]{3}", value) else f"invalid PDB ID {value!r}"


def _material_id(value: str) -> str | None:
    ok = re.fullmatch(r"(mp|mvc|mol)-\d+", value)
    return None if ok else f"invalid material_id {value[:40]!r} (expected like 'mp-149')"


_BATTERY_ID = re.compile(r"[A-Za-z]+-\d+_([A-Za-z]{1,2})")


def _battery_id(value: str) -> str | None:
    match = _BATTERY_ID.fullmatch(value)
    if match and match.group(1).capitalize() in _ELEMENTS:
        return None
    return (
        f"invalid battery_id {value[:40]!r} (expected a material_id and the working ion, "
        "like 'mp-1234_Li')"
    )


# MPculeIDs are "[prefix-]hash-formula-charge-spin" with 'm' for a minus sign, e.g.
# "9f153b9ce7d5b6f1fd7e8a1a2c6c7b8e-C2H4-0-1"; older IDs look like "mpcule-1234" or
# "libe-1234", and a bare molecule-graph hash is accepted too.
_MPCULE_ID = re.compile(r"([A-Za-z]+-)?[0-9a-f]{6,}-[A-Za-z0-9]+-m?\d+-\d+")
_LEGACY_MOLECULE_ID = re.compile(r"[A-Za-z]+-\d+")
_MOLECULE_HASH = re.compile(r"[0-9a-f]{32}")


def _molecule_id(value: str) -> str | None:
    if any(r.fullmatch(value) for r in (_MPCULE_ID, _LEGACY_MOLECULE_ID, _MOLECULE_HASH)):
        return None
    return (
        f"invalid molecule_id {value[:60]!r} (expected an MPculeID like "
        "'<hash>-C2H4-0-1' (hash-formula-charge-spin) or an ID like 'mpcule-1234')"
    )


_CAS = re.compile(r"(\d{2,7})-(\d{2})-(\d)")


def cas_check_digit_ok(value: str) -> bool:
    """True when `value` is shaped like a CAS registry number and its check digit matches."""
    m = _CAS.fullmatch(value)
    if not m:
        return False
    digits = (m.group(1) + m.group(2))[::-1]
    return sum((i + 1) * int(d) for i, d in enumerate(digits)) % 10 == int(m.group(3))


def _cas(value: str) -> str | None:
    if not _CAS.fullmatch(value):
        return f"invalid CAS number {value[:40]!r}"
    if not cas_check_digit_ok(value):
        return f"invalid CAS number {value!r}: check digit does not match"
    return None


def _uniprot(value: str) -> str | None:
    pattern = r"[OPQ][0-9][A-Z0-9]{3}[0-9]|[A-NR-Z][0-9]([A-Z][A-Z0-9]{2}[0-9]){1,2}"
    return None if re.fullmatch(pattern, value) else f"invalid UniProt accession {value!r}"


def _unit_query(value: str) -> str | None:
    if not re.search(r"\d", value) or (" to " not in f" {value.lower()} " and " in " not in value):
        return f"unit query {value[:60]!r} must look like '10 km to mi'"
    return None


# --------------------------------------------------------------------------- the terms

_SI_CIF = """data_Si
_symmetry_space_group_name_H-M   'P 1'
_cell_length_a   3.867
_cell_length_b   3.867
_cell_length_c   3.867
_cell_angle_alpha   60.0
_cell_angle_beta   60.0
_cell_angle_gamma   60.0
_symmetry_Int_Tables_number   1
loop_
 _symmetry_equiv_pos_site_id
 _symmetry_equiv_pos_as_xyz
  1  'x, y, z'
loop_
 _atom_site_type_symbol
 _atom_site_label
 _atom_site_symmetry_multiplicity
 _atom_site_fract_x
 _atom_site_fract_y
 _atom_site_fract_z
 _atom_site_occupancy
  Si  Si0  1  0.875  0.875  0.875  1
  Si  Si1  1  0.125  0.125  0.125  1
"""

_PDB = """ATOM      1  N   GLY A   1      -0.966   0.493   1.500  1.00  0.00           N
ATOM      2  CA  GLY A   1       0.257   0.418   0.692  1.00  0.00           C
ATOM      3  C   GLY A   1      -0.094   0.017  -0.716  1.00  0.00           C
ATOM      4  O   GLY A   1      -1.056  -0.682  -0.923  1.00  0.00           O
END
"""

_TERMS: list[IOType] = [
    # chemistry identifiers and structures
    IOType(
        "SMILES",
        "A molecule as a SMILES string (Daylight notation), e.g. CCO for ethanol.",
        example="CCO",
        bad_examples=("", "C1CC(", "C(C)(C)(C)(C)C"),
        aliases=("smiles string", "canonical SMILES", "isomeric SMILES"),
        validator=_smiles,
    ),
    IOType(
        "InChI",
        "IUPAC International Chemical Identifier, starting with 'InChI='.",
        example="InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3",
        bad_examples=("", "InChI=1S/garbage", "C2H6O"),
        validator=_inchi,
    ),
    IOType(
        "InChIKey",
        "The 27-character hashed InChI (14-10-1 upper-case letters).",
        example="LFQSCWFLJHTTHZ-UHFFFAOYSA-N",
        bad_examples=("", "LFQSCWFLJHTTHZ", "not-a-key"),
        validator=_inchikey,
    ),
    IOType(
        "SELFIES",
        "A molecule as a SELFIES string of bracketed symbols, e.g. [C][C][O].",
        example="[C][C][O]",
        bad_examples=("", "[C][C][Xyz]", "[C][C"),
        validator=_selfies,
    ),
    IOType(
        "molecule name",
        "A common, trade or IUPAC name of a chemical compound, e.g. ethanol.",
        example="ethanol",
        bad_examples=("", "   "),
        aliases=("compound name", "chemical name", "IUPAC name"),
    ),
    IOType(
        "Molecule Formula",
        "A chemical (Hill or empirical) formula, e.g. C2H6O or Fe2O3.",
        example="C2H6O",
        bad_examples=("", "C2H6Qz", "2+"),
        aliases=("Molecular formula", "Molecule formula", "chemical formula", "formula"),
        validator=_formula,
    ),
    IOType(
        "SMILES list",
        "A list of SMILES strings.",
        kind="list",
        example=["CCO", "c1ccccc1"],
    ),
    IOType(
        "SMILES pair",
        "Two SMILES strings (two arguments), e.g. a molecule and a query or two molecules.",
        example="CCO",
        bad_examples=("", "C1CC("),
        validator=_smiles,
        arity=2,
    ),
    IOType(
        "SMARTS",
        "A substructure query in SMARTS notation, e.g. [OX2H] for a hydroxyl.",
        example="[OX2H]",
        bad_examples=("", "[C", "C1CC("),
        validator=_smarts,
    ),
    IOType(
        "SLN",
        "A molecule in Tripos SYBYL Line Notation, e.g. CH3CH2OH.",
        example="CH3CH2OH",
        bad_examples=("",),
    ),
    IOType(
        "descriptor name",
        "The name of an RDKit descriptor, e.g. MolLogP or TPSA.",
        example="MolLogP",
        bad_examples=("", "NoSuchDescriptor"),
    ),
    IOType("atom index", "A zero-based atom index within a molecule.", kind="integer", example=0),
    IOType(
        "element",
        "A chemical element symbol, e.g. Fe.",
        example="Fe",
        bad_examples=("", "Xx"),
        validator=lambda v: None if v in _ELEMENTS else f"unknown element symbol {v!r}",
    ),
    IOType(
        "CAS",
        "A CAS Registry Number, e.g. 64-17-5 (check digit verified).",
        example="64-17-5",
        bad_examples=("", "64-17-4", "abc"),
        aliases=("CAS number",),
        validator=_cas,
    ),
    IOType(
        "MOL",
        "A molecule as an MDL molfile block.",
        aliases=("Mol block", "molblock"),
    ),
    IOType("SDF", "One or more molecules as an SD file (molfile blocks separated by $$$$)."),
    IOType(
        "Structural model with suffixes mol2 mol sdf pdbqt pdb",
        "A small-molecule structure file as text: Tripos mol2, MDL mol/SDF, or PDB records.",
        aliases=("structure file",),
    ),
    IOType("reaction SMILES", "A reaction as reactants>agents>products SMILES."),
    # numbers and simple values
    IOType("number", "A real number.", kind="number", example=1.0),
    IOType("integer", "A whole number.", kind="integer", example=1),
    IOType("number list", "A list of real numbers.", kind="list", example=[1.0, 2.0, 3.0]),
    IOType(
        "True or False",
        "A yes/no answer.",
        kind="boolean",
        example=True,
        aliases=("boolean",),
    ),
    IOType(
        "molecular weight",
        "Average molecular weight in g/mol.",
        kind="number",
        aliases=(
            "Molecular weight",
            "Molecule weight",
            "Molecular weight (g/mol)",
            "the value of Mw",
            "molar mass",
        ),
    ),
    IOType("exact mass", "Monoisotopic mass in Da.", kind="number"),
    IOType("length", "A length or count of items.", kind="integer"),
    IOType("text", "Free text.", example="hello"),
    IOType("JSON", "A JSON object with named fields.", kind="object", aliases=("Json file",)),
    # biology
    IOType(
        "protein sequence",
        "A protein or peptide sequence in one-letter amino-acid code.",
        example="MKTAYIAKQR",
        bad_examples=("", "MKT1AY", "MKT-AY!"),
        aliases=("Protein sequence", "peptide sequence", "amino acid sequence"),
        validator=_letters("ACDEFGHIKLMNPQRSTVWYBXZUO*", "protein sequence"),
    ),
    IOType(
        "DNA sequence",
        "A DNA sequence (A, C, G, T; N and IUPAC ambiguity codes allowed).",
        example="ATGGCCATTGTAATGGGCCGC",
        bad_examples=("", "ATGXZ", "AUGGCU1"),
        aliases=("DNA Sequence", "nucleotide sequence"),
        validator=_letters("ACGTNRYSWKMBDHV", "DNA sequence"),
    ),
    IOType(
        "RNA sequence",
        "An RNA sequence (A, C, G, U; N allowed).",
        example="AUGGCCAUUGUAAUGGGCCGC",
        bad_examples=("", "AUGTX", "AUG-1"),
        aliases=("RNA Sequence", "mRNA sequence"),
        validator=_letters("ACGUN", "RNA sequence"),
    ),
    IOType(
        "DNA/RNA sequence",
        "A nucleic-acid sequence, DNA or RNA.",
        example="ATGGCC",
        bad_examples=("", "ATGXZ"),
        aliases=("Nucleic acid sequence",),
        validator=_letters("ACGTUNRYSWKMBDHV", "nucleic-acid sequence"),
    ),
    IOType(
        "protein length",
        "Number of residues of a protein.",
        kind="integer",
        aliases=("protein sequence length", "Number of amino acids", "peptide length"),
    ),
    IOType("DNA molecular weight", "Molecular weight of a DNA sequence in g/mol.", kind="number"),
    IOType("GC content", "Fraction or percentage of G and C bases.", kind="number"),
    IOType("Isoelectric point", "The pH at which a protein carries no net charge.", kind="number"),
    IOType("molar extinction coefficient", "Extinction coefficient at 280 nm.", kind="object"),
    IOType(
        "PDB file",
        "A macromolecular structure in PDB format (ATOM/HETATM records).",
        example=_PDB,
        bad_examples=("", "not a pdb file"),
        aliases=("PDB",),
        validator=_pdb,
    ),
    IOType(
        "PDB ID",
        "A four-character Protein Data Bank identifier, e.g. 1CRN.",
        example="1CRN",
        bad_examples=("", "12345", "ABCD"),
        validator=_pdb_id,
    ),
    IOType(
        "UniProtKB accessions",
        "A UniProtKB accession, e.g. P69905.",
        example="P69905",
        bad_examples=("", "not-an-accession"),
        aliases=("UniProtKB ID", "a single UniProt identifier", "UniProt accession"),
        validator=_uniprot,
    ),
    IOType("protein name", "A protein's name, e.g. hemoglobin.", example="hemoglobin"),
    IOType("codon", "A three-letter nucleotide codon.", example="ATG"),
    IOType("Amino Acid", "An amino acid in one- or three-letter code.", example="M"),
    IOType(
        "protein sequence pair",
        "Two protein (or nucleotide) sequences as two arguments.",
        example="MKTAYIAKQR",
        bad_examples=("", "MKT1AY"),
        arity=2,
    ),
    IOType(
        "DNA sequence pair",
        "Two DNA sequences as two arguments.",
        example="ATGGCC",
        bad_examples=("", "ATGXZ"),
        validator=_letters("ACGTNRYSWKMBDHV", "DNA sequence"),
        arity=2,
    ),
    IOType(
        "three-letter protein sequence",
        "A protein sequence in three-letter amino-acid code, e.g. MetLysThr.",
        example="MetLysThr",
        bad_examples=("", "MetXyzLys"),
    ),
    IOType(
        "One or more sequences",
        "One or more DNA primer sequences (comma or space separated).",
        example="ATGGCCATTGTAATGGGCCGC",
        bad_examples=("", "ATGXZ"),
    ),
    IOType(
        "Aligned sequences in FASTA or GCG format",
        "A multiple sequence alignment as FASTA text (equal-length gapped sequences).",
        example=">a\nMKT-AY\n>b\nMKTQAY\n",
        bad_examples=("", "no alignment here"),
    ),
    IOType(
        "PDB ID or PDB name",
        "A PDB identifier or entry name.",
        example="1CRN",
        bad_examples=("",),
    ),
    IOType(
        "pKa source",
        "The pKa table to use for isoelectric points (e.g. EMBOSS, Bjellqvist).",
        example="EMBOSS",
        bad_examples=("NoSuchTable",),  # empty selects the default table
    ),
    IOType(
        "protease",
        "A protease name, e.g. trypsin.",
        example="trypsin",
        bad_examples=("", "NoSuchProtease"),
    ),
    IOType(
        "restriction enzyme",
        "One or more restriction enzyme names, e.g. EcoRI.",
        example="EcoRI",
        bad_examples=("", "NoSuchEnzyme"),
    ),
    IOType(
        "base type",
        "Which nucleic acid a sequence is: DNA, RNA or auto.",
        example="DNA",
        bad_examples=("", "protein"),
    ),
    IOType("window size", "A sliding-window length in residues or bases.", kind="integer"),
    IOType("residue position", "A one-based residue position in a sequence.", kind="integer"),
    IOType("overlapping lenth", "Overlap length between consecutive peptides.", kind="integer"),
    IOType(
        "protein length range",
        "Minimum and maximum lengths (two arguments).",
        kind="integer",
        arity=2,
    ),
    IOType("DNA Sequence length", "The length of a DNA sequence to generate.", kind="integer"),
    # materials
    IOType(
        "CIF",
        "A crystal structure in Crystallographic Information File format.",
        example=_SI_CIF,
        bad_examples=("", "data_broken\n_cell_length_a abc\n", "hello world"),
        aliases=("CIF file", "cif"),
        validator=_cif,
    ),
    IOType(
        "material_id",
        "A Materials Project identifier, e.g. mp-149.",
        example="mp-149",
        bad_examples=("", "149", "mp-"),
        aliases=("material id", "Materials Project id"),
        validator=_material_id,
    ),
    IOType(
        "chemical system",
        "A dash-separated set of elements, e.g. Li-Fe-O.",
        example="Li-Fe-O",
        aliases=("chemsys",),
    ),
    IOType(
        "elements",
        "Chemical element symbols: a list, or a comma-separated string like 'Fe,O'.",
        example="Fe,O",
    ),
    IOType("density", "Mass density in g/cm^3.", kind="number"),
    IOType("volume", "Volume in cubic angstrom.", kind="number"),
    IOType("band gap", "Electronic band gap in eV.", kind="number"),
    IOType(
        "band gap range",
        "A band-gap interval in eV as 'MIN,MAX', e.g. '1.0,2.5'.",
        example="1.0,2.5",
        bad_examples=("", "wide"),
    ),
    IOType(
        "property name",
        "The name of a Materials Project property field.",
        example="band_gap",
        bad_examples=("",),
    ),
    IOType(
        "material structure",
        "A crystal structure as a pymatgen Structure dictionary.",
        kind="object",
        aliases=("lattice structure", "initial structure"),
    ),
    IOType(
        "reduced formula",
        "The reduced chemical formula of a composition, e.g. Fe2O3.",
        aliases=("pretty formula",),
    ),
    IOType("anonymous formula", "A formula with elements replaced by letters, e.g. A2B3."),
    IOType(
        "elemental composition",
        "Element amounts or fractions of a composition.",
        kind="object",
    ),
    IOType(
        "scaling",
        "A supercell scaling: one integer or three comma-separated integers, e.g. 2,2,1.",
        example="2,2,1",
        bad_examples=("", "a,b,c"),
    ),
    IOType("site index", "A zero-based site index in a crystal structure.", kind="integer"),
    IOType(
        "space group",
        "A space-group symbol or international number, e.g. Fm-3m or 225.",
        example="Fm-3m",
        bad_examples=("", "not a space group"),
    ),
    IOType("number of elements", "How many distinct elements a material contains.", kind="integer"),
    IOType(
        "battery_id",
        "A Materials Project insertion-electrode ID: a material_id and the working ion, "
        "e.g. mp-1234_Li.",
        example="mp-1234_Li",
        bad_examples=("", "mp-1234", "mp-1234_Xx", "Li"),
        aliases=("battery id",),
        validator=_battery_id,
    ),
    IOType(
        "molecule_id",
        "A Materials Project molecule ID (MPculeID hash-formula-charge-spin, or mpcule-N).",
        example="9f153b9ce7d5b6f1fd7e8a1a2c6c7b8e-C2H4-0-1",
        bad_examples=("", "C2H4", "mpcule-", "not a molecule id"),
        aliases=("molecule id", "MPculeID"),
        validator=_molecule_id,
    ),
    # general
    IOType("question", "A natural-language question.", example="What is the boiling point?"),
    IOType("answer", "A natural-language answer."),
    IOType(
        "Query",
        "A unit-conversion query: a value, a unit and a target unit, e.g. '10 km to mi'.",
        example="10 km to mi",
        bad_examples=("", "ten apples to pears", "10 km"),
        validator=_unit_query,
    ),
    IOType("Unit conversion results", "A converted value with its unit.", kind="object"),
    IOType(
        "paper keywords",
        "Keywords to search scientific papers for.",
        example="graph neural network",
        bad_examples=("", "  "),
        aliases=("keywords",),
    ),
    IOType("related papers", "A list of papers: title, authors, abstract, links.", kind="list"),
    IOType(
        "math expression",
        "An arithmetic expression with numbers, + - * / ** %, parentheses and math functions.",
        example="2 * (3 + 4)",
        bad_examples=("", "2 +", "__import__('os')"),
        aliases=("expression",),
    ),
    IOType("statistics", "Summary statistics of a list of numbers.", kind="object"),
    IOType(
        "constant name",
        "The CODATA name of a physical constant, e.g. 'Boltzmann constant'.",
        example="Boltzmann constant",
        bad_examples=("", "not a constant at all"),
    ),
    IOType("physical constant", "A constant's value, unit and uncertainty.", kind="object"),
    IOType("unit", "A unit symbol, e.g. kJ/mol.", example="kJ/mol"),
    IOType("Temperature", "A temperature in kelvin.", kind="number", example=298.15),
    # finite elements
    IOType(
        "element family",
        "A finite-element family name known to Basix, e.g. P (Lagrange), N1curl, RT.",
        example="P",
        bad_examples=("", "NotAnElement"),
    ),
    IOType(
        "cell type",
        "A reference cell: interval, triangle, quadrilateral, tetrahedron, hexahedron...",
        example="triangle",
        bad_examples=("", "circle"),
    ),
    IOType("polynomial degree", "The polynomial degree of an element.", kind="integer", example=1),
    IOType("quadrature degree", "The degree a quadrature rule integrates exactly.", kind="integer"),
    IOType("mesh resolution", "Number of cells along each side of a unit mesh.", kind="integer"),
    IOType("quadrature rule", "Quadrature points and weights.", kind="object"),
    IOType("basis values", "Tabulated basis-function values at points.", kind="object"),
    IOType("element dimension", "The number of degrees of freedom of an element.", kind="integer"),
    IOType("mesh statistics", "Counts of cells, vertices and dofs of a mesh.", kind="object"),
    IOType("points", "A list of points, each a list of coordinates.", kind="list"),
]


_RESULT_TABLE = """
# Result types: what tools report. kind | name | description ("" = derived from the name)
integer|Number of atoms|
integer|Number of heavy atoms|
integer|Number of heteroatoms|
integer|Number of rings|
integer|Number of aromatic rings|
integer|Number of aliphatic rings|
integer|Number of saturated rings|
integer|Number of aromatic carbocycles|
integer|Number of aromatic heterocycles|
integer|Number of aliphatic carbocycles|
integer|Number of aliphatic heterocycles|
integer|Number of saturated carbocycles|
integer|Number of saturated heterocycles|
integer|Number of heterocycles|
integer|Number of rotatable bonds|
integer|Number of amide bonds|
integer|Number of bridgehead atoms|
integer|Number of spiro atoms|
integer|Number of atom stereo centers|
integer|Number of unspecified atom stereo centers|
integer|Number of hydrogen bond acceptors|
integer|Number of hydrogen bond donors|
integer|Number of Lipinski H-bond acceptors(HBA)|
integer|Number of Lipinski H-bond donors(HBD)|
integer|Number of bonds|
integer|Total atom count|Total number of atoms in a structure file.
integer|number of neighbors|Number of neighbours of an atom.
integer|number of pi electrons|Number of pi electrons of an atom.
number|Chi-zero Cluster Index|Kier-Hall chi0n connectivity index.
number|Chi-one Cluster Index|Kier-Hall chi1n connectivity index.
number|Chi-two Cluster Index|Kier-Hall chi2n *path* connectivity index (SciToolKG calls it a cluster index; RDKit computes the path index).
number|Chi-three Cluster Index|Kier-Hall chi3n *path* connectivity index (SciToolKG calls it a cluster index; RDKit computes the path index).
number|Chi-four Cluster Index|Kier-Hall chi4n *path* connectivity index (SciToolKG calls it a cluster index; RDKit computes the path index).
number|Chi-zero-v valence molecular graph index|Kier-Hall chi0v valence connectivity index.
number|Chi-one-v valence molecular graph index|Kier-Hall chi1v valence connectivity index.
number|Chi-two-v valence molecular graph index|Kier-Hall chi2v valence connectivity index.
number|Chi-three-v Cluster Index|Kier-Hall chi3v *path* connectivity index (SciToolKG calls it a cluster index; RDKit computes the path index).
number|Chi-four-v Cluster Index|Kier-Hall chi4v *path* connectivity index (SciToolKG calls it a cluster index; RDKit computes the path index).
number|Kappa1|Kier kappa-1 shape index.
number|Kappa2|Kier kappa-2 shape index.
number|Kappa3|Kier kappa-3 shape index.
number|Hall-Kier alpha index|Hall-Kier alpha value of a molecule.
number|Labute ASA|Labute approximate surface area.
number|TPSA (Topological Polar Surface Area) descriptor|Topological polar surface area in square angstrom.
number|Fraction of sp3-hybridized Carbon Atoms|Fraction of sp3 carbons (Fsp3).
number|the FSP3 value|Fraction of sp3 carbons (Fsp3).
number|Phi angle|Kier flexibility index Phi = kappa1 * kappa2 / heavy atoms (SciToolKG's name; not an angle).
object|custom property|VSA descriptors: surface area binned by an atomic property.
object|explosive information|Explosive groups, oxygen balance and the UN screening verdict.
object|safety information|Structure-based hazard screen: explosive groups and structural alerts.
list|the USRCAT scores|USRCAT shape descriptors (60 numbers) per molecule.
list|Tanimoto coefficients for pairs of molecules|Tanimoto similarity per pair of molecules.
list|3D Coordinates|Element and x, y, z (angstrom) of every atom.
string|CSV file|Comma-separated values as text, header row first.
list|x y and z coordinates of the molecular center|Geometric centre (x, y, z) of each molecule.
list|the indices of atoms forming each rotatable dihedral in the molecule|Four atom indices per rotatable dihedral, per molecule.
number|QED value|Quantitative estimate of drug-likeness.
number|Asphericity|Asphericity of a 3D conformer.
number|Inertial Shape Factor|Inertial shape factor of a 3D conformer.
number|eccentricity value|Eccentricity of a 3D conformer.
number|sphericity index|Spherocity index of a 3D conformer.
number|radius of gyration|Radius of gyration of a 3D structure.
number|PBF|Plane of best fit descriptor of a 3D conformer.
number|PMI1|First principal moment of inertia.
number|PMI2|Second principal moment of inertia.
number|PMI3|Third principal moment of inertia.
number|NPR1 value|First normalised principal-moments ratio.
number|NPR2 value|Second normalised principal-moments ratio.
number|the NPR1 value|First normalised principal-moments ratio.
number|the NPR2 value|Second normalised principal-moments ratio.
list|2D Autocorrelation descriptors|RDKit 2D autocorrelation descriptor vector.
list|3D Autocorrelation Descriptors|RDKit 3D autocorrelation descriptor vector.
list|BCUT2D|BCUT2D eigenvalue descriptors.
list|GETAWAY Descriptors|GETAWAY 3D descriptor vector.
list|MORSE Descriptor list|3D-MoRSE descriptor vector.
list|RDF descriptor|Radial distribution function descriptor vector.
list|WHIM (Weighted Holistic Invariant Molecular) descriptor|WHIM 3D descriptor vector.
list|USR (Ultrafast Shape Recognition)|USR shape descriptor vector.
list|USRCAT (Ultrafast Shape Recognition with Coordinate Asymmetric Torsions)|USRCAT shape descriptor vector.
number|USRCAT similarity scores of molecule pairs|USRCAT shape similarity of two molecules.
list|Coulomb matrix|Coulomb matrix of a 3D conformer.
list|EEM Charges|Electronegativity-equalisation partial charges per atom.
object|Wildman-Crippen logp value and mr value|Crippen logP and molar refractivity.
list|the EState indices|E-state index of each atom.
list|the EState VSA indices|EState-VSA descriptor bins.
list|the EState types of atoms|E-state atom types.
list|the EState fingerprint|E-state fingerprint counts and sums.
list|the Patty types of each atom in the molecule.|Patty atom types.
list|hybridization of each atom|Hybridisation of each atom.
list|formal charge|Formal charges (of a molecule or each atom).
list|atom features|Per-atom features.
list|connectivity invariants|Morgan connectivity invariants per atom.
list|feature invariants|Morgan feature invariants per atom.
list|atom code (hash) for each atom|Atom-pair atom codes.
string|atom's element|Element symbol of an atom.
list|adjacency matrix|Atom adjacency matrix.
list|distance matrix|Topological distance matrix.
list|the distance matrix|Topological distance matrix.
number|Distance between first two atoms (Å)|Distance between two atoms in angstrom.
list|Center of mass coordinates|Centre of mass (x, y, z).
list|Average coordinates|Mean atomic coordinates (x, y, z).
list|Morgan fingerprint|Morgan (circular) fingerprint.
list|RDKit fingerprint|RDKit topological fingerprint.
list|Avalon fingerprint|Avalon fingerprint.
list|Atom Pair Fingerprint|Atom-pair fingerprint.
list|the bit vector fingerprint|Fingerprint as a bit vector.
list|topological torsion fingerprint|Topological-torsion fingerprint.
list|Torsions Fingerprint|Topological-torsion fingerprint.
list|Pharm2D fingerprint|2D pharmacophore fingerprint.
list|Molecular ACCess System keys fingerprint|MACCS keys fingerprint.
list|BitVector|Pattern fingerprint bit vector.
list|MHFP|MinHash fingerprint (MHFP6).
list|SECFP|SMILES extended connectivity fingerprint.
list|Shingling|Molecular shingling used by MHFP.
list|fingerprint|A molecular fingerprint (bit or count vector).
object|fingerprint details|Fingerprint with bit count and folding details.
list|fingerprints|Fingerprints of several molecules.
list|fingerprints list|Fingerprints of several molecules.
number|similarity score|A similarity between two molecules, 0 to 1.
number|the score of Tanimoto similarity|Tanimoto similarity of two molecules.
number|the score of Dice similarity|Dice similarity of two molecules.
number|Fraggle similarity|Fraggle similarity of two molecules.
list|Fraggle fragmentations|Fraggle fragmentations of a molecule.
list|Matches list|Atom indices of substructure matches.
list|Atoms|Atom indices.
list|Bonds|Bond indices.
string|SMILES or Bond types|A SMILES string or bond types.
object|Lipinski rule-of-five result|Lipinski rule-of-five properties and violations.
string|a confirmation message if the molecule has a valid and consistent structure|Result of a structure consistency check.
list|functional groups|Functional groups found in a molecule.
list|molecule fragments|Disconnected fragments of a molecule.
list|ring systems|Ring systems of a molecule.
list|clustering results|Cluster assignments of molecules.
string|molecular key|A molecular key string.
string|stereo code|A stereo code string.
list|individual tokens|Tokens of a SELFIES string.
object|oxidation numbers|Oxidation number of each atom.
string|Hill formula|A chemical formula in Hill order.
string|CID|A PubChem compound identifier.
object|molecular properties|Computed properties of a compound.
object|Amino acid frequencies|Frequency of each amino acid.
number|Annealing temperature|Primer melting/annealing temperature in degrees C.
object|Comparison results|Alignment or comparison of two sequences.
list|CpG island|CpG island regions.
object|Hydropathy index and estimated isoelectric point (pI)|Hydropathy (GRAVY) and estimated pI.
number|Nucleic acid sequence GC content|GC content of a nucleic-acid sequence.
list|Open Reading Frame|Open reading frames found.
list|Palindrome sequence|Palindromic subsequences found.
list|Peptide library(sequece length hydrophobicity)|Designed peptides with length and hydrophobicity.
number|RNA molecular weight|Molecular weight of an RNA sequence in g/mol.
string|Reverse complement sequence|The reverse complement of a DNA sequence.
list|Simplified amino acid abbreviation|Degenerate codons for an amino acid.
list|The number and position of loci|Cleavage-site counts and positions.
list|possible cleavage sites|Possible cleavage sites in a peptide.
object|the hydrolysis results of peptide substrates (cleavage site and products)|Protease digestion sites and products.
list|the masses of peptides|Masses of peptides.
number|the value of Pi|Isoelectric point of a protein.
object|protein properties|ProtParam properties of a protein.
list|protein profile|ProtScale profile of a protein.
list|repeat segment|Repeated segments in a sequence.
object|codon usage|Codon counts of a coding sequence.
object|nucleotide counts|Counts of each nucleotide.
list|fragment lengths|Fragment lengths of a restriction digest.
list|orthologs|Orthologous proteins.
object|BLAST query results|Hits of a BLAST search.
object|structure information|Summary of a structure.
object|symmetry information|Space group and crystal symmetry.
string|crystal system|Crystal system, e.g. cubic.
string|POSCAR|A crystal structure in VASP POSCAR format.
list|XRD peaks|Powder X-ray diffraction peaks (2-theta and intensity).
number|average electronegativity|Mean Pauling electronegativity of a composition.
object|element fractions|Atomic fraction of each element.
object|weight fractions|Mass fraction of each element.
object|element properties|Properties of a chemical element.
number|nearest neighbor distance|Shortest interatomic distance in angstrom.
list|coordination numbers|Coordination number of each site.
object|conventional cell|The conventional standard cell.
object|primitive cell|The primitive cell.
object|oxidation states|Oxidation state of each element or site.
list|fractional coordinates|Fractional coordinates of sites.
list|neighbor indices|Indices of neighbouring sites.
list|Bond info|Bonds with their atoms, types and orders.
number|Bond length|A bond length in angstrom.
list|Bond types|Bond types of a molecule.
number|Conduction Band Minimum|Conduction band minimum in eV.
number|Valence Band Maximum|Valence band maximum in eV.
object|anonymous coordination environments|Anonymised coordination environments of a material.
object|coordination environments|Coordination environments of a material's sites.
number|atomic density|Atoms per cubic angstrom.
list|atomic positions|Cartesian or fractional site positions.
list|authors|Authors of a record.
object|average oxidation states|Average oxidation state of each element.
object|crystal structure|A crystal structure (lattice and sites).
string|created time|When a record was created.
list|deprecation reasons|Why a Materials Project record was deprecated.
object|dielectric informatiom|Dielectric properties of a material.
number|electronnic energy|Electronic energy contribution in eV.
number|energy above hull|Energy above the convex hull in eV/atom.
number|energy per atom|Energy per atom in eV.
number|equilibrium reaction energy per atom|Equilibrium reaction energy in eV/atom.
number|fermi energy|Fermi energy in eV.
number|formation energy per atom|Formation energy in eV/atom.
number|ionic energy|Ionic energy contribution in eV.
number|total energy|Total energy in eV.
number|uncorrected energy per atom of a material|Uncorrected energy in eV/atom.
object|magnetism information|Magnetic ordering and moments.
number|total magnetization|Total magnetisation in Bohr magnetons.
number|total magnetization normalized to formula units|Magnetisation per formula unit.
number|total magnetization normalized to volume|Magnetisation per cubic angstrom.
integer|number of magnetic sites|How many magnetic sites a structure has.
integer|number of sites|How many sites a structure has.
object|material composition summary|Composition summary of a material.
string|material description|A text description of a material.
list|origins|Calculations a Materials Project property came from.
string|oxidation state method|How oxidation states were assigned.
object|physical properties|Physical properties of a material.
list|possible species|Possible ionic species.
object|possible valences|Possible valence of each site.
list|references|Literature references.
list|remarks|Remarks on a record.
string|space group symbol|Hermann-Mauguin space-group symbol.
object|structure graph|Bonding graph of a structure.
number|surface anisotropy|Surface energy anisotropy.
number|weighted surface energy|Area-weighted surface energy in J/m^2.
object|symmetry|Symmetry data of a material.
list|XAS data|X-ray absorption spectra: absorbing element, edge, type and material.
string|battery formula|Formula of an insertion electrode (working ion range and framework).
string|working ion|The ion inserted into an electrode, e.g. Li.
number|maximum voltage step|Largest voltage jump between steps of an electrode in V.
object|framework of battery material|Composition of the electrode framework without the working ion.
string|framework formula|Reduced formula of the electrode framework.
list|warnings|Warnings attached to a Materials Project record.
string|charge formula|Formula of the charged (ion-poor) electrode.
string|discharge formula|Formula of the discharged (ion-rich) electrode.
number|energy volume|Volumetric energy density of an electrode in Wh/L.
number|maximum delta volume|Largest volume change between electrode states as a fraction.
number|average voltage|Average voltage of an electrode in V.
number|gravimetric capacity|Gravimetric capacity of an electrode in mAh/g.
number|volumetric capacity|Volumetric capacity of an electrode in mAh/cm^3.
number|gravimetric energy|Gravimetric energy density of an electrode in Wh/kg.
number|charge fraction of A|Atomic fraction of the working ion in the charged electrode.
number|charge stability|Energy above hull of the charged electrode in eV/atom.
number|discharge stability|Energy above hull of the discharged electrode in eV/atom.
string|charge id|material_id of the charged electrode.
string|discharge id|material_id of the discharged electrode.
object|host structure|Host (framework) structure of an electrode as a pymatgen dictionary.
list|adj pairs|Adjacent voltage-step pairs of an insertion electrode.
object|electrode object|A pymatgen InsertionElectrode as a dictionary.
integer|charge|Total charge of a molecule in elementary charges.
integer|spin multiplicity|Spin multiplicity 2S+1 of a molecule.
integer|number of electrons|Number of electrons of a molecule.
object|composition|Element amounts of a molecule or material.
string|alphabetical formula|Formula with elements in alphabetical order, e.g. C2 H4.
string|property id|Identifier of a Materials Project property document.
boolean|Deprecated Status|Whether a Materials Project record is deprecated.
string|level of theory|Functional and basis set of a calculation, e.g. wB97X-V/def2-TZVPPD/SMD.
string|solvent|The (implicit) solvent of a calculation.
string|solvent lot|Level of theory and solvent of a calculation together.
string|last updated time|When a record was last updated.
object|Molecule Levels of Theory|Level of theory of each calculation of a molecule.
string|Species Hash|Weisfeiler-Lehman graph hash of a molecule with its species.
string|Coord Hash|Hash of a molecule's coordinates.
list|Unique Calculation Types|Distinct calculation types run for a molecule.
list|Unique Task Types|Distinct task types run for a molecule.
list|Unique Levels of Theory|Distinct levels of theory used for a molecule.
list|Unique Solvents|Distinct solvents used for a molecule.
list|Unique Lot Solvents|Distinct level-of-theory and solvent combinations used for a molecule.
list|Thermo Property IDs|Property IDs of a molecule's thermochemistry documents.
list|Thermo Levels of Theory|Levels of theory of a molecule's thermochemistry documents.
number|zero point energy|Zero-point vibrational energy in eV.
number|total enthalpy|Total enthalpy in eV.
number|total entropy|Total entropy in eV/K.
number|translational enthalpy|Translational enthalpy in eV.
number|translational entropy|Translational entropy in eV/K.
number|rotational enthalpy|Rotational enthalpy in eV.
number|rotational entropy|Rotational entropy in eV/K.
number|vibrational enthalpy|Vibrational enthalpy in eV.
number|vibrational entropy|Vibrational entropy in eV/K.
number|free energy|Gibbs free energy at 298.15 K in eV.
list|vibration property ids|Property IDs of a molecule's vibration documents.
list|vibration levels of theory|Levels of theory of a molecule's vibration documents.
list|frequencies|Vibrational frequencies in cm^-1.
list|frequency modes|Normal-mode displacement vectors of each frequency.
list|ir intensities|Infrared intensities of each vibrational mode.
list|ir activities|Whether each vibrational mode is infrared active.
list|orbitals property ids|Property IDs of a molecule's orbital (NBO) documents.
list|orbitals levels of theory|Levels of theory of a molecule's orbital (NBO) documents.
boolean|open shell|Whether a molecule is open-shell (unpaired electrons).
list|Natural Bond Orbital(nbo) population|NBO natural population of each atom.
"""


def _result_terms() -> list[IOType]:
    terms = []
    for line in _RESULT_TABLE.strip().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        kind, name, description = line.split("|", 2)
        text = description.strip() or f"{name.strip()} of a molecule."
        terms.append(IOType(name.strip(), text, kind=kind.strip()))  # type: ignore[arg-type]
    return terms


_TERMS += _result_terms()


class Vocabulary:
    """Look-up of terms by name or alias (case and spacing ignored)."""

    def __init__(self, terms: list[IOType]):
        self._terms: dict[str, IOType] = {}
        self._index: dict[str, IOType] = {}
        # name -> canonical spelling: plan building asks millions of times (a 200-task
        # bench build: 2.1M calls, 8.9 s of normalising the same few hundred names)
        self._canonical: dict[str, str] = {}
        for term in terms:
            self.add(term)

    def add(self, term: IOType) -> None:
        """Add a term; its name and aliases must not clash with existing ones."""
        for key in (term.name, *term.aliases):
            k = normalise(key)
            if k in self._index and self._index[k] is not term:
                raise ValueError(f"vocabulary term {key!r} is defined twice")
            self._index[k] = term
        self._terms[term.name] = term
        self._canonical.clear()

    def get(self, name: str) -> IOType | None:
        """The term for `name` or an alias of it, or None."""
        return self._index.get(normalise(name))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and normalise(name) in self._index

    def __iter__(self) -> Iterator[IOType]:
        return iter(self._terms.values())

    def __len__(self) -> int:
        return len(self._terms)

    def canonical(self, name: str) -> str:
        """The canonical spelling of a type name; unknown names come back normalised."""
        known = self._canonical.get(name)
        if known is None:
            term = self.get(name)
            known = term.name if term else " ".join(name.split())
            if len(self._canonical) >= 10_000:  # names from input too: stay bounded
                self._canonical.clear()
            self._canonical[name] = known
        return known


VOCABULARY = Vocabulary(_TERMS)


def canonical_type(name: str) -> str:
    """Canonical name of an I/O type ('Protein sequence' -> 'protein sequence')."""
    return VOCABULARY.canonical(name)


def check_value(type_name: str, value: Any) -> Any:
    """Validate `value` as an instance of `type_name`; raise `ToolInputError` if it is not.

    Returns the value (stripped, for strings) so tool bodies can write
    ``smiles = check_value("SMILES", smiles)``.
    """
    term = VOCABULARY.get(type_name)
    if term is None:
        raise KeyError(f"unknown vocabulary type {type_name!r}")
    problem = term.validate(value)
    if problem:
        raise ToolInputError(problem)
    return value.strip() if isinstance(value, str) else value


def unknown_types(types: list[str]) -> list[str]:
    """The names in `types` that are not vocabulary terms."""
    return [t for t in types if t not in VOCABULARY]


def parameter_types(t: Any) -> dict[str, str]:
    """Which declared input type each parameter of tool `t` carries.

    Inputs map onto parameters in order; a type with arity 2 (a pair or range) spans two
    parameters. Parameters beyond the declared inputs (options) are left out.
    """
    names = list(t.parameter_names)
    mapping: dict[str, str] = {}
    position = 0
    for type_name in t.spec.inputs:
        term = VOCABULARY.get(type_name)
        for _ in range(term.arity if term else 1):
            if position >= len(names):
                return mapping
            mapping[names[position]] = type_name
            position += 1
    return mapping


def example_arguments(t: Any) -> dict[str, Any] | None:
    """Valid-looking arguments for `t`: its first example's input, else vocabulary examples
    for its required parameters (None when some required parameter has no example)."""
    if t.spec.examples:
        return dict(t.spec.examples[0].input)
    types = parameter_types(t)
    args: dict[str, Any] = {}
    for name in t.required_parameters:
        term = VOCABULARY.get(types.get(name, ""))
        if term is None or term.example is None:
            return None
        args[name] = term.example
    return args


# --------------------------------------------------------------------------- phrases

# How a question names what a tool computes: the reviewed phrase a domain scientist uses for
# exactly that quantity, with its unit and, where alternatives exist, its convention (pKa
# scale, mass table, 5' end, reading frame, hydrogen counting, ring perception, aromaticity
# model). Built benchmark tasks use only tools listed here (scigate.bench._catalog), and
# their questions are worded only from these phrases. A tool missing here is not used.
# Checked against the computed values: Biopython's DNA/RNA masses sum nucleoside
# *monophosphates* and subtract one water per bond, i.e. a 5' phosphate (ATGC: 1253.80 g/mol;
# a 5'-OH strand would be 1173.83); RDKit's Chi3n/Chi3v are 0 for isobutane and neopentane
# (no 3-path, only 3-clusters), so they are *path* indices; RDKit's ChiNn use the valence
# delta Zv - h (ethanol chi1n 1.023, not the simple 1.414); Kappa1-3 are alpha-modified
# (benzene kappa1 3.41, unmodified 4.17); CalcNumAtoms counts implicit hydrogens (CCO: 9).
TOOL_PHRASES: dict[str, str] = {
    # chemistry: masses and formulas
    "SMILESToWeight": "average molecular weight (g/mol, standard atomic weights)",
    "GetExactMolceularWeight": "monoisotopic mass (Da, most abundant isotope of each element)",
    "GetMolFormula": "molecular formula (Hill order, hydrogens included)",
    "SMILESToInChIKey": "standard InChIKey",
    "GetStereoCodeFromSmiles": "MolKey stereo code (S_ABS, S_ACHIR, S_UNKN, ...)",
    "GetFormalCharge": "net formal charge (sum of the atoms' formal charges, e)",
    # chemistry: atom and bond counts (hydrogen counting stated)
    "GetAtomsNum": "total number of atoms (hydrogens included)",
    "GetHeavyAtomsNum": "number of heavy (non-hydrogen) atoms",
    "GetHeteroatomsNum": "number of heteroatoms (atoms other than C and H)",
    "GetHBANum": "number of hydrogen-bond acceptors (RDKit NumHAcceptors definition)",
    "GetHBDNum": "number of hydrogen-bond donors (RDKit NumHDonors definition)",
    "GetLipinskiHBANum": "Lipinski acceptor count (number of N and O atoms)",
    "GetLipinskiHBDNum": "Lipinski donor count (number of N-H and O-H hydrogens)",
    "GetRotatableBondsNum": "number of rotatable bonds (RDKit strict definition)",
    "GetAmideBondsNum": "number of amide bonds",
    "GetBridgeheadAtomsNum": "number of bridgehead atoms",
    "GetSpiroAtomsNum": "number of spiro atoms",
    "GetAtomStereoCentersNum": "number of tetrahedral stereocentres (assigned or not)",
    "GetUnspecifiedAtomStereoCentersNum": "number of tetrahedral stereocentres left unassigned",
    # chemistry: rings (SSSR ring perception, RDKit aromaticity model)
    "GetRingsNum": "number of rings (smallest set of smallest rings)",
    "GetAromaticRingsNum": "number of aromatic rings (RDKit aromaticity model)",
    "GetAromaticCarbocyclesNum": "number of aromatic carbocycles (RDKit aromaticity model)",
    "GetAromaticHeterocyclesNum": "number of aromatic heterocycles (RDKit aromaticity model)",
    "GetAliphaticRingsNum": "number of aliphatic (non-aromatic) rings (RDKit aromaticity model)",
    "GetAliphaticCarbocyclesNum": "number of aliphatic (non-aromatic) carbocycles",
    "GetAliphaticHeterocyclesNum": "number of aliphatic (non-aromatic) heterocycles",
    "GetSaturatedRingsNum": "number of saturated rings",
    "GetSaturatedCarbocyclesNum": "number of saturated carbocycles",
    "GetSaturatedHeterocyclesNum": "number of saturated heterocycles",
    "GetHeterocyclesNum": "number of heterocycles (rings with at least one heteroatom)",
    # chemistry: topological indices (Kier-Hall, as RDKit computes them)
    "GetChi0n": "chi-0 connectivity index (χ0n, atom deltas Zv - h)",
    "GetChi1n": "chi-1 connectivity index (χ1n, atom deltas Zv - h)",
    "GetChi2n": "chi-2 path connectivity index (χ2n, atom deltas Zv - h)",
    "GetChi3n": "chi-3 path connectivity index (χ3n, atom deltas Zv - h)",
    "GetChi4n": "chi-4 path connectivity index (χ4n, atom deltas Zv - h)",
    "GetChi0v": "chi-0 connectivity index (valence, χ0v)",
    "GetChi1v": "chi-1 connectivity index (valence, χ1v)",
    "GetChi2v": "chi-2 path connectivity index (valence, χ2v)",
    "GetChi3v": "chi-3 path connectivity index (valence, χ3v)",
    "GetChi4v": "chi-4 path connectivity index (valence, χ4v)",
    "GetKappa1": "Kier kappa-1 shape index (alpha-modified, κ1)",
    "GetKappa2": "Kier kappa-2 shape index (alpha-modified, κ2)",
    "GetKappa3": "Kier kappa-3 shape index (alpha-modified, κ3)",
    "CalculatePhi": "Kier flexibility index (Φ = κ1·κ2 / heavy atoms)",
    "GetHallKierAlpha": "Hall-Kier alpha shape correction",
    # chemistry: surface areas and scores
    "GetLabuteASA": "Labute approximate surface area (Å²)",
    "CalculateTPSA": "topological polar surface area (Ertl, N and O contributions only, Å²)",
    "CalculateFsp3": "fraction of sp3-hybridised carbons (Fsp3)",
    "CalculateQED": "quantitative estimate of drug-likeness (QED, Bickerton weights)",
    # chemistry: converters
    "NameToSMILES": "SMILES",
    # biology
    "ProteinIsoelectricPointCalculator": (
        "isoelectric point (Bjellqvist pKa scale, as ExPASy / Biopython ProtParam)"
    ),
    "CalculateSingleLinearDNAMolecularWeight": (
        "mass as single-stranded linear DNA assuming a 5' phosphate (average masses, g/mol)"
    ),
    "CalculateDoubleLinearDNAMolecularWeight": (
        "mass as double-stranded linear DNA with a 5' phosphate on each strand "
        "(average masses, g/mol)"
    ),
    "CalculateSingleCircleDNAMolecularWeight": (
        "mass as single-stranded circular DNA (average masses, g/mol)"
    ),
    "CalculateDoubleCircleDNAMolecularWeight": (
        "mass as double-stranded circular DNA (average masses, g/mol)"
    ),
    "CalculateRNAMolecularWeight": (
        "mass as single-stranded linear RNA assuming a 5' monophosphate (average masses, g/mol)"
    ),
    "GetReverseComplement": "reverse complement (written 5' to 3')",
    "TranscribeDNAtoRNA": "RNA transcript (the sequence read as the coding strand, T to U)",
    "BackTranscribeRNAtoDNA": "coding-strand DNA (U to T)",
    "TranslateDNAtoAminoAcidSequence": (
        "frame-1 translation as written (standard genetic code, to the first stop codon)"
    ),
    "ConvertingPeptide2SMILES": "SMILES of the linear L-peptide with free termini",
    # materials (pymatgen)
    "CalculateDensity": "crystal density of the given cell (g/cm³)",
    "GetCrystalSystemFromCIF": "crystal system (from its space group)",
    "CountAtomsInFormula": "number of atoms per formula unit",
    "CountElementsInFormula": "number of distinct elements",
    "GetAverageElectronegativity": "atom-averaged Pauling electronegativity",
    "GetMolarMassFromFormula": "molar mass of one formula unit (g/mol, standard atomic weights)",
    "GetChemicalSystemFromFormula": "chemical system (elements in alphabetical order, dash-separated)",
    "GetFormulaAnonymousByFormula": "anonymised formula (elements replaced by A, B, ...)",
    "GetHillFormula": "formula in Hill order",
    "GetReducedFormula": "reduced formula",
}
# Same computation, same phrase: CalculateFsp3 and GetFractionCSP3 both call
# rdMolDescriptors.CalcFractionCSP3.
TOOL_PHRASES["GetFractionCSP3"] = TOOL_PHRASES["CalculateFsp3"]
# Rewrites of the entity into its own type: reviewed too, although a built path never takes
# them (a step may not make a second copy of a type already there, and a truth value or a
# rewritten copy is not an answer).
TOOL_PHRASES.update(
    {
        "CanonicalizeSMILES": "RDKit canonical isomeric SMILES",
        "Kekulize": "Kekulé SMILES (explicit alternating single and double bonds)",
        "SetAromaticity": "aromatic SMILES (RDKit aromaticity model)",
        "RemoveHydrogens": "SMILES without explicit hydrogens",
        "RemoveStereochemistry": "SMILES with all stereochemistry removed",
        "MurckoDecompose": "Bemis-Murcko scaffold (SMILES)",
        "Deprotect": "SMILES with common protecting groups removed",
        "CondenseAbbreviationSubstanceGroups": "CXSMILES with common groups abbreviated",
        "GetTemplateMolecule": "tautomer template molecule (SMILES with query bonds)",
        "CheckValidRingCut": "whether it is a valid Fraggle ring cut",
        "HasQueryHs": "whether it has query hydrogens",
        "GetComplement": "complementary strand, not reversed (written 3' to 5')",
        "RandomMutation": "randomly mutated sequence (seeded)",
    }
)


def tool_phrase(tool: str) -> str | None:
    """The reviewed phrase a question names `tool`'s output with, or None when it has none."""
    return TOOL_PHRASES.get(tool)
