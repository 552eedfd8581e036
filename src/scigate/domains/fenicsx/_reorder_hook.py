"""Inside the sandbox only: present every DOLFINx mesh with its cells and nodes reordered.

This file is not imported by scigate. Its text is put, with a call of `install()`, at the
head of the small runner the invariance gate writes into the workspace (the scigate
package itself is not visible in the sandbox). `install()` wraps the mesh constructors of
`dolfinx.mesh`: a mesh built by `create_unit_square`, `create_rectangle`, `create_box`,
`create_unit_cube`, `create_interval`, `create_unit_interval` or `create_mesh` is rebuilt
with `create_mesh` from the same cells and node coordinates presented in a shuffled
order. The geometry is the same (same cells, same nodes, same local node order within
each cell, so orientation and the quadrilateral/hexahedral layout are kept); what changes
is the numbering of cells, geometry nodes (`mesh.geometry.x`) and therefore of the dofs
of every function space. A correct script prints the same value; a script that takes a
geometry index for a dof index, or relies on a particular cell order, does not.

DOLFINx reorders cells itself (for locality) when it builds a mesh, which for some
meshes undoes a shuffle; each shuffle is checked against the mesh as first built and
another seed is tried when the node order came out the same. Each mesh reports one line
on stderr starting with `MARKER` and then `applied:` or `skipped:`, which the gate reads
to tell a perturbed run from one with nothing to perturb. Meshes of more than one process are left as they are (the check runs serial).

A script that could tell it is being checked could behave differently, so the check fails
closed rather than trusting the script: every `dolfinx.mesh.Mesh` built outside the
wrapped constructors (read from a file, built from the C++ layer, or by an unwrapped
original) is reported `unperturbed:`, derived meshes (refine, submesh, point meshes) are
not; `finish()` runs after the script and reports `done:` last. Reports carry the run's
token (the runner's `_SCIGATE_TOKEN`) and go to a private copy of the stderr descriptor,
so replacing `sys.stderr` neither hides nor reveals them, and a script cannot forge them
without the token. The gate decides nothing from a run without the `done:` report.
"""

import contextlib
import functools
import os
import threading

# shared helpers: hook_prelude runs _hook_common.py first in this namespace
_emit = globals()["_emit"]

MARKER = "scigate-invariance:"
SEEDS = (20260331, 1, 2, 3, 5, 8, 13, 21)
_state = threading.local()
_channel = {"fd": 2, "token": ""}
_counts = {"meshes": 0, "unperturbed": 0}


def _report(status, msh):
    try:
        cells = msh.topology.index_map(msh.topology.dim).size_local
        nodes = msh.geometry.x.shape[0]
        size = f" ({cells} cells, {nodes} nodes)"
    except Exception:
        size = ""
    _emit(f"{status}{size}")


def finish():
    """The closing report: how many meshes the script built, how many unperturbed."""
    _emit(f"done: {_counts['meshes']} meshes built, {_counts['unperturbed']} not reordered")


def _shuffle(comm, cells, e, x, create, seed, extra):
    import numpy as np

    rng = np.random.default_rng(seed)
    cells, x = np.asarray(cells), np.asarray(x)
    order = rng.permutation(x.shape[0])  # new node k is old node order[k]
    new_of_old = np.empty(x.shape[0], dtype=np.int64)
    new_of_old[order] = np.arange(x.shape[0], dtype=np.int64)
    new_cells = new_of_old[cells[rng.permutation(cells.shape[0])]]
    return create(comm, new_cells, e, np.ascontiguousarray(x[order]), *extra[0], **extra[1])


def _reordered(original, comm, cells, e, x, create, extra=((), {})):
    """A mesh of the same cells and nodes whose node order differs from `original`'s
    (`extra`: further arguments of `create`, e.g. a partitioner)."""
    import numpy as np

    for seed in SEEDS:
        msh = _shuffle(comm, cells, e, x, create, seed, extra)
        if not np.array_equal(msh.geometry.x, original.geometry.x):
            _report("applied: mesh reordered", msh)
            return msh
    _report("skipped: the mesh kept its order under every seed", original)
    return original


def install(token=""):
    """Wrap the mesh constructors of dolfinx.mesh (only the outermost call reorders) and
    count every mesh built outside them.

    Without an importable DOLFINx nothing is wrapped: the script cannot build a mesh.
    """
    _channel["token"] = token
    with contextlib.suppress(OSError):
        _channel["fd"] = os.dup(2)  # private: the script's stderr redirections miss it
    try:
        import dolfinx_solver  # noqa: F401  (orders MPI before dolfinx)
        import dolfinx.mesh as dm
    except ImportError:
        return

    create_mesh = dm.create_mesh

    def guarded(fn, rebuild):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if getattr(_state, "busy", False):
                return fn(*args, **kwargs)
            _state.busy = True
            try:
                return rebuild(fn, *args, **kwargs)
            finally:
                _state.busy = False

        return wrapper

    def rebuild_built(fn, *args, **kwargs):
        msh = fn(*args, **kwargs)
        if msh.comm.size != 1:
            _report("skipped: a mesh of more than one process", msh)
            return msh
        try:
            g = msh.geometry
            return _reordered(
                msh, msh.comm, g.dofmaps[0], msh.ufl_domain(), g.x[:, : g.dim], create_mesh
            )
        except Exception as exc:  # the check cannot apply; the gate sees it in the report
            _report(f"skipped: {type(exc).__name__}: {exc}", msh)
            return msh

    def rebuild_given(fn, comm, cells, e, x, *args, **kwargs):
        msh = fn(comm, cells, e, x, *args, **kwargs)
        if comm.size != 1:
            _report("skipped: a mesh of more than one process", msh)
            return msh
        try:
            return _reordered(msh, comm, cells, e, x, fn, (args, kwargs))
        except Exception as exc:
            _report(f"skipped: {type(exc).__name__}: {exc}", msh)
            return msh

    for name in (
        "create_interval",
        "create_unit_interval",
        "create_rectangle",
        "create_unit_square",
        "create_box",
        "create_unit_cube",
    ):
        setattr(dm, name, guarded(getattr(dm, name), rebuild_built))
    dm.create_mesh = guarded(create_mesh, rebuild_given)

    def passed_through(fn, *args, **kwargs):
        return fn(*args, **kwargs)

    # meshes derived from a mesh (reordered or already reported) or from the script's
    # own points are not new meshes to reorder
    for name in ("refine", "uniform_refine", "create_submesh", "create_point_mesh"):
        if hasattr(dm, name):
            setattr(dm, name, guarded(getattr(dm, name), passed_through))

    mesh_init = dm.Mesh.__init__

    def counted_init(self, *args, **kwargs):
        mesh_init(self, *args, **kwargs)
        _counts["meshes"] += 1
        if not getattr(_state, "busy", False):
            _counts["unperturbed"] += 1
            _report("unperturbed: a mesh built outside the constructors the check wraps", self)

    dm.Mesh.__init__ = counted_init
