"""Every call bounded: time limits, input size limits, the killable worker pool."""

from __future__ import annotations

import json
import os
import time

import pytest
from typer.testing import CliRunner

from scigate.cli._tools import app
from scigate.errors import BadInput
from scigate.tools import get_tool, load_library, run_chain, tool
from scigate.tools._bounded import (
    DEFAULT_TIME_LIMIT,
    effective_time_limit,
    limit_override,
    worker_pool,
)

LONG_CHAIN = "C" * 300  # CalculatePMI1 on this ran past 4 minutes before calls were bounded
# seconds allowed past the limit: ten times what a kill and reap took on a loaded 2-core
# machine; the message naming the limit and the killed worker show which ended the call
MARGIN = 15.0
_LOCAL: dict = {}


@tool(
    name="SleepFor",
    functionality="Sleep for some seconds (test tool).",
    inputs=["number"],
    outputs=["number"],
    category="general",
    source="test",
    registry=_LOCAL,
    heavy=True,
    time_limit=0.5,
)
def sleep_for(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


@tool(
    name="ReportPid",
    functionality="The process id the body runs in (test tool).",
    inputs=[],
    outputs=["number"],
    category="general",
    source="test",
    registry=_LOCAL,
    heavy=True,
)
def report_pid() -> int:
    return os.getpid()


@tool(
    name="CrashWorker",
    functionality="Exit the process abruptly (test tool).",
    inputs=[],
    outputs=["number"],
    category="general",
    source="test",
    registry=_LOCAL,
    heavy=True,
)
def crash_worker() -> int:
    os._exit(3)


@tool(
    name="EchoSmall",
    functionality="Echo a short text (test tool).",
    inputs=["text"],
    outputs=["text"],
    category="general",
    source="test",
    registry=_LOCAL,
    max_input_chars=10,
)
def echo_small(text: str) -> str:
    return text


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # a zombie still answers kill(0); it must not be our unreaped child
    with open(f"/proc/{pid}/stat") as fh:
        return fh.read().split(")")[1].split()[0] == "Z"


def test_heavy_tools_are_declared_and_run_in_a_worker() -> None:
    heavy = {n for n, t in load_library().items() if t.spec.heavy}
    assert {"CalculatePMI1", "GetNPR1", "CalculatePmi", "CalculateRadiusOfGyration"} <= heavy
    assert not get_tool("SMILESToWeight").spec.heavy
    result = _LOCAL["ReportPid"].call({})
    assert result.ok and result.value != os.getpid()
    pmi = get_tool("CalculatePMI1").call({"smiles": "c1ccccc1"})
    assert pmi.ok and pmi.value == pytest.approx(88.73, abs=1.0)


def test_declared_limit_stops_the_worker_and_names_the_limit() -> None:
    pid = _LOCAL["ReportPid"].call({}).value
    pool = worker_pool()
    # run the sleeper on the one idle worker we just saw (LIFO pool)
    start = time.monotonic()
    result = _LOCAL["SleepFor"].call({"seconds": 600})
    elapsed = time.monotonic() - start
    assert not result.ok
    assert "time limit of 0.5 s exceeded" in result.error
    assert elapsed < 0.5 + MARGIN
    assert _gone(pid) and pid not in pool.pids()
    # the pool recovers: the next call gets a fresh worker
    assert _LOCAL["SleepFor"].call({"seconds": 0}).ok


@pytest.mark.slow
def test_pmi1_on_a_300_carbon_chain_is_stopped_within_the_limit() -> None:
    t = get_tool("CalculatePMI1")
    assert t.call({"smiles": "CC"}).ok  # warm worker
    before = set(worker_pool().pids())
    start = time.monotonic()
    with limit_override(1.0):
        result = t.call({"smiles": LONG_CHAIN})
    elapsed = time.monotonic() - start
    assert not result.ok and "time limit of 1 s exceeded" in result.error
    assert elapsed < 1.0 + MARGIN
    killed = before - set(worker_pool().pids())
    assert len(killed) == 1 and all(_gone(p) for p in killed)


def test_a_crashing_worker_is_reported_and_replaced() -> None:
    result = _LOCAL["CrashWorker"].call({})
    assert not result.ok and "worker process died (exit code 3)" in result.error
    assert _LOCAL["ReportPid"].call({}).ok


def test_input_size_limit() -> None:
    assert _LOCAL["EchoSmall"].call({"text": "short"}).ok
    big = _LOCAL["EchoSmall"].call({"text": "x" * 11})
    assert not big.ok and "input size limit exceeded (11 characters > 10)" in big.error
    huge = get_tool("SMILESToWeight").call({"smiles": "C" * 300_000})
    assert not huge.ok and "input size limit" in huge.error


def test_which_limit_applies(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SCIGATE_TOOL_TIME_LIMIT", raising=False)
    assert effective_time_limit(None) == DEFAULT_TIME_LIMIT
    monkeypatch.setenv("SCIGATE_TOOL_TIME_LIMIT", "7")
    assert effective_time_limit(None) == 7.0
    assert effective_time_limit(3.0) == 3.0
    with limit_override(0.25):
        assert effective_time_limit(3.0) == 0.25
    with pytest.raises(BadInput), limit_override(-1):
        pass


def test_chain_and_cli_go_through_the_bound() -> None:
    with limit_override(0.2):
        step = _LOCAL["SleepFor"].call({"seconds": 5})
    assert not step.ok and "0.2 s" in step.error
    with limit_override(0.5):
        outcome = run_chain(["CalculatePMI1"], LONG_CHAIN)
    assert not outcome.ok and "time limit" in json.dumps(outcome.as_dict())
    runner = CliRunner()
    res = runner.invoke(
        app, ["run", "CalculatePMI1", "-i", LONG_CHAIN, "--time-limit", "0.5", "--json"]
    )
    assert res.exit_code == 1
    assert "time limit of 0.5 s exceeded" in json.loads(res.stdout)["error"]


async def test_mcp_calls_are_bounded() -> None:
    from fastmcp import Client

    from scigate.tools import build_mcp_server

    with limit_override(0.5):
        server = build_mcp_server({"CalculatePMI1": get_tool("CalculatePMI1")})
        async with Client(server) as client:
            res = await client.call_tool(
                "CalculatePMI1", {"smiles": LONG_CHAIN}, raise_on_error=False
            )
    assert res.is_error and "time limit of 0.5 s" in res.structured_content["error"]
