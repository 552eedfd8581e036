"""Installs the compiled-form hook (`_formhook`) in a sandboxed run's interpreters.

A run's environment puts this directory on PYTHONPATH (`_formcache.run_env`), and so
does a trusted process's (`_jitcache.trusted_env`); the hook is active only when
`SCIGATE_FORMCACHE` names the shared forms cache or `SCIGATE_FORM_DIRECT` the compiler
a trusted process runs directly. Nothing is
loaded at start-up but a finder: `_formhook` itself is loaded when FFCx's JIT module
is first imported, so interpreters that never compile a form pay nothing.
"""

import os
import sys


class _LoadHookOnJit:
    NAME = "ffcx.codegeneration.jit"

    def find_spec(self, fullname, path, target=None):
        if fullname != self.NAME:
            return None
        sys.meta_path.remove(self)
        import importlib.util

        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        spec = importlib.util.spec_from_file_location(
            "_scigate_formhook", os.path.join(here, "_formhook.py")
        )
        if spec is None or spec.loader is None:
            return None
        hook = importlib.util.module_from_spec(spec)
        sys.modules["_scigate_formhook"] = hook
        spec.loader.exec_module(hook)
        return hook._PatchOnImport().find_spec(fullname, path, target)


_ACTIVE = os.environ.get("SCIGATE_FORMCACHE") or os.environ.get("SCIGATE_FORM_DIRECT")
if _ACTIVE and "_scigate_formhook" not in sys.modules:
    sys.meta_path.insert(0, _LoadHookOnJit())
