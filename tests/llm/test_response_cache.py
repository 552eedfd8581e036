"""The response cache (issue 36): a call asked before is answered without a request, at no
cost, and recorded as cached; anything that changes the request, or another sample of the
same question, misses; errors and refusal-adapted answers are never stored; credentials
never reach the file; the file stays within its bound.

Requests go through the official SDKs to the loopback wire server (tests/llm/_wire.py),
which counts them."""

from __future__ import annotations

import json
import sqlite3
import threading
import zlib
from pathlib import Path

import pytest

from _modules import load_attr
from scigate.llm import ResponseCache, cache_sample, get_model, response_cache

TESTS = Path(__file__).parent.parent
SECRET = "sk-proj-CacheTestSecret0123456789abcdefXYZ"


WireServer = load_attr(Path(__file__).parent / "_wire.py", "WireServer")


def _echo(messages, tools=None, **settings):
    """A fresh answer per request (the server's request count), so two answers differ."""
    _echo.n += 1
    return f"answer {_echo.n} to {messages[-1]['content']}"


_echo.n = 0
SCRIPTS = {
    "echo": _echo,
    "policy": load_attr(TESTS / "agents/models/scripted.py", "policy"),
}
RETRY = "retry_wait=0.01&retry_wait_max=0.05"


@pytest.fixture
def cache_dir(tmp_path, monkeypatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv("SCIGATE_CACHE_DIR", str(directory))
    monkeypatch.delenv("SCIGATE_CACHE", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    return directory


@pytest.fixture
def server():
    s = WireServer(SCRIPTS)
    yield s
    s.close()


def _spec(server, script="echo", extra=""):
    return f"openai-compatible/qwen3-8b?base_url={server.openai_url(script)}&{RETRY}{extra}"


def _ask(spec: str, text: str, **settings):
    import asyncio

    async def go():
        return await get_model(spec).generate([{"role": "user", "content": text}], **settings)

    return asyncio.run(go())


def _entries(directory: Path) -> int:
    with ResponseCache(directory / "responses.sqlite") as cache:
        return cache.stats()["entries"]


def test_a_repeated_call_is_answered_from_the_cache_and_anything_changed_misses(server, cache_dir):
    spec = _spec(server)
    with response_cache(True):
        first = _ask(spec, "What is 2+2?", temperature=0.2)
    assert server.requests == 1
    with response_cache(True):
        again = _ask(spec, "What is 2+2?", temperature=0.2)
        assert server.requests == 1  # no request: the same answer, its tokens, no cost
        assert again.text == first.text and again.usage == first.usage and again.cost == 0.0
        _ask(spec, "What is 2+2?", temperature=0.3)  # another setting
        _ask(spec, "What is 3+3?", temperature=0.2)  # another prompt
        _ask(_spec(server, extra="&top_p=0.9"), "What is 2+2?", temperature=0.2)
        tools = [
            {
                "type": "function",
                "function": {"name": "calc", "parameters": {"type": "object", "properties": {}}},
            }
        ]
        import asyncio

        asyncio.run(
            get_model(spec).generate(
                [{"role": "user", "content": "What is 2+2?"}], tools=tools, temperature=0.2
            )
        )
    assert server.requests == 5
    with response_cache(False):  # the cache off: the call goes out
        _ask(spec, "What is 2+2?", temperature=0.2)
    assert server.requests == 6


def test_repeated_samples_stay_independent_and_replay_in_order(server, cache_dir):
    spec = _spec(server)
    with response_cache(True):
        texts = [_ask(spec, "Pick a letter.").text for _ in range(3)]
        with cache_sample("screen", 7):
            other = _ask(spec, "Pick a letter.").text
    assert server.requests == 4 and len({*texts, other}) == 4
    with response_cache(True):  # a rerun: the same keys in the same order
        assert [_ask(spec, "Pick a letter.").text for _ in range(3)] == texts
        with cache_sample("screen", 7):
            assert _ask(spec, "Pick a letter.").text == other
    assert server.requests == 4


def test_errors_and_refusal_adapted_answers_are_not_stored(cache_dir):
    throttled = WireServer(SCRIPTS, retry_after="0")
    try:
        with response_cache(True), pytest.raises(Exception, match=r"RateLimit|429"):
            _ask(_spec(throttled, extra="&max_retries=1"), "What is 2+2?")
    finally:
        throttled.close()
    refusing = WireServer(SCRIPTS, refuse={"top_p": next(iter(_refusals()))})
    try:
        with response_cache(True):
            out = _ask(_spec(refusing), "What is 2+2?", top_p=0.5)
        assert out.text and refusing.rejected  # refused once, adapted, answered
    finally:
        refusing.close()
    assert _entries(cache_dir) == 0


def _refusals():
    return load_attr(Path(__file__).parent / "_wire.py", "REFUSALS")


def test_credentials_never_reach_the_file(server, cache_dir):
    spec = _spec(server)
    with response_cache(True):
        _ask(spec, f"My key is {SECRET}; what is 2+2?")
    raw = b"".join(p.read_bytes() for p in cache_dir.glob("responses.sqlite*"))
    with sqlite3.connect(cache_dir / "responses.sqlite") as conn:
        rows = conn.execute("SELECT key, provider, model, body FROM responses").fetchall()
    answers = b"".join(zlib.decompress(body) for *_, body in rows)  # the stored text itself
    assert len(rows) == 1 and b"what is 2+2?" in answers  # the echo is there...
    for text in (raw, answers, repr(rows).encode()):  # ...the key is not
        assert SECRET.encode() not in text and SECRET[8:30].encode() not in text


def test_the_file_is_bounded_least_recently_used_first(tmp_path):
    path = tmp_path / "responses.sqlite"
    import random

    def text(i: int) -> str:  # 1.5 kB that compress to about 1.1 kB
        return random.Random(i).randbytes(750).hex()

    with ResponseCache(path, max_bytes=40_000) as cache:
        for i in range(60):
            cache.put(f"k{i}", {"text": text(i)}, provider="p", model="m")
            if i == 2:
                assert cache.get("k0") is not None  # k0 used: k1 is older now
        stats = cache.stats()
        assert stats["bytes"] <= 40_000 and 0 < stats["entries"] < 60
        assert cache.get("k59") is not None and cache.get("k1") is None
    with ResponseCache(path) as cache:  # reopened: the same answers
        assert cache.get("k59") == {"text": text(59)}
        assert cache.prune(older_than=3600) == 0
        held = cache.stats()["entries"]
        assert cache.prune(older_than=0) == held > 0
    with ResponseCache(path) as cache:
        assert cache.stats()["entries"] == 0
        cache.put("k", {"text": "x"}, provider="p", model="m")
        assert cache.clear() == 1 and cache.get("k") is None


def test_agent_eval_twice_with_cache_sends_nothing_the_second_time(server, cache_dir, tmp_path):
    from _cli import run_main
    from scigate.store import Store

    bench = tmp_path / "bench.jsonl"
    rows = [
        {"question": "What is the molecular weight of CCO?", "tool_path": ["SMILESToWeight"],
         "Parameter": "CCO", "answer": "46.07", "level": 1},
        {"question": "What is the InChIKey of the molecule with SMILES CCO?",
         "tool_path": ["SMILESToInChI", "InChIToInChIKey"], "Parameter": "CCO",
         "answer": "LFQSCWFLJHTTHZ-UHFFFAOYSA-N", "level": 2},
    ]  # fmt: skip
    bench.write_text("".join(json.dumps(r) + "\n" for r in rows))
    spec = _spec(server, "policy")

    def evaluate(name: str, *extra: str) -> list[dict]:
        out = tmp_path / name
        args = ["agent", "eval", "--method", "react", "--bench", str(bench), "--model", spec]
        code, _, err = run_main(
            *args, "--runs", "2", "--out", str(out), "--db", str(tmp_path / f"{name}.db"), *extra
        )
        assert code == 0, err
        lines = (out / "rows.jsonl").read_text().splitlines()
        # what a cached call changes: no time, no money (the model is unpriced: the
        # paid calls' cost is unknown, the cached ones' 0)
        drop = {"wall_seconds", "latency", "model_free_seconds", "cost", "unpriced_calls"}
        return [{k: v for k, v in json.loads(x).items() if k not in drop} for x in lines]

    first = evaluate("first", "--cache")
    sent = server.requests
    assert sent >= 4  # two tasks, two runs, at least one call each
    second = evaluate("second", "--cache")
    assert server.requests == sent  # nothing sent the second time
    assert sorted(map(json.dumps, second)) == sorted(map(json.dumps, first))
    with Store(tmp_path / "first.db") as db:
        paid = db.query("SELECT input_tokens, output_tokens, cached FROM model_calls")
    with Store(tmp_path / "second.db") as db:
        replayed = db.query("SELECT input_tokens, output_tokens, cached, cost FROM model_calls")
    assert len(replayed) == len(paid) and {r["cached"] for r in paid} == {0}
    assert {(r["cached"], r["cost"]) for r in replayed} == {(1, 0.0)}
    tokens = sorted((r["input_tokens"], r["output_tokens"]) for r in paid)
    assert sorted((r["input_tokens"], r["output_tokens"]) for r in replayed) == tokens
    code, out, _ = run_main("runs", "cost", "--db", str(tmp_path / "second.db"), "--json")
    total = json.loads(out)["total"]  # the cost view sees the cached calls as such
    assert code == 0 and total["calls"] == total["cached_calls"] == len(replayed)
    assert total["cost"] == 0.0 and total["input_tokens"] == sum(t[0] for t in tokens)
    evaluate("third")  # without --cache (and no SCIGATE_CACHE): paid again
    assert server.requests == 2 * sent


def test_python_callables_are_never_cached(tmp_path, cache_dir):
    policy = tmp_path / "counting.py"
    policy.write_text(
        "CALLS = []\n\ndef model(messages, **settings):\n"
        "    CALLS.append(1)\n    return f'call {len(CALLS)}'\n"
    )
    spec = f"python/{policy}:model"
    with response_cache(True):
        assert _ask(spec, "Hi").text == "call 1"
        assert _ask(spec, "Hi").text == "call 2"  # local code: an edit must show at once
    assert not (cache_dir / "responses.sqlite").exists() or _entries(cache_dir) == 0


_GO = threading.Event()  # clear: the second task's second call waits (the run is killed there)


def _held_policy(messages, tools=None, **settings):
    """The scripted agent, except that the second task's call after a tool result waits
    for `_GO`: a run can be killed there, with that task's first answer cached."""
    if "of CCC?" in str(messages[-1:] + messages[:2]) and any(
        m.get("role") == "tool" for m in messages
    ):
        _GO.wait(120)
    return SCRIPTS["policy"](messages, tools=tools, **settings)


def test_a_killed_eval_resumed_with_cache_pays_only_for_calls_not_answered_before(
    cache_dir, tmp_path
):
    import os
    import signal
    import subprocess
    import sys

    from _cli import run_main
    from _wait import wait_until

    server = WireServer({"slow": _held_policy})
    _GO.set()
    try:
        bench = tmp_path / "bench.jsonl"
        rows = [
            {"question": f"What is the molecular weight of {s}?", "tool_path": ["SMILESToWeight"],
             "Parameter": s, "answer": "x", "level": 1}
            for s in ("CCO", "CCC", "CCCC", "CCCCC")
        ]  # fmt: skip
        bench.write_text("".join(json.dumps(r) + "\n" for r in rows))
        spec = _spec(server, "slow")
        args = ["agent", "eval", "--method", "react", "--bench", str(bench), "--model", spec]

        code, _, err = run_main(*args, "--out", str(tmp_path / "full"))  # no cache: the bill
        assert code == 0, err
        full = server.requests
        server.requests = 0

        out = tmp_path / "killed"
        _GO.clear()
        child = subprocess.Popen(
            [sys.executable, "-m", "scigate", *args, "--out", str(out), "--cache", "--json"],
            env={**os.environ},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            # killed inside the second task, after its first answer was cached
            per_task = full // 4
            wait_until(lambda: _entries(cache_dir) > per_task, timeout=120, interval=0.05)
            child.send_signal(signal.SIGKILL)
        finally:
            child.wait(60)
            _GO.set()
        done = (out / "rows.jsonl").read_text().count("\n")
        paid_before, kept = server.requests, _entries(cache_dir)
        assert 1 <= done < 4 and 0 < paid_before < full
        assert paid_before - kept in (0, 1)  # at most the call in flight at the kill is lost
        assert done == 1 and kept > per_task  # the task in flight had an answer cached

        code, _, err = run_main(*args, "--out", str(out), "--resume", "--cache")
        assert code == 0, err
        assert (out / "rows.jsonl").read_text().count("\n") == 4
        # every call answered before the kill (the in-flight task's included) came from
        # the cache: the resume paid for the rest of one run's calls and nothing more
        assert server.requests - paid_before == full - kept
    finally:
        server.close()
