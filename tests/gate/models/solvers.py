"""Scripted tool-using solvers: they run code through run_python and submit its output."""


def runs_code(messages, tools=None, **settings):
    """First call: compute with run_python. Second call: submit the printed value."""
    tool_msgs = [m for m in messages if m["role"] == "tool"]
    if not tool_msgs:
        code = "import json\nprint(f'{2/7:.6f}')\n"
        return {
            "content": "I will compute it.",
            "tool_calls": [{"name": "run_python", "arguments": {"code": code}}],
        }
    out = tool_msgs[-1]["content"]
    printed = out.split("--- stdout ---\n", 1)[1].splitlines()[0].strip()
    return {"content": None, "tool_calls": [{"name": "submit", "arguments": {"answer": printed}}]}


def reads_workspace(messages, tools=None, **settings):
    """Checks what the workspace holds, then submits the letter D."""
    tool_msgs = [m for m in messages if m["role"] == "tool"]
    if not tool_msgs:
        return {
            "content": None,
            "tool_calls": [{"name": "run_bash", "arguments": {"command": "ls -A"}}],
        }
    listing = tool_msgs[-1]["content"]
    for private in ("answer.txt", "solution.py", "meta.json"):
        assert private not in listing, listing
    return {"content": None, "tool_calls": [{"name": "submit", "arguments": {"answer": "D"}}]}


def never_submits(messages, tools=None, **settings):
    return "I give up."


def raises(messages, tools=None, **settings):
    raise RuntimeError("the provider is down")
