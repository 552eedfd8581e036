"""Client side of the persistent script worker (one warm interpreter, many scripts)."""

from __future__ import annotations

import json
import math
import os
import select
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from scigate._tmp import scigate_tempdir
from scigate.errors import ScigateError
from scigate.sandbox import trusted_jit_env

#: the worker script every domain's template generator runs (standalone, no scigate import)
WORKER = Path(__file__).parents[2] / "_script_worker.py"
#: what the FEniCSx worker imports once (dolfinx_solver must come before dolfinx)
FENICSX_PRELOAD = ("dolfinx_solver", "dolfinx")


@dataclass
class ScriptResult:
    """Outcome of one script: full-precision ``result`` and the line it printed, or an error."""

    ok: bool
    value: float = math.nan
    printed: str = ""
    error: str = ""


class ScriptWorker:
    """A warm Python process that executes rendered solution scripts on request.

    `preload` is imported once (by default DOLFINx: forms compiled by FFCx stay loaded, so
    each further script costs only its own mesh, assembly and solve). With `trusted_jit`
    (our own FEniCSx templates) the worker may fill the sandbox's shared JIT cache. A
    script that hangs longer than ``timeout`` seconds kills the worker; the next call
    starts a fresh one.
    """

    def __init__(
        self,
        python: str = sys.executable,
        timeout: float = 300.0,
        *,
        preload: Sequence[str] = FENICSX_PRELOAD,
        trusted_jit: bool = True,
    ):
        self.python = python
        self.timeout = timeout
        self.preload = tuple(preload)
        self.trusted_jit = trusted_jit
        self._proc: subprocess.Popen[bytes] | None = None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            self._tmp = scigate_tempdir("worker")
            # our own rendered FEniCSx templates: trusted to fill the sandbox's shared JIT
            # cache, so the verification runs of template candidates find their forms compiled
            env = {**os.environ, **(trusted_jit_env() if self.trusted_jit else {})}
            self._proc = subprocess.Popen(
                [self.python, str(WORKER), *self.preload],
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                cwd=self._tmp.name,
            )
        return self._proc

    def run(self, source: str) -> ScriptResult:
        """Execute ``source`` in the worker and return its result."""
        proc = self._start()
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write((json.dumps({"source": source}) + "\n").encode())
            proc.stdin.flush()
        except BrokenPipeError:
            self.close()
            raise ScigateError("template worker died before accepting a script") from None
        ready, _, _ = select.select([proc.stdout], [], [], self.timeout)
        line = proc.stdout.readline() if ready else b""
        if not line:
            self.close()
            why = "timed out" if not ready else "exited"
            raise ScigateError(f"template worker {why} while running a script")
        reply = json.loads(line)
        if not reply["ok"]:
            return ScriptResult(ok=False, error=reply["error"])
        return ScriptResult(ok=True, value=reply["result"], printed=reply["printed"])

    def close(self) -> None:
        """Stop the worker process (idempotent)."""
        if self._proc is not None:
            if self._proc.poll() is None:
                self._proc.kill()
            self._proc.wait()
            for stream in (self._proc.stdin, self._proc.stdout):
                if stream is not None:
                    stream.close()
            self._proc = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None
