"""Scoring a prediction: Tool Accuracy (chain vs reference) and Answer Accuracy.

Answer Accuracy is one public function, `score_answer(reply, reference, task)`, returning a
`Verdict`: correct, wrong or unjudged, the answer kind, and the reason in plain words. The
reply is read through `final_answer` (its last "Answer:" line, else the whole reply). The
kind (`answer_kind`) is decided from the task, never from the reply's look: its options and
format, the output type of the last tool of its reference chain (the tool ontology's
vocabulary) and the reference's own type. Each kind has its rules:

- number: Unicode minus (U+2212), thousands separators ("1,234.5": a comma followed by
  exactly three digits; a comma is never a decimal mark, so the European "3,14" reads as
  the two numbers 3 and 14, and "3; 45" is a list), scientific notation ("1.2e-3",
  "1.2×10^-3", "1.2·10⁻³"), "value ± uncertainty". Units are parsed (the project's own
  CODATA unit table of the conversion tools first, then `pint` when it is installed) and
  converted to the reference's unit: a different dimension is wrong, and so is a wrong unit
  (46.069 kg/mol is 1000 times 46.069 g/mol). Per-particle and per-mole units convert
  through Avogadro's number (Da and g/mol, eV and kJ/mol). The reference's unit is the one
  it is written with, else the one the question names ("in eV"), else the one the last
  tool's output type states ("Average molecular weight in g/mol"). A reply without a unit
  is accepted only when the question fixes the unit or the reference has none. Tolerance:
  the precision the question states ("to 3 decimal places", "two significant figures",
  "nearest integer"; never finer than half a unit of the reference's last written digit),
  else a relative REL_TOL (1 %), except that references written as integers without a unit
  (counts) must match exactly. A stated uncertainty accepts the reply when the reference
  lies within it, as long as it is at most UNCERTAINTY_MAX_REL (5 %) of the value (a wider
  one is a hedge and only the value counts). Several different numbers are a hedge: wrong.
- chemical: SMILES, InChI and SELFIES compared by canonical RDKit identity, InChIKeys
  exactly; stereo is compared when the reference has stereo or the question asks for it;
  tautomers are different molecules; names are not resolved (unjudged). Any notation of
  the right molecule is right, except where the last tool converts into one notation
  (SMILESToInChI, SMILEStoSELFIES): then the reply must be written in it.
- formula: element composition after removing spaces, order free (Hill "CSi" is pymatgen's
  "C Si"); parentheses and hydrates are expanded, so "C2H5OH" is "C2H6O" (composition equal
  is right). Case is meaning: "Co" is cobalt, "CO" carbon monoxide.
- sequence: DNA, RNA or protein (from the tool's output type, else the reference's alphabet
  and length): exact, case-insensitive, whitespace ignored, oriented (the reverse, the
  complement or the reverse complement is wrong; so is T for U).
- categorical (crystal systems, lattice centring, magnetic orderings, conductor classes...):
  exact token match against the reference's vocabulary; a negated term ("not cubic") is
  not named; naming several terms is a hedge.
- multi: split on ";", new lines, "," (not a thousands separator) and "and"; each part is
  typed and matched in the stated order; all parts must match. A list of names, molecules
  or formulas (no number, no category) whose question asks no order is a collection and is
  matched in any order.
- truth: affirmations and negations by clause ("False, it is not true." is false, "Not
  false" true, "True, but ..." true); double negatives resolve ("it is not untrue" is
  true); naming both ("true or false") is a hedge: wrong, like "B or A"; doubt ("I cannot
  tell whether it is true") or no truth word is unjudged.
- choice: the letter named, and the option value quoted beside it; a letter and a value of
  another option are wrong, a value alone is mapped to its option, "B or A" is wrong.
- text: equal after normalising case and spacing, else unjudged (a judge may decide).
"""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from scigate.agents._parse import final_answer
from scigate.agents._records import Task

Outcome = Literal["correct", "wrong", "unjudged"]
Kind = Literal[
    "number", "chemical", "formula", "sequence", "categorical", "multi", "truth", "choice", "text"
]


class Verdict(BaseModel):
    """The rules' decision on one reply: correct, wrong or unjudged, the answer kind the
    task asked for, and the reason in plain words."""

    model_config = ConfigDict(frozen=True)

    outcome: Outcome
    kind: Kind
    reason: str

    @property
    def correct(self) -> bool:
        """True only for a correct reply (unjudged is not correct)."""
        return self.outcome == "correct"

    def as_bool(self) -> bool | None:
        """True/False/None for correct/wrong/unjudged (the old `answer_match` result)."""
        return {"correct": True, "wrong": False}.get(self.outcome)


# Numbers without a stated precision compare within a relative 1e-2 (46.07 vs 46.069);
# references written as integers without a unit (counts, ring numbers) must match exactly.
REL_TOL = 1e-2
# A stated uncertainty wider than this fraction of the value is a hedge, not a measurement.
UNCERTAINTY_MAX_REL = 0.05
_EPS = 1e-9


# --------------------------------------------------------------------------- tools


def canonical_names(chain: list[str], aliases: dict[str, str] | None = None) -> list[str]:
    """A chain as Tool Accuracy compares it, the same for a predicted and a reference chain:
    names trimmed, mapped through an alias table (lower-case keys) onto library names, each
    tool once in order of first use (the agents list a tool once however many entities it
    processes). A name no table knows (a made-up tool) is kept as written: it counts
    against the chain, never silently drops out of it."""
    names = (str(n).strip() for n in chain)
    mapped = ((aliases or {}).get(n.lower(), n) for n in names if n)
    return list(dict.fromkeys(mapped))


def lcs_length(a: list[str], b: list[str]) -> int:
    """Length of the longest common subsequence."""
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b, 1):
            cur.append(prev[j - 1] + 1 if x == y else max(prev[j], cur[j - 1]))
        prev = cur
    return prev[-1]


def tool_scores(predicted: list[str], reference: list[str]) -> dict[str, float]:
    """exact (sequence match), set_f1 (tools as sets) and lcs (LCS / longer chain)."""
    exact = float(predicted == reference)
    p, r = set(predicted), set(reference)
    if not p and not r:
        f1 = 1.0
    elif not p or not r:
        f1 = 0.0
    else:
        inter = len(p & r)
        prec, rec = inter / len(p), inter / len(r)
        f1 = 0.0 if inter == 0 else 2 * prec * rec / (prec + rec)
    longest = max(len(predicted), len(reference))
    lcs = 1.0 if longest == 0 else lcs_length(predicted, reference) / longest
    return {"exact": exact, "set_f1": f1, "lcs": lcs}


# --------------------------------------------------------------------------- answers


def answer_kind(reference: str, task: Task) -> Kind:
    """The kind of answer `task` asks for, from its options and format, the output type of
    the last tool of its reference chain and the reference's own type (never the reply)."""
    fmt = _fmt(task)
    if task.options or fmt == "multiple choice":
        return "choice"
    ref = _strip_order_note(_plain(str(reference))).strip()
    if fmt == "true/false" or _norm(ref) in _TRUTH_WORDS:
        return "truth"
    kind = _value_kind(ref, _output_types(task.tool_path))
    if kind != "text":
        return kind
    return "multi" if len(_parts(ref)) > 1 else "text"


def score_answer(reply: str | None, reference: str | None, task: Task) -> Verdict:
    """The verdict on `reply` against `reference` (None: `task.answer`) for `task`, by the
    rules of the task's answer kind (see the module docstring)."""
    ref = task.answer if reference is None else reference
    if ref is None or not str(ref).strip():
        return Verdict(outcome="unjudged", kind="text", reason="there is no reference answer")
    ref = str(ref).strip()
    kind = answer_kind(ref, task)
    pred = final_answer(str(reply)) if reply is not None else None
    if pred is None or not pred.strip():
        return Verdict(outcome="wrong", kind=kind, reason="the reply is empty")
    if _same_text(pred, ref) and kind != "choice":
        return Verdict(outcome="correct", kind=kind, reason=f"the reply is {ref!r} as written")
    match kind:
        case "choice":
            return _score_choice(pred, ref, task)
        case "truth":
            return _score_truth(pred, ref)
        case "multi":
            return _score_multi(pred, ref, task)
        case "number":
            return _score_number(pred, ref, task)
        case "chemical":
            return _score_chemical(pred, ref, task)
        case "formula":
            return _score_formula(pred, ref)
        case "sequence":
            return _score_sequence(pred, ref, task)
        case "categorical":
            return _score_categorical(pred, ref)
        case _:
            return _score_text(pred, ref)


def answer_match(predicted: str | None, task: Task) -> bool | None:
    """True/False when the rules decide the answer, None when they cannot (judge or
    `unjudged`): `score_answer` against the task's reference."""
    return score_answer(predicted, task.answer, task).as_bool()


def _verdict(outcome: Outcome, kind: Kind, reason: str) -> Verdict:
    return Verdict(outcome=outcome, kind=kind, reason=reason)


def _fmt(task: Task) -> str:
    return (task.format or "").strip().lower()


def _norm(text: str) -> str:
    return " ".join(str(text).strip().strip(".").lower().split())


def _same_text(a: str, b: str) -> bool:
    """Equal as written, up to outer spacing, a final full stop and inner runs of spaces."""
    return " ".join(a.strip().rstrip(".").split()) == " ".join(b.strip().rstrip(".").split())


_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_SUPER_RUN = re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+")


def _plain(text: str) -> str:
    """ASCII signs and exponents: U+2212 minus, superscripts ('10⁻³' -> '10^-3'), thin or
    no-break spaces (a thin space between digit groups is a thousands separator)."""
    t = text.replace("\u2212", "-")
    t = re.sub(r"(?<=\d)[\u2009\u202f](?=\d{3}(?!\d))", "", t)
    t = t.replace("\u2009", " ").replace("\u202f", " ").replace("\xa0", " ")
    return _SUPER_RUN.sub(lambda m: "^" + m.group(0).translate(_SUPERSCRIPT), t)


_ORDER_NOTE = re.compile(
    r",?\s*\(?(?:in (?:that|this|the given|the same) order|respectively)\)?\.?$"
)


def _strip_order_note(text: str) -> str:
    return _ORDER_NOTE.sub("", text.strip(), count=1)


# --------------------------------------------------------------------------- the task's types

_CHEMICAL_TYPES = {"SMILES", "InChI", "InChIKey", "SELFIES"}
_FORMULA_TYPES = {
    "Molecule Formula",
    "Hill formula",
    "reduced formula",
    "alphabetical formula",
    "framework formula",
    "charge formula",
    "discharge formula",
}
_SEQUENCE_TYPES = {
    "protein sequence": "protein",
    "DNA sequence": "dna",
    "RNA sequence": "rna",
    "DNA/RNA sequence": "nucleic",
    "Reverse complement sequence": "dna",
}
_CATEGORICAL_TYPES = {
    "crystal system",
    "space group symbol",
    "element",
    "atom's element",
    "working ion",
    "cell type",
    "element family",
    "base type",
}


@functools.lru_cache(maxsize=1)
def _catalogue_outputs() -> dict[str, list[str]]:
    from scigate.tools import BUNDLED_CATALOGUE, read_catalogue

    return {
        str(r["name"]).lower(): list(r.get("outputs", []))
        for r in read_catalogue(BUNDLED_CATALOGUE)
    }


@functools.lru_cache(maxsize=2048)
def _tool_outputs(name: str) -> tuple[str, ...]:
    """The canonical output types of the tool `name` (library, else catalogue; () if none)."""
    outputs: list[str] = []
    try:
        from scigate.tools import get_tool

        outputs = list(get_tool(name).spec.outputs)
    except Exception:  # an unknown or made-up tool, or a library that does not load
        try:
            outputs = _catalogue_outputs().get(name.lower(), [])
        except Exception:
            outputs = []
    try:
        from scigate.tools import canonical_type
    except Exception:
        return tuple(outputs)
    return tuple(canonical_type(o) for o in outputs)


def _output_types(tool_path: list[str] | None) -> tuple[str, ...]:
    """The output types of the last tool of a reference chain."""
    return _tool_outputs(str(tool_path[-1]).strip()) if tool_path else ()


def _type_term(name: str) -> Any:
    try:
        from scigate.tools import VOCABULARY
    except Exception:
        return None
    return VOCABULARY.get(name)


def _value_kind(ref: str, types: tuple[str, ...]) -> Kind:
    """The kind of one reference value: a type of the last tool's outputs that the
    reference fits, else the reference's own type ('text' when it has none the rules know).
    A tool writing both a formula and a SMILES (or several numbers) is read like no tool:
    'CO' is then the formula, 'CCO' the molecule."""
    writes = set(types)
    molecule = _molecule(ref) is not None or bool(_INCHIKEY.fullmatch(ref))
    formula = _composition(ref) is not None
    if writes & _CHEMICAL_TYPES and molecule and not (formula and writes & _FORMULA_TYPES):
        return "chemical"
    if writes & _FORMULA_TYPES and formula and not (molecule and _smiles_like(ref)):
        return "formula"
    for t in types:
        if t in _SEQUENCE_TYPES and _in_alphabet(ref, _SEQUENCE_TYPES[t]):
            return "sequence"
        if t in _CATEGORICAL_TYPES and ref and not re.search(r"[;,\n]", ref):
            return "categorical"
        term = _type_term(t)
        if term is not None and term.kind in ("number", "integer") and _one_quantity(ref):
            return "number"
    if _notation(ref) != "SMILES" and molecule:
        return "chemical"
    if molecule and _smiles_like(ref):
        return "chemical"
    if formula:
        return "formula"
    if _vocabulary_of(_norm(ref)):
        return "categorical"
    if _bare_sequence(ref) is not None:
        return "sequence"
    if _one_quantity(ref):
        return "number"
    return "text"


# --------------------------------------------------------------------------- numbers

_MANTISSA = r"[-+]?(?:\d{1,3}(?:,\d{3}(?!\d))+(?:\.\d+)?|\d+\.\d*|\.\d+|\d+)"
_EXPONENT = (
    r"(?:[eE](?P<e>[-+]?\d+)"
    r"|\s*(?:[×xX*·⋅]|\\times)\s*10\s*(?:\^|\*\*)\s*\{?\s*(?P<p>[-+]?\d+)\s*\}?)"
)
_UNCERTAINTY = r"(?:\s*(?:±|\+/-|\+-|\\pm)\s*(?P<u>\d+(?:\.\d*)?|\.\d+)(?:[eE](?P<ue>[-+]?\d+))?)"
# A number not glued to a preceding letter: the subscripts of "C9H8O4" are not answers.
_QUANTITY = re.compile(rf"(?<![A-Za-z_\d.])(?P<m>{_MANTISSA})(?:{_EXPONENT})?{_UNCERTAINTY}?")
# Words that follow numbers in prose and that a unit table would read as units.
_NOT_UNITS = {
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "from", "if", "in",
    "is", "it", "its", "of", "on", "or", "per", "so", "than", "that", "the", "then",
    "this", "to", "was", "which", "with", "am",
}  # fmt: skip
_PER_ENTITY = re.compile(r"\s*/\s*(atom|f\.?\s?u\.?|formula unit|site|molecule)s?\.?$", re.I)
_DIMS = (
    "[length]",
    "[mass]",
    "[time]",
    "[current]",
    "[temperature]",
    "[substance]",
    "[luminosity]",
)
_AVOGADRO = 6.02214076e23


@dataclass(frozen=True)
class _Unit:
    text: str
    factor: float  # SI value of 1 of this unit
    offset: float  # SI value of 0 of this unit (absolute temperatures)
    dims: tuple[int, ...]
    per: str = ""  # "atom", "f.u." ...: a per-entity tag both sides must share


@dataclass(frozen=True)
class _Quantity:
    value: float
    mantissa: str
    exponent: int
    unit: _Unit | None
    unit_text: str | None
    unc: float | None
    start: int
    end: int

    @property
    def is_integer(self) -> bool:
        return "." not in self.mantissa and self.exponent == 0

    @property
    def half_ulp(self) -> float:
        """Half a unit of the last written digit (0.005 for '46.07')."""
        decimals = len(self.mantissa.split(".")[1]) if "." in self.mantissa else 0
        return 0.5 * 10.0 ** (self.exponent - decimals)

    def shown(self) -> str:
        text = self.mantissa if not self.exponent else f"{self.mantissa}e{self.exponent}"
        return f"{text} {self.unit_text}" if self.unit_text else text


def _own_unit(text: str) -> tuple[float, float, tuple[int, ...]] | None:
    try:
        from scigate.tools.library import parse_unit

        q = parse_unit(text)
    except Exception:
        return None
    return q.factor, q.offset, tuple(q.dims)


@functools.lru_cache(maxsize=1)
def _pint_registry() -> Any:
    try:
        import pint
    except ImportError:
        return None
    return pint.UnitRegistry()


def _pint_unit(text: str) -> tuple[float, float, tuple[int, ...]] | None:
    """A unit the own table lacks, read by pint when it is installed (a dimensionless pint
    name, e.g. 'pi' or 'count', is no unit here)."""
    ureg = _pint_registry()
    if ureg is None:
        return None
    try:
        zero = ureg.Quantity(0.0, text.replace("^", "**")).to_base_units()
        one = ureg.Quantity(1.0, text.replace("^", "**")).to_base_units()
        found = dict(one.dimensionality)
    except Exception:
        return None
    if set(found) - set(_DIMS) or any(float(p) != int(p) for p in found.values()):
        return None
    dims = tuple(int(found.get(d, 0)) for d in _DIMS)
    if not any(dims):
        return None
    return float(one.magnitude - zero.magnitude), float(zero.magnitude), dims


# Spellings the vocabulary and replies use that the own unit table writes otherwise.
_UNIT_WORDS = {
    "kelvins?": "K",
    "angstroms?": "Å",
    "(?:degrees? )?celsius": "°C",
    "degrees? C": "°C",
    "square Å": "Å^2",
    "cubic Å": "Å^3",
    "mAh": "mA*h",
    "Ah": "A*h",
}


@functools.lru_cache(maxsize=4096)
def _unit(text: str) -> _Unit | None:
    """`text` read as a unit expression, or None."""
    t = _plain(text).strip().rstrip(".,:")
    first = t.split()[0] if t else ""
    if (
        not t
        or re.match(r"[\d.+-]", t)
        or (first if len(first) == 1 else first.lower()) in _NOT_UNITS
    ):
        return None  # "a" is an article, "A" an ampere (or an Å written plainly)
    per = ""
    m = _PER_ENTITY.search(t)
    if m:
        per = re.sub(r"[\s.]", "", m.group(1).lower()).replace("formulaunit", "fu")
        t = t[: m.start()].strip()
    t = t.replace("·", "*").replace("⋅", "*").replace("×", "*")
    for word, symbol in _UNIT_WORDS.items():
        t = re.sub(rf"(?<![A-Za-z]){word}(?![A-Za-z])", symbol, t)
    parsed = _own_unit(t) or _pint_unit(t)
    if parsed is None:
        return None
    factor, offset, dims = parsed
    return _Unit(text.strip(), factor, offset, dims, per)


def _unit_after(text: str, pos: int, opened: bool) -> tuple[_Unit | None, str | None, int]:
    """The unit written right after a number ending at `pos` (up to three words)."""
    rest = text[pos:]
    off = len(rest) - len(rest.lstrip(" \t"))
    if opened and rest[off:].startswith(")"):
        off += 1
        off += len(rest[off:]) - len(rest[off:].lstrip(" \t"))
    seg = re.split(r"[,;()\[\]\n]|\s(?:and|or|&)\s|\.(?:\s|$)", rest[off:], maxsplit=1)[0]
    words = seg.split()[:3]
    for k in range(len(words), 0, -1):
        found = re.match(r"\s*".join(re.escape(w) for w in words[:k]), rest[off:])
        unit = _unit(" ".join(words[:k]))
        if unit is not None and found:
            return unit, " ".join(words[:k]), pos + off + found.end()
    return None, None, pos


def _quantities(text: str) -> list[_Quantity]:
    """The numbers of `text` in reading order, each with its exponent, uncertainty and unit
    (positions refer to `_plain(text)`)."""
    t = _plain(text)
    out: list[_Quantity] = []
    pos = 0
    for m in _QUANTITY.finditer(t):
        if m.start() < pos:
            continue  # inside the unit of the number before ("mol-1")
        mantissa = m.group("m").replace(",", "").lstrip("+")
        exponent = int(m.group("e") or m.group("p") or 0)
        try:
            value = float(f"{mantissa}e{exponent}")
            unc = float(f"{m.group('u')}e{m.group('ue') or 0}") if m.group("u") else None
        except ValueError:
            continue
        if unc is not None and m.group("p"):
            unc *= 10.0**exponent  # "(1.2 ± 0.1)×10^-3" is rare; "1.2×10^-3 ± 0.1" likewise
        opened = t[: m.start()].rstrip().endswith("(")
        unit, unit_text, end = _unit_after(t, m.end(), opened)
        out.append(
            _Quantity(value, mantissa, exponent, unit, unit_text, unc, m.start(), end or m.end())
        )
        pos = max(end, m.end())
    return out


def _one_quantity(ref: str) -> bool:
    """A reference that is one number, possibly with a unit or a word ('46.07 g/mol',
    '3 rings'), and not a list ('cubic; 8.93454')."""
    found = _quantities(ref)
    if len(found) != 1:
        return False
    t = _plain(ref)
    rest = (t[: found[0].start] + " " + t[found[0].end :]).strip(" .()")
    return not re.search(r"[;,\n]|\band\b", rest) and len(rest.split()) <= 2


_WORD_NUMBERS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10,
}  # fmt: skip
_COUNT = r"(\d+|" + "|".join(_WORD_NUMBERS) + r")"
_DECIMALS = re.compile(
    rf"\b{_COUNT}\s*(?:decimal\s+(?:places?|digits?|points?)|decimals|d\.\s?p\.)", re.I
)
_SIGFIGS = re.compile(
    rf"\b{_COUNT}\s*(?:significant\s+(?:figures?|digits?)|sig\.?\s*figs?|s\.\s?f\.)", re.I
)
_NEAREST = re.compile(r"\bnearest\s+(whole\s+number|integer|tenth|hundredth|thousandth)", re.I)
_NEAREST_DECIMALS = {"tenth": 1, "hundredth": 2, "thousandth": 3}


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _WORD_NUMBERS[word.lower()]


def _stated_tolerance(question: str, ref: _Quantity, value: float) -> tuple[float, str] | None:
    """The absolute tolerance the question's stated precision implies, and its wording."""
    m = _DECIMALS.search(question)
    if m:
        d = _count(m.group(1))
        tol, said = 0.5 * 10.0**-d, f"{d} decimal places"
    elif m := _SIGFIGS.search(question):
        s = max(1, _count(m.group(1)))
        magnitude = math.floor(math.log10(abs(value))) if value else 0
        tol, said = 0.5 * 10.0 ** (magnitude - s + 1), f"{s} significant figures"
    elif m := _NEAREST.search(question):
        d = _NEAREST_DECIMALS.get(m.group(1).lower().split()[-1], 0)
        tol, said = 0.5 * 10.0**-d, f"the nearest {m.group(1).lower()}"
    else:
        return None
    return max(tol, ref.half_ulp), said


def _question_units(question: str) -> list[_Unit]:
    """Units the question names: 'in g/mol', '(eV)', '[Å]', 'units of kJ/mol'. Not a
    formula with a count ('in N2' is no N^2) and not a parenthesis glued to a word
    ('compound(s)'); a lone letter in brackets only for the usual K, V, J, W, L, g, m."""
    found = []
    q = _plain(question)
    patterns = (
        r"\b(?:in|units?\s+of|expressed\s+in|measured\s+in)\s+([^\s,;?()]+(?:\s*/\s*[^\s,;?()]+)?)",
        r"(?<![^\s])\(\s*(?:in\s+)?([^()]{1,20}?)\s*\)",
        r"(?<![^\s])\[\s*([^\[\]]{1,20}?)\s*\]",
    )
    for n, pattern in enumerate(patterns):
        for m in re.finditer(pattern, q):
            text = m.group(1).rstrip(".?:")
            if re.search(r"\d", text) and _composition(text) is not None:
                continue
            if n and len(text) == 1 and text not in "KVJWLgm":
                continue
            unit = _unit(text)
            if unit is not None:
                found.append(unit)
    return found


def _tool_unit(task: Task) -> _Unit | None:
    """The unit the last tool's output type states ('Mass density in g/cm^3.')."""
    units = []
    for t in _output_types(task.tool_path):
        term = _type_term(t)
        if term is None or term.kind not in ("number", "integer"):
            continue
        m = re.search(r"\bin\s+([^\s,;]+?)\.?$", term.description.strip())
        unit = _unit(m.group(1)) if m else None
        if unit is not None:
            units.append(unit)
    return units[0] if len(units) == 1 else None


def _convert(value: float, src: _Unit, dst: _Unit) -> float | None:
    """`value` in `src` expressed in `dst`; None for a different dimension (a per-particle
    and a per-mole unit of the same quantity convert through Avogadro's number)."""
    if src.per != dst.per:
        return None
    si = value * src.factor + src.offset
    if src.dims != dst.dims:
        amount = [0] * len(_DIMS)
        amount[_DIMS.index("[substance]")] = 1
        per_mole = tuple(a - b for a, b in zip(src.dims, amount, strict=True))
        per_entity = tuple(a + b for a, b in zip(src.dims, amount, strict=True))
        if per_mole == dst.dims:
            si *= _AVOGADRO
        elif per_entity == dst.dims:
            si /= _AVOGADRO
        else:
            return None
    return (si - dst.offset) / dst.factor


def _fmt_number(x: float) -> str:
    return f"{x:.6g}"


def _factor_note(got: float, want: float) -> str:
    if not got or not want:
        return ""
    ratio = abs(got / want)
    power = round(math.log10(ratio)) if ratio > 0 else 0
    if power and abs(ratio / 10.0**power - 1) < 0.02:
        return f" (a factor of {_fmt_number(10.0 ** abs(power))})"
    return ""


def _score_number(pred: str, ref: str, task: Task) -> Verdict:
    """One number with its unit against the reference's, within the tolerance."""
    rq = _quantities(ref)[0]
    question = task.question or ""
    q_units = _question_units(question)
    target, source = rq.unit, "explicit"
    if target is None:
        target, source = (q_units[0], "question") if q_units else (_tool_unit(task), "tool")
    found = _quantities(pred)
    if not found:
        return _verdict("unjudged", "number", "the reply states no number")
    if target is not None and len(found) > 1:
        fitting = [q for q in found if q.unit is None or _convert(1.0, q.unit, target) is not None]
        found = fitting or found  # "at 25 °C it is 46.07 g/mol": the temperature is context
    verdicts = [_compare_quantity(q, rq, target, source, q_units, task) for q in found]
    if len(verdicts) == 1 or all(v.outcome == verdicts[0].outcome == "correct" for v in verdicts):
        return verdicts[0]
    shown = ", ".join(q.shown() for q in found[:6])
    return _verdict("wrong", "number", f"the reply gives several numbers ({shown}): a hedge")


def _compare_quantity(
    q: _Quantity,
    rq: _Quantity,
    target: _Unit | None,
    source: str,
    q_units: list[_Unit],
    task: Task,
) -> Verdict:
    value, unc = q.value, q.unc
    target_text = f" {target.text}" if target is not None else ""
    if q.unit is not None and target is not None:
        converted = _convert(value, q.unit, target)
        angstrom = _unit(re.sub(r"(?<![A-Za-z])A(?![A-Za-z])", "Å", q.unit_text or ""))
        if converted is None and angstrom is not None and _convert(1.0, angstrom, target):
            # "8.93 A" for a length is 8.93 Å, not amperes
            q = _Quantity(
                value, q.mantissa, q.exponent, angstrom, angstrom.text, unc, q.start, q.end
            )
            converted = _convert(value, angstrom, target)
        if converted is None:
            reference = rq.shown() if rq.unit else f"{rq.shown()}{target_text}"
            return _verdict(
                "wrong", "number", f"{q.shown()} has another dimension than {reference}"
            )
        if unc is not None and q.unit is not None:  # q.unit is set here (the Å copy too)
            unc = abs((_convert(value + unc, q.unit, target) or converted) - converted)
        value = converted
    elif q.unit is None and target is not None and source == "explicit":
        fixed = [u for u in q_units if _convert(1.0, u, target) is not None]
        if not fixed:
            return _verdict(
                "wrong",
                "number",
                f"the reference is {rq.shown()}; the reply gives no unit, the question names none",
            )
        value = _convert(value, fixed[0], target) or value
    want = rq.value
    shown = (
        f"{_fmt_number(value)}{target_text}"
        if q.unit is not None and target is not None
        else q.shown()
    )
    reference = rq.shown() if rq.unit else f"{rq.shown()}{target_text}"
    if (
        unc is not None
        and unc <= UNCERTAINTY_MAX_REL * abs(value)
        and abs(value - want) <= unc + _EPS * abs(want)
    ):
        return _verdict(
            "correct", "number", f"{reference} lies within {shown} ± {_fmt_number(unc)}"
        )
    if rq.unc is not None and abs(value - want) <= rq.unc + _EPS * abs(want):
        return _verdict(
            "correct",
            "number",
            f"{shown} lies within the reference's {rq.shown()} ± {_fmt_number(rq.unc)}",
        )
    stated = _stated_tolerance(task.question or "", rq, want)
    term = None
    types = _output_types(task.tool_path)
    if types:
        term = _type_term(types[0])
    count = rq.is_integer and (rq.unit is None or (term is not None and term.kind == "integer"))
    if stated is not None:
        tol, said = stated
        ok = abs(value - want) <= tol + _EPS * max(1.0, abs(want))
        how = f"to {said} (±{_fmt_number(tol)})"
    elif count:
        ok = value == want
        how = "exactly (a count)"
    else:
        ok = value == want if want == 0 else abs(value - want) <= REL_TOL * abs(want)
        how = f"within {REL_TOL:.0%}"
    if ok:
        return _verdict("correct", "number", f"{shown} equals {reference} {how}")
    note = _factor_note(value, want)
    return _verdict("wrong", "number", f"{shown} is not {reference} {how}{note}")


# --------------------------------------------------------------------------- molecules

_STEREO_QUESTION = re.compile(
    r"\b(stereo\w*|isomeric|chiral\w*|enantiomer\w*|diastereomer\w*|cis|trans|E/Z|R/S|"
    r"configuration|absolute)\b",
    re.I,
)


def _rdkit() -> Any:
    try:
        from rdkit import Chem, RDLogger
    except ImportError:
        return None
    RDLogger.DisableLog("rdApp.*")  # type: ignore[attr-defined]  # RDKit's stub lacks DisableLog
    return Chem


_INCHIKEY = re.compile(r"[A-Z]{14}-[A-Z]{10}-[A-Z]")
_SELFIES = re.compile(r"(?:\[[^\[\]\s]+\])+")


def _notation(text: str) -> str:
    """How a molecule is written: InChI, InChIKey, SELFIES (only bracketed symbols) or SMILES."""
    t = text.strip()
    if t.startswith("InChI="):
        return "InChI"
    if _INCHIKEY.fullmatch(t):
        return "InChIKey"
    return "SELFIES" if _SELFIES.fullmatch(t) else "SMILES"


@functools.lru_cache(maxsize=4096)
def _molecule(text: str) -> Any:
    """`text` as an RDKit molecule (SMILES, InChI or SELFIES), or None."""
    t = text.strip()
    if not t or " " in t or len(t) > 500 or not re.search(r"[A-Za-z]", t):
        return None
    chem = _rdkit()
    if chem is None:
        return None
    notation = _notation(t)
    try:
        if notation == "InChI":
            return chem.MolFromInchi(t)
        if notation == "InChIKey":
            return None
        if notation == "SELFIES":
            import selfies

            t = selfies.decoder(t) or ""
        return chem.MolFromSmiles(t) if t else None
    except Exception:
        return None


def _smiles_like(ref: str) -> bool:
    """A reference in SMILES rather than formula notation: not a formula at all, or a formula
    reading that repeats an element as written ('CCO', 'OCC'; a formula says C2O)."""
    t = ref.strip()
    if not t or " " in t:
        return False
    if _composition(t) is None:
        return True
    symbols = re.findall(r"[A-Z][a-z]?", t)
    return len(symbols) != len(set(symbols))


def _has_stereo(text: str) -> bool:
    if text.startswith("InChI="):
        return bool(re.search(r"/[tbms]\S", text))
    return bool(re.search(r"[@/\\]", text)) and _notation(text) == "SMILES"


def _chem_key(mol: Any, stereo: bool) -> str:
    return str(_rdkit().MolToSmiles(mol, isomericSmiles=stereo))


def _inchikey(mol: Any) -> str | None:
    try:
        return str(_rdkit().MolToInchiKey(mol)) or None
    except Exception:
        return None


def _molecule_candidates(pred: str) -> list[tuple[str, Any]]:
    """The molecules (or InChIKeys, with None) the reply writes: all of it, else its words."""
    whole = pred.strip().rstrip(".").strip("`'\"")
    if _INCHIKEY.fullmatch(whole):
        return [(whole, None)]
    mol = _molecule(whole)
    if mol is not None:
        return [(whole, mol)]
    out = []
    for raw in pred.split():
        tok = raw.strip("`'\",;:").rstrip(".")
        if tok.startswith("(") and tok.endswith(")") and tok.count("(") == 1:
            tok = tok[1:-1]
        if _INCHIKEY.fullmatch(tok):
            out.append((tok, None))
            continue
        if len(tok) < 2:
            continue  # "I think" is no iodine
        mol = _molecule(tok)
        if mol is not None:
            out.append((tok, mol))
    return out


def _required_notation(ref: str, task: Task) -> str | None:
    """The reference's notation when the last tool writes that one notation (a conversion
    into InChI or SELFIES asks for InChI or SELFIES), else None (any notation)."""
    notation = _notation(ref)
    written = set(_output_types(task.tool_path)) & _CHEMICAL_TYPES
    return notation if written == {notation} else None


def _score_chemical(pred: str, ref: str, task: Task) -> Verdict:
    """Canonical RDKit identity (an InChIKey exactly); stereo when the reference has it or
    the question asks; the tool's notation when the task converts into one."""
    ref_notation = _notation(ref)
    ref_mol = _molecule(ref)
    if ref_mol is None and ref_notation != "InChIKey":
        return _verdict("unjudged", "chemical", f"RDKit cannot read the reference {ref!r}")
    stereo = _has_stereo(ref) or bool(_STEREO_QUESTION.search(task.question or ""))
    found = _molecule_candidates(pred)
    required = _required_notation(ref, task)
    if ref_notation == "InChIKey":
        keys = {text if mol is None else _inchikey(mol): text for text, mol in found}
        keys.pop(None, None)
        want = ref.strip()
    else:
        keys = {_chem_key(mol, stereo): text for text, mol in found if mol is not None}
        want = _chem_key(ref_mol, stereo)
    if not keys:
        return _verdict("unjudged", "chemical", "the reply names no molecule RDKit can read")
    if len(keys) > 1:
        names = ", ".join(str(v) for v in keys.values())
        return _verdict("wrong", "chemical", f"the reply names several molecules ({names})")
    ((got, text),) = keys.items()
    written = _notation(text)
    if required is not None and written != required:
        return _verdict(
            "wrong", "chemical", f"the task asks for {required}; the reply writes {written}"
        )
    if got == want:
        how = "" if stereo or ref_notation == "InChIKey" else " (stereo not compared)"
        same = f"{text} is the same molecule as {ref}"
        return _verdict("correct", "chemical", f"{same} (canonical {want}){how}")
    if ref_notation == "InChIKey":
        how = "the same skeleton, another" if str(got)[:14] == want[:14] else "another"
        return _verdict("wrong", "chemical", f"{text} is {how} InChIKey than {want}")
    mol = next(m for t, m in found if t == text)
    if stereo and _chem_key(mol, False) == _chem_key(ref_mol, False):
        return _verdict("wrong", "chemical", f"{text} and {ref} differ in stereo")
    return _verdict(
        "wrong", "chemical", f"{text} (canonical {got}) is not {ref} (canonical {want})"
    )


# --------------------------------------------------------------------------- formulas


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


_ELEMENTS = _wordset("""H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga
    Ge As Se Br Kr Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb Te I Xe Cs Ba La Ce Pr Nd Pm
    Sm Eu Gd Tb Dy Ho Er Tm Yb Lu Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi Po At Rn Fr Ra Ac Th
    Pa U Np Pu Am Cm Bk Cf Es Fm Md No Lr Rf Db Sg Bh Hs Mt Ds Rg Cn Nh Fl Mc Lv Ts Og D T""")
_COUNT_NUM = re.compile(r"\d+(?:\.\d+)?|\.\d+")
_ELEMENT_TOKEN = re.compile(r"[A-Z][a-z]?(?:\d+(?:\.\d+)?)?")


def _group(text: str) -> dict[str, float] | None:
    """Element amounts of one formula without hydrate dots ('Ca(OH)2')."""
    stack: list[dict[str, float]] = [{}]
    i = 0
    while i < len(text):
        c = text[i]
        if c in "([":
            stack.append({})
            i += 1
        elif c in ")]":
            if len(stack) < 2:
                return None
            m = _COUNT_NUM.match(text, i + 1)
            n = float(m.group()) if m else 1.0
            i = m.end() if m else i + 1
            inner = stack.pop()
            for el, k in inner.items():
                stack[-1][el] = stack[-1].get(el, 0.0) + k * n
        else:
            m = re.match(r"[A-Z][a-z]?", text[i:])
            if not m:
                return None
            symbol = m.group()
            if symbol not in _ELEMENTS:
                if symbol[0] not in _ELEMENTS or len(symbol) == 1:
                    return None
                symbol = symbol[0]
            i += len(symbol)
            num = _COUNT_NUM.match(text, i)
            n = float(num.group()) if num else 1.0
            if num:
                i = num.end()
            stack[-1][symbol] = stack[-1].get(symbol, 0.0) + n
    if len(stack) != 1 or not stack[0]:
        return None
    return stack[0]


@functools.lru_cache(maxsize=4096)
def _composition_cached(text: str) -> tuple[tuple[str, float], ...] | None:
    t = re.sub(r"\s+", "", _plain(text)).rstrip(".")
    if not t or len(t) > 120 or not re.fullmatch(r"[A-Za-z0-9().\[\]·•*]+", t):
        return None
    total: dict[str, float] = {}
    for segment in re.split(r"[·•*]|(?<=[A-Za-z\d)\]])\.(?=\d*[A-Z(\[])", t):
        m = re.match(r"(\d+)(?=[A-Z(\[])", segment)
        times = float(m.group(1)) if m else 1.0
        amounts = _group(segment[m.end() :] if m else segment)
        if amounts is None:
            return None
        for el, k in amounts.items():
            total[el] = total.get(el, 0.0) + k * times
    return tuple(sorted(total.items()))


def _composition(text: str) -> dict[str, float] | None:
    """Element amounts of a formula ('C2H5OH' -> C 2, H 6, O 1; 'C Si'; 'CuSO4·5H2O'),
    None when `text` is not a formula of real elements."""
    found = _composition_cached(text)
    return dict(found) if found is not None else None


def _hill(comp: dict[str, float]) -> str:
    def part(el: str) -> str:
        n = comp[el]
        return el if n == 1 else f"{el}{n:g}"

    order = (["C", "H"] if "C" in comp else []) + sorted(
        e for e in comp if "C" not in comp or e not in "CH"
    )
    return "".join(part(e) for e in order if e in comp)


def _formula_candidates(pred: str) -> list[dict[str, float]]:
    whole = _composition(pred.strip().strip("`'\""))
    if whole is not None:
        return [whole]
    tokens = [t.strip("`'\",;:()").rstrip(".") for t in pred.split()]
    out, run = [], []
    for tok in [*tokens, ""]:
        single = bool(_ELEMENT_TOKEN.fullmatch(tok)) and _composition(tok) is not None
        if single:
            run.append(tok)
            continue
        if run:
            joined = "".join(run)
            if len(run) > 1 or re.search(r"\d", joined):
                comp = _composition(joined)
                if comp is not None:
                    out.append(comp)
            run = []
        comp = _composition(tok) if tok else None
        if comp is not None and (re.search(r"\d", tok) or sum(c.isupper() for c in tok) >= 2):
            out.append(comp)
    return out


def _same_composition(a: dict[str, float], b: dict[str, float]) -> bool:
    return set(a) == set(b) and all(abs(a[k] - b[k]) <= 1e-6 for k in a)


def _score_formula(pred: str, ref: str) -> Verdict:
    """Element composition, order and spacing free, case meaningful."""
    want = _composition(ref)
    if want is None:
        return _verdict("unjudged", "formula", f"{ref!r} is not a formula")
    found = _formula_candidates(pred)
    distinct: list[dict[str, float]] = []
    for comp in found:
        if not any(_same_composition(comp, d) for d in distinct):
            distinct.append(comp)
    if not distinct:
        return _verdict(
            "unjudged", "formula", "the reply names no formula (element symbols are case-sensitive)"
        )
    if len(distinct) > 1:
        return _verdict(
            "wrong",
            "formula",
            f"the reply names several formulas ({', '.join(_hill(c) for c in distinct)})",
        )
    got = distinct[0]
    if _same_composition(got, want):
        return _verdict("correct", "formula", f"the reply's composition {_hill(got)} is {ref}'s")
    return _verdict(
        "wrong", "formula", f"the reply's composition {_hill(got)} is not {ref} ({_hill(want)})"
    )


# --------------------------------------------------------------------------- sequences

_ALPHABETS = {
    "dna": set("ACGTN"),
    "rna": set("ACGUN"),
    "nucleic": set("ACGTUN"),
    "protein": set("ACDEFGHIKLMNPQRSTVWYXBZUO*"),
}
_STANDARD_AMINO_ACIDS = set("ACDEFGHIKLMNPQRSTVWY")
_COMPLEMENT = {"dna": str.maketrans("ACGT", "TGCA"), "rna": str.maketrans("ACGU", "UGCA")}


def _clean_sequence(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if not ln.lstrip().startswith(">")]
    return re.sub(r"\s+", "", "".join(lines)).strip("`'\"").rstrip(".").upper()


def _in_alphabet(text: str, alphabet: str) -> bool:
    s = _clean_sequence(text)
    return bool(re.fullmatch(r"[A-Z]+\*?", s)) and set(s) <= _ALPHABETS[alphabet]


def _bare_sequence(ref: str) -> str | None:
    """The alphabet of a reference that is a sequence by its letters and length, or None:
    at least 8 letters; nucleotides in one case, spaces allowed; a protein in capitals of
    the 20 standard amino acids without spaces (a lower-case word is English)."""
    letters = re.sub(r"\s+", "", ref.strip())
    if len(letters) < 8 or not letters.isalpha() or not (letters.isupper() or letters.islower()):
        return None
    s = letters.upper()
    for name in ("dna", "rna"):
        if set(s) <= _ALPHABETS[name]:
            return name
    if letters.isupper() and letters == ref.strip() and set(s) <= _STANDARD_AMINO_ACIDS:
        return "protein"
    return None


def _sequence_alphabet(ref: str, task: Task) -> str:
    for t in _output_types(task.tool_path):
        if t in _SEQUENCE_TYPES and _in_alphabet(ref, _SEQUENCE_TYPES[t]):
            name = _SEQUENCE_TYPES[t]
            if name == "nucleic":
                return "rna" if "U" in _clean_sequence(ref) else "dna"
            return name
    return _bare_sequence(ref) or "protein"


def _sequence_candidates(pred: str, alphabet: set[str]) -> list[str]:
    """The sequences the reply gives: all of it when it is one (one case, spaces and a
    FASTA header allowed), else runs of capital words of the alphabet (lower-case words
    only for nucleotides, and from 6 letters: "a cat" is English)."""
    body = "".join(ln for ln in pred.strip().splitlines() if not ln.lstrip().startswith(">"))
    letters = re.sub(r"[\s`'\"]+", "", body).rstrip(".")
    one_case = letters.isupper() or letters.islower()
    if re.fullmatch(r"[A-Za-z]+\*?", letters) and one_case and set(letters.upper()) <= alphabet:
        return [letters.upper()]
    nucleotides = not alphabet - _ALPHABETS["nucleic"]
    out, run = [], []
    for raw in [*pred.split(), ""]:
        tok = raw.strip("`'\",;:()").rstrip(".")
        lower_ok = nucleotides and tok.islower() and len(tok) >= 6
        word = bool(re.fullmatch(r"[A-Za-z]+\*?", tok))
        if word and set(tok.upper()) <= alphabet and (tok.isupper() or lower_ok):
            run.append(tok.upper())
            continue
        if run and len("".join(run)) >= 4:
            out.append("".join(run))
        run = []
    return out


def _score_sequence(pred: str, ref: str, task: Task) -> Verdict:
    """Exact and oriented, case and whitespace free."""
    name = _sequence_alphabet(ref, task)
    want = _clean_sequence(ref)
    alphabet = _ALPHABETS["nucleic"] if name in ("dna", "rna") else _ALPHABETS[name]
    found = list(dict.fromkeys(_sequence_candidates(pred, alphabet)))
    what = {"dna": "DNA", "rna": "RNA"}.get(name, "protein")
    if not found:
        return _verdict("unjudged", "sequence", f"the reply gives no {what} sequence")
    if len(found) > 1:
        return _verdict("unjudged", "sequence", f"the reply gives several sequences ({len(found)})")
    got = found[0]
    if got == want:
        return _verdict("correct", "sequence", f"the {what} sequence matches ({len(want)} letters)")
    if got == want[::-1]:
        return _verdict("wrong", "sequence", f"the reply is the reference {what} sequence reversed")
    if name in _COMPLEMENT:
        complement = want.translate(_COMPLEMENT[name])
        if got == complement[::-1]:
            return _verdict("wrong", "sequence", "the reply is the reference's reverse complement")
        if got == complement:
            return _verdict("wrong", "sequence", "the reply is the reference's complement")
        if got.replace("U", "T") == want.replace("U", "T"):
            return _verdict("wrong", "sequence", "the reply swaps T and U (DNA for RNA or back)")
    if len(got) != len(want):
        return _verdict(
            "wrong", "sequence", f"the reply has {len(got)} letters, the reference {len(want)}"
        )
    at = next(i for i, (a, b) in enumerate(zip(got, want, strict=True)) if a != b) + 1
    return _verdict("wrong", "sequence", f"the reply differs from the reference at position {at}")


# --------------------------------------------------------------------------- categories

_VOCABULARIES: dict[str, frozenset[str]] = {
    "crystal system": _wordset(
        "triclinic monoclinic orthorhombic tetragonal trigonal hexagonal cubic rhombohedral"
    ),
    "lattice centring": _wordset(
        "primitive base-centered body-centered face-centered side-centered rhombohedral"
    ),
    "magnetic ordering": _wordset(
        "ferromagnetic antiferromagnetic ferrimagnetic paramagnetic diamagnetic nonmagnetic "
        "fm afm fim nm"
    ),
    "conductor class": _wordset("metal semimetal semiconductor insulator"),
    "cell type": _wordset("interval triangle quadrilateral tetrahedron hexahedron prism pyramid"),
    "stability": _wordset("stable metastable unstable"),
    "acidity": _wordset("acidic basic neutral amphoteric"),
    "polarity": _wordset("polar nonpolar"),
    "solubility": _wordset("soluble insoluble"),
    "chirality": _wordset("chiral achiral"),
    "aromaticity": _wordset("aromatic nonaromatic antiaromatic aliphatic"),
    "water affinity": _wordset("hydrophobic hydrophilic amphiphilic"),
    "shell": _wordset("open-shell closed-shell"),
}
_SYNONYMS = {
    "centred": "centered",
    "metallic": "metal",
    "semiconducting": "semiconductor",
    "insulating": "insulator",
    "non-magnetic": "nonmagnetic",
    "non-polar": "nonpolar",
    "non-aromatic": "nonaromatic",
    "ferrimagnet": "ferrimagnetic",
}
_NEGATION_BEFORE = re.compile(r"\b(?:not|no|non|never|isn't|nor|rather than|instead of)\s+$")


def _canon_word(word: str) -> str:
    w = word.lower().replace("centred", "centered")
    return _SYNONYMS.get(w, w)


def _vocabulary_of(word: str) -> frozenset[str]:
    """The union of the known vocabularies that hold `word` (empty when none does)."""
    w = _canon_word(word)
    return frozenset().union(*(v for v in _VOCABULARIES.values() if w in v))


def _vocabulary_terms(text: str, vocabulary: frozenset[str]) -> list[tuple[int, int, str]]:
    """The vocabulary terms `text` names, not negated, as (start, end, term)."""
    out = []
    for m in re.finditer(r"[A-Za-z]+(?:-[A-Za-z]+)*", text):
        term = _canon_word(m.group())
        if term in vocabulary and not _NEGATION_BEFORE.search(text[: m.start()].lower()):
            out.append((m.start(), m.end(), term))
    return out


def _score_categorical(pred: str, ref: str) -> Verdict:
    """An exact token of the reference's vocabulary (never a unit heuristic)."""
    want = _canon_word(_norm(ref))
    vocabulary = _vocabulary_of(want)
    if not vocabulary:
        if _norm(pred) == _norm(ref):
            return _verdict("correct", "categorical", f"the reply is {ref!r}")
        return _verdict(
            "unjudged", "categorical", f"{ref!r} has no known vocabulary to match the reply against"
        )
    named = list(dict.fromkeys(t for _, _, t in _vocabulary_terms(pred, vocabulary)))
    if not named:
        return _verdict(
            "unjudged", "categorical", f"the reply names none of {', '.join(sorted(vocabulary))}"
        )
    if len(named) > 1:
        return _verdict(
            "wrong", "categorical", f"the reply names several terms ({', '.join(named)}): a hedge"
        )
    if named[0] == want:
        return _verdict("correct", "categorical", f"the reply names {want}")
    return _verdict("wrong", "categorical", f"{named[0]} is not {want}")


# --------------------------------------------------------------------------- multi-part

_SPLIT = re.compile(r"\s*(?:;|\n|,(?!\d{3}(?!\d))|\band\b|&)\s*")
_ORDER_WORDS = re.compile(
    r"\b(respectively|in (?:that|this|the given|the same|the following) order|in order|"
    r"first\b.*\bthen|followed by)\b",
    re.I,
)
_UNORDERED_KINDS = {"text", "chemical", "formula", "sequence"}


def _parts(text: str) -> list[str]:
    t = _strip_order_note(text)
    return [p.strip().strip(".") for p in _SPLIT.split(t) if p and _norm(p)]


def _typed_items(pred: str, ref_parts: list[str], kinds: list[Kind]) -> list[str] | None:
    """The values of the reference's kinds in the reply, in reading order (None when a
    kind cannot be picked out of running text)."""
    if any(k not in ("number", "categorical", "formula") for k in kinds):
        return None
    t = _plain(pred)
    spans: list[tuple[int, int]] = []
    if "number" in kinds:
        spans += [(q.start, q.end) for q in _quantities(pred)]
    vocabulary = frozenset().union(
        *(
            _vocabulary_of(_norm(p))
            for p, k in zip(ref_parts, kinds, strict=True)
            if k == "categorical"
        )
    )
    spans += [(s, e) for s, e, _ in _vocabulary_terms(t, vocabulary)]
    if "formula" in kinds:
        for m in re.finditer(r"\S+", t):
            tok = m.group().strip("`'\",;:()").rstrip(".")
            if _composition(tok) is not None and (
                re.search(r"\d", tok) or sum(c.isupper() for c in tok) >= 2
            ):
                spans.append((m.start(), m.end()))
    spans.sort()
    return [t[s:e] for s, e in spans]


def _score_multi(pred: str, ref: str, task: Task) -> Verdict:
    """Part by part, each typed, in the stated order; all parts must match."""
    ref_parts = _parts(_plain(ref))
    part_task = task.model_copy(update={"options": None, "format": None, "answer": None})
    kinds = [answer_kind(p, part_task) for p in ref_parts]
    pred_parts = _parts(_plain(pred))
    n = len(ref_parts)
    if len(pred_parts) != n:
        items = _typed_items(pred, ref_parts, kinds)
        if items is not None and len(items) == n:
            pred_parts = items
        elif items is not None and 0 < len(items) < n:
            return _verdict("wrong", "multi", f"the reply gives {len(items)} of the {n} parts")
        else:
            return _verdict(
                "unjudged", "multi", f"the reply's parts cannot be aligned with the reference's {n}"
            )
    ordered = not set(kinds) <= _UNORDERED_KINDS or bool(_ORDER_WORDS.search(task.question or ""))
    if ordered:
        verdicts = [
            score_answer(p, r, part_task) for p, r in zip(pred_parts, ref_parts, strict=True)
        ]
        return _combine(verdicts, "in order")
    left = list(pred_parts)
    verdicts = []
    for r in ref_parts:
        tries = [(p, score_answer(p, r, part_task)) for p in left]
        hit = next(((p, v) for p, v in tries if v.correct), None)
        if hit is not None:
            left.remove(hit[0])
            verdicts.append(hit[1])
        elif tries and all(v.outcome == "wrong" for _, v in tries):
            verdicts.append(_verdict("wrong", kinds[0], f"no part of the reply is {r}"))
        else:
            verdicts.append(
                _verdict("unjudged", "text", f"the rules cannot tell whether the reply names {r}")
            )
    return _combine(verdicts, "in any order (a collection)")


def _combine(verdicts: list[Verdict], how: str) -> Verdict:
    wrong = [(i, v) for i, v in enumerate(verdicts, 1) if v.outcome == "wrong"]
    if wrong:
        said = "; ".join(f"part {i}: {v.reason}" for i, v in wrong)
        return _verdict("wrong", "multi", said)
    open_ = [(i, v) for i, v in enumerate(verdicts, 1) if v.outcome == "unjudged"]
    if open_:
        said = "; ".join(f"part {i}: {v.reason}" for i, v in open_)
        return _verdict("unjudged", "multi", said)
    return _verdict("correct", "multi", f"all {len(verdicts)} parts match {how}")


# --------------------------------------------------------------------------- true/false

_TRUTH_WORDS = {"true", "false", "yes", "no", "t", "f"}
_AFFIRM = {"true", "correct", "yes", "accurate"}
_DENY = {"false", "incorrect", "untrue", "wrong", "no", "inaccurate"}
_NEGATORS = {"not", "never", "nor", "neither"}
_FILLER = {
    "is", "it", "this", "that", "be", "was", "are", "were", "statement", "claim", "answer",
    "the", "at", "all", "entirely", "quite", "completely", "really", "necessarily",
    "strictly", "case", "definitely", "actually", "so", "s",
}  # fmt: skip
_DOUBT = {
    "know", "tell", "sure", "certain", "unsure", "unclear", "uncertain", "determine",
    "whether", "if", "maybe", "perhaps", "possibly", "might", "may", "could", "depends",
    "depend", "unknown", "undetermined", "decide",
}  # fmt: skip
_CLAUSE = re.compile(
    r"[,;:.!?/()\[\]\n]|\b(?:but|however|although|though|because|since|or|and|whereas|yet)\b"
)


def _polarity(text: str) -> bool | str | None:
    """True or False as the text affirms or denies, "hedge" when it says both, None when it
    says neither or doubts ("I cannot tell whether it is true")."""
    t = text.strip().lower()
    if re.fullmatch(r"[tfyn]\.?", t):
        return t[0] in "ty"
    t = t.replace("cannot", "can not").replace("n't", " not")
    said: set[bool] = set()
    for clause in _CLAUSE.split(t):
        words = re.findall(r"[a-z]+", clause)
        found, negations = [], 0
        for i, w in enumerate(words):
            if w in _NEGATORS:
                negations += 1
            elif w in _AFFIRM or w in _DENY:
                if w in ("yes", "no") and i != 0:
                    negations = 0
                    continue  # "there is no evidence": a determiner, not an answer
                found.append((w in _AFFIRM) != (negations % 2 == 1))
                negations = 0
            elif w not in _FILLER:
                negations = 0
        if found and any(w in _DOUBT for w in words):
            return None
        said.update(found)
    if len(said) > 1:
        return "hedge"
    return said.pop() if said else None


def _score_truth(pred: str, ref: str) -> Verdict:
    """The reply's affirmation or negation against the reference's."""
    want = _polarity(ref)
    if not isinstance(want, bool):
        return _verdict("unjudged", "truth", f"the reference {ref!r} is neither true nor false")
    got = _polarity(pred)
    if got == "hedge":
        return _verdict("wrong", "truth", "the reply says both true and false: a hedge")
    if got is None:
        return _verdict("unjudged", "truth", "the reply neither affirms nor denies")
    name = {True: "true", False: "false"}
    if got == want:
        return _verdict("correct", "truth", f"the reply says {name[got]}, as the reference")
    return _verdict(
        "wrong", "truth", f"the reply says {name[bool(got)]}, the reference {name[want]}"
    )


# --------------------------------------------------------------------------- multiple choice


def _letter(text: str, options: dict[str, str]) -> tuple[str | None, str]:
    """The option letter the reply names and the rest of the reply beside it."""
    t = text.strip()
    letters = {k.upper(): k for k in options}
    # a capital alone or before a space; a small letter only before ")", ".", ":" or the
    # end ("a plausible essay" is an article, not option A)
    m = re.match(r"^\(?\s*(?:([A-Z])\s*(?:[).:\]]|$|\s)|([a-z])\s*(?:[).:\]]|$))", t)
    if m and (m.group(1) or m.group(2)).upper() in letters:
        return letters[(m.group(1) or m.group(2)).upper()], t[m.end() :]
    m = re.search(r"\b(?:option|answer|choice)\s*(?:is\s*)?\(?([A-Za-z])\)?(?![A-Za-z])", t, re.I)
    if m and m.group(1).upper() in letters:
        return letters[m.group(1).upper()], t[: m.start()] + " " + t[m.end() :]
    return None, t


def _names_several(text: str, options: dict[str, str]) -> bool:
    """True when `text` names two or more option letters joined as alternatives."""
    keys = "".join(re.escape(k.upper()) for k in options)
    pair = rf"(?<![A-Za-z])([{keys}])\)?\s*(?:or|and|/|,|&)\s*\(?([{keys}])(?![A-Za-z])"
    # lower-case letters only where nothing follows ("b or a", not "B, a good one")
    lower = pair.lower() + r"\)?\s*(?:$|[.;)])"
    found = re.findall(pair, text) + re.findall(lower, text.lower().strip())
    return any(a.upper() != b.upper() for a, b in found)


def _same_value(text: str, value: str) -> bool:
    """The reply's text is the option's value: equal words, the same molecule or formula,
    or the same number at the coarser of the two written precisions."""
    if _norm(text) == _norm(value):
        return True
    mol, other = _molecule(text.strip()), _molecule(value.strip())
    if mol is not None and other is not None and _smiles_like(value):
        return _chem_key(mol, True) == _chem_key(other, True)
    a, b = _composition(text), _composition(value)
    if a is not None and b is not None and sum(c.isupper() for c in text) >= 1:
        return _same_composition(a, b)
    qa, qb = _quantities(text), _quantities(value)
    if len(qa) == 1 and len(qb) == 1 and _one_quantity(text):
        tol = max(qa[0].half_ulp, qb[0].half_ulp)
        return abs(qa[0].value - qb[0].value) <= tol + _EPS * abs(qb[0].value)
    return False


def _options_named(text: str, options: dict[str, str]) -> set[str]:
    t = text.strip().strip("()[]").strip(" .:,;-–—=").strip("()[]").strip()
    if not t:
        return set()
    return {k for k, v in options.items() if _same_value(t, str(v))}


def _score_choice(pred: str, ref: str, task: Task) -> Verdict:
    """The option letter, checked against any option value quoted beside it."""
    options = {str(k): str(v) for k, v in (task.options or {}).items()}
    if not options:
        got = re.match(r"^\(?\s*([A-Za-z])\b", pred.strip())
        if len(ref.strip()) == 1 and got:
            same = got.group(1).upper() == ref.strip().upper()
            return _verdict(
                "correct" if same else "wrong",
                "choice",
                f"the reply names {got.group(1).upper()}, the reference {ref.strip().upper()}",
            )
        return _verdict("unjudged", "choice", "the task lists no options to map the reply onto")
    want, _ = _letter(ref, options)
    if want is None:
        named = _options_named(ref, options)
        want = next(iter(named)) if len(named) == 1 else None
    if want is None:
        return _verdict("unjudged", "choice", f"the reference {ref!r} names no option")
    if _names_several(pred, options):
        return _verdict("wrong", "choice", "the reply names several options: a hedge")
    letter, rest = _letter(pred, options)
    values = _options_named(rest, options)
    alternatives = [a for a in re.split(r"\s+or\s+|\s*/\s*", rest.strip()) if a.strip()]
    if len(alternatives) > 1:
        hit = set().union(*(_options_named(a, options) for a in alternatives))
        if len(hit) > 1:
            return _verdict(
                "wrong",
                "choice",
                f"the reply names the values of options {', '.join(sorted(hit))}: a hedge",
            )
    if letter is not None and values and letter not in values:
        other = ", ".join(sorted(values))
        return _verdict(
            "wrong", "choice", f"{rest.strip()} is option {other}'s value, the reply names {letter}"
        )
    if letter is None and len(values) == 1:
        letter = next(iter(values))
        how = f"the reply's value is option {letter}'s"
    elif letter is None and len(values) > 1:
        return _verdict(
            "unjudged", "choice", f"the reply's value fits options {', '.join(sorted(values))}"
        )
    else:
        how = f"the reply names {letter}"
    if letter is None:
        return _verdict("unjudged", "choice", "the reply names no option")
    if letter == want:
        return _verdict("correct", "choice", f"{how}, the reference {want}")
    return _verdict("wrong", "choice", f"{how}, the reference {want}")


# --------------------------------------------------------------------------- free text


def _score_text(pred: str, ref: str) -> Verdict:
    if _norm(pred) == _norm(ref):
        return _verdict("correct", "text", "the reply is the reference, up to case and spacing")
    return _verdict("unjudged", "text", "free text the rules cannot compare (a judge can)")


class _TwoDecisions(ValueError):
    pass


def _one_decision(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """A JSON object hook refusing a repeated key: json keeps the last of
    {"decision": "No", "decision": "Yes"} silently."""
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise _TwoDecisions("a key given twice")
    return dict(pairs)


_FENCE = re.compile(r"^```(?:json)?\s*\n?(.*?)\n?```$", re.S)


def parse_judge_reply(text: str | None) -> bool | None:
    """The judge's verdict from its reply, read strictly: the whole reply (a ```json fence
    allowed) must be one JSON object whose "decision" is "Yes" or "No"; anything else
    (prose around it, "Yes / No", a missing decision) is None, i.e. unjudged."""
    body = (text or "").strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    try:
        value = json.loads(body, object_pairs_hook=_one_decision)
    except (json.JSONDecodeError, ValueError):  # _TwoDecisions is a ValueError
        return None
    if not isinstance(value, dict) or not isinstance(value.get("decision"), str):
        return None
    decision = value["decision"].strip().lower()
    return {"yes": True, "no": False}.get(decision)
