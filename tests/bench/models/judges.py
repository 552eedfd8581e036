"""Scripted Appendix D sample-quality judges for the bench tests (python/ models)."""

import json


def _user(messages):
    return next(m["content"] for m in messages if m["role"] == "user")


def approves(messages, tools=None, **settings):
    return json.dumps({"decision": "Yes", "reason": "clear and the chain fits"})


def rejects_lists(messages, tools=None, **settings):
    """Says No to any sample whose parameter is a list (every task from level 2 up)."""
    user = _user(messages)
    parameter = json.loads(user.split("Parameter:\n", 1)[1].split("\nStrictly", 1)[0])
    if isinstance(parameter, list):
        return '```json\n{"decision": "No", "reason": "too many objects to follow"}\n```'
    return json.dumps({"decision": "Yes", "reason": "fine"})


def rambles(messages, tools=None, **settings):
    return "I think this sample is probably fine overall."


def fails(messages, tools=None, **settings):
    raise RuntimeError("judge endpoint down")
