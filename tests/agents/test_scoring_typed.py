"""The typed answer scorer (issue 20): one table of replies across every answer kind, and
one test per rule showing that a row flips when that rule is taken out."""

from __future__ import annotations

import re

import pytest

from scigate.agents import Task, Verdict, answer_kind, answer_match, score_answer
from scigate.agents import _scoring as scoring

_MC = {"A": "2.858", "B": "3.104", "C": "1.972", "D": "4.011"}
_SMILES_MC = {"A": "CCO", "B": "CCCCO"}
_CHOICE = {"options": _MC, "format": "multiple choice"}
_TF = {"format": "true/false"}
_MW = {"question": "What is the molecular weight of CCO?", "tool_path": ["SMILESToWeight"]}
_PEPTIDE = {"tool_path": ["TranslateDNAtoAminoAcidSequence"]}
_DNA = {"tool_path": ["GetComplement"]}
_CRYSTAL = {"tool_path": ["GetCrystalSystemFromCIF"]}
_SMILES_TOOL = {"tool_path": ["CanonicalizeSMILES"]}
_HILL = {"tool_path": ["GetHillFormula"]}
_GAP = {"question": "What is the band gap of mp-149?", "tool_path": ["GetBandGapByMaterialId"]}
_SELFIES = {"tool_path": ["SMILEStoSELFIES"]}
_INCHIKEY = {"tool_path": ["InChIToInChIKey"]}
_KEY = "LFQSCWFLJHTTHZ-UHFFFAOYSA-N"  # ethanol
_ORDER = {"question": "Give the net charge and the number of rings, in that order."}

# (reply, reference, task fields, answer kind, outcome); "issue" marks the examples
ROWS = [
    # multiple choice
    ("C (2.858)", "A", _CHOICE, "choice", "wrong"),  # issue: 2.858 is option A's value
    ("A (2.858)", "A", _CHOICE, "choice", "correct"),
    ("A (3.104)", "A", _CHOICE, "choice", "wrong"),  # the right letter, option B's value
    ("2.858", "A", _CHOICE, "choice", "correct"),  # a value alone is mapped to its option
    ("3.10", "A", _CHOICE, "choice", "wrong"),  # option B's value at the written precision
    ("B or A", "A", _CHOICE, "choice", "wrong"),  # a hedge
    ("A or B", "A", _CHOICE, "choice", "wrong"),
    ("Answer: (A)", "A", _CHOICE, "choice", "correct"),
    ("I cannot tell", "A", _CHOICE, "choice", "unjudged"),
    ("a plausible essay", "A", _CHOICE, "choice", "unjudged"),  # an article, not option A
    ("Option A: 2.858", "A", _CHOICE, "choice", "correct"),
    ("OCCCC", "B", {"options": _SMILES_MC}, "choice", "correct"),  # the same molecule as B
    ("CCCCO", "B", {"options": _SMILES_MC}, "choice", "correct"),
    ("(A)", "B", {"options": _SMILES_MC}, "choice", "wrong"),
    # true/false
    ("False, it is not true.", "False", _TF, "truth", "correct"),  # issue
    ("It is false", "False", _TF, "truth", "correct"),  # issue
    ("Not false", "True", _TF, "truth", "correct"),  # issue
    ("True, but only above 300 K", "True", _TF, "truth", "correct"),
    ("true or false", "True", _TF, "truth", "wrong"),  # a hedge, like "B or A"
    ("True/False", "False", _TF, "truth", "wrong"),
    ("it is not untrue", "True", _TF, "truth", "correct"),  # a double negative affirms
    ("It is not the case that it is false", "True", _TF, "truth", "correct"),
    ("I cannot tell whether it is true", "True", _TF, "truth", "unjudged"),  # doubt
    ("n/a", "False", _TF, "truth", "unjudged"),
    ("F", "False", _TF, "truth", "correct"),
    ("Yes, it is soluble", "Yes", {}, "truth", "correct"),
    ("No, it is true", "True", _TF, "truth", "wrong"),
    ("The statement is incorrect.", "True", {"tool_path": ["IsMetalByFormula"]}, "truth", "wrong"),
    # numbers
    ("\u22121.23", "-1.23", {}, "number", "correct"),  # issue: a Unicode minus
    ("-1.23", "\u22121.23", {}, "number", "correct"),
    ("1.23", "\u22121.23", {}, "number", "wrong"),
    ("46.07 ± 0.01", "46.069", {}, "number", "correct"),  # issue
    ("47.0 ± 1.0", "46.069", {}, "number", "correct"),  # 2 % off, within the uncertainty
    ("47.0 ± 10", "46.069", {}, "number", "wrong"),  # a 20 % uncertainty is a hedge
    ("46.069", "46.07 ± 0.002", {}, "number", "correct"),
    ("1,234.5", "1234.5", {}, "number", "correct"),  # thousands separator
    ("3,14", "3.14", {}, "number", "wrong"),  # a comma is never a decimal mark
    ("1.2×10^-3", "0.0012", {}, "number", "correct"),
    ("1.2·10⁻³ mol", "1.2e-3 mol", {}, "number", "correct"),
    ("1.2e-3", "1.2e-2", {}, "number", "wrong"),
    ("46.069 kg/mol", "46.069 g/mol", {}, "number", "wrong"),  # issue: a factor of 1000
    ("46.069 kg/mol", "46.069", _MW, "number", "wrong"),  # the tool's output is in g/mol
    ("0.046069 kg/mol", "46.069 g/mol", {}, "number", "correct"),  # converted
    ("46.07 Da", "46.069 g/mol", {}, "number", "correct"),  # per particle = per mole
    ("46.069 eV", "46.069 g/mol", {}, "number", "wrong"),  # another dimension
    ("46.069", "46.069 g/mol", {"question": "Molecular weight of CCO?"}, "number", "wrong"),
    (
        "46.069",
        "46.069 g/mol",
        {"question": "Molecular weight of CCO in g/mol?"},
        "number",
        "correct",
    ),
    ("46.3 g/mol", "46.07", {}, "number", "correct"),  # no unit to check against
    ("25 °C", "298.15 K", {}, "number", "correct"),
    ("1.12 eV", "1.12", _GAP, "number", "correct"),
    ("1.12 J", "1.12", _GAP, "number", "wrong"),
    ("0.05 eV/atom", "0.05 eV", {}, "number", "wrong"),
    ("8.93 A", "8.93 Å", {}, "number", "correct"),  # a plain A for a length is Å
    ("154 pm", "1.54 Å", {}, "number", "correct"),
    ("1.10 Å", "1.10", {"question": "What is the bond length in N2?"}, "number", "correct"),
    ("46.07 g/mol", "46.07", {"question": "Which compound(s) weigh most?"}, "number", "correct"),
    ("0.046069", "46.069 g/mol", {"question": "Its molar mass in kg/mol?"}, "number", "correct"),
    ("0.0012", "0.001", {"question": "Give it to 3 decimal places."}, "number", "correct"),
    ("0.0012", "0.001", {}, "number", "wrong"),  # 20 % off without a stated precision
    ("45.09", "45.085", {"question": "Round to two decimal places."}, "number", "correct"),
    ("45.1", "45.085", {"question": "Round to two decimal places."}, "number", "wrong"),
    ("4500", "4480", {"question": "to two significant figures"}, "number", "correct"),
    ("100", "101", {}, "number", "wrong"),  # counts exactly
    ("194.19 g/mol", "194.2", {}, "number", "correct"),
    ("198", "194.2", {}, "number", "wrong"),
    ("0.5 1 1.5 2 2.5 3", "2", {}, "number", "wrong"),  # several numbers: a hedge
    ("It has 4 rings", "4", {"tool_path": ["GetRingsNum"]}, "number", "correct"),
    ("C9H8O4 has 1 ring", "4", {}, "number", "wrong"),  # formula subscripts are no answer
    ("no idea", "4", {}, "number", "unjudged"),
    # chemical identity
    ("COC", "CCO", {}, "chemical", "wrong"),  # issue
    ("OCC", "CCO", {}, "chemical", "correct"),
    ("The SMILES is OCC.", "CCO", _SMILES_TOOL, "chemical", "correct"),
    ("InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3", "CCO", {}, "chemical", "correct"),
    ("OCC", "InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3", {}, "chemical", "correct"),
    ("CC[C@H](O)C", "CC[C@@H](O)C", {}, "chemical", "wrong"),  # the reference has stereo
    ("CCC(O)C", "CC[C@@H](O)C", {}, "chemical", "wrong"),
    ("CC[C@H](O)C", "CCC(O)C", {}, "chemical", "correct"),  # stereo not asked
    ("CC[C@H](O)C", "CCC(O)C", {"question": "Give the isomeric SMILES."}, "chemical", "wrong"),
    ("ethanol", "CCO", {}, "chemical", "unjudged"),  # names are not resolved
    ("[O][C][C]", "[C][C][O]", _SELFIES, "chemical", "correct"),
    ("[C][O][C]", "[C][C][O]", _SELFIES, "chemical", "wrong"),
    ("CCO", "[C][C][O]", _SELFIES, "chemical", "wrong"),  # the task converts into SELFIES
    (
        "CCO",
        "InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3",
        {"tool_path": ["SMILESToInChI"]},
        "chemical",
        "wrong",
    ),
    ("The key is LFQSCWFLJHTTHZ-UHFFFAOYSA-N.", _KEY, _INCHIKEY, "chemical", "correct"),
    ("LFQSCWFLJHTTHZ-UHFFFAOYSA-M", _KEY, _INCHIKEY, "chemical", "wrong"),
    ("CCO", _KEY, {}, "chemical", "correct"),  # its InChIKey
    (
        "InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3",
        "CCO",
        {"tool_path": ["DetermineBonds"]},
        "chemical",
        "correct",
    ),
    ("CO", "CO", {"tool_path": ["DetermineBonds"]}, "formula", "correct"),
    # formulas
    ("CSi", "C Si", {}, "formula", "correct"),  # issue: Hill vs pymatgen
    ("C Si", "CSi", _HILL, "formula", "correct"),
    ("C2H5OH", "C2H6O", {}, "formula", "correct"),  # composition equal
    ("H10C8N4O2", "C8H10N4O2", {}, "formula", "correct"),
    ("C8H10N4O", "C8H10N4O2", {}, "formula", "wrong"),
    ("Co", "CO", {}, "formula", "wrong"),  # cobalt is not carbon monoxide
    ("co", "CO", {}, "formula", "unjudged"),
    ("CuSO4·5H2O", "CuH10SO9", {}, "formula", "correct"),
    # sequences
    ("TGCATCGA", "AGCTACGT", {}, "sequence", "wrong"),  # issue: the reverse
    ("TCGATGCA", "AGCTACGT", {}, "sequence", "wrong"),  # the complement
    ("ACGTAGCT", "AGCTACGT", {}, "sequence", "wrong"),  # the reverse complement
    ("agct acgt", "AGCTACGT", {}, "sequence", "correct"),  # case and spaces free
    ("AGCUACGU", "AGCTACGT", _DNA, "sequence", "wrong"),  # RNA for DNA
    ("VAGLKM", "MKLGAV", _PEPTIDE, "sequence", "wrong"),  # issue: a reversed peptide
    ("The peptide is MKLGAV.", "MKLGAV", _PEPTIDE, "sequence", "correct"),
    ("MKVLAAGIVA", "MKVLAAGIVG", {}, "sequence", "wrong"),
    ("MAK*", "MAK*", _PEPTIDE, "sequence", "correct"),  # a stop codon
    ("KAM*", "MAK*", _PEPTIDE, "sequence", "wrong"),
    # categorical words
    ("hexagonal", "cubic", _CRYSTAL, "categorical", "wrong"),
    ("The crystal system is Cubic.", "cubic", _CRYSTAL, "categorical", "correct"),
    ("It is not cubic but hexagonal", "hexagonal", {}, "categorical", "correct"),
    ("cubic or tetragonal", "cubic", {}, "categorical", "wrong"),
    ("It is a semiconductor", "metal", {}, "categorical", "wrong"),
    ("metallic", "metal", {}, "categorical", "correct"),
    # multi-part answers
    ("11 and 0", "0; 11", _ORDER, "multi", "wrong"),  # issue: the stated order
    ("0 and 11", "0; 11", _ORDER, "multi", "correct"),
    ("11 and 0", "0; 11", {}, "multi", "wrong"),  # numbers answer positions
    ("hexagonal; 8.93454", "cubic; 8.93454", {}, "multi", "wrong"),  # issue
    ("cubic; 8.93454", "cubic; 8.93454", {}, "multi", "correct"),
    ("cubic, 8.93454 Å", "cubic; 8.93454 Å", {}, "multi", "correct"),
    ("3; 45.084999999999994", "3; 45.085", {}, "multi", "correct"),  # issue
    ("3; 45.08", "3; 45.085", {}, "multi", "correct"),  # issue
    ("3; 46", "3; 45.085", {}, "multi", "wrong"),
    ("The count is 3 and the mass 45.08 g/mol", "3; 45.085", {}, "multi", "correct"),
    ("3", "3; 45.085", {}, "multi", "wrong"),  # a part missing
    ("ethanol, methanol", "methanol, ethanol", {}, "multi", "correct"),  # a collection
    ("C2H6O, CH4O", "CH4O, C2H6O, C3H8O", {}, "multi", "wrong"),
    # free text
    ("Benzene ring.", "benzene ring", {"format": "content completion"}, "text", "correct"),
    ("an aromatic ring", "benzene ring", {"format": "content completion"}, "text", "unjudged"),
    ("", "benzene ring", {}, "text", "wrong"),
]


def _task(fields: dict, reference: str) -> Task:
    return Task(**{"question": "q", **fields, "answer": reference})


def _id(row: tuple) -> str:
    reply, reference, _, kind, outcome = row
    return re.sub(r"\s+", "_", f"{kind}-{outcome}-{reply[:24]}-vs-{reference[:16]}")


def test_the_table_is_large_and_covers_every_kind() -> None:
    assert len(ROWS) >= 60
    kinds = {r[3] for r in ROWS}
    assert kinds == {
        "number", "chemical", "formula", "sequence", "categorical", "multi", "truth",
        "choice", "text",
    }  # fmt: skip
    assert {r[4] for r in ROWS} == {"correct", "wrong", "unjudged"}


@pytest.mark.parametrize(
    ("reply", "reference", "fields", "kind", "outcome"), ROWS, ids=[_id(r) for r in ROWS]
)
def test_typed_verdicts(reply: str, reference: str, fields: dict, kind: str, outcome: str) -> None:
    task = _task(fields, reference)
    assert answer_kind(reference, task) == kind
    verdict = score_answer(reply, reference, task)
    assert (verdict.kind, verdict.outcome) == (kind, outcome), verdict.reason
    assert verdict.reason
    assert answer_match(reply, task) is {"correct": True, "wrong": False}.get(outcome)


def test_the_verdict_record() -> None:
    v = score_answer("OCC", "CCO", Task(question="q"))
    assert isinstance(v, Verdict) and v.correct and v.kind == "chemical"
    assert Verdict.model_validate(v.model_dump()) == v
    assert not score_answer("COC", "CCO", Task(question="q")).correct
    none = score_answer("OCC", None, Task(question="q"))
    assert none.outcome == "unjudged" and "no reference" in none.reason
    # reference None means the task's own answer
    assert score_answer("OCC", None, Task(question="q", answer="CCO")).correct


def test_reasons_are_plain_words() -> None:
    task = Task(question="q", options=_MC, format="multiple choice")
    assert (
        score_answer("C (2.858)", "A", task).reason
        == "(2.858) is option A's value, the reply names C"
    )
    wrong_unit = score_answer("46.069 kg/mol", "46.069 g/mol", Task(question="q")).reason
    assert "46069 g/mol" in wrong_unit and "a factor of 1000" in wrong_unit
    assert "reversed" in score_answer("TGCATCGA", "AGCTACGT", Task(question="q")).reason
    assert (
        "cubic" in score_answer("hexagonal; 8.93454", "cubic; 8.93454", Task(question="q")).reason
    )


def test_the_kind_comes_from_the_task_never_the_reply() -> None:
    """answer_kind takes no reply; the same reference is a molecule for a SMILES tool and a
    formula otherwise, and a reply that looks like a number changes nothing."""
    assert answer_kind("CO", Task(question="q")) == "formula"
    assert answer_kind("CO", Task(question="q", tool_path=["CanonicalizeSMILES"])) == "chemical"
    assert score_answer("OC", "CO", Task(question="q", tool_path=["CanonicalizeSMILES"])).correct
    assert score_answer("12", "cubic", Task(question="q")).kind == "categorical"


# --------------------------------------------------------------------------- each rule


def _outcome(reply: str, reference: str, fields: dict | None = None) -> str:
    return score_answer(reply, reference, _task(fields or {}, reference)).outcome


def test_rule_unicode_minus(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _outcome("\u22121.23", "-1.23") == "correct"
    plain = scoring._plain
    monkeypatch.setattr(scoring, "_plain", lambda t: plain(t.replace("\u2212", "")))
    assert _outcome("\u22121.23", "-1.23") == "wrong"


def test_rule_thousands_separators(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _outcome("1,234.5", "1234.5") == "correct"
    without = scoring._QUANTITY.pattern.replace(r"\d{1,3}(?:,\d{3}(?!\d))+(?:\.\d+)?|", "")
    monkeypatch.setattr(scoring, "_QUANTITY", re.compile(without))
    assert _outcome("1,234.5", "1234.5") == "wrong"


def test_rule_scientific_notation(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _outcome("1.2×10^-3", "0.0012") == "correct"
    e_only = r"(?:[eE](?P<e>[-+]?\d+)|(?!)(?P<p>\d))"  # "1.2e-3" kept, "×10^" taken out
    without = scoring._QUANTITY.pattern.replace(scoring._EXPONENT, e_only)
    monkeypatch.setattr(scoring, "_QUANTITY", re.compile(without))
    assert _outcome("1.2×10^-3", "0.0012") == "wrong"


def test_rule_uncertainty(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _outcome("47.0 ± 1.0", "46.069") == "correct"
    monkeypatch.setattr(scoring, "UNCERTAINTY_MAX_REL", 0.0)
    assert _outcome("47.0 ± 1.0", "46.069") == "wrong"


def test_rule_stated_precision(monkeypatch: pytest.MonkeyPatch) -> None:
    fields = {"question": "Give it to 3 decimal places."}
    assert _outcome("0.0012", "0.001", fields) == "correct"
    monkeypatch.setattr(scoring, "_stated_tolerance", lambda *a: None)
    assert _outcome("0.0012", "0.001", fields) == "wrong"


def test_rule_counts_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _outcome("100", "101") == "wrong"
    monkeypatch.setattr(scoring._Quantity, "is_integer", property(lambda self: False))
    assert _outcome("100", "101") == "correct"


def test_rule_units_converted(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _outcome("46.069 kg/mol", "46.069 g/mol") == "wrong"
    assert _outcome("0.046069 kg/mol", "46.069 g/mol") == "correct"
    monkeypatch.setattr(scoring, "_unit", lambda text: None)
    assert _outcome("46.069 kg/mol", "46.069 g/mol") == "correct"


def test_rule_unit_from_the_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _outcome("46.069 kg/mol", "46.069", _MW) == "wrong"
    monkeypatch.setattr(scoring, "_output_types", lambda path: ())
    assert _outcome("46.069 kg/mol", "46.069", _MW) == "correct"


def test_rule_missing_unit_only_when_the_question_fixes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    fields = {"question": "Molecular weight of CCO in g/mol?"}
    assert _outcome("46.069", "46.069 g/mol", fields) == "correct"
    monkeypatch.setattr(scoring, "_question_units", lambda question: [])
    assert _outcome("46.069", "46.069 g/mol", fields) == "wrong"


def test_rule_several_numbers_are_a_hedge(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _outcome("0.5 1 1.5 2 2.5 3", "2") == "wrong"
    quantities = scoring._quantities
    monkeypatch.setattr(
        scoring,
        "_quantities",
        lambda t: [q for q in quantities(t) if q.value == 2] or quantities(t),
    )
    assert _outcome("0.5 1 1.5 2 2.5 3", "2") == "correct"


def test_rule_rdkit_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _outcome("COC", "CCO") == "wrong"
    monkeypatch.setattr(scoring, "_molecule", lambda text: None)
    assert _outcome("COC", "CCO") == "correct"  # read as formulas, both are C2O


def test_rule_stereo_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    fields = {"question": "Give the isomeric SMILES."}
    assert _outcome("CC[C@H](O)C", "CCC(O)C", fields) == "wrong"
    monkeypatch.setattr(scoring, "_STEREO_QUESTION", re.compile(r"(?!)"))
    assert _outcome("CC[C@H](O)C", "CCC(O)C", fields) == "correct"


def test_rule_formula_composition(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _outcome("C Si", "CSi") == "correct"
    monkeypatch.setattr(scoring, "_composition", lambda text: None)
    assert _outcome("C Si", "CSi") != "correct"


def test_rule_sequence_orientation(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _outcome("TGCATCGA", "AGCTACGT") == "wrong"
    monkeypatch.setattr(scoring, "_bare_sequence", lambda ref: None)
    assert _outcome("TGCATCGA", "AGCTACGT") == "unjudged"


def test_rule_sequence_from_the_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _outcome("VAGLKM", "MKLGAV", _PEPTIDE) == "wrong"
    monkeypatch.setattr(scoring, "_SEQUENCE_TYPES", {})
    assert _outcome("VAGLKM", "MKLGAV", _PEPTIDE) == "unjudged"


def test_rule_categorical_vocabulary(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _outcome("hexagonal; 8.93454", "cubic; 8.93454") == "wrong"
    monkeypatch.setattr(scoring, "_VOCABULARIES", {})
    assert _outcome("hexagonal; 8.93454", "cubic; 8.93454") == "unjudged"


def test_rule_categorical_negation(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _outcome("It is not cubic but hexagonal", "hexagonal") == "correct"
    monkeypatch.setattr(scoring, "_NEGATION_BEFORE", re.compile(r"(?!)"))
    assert _outcome("It is not cubic but hexagonal", "hexagonal") == "wrong"


def test_rule_multi_part_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _outcome("11 and 0", "0; 11") == "wrong"  # numbers answer positions
    assert _outcome("11 and 0", "0; 11", _ORDER) == "wrong"
    monkeypatch.setattr(scoring, "_UNORDERED_KINDS", {"number"})
    assert _outcome("11 and 0", "0; 11") == "correct"
    monkeypatch.setattr(scoring, "_ORDER_WORDS", re.compile(r"(?!)"))
    assert _outcome("11 and 0", "0; 11", _ORDER) == "correct"


def test_rule_multi_part_split_and_typed(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _outcome("3; 45.084999999999994", "3; 45.085") == "correct"
    monkeypatch.setattr(scoring, "_parts", lambda text: [text.strip()])
    assert _outcome("3; 45.084999999999994", "3; 45.085") != "correct"


def test_rule_collections_in_any_order(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _outcome("ethanol, methanol", "methanol, ethanol") == "correct"
    monkeypatch.setattr(scoring, "_UNORDERED_KINDS", set())
    assert _outcome("ethanol, methanol", "methanol, ethanol") == "unjudged"


def test_rule_truth_negations(monkeypatch: pytest.MonkeyPatch) -> None:
    tf = {"format": "true/false"}
    assert _outcome("Not false", "True", tf) == "correct"
    assert _outcome("False, it is not true.", "False", tf) == "correct"
    monkeypatch.setattr(scoring, "_NEGATORS", set())
    assert _outcome("Not false", "True", tf) == "wrong"
    assert _outcome("False, it is not true.", "False", tf) == "wrong"


def test_rule_truth_doubt(monkeypatch: pytest.MonkeyPatch) -> None:
    tf = {"format": "true/false"}
    assert _outcome("I cannot tell whether it is true", "True", tf) == "unjudged"
    monkeypatch.setattr(scoring, "_DOUBT", set())
    assert _outcome("I cannot tell whether it is true", "True", tf) == "correct"


def test_rule_truth_hedge(monkeypatch: pytest.MonkeyPatch) -> None:
    tf = {"format": "true/false"}
    assert _outcome("true or false", "True", tf) == "wrong"
    monkeypatch.setattr(scoring, "_CLAUSE", re.compile(r"[,;:.!?/()\[\]\n]"))
    monkeypatch.setattr(scoring, "_DENY", scoring._DENY - {"false"})
    assert _outcome("true or false", "True", tf) == "correct"


def test_rule_choice_letter_and_value_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _outcome("A (3.104)", "A", _CHOICE) == "wrong"
    assert _outcome("2.858", "A", _CHOICE) == "correct"
    monkeypatch.setattr(scoring, "_options_named", lambda text, options: set())
    assert _outcome("A (3.104)", "A", _CHOICE) == "correct"
    assert _outcome("2.858", "A", _CHOICE) == "unjudged"


def test_rule_choice_hedge(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _outcome("A or B", "A", _CHOICE) == "wrong"
    monkeypatch.setattr(scoring, "_names_several", lambda text, options: False)
    assert _outcome("A or B", "A", _CHOICE) == "correct"


def test_pint_agrees_with_the_own_unit_table() -> None:
    """Where pint is installed it reads the units the own table lacks; on the units both
    know they agree (factor, offset, dimensions)."""
    pytest.importorskip("pint")
    for unit in ("g/mol", "kJ/mol", "eV", "Å^3", "g/cm^3", "degC", "kcal/mol", "mmHg"):
        own, other = scoring._own_unit(unit), scoring._pint_unit(unit)
        assert own is not None and other is not None, unit
        assert own[2] == other[2], unit
        assert own[0] == pytest.approx(other[0], rel=1e-6), unit
        assert own[1] == pytest.approx(other[1], abs=1e-9), unit
    assert scoring._pint_unit("pi") is None and scoring._pint_unit("rings") is None
    assert scoring._unit("furlong") is not None  # only pint knows it
