"""A scripted ToolGate generator: writes candidates through run_python, like an LLM would.

Round 0 writes a good candidate, round 1 a broken one (two printed lines), round 2 the
round-0 question with other options (an exact duplicate question), later rounds new
good candidates. Every prompt it sees is appended to $SCIGATE_TEST_PROMPTS when set;
$SCIGATE_TEST_HOLD makes rounds >= 2 wait until that file exists (a test holds the run
mid-round, signals it, then lets it go); $SCIGATE_TEST_GEN_SLEEP
makes every round's generation take that many seconds; $SCIGATE_TEST_REPROPOSE
makes round 1 repeat round 0's question and options with another proposal;
$SCIGATE_TEST_DISTINCT makes rounds >= 3 ask questions unlike each other's.
"""

import json
import os
import re
import time

# The values go through a Basix computation (the interval's quadrature weights sum to 1)
# so that they pass gate 1b's FEniCSx dependence check like a real item.
_BASIX = "import basix\nw = basix.make_quadrature(basix.CellType.interval, 2)[1].sum()\n"


def _prints(numerator: int, denominator: int) -> str:
    return _BASIX + f"print(f'{{{numerator}/{denominator} * w:.6f}}')\n"


GOOD_SOLUTION = _prints(2, 7)
BROKEN_SOLUTION = GOOD_SOLUTION + "print('done')\n"


def _files(round_index: int) -> dict:
    question = "Compute 2/7 rounded to exactly six decimal places."
    options = {"A": "0.142857", "B": "0.285714", "C": "0.428571", "D": "0.571429"}
    solution = GOOD_SOLUTION
    if round_index == 1 and os.environ.get("SCIGATE_TEST_REPROPOSE"):
        # round 0's question and options again, with another proposal and solution
        return {
            "question.md": question,
            "options.json": json.dumps(options),
            "answer.txt": "A",
            "solution.py": _prints(1, 7),
        }
    if round_index == 1:
        question = "Compute 2/7 (broken solution) rounded to six decimals."
        solution = BROKEN_SOLUTION
    elif round_index == 2:
        options = {"A": "0.285714", "B": "0.142857", "C": "0.428571", "D": "0.571429"}
        return {
            "question.md": question,
            "options.json": json.dumps(options),
            "answer.txt": "A",
            "solution.py": solution,
            "meta.json": json.dumps({"family": "fractions"}),
        }
    elif round_index >= 3:
        k = round_index + 2
        question = f"Compute 2/{k} rounded to exactly six decimal places."
        if os.environ.get("SCIGATE_TEST_DISTINCT"):
            words = ["alpha beta gamma", "delta epsilon zeta", "eta theta iota", "kappa mu nu"]
            question = f"Item {words[round_index % 4]}: what is 2/{k} to six decimals?"
        vals = [2 / k, 1 / k, 3 / k, 4 / k]
        options = {letter: f"{v:.6f}" for letter, v in zip("BACD", vals, strict=True)}
        solution = _prints(2, k)
    return {
        "question.md": question,
        "options.json": json.dumps(options),
        "answer.txt": "B",
        "solution.py": solution,
        "meta.json": json.dumps({"family": "fractions"}),
    }


def writes_candidates(messages, tools=None, **settings):
    user = next(m["content"] for m in messages if m["role"] == "user")
    round_index = int(re.search(r"This is round (\d+)", user).group(1))
    if len(messages) == 2:  # first turn of the episode
        if os.environ.get("SCIGATE_TEST_PROMPTS"):
            with open(os.environ["SCIGATE_TEST_PROMPTS"], "a") as fh:
                fh.write(
                    json.dumps(
                        {"round": round_index, "system": messages[0]["content"], "user": user}
                    )
                    + "\n"
                )
        hold = os.environ.get("SCIGATE_TEST_HOLD")
        if round_index >= 2 and hold:
            deadline = time.monotonic() + 120
            while not os.path.exists(hold) and time.monotonic() < deadline:
                time.sleep(0.01)
        time.sleep(float(os.environ.get("SCIGATE_TEST_GEN_SLEEP", "0")))
        code = "import os, json\nos.makedirs('candidate', exist_ok=True)\n"
        for name, text in _files(round_index).items():
            code += f"open('candidate/{name}', 'w').write({text!r})\n"
        code += "print(sorted(os.listdir('candidate')))\n"
        return {
            "content": "Writing the candidate.",
            "tool_calls": [{"name": "run_python", "arguments": {"code": code}}],
        }
    return {"content": None, "tool_calls": [{"name": "submit", "arguments": {"answer": "done"}}]}


def writes_nothing(messages, tools=None, **settings):
    if len(messages) == 2:
        return {
            "content": None,
            "tool_calls": [{"name": "run_bash", "arguments": {"command": "echo thinking"}}],
        }
    return {"content": None, "tool_calls": [{"name": "submit", "arguments": {"answer": "done"}}]}
