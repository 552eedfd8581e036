"""Recognising scientific entities in a question (SMILES, sequences, identifiers...).

A question such as "What is the TPSA of CC(=O)Oc1ccccc1C(=O)O?" names its input by
example, not by type. For retrieval the example is noise (its characters match random
tools) while its type is signal (the tool must take a SMILES). `mask_entities` finds the
entities, replaces each by its type word and returns the vocabulary types found, so the
retriever can match them against the tools' input types.

Recognisers, most specific first: multi-line blocks (CIF, PDB records, FASTA), then
whitespace tokens: InChI, InChIKey, reaction SMILES, SELFIES, CAS (check digit), Materials
Project ids, UniProt accessions, PDB ids, DNA/RNA and protein sequences, formulas
(element symbols checked), SMILES (parsed by RDKit) and, after a word asking for a
structure ("the SMILES of caffeine"), a compound name from the bundled name table. Plain words are never entities:
a bare "CO" or "DETERMINE" stays a word unless the context says "sequence" or "SMILES".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from scigate.tools._vocabulary import VOCABULARY, canonical_type, cas_check_digit_ok

# the word that replaces an entity of each type (also the vocabulary type it is)
TYPE_WORD = {
    "SMILES": "SMILES",
    "reaction SMILES": "reaction SMILES",
    "SELFIES": "SELFIES",
    "InChI": "InChI",
    "InChIKey": "InChIKey",
    "CAS": "CAS number",
    "Molecule Formula": "formula",
    "protein sequence": "protein sequence",
    "DNA sequence": "DNA sequence",
    "RNA sequence": "RNA sequence",
    "CIF": "CIF structure",
    "PDB file": "PDB file",
    "PDB ID": "PDB ID",
    "UniProtKB accessions": "UniProt accession",
    "material_id": "material_id",
    "battery_id": "battery_id",
    "molecule_id": "molecule_id",
    "molecule name": "molecule name",
}

# the tool input types an entity can feed (canonical vocabulary names where they exist)
_FITS = {
    "SMILES": ["SMILES", "SMILES pair", "SMILES list"],
    "reaction SMILES": ["reaction SMILES"],
    "SELFIES": ["SELFIES"],
    "InChI": ["InChI"],
    "InChIKey": ["InChIKey"],
    "CAS": ["CAS"],
    "Molecule Formula": ["Molecule Formula", "reduced formula", "elemental composition"],
    "protein sequence": [
        "protein sequence",
        "Protein sequence",
        "protein sequence pair",
        "One or more sequences",
        "Peptide sequence or type",
    ],
    "DNA sequence": [
        "DNA sequence",
        "DNA/RNA sequence",
        "Nucleic acid sequence",
        "DNA sequence pair",
        "One or more sequences",
    ],
    "RNA sequence": ["RNA sequence", "DNA/RNA sequence", "Nucleic acid sequence"],
    "CIF": ["CIF", "material structure"],
    "PDB file": ["PDB file"],
    "PDB ID": ["PDB ID", "PDB ID or PDB name"],
    "UniProtKB accessions": ["UniProtKB accessions"],
    "material_id": ["material_id"],
    "battery_id": ["battery_id"],
    "molecule_id": ["molecule_id"],
    "molecule name": ["molecule name"],
}


def fitting_types(entity_type: str) -> frozenset[str]:
    """The canonical tool input types an entity of `entity_type` can be passed as."""
    return frozenset(canonical_type(t) for t in _FITS.get(entity_type, [entity_type]))


@dataclass(frozen=True)
class Entity:
    """One recognised entity: its vocabulary type and where it is in the text."""

    type: str
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class MaskedQuery:
    """A query with entities replaced by type words, and the entities found."""

    text: str
    entities: tuple[Entity, ...]

    @property
    def types(self) -> list[str]:
        """Entity types in order of first appearance, without repeats."""
        return list(dict.fromkeys(e.type for e in self.entities))


# ------------------------------------------------------------------ multi-line blocks

_CIF_START = re.compile(r"data_\S*")
# inside a CIF: tags, loops, comments, text fields, and rows holding a number
_CIF_LINE = re.compile(r"\s*(_|loop_|#|;)|.*(^|\s)[-+]?\d*\.?\d+(\(\d+\))?(\s|$)")
_PDB_LINE = re.compile(r"(ATOM  |HETATM|HEADER|REMARK|CRYST1|TER|END|MODEL|ENDMDL|CONECT)")
_FASTA_HEADER = re.compile(r"^>[^\n]*\n", re.M)


def _block_end(text: str, start: int, line_ok: re.Pattern[str]) -> int:
    """End of the run of lines from `start` that `line_ok` accepts."""
    end = text.find("\n", start)
    end = len(text) if end < 0 else end
    while end < len(text):
        nxt = text.find("\n", end + 1)
        nxt = len(text) if nxt < 0 else nxt
        line = text[end + 1 : nxt]
        if not line.strip() or not line_ok.match(line):
            break
        end = nxt
    return end


def _blocks(text: str) -> list[Entity]:
    found: list[Entity] = []
    for m in _CIF_START.finditer(text):
        end = _block_end(text, m.start(), _CIF_LINE)
        if "_cell_length" in text[m.start() : end] or "_atom_site" in text[m.start() : end]:
            found.append(Entity("CIF", text[m.start() : end], m.start(), end))
    for m in re.finditer(r"^(ATOM  |HETATM)", text, re.M):
        if any(e.start <= m.start() < e.end for e in found):
            continue
        end = _block_end(text, m.start(), _PDB_LINE)
        found.append(Entity("PDB file", text[m.start() : end], m.start(), end))
    for m in _FASTA_HEADER.finditer(text):
        end = _block_end(text, m.end() - 1, re.compile(r"[A-Za-z*\-]+\s*$"))
        body = "".join(text[m.end() : end].split())
        kind = _sequence_type(body, context=True)
        if kind:
            found.append(Entity(kind, text[m.start() : end], m.start(), end))
    return found


# ------------------------------------------------------------------ single tokens

_INCHI = re.compile(r"InChI=1S?/\S+")
_INCHIKEY = re.compile(r"[A-Z]{14}-[A-Z]{10}-[A-Z]")
_CAS = re.compile(r"\d{2,7}-\d{2}-\d")
_BATTERY = re.compile(r"(mp|mvc)-\d+_[A-Z][a-z]?")
_MATERIAL = re.compile(r"(mp|mvc)-\d+")
_MOLECULE = re.compile(r"(mpcule|libe)-\d+|([A-Za-z]+-)?[0-9a-f]{6,}-[A-Za-z0-9]+-m?\d+-\d+")
_UNIPROT = re.compile(r"[OPQ][0-9][A-Z0-9]{3}[0-9]|[A-NR-Z][0-9]([A-Z][A-Z0-9]{2}[0-9]){1,2}")
_PDB_ID = re.compile(r"[1-9][A-Za-z0-9]{3}")
_SELFIES = re.compile(r"(\[[^\[\]\s]+\]){2,}")
_FORMULA = re.compile(r"([A-Z][a-z]?\d*(\.\d+)?|\(([A-Z][a-z]?\d*)+\)\d*)+")
_SMILES_CHARS = re.compile(r"[A-Za-z0-9@+\-\[\]()=#$%/\\.:*]+")
_SMILES_MARKS = re.compile(r"[()\[\]=#@/\\%+]|[a-z]\d|\d")
_ORGANIC_WORD = re.compile(r"(C|N|O|S|P|F|I|Cl|Br)+")
_DNA = frozenset("ACGTN")
_RNA = frozenset("ACGUN")
_PROTEIN = frozenset("ACDEFGHIKLMNPQRSTVWYXUO")
_SEQUENCE_CONTEXT = frozenset(
    {"sequence", "sequences", "peptide", "protein", "dna", "rna", "oligo", "primer", "gene"}
)
_SMILES_CONTEXT = frozenset({"smiles", "molecule", "compound"})
# a bundled compound name is an entity after words that ask for its structure
_NAME_CONTEXT = frozenset({"smiles", "structure", "name", "named", "iupac", "inchi", "inchikey"})
_STRIP_LEAD = "({'\"`"
_STRIP_TRAIL = ".,;:?!'\"`"


@lru_cache(maxsize=1)
def _vocabulary_words() -> frozenset[str]:
    """Type names and aliases (and their words): never entities themselves."""
    out = set()
    for term in VOCABULARY:
        for alias in (term.name, *term.aliases):
            out.add(alias.lower())
            out.update(w.lower() for w in re.split(r"[^A-Za-z0-9]+", alias) if w)
    out.update({"smiles", "inchi", "inchikey", "selfies", "smarts", "pdb", "cif", "dna", "rna"})
    return frozenset(out)


@lru_cache(maxsize=1)
def _elements() -> frozenset[str]:
    from scigate.tools._vocabulary import _ELEMENTS

    return frozenset(_ELEMENTS) - {"D"}


def _sequence_type(token: str, context: bool) -> str | None:
    """DNA/RNA/protein for a run of residue letters; short runs only with context."""
    if not token.isalpha() or not (token.isupper() or token.islower()):
        return None
    upper = token.upper()
    letters = set(upper)
    if letters <= _DNA and len(letters) >= 3 and (len(token) >= 8 or context):
        return "DNA sequence"
    if letters <= _RNA and "U" in letters and len(letters) >= 3 and (len(token) >= 8 or context):
        return "RNA sequence"
    if (
        token.isupper()
        and letters <= _PROTEIN
        and (len(token) >= 10 or (context and len(token) >= 2))
    ):
        if _ORGANIC_WORD.fullmatch(token) and not context:
            return None  # CCCCCCCC: an alkane SMILES, not a peptide
        return "protein sequence"
    return None


def _is_formula(token: str) -> bool:
    if not _FORMULA.fullmatch(token):
        return False
    symbols = re.findall(r"[A-Z][a-z]?", token)
    if not all(s in _elements() for s in symbols):
        return False
    has_digit = any(c.isdigit() for c in token)
    if len(symbols) == 1:
        return has_digit  # O2, but not "I" or "He"
    return has_digit or any(c.islower() for c in token)  # NaCl, but not "CO" or "HOMO"


@lru_cache(maxsize=4096)
def _parses_as_smiles(token: str) -> bool:
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")  # type: ignore[attr-defined]  # RDKit's stub lacks DisableLog
    return Chem.MolFromSmiles(token) is not None


def _is_smiles(token: str, context: bool) -> bool:
    if len(token) < 2 or not _SMILES_CHARS.fullmatch(token):
        return False
    # letters only: accept chains like CCO or CCCCBr, not words like "CO" or "ION"
    plain_word = not _ORGANIC_WORD.fullmatch(token) or (token.count("C") < 2 and not context)
    if not _SMILES_MARKS.search(token) and plain_word:
        return False
    return _parses_as_smiles(token)


def _classify(token: str, context: set[str]) -> str | None:
    """The entity type of one token, or None for an ordinary word."""
    low = token.lower()
    if low in _vocabulary_words():
        return None
    if _INCHI.fullmatch(token):
        return "InChI"
    if _INCHIKEY.fullmatch(token):
        return "InChIKey"
    if ">>" in token or token.count(">") == 2:
        sides = token.split(">")
        if all(not s or _is_smiles(s, True) for s in sides) and sides[0] and sides[-1]:
            return "reaction SMILES"
        return None
    if _CAS.fullmatch(token) and cas_check_digit_ok(token):
        return "CAS"
    if _BATTERY.fullmatch(token):
        return "battery_id"
    if _MATERIAL.fullmatch(token):
        return "material_id"
    if _MOLECULE.fullmatch(token):
        return "molecule_id"
    if _UNIPROT.fullmatch(token):
        return "UniProtKB accessions"
    pdb_like = _PDB_ID.fullmatch(token) and any(c.isalpha() for c in token)
    if pdb_like and (token.isupper() or "pdb" in context):
        return "PDB ID"
    if _SELFIES.fullmatch(token):
        return "SELFIES"
    seq = _sequence_type(token, bool(context & _SEQUENCE_CONTEXT))
    if seq:
        return seq
    if _is_smiles(token, bool(context & _SMILES_CONTEXT)):
        return "SMILES"  # before formulas: C1CCC2(C1)CCNCC2 spells a formula too
    if _is_formula(token):
        return "Molecule Formula"
    if context & _NAME_CONTEXT and low in _molecule_names():
        return "molecule name"
    return None


@lru_cache(maxsize=1)
def _molecule_names() -> frozenset[str]:
    """The one-word names of the bundled everyday-compound table (`NameToSMILES`'s first
    resort), lower case."""
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parent / "data" / "common_names.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    return frozenset(
        n.lower() for row in data["compounds"] for n in row["names"] if " " not in n.strip()
    )


def _trimmed(token: str, start: int) -> tuple[str, int]:
    """Token without surrounding punctuation (a SMILES keeps its balanced brackets)."""
    lead = len(token) - len(token.lstrip(_STRIP_LEAD))
    token, start = token[lead:], start + lead
    token = token.rstrip(_STRIP_TRAIL)
    while token.endswith((")", "]")):
        opener = "(" if token[-1] == ")" else "["
        if token.count(opener) >= token.count(token[-1]):
            break
        token = token[:-1].rstrip(_STRIP_TRAIL)
    return token, start


def find_entities(text: str) -> list[Entity]:
    """Entities in `text`, in order, non-overlapping."""
    found = _blocks(text)
    taken = [(e.start, e.end) for e in found]
    words = [m for m in re.finditer(r"\S+", text)]
    lowered = [re.sub(r"[^a-z]", "", m.group(0).lower()) for m in words]
    for i, m in enumerate(words):
        if any(a <= m.start() < b for a, b in taken):
            continue
        token, start = _trimmed(m.group(0), m.start())
        if not token:
            continue
        context = set(lowered[max(0, i - 3) : i])
        kind = _classify(token, context)
        if kind:
            found.append(Entity(kind, token, start, start + len(token)))
    return sorted(found, key=lambda e: e.start)


def mask_entities(text: str) -> MaskedQuery:
    """`text` with every entity replaced by its type word."""
    entities = find_entities(text)
    if not entities:
        return MaskedQuery(text, ())
    out, pos = [], 0
    for e in entities:
        out.append(text[pos : e.start])
        out.append(TYPE_WORD.get(e.type, e.type))
        pos = e.end
    out.append(text[pos:])
    return MaskedQuery("".join(out), tuple(entities))
