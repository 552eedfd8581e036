"""Scripted question writers for the bench tests (python/ models).

The writers read the executed specification appended to the Appendix C prompt (the last
JSON line of the user message) and word a question from it, as an LLM would.
"""

import json


def _spec(messages):
    user = next(m["content"] for m in messages if m["role"] == "user")
    return user, json.loads(user.strip().splitlines()[-1])


def _question(spec):
    objects = spec["Parameter"] if isinstance(spec["Parameter"], list) else [spec["Parameter"]]
    listed = ", ".join(objects)
    if spec.get("select"):
        sel = spec["select"]
        conds = " and ".join(sel["conditions"]) or "no further condition"
        ask = f"Of {listed}, which candidate with {conds} shows the {sel['objective']}?"
    else:
        ask = f"Regarding {listed}, what is the {' and the '.join(spec['asks_for'])}?"
    fmt = spec["format"]
    if fmt == "content completion":
        return ask + " Fill in: the answer is ____."
    if fmt == "true/false":
        return f"True or false: the answer to this is {spec['statement_claims']}. {ask}"
    return ask


def good(messages, tools=None, **settings):
    """Words the specification faithfully."""
    _, spec = _spec(messages)
    return json.dumps(
        {
            "tool_path": spec["tool_path"],
            "question": _question(spec),
            "Parameter": spec["Parameter"],
        }
    )


def names_a_tool(messages, tools=None, **settings):
    """Puts the first tool's name into the question."""
    _, spec = _spec(messages)
    question = f"Using {spec['tool_path'][-1]}: " + _question(spec)
    return json.dumps(
        {"tool_path": spec["tool_path"], "question": question, "Parameter": spec["Parameter"]}
    )


def changes_path(messages, tools=None, **settings):
    """Drops the last tool of the path."""
    _, spec = _spec(messages)
    return json.dumps(
        {
            "tool_path": spec["tool_path"][:-1] or ["GetKappa1"],
            "question": _question(spec),
            "Parameter": spec["Parameter"],
        }
    )


def asks_about_another_entity(messages, tools=None, **settings):
    """Keeps tool_path and Parameter but asks about a substance that is not the parameter:
    the stored answer (executed on the parameter) would answer another question."""
    _, spec = _spec(messages)
    objects = spec["Parameter"] if isinstance(spec["Parameter"], list) else [spec["Parameter"]]
    question = _question(spec)
    for obj in objects:
        question = question.replace(obj, "caffeine")
    return json.dumps(
        {"tool_path": spec["tool_path"], "question": question, "Parameter": spec["Parameter"]}
    )
