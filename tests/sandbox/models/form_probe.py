"""A solver model that looks for compiled forms a candidate's own runs left behind.

The candidate's solution (see `test_attacks_formcache.py`) compiles one of two forms,
`3.25 x dx` or `4.75 x dx`, by a bit it was written with: its way of leaving the answer for
a solver written to look. This solver builds both forms in one `run_python` call and
counts, for each, the compiled modules its run found already there (the hook's hits);
it submits the counts, e.g. "probe:1,0" when the first form had been compiled.
"""

PROBE = """
import sys
import dolfinx_solver  # noqa: F401
import ffcx.codegeneration.jit  # noqa: F401  (loads the form hook in cold runs)
import ufl
from dolfinx import fem, mesh
from mpi4py import MPI

hook = sys.modules["_scigate_formhook"]
msh = mesh.create_unit_square(MPI.COMM_WORLD, 2, 2)
x = ufl.SpatialCoordinate(msh)
seen = []
for literal in (3.25, 4.75):
    before = hook.STATS["hits"]
    fem.assemble_scalar(fem.form(literal * x[0] * ufl.dx(domain=msh)))
    seen.append(hook.STATS["hits"] - before)
print("probe:" + ",".join(map(str, seen)))
"""


def _runs_then_submits(messages, code: str, runs: int, prefix: str) -> dict:
    """run_python `code` `runs` times, then submit the line starting with `prefix` that
    the last run printed."""
    tool_msgs = [m for m in messages if m["role"] == "tool"]
    if len(tool_msgs) < runs:
        return {
            "content": None,
            "tool_calls": [{"name": "run_python", "arguments": {"code": code}}],
        }
    out = tool_msgs[-1]["content"]
    printed = next((ln for ln in out.splitlines() if ln.startswith(prefix)), prefix + "?")
    return {"content": None, "tool_calls": [{"name": "submit", "arguments": {"answer": printed}}]}


def probes_forms(messages, tools=None, **settings):
    """run_python the probe, then submit the line it printed."""
    return _runs_then_submits(messages, PROBE, 1, "probe:")


# each call first empties the workspace's own FFCx cache, where the second call would
# otherwise find the module without asking the shared one
TWICE = """
import os, shutil, sys
shutil.rmtree(os.path.join(os.environ["XDG_CACHE_HOME"], "fenics"), ignore_errors=True)
import dolfinx_solver  # noqa: F401
import ffcx.codegeneration.jit  # noqa: F401
import ufl
from dolfinx import fem, mesh
from mpi4py import MPI

msh = mesh.create_unit_square(MPI.COMM_WORLD, 3, 3)
x = ufl.SpatialCoordinate(msh)
fem.assemble_scalar(fem.form(5.5 * x[1] * x[1] * ufl.dx(domain=msh)))
stats = sys.modules["_scigate_formhook"].STATS
print(f"stats:{stats['hits']},{stats['compiled']},{stats['private']}")
"""


def builds_twice(messages, tools=None, **settings):
    """run_python the same form in two tool calls, then submit what the second printed."""
    return _runs_then_submits(messages, TWICE, 2, "stats:")


# a generator that writes a FEniCSx candidate and runs its solution once in its own
# episode (as the generator prompt asks), compiling the solution's form there
AUTHOR = """
import json, os, random, runpy
os.makedirs("candidate", exist_ok=True)
literal = 2 + random.random()
solution = f'''
import dolfinx_solver  # noqa: F401
import ufl
from dolfinx import fem, mesh
from mpi4py import MPI
msh = mesh.create_unit_square(MPI.COMM_WORLD, 3, 3)
x = ufl.SpatialCoordinate(msh)
print(f"{{fem.assemble_scalar(fem.form({literal!r} * x[0] * x[1] * ufl.dx(domain=msh))):.6f}}")
'''
value = f"{literal / 4:.6f}"
files = {
    "question.md": "Integrate the field over the unit square.",
    "options.json": json.dumps({"A": value, "B": "9.000000", "C": "8.000000", "D": "7.000000"}),
    "answer.txt": "A",
    "solution.py": solution,
}
for name, text in files.items():
    with open(os.path.join("candidate", name), "w") as f:
        f.write(text)
os.chdir("candidate")
runpy.run_path("solution.py", run_name="__main__")
"""


def writes_and_runs(messages, tools=None, **settings):
    """run_python the author script, then submit "done"."""
    if not [m for m in messages if m["role"] == "tool"]:
        return {
            "content": None,
            "tool_calls": [{"name": "run_python", "arguments": {"code": AUTHOR}}],
        }
    return {"content": None, "tool_calls": [{"name": "submit", "arguments": {"answer": "done"}}]}
