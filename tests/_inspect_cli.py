"""Running the real `inspect eval` CLI in a subprocess with a scripted model provider
(`_inspect_scripted.py`, registered through an `inspect_ai` entry point)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
INSPECT = Path(sys.executable).with_name("inspect")


def scripted_provider(site: Path) -> dict[str, str]:
    """Make `scripted/...` an inspect model provider (an entry point in a dist-info on
    PYTHONPATH, as an installed package would have); returns the subprocess environment."""
    site.mkdir(parents=True, exist_ok=True)
    shutil.copy(HERE / "_inspect_scripted.py", site / "inspect_scripted.py")
    info = site / "inspect_scripted-0.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: inspect-scripted\nVersion: 0.0\n")
    (info / "entry_points.txt").write_text("[inspect_ai]\nscripted = inspect_scripted\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("INSPECT_")}
    env["PYTHONPATH"] = str(site)
    env["INSPECT_LOG_DIR"] = str(site.parent / "logs")
    env["INSPECT_DISPLAY"] = "plain"
    return env


def inspect_eval(task: Path, model: str, env: dict[str, str], *args: str) -> dict:
    """Run `inspect eval` in a subprocess; return the JSON log it wrote."""
    logs = Path(env["INSPECT_LOG_DIR"])
    done = subprocess.run(
        [str(INSPECT), "eval", task.name, "--model", model, "--log-format", "json", *args],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        cwd=task.parent,
    )
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])
    (path,) = sorted(logs.glob("*.json"))
    log = json.loads(path.read_text())
    path.unlink()
    return log
