"""Installs the compiled-form hook (`_formhook`) in a sandboxed run's interpreters.

A run's environment puts this directory on PYTHONPATH (`_formcache.run_env`); the
hook is active only when `SCIGATE_FORMCACHE` names the shared forms cache.
"""

import importlib.util
import os
import sys

if os.environ.get("SCIGATE_FORMCACHE") and "_scigate_formhook" not in sys.modules:
    _path = os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "_formhook.py"
    )
    _spec = importlib.util.spec_from_file_location("_scigate_formhook", _path)
    if _spec is not None and _spec.loader is not None:
        _hook = importlib.util.module_from_spec(_spec)
        sys.modules["_scigate_formhook"] = _hook
        _spec.loader.exec_module(_hook)
        _hook.install()
