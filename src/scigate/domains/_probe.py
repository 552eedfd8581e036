"""The environment probe shared by the RDKit and pymatgen domains."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from typing import Any


def probe_environment(python: str, probe: str, *, needed: Sequence[str]) -> dict[str, Any]:
    """Run `probe` (prints one JSON line: packages and a tiny computation) in `python`."""
    try:
        proc = subprocess.run([python, "-c", probe], capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return {"ok": False, "python": python, "error": "environment probe timed out"}
    lines = proc.stdout.strip().splitlines()
    try:
        report = json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        return {
            "ok": False,
            "python": python,
            "error": f"probe exited {proc.returncode}: {proc.stderr.strip()[-300:]}",
        }
    report["interpreter"] = python
    report["ok"] = all(report["packages"][n]["ok"] for n in needed) and report["solve"]["ok"]
    return report
