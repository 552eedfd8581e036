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


async def delayed_policy(messages, tools=None, **settings):
    """`policy` behind a simulated network round trip of $SCIGATE_BENCH_LATENCY seconds
    (default 0.05), so that harness concurrency has waiting to overlap."""
    import asyncio
    import os

    await asyncio.sleep(float(os.environ.get("SCIGATE_BENCH_LATENCY", "0.05")))
    return policy(messages, tools, **settings)
