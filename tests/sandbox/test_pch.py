"""The precompiled prologue of trusted form compiles (`_pch`): used where the C text
starts with cffi's prologue, the same machine code as without it, never used for other
text, and no PCH (headers parsed as usual) when one cannot be built."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from scigate.sandbox import _formcache

FLAGS = {"extra_compile_args": ["-O2", "-g0"], "libraries": ["m"], "debug": False}
BASE = _formcache.compiler_base()
pytestmark = pytest.mark.skipif(shutil.which("objdump") is None, reason="needs binutils")


def _module_c(tmp_path: Path, body: str = "double twice(double x) { return 2 * x; }") -> bytes:
    """The C text cffi emits for a small API-mode module (an FFCx module's prologue)."""
    import cffi

    ffi = cffi.FFI()
    ffi.cdef("double twice(double);")
    name = "libffcx_forms_" + "cd" * 20
    ffi.set_source(name, body)
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "module.c"
    ffi.emit_c_code(str(path))
    text = path.read_bytes()
    assert f"PyInit_{name}(".encode() in text
    return _formcache._formhook.canonical_c(text)


def _compile(tmp_path: Path, c_text: bytes, pch: Path | None, name: str) -> tuple[str, str]:
    """(headers the compiler read, per -H; disassembly) of compiling `c_text`."""
    work = tmp_path / name
    work.mkdir()
    (work / "source.c").write_bytes(c_text)
    command = _formcache.compile_command(FLAGS, pch)
    out = subprocess.run([*command, "-H"], cwd=work, capture_output=True, text=True, check=True)
    dis = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", _formcache._formhook.SO_NAME],
        cwd=work,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return out.stderr, dis.split("\n", 2)[2]  # without the file name line


def test_the_prologue_is_loaded_precompiled_with_the_same_machine_code(tmp_path: Path) -> None:
    c_text = _module_c(tmp_path)
    pch = _formcache.precompiled_headers(c_text, FLAGS, BASE)
    assert pch is not None and (pch / "pyconfig.h.gch").is_file()
    used, with_pch = _compile(tmp_path, c_text, pch, "pch")
    read, without = _compile(tmp_path, c_text, None, "plain")
    assert f"! {pch}/pyconfig.h.gch" in used  # GCC loaded it
    assert "Python.h" in read and ".gch" not in read  # the control: parsed as usual
    assert with_pch == without
    assert "twice" in with_pch
    again = _formcache.precompiled_headers(
        _module_c(tmp_path / "x", "double twice(double x) { return x + x; }"), FLAGS, BASE
    )
    assert again == pch  # built once per command and compiler


def test_c_text_with_another_prologue_gets_no_pch(tmp_path: Path) -> None:
    c_text = _module_c(tmp_path)
    assert _formcache.precompiled_headers(b"#define Py_DEBUG\n" + c_text, FLAGS, BASE) is None
    assert (
        _formcache.precompiled_headers(c_text.replace(b"_CFFI_", b"_CFFX_", 1), FLAGS, BASE) is None
    )


def test_no_pch_when_it_cannot_be_built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    c_text = _module_c(tmp_path)
    monkeypatch.setenv("SCIGATE_CACHE_DIR", str(tmp_path / "cache"))
    options = _formcache._compile_options
    monkeypatch.setattr(_formcache, "_compile_options", lambda flags, base: ["--no-such-option"])
    assert _formcache.precompiled_headers(c_text, FLAGS, BASE) is None
    assert list((tmp_path / "cache" / "pch").iterdir()) == []  # no half-built PCH left
    monkeypatch.setattr(_formcache, "_compile_options", options)  # good options again
    no_version = {**BASE, "cc": ["false"]}  # a compiler with no version: no PCH
    assert _formcache.precompiled_headers(c_text, FLAGS, no_version) is None


TRUSTED_SCRIPT = """
import random, sys
import cffi

def _setuptools_build(*args, **kwargs):
    raise RuntimeError("cffi's setuptools build was used")

cffi.FFI.compile = _setuptools_build  # the hook's direct compile must not need it
import dolfinx_solver  # noqa: F401
import ufl
from dolfinx import fem, mesh
from mpi4py import MPI

msh = mesh.create_unit_square(MPI.COMM_WORLD, 3, 3)
x = ufl.SpatialCoordinate(msh)
value = fem.assemble_scalar(fem.form(LITERAL * x[0] * x[1] * ufl.dx(domain=msh)))
print(f"{value:.12f}")
"""


@pytest.mark.slow
@pytest.mark.parametrize("direct", [True, False], ids=["direct", "control"])
def test_a_trusted_process_compiles_its_forms_without_cffis_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, direct: bool
) -> None:
    """Trusted processes (the template workers) run the C compiler directly, with the
    precompiled prologue, instead of cffi's setuptools build: a form compiles and
    assembles (1/4 of the literal) with that build made to fail. The control, without
    the direct compile, reaches it."""
    import os
    import random
    import sys

    from scigate.sandbox import trusted_jit_env

    monkeypatch.setenv("SCIGATE_CACHE_DIR", str(tmp_path / "cache"))
    env = {**os.environ, **trusted_jit_env()}
    assert (json_spec := env.get("SCIGATE_FORM_DIRECT"))
    assert '"pch": "' in json_spec  # the prologue precompiled for the default flags
    if not direct:
        env.pop("SCIGATE_FORM_DIRECT")
    literal = 2 + random.random()  # a form no process compiled before
    script = TRUSTED_SCRIPT.replace("LITERAL", repr(literal))
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300
    )
    if direct:
        assert out.returncode == 0, out.stderr[-2000:]
        assert abs(float(out.stdout.strip()) - literal / 4) < 1e-12
        assert list((tmp_path / "cache" / "trusted").rglob("libffcx_forms_*.so"))
    else:
        assert "setuptools build was used" in out.stderr


def test_reading_cffis_prologue_never_swaps_the_hosts_stdout() -> None:
    """Two template workers start in two threads, each reading the prologue: swapping
    `sys.stdout` to hide cffi's "generating ..." line once left it swapped for good
    (`gate run --json` then printed nothing). A watcher thread sees any swap."""
    import sys
    import threading

    from scigate.sandbox import _pch

    _pch.prologue.cache_clear()
    original, swapped, done = sys.stdout, [], threading.Event()

    def watch() -> None:
        while not done.is_set():
            if sys.stdout is not original:
                swapped.append(sys.stdout)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        for _ in range(5):
            _pch.prologue.cache_clear()
            assert _pch.prologue()
    finally:
        done.set()
        watcher.join()
    assert sys.stdout is original and not swapped
