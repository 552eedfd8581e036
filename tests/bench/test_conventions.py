"""Issue 22 item 2: a quantity with alternative conventions is kept only when its question
states the convention or the decision / answer is the same under every alternative the
library computes, and thresholds keep the margin from alternative-convention values."""

from __future__ import annotations

import pytest

from scigate.bench._catalog import tool_roles
from scigate.bench._compose import CheckFailed, convention_checks, execute, rule_checks
from scigate.bench._conventions import CONVENTIONS, alternative_values, is_stated
from scigate.bench._entities import Entity
from scigate.tools import get_tool, load_library

PI = "ProteinIsoelectricPointCalculator"
# pI (Bjellqvist / EMBOSS): YGGFL 5.52 / 6.09, GLP-1 (7-37) 5.53 / 5.62; the
# Bjellqvist scale picks GLP-1 as the higher pI, EMBOSS picks YGGFL
FLIP = ["HAEGTFTSDVSSYLEGQAAKEFIAWLVKGRG", "YGGFL"]
# melittin's pI is the highest on every scale (12.0-12.5 against 4.3-4.5)
KEEP = ["GIGAVLKVLTTGLPALISWIKRKRQQ", "EAEK"]


def _peptides(seqs: list[str]) -> list[Entity]:
    return [
        Entity(kind="protein", name=s, value=s, type="protein sequence", domain="biology")
        for s in seqs
    ]


def _check(seqs: list[str]) -> dict[str, str]:
    path = [PI]
    entities = _peptides(seqs)
    runs = execute(path, entities)
    values = {PI: [float(r.values[PI]) for r in runs]}
    alts = alternative_values(path, entities, runs, [PI])
    assert len(alts) == 3  # EMBOSS, Lehninger, Solomon
    rule = {"op": "max", "output": PI, "constraints": []}
    return convention_checks(path, entities, values, rule, alts, None)


@pytest.fixture
def unstated_pka(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pI phrase without its pKa scale, as SciToolKG's bare output label."""
    role = tool_roles()[PI]
    monkeypatch.setitem(tool_roles(), PI, role.model_copy(update={"phrase": "isoelectric point"}))


def test_an_unstated_pka_scale_whose_alternative_flips_the_answer_is_rejected(
    unstated_pka: None,
) -> None:
    with pytest.raises(CheckFailed, match=r"^conventions: the pKa scale .* EMBOSS"):
        _check(FLIP)


def test_a_stated_pka_scale_keeps_the_answer_another_scale_would_flip() -> None:
    assert is_stated(CONVENTIONS[PI][0], [PI], _peptides(FLIP))
    assert "stated: pKa scale" in _check(FLIP)["conventions"]


def test_an_unstated_scale_is_kept_when_no_alternative_changes_the_decision(
    unstated_pka: None,
) -> None:
    assert "unchanged under 3 unstated alternatives" in _check(KEEP)["conventions"]


def test_an_unstated_aromaticity_model_that_changes_a_count_is_rejected() -> None:
    # caffeine: no aliphatic heterocycle in RDKit's model, two in the MDL model (the phrase
    # "number of aliphatic (non-aromatic) heterocycles" does not name the model)
    path = ["GetAliphaticHeterocyclesNum"]
    caffeine = Entity(
        kind="molecule-smiles",
        name="caffeine",
        value="Cn1cnc2c1c(=O)n(C)c(=O)n2C",
        type="SMILES",
        domain="chemistry",
    )
    runs = execute(path, [caffeine])
    values = {path[0]: [float(runs[0].values[path[0]])]}
    alts = alternative_values(path, [caffeine], runs, path)
    with pytest.raises(CheckFailed, match=r"^conventions: the aromaticity model .* 2, not 0"):
        convention_checks(path, [caffeine], values, None, alts, None)
    benzene = caffeine.model_copy(update={"name": "benzene", "value": "c1ccccc1"})
    runs = execute(path, [benzene])
    alts = alternative_values(path, [benzene], runs, path)
    assert convention_checks(path, [benzene], {path[0]: [0.0]}, None, alts, None)


def test_a_threshold_near_an_alternative_convention_value_is_rejected() -> None:
    values = {"a": [1.0, 2.0, 3.0, 4.0], "b": [10.0, 20.0, 30.0, 40.0]}
    rule = {"op": "max", "output": "a", "constraints": [{"output": "b", "cmp": "<", "value": 35}]}
    assert rule_checks(values, rule, 0.02)  # 35 is 12.5 % from every executed value
    # under another convention candidate 4 has b = 35.3: 0.85 % from the threshold
    with pytest.raises(CheckFailed, match=r"^margin: .*alternative-convention value"):
        rule_checks(values, rule, 0.02, {"b": [10.1, 20.2, 30.3, 35.3]})


@pytest.mark.parametrize("tool", sorted(CONVENTIONS))
def test_every_registered_convention_names_real_tools_and_phrases(tool: str) -> None:
    library = load_library()
    assert tool in library
    for conv in CONVENTIONS[tool]:
        assert conv.alternatives and conv.stated_by
        for alt in conv.alternatives:
            assert alt.tool is None or alt.tool in library
            assert alt.given is None or set(alt.given) <= set(get_tool(tool).parameter_names)


def test_a_rejected_draft_records_the_checks_it_passed_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import random

    from scigate.bench import _compose
    from scigate.bench._entities import load_entities

    pool = load_entities()["molecule-smiles"]
    seed = next(
        s
        for s in range(40)
        if _try(lambda s=s: _compose.compose(2, "chemistry", "molecule-smiles", pool,
                                             random.Random(s), {}))
    )  # fmt: skip

    def refuse(*args, **kw):
        raise CheckFailed("tool needed", "refused by the test")

    monkeypatch.setattr(_compose, "tool_checks", refuse)
    with pytest.raises(CheckFailed) as caught:
        _compose.compose(2, "chemistry", "molecule-smiles", pool, random.Random(seed), {})
    assert caught.value.check == "tool needed"
    before = {"margin", "vacuous constraint", "constraint needed", "objective", "conventions"}
    assert set(caught.value.passed) == before


def _try(fn) -> bool:
    from scigate.bench._compose import Rejected

    try:
        fn()
    except Rejected:
        return False
    return True
