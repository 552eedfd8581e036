"""A scripted policy used as a `python/` model by the agent tests and the benchmark.

It plays every role the agents ask for (active requests, rerank, planning, argument
extraction, summary, critique, experience, skill, ontology, ReAct, reflection, judge)
from the prompt text alone: it maps task keywords to capability phrases, picks tools
from the candidate lines the agent shows it by word overlap, copies arguments from the
task parameters or earlier tool outputs, and answers from the tool results. It never
knows an answer: numbers in its replies come from the tool outputs in the prompt.
"""

from __future__ import annotations

import json
import re
from typing import Any

# (keyword pattern, capability phrases in execution order); first the identity conversions.
CAPABILITIES: list[tuple[str, list[str]]] = [
    (r"\bnamed?\b|\bcalled\b|iupac name", ["convert systematic chemical name to SMILES"]),
    (
        r"inchikey",
        ["convert SMILES string to standard InChI", "convert InChI string into InChIKey"],
    ),
    (r"\binchi\b", ["convert SMILES string to standard InChI"]),
    (
        r"molecular weight|molar mass",
        ["calculate average molecular weight of molecule from SMILES"],
    ),
    (r"kappa1|kappa-1", ["compute Kier kappa1 shape index of molecule"]),
    (r"heavy atoms", ["calculate number of heavy atoms in molecule"]),
    (r"polar surface|tpsa", ["calculate topological polar surface area of molecule"]),
    (r"rotatable bonds", ["calculate number of rotatable bonds in molecule"]),
    (r"hydrogen[- ]bond donors", ["calculate number of hydrogen bond donors in molecule"]),
    (r"molecular formula|hill formula", ["calculate molecular formula of molecule from SMILES"]),
    (r"drug-likeness|\bqed\b", ["calculate quantitative estimate of drug-likeness of molecule"]),
    (r"aromatic rings", ["calculate number of aromatic rings in molecule"]),
    (r"amide bonds", ["calculate number of amide bonds in molecule"]),
    (r"selfies", ["translate SMILES string into SELFIES string"]),
    (r"reverse complement", ["generate reverse complement of DNA sequence"]),
    (r"gc content", ["calculate GC content of DNA sequence"]),
    (r"transcribe|messenger rna|mrna", ["transcribe DNA sequence into messenger RNA"]),
    (r"translate|protein sequence encoded", ["translate DNA sequence into protein sequence"]),
]

STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "in",
        "into",
        "from",
        "to",
        "for",
        "and",
        "or",
        "its",
        "by",
        "with",
        "one",
        "each",
        "that",
        "this",
        "is",
        "be",
        "on",
        "as",
        "at",
    ]
)


def words(text: str) -> set[str]:
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", text)
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP}


def capabilities(task: str) -> list[str]:
    low = task.lower()
    caps: list[str] = []
    for pattern, phrases in CAPABILITIES:
        if re.search(pattern, low):
            caps += [p for p in phrases if p not in caps]
    if "inchi=" in low:  # the InChI is given: no conversion to it
        caps = [c for c in caps if c != "convert SMILES string to standard InChI"]
    elif "inchikey" in low and "convert SMILES string to standard InChI" in caps:
        caps.remove("convert SMILES string to standard InChI")
        caps.insert(
            caps.index("convert InChI string into InChIKey"),
            "convert SMILES string to standard InChI",
        )
    return caps


def overlap(cap: str, line: str) -> float:
    c = words(cap)
    return len(c & words(line)) / max(1, len(c))


def tool_lines(text: str) -> list[tuple[str, str]]:
    """(name, line) for every '- Name: description' line of a prompt."""
    return [(m.group(1), m.group(0)) for m in re.finditer(r"(?m)^- ([A-Za-z0-9_]+): .*$", text)]


def best(cap: str, lines: list[tuple[str, str]]) -> tuple[str | None, float]:
    scored = sorted(((overlap(cap, line), name) for name, line in lines), key=lambda p: -p[0])
    return (scored[0][1], scored[0][0]) if scored else (None, 0.0)


def section(text: str, start: str, end: str | None = None) -> str:
    i = text.find(start)
    if i < 0:
        return ""
    i += len(start)
    j = text.find(end, i) if end else -1
    return text[i : j if j >= 0 else None].strip()


def task_of(text: str) -> str:
    return section(text, "Task:\n", "\n") or section(text, "Question:\n", "\n")


def parameters(text: str) -> list[str]:
    m = re.search(r"(?m)^Parameter: (.*)$", text)
    return [p.strip() for p in m.group(1).split(", ")] if m else []


def full_task(text: str) -> str:
    """Question + options + parameter block of a prompt."""
    for start in ("Task:\n", "Question:\n"):
        i = text.find(start)
        if i >= 0:
            return text[i + len(start) :]
    return text


def previous_outputs(text: str) -> list[list[tuple[Any, Any]]]:
    """Per previous step: [(arguments, output)] parsed from the 'Previous steps' block."""
    block = section(text, "Previous steps:\n", "\nCall the tool") or section(
        text, "Tool results:\n", "\nGive a"
    )
    steps = []
    for line in block.splitlines():
        m = re.match(r"^\d+\. ([A-Za-z0-9_]+)(?: \(output: (.*?)\))?: (.*)$", line)
        if not m or m.group(3).startswith("failed"):
            continue
        pairs = []
        for part in m.group(3).split(" ; "):
            if " -> " not in part:
                continue
            a, o = part.split(" -> ", 1)
            try:
                pairs.append((json.loads(a), json.loads(o)))
            except json.JSONDecodeError:
                continue
        steps.append([(a, o, (m.group(2) or "").lower()) for a, o in pairs])
    return steps


def reply_json(value: Any) -> str:
    return json.dumps(value)


# -- roles ------------------------------------------------------------------------------------


def active_request(text: str) -> str:
    caps = capabilities(task_of(text))
    return " ".join(f"({i}) {c}" for i, c in enumerate(caps, 1))


def rerank(text: str) -> str:
    req = section(text, "Task Requirement:\n", "\n")
    lines = tool_lines(section(text, "Candidate Tools:\n", "\nStep 1"))
    scored = sorted(((overlap(req, line), name) for name, line in lines), key=lambda p: -p[0])
    top1, s1 = scored[0][1], scored[0][0]
    top2, s2 = (scored[1][1], scored[1][0]) if len(scored) > 1 else (top1, 0.0)
    f = 1.0 if s1 >= 0.8 else 0.75 if s1 >= 0.6 else 0.5 if s1 >= 0.4 else 0.25 if s1 > 0 else 0.0
    m = 1.0 if s1 - s2 >= 0.3 else 0.75 if s1 > s2 else 0.5
    return reply_json(
        {
            "top1": top1,
            "top2": top2,
            "known_top1_feasibility": f,
            "known_margin": m,
            "ontology_alignment_score": f,
        }
    )


def pick_unknown(text: str) -> str:
    req = section(text, "Task Requirement:\n", "\n")
    name, _ = best(req, tool_lines(section(text, "Candidate Tools:\n")))
    return reply_json({"top1": name})


def difficulty(text: str) -> str:
    task = full_task(text)
    return reply_json(
        {
            "estimated_tool_count": len(capabilities(task)),
            "entity_count": max(1, len(parameters(task))),
        }
    )


def skill_match(text: str) -> str:
    caps = capabilities(task_of(text))
    chain = json.loads(re.search(r"Tool chain: (\[.*\])", text).group(1))
    ok = len(chain) == len(caps) and all(max(overlap(c, t) for t in chain) >= 0.3 for c in caps)
    return reply_json({"match": ok})


def plan(text: str) -> str:
    caps = capabilities(task_of(text))
    lines = tool_lines(text)
    chain = []
    for c in caps:
        name, score = best(c, lines)
        if name and score >= 0.5:
            chain.append(name)
    return f"Step by step: {len(caps)} operation(s).\n" + reply_json({"tool_chain": chain})


def gaps(text: str) -> str:
    caps = capabilities(task_of(text))
    lines = tool_lines(section(text, "Known tools:\n", "\nFor operations"))
    chain, missing = [], []
    for c in caps:
        name, score = best(c, lines)
        if name and score >= 0.6:
            chain.append(name)
        else:
            missing.append(c)
    return reply_json({"tool_chain": chain, "missing": missing})


def _chained_outputs(text: str) -> list[Any] | None:
    """Outputs of the latest earlier step whose output type is this tool's input type."""
    wanted = {t.strip().lower() for t in section(text, "Input types: ", "\n").split(",")}
    for step in reversed(previous_outputs(text)):
        outs = [o for _, o, _ in step]
        types = {t.strip() for t in step[0][2].split(",")} if step else set()
        if outs and types & wanted and not any(isinstance(o, dict) and "error" in o for o in outs):
            return outs
    return None


def arguments(text: str) -> str:
    schema = json.loads(re.search(r"Argument schema \(JSON Schema\): (\{.*\})", text).group(1))
    required = schema.get("required") or list(schema.get("properties", {}))
    name = required[0] if required else "value"
    values = _chained_outputs(text) or parameters(full_task(text))
    return reply_json({"calls": [{name: v} for v in values]})


def summary(text: str) -> str:
    steps = previous_outputs(text)
    task = full_task(text)
    options = dict(re.findall(r"(?m)^([A-Z])\. (.+)$", task))
    steps = [[(a, o) for a, o, _ in s] for s in steps]
    steps = [s for s in steps if s and not any(isinstance(o, dict) and "error" in o for _, o in s)]
    numeric = [s for s in steps if all(isinstance(o, (int, float)) for _, o in s)]
    if options and numeric:
        pairs = numeric[-1]
        params = parameters(task)
        pick = max if re.search(r"largest|highest|maximum|heaviest|most", task, re.I) else min
        idx = pairs.index(pick(pairs, key=lambda p: p[1]))
        target = params[idx] if idx < len(params) else None
        for letter, value in options.items():
            if target is not None and value.strip() == target:
                return f"The tool results decide it.\nAnswer: {letter}"
    if not steps:
        return "No tool produced a result.\nAnswer: unknown"
    last = steps[-1]
    values = [o for _, o in last]
    shown = values[0] if len(values) == 1 else ", ".join(str(v) for v in values)
    return f"From the tool output.\nAnswer: {shown}"


def critique(text: str) -> str:
    failed = re.search(r"Failed trajectory:\nTool chain: (\[.*?\])", text).group(1)
    good = re.search(r"Successful trajectory:\nTool chain: (\[.*?\])", text).group(1)
    return f"The baseline chose {failed}, which does not compute the requested property; the successful run used {good}."


def experience(text: str) -> str:
    good = re.search(r"successful run used (\[.*?\])", text)
    tools = json.loads(good.group(1)) if good else []
    task = task_of(text) or section(text, "Question:\n", "\n")
    caps = capabilities(task) or ["the requested property"]
    domain = "biology" if re.search(r"dna|rna|protein|sequence", task, re.I) else "chemistry"
    return reply_json(
        {
            "general_prompt": "Map each requested property to a tool whose output type is exactly that property.",
            "domain": domain,
            "domain_prompt": f"When requiring {caps[-1].split(' of ')[0]}, select a tool that provides {' then '.join(tools) or caps[-1]}.",
        }
    )


def skill(text: str) -> str:
    chain = json.loads(section(text, "Tool Chain:\n", "\n"))
    name = "_".join("_".join(sorted(words(t), key=t.lower().find)) for t in chain)[:60]
    return reply_json({"Ni": name, "Zi": "Take the input and " + " then ".join(chain) + "."})


def ontology(text: str) -> str:
    line = section(text, "Sparse description: ", "\n")
    m = re.match(r"[A-Za-z0-9_]+: (.*?) \| Input: (.*?) \| Output: (.*)$", line)
    func, ins, outs = (m.group(1), m.group(2), m.group(3)) if m else (line, "", "")
    return reply_json(
        {
            "functionality": func.replace(" ...", ""),
            "inputs": ins.split(", "),
            "outputs": outs.split(", "),
            "category": "chemistry",
            "objects": ["molecule"],
            "scenarios": ["property calculation"],
        }
    )


def judge(text: str) -> str:
    ref = section(text, "Reference answer:\n", "\n")
    pred = section(text, "Predicted answer:\n", "\n")
    ok = ref.strip().lower() in pred.lower()
    return reply_json({"decision": "Yes" if ok else "No", "reason": "compared with the reference"})


def react(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
    task_text = next(m["content"] for m in messages if m["role"] == "user")
    question = task_text.split("\n")[0]
    caps = capabilities(question)
    done = [m for m in messages if m["role"] == "tool"]
    calls = [c for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    library_calls = [c for c in calls if c["function"]["name"] != "search_tools"]
    used = list(dict.fromkeys(c["function"]["name"] for c in library_calls))
    if len(used) >= len(caps):
        outs = [json.loads(m["content"]) for m in done]
        vals = [o.get("value") for o in outs if isinstance(o, dict) and o.get("ok")]
        return f"Thought: done.\nAnswer: {vals[-1] if vals else 'unknown'}"
    cap = caps[len(used)]
    lines = [
        (t["function"]["name"], f"- {t['function']['name']}: {t['function']['description']}")
        for t in tools
        if t["function"]["name"] != "search_tools"
    ]
    name, score = best(cap, lines)
    searched = [
        json.loads(c["function"]["arguments"]).get("capability")
        for c in calls
        if c["function"]["name"] == "search_tools"
    ]
    if score < 0.6 and cap not in searched:
        return {
            "content": f"Thought: no known tool to {cap}.",
            "tool_calls": [{"name": "search_tools", "arguments": {"capability": cap}}],
        }
    schema = next(t["function"]["parameters"] for t in tools if t["function"]["name"] == name)
    arg = (schema.get("required") or list(schema["properties"]))[0]
    prev = [json.loads(m["content"]) for m in done]
    prev_strings = [
        o["value"]
        for o in prev
        if isinstance(o, dict) and o.get("ok") and isinstance(o.get("value"), str)
    ]
    values = prev_strings[-1:] if prev_strings and used else parameters(task_text)
    return {
        "content": f"Thought: {cap}.",
        "tool_calls": [{"name": name, "arguments": {arg: v}} for v in values],
    }


ROLES = [
    ("describe the tool capabilities required", active_request),
    ("Complete the following two-step task", rerank),
    ("Select the unknown tool that best provides", pick_unknown),
    ("Estimate the difficulty", difficulty),
    ("Decide whether a stored skill solves", skill_match),
    ("Think step by step about which tool operations", gaps),
    ("Plan the tool chain", plan),
    ("Choose the tool chain", plan),
    ("Extract the arguments for one step", arguments),
    ("Answer a scientific question from the results", summary),
    ("Compare two trajectories", critique),
    ("generate highly reusable experience rules", experience),
    ("extract one standardized and reusable skill", skill),
    ("Complete the ontology of a scientific tool", ontology),
    (
        "You attempted a scientific tool-use task",
        lambda t: "I should use a tool that matches the property.",
    ),
    ("whether the predicted answer satisfies the quality standard", judge),
]


def policy(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None, **settings: Any
) -> Any:
    """The scripted model: dispatch on the prompt's role."""
    if tools:
        return react(messages, tools)
    text = messages[-1]["content"] if messages[-1]["role"] == "user" else ""
    if text.startswith("Your reply held no valid JSON"):
        text = next(m["content"] for m in reversed(messages[:-2]) if m["role"] == "user")
    for marker, fn in ROLES:
        if marker in text:
            return fn(text)
    return "I cannot help with that."


def contrastive(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None, **settings: Any
) -> Any:
    """Like `policy`, but below temperature 0.5 it asks for the heavy-atom count.

    The deterministic T=0 rollout therefore picks the wrong tool for an average molecular
    weight question and fails; exploratory rollouts at T >= 0.5 succeed.
    """
    text = messages[-1]["content"] if messages[-1]["role"] == "user" else ""
    if (
        "describe the tool capabilities required" in text
        and float(settings.get("temperature", 0)) < 0.5
    ):
        return "(1) calculate number of heavy atoms in molecule"
    if "Plan the tool chain" in text and float(settings.get("temperature", 0)) < 0.5:
        return reply_json({"tool_chain": ["GetHeavyAtomsNum"]})
    return policy(messages, tools, **settings)


def no_arguments(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None, **settings: Any
) -> Any:
    """Like `policy`, but argument extraction never yields JSON (so no tool is called)."""
    text = messages[-1]["content"] if messages[-1]["role"] == "user" else ""
    if "Extract the arguments for one step" in text or text.startswith("Your reply held no"):
        return "I am not sure which arguments to use."
    return policy(messages, tools, **settings)


def reranker_only(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None, **settings: Any
) -> Any:
    """A separate reranker: it answers the rerank-and-score prompt and nothing else."""
    text = messages[-1]["content"] if messages[-1]["role"] == "user" else ""
    if tools or "Complete the following two-step task" not in text:
        raise AssertionError("the reranker was asked something other than rerank-and-score")
    return rerank(text)


IN_FLIGHT = {"now": 0, "max": 0}


async def timed_policy(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None, **settings: Any
) -> Any:
    """Like `policy`, but each call takes 10 ms; IN_FLIGHT keeps the peak of calls in flight."""
    import asyncio

    IN_FLIGHT["now"] += 1
    IN_FLIGHT["max"] = max(IN_FLIGHT["max"], IN_FLIGHT["now"])
    try:
        await asyncio.sleep(0.01)
        return policy(messages, tools, **settings)
    finally:
        IN_FLIGHT["now"] -= 1


def _scores(text: str) -> dict[str, float]:
    return {k: float(v) for k, v in re.findall(r"(\w+)=([\d.]+)", text)}


def llm_gate(text: str) -> str:
    """Exploit when the rerank found a feasible known tool, else explore."""
    f = _scores(text).get("known_top1_feasibility", 0.0)
    return reply_json({"action": "known" if f >= 0.5 else "unknown"})


def rewrite(text: str) -> str:
    return "; ".join(capabilities(task_of(text))) or task_of(text)


def decompose(text: str) -> str:
    caps = capabilities(task_of(text))
    return " ".join(f"({i}) {c} for the given input?" for i, c in enumerate(caps, 1))


ROLES[:0] = [
    ("Decide how to acquire the tool", llm_gate),
    ("Rewrite a scientific task as one search query", rewrite),
    ("Decompose a scientific task into the sub-questions", decompose),
]


def wrong_tool(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None, **settings: Any
) -> Any:
    """Like `policy`, but every plan counts aromatic rings, whatever the task asks.

    The tool runs without error; for a molecule without rings (CCO) its answer, 0, even
    equals a rotatable-bond count: only the tool path shows the mistake.
    """
    text = messages[-1]["content"] if messages[-1]["role"] == "user" else ""
    if "describe the tool capabilities required" in text:
        return "(1) calculate number of aromatic rings in molecule"
    if "Plan the tool chain" in text or "Choose the tool chain" in text:
        return reply_json({"tool_chain": ["GetAromaticRingsNum"]})
    return policy(messages, tools, **settings)


def bad_ontology(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None, **settings: Any
) -> Any:
    """Like `policy`, but ontology completion guesses wrong I/O types."""
    text = messages[-1]["content"] if messages[-1]["role"] == "user" else ""
    if "Complete the ontology of a scientific tool" in text:
        return reply_json(
            {
                "functionality": "Counts something in a molecule.",
                "inputs": ["SMILES"],
                "outputs": ["count"],
                "category": "chemistry",
                "objects": ["molecule"],
                "scenarios": ["identifier conversion"],
            }
        )
    return policy(messages, tools, **settings)


def ablation_probe(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None, **settings: Any
) -> Any:
    """Like `policy`, but the LLM gate always explores and rewriting gives a fixed query."""
    text = messages[-1]["content"] if messages[-1]["role"] == "user" else ""
    if "Decide how to acquire the tool" in text:
        return reply_json({"action": "unknown"})
    if "Rewrite a scientific task as one search query" in text:
        return "compute InChIKey hash identifier from molecule structure"
    return policy(messages, tools, **settings)


SEEN_SETTINGS: list[dict[str, Any]] = []


def seeded_contrastive(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None, **settings: Any
) -> Any:
    """`contrastive` for a model without temperature control: only a seeded exploration
    variant (seed of T >= 0.5 and the variant instruction in the system prompt) succeeds."""
    SEEN_SETTINGS.append(dict(settings))
    system = messages[0]["content"] if messages and messages[0]["role"] == "system" else ""
    explores = "Exploration variant" in system and int(settings.get("seed", 0)) >= 500
    return contrastive(messages, tools, **{**settings, "temperature": 0.8 if explores else 0})
