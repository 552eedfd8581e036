"""A precompiled Python.h for the trusted form compiles (`_formcache.compile_trusted`).

Of the C compiler's 0.08-0.09 s on an FFCx module, about 0.03 s is parsing the
headers that cffi's prologue includes (`pyconfig.h`, `Python.h`, ...), the same for
every module; the form's own code takes about as long. GCC can load that parse from a
precompiled header (PCH), but only at a translation unit's first `#include`, which in
cffi's prologue is `#include <pyconfig.h>`. So the PCH is built from a header named
`pyconfig.h` holding the prologue itself (less its first line, `#define _CFFI_`, given
as `-D_CFFI_=` instead): loaded there, it leaves the compiler in the state the
prologue reaches through `#include <Python.h>`, and the rest of the prologue finds its
macros defined identically and Python.h's guard set. The machine code is the same as
without it (checked with objdump in the tests).

Built by the host from trusted input only (cffi's prologue as cffi emits it for an
empty module, Python's headers), once per compile command, compiler and prologue,
under the shared cache (`<cache>/pch/<hash>/pyconfig.h.gch`, read-only inside every
run like the rest of the cache). A module's C text gets the PCH only when it starts
with that very prologue; GCC itself also refuses a PCH whose options or macros differ
(and then reads the headers as usual), and any failure to build one just means no PCH.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from scigate.sandbox import _formhook

PCH_SUBDIR = "pch"
HEADER = "pyconfig.h"  # cffi's prologue's first #include: where GCC may load a PCH
CFFI_DEFINE = b"#define _CFFI_\n"
PYTHON_H = b"#include <Python.h>\n"
BUILD_SECONDS = 120.0

_lock = threading.Lock()


@functools.cache
def prologue() -> bytes | None:
    """cffi's prologue as `_formhook.canonical_c` leaves it, through `#include
    <Python.h>` (the C text every FFCx module starts with); None when cffi emits none."""
    import cffi
    from cffi.recompiler import make_c_source

    ffi = cffi.FFI()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "probe.c")
        # what FFI.emit_c_code writes, without its "generating ..." on stdout (no
        # swapping sys.stdout: other threads of the host print there)
        make_c_source(ffi, "_scigate_pch_probe", "", path, verbose=False)
        with open(path, "rb") as f:
            text = _formhook.canonical_c(f.read())
    end = text.find(PYTHON_H)
    if not text.startswith(CFFI_DEFINE) or end < 0:
        return None
    return text[: end + len(PYTHON_H)]


@functools.cache
def _compiler_id(cc: tuple[str, ...]) -> str:
    """The compiler's own version text (a PCH is valid for that compiler only)."""
    try:
        out = subprocess.run(
            [*cc, "--version"], capture_output=True, text=True, timeout=30, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout


def precompiled(cache_dir: Path, options: list[str], cc: list[str]) -> Path | None:
    """The directory holding the PCH for compiles with `cc` and `options` (the compile
    command's flags and include directories), built when missing; None when there is no
    usable prologue or it cannot be built."""
    head = prologue()
    compiler = _compiler_id(tuple(cc))
    if head is None or not compiler:
        return None
    digest = hashlib.sha256()
    for part in (compiler, "\0".join(options), head.decode("latin-1")):
        digest.update(part.encode("latin-1", "replace") + b"\0")
    target = cache_dir / PCH_SUBDIR / digest.hexdigest()[:32]
    if (target / (HEADER + ".gch")).is_file():
        return target
    with _lock:
        if (target / (HEADER + ".gch")).is_file():
            return target
        return target if _build(target, head, options, cc) else None


def _build(target: Path, head: bytes, options: list[str], cc: list[str]) -> bool:
    """Compile the prologue into `target/pyconfig.h.gch` (written aside, then renamed
    into place, so a concurrent build in another process is harmless)."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=".build-", dir=target.parent))
    except OSError:
        return False
    try:
        src = work / "src"
        out = work / "out"
        src.mkdir()
        out.mkdir()
        (src / HEADER).write_bytes(head[len(CFFI_DEFINE) :])
        command = [*cc, *options, "-D_CFFI_=", "-x", "c-header", str(src / HEADER)]
        subprocess.run(
            [*command, "-o", str(out / (HEADER + ".gch"))],
            capture_output=True,
            timeout=BUILD_SECONDS,
            check=True,
        )
        (out / (HEADER + ".gch")).chmod(0o444)
        out.chmod(0o755)
        try:
            os.rename(out, target)
        except OSError:  # another process put one there first
            return (target / (HEADER + ".gch")).is_file()
        return True
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        shutil.rmtree(work, ignore_errors=True)
