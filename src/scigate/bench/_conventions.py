"""Quantities with known alternative conventions, and the `conventions` acceptance check.

A tool here computes a quantity that another convention would give another value for (a
pKa scale, a mass table, the 5' end of a strand, the reading frame, hydrogen counting,
the aromaticity model, which atoms a polar surface counts). Each alternative is one the
library can compute: other constant arguments of the same tool, another library tool, or
a short computation with the tool's own dependency (RDKit, Biopython, pymatgen).

A built item keeps a threshold or an answer only when the question's phrase states the
convention, or when the decision (the selected candidate) or the answer (at its stated
precision) is the same under every alternative; and every threshold lies at least the
margin from every alternative-convention value of every candidate (`alternative_values`
feeds those values to the margin check).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from scigate.bench._catalog import given_for, question_phrase, tool_roles
from scigate.tools import PlanRun, make_plan, run_plan


@dataclass(frozen=True)
class Alternative:
    """One other convention for a tool's quantity and how the library computes it: other
    constant arguments (`given`), another tool (`tool`), or a function of the step's
    arguments (`value`, for an output step)."""

    name: str
    given: dict[str, Any] | None = None
    tool: str | None = None
    value: Callable[[dict[str, Any]], float] | None = None


@dataclass(frozen=True)
class Convention:
    """An aspect of a tool's quantity with alternatives; `stated_by`: words any one of
    which, in the question's phrase, states the convention the tool computes."""

    tool: str
    aspect: str
    computed: str
    stated_by: tuple[str, ...]
    alternatives: tuple[Alternative, ...] = field(default_factory=tuple)


def _first_text(args: dict[str, Any]) -> str:
    return next(v for v in args.values() if isinstance(v, str))


def _mol(args: dict[str, Any]) -> Any:
    from rdkit import Chem

    mol = Chem.MolFromSmiles(_first_text(args))
    if mol is None:
        raise ValueError("unparsable SMILES")
    return mol


def _mdl(counter: str) -> Callable[[dict[str, Any]], float]:
    """A ring count under the MDL aromaticity model (only 6-rings and fused 6-ring systems)."""

    def count(args: dict[str, Any]) -> float:
        from rdkit import Chem
        from rdkit.Chem import rdMolDescriptors

        mol = _mol(args)
        Chem.Kekulize(mol, clearAromaticFlags=True)
        Chem.SetAromaticity(mol, Chem.AromaticityModel.AROMATICITY_MDL)
        return float(getattr(rdMolDescriptors, counter)(mol))

    return count


def _tpsa_s_p(args: dict[str, Any]) -> float:
    from rdkit.Chem import rdMolDescriptors

    return float(rdMolDescriptors.CalcTPSA(_mol(args), includeSandP=True))


HPO3 = 1.00794 + 30.973762 + 3 * 15.9994  # the 5'-phosphate a 5'-OH strand lacks (g/mol)


def _five_oh(tool: str, strands: int) -> Callable[[dict[str, Any]], float]:
    """The strand mass with a 5'-OH: the tool's 5'-phosphate mass less HPO3 per strand."""

    def mass(args: dict[str, Any]) -> float:
        from scigate.tools import get_tool

        result = get_tool(tool).call(args)
        if not result.ok:
            raise ValueError(result.error)
        return float(result.value) - strands * HPO3

    return mass


def _mono_nucleic(kind: str, double: bool = False, circular: bool = False) -> Callable:
    """The strand mass from monoisotopic instead of average masses (Biopython)."""

    def mass(args: dict[str, Any]) -> float:
        from Bio.SeqUtils import molecular_weight

        seq = "".join(_first_text(args).split()).upper()
        return float(
            molecular_weight(
                seq, kind, double_stranded=double, circular=circular, monoisotopic=True
            )
        )

    return mass


def _mono_formula(args: dict[str, Any]) -> float:
    """The formula's monoisotopic mass (most abundant isotope of each element)."""
    from pymatgen.core import Composition
    from rdkit import Chem

    table = Chem.GetPeriodicTable()
    amounts = Composition(_first_text(args)).get_el_amt_dict()
    return float(sum(table.GetMostCommonIsotopeMass(el) * n for el, n in amounts.items()))


def _registry() -> dict[str, list[Convention]]:
    pka = tuple(Alternative(f"{s} pKa scale", given={"pka_source": s}) for s in _PKA_SCALES)
    frames = (
        Alternative("frame 2", given={"frame": 2}),
        Alternative("frame 3", given={"frame": 3}),
        Alternative("read through stop codons", given={"to_stop": False}),
    )
    out: list[Convention] = [
        Convention(
            "ProteinIsoelectricPointCalculator",
            "pKa scale",
            "Bjellqvist",
            ("Bjellqvist",),
            pka,
        ),
        Convention(
            "TranslateDNAtoAminoAcidSequence",
            "reading frame",
            "frame 1 (or the ORF starting at base 1), to the first stop",
            ("frame-1", "open reading frame"),
            frames,
        ),
        Convention(
            "SMILESToWeight",
            "mass table",
            "average",
            ("average",),
            (Alternative("monoisotopic masses", tool="GetExactMolceularWeight"),),
        ),
        Convention(
            "GetExactMolceularWeight",
            "mass table",
            "monoisotopic",
            ("monoisotopic",),
            (Alternative("average masses", tool="SMILESToWeight"),),
        ),
        Convention(
            "GetMolarMassFromFormula",
            "mass table",
            "standard atomic weights",
            ("standard atomic weights", "average"),
            (Alternative("monoisotopic masses", value=_mono_formula),),
        ),
        Convention(
            "GetAtomsNum",
            "hydrogen counting",
            "implicit hydrogens counted",
            ("hydrogens included",),
            (Alternative("hydrogens not counted", tool="GetHeavyAtomsNum"),),
        ),
        Convention(
            "CalculateTPSA",
            "polar atoms",
            "N and O only",
            ("N and O contributions only",),
            (Alternative("S and P included", value=_tpsa_s_p),),
        ),
    ]
    for a, b, name in (
        ("GetHBANum", "GetLipinskiHBANum", "acceptor"),
        ("GetHBDNum", "GetLipinskiHBDNum", "donor"),
    ):
        out.append(
            Convention(
                a, f"{name} definition", "RDKit", ("RDKit",), (Alternative("Lipinski", tool=b),)
            )
        )
        out.append(
            Convention(
                b, f"{name} definition", "Lipinski", ("Lipinski",), (Alternative("RDKit", tool=a),)
            )
        )
    for k in range(5):
        n, v = f"GetChi{k}n", f"GetChi{k}v"
        out.append(
            Convention(n, "atom deltas", "Zv - h", ("Zv - h",), (Alternative("valence", tool=v),))
        )
        out.append(
            Convention(v, "atom deltas", "valence", ("valence",), (Alternative("Zv - h", tool=n),))
        )
    for tool, counter in (
        ("GetAromaticRingsNum", "CalcNumAromaticRings"),
        ("GetAromaticCarbocyclesNum", "CalcNumAromaticCarbocycles"),
        ("GetAromaticHeterocyclesNum", "CalcNumAromaticHeterocycles"),
        ("GetAliphaticRingsNum", "CalcNumAliphaticRings"),
        ("GetAliphaticCarbocyclesNum", "CalcNumAliphaticCarbocycles"),
        ("GetAliphaticHeterocyclesNum", "CalcNumAliphaticHeterocycles"),
    ):
        out.append(
            Convention(
                tool,
                "aromaticity model",
                "RDKit",
                ("RDKit aromaticity model",),
                (Alternative("MDL aromaticity model", value=_mdl(counter)),),
            )
        )
    for tool, strands in (
        ("CalculateSingleLinearDNAMolecularWeight", 1),
        ("CalculateDoubleLinearDNAMolecularWeight", 2),
        ("CalculateRNAMolecularWeight", 1),
    ):
        out.append(
            Convention(
                tool,
                "5' end",
                "5' phosphate",
                ("5' phosphate", "5' monophosphate"),
                (Alternative("5'-OH", value=_five_oh(tool, strands)),),
            )
        )
    for tool, kind, double, circular in (
        ("CalculateSingleLinearDNAMolecularWeight", "DNA", False, False),
        ("CalculateDoubleLinearDNAMolecularWeight", "DNA", True, False),
        ("CalculateSingleCircleDNAMolecularWeight", "DNA", False, True),
        ("CalculateDoubleCircleDNAMolecularWeight", "DNA", True, True),
        ("CalculateRNAMolecularWeight", "RNA", False, False),
    ):
        out.append(
            Convention(
                tool,
                "mass table",
                "average",
                ("average",),
                (Alternative("monoisotopic masses", value=_mono_nucleic(kind, double, circular)),),
            )
        )
    registry: dict[str, list[Convention]] = {}
    for c in out:
        registry.setdefault(c.tool, []).append(c)
    return registry


_PKA_SCALES = ("EMBOSS", "Lehninger", "Solomon")
CONVENTIONS: dict[str, list[Convention]] = _registry()


def conventions_of(path: list[str]) -> list[Convention]:
    """The conventions the tools of `path` compute under."""
    return [c for t in path for c in CONVENTIONS.get(t, [])]


def _dependents(path: list[str], tool: str) -> list[str]:
    """The output tools of `path` whose value depends on `tool` (itself when it is one)."""
    plan = make_plan(path, given=given_for(path))
    index = next(s.index for s in plan.steps if s.tool == tool)
    out = []
    for i in plan.outputs:
        seen, todo = set(), [i]
        while todo:
            j = todo.pop()
            if j in seen:
                continue
            seen.add(j)
            todo.extend(
                int(b.source.split()[1])
                for b in plan.steps[j - 1].bindings
                if b.source.startswith("step ")
            )
        if index in seen:
            out.append(plan.steps[i - 1].tool)
    return out


def is_stated(conv: Convention, path: list[str], entities: list[Any]) -> bool:
    """True when the question phrase of every output depending on `conv.tool` states it."""
    deps = _dependents(path, conv.tool)
    roles = tool_roles()
    phrases = [question_phrase(t, path, entities) for t in deps if t in roles]
    return bool(phrases) and all(
        any(w.lower() in p.lower() for w in conv.stated_by) for p in phrases
    )


Values = dict[str, list[float | None]]  # output tool -> per entity (None: not computable)


def _variant_values(
    path: list[str],
    entities: list[Any],
    outputs: list[str],
    conv: Convention,
    alt: Alternative,
    runs: list[PlanRun],
    cache: dict | None,
) -> Values | None:
    """Every output's value per entity under the alternative; None when the library
    cannot compute it for this path (the other tool is already on it, or a value
    function on a tool that is not an output)."""
    if alt.value is not None:
        if conv.tool not in outputs:
            return None
        vals: Values = {t: [_num(r.values.get(t)) for r in runs] for t in outputs}
        mine: list[float | None] = []
        for r in runs:
            step = next(s for s in r.steps if s.tool == conv.tool)
            try:
                mine.append(float(alt.value(dict(step.arguments))))
            except Exception:  # an alternative that cannot be computed on this input
                mine.append(None)
        vals[conv.tool] = mine
        return vals
    given = given_for(path)
    variant = list(path)
    if alt.tool is not None:
        if alt.tool in path:
            return None
        variant = [alt.tool if t == conv.tool else t for t in path]
        given = given_for(variant)
    if alt.given is not None:
        given = {**given, conv.tool: {**given.get(conv.tool, {}), **alt.given}}
    plan = make_plan(variant, entity_type=entities[0].type, given=given)
    rename = {alt.tool: conv.tool} if alt.tool else {}
    vals = {t: [] for t in outputs}
    for e in entities:
        run = run_plan(plan, e.value, cache=cache)
        got = {rename.get(k, k): v for k, v in run.values.items()} if run.ok else {}
        for t in outputs:
            vals[t].append(_num(got.get(t)))
    return vals


def _num(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v) if math.isfinite(float(v)) else None


def alternative_values(
    path: list[str],
    entities: list[Any],
    runs: list[PlanRun],
    outputs: list[str],
    cache: dict | None = None,
) -> dict[str, tuple[Convention, Values]]:
    """Per alternative ("Tool: aspect = name"), the convention and every output's value
    per entity under it (numeric outputs; None where it cannot be computed)."""
    found: dict[str, tuple[Convention, Values]] = {}
    for conv in conventions_of(path):
        for alt in conv.alternatives:
            vals = _variant_values(path, entities, outputs, conv, alt, runs, cache)
            if vals is not None:
                found[f"{conv.tool}: {conv.aspect} = {alt.name}"] = (conv, vals)
    return found


def subset(alts: dict[str, tuple[Convention, Values]], idx: list[int]) -> dict:
    """The alternative values of the entities `idx` only, in that order."""
    return {
        k: (c, {t: [vs[i] for i in idx] for t, vs in vals.items()}) for k, (c, vals) in alts.items()
    }


def threshold_values(alts: dict[str, tuple[Convention, Values]], output: str) -> list[float]:
    """Every alternative-convention value of `output` (for the margin check)."""
    return [v for _, vals in alts.values() for v in vals.get(output, []) if v is not None]


__all__ = [
    "CONVENTIONS",
    "Alternative",
    "Convention",
    "alternative_values",
    "conventions_of",
    "is_stated",
    "subset",
    "threshold_values",
]
