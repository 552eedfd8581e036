"""Wording a composed task in one of the four formats, and the paper's rules checked on it.

`write_templates` needs no model; `LLMWriter` sends the paper's Appendix C prompt for the
level (candidate tools = the sampled subset) plus the executed specification, and keeps
only the wording: the path, the parameters and the answer stay the executed ones.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from pydantic import BaseModel

from scigate.bench._catalog import question_phrase
from scigate.bench._compose import Draft, Rejected
from scigate.tools import get_tool, load_library

LETTERS = ("A", "B", "C", "D")
BLANK = "____"


class Worded(BaseModel):
    """The public parts of a task: question (stem plus format wording) and options."""

    question: str
    stem: str  # the part the leak and step rules are checked on
    options: dict[str, str] | None = None
    claim: str | None = None


def _ref(draft: Draft, i: int) -> str:
    e = draft.entities[i]
    if e.kind == "molecule-smiles":
        return f"the molecule {e.value}"
    if e.kind in ("protein", "dna"):
        what = "peptide" if e.kind == "protein" else "DNA sequence"
        return f"the {what} {e.value}" if draft.level == 1 else e.value
    if e.kind == "crystal":
        return f"{e.name} (its crystal structure is given as the parameter)"
    return e.name if e.kind == "molecule-name" else e.value


def _phrase(draft: Draft, tool: str) -> str:
    """The reviewed vocabulary phrase of `tool`'s output in this task (the only words a
    question names a quantity with), with what it is computed on when that is derived."""
    return question_phrase(tool, draft.path, draft.entities)


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _items(text: str) -> list[str]:
    return [i.strip() for i in text.split(";")]


def _condition(draft: Draft, c: dict[str, Any]) -> str:
    word = "above" if c["cmp"] == ">" else "below"
    value = f"{c['value']:g}"
    phrase = _phrase(draft, c["output"])
    article = "an" if phrase[:1].lower() in "aeio" or phrase.startswith("RNA") else "a"
    return f"{article} {phrase} {word} {value}"


_BACKGROUND = {
    "chemistry": "A medicinal chemistry team is triaging candidate compounds for a follow-up "
    "assay and wants one molecule that fits its property profile.",
    "biology": "A molecular biology lab is choosing one of several sequences for an expression "
    "and purification study and has set criteria from earlier experiments.",
    "materials": "A materials group is shortlisting compounds for a solid-state synthesis "
    "campaign and screens them against composition-based criteria.",
}


def _selection_stem(draft: Draft, rng: random.Random) -> tuple[str, str, str]:
    """(the question, the candidates listed, the selection as a noun phrase)."""
    rule = draft.rule or {}
    cands = _join([_ref(draft, i) for i in range(len(draft.entities))])
    extreme = "largest" if rule.get("op") == "max" else "smallest"
    objective = f"the {extreme} {_phrase(draft, rule['output'])}"
    conds = [_condition(draft, c) for c in rule.get("constraints", [])]
    if not conds:
        phrase = f"the one with {objective}"
        asks = [
            f"Among {cands}, which one has {objective}?",
            f"Which of {cands} shows {objective}?",
        ]
    elif draft.level == 2 or len(conds) == 1:
        phrase = f"the one with {_join(conds)} that has {objective} among those meeting this"
        asks = [
            f"Among {cands}, which one has {_join(conds)}, and {objective} among those that do?",
        ]
    else:
        listed = "; ".join(f"({chr(97 + i)}) {c}" for i, c in enumerate(conds))
        phrase = f"the one that meets all of {listed}, and has {objective} among those that do"
        asks = [
            f"Consider the candidates {cands}. Identify the one that meets all of these "
            f"conditions: {listed}; and, among those meeting them, has {objective}.",
        ]
    stem = rng.choice(asks)
    if draft.level == 4:
        stem = f"{_BACKGROUND[draft.domain]} {stem}"
    return stem, cands, phrase


def write_templates(draft: Draft, fmt: str, rng: random.Random) -> Worded:
    """Word `draft` in format `fmt` with templates (no model)."""
    options = _options(draft, rng)
    claim = _claim(draft, rng) if fmt == "true/false" else None
    if draft.level == 1:
        phrases = [_phrase(draft, t) for t in draft.outputs]
        ref = _ref(draft, 0)
        props = _join([f"the {p}" for p in phrases])
        stem = rng.choice(
            [
                f"What is {props} of {ref}?",
                f"Determine {props} of {ref}.",
                f"For {ref}, report {props}.",
            ]
        )
        if fmt == "content completion":
            blanks = _join([BLANK] * len(phrases))
            verb = "is" if len(phrases) == 1 else "are"
            tail = "" if len(phrases) == 1 else ", in that order"
            question = f"Complete the statement: {props} of {ref} {verb} {blanks}{tail}."
        elif fmt == "true/false":
            verb = "is" if len(phrases) == 1 else "are"
            tail = "" if len(phrases) == 1 else ", respectively"
            question = f"True or false: {props} of {ref} {verb} {_join(_items(claim or ''))}{tail}."
        elif fmt == "multiple choice":
            question = f"{stem} Choose the option with the correct value."
        else:
            question = stem
    else:
        stem, cands, phrase = _selection_stem(draft, rng)
        background = f"{_BACKGROUND[draft.domain]} " if draft.level == 4 else ""
        if fmt == "content completion":
            question = f"{background}Complete the statement: among {cands}, {phrase} is {BLANK}."
        elif fmt == "true/false":
            question = f"{background}True or false: among {cands}, {claim} is {phrase}."
        elif fmt == "multiple choice":
            question = f"{stem} Choose one option."
        else:
            question = stem
    stem = _strip_claim(question, claim) if claim is not None else question
    return Worded(
        question=question,
        stem=stem,
        options=options if fmt == "multiple choice" else None,
        claim=claim,
    )


def _strip_claim(question: str, claim: str | None) -> str:
    for item in _items(claim or ""):
        question = question.replace(item, "")
    return question


def _options(draft: Draft, rng: random.Random) -> dict[str, str]:
    values = [draft.core] + [d["value"] for d in draft.distractors[:3]]
    rng.shuffle(values)
    return dict(zip(LETTERS, values, strict=True))


def _claim(draft: Draft, rng: random.Random) -> str:
    return draft.core if rng.random() < 0.5 else rng.choice(draft.distractors)["value"]


# ----------------------------------------------------------------------------- checks

_NUMBER = re.compile(r"(?<![\w.\-])[-+]?\d+(?:\.\d+)?(?![\w.]*\w)")
_STEPS = re.compile(
    r"\b(first|then|next)\b[^.?]*\b(convert|compute|calculate|run|apply|call)\b|"
    r"\bstep\s*\d|\buse (the |a )?tool\b|\btool\b",
    re.IGNORECASE,
)


def _tool_words() -> set[str]:
    words = set()
    for t in load_library().values():
        words.add(t.name.lower())
        words.update(a.lower() for a in t.spec.aliases)
    return words


def rule_problems(draft: Draft, worded: Worded) -> list[str]:
    """The paper's rules this wording breaks: tool names from level 2 up, solving steps,
    leaked tool outputs (numbers in the stem equal to an executed value)."""
    problems = []
    text = worded.question
    if draft.level >= 2:
        names = _tool_words()
        found = [w for w in re.findall(r"[A-Za-z][A-Za-z0-9_\-]+", text) if w.lower() in names]
        if found:
            problems.append(f"names a tool ({found[0]})")
    if _STEPS.search(worded.stem):
        problems.append("describes solving steps")
    stem = worded.stem
    for e in draft.entities:  # digits inside a SMILES or a name are not outputs
        stem = stem.replace(e.value, " ").replace(e.name, " ")
    executed = set()
    for run in draft.runs:
        for value in run["values"].values():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                executed.add(float(value))
    for token in _NUMBER.findall(stem):
        number = float(token)
        if any(abs(number - v) <= 1e-9 + 1e-6 * abs(v) for v in executed):
            problems.append(f"leaks an executed output ({token})")
            break
    return problems


# ----------------------------------------------------------------------------- LLM writer

APPENDIX_C: dict[int, tuple[str, str]] = {
    1: (
        "Generate a basic instruction-level task. The question should focus on a single "
        "substance and use standard scientific terminology to clearly indicate the capability "
        "corresponding to a single tool or a very short tool chain.",
        "[RULE]:1. The question must evaluate explicit instruction following and clearly "
        "require a specific scientific operation.2. tool_path should contain a single tool or "
        "a very short tool chain arranged in the correct execution order.3. The question may "
        "not describe the solving steps or reveal any tool outputs, numerical results, or "
        "answer hints.4. The Parameter field should contain only the substance name or ID "
        "selected in the question.5. Ensure natural, diverse phrasing and avoid template-like "
        "wording.",
    ),
    2: (
        "Generate a terminology-level task. The question should use standard scientific "
        "terminology to imply the target property to be evaluated. It typically involves a "
        "short tool chain from entity representation conversion to property computation, "
        "comparison, or filtering over a few substances, requiring the model to infer the "
        "necessary tool capabilities from the property requirements.",
        "[RULE]:1. The question must evaluate implicit grounding from scientific terminology "
        "to a tool-capability chain.2. tool_path should contain a short tool chain arranged in "
        "the correct execution order, supporting entity representation conversion, property "
        "computation, or property comparison.3. The question must not directly mention any "
        "tool name, but should use standard scientific terminology to clearly imply the target "
        "property to be evaluated; it must not describe the solving steps or reveal any tool "
        "outputs, numerical results, or answer hints.4. The Parameter field should contain "
        "only the referenced substance names or IDs, with a consistent format.5. The question "
        "must not use comparison criteria that are unnatural in real scientific queries, such "
        "as median; instead, it should use more realistic scientific constraints such as "
        "maximum/minimum values, threshold-based judgments, or structural inclusion.6. Ensure "
        "natural, diverse phrasing and avoid template-like wording.",
    ),
    3: (
        "Generate an expert decision-level task. The question should provide multiple "
        "candidate objects and multiple scientific constraints. It typically requires "
        "cross-tool and cross-attribute integration over multiple substances, requiring the "
        "model to perform candidate selection and execute a relatively long tool chain under "
        "multiple constraints.",
        "[RULE]:1. The question must evaluate deep scientific reasoning, including property "
        "derivation, comprehensive threshold-based judgment, candidate filtering, or selection "
        "of the optimal object satisfying all conditions.2. tool_path should contain a "
        "multi-tool chain arranged in the correct execution order, supporting cross-attribute "
        "analysis and constraint-based reasoning over multiple candidate objects.3. The "
        "question must not directly mention any tool name, but should use standard scientific "
        "terminology to clearly describe the candidate objects, target properties, and "
        "scientific constraints; it must not describe the solving steps or reveal any tool "
        "outputs, numerical results, or answer hints.4. The Parameter field should contain "
        "only the candidate substance names or IDs involved in the question, with a consistent "
        "representation format.5. The question must not use comparison criteria that are "
        "unnatural in real scientific queries, such as median; instead, it should use "
        "scientific constraints such as maximum/minimum values, threshold-based judgments, or "
        "structural inclusion.6. Ensure natural, diverse phrasing and avoid template-like "
        "wording.",
    ),
    4: (
        "Generate a research strategy-level task. The question should simulate a realistic "
        "scientific scenario, specify an open-ended research objective and multidimensional "
        "evaluation criteria, and typically involve a long tool chain and multi-objective "
        "trade-offs, requiring the model to autonomously plan the analysis workflow and "
        "produce a rigorous scientific decision.",
        "[RULE]:1. The question must present a complete and realistic scientific motivation, "
        "avoiding a rote list of tool calls; it may focus on drug screening, materials "
        "selection, property prediction, mechanism investigation, safety assessment, or de "
        "novo design validation.2. The question should use 1-2 sentences to establish the "
        "research background, followed by precise and non-redundant scientific statements "
        "specifying the analysis objective and evaluation criteria.3. tool_path should "
        "contain a relatively long tool chain arranged in a reasonable execution order, "
        "supporting multidimensional analysis, evidence integration, and scientific "
        "decision-making.4. The question must not directly mention any tool name, but should "
        "use standard scientific terminology to describe the research background, analysis "
        "objective, and evaluation criteria; it must not describe the specific solving steps "
        "or reveal any tool outputs, numerical results, or answer hints.5. The Parameter "
        "field should contain the specific substances, sequences, or other scientific objects "
        "selected in the question.6. Ensure natural, coherent, and situated in a realistic "
        "research context.",
    ),
}
_PARAM_SHAPE = {
    1: '"substance name"',
    2: '["substance name 1", "substance name 2", "xxx"]',
    3: '["candidate substance 1", "candidate substance 2", "xxx"]',
    4: '["scientific object 1", "scientific object 2", "xxx"]',
}


def tools_str(names: list[str]) -> str:
    """The candidate tools' node information (description, I/O types, source), one a line."""
    lines = []
    for n in names:
        spec = get_tool(n).spec
        lines.append(
            json.dumps(
                {
                    "name": n,
                    "description": spec.functionality,
                    "input": spec.inputs,
                    "output": spec.outputs,
                    "source": spec.source,
                }
            )
        )
    return "\n".join(lines)


def appendix_c_prompt(level: int, subset: list[str]) -> tuple[str, str]:
    """(system, user) prompt of the paper's Appendix C for `level` over `subset`."""
    objective, rules = APPENDIX_C[level]
    user = (
        "Please generate one scientific tool-use question based on the given candidate tools. "
        "The question type should be one of Question & Answer, Multiple-Choice, Content "
        f"Completion, and True/False.Candidate Tools:{tools_str(subset)}Task Objective:"
        f"{objective}{rules}Strictly output the response in valid JSON format only. The "
        'required JSON format is as follows:{"tool_path": ["tool_selected", "xxx"],'
        f'"question": "question text","Parameter": {_PARAM_SHAPE[level]}}}'
    )
    return "You are a science expert.", user


def specification(draft: Draft, fmt: str, claim: str | None) -> str:
    """The executed task the writer must word (appended to the Appendix C prompt)."""
    spec: dict[str, Any] = {
        "tool_path": draft.path,
        "Parameter": [e.label for e in draft.entities]
        if draft.level >= 2
        else draft.entities[0].label,
        "objects": {e.label: e.name for e in draft.entities},
        "format": fmt,
        "asks_for": [_phrase(draft, t) for t in draft.outputs] if draft.level == 1 else None,
    }
    if draft.rule:
        spec["select"] = {
            "objective": f"{'largest' if draft.rule['op'] == 'max' else 'smallest'} "
            f"{_phrase(draft, draft.rule['output'])}",
            "conditions": [
                f"{_phrase(draft, c['output'])} {'above' if c['cmp'] == '>' else 'below'} {c['value']:g}"
                for c in draft.rule.get("constraints", [])
            ],
        }
    if claim is not None:
        spec["statement_claims"] = claim
    extra = {
        "true/false": "State the claim as a statement to be judged true or false.",
        "content completion": f"Write a statement with a blank ({BLANK}) where the answer goes.",
        "multiple choice": "Write the question only; the options are added separately.",
        "question & answer": "Ask for the answer directly.",
    }[fmt]
    return (
        "\n\nWord the question for exactly this executed task; keep tool_path and Parameter "
        f"unchanged. {extra}\n" + json.dumps(spec, ensure_ascii=False)
    )


def _extract_json(text: str) -> dict[str, Any] | None:
    decoder = json.JSONDecoder()
    for i, ch in enumerate(text):
        if ch == "{":
            try:
                value, _ = decoder.raw_decode(text[i:])
            except ValueError:
                continue
            if isinstance(value, dict):
                return value
    return None


async def write_llm(
    model: Any, draft: Draft, fmt: str, subset: list[str], rng: random.Random
) -> tuple[Worded, dict[str, Any]]:
    """Word `draft` with a model and the Appendix C prompt; `Rejected` when the reply is
    unusable or changes the path or the parameters. Returns the wording and call record."""
    claim = _claim(draft, rng) if fmt == "true/false" else None
    system, user = appendix_c_prompt(draft.level, subset)
    user += specification(draft, fmt, claim)
    try:
        out = await model.generate(
            [{"role": "system", "content": system}, {"role": "user", "content": user}]
        )
    except Exception as exc:  # a failed call rejects this attempt only
        raise Rejected(f"writer failed: {type(exc).__name__}: {exc}") from None
    reply = _extract_json(out.text or "")
    if not reply or not isinstance(reply.get("question"), str) or not reply["question"].strip():
        raise Rejected("writer reply is not the required JSON with a question")
    path = reply.get("tool_path")
    if not isinstance(path, list) or [get_tool(str(n)).name for n in path if _known(n)] != [
        get_tool(n).name for n in draft.path
    ]:
        raise Rejected("writer changed the tool path")
    params = reply.get("Parameter")
    wanted = [e.label for e in draft.entities]
    got = params if isinstance(params, list) else [params]
    if sorted(map(str, got)) != sorted(wanted):
        raise Rejected("writer changed the parameters")
    question = reply["question"].strip()
    # the stored answer is executed on the parameters: a question about anything else
    # would carry another entity's answer
    if not all(str(label).casefold() in question.casefold() for label in wanted):
        raise Rejected("the question does not name the parameter")
    if fmt == "content completion" and BLANK not in question:
        raise Rejected("a content-completion question without a blank")
    if fmt == "true/false" and not all(i in question for i in _items(claim or "")):
        raise Rejected("a true/false statement that does not state the claim")
    options = _options(draft, rng) if fmt == "multiple choice" else None
    worded = Worded(
        question=question,
        stem=_strip_claim(question, claim),
        options=options,
        claim=claim,
    )
    return worded, {"prompt": user, "reply": out.text}


def _known(name: Any) -> bool:
    try:
        get_tool(str(name))
    except Exception:
        return False
    return True
