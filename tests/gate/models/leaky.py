"""Models that leak the caller's OPENAI_API_KEY into everything they say: replies, tool-call
arguments, code they run. They run in the caller's process, so they can read it."""

import importlib.util
import os
from pathlib import Path


def _sibling(name: str):
    spec = importlib.util.spec_from_file_location(
        f"leaky_{name}", Path(__file__).with_name(f"{name}.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


writes_candidates = _sibling("generator").writes_candidates
picks_largest = _sibling("screens").picks_largest


def _key() -> str:
    return os.environ["OPENAI_API_KEY"]


def generator(messages, tools=None, **settings):
    """`writes_candidates`, with the key in its reply and in the code it runs."""
    reply = writes_candidates(messages, tools, **settings)
    reply["content"] = f"Writing the candidate with key {_key()}."
    for call in reply["tool_calls"]:
        if call["name"] == "run_python":
            call["arguments"]["code"] = f"# {_key()}\n" + call["arguments"]["code"]
    return reply


def screen(messages, tools=None, **settings):
    """`picks_largest`, reciting the key first."""
    return f"My key is {_key()}.\n" + picks_largest(messages, tools, **settings)


def solver(messages, tools=None, **settings):
    """Computes 2/7 with code that prints the key to stderr, then submits it."""
    tool_msgs = [m for m in messages if m["role"] == "tool"]
    if not tool_msgs:
        code = f"import sys\nprint({_key()!r}, file=sys.stderr)\nprint(f'{{2/7:.6f}}')\n"
        return {
            "content": f"Using {_key()}.",
            "tool_calls": [{"name": "run_python", "arguments": {"code": code}}],
        }
    out = tool_msgs[-1]["content"]
    printed = out.split("--- stdout ---\n", 1)[1].splitlines()[0].strip()
    return {
        "content": f"Done, {_key()}.",
        "tool_calls": [{"name": "submit", "arguments": {"answer": printed}}],
    }


def answers(messages, tools=None, **settings):
    """A direct answerer (agent eval) whose answer is the key."""
    return f"The answer is {_key()}."
