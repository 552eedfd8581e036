"""The files a release's tool-enabled inspect_ai task needs to reach the domain software.

`sandbox_tools.py` (the task's python and bash tools), `sandbox.json` (the interpreter
for inspect's local sandbox: this process's, which has scigate's extras installed),
and a `Dockerfile` with `compose.yaml` for `-T sandbox=docker` (an image with the
domain's packages, those of scigate's extra of the same name).
"""

from __future__ import annotations

import json
import re
import sys
from importlib import resources
from importlib.metadata import PackageNotFoundError, requires
from pathlib import Path

from scigate._atomic import write_text_atomic

#: Packages that need more than pip in the image: the Debian packages to install first.
SYSTEM_PACKAGES = {"py2opsin": ["default-jre-headless"]}  # OPSIN runs on Java
_EXTRA = re.compile(r"^(?P<req>[^;]+);\s*extra\s*==\s*['\"](?P<extra>[\w-]+)['\"]\s*$")

COMPOSE = """services:
  default:
    build: .
    init: true
    command: tail -f /dev/null
    network_mode: none
"""


def extra_packages(extras: list[str]) -> list[str]:
    """The requirements of scigate's `extras` (as installed), in order, without repeats."""
    try:
        declared = requires("scigate") or []
    except PackageNotFoundError:
        return []
    out: list[str] = []
    for line in declared:
        m = _EXTRA.match(line)
        if m and m["extra"] in extras and m["req"].strip() not in out:
            out.append(m["req"].strip())
    return out


def dockerfile(packages: list[str]) -> str:
    """A Python 3.12 image with `packages` (and the system packages they need)."""
    system = sorted(
        {
            d
            for p in packages
            for k, deps in SYSTEM_PACKAGES.items()
            if p.startswith(k)
            for d in deps
        }
    )
    lines = ["FROM python:3.12-slim"]
    if system:
        lines.append(
            "RUN apt-get update && apt-get install -y --no-install-recommends "
            + " ".join(system)
            + " && rm -rf /var/lib/apt/lists/*"
        )
    if packages:
        quoted = " ".join(json.dumps(p) for p in packages)
        lines.append(f"RUN pip install --no-cache-dir {quoted}")
    lines.append("WORKDIR /workspace")
    return "\n".join(lines) + "\n"


def write_sandbox_files(out_dir: Path, extras: list[str], python: str | None = None) -> list[Path]:
    """Write sandbox_tools.py, sandbox.json, Dockerfile and compose.yaml into `out_dir`."""
    interpreter = python or sys.executable
    files = {
        "sandbox_tools.py": (
            resources.files("scigate.gate") / "templates" / "sandbox_tools.py"
        ).read_text(encoding="utf-8"),
        "sandbox.json": json.dumps(
            {"python": interpreter, "path": [str(Path(interpreter).parent)], "extras": extras},
            indent=2,
        )
        + "\n",
        "Dockerfile": dockerfile(extra_packages(extras)),
        "compose.yaml": COMPOSE,
    }
    written = []
    for name, text in files.items():
        write_text_atomic(out_dir / name, text)
        written.append(out_dir / name)
    return written
