"""One OPSIN JVM per process, started on first use and reused for every name.

py2opsin starts ``java -jar opsin.jar`` for each call (about a second of JVM start-up
each time, 11 s on a loaded machine). OPSIN's command line reads names from stdin and
answers one line per name, flushed, with an empty line (and the reason on stderr) when
it cannot parse, so one long-lived process serves every call. A name that takes longer
than the timeout kills the JVM; the next call starts a fresh one.
"""

from __future__ import annotations

import atexit
import contextlib
import queue
import select
import subprocess
import threading
from importlib import resources
from typing import IO

from scigate.tools._tool import ToolInputError

JAR = "opsin-cli-2.9.0-jar-with-dependencies.jar"
NAME_TIMEOUT = 30.0  # seconds per name, JVM start-up included on the first
_BANNER = "Run the jar using the -h flag"


def _jar_path() -> str:
    return str(resources.files("py2opsin").joinpath(JAR))  # ImportError without py2opsin


class OpsinServer:
    """A long-lived ``java -jar opsin.jar -osmi`` process answering one name per line."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[str] | None = None
        self._errors: queue.Queue[str] = queue.Queue()
        self._lock = threading.Lock()
        self.starts = 0  # how many JVMs this process has started

    @property
    def pid(self) -> int | None:
        """Process id of the running JVM (None before the first call)."""
        return self._proc.pid if self._proc is not None and self._proc.poll() is None else None

    def _start(self) -> subprocess.Popen[str]:
        proc = subprocess.Popen(
            ["java", "-jar", _jar_path(), "-osmi"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
            start_new_session=True,
        )
        errors: queue.Queue[str] = queue.Queue()
        assert proc.stderr is not None

        def drain(stream: IO[str] = proc.stderr) -> None:
            for line in stream:
                if not line.startswith(_BANNER):
                    errors.put(line.strip())

        threading.Thread(target=drain, daemon=True, name="opsin-stderr").start()
        self._errors = errors
        self.starts += 1
        return proc

    def stop(self) -> None:
        """Kill the JVM (a later call starts a new one)."""
        proc, self._proc = self._proc, None
        if proc is not None:
            with contextlib.suppress(Exception):
                proc.kill()
                proc.wait(timeout=5)
            for stream in (proc.stdin, proc.stdout):
                with contextlib.suppress(Exception):
                    if stream is not None:
                        stream.close()

    def parse(self, name: str, timeout: float = NAME_TIMEOUT) -> str:
        """OPSIN's SMILES for one name; `ToolInputError` with OPSIN's reason when unparsable."""
        if "\n" in name or "\r" in name:
            raise ToolInputError("molecule name must be a single line")
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self.stop()
                self._proc = self._start()
            proc = self._proc
            assert proc.stdin is not None and proc.stdout is not None
            while not self._errors.empty():  # stale messages of an earlier call
                self._errors.get_nowait()
            try:
                proc.stdin.write(name + "\n")
                proc.stdin.flush()
                ready, _, _ = select.select([proc.stdout], [], [], timeout)
                line = proc.stdout.readline() if ready else None
            except (BrokenPipeError, OSError) as exc:
                self.stop()
                raise OSError(f"OPSIN process failed: {exc}") from None
            if line is None:
                self.stop()
                raise ToolInputError(f"OPSIN took longer than {timeout:g} s (stopped)")
            if line == "":
                self.stop()
                raise OSError("OPSIN process exited")
            smiles = line.strip()
            if smiles:
                return smiles
            try:
                reason = self._errors.get(timeout=1.0)
            except queue.Empty:
                reason = "could not interpret it"
            raise ToolInputError(f"OPSIN: {reason[:300]}")


_SERVER = OpsinServer()
atexit.register(_SERVER.stop)


def opsin_server() -> OpsinServer:
    """The process-wide OPSIN server."""
    return _SERVER
