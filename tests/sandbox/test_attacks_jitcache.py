"""JIT cache poisoning: a candidate compiles a form, then replaces its compiled module
with one whose quadrature weights are doubled; a later candidate with the same form
would load it and print twice the right answer. The shared cache is read-only inside
runs and filled only by trusted processes (`_jitcache`); each workspace compiles into
its own cache. The same attack with a shared read-write cache (the old layout) works,
so the test cannot pass vacuously."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from scigate.sandbox import _isolation, default_cache_dir, fresh_workspace, run_python
from scigate.sandbox._jitcache import JIT_SUBDIR, trusted_dir, trusted_env

ISOLATED = _isolation.bwrap_status()[0] is not None
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not ISOLATED, reason="bwrap cannot isolate here"),
]
PRELOAD = ("dolfinx_solver", "dolfinx", "dolfinx.fem.petsc", "ufl", "basix")

VICTIM = textwrap.dedent(
    """
    import dolfinx_solver  # noqa: F401
    import ufl
    from dolfinx import fem, mesh
    from mpi4py import MPI

    msh = mesh.create_unit_square(MPI.COMM_WORLD, 4, 4)
    c = fem.Constant(msh, 3.0)
    print(f"{fem.assemble_scalar(fem.form(c * c * ufl.dx(domain=msh))):.6f}")
    """
)
ATTACKER = VICTIM + textwrap.dedent(
    """
    import glob, os, re, subprocess, sysconfig
    import ffcx.codegeneration
    jit = os.path.join(os.environ["XDG_CACHE_HOME"], "fenics")
    dirs = [jit, os.environ.get("SCIGATE_TRUSTED_JIT", jit)]  # wherever the module came from
    found = [p for d in dirs for p in glob.glob(os.path.join(d, "libffcx_forms_*.c"))]
    src = max(found, key=os.path.getmtime)
    scale = lambda m: m.group(1) + ",".join(str(2 * float(v)) for v in m.group(2).split(","))
    text = re.sub(r"(static const double weights_\\w+\\[\\d+\\] = \\{)([^}]*)", scale,
                  open(os.path.realpath(src)).read())
    open("poisoned.c", "w").write(text)
    so = src[:-2] + sysconfig.get_config_var("EXT_SUFFIX")
    # the module behind a link to the shared cache first, else the one this run sees
    for target in dict.fromkeys([os.path.realpath(so), os.path.join(jit, os.path.basename(so))]):
        try:
            subprocess.run(["cc", "-shared", "-fPIC", "-O1",
                            "-I" + sysconfig.get_paths()["include"],
                            "-I" + ffcx.codegeneration.get_include_path(),
                            "poisoned.c", "-o", target + ".tmp"], check=True)
            os.replace(target + ".tmp", target)
            print("planted", target)
            break
        except (OSError, subprocess.CalledProcessError) as exc:
            print("refused", target, exc)
    """
)


def _run(code: str, preload: tuple[str, ...], env: dict | None = None) -> str:
    ws = fresh_workspace(parent=default_cache_dir().parent)
    result = run_python(code, workspace=ws, preload=preload, env=env)
    assert result.ok, (result.reason, result.stderr[-2000:])
    return result.stdout


def _trusted_warm_up() -> Path:
    """The victim's form compiled by a trusted process into the shared cache."""
    env = {**os.environ, **trusted_env()}
    subprocess.run([sys.executable, "-c", VICTIM], env=env, check=True, capture_output=True)
    shared = trusted_dir(default_cache_dir()) / JIT_SUBDIR
    assert list(shared.glob("*.so"))
    return shared


@pytest.mark.parametrize("preload", [PRELOAD, ()], ids=["warm", "cold"])
def test_a_planted_module_reaches_no_other_run(preload) -> None:
    assert _run(VICTIM, preload).splitlines()[0] == "9.000000"
    attack = _run(ATTACKER, preload)
    assert "planted" in attack  # in its own private cache: harmless to others
    assert _run(VICTIM, preload).splitlines()[0] == "9.000000"


@pytest.mark.parametrize("preload", [PRELOAD, ()], ids=["warm", "cold"])
def test_the_shared_cache_is_used_but_cannot_be_overwritten(preload) -> None:
    shared = _trusted_warm_up()
    before = {p.name: p.read_bytes() for p in shared.iterdir()}
    attack = _run(ATTACKER, preload)
    assert f"refused {shared}" in attack, attack
    assert {p.name: p.read_bytes() for p in shared.iterdir()} == before
    ws = fresh_workspace(parent=default_cache_dir().parent)
    write = run_python(f"open({str(shared / 'planted')!r}, 'w')", workspace=ws, preload=preload)
    assert not write.ok and "Read-only file system" in write.stderr
    ws = fresh_workspace(parent=default_cache_dir().parent)
    result = run_python(VICTIM, workspace=ws, preload=preload)
    assert result.stdout.splitlines()[0] == "9.000000"
    private = ws / ".home" / ".cache" / JIT_SUBDIR
    compiled = list(private.glob("*.so"))  # (a warm run may not even make the dir)
    assert all(p.is_symlink() for p in compiled)  # found in the shared cache, not compiled
    assert compiled or preload  # cold: through links; warm: the server looks there itself


@pytest.mark.parametrize("preload", [PRELOAD, ()], ids=["warm", "cold"])
def test_with_a_shared_writable_cache_the_attack_works(preload, monkeypatch) -> None:
    monkeypatch.setattr(_isolation, "CACHE_BIND", "--bind")
    shared = {"XDG_CACHE_HOME": str(default_cache_dir().resolve())}  # the old layout
    assert _run(VICTIM, preload, shared).splitlines()[0] == "9.000000"
    assert "planted" in _run(ATTACKER, preload, shared)
    assert _run(VICTIM, preload, shared).splitlines()[0] == "18.000000"
