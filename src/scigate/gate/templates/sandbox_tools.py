"""The python and bash tools of a released inspect_ai task, reaching the domain software.

inspect_ai's own tools run `bash --login`, whose profile resets PATH: the model's
`python3` is then the system one, without the packages the items need. Here `python`
runs an explicit interpreter, and `bash` puts that interpreter's folder first on PATH
after the login profile ran:

- sandbox "local" (inspect's default: unisolated, on this machine): the interpreter the
  release was written with (`sandbox.json`), or `-T python=/path/to/python`;
- sandbox "docker": the image built from this folder's `Dockerfile` (`compose.yaml`),
  which installs the domain's software; its `python3` and PATH.
"""

import json
import os
import shlex
from pathlib import Path

from inspect_ai.tool import Tool, tool
from inspect_ai.util import ExecResult
from inspect_ai.util import sandbox as sandbox_env

HERE = Path(__file__).parent
SETTINGS = HERE / "sandbox.json"
COMPOSE = HERE / "compose.yaml"


def sandbox_plan(sandbox: str, python: str | None) -> tuple[object, str, list[str]]:
    """(inspect's sandbox spec, the interpreter, the folders to put first on PATH)."""
    if sandbox == "docker":
        return ("docker", str(COMPOSE)), python or "python3", []
    try:
        recorded = json.loads(SETTINGS.read_text())
    except (OSError, ValueError):
        recorded = {}
    # the recorded interpreter only where it exists (a release read on another machine)
    release_python = recorded.get("python") or ""
    interpreter = python or (release_python if Path(release_python).is_file() else "python3")
    first = [str(Path(interpreter).parent)] if "/" in interpreter else []
    first += [p for p in recorded.get("path", []) if p not in first and Path(p).is_dir()]
    return sandbox, interpreter, first


def _output(result: ExecResult[str]) -> str:
    return (f"{result.stderr}\n" if result.stderr else "") + result.stdout


@tool(name="python")
def run_python(interpreter: str, path: list[str], timeout: int | None = None) -> Tool:
    """Python run by `interpreter`, with `path` first on PATH."""
    # local sandbox: the interpreter's folder first, then this process's PATH
    env = {"PATH": ":".join([*path, os.environ.get("PATH", "")])} if path else None

    async def execute(code: str) -> str:
        """
        Run a Python script in a fresh process; print() what you need to see.

        Args:
          code: The Python code to run.

        Returns:
          The script's output (stderr, then stdout).
        """
        result = await sandbox_env().exec([interpreter, "-"], input=code, env=env, timeout=timeout)
        return _output(result)

    return execute


@tool(name="bash")
def run_bash(path: list[str], timeout: int | None = None) -> Tool:
    """bash as a login shell, with `path` first on PATH after the profile ran."""
    prefix = f'export PATH={shlex.quote(":".join(path))}:"$PATH"\n' if path else ""

    async def execute(command: str) -> str:
        """
        Run a bash command (a fresh login shell each call).

        Args:
          command: The bash command to run.

        Returns:
          The command's output (stderr, then stdout).
        """
        cmd = ["bash", "--login", "-c", prefix + command]
        return _output(await sandbox_env().exec(cmd, timeout=timeout))

    return execute
