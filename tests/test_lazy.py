"""Package faces load heavy names on first use, once, and refuse unknown names."""

from __future__ import annotations

import subprocess
import sys

import pytest


def test_a_lazy_name_imports_its_module_on_first_use_and_is_cached() -> None:
    code = (
        "import sys, scigate.gate as g\n"
        "assert 'scigate.gate._loop' not in sys.modules\n"
        "f = g.run_loop\n"
        "assert 'scigate.gate._loop' in sys.modules and vars(g)['run_loop'] is f\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_an_unknown_name_is_an_attribute_error() -> None:
    import scigate.tools

    with pytest.raises(AttributeError, match=r"'scigate\.tools' has no attribute 'nope'"):
        _ = scigate.tools.nope
