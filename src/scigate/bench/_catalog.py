"""Which library tools can make built tasks, and how a question names what they compute.

A tool qualifies when it runs offline in-process (not heavy, no web service), belongs to
the task's domain and takes exactly one required input of a type some entity or some
other tool provides. Each is probed once on a bundled entity of its input type: a scalar
value (number, truth value, short text) makes it an answer tool; a number, a rule tool
(comparisons, thresholds); an output of another working type, a converter.
"""

from __future__ import annotations

import functools
from typing import Any

from pydantic import BaseModel

from scigate.bench._entities import load_entities
from scigate.tools import (
    TOOL_PHRASES,
    Tool,
    canonical_type,
    load_library,
    parameter_types,
    tool_phrase,
)

WORKING_TYPES = (
    "molecule name",
    "SMILES",
    "Molecule Formula",
    "protein sequence",
    "DNA sequence",
    "RNA sequence",
    "CIF",
)

# How a question names what a tool computes: the reviewed phrases kept with the tools in the
# vocabulary (scigate.tools._vocabulary.TOOL_PHRASES). A tool without one does not qualify:
# nothing is worded from a bare SciToolKG output label ("Chi-three Cluster Index", "Phi
# angle" name other quantities than the ones computed).
PHRASES = TOOL_PHRASES


NOT_ANSWERS = {"SMILES", "protein sequence", "DNA sequence"}
# Tools left out: degenerate output (IUPAC ambiguity codes) that no later tool accepts.
EXCLUDED = {"BackTranslateProtein"}
# Constant arguments a tool gets inside built paths (translation stops at the first stop
# codon, so the protein tools downstream get a clean sequence).
# Frame 1, the standard code (NCBI table 1) and the Bjellqvist pKa scale are the tools'
# defaults, given explicitly because the questions state them (see the phrases).
GIVEN: dict[str, dict[str, Any]] = {
    "TranslateDNAtoAminoAcidSequence": {"frame": 1, "table": 1, "to_stop": True},
    "ProteinIsoelectricPointCalculator": {"pka_source": "Bjellqvist"},
}

# How a question names an input derived from the entity, by the converter that made it.
# Translation: "the encoded peptide" only when every entity of the task has a real ORF as
# written (ATG at the first base, an in-frame stop codon: frame-1 translation to the first
# stop is then exactly the ORF's peptide); otherwise the question says what is computed, the
# frame-1 translation of the sequence as written. The entity pool has both kinds (the lac
# operator, T7 promoter and linkers are not coding), and both wordings are true of the
# executed value, so neither kind of entity is refused.
ENCODED_PEPTIDE = (
    "the peptide encoded by its open reading frame (ATG at the first base to the first "
    "in-frame stop codon, standard genetic code)"
)
FRAME1_PEPTIDE = (
    "its frame-1 translation as written (standard genetic code, read to the first stop codon)"
)
DERIVED_WORDS: dict[str, str] = {
    "TranscribeDNAtoRNA": "its RNA transcript (the sequence read as the coding strand, T to U)",
    "BackTranscribeRNAtoDNA": "its coding-strand DNA (U to T)",
    "ConvertingPeptide2SMILES": "the peptide as a linear L-peptide with free termini",
}
_STOPS = ("TAA", "TAG", "TGA")


def has_orf(dna: str) -> bool:
    """True when `dna` as written starts with ATG and has an in-frame stop codon."""
    seq = "".join(dna.split()).upper()
    if not seq.startswith("ATG"):
        return False
    return any(seq[i : i + 3] in _STOPS for i in range(3, len(seq) - 2, 3))


def question_phrase(tool: str, path: list[str], entities: list[Any]) -> str:
    """How a question names the output of `tool` in a task over `entities` along `path`:
    its reviewed phrase, and, when it works on something derived from the entity, what
    that is ("... of the peptide encoded by its open reading frame (...)")."""
    roles = tool_roles()
    role = roles[tool]
    if role.input_type == canonical_type(entities[0].type):
        return role.phrase
    source = next(
        (n for n in path if n in roles and role.input_type in roles[n].output_types), None
    )
    if source == "TranslateDNAtoAminoAcidSequence":
        via = ENCODED_PEPTIDE if all(has_orf(e.value) for e in entities) else FRAME1_PEPTIDE
    elif source == "NameToSMILES":
        return role.phrase  # the named molecule itself
    else:
        via = DERIVED_WORDS.get(source or "", f"its {role.input_type}")
    return f"{role.phrase} of {via}"


def given_for(path: list[str]) -> dict[str, dict[str, Any]]:
    """The constant arguments of the tools of `path`."""
    return {t: dict(GIVEN[t]) for t in path if t in GIVEN}


class ToolRole(BaseModel):
    """A qualifying tool: its input/output types, what its probe gave, and its phrase."""

    name: str
    domain: str
    input_type: str
    output_types: list[str]
    scalar: bool
    numeric: bool
    converter: bool
    phrase: str


def _phrase(t: Tool) -> str | None:
    return tool_phrase(t.name)


def _probe_value(type_name: str) -> str | None:
    entities = load_entities()
    by_type = {e.type: e.value for kind in entities.values() for e in kind[:1]}
    if type_name == "RNA sequence":
        return "AUGGCCAUUGUAAUGGGCCGCUGA"
    return by_type.get(type_name)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@functools.lru_cache(maxsize=1)
def tool_roles() -> dict[str, ToolRole]:
    """Every qualifying tool of the library, probed once per process."""
    roles: dict[str, ToolRole] = {}
    probed: dict[str, Any] = {}
    working = {canonical_type(t) for t in WORKING_TYPES}
    for name, t in sorted(load_library().items()):
        spec = t.spec
        if spec.network or spec.heavy or spec.category not in ("chemistry", "biology", "materials"):
            continue
        if len(t.required_parameters) != 1 or not t.available() or name in EXCLUDED:
            continue
        phrase = _phrase(t)
        if phrase is None:  # no reviewed phrase: a question could not name what it computes
            continue
        in_type = canonical_type(parameter_types(t).get(t.required_parameters[0], ""))
        probe = _probe_value(in_type) if in_type in working else None
        if probe is None:
            continue
        result = t.call({t.required_parameters[0]: probe, **GIVEN.get(name, {})})
        if not result.ok:
            continue
        value = result.value
        probed[name] = value
        outs = [canonical_type(o) for o in spec.outputs]
        scalar = (
            _is_number(value)
            or isinstance(value, bool)
            or (isinstance(value, str) and 0 < len(value) <= 40 and "\n" not in value)
        )
        converter = any(o in working and o != in_type for o in outs) and isinstance(value, str)
        # not answers: a SMILES or a sequence rewrite is a representation with many valid
        # spellings, not a property, and the truth-value tools here check their input
        # (before reviewed phrases these were all demoted by the shared labels "SMILES",
        # "protein sequence", "DNA sequence", "True or False")
        answer = scalar and not (isinstance(value, bool) or any(o in NOT_ANSWERS for o in outs))
        if not (scalar or converter):
            continue
        roles[name] = ToolRole(
            name=name,
            domain=spec.category,
            input_type=in_type,
            output_types=outs,
            scalar=answer,
            numeric=answer and _is_number(value),
            converter=converter,
            phrase=phrase,
        )
    # a phrase two tools share would make the question ambiguous: keep neither, unless
    # they compute the same thing (the same value on the probe)
    seen: dict[str, list[str]] = {}
    for role in roles.values():
        seen.setdefault(role.phrase.lower(), []).append(role.name)
    for names in seen.values():
        if len({repr(probed[n]) for n in names}) > 1:
            for n in names:
                roles[n] = roles[n].model_copy(update={"scalar": False, "numeric": False})
    return roles
