"""The scripted policy of the agent benchmark (the tests' policy, loaded by path).

Use as `python/benchmarks/data/agents_scripted_model.py:policy`.
"""

import importlib.util
from pathlib import Path

_path = Path(__file__).resolve().parents[2] / "tests" / "agents" / "models" / "scripted.py"
_spec = importlib.util.spec_from_file_location("scigate_agents_scripted_policy", _path)
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)

policy = _module.policy
