"""`python/` models for the honest-score tests (issue 20).

`casebook` answers every question from the case tag in it ("[case t1]"): its planned chain
(for the `direct` method) and its final reply are written in CASES, so the accuracy an
evaluation reports can be checked against a count by hand. `casebook_judge` is the LLM
judge for the cases the rules leave open. `wrong_on_rotatable` is the scripted policy,
except that for a rotatable-bond question it plans (and runs) the aromatic-ring counter.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any

# loaded by path (a `python/` model file is no package member): the scripted policy
_spec = importlib.util.spec_from_file_location(
    "honest_scripted", Path(__file__).with_name("scripted.py")
)
assert _spec is not None and _spec.loader is not None
_scripted = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_scripted)
policy, reply_json = _scripted.policy, _scripted.reply_json

CASES: dict[str, dict[str, Any]] = {
    # level 1
    "t1": {"chain": ["SMILESToWeight"], "reply": "46.069"},  # number: correct
    "t2": {"chain": ["SMILESToInChIKey"], "reply": "LFQSCWFLJHTTHZ-UHFFFAOYSA-N"},  # correct
    "t3": {"chain": ["SMILESToWeight"], "reply": "75.2"},  # number: wrong
    # level 2
    "t4": {"chain": [], "reply": "False"},  # true/false: wrong
    "t5": {"chain": ["GetHeavyAtomsNum"], "reply": "a plausible essay about drugs"},  # unjudged
    "t6": {"chain": [], "reply": "strain in the ring, mostly"},  # unjudged
    "t8": {"chain": ["SMILESToInChI"], "reply": "B"},  # multiple choice: correct
    # level 3
    "t7": {"chain": [], "reply": "about seven"},  # no reference answer: n/a
}
# the judge's decisions for the answers the rules leave open
JUDGED = {"t5": "Yes", "t6": "No"}


def _case(text: str) -> str:
    found = re.search(r"\[case (\w+)\]", text)
    return found.group(1) if found else ""


def casebook(messages: list[dict[str, Any]], tools: Any = None, **settings: Any) -> Any:
    text = messages[-1]["content"] if messages[-1]["role"] == "user" else ""
    case = CASES.get(_case(json.dumps(messages)), {"chain": [], "reply": "?"})
    if text.startswith("Choose the tool chain"):
        return json.dumps({"tool_chain": case["chain"]})
    if text.startswith("Extract the arguments"):
        return json.dumps({"calls": [{"smiles": "CCO"}]})
    if text.startswith("Answer a scientific question"):
        return f"Answer: {case['reply']}"
    return "{}"


def casebook_judge(messages: list[dict[str, Any]], tools: Any = None, **settings: Any) -> Any:
    decision = JUDGED.get(_case(messages[-1]["content"]))
    if decision is None:
        return "I cannot tell."  # no readable decision: stays unjudged
    return json.dumps({"decision": decision, "reason": f"case judged {decision}"})


def wrong_on_rotatable(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None, **settings: Any
) -> Any:
    """The scripted policy, but a rotatable-bond question is answered with the aromatic-ring
    counter: it runs without error and, for CCO, even gives the reference's 0."""
    text = messages[-1]["content"] if messages[-1]["role"] == "user" else ""
    if "rotatable bonds" in text:
        if "describe the tool capabilities required" in text:
            return "(1) calculate number of aromatic rings in molecule"
        if "Plan the tool chain" in text or "Choose the tool chain" in text:
            return reply_json({"tool_chain": ["GetAromaticRingsNum"]})
    return policy(messages, tools, **settings)
