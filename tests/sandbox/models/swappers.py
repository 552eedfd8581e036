"""A model whose tool calls try to redirect their workspace to a host directory.

Step 1 renames the workspace away and leaves a symlink to the host directory named by
`$SCIGATE_TEST_HOSTDIR` in its place (what escaped when the host moved a warm workspace
back by name); step 2, a new tool call, reads that directory's `secret.txt` and plants
a `planted.pth` through the workspace; then it submits what step 2 printed.
"""

import os

SWAP = """
import os
host = {host!r}
moved = []
for ws in ("/sandbox/workspace", os.getcwd()):
    try:
        os.rename(ws, os.path.join(os.path.dirname(ws), "moved-away"))
        moved.append("renamed " + ws)
    except OSError as exc:
        moved.append(f"rename {{ws}}: {{exc.strerror}}")
        continue
    try:
        os.symlink(host, ws)
        moved.append("linked " + ws)
    except OSError as exc:
        moved.append(f"symlink {{ws}}: {{exc.strerror}}")
for name in (".home", "candidate"):
    try:
        if os.path.isdir(name) and not os.path.islink(name):
            os.rename(name, name + ".old")
        os.symlink(host, name)
        moved.append("linked " + name)
    except OSError as exc:
        moved.append(f"link {{name}}: {{exc.strerror}}")
print("; ".join(moved))
"""

READ = """
import os
found = []
for path in ("secret.txt", ".home/secret.txt", "candidate/secret.txt"):
    try:
        found.append(open(path).read().strip())
    except OSError:
        pass
for path in ("planted.pth", ".home/planted.pth"):
    try:
        with open(path, "w") as f:
            f.write("import os\\n")
    except OSError:
        pass
print("found:" + ("|".join(found) or "nothing"))
"""


def swaps_workspace(messages, tools=None, **settings):
    """run_python the swap, run_python the read, then submit what the read printed."""
    host = os.environ["SCIGATE_TEST_HOSTDIR"]
    tool_msgs = [m for m in messages if m["role"] == "tool"]
    if len(tool_msgs) == 0:
        code = SWAP.format(host=host)
        return {
            "content": None,
            "tool_calls": [{"name": "run_python", "arguments": {"code": code}}],
        }
    if len(tool_msgs) == 1:
        return {
            "content": None,
            "tool_calls": [{"name": "run_python", "arguments": {"code": READ}}],
        }
    out = tool_msgs[-1]["content"]
    printed = next((ln for ln in out.splitlines() if ln.startswith("found:")), "found:?")
    return {"content": None, "tool_calls": [{"name": "submit", "arguments": {"answer": printed}}]}
