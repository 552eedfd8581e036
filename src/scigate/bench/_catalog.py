"""Which library tools can make built tasks, and how a question names what they compute.

A tool qualifies when it runs offline in-process (not heavy, no web service), belongs to
the task's domain and takes exactly one required input of a type some entity or some
other tool provides. Each is probed once on a bundled entity of its input type: a scalar
value (number, truth value, short text) makes it an answer tool; a number, a rule tool
(comparisons, thresholds); an output of another working type, a converter.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from pydantic import BaseModel

from scigate.bench._entities import load_entities
from scigate.tools import Tool, canonical_type, load_library
from scigate.tools._vocabulary import parameter_types

WORKING_TYPES = (
    "molecule name",
    "SMILES",
    "Molecule Formula",
    "protein sequence",
    "DNA sequence",
    "RNA sequence",
    "CIF",
)

# Phrases for tools whose output type alone is ambiguous or awkward.
PHRASES: dict[str, str] = {
    "SMILESToWeight": "average molecular weight (g/mol)",
    "GetExactMolceularWeight": "monoisotopic molecular mass (Da)",
    "CalculateDoubleLinearDNAMolecularWeight": "molecular weight as linear double-stranded DNA",
    "CalculateDoubleCircleDNAMolecularWeight": "molecular weight as circular double-stranded DNA",
    "CalculateSingleLinearDNAMolecularWeight": "molecular weight as linear single-stranded DNA",
    "CalculateSingleCircleDNAMolecularWeight": "molecular weight as circular single-stranded DNA",
    "CalculateTPSA": "topological polar surface area",
    "CalculateFsp3": "fraction of sp3 carbons (Fsp3)",
    "GetFractionCSP3": "fraction of sp3-hybridized carbon atoms",
    "CalculateQED": "drug-likeness (QED score)",
    "GetMolFormula": "molecular formula",
    "GetMolarMassFromFormula": "molar mass (g/mol) computed from its formula",
    "CountAtomsInFormula": "number of atoms per formula unit",
    "CountElementsInFormula": "number of distinct elements",
    "GetAverageElectronegativity": "average Pauling electronegativity of its atoms",
    "CalculateDensity": "crystal density (g/cm3)",
    "GetCrystalSystemFromCIF": "crystal system",
    "ProteinIsoelectricPointCalculator": "isoelectric point",
    "SMILESToInChIKey": "InChIKey",
    "GetStereoCodeFromSmiles": "stereo code",
}


# Tools left out: degenerate output (IUPAC ambiguity codes) that no later tool accepts.
EXCLUDED = {"BackTranslateProtein"}
# Constant arguments a tool gets inside built paths (translation stops at the first stop
# codon, so the protein tools downstream get a clean sequence).
GIVEN: dict[str, dict[str, Any]] = {"TranslateDNAtoAminoAcidSequence": {"to_stop": True}}


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


def _phrase(t: Tool) -> str:
    if t.name in PHRASES:
        return PHRASES[t.name]
    text = t.spec.outputs[0] if t.spec.outputs else t.name
    text = re.sub(r"^(the|a|an)\s+", "", text.strip(), flags=re.I)
    text = re.sub(r"\s+value$", "", text)
    first, _, rest = text.partition(" ")
    if first in ("Number", "Fraction", "Molecule", "Molecular"):
        text = f"{first.lower()} {rest}".strip()
    return text


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
    working = {canonical_type(t) for t in WORKING_TYPES}
    for name, t in sorted(load_library().items()):
        spec = t.spec
        if spec.network or spec.heavy or spec.category not in ("chemistry", "biology", "materials"):
            continue
        if len(t.required_parameters) != 1 or not t.available() or name in EXCLUDED:
            continue
        in_type = canonical_type(parameter_types(t).get(t.required_parameters[0], ""))
        probe = _probe_value(in_type) if in_type in working else None
        if probe is None:
            continue
        result = t.call({t.required_parameters[0]: probe, **GIVEN.get(name, {})})
        if not result.ok:
            continue
        value = result.value
        outs = [canonical_type(o) for o in spec.outputs]
        scalar = (
            _is_number(value)
            or isinstance(value, bool)
            or (isinstance(value, str) and 0 < len(value) <= 40 and "\n" not in value)
        )
        converter = any(o in working and o != in_type for o in outs) and isinstance(value, str)
        if not (scalar or converter):
            continue
        roles[name] = ToolRole(
            name=name,
            domain=spec.category,
            input_type=in_type,
            output_types=outs,
            scalar=scalar,
            numeric=_is_number(value),
            converter=converter,
            phrase=_phrase(t),
        )
    # a phrase two tools share would make the question ambiguous: keep neither
    seen: dict[str, list[str]] = {}
    for role in roles.values():
        seen.setdefault(role.phrase.lower(), []).append(role.name)
    for names in seen.values():
        if len(names) > 1:
            for n in names:
                roles[n] = roles[n].model_copy(update={"scalar": False, "numeric": False})
    return roles
