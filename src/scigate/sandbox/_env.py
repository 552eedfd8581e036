"""The environment a sandboxed command sees: an explicit allow-list, HOME in the workspace.

Nothing of the caller's environment passes through unless it is named here
(`ALLOWED_NAMES`, `ALLOWED_PREFIXES`): locale, thread counts, where the domain software
and the C compiler are, TLS certificate bundles and proxies (for the runs that have a
network, such as `--solver-cmd`), and TMPDIR outside isolation. An allowed name whose
value looks like a credential (`scigate._secrets.is_secret`: a proxy URL with a
password, a key) is left out too. Whatever the caller passes as `extra` goes in as given.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from scigate._cachedir import user_cache_dir
from scigate._secrets import is_secret

__all__ = [
    "ALLOWED_NAMES",
    "ALLOWED_PREFIXES",
    "allowed",
    "default_cache_dir",
    "is_secret",
    "sandbox_env",
    "scrub_env",
]

#: the caller's variables a sandboxed run may see, by exact name
ALLOWED_NAMES = frozenset(
    {
        # locale and text encoding
        "LANG",
        "LANGUAGE",
        "TZ",
        "TZDIR",
        "PYTHONIOENCODING",
        "PYTHONUTF8",
        # thread counts of the numerical libraries (OpenMP, OpenBLAS, MKL, BLIS, numexpr,
        # numba, Accelerate, Hugging Face tokenizers)
        "BLIS_NUM_THREADS",
        "GOTO_NUM_THREADS",
        "NUMEXPR_NUM_THREADS",
        "NUMEXPR_MAX_THREADS",
        "NUMBA_NUM_THREADS",
        "VECLIB_MAXIMUM_THREADS",
        "TOKENIZERS_PARALLELISM",
        # where the domain software lives: shared libraries, PETSc/SLEPc (petsc4py reads
        # PETSC_DIR/PETSC_ARCH), the MPI library mpi4py loads, Java for OPSIN, and the C
        # compiler FFCx's JIT calls through setuptools
        "LD_LIBRARY_PATH",
        "PETSC_DIR",
        "PETSC_ARCH",
        "SLEPC_DIR",
        "MPI4PY_MPIABI",
        "MPI4PY_LIBMPI",
        "I_MPI_ROOT",
        "OMPI_ALLOW_RUN_AS_ROOT",
        "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM",
        "JAVA_HOME",
        "CC",
        "CXX",
        "CFLAGS",
        "CXXFLAGS",
        "CPPFLAGS",
        "LDFLAGS",
        # TLS certificate bundles and proxies, for the runs given a network
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "REQUESTS_CA_BUNDLE",
        "CURL_CA_BUNDLE",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "NO_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
        "no_proxy",
        # where temporary files go (outside isolation; under it TMPDIR is /tmp)
        "TMPDIR",
    }
)
#: ... and by prefix: locale categories, OpenMP and BLAS settings (OPENBLAS_CORETYPE,
#: OPENBLAS_L2_SIZE, MKL_CBWR, ...), the MPI implementations' parameters
ALLOWED_PREFIXES = (
    "LC_",
    "OMP_",
    "KMP_",
    "OPENBLAS_",
    "MKL_",
    "MPIR_CVAR_",
    "HYDRA_",
    "OMPI_MCA_",
    "PRTE_MCA_",
    "PMIX_MCA_",
)


def scrub_env(env: Mapping[str, str]) -> dict[str, str]:
    """A copy of `env` without API keys, tokens, passwords and cloud credentials."""
    return {name: value for name, value in env.items() if not is_secret(name, value)}


def allowed(name: str, value: str) -> bool:
    """Whether the caller's variable `name` may reach a sandboxed run: allow-listed and
    not a credential by its name or its value."""
    listed = name in ALLOWED_NAMES or name.startswith(ALLOWED_PREFIXES)
    return listed and not is_secret(name, value)


def default_cache_dir() -> Path:
    """The cache shared across runs (scigate's user cache directory)."""
    return user_cache_dir()


def sandbox_env(
    base: Mapping[str, str],
    *,
    workspace: Path,
    extra: Mapping[str, str] | None,
    inside: str | None = None,
) -> dict[str, str]:
    """The full environment of a sandboxed command.

    HOME is `workspace/.home`; XDG_CACHE_HOME is `workspace/.home/.cache`, the run's
    private cache, where DOLFINx puts its FFCx JIT cache (`$XDG_CACHE_HOME/fenics`, see
    dolfinx/jit.py) and where `_jitcache.link_trusted` links the modules of the shared,
    read-only cache. The interpreter's bin directory (the venv's) goes first on
    PATH so `python` has DOLFINx; the rest of PATH is the caller's. Of `base` only the
    allow-listed variables pass (`allowed`); `extra` is added last and is not filtered:
    the caller chose it. `inside` is the workspace's path as the run sees it (under
    isolation), where HOME is put instead.
    """
    env = {name: value for name, value in base.items() if allowed(name, value)}
    home = Path(inside or workspace) / ".home"
    bin_dir = str(Path(sys.executable).parent)
    caller_path = base.get("PATH", os.defpath)
    if is_secret("PATH", caller_path):  # a key pasted into PATH stays out too
        caller_path = os.defpath
    path = [p for p in caller_path.split(os.pathsep) if p and p != bin_dir]
    env.update(
        HOME=str(home),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        PATH=os.pathsep.join([bin_dir, *path]),
        PYTHONUNBUFFERED="1",
    )
    if inside is not None:
        env["TMPDIR"] = "/tmp"
    if sys.prefix != sys.base_prefix:
        env["VIRTUAL_ENV"] = sys.prefix
    env.update(extra or {})
    return env
