"""Scripted solvers for gate runs on an executor: they compute in the sandbox (the run
picks the option with the largest number, as a file of the workspace says) and submit."""

import json
import re
import sys

PICK_LARGEST = """import json, re
options = json.load(open("options.json"))
def number(text):
    m = re.search(r"[-+]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][-+]?\\d+)?", text)
    return float(m.group()) if m else float("-inf")
print(max(sorted(options), key=lambda k: number(options[k])))
"""


def picks_largest(messages, tools=None, **settings):
    """First call: run PICK_LARGEST with run_python. Second call: submit what it printed."""
    tool_msgs = [m for m in messages if m["role"] == "tool"]
    if not tool_msgs:
        return {
            "content": "I will compute it.",
            "tool_calls": [{"name": "run_python", "arguments": {"code": PICK_LARGEST}}],
        }
    out = tool_msgs[-1]["content"]
    printed = out.split("--- stdout ---\n", 1)[1].splitlines()[0].strip()
    return {"content": None, "tool_calls": [{"name": "submit", "arguments": {"answer": printed}}]}


def main() -> None:
    """As a --solver-cmd: `python solvers.py WORKSPACE` writes the largest option's letter."""
    workspace = sys.argv[1]
    with open(f"{workspace}/options.json") as f:
        options = json.load(f)

    def number(text: str) -> float:
        m = re.search(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?", text)
        return float(m.group()) if m else float("-inf")

    letter = max(sorted(options), key=lambda k: number(options[k]))
    with open(f"{workspace}/answer.txt", "w") as f:
        f.write(letter + "\n")


if __name__ == "__main__":
    main()
