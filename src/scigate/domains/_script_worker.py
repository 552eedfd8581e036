"""Persistent worker that executes rendered template scripts in one interpreter.

Standalone on purpose (no scigate import): started as ``python _script_worker.py MODULE...``
(by `ScriptWorker`, for FEniCSx and every other domain's templates) and imports the named
modules once, in order; an argument ending in ``.py`` is a file run once instead (its
globals stay alive for the worker's life: a domain's warm-up, e.g. materials keeping
pymatgen's space groups built). Protocol: one JSON request per line on stdin ``{"source": "..."}``, one JSON reply per line on the original stdout
``{"ok": true, "result": float, "printed": "..."}`` or ``{"ok": false, "error": "..."}``.
File descriptor 1 is redirected to stderr so that output written by compiled libraries
cannot corrupt the protocol; ``print`` in scripts is captured.
"""

import contextlib
import importlib
import io
import json
import os
import runpy
import sys


def main() -> None:
    """Serve requests until stdin closes."""
    reply = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    kept = []  # the globals of preloaded files, alive as long as the worker
    for name in sys.argv[1:]:
        if name.endswith(".py"):
            kept.append(runpy.run_path(name, run_name="_scigate_preload"))
        else:
            importlib.import_module(name)

    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        captured = io.StringIO()
        namespace = {"__name__": "__main__", "__file__": "solution.py"}
        try:
            with contextlib.redirect_stdout(captured):
                exec(compile(request["source"], "solution.py", "exec"), namespace)
            answer = {
                "ok": True,
                "result": float(namespace["result"]),
                "printed": captured.getvalue().strip(),
            }
        except BaseException as exc:  # a failing script must not kill the worker
            answer = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        reply.write(json.dumps(answer) + "\n")


if __name__ == "__main__":
    main()
