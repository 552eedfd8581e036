"""`bench derive/verify` whose chunks run on Ray workers give the local outcomes."""

from __future__ import annotations

from scigate.bench import run_tasks

TASKS = [
    {"question": "Molecular weight of ethanol?", "tool_path": ["SMILESToWeight"],
     "Parameter": "CCO"},
    {"question": "Formula and heavy atoms of aspirin?",
     "tool_path": ["NameToSMILES", "GetMolFormula", "GetHeavyAtomsNum"], "Parameter": "aspirin"},
    {"question": "InChIKey of propane?", "tool_path": ["SMILESToInChI", "InChIToInChIKey"],
     "Parameter": "CCC"},
    {"question": "A web tool", "tool_path": ["PubChemCIDToSMILES"], "Parameter": "2244"},
]  # fmt: skip


def test_derive_and_verify_on_ray_equal_local(ray_executor):
    local = run_tasks("derive", TASKS * 2, workers=1)
    spread = run_tasks("derive", TASKS * 2, executor=ray_executor)
    assert [o.model_dump() for o in spread] == [o.model_dump() for o in local]
    assert {o.status for o in local} >= {"derived", "underivable"}
    derived = [o.task for o in local if o.task is not None and o.status == "derived"]
    checked = run_tasks("verify", derived, executor=ray_executor)
    assert {o.status for o in checked} == {"agrees"}
