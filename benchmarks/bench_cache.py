"""The response cache: what a lookup costs at scale, and what a cached call saves.

Run by hand:  .venv/bin/python benchmarks/bench_cache.py [--entries 1000000] [--calls 200]

1. Lookup: a cache file filled with `--entries` answers (2 kB of chat reply each, as a
   screen or agent turn returns), then `get` of random stored keys (hits) and of absent
   keys (misses), interleaved; reported as mean and p99 microseconds per lookup (goal:
   under 1 ms at 1M entries).
2. A model call, cached against uncached: `Model.generate` through the official openai SDK
   to a loopback OpenAI-compatible server answering after 50 ms, `--calls` distinct
   requests, then the same requests again with the cache on (all hits), the two passes
   interleaved in rounds; reported as seconds per call and the uncached/cached ratio. The
   naive baseline is the uncached call: what a rerun without the cache pays in time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from scigate.llm import ResponseCache, get_model, response_cache

REPLY = {"model": "m", "text": "The answer is 42. " * 110, "usage": {"input_tokens": 900}}


def fill(cache: ResponseCache, entries: int) -> list[str]:
    """`entries` answers under random keys, in transactions of 10,000."""
    keys = [f"{random.getrandbits(128):032x}" for _ in range(entries)]
    conn = cache._conn  # bulk load: one transaction per batch, as no caller would
    import zlib

    body = zlib.compress(json.dumps(REPLY).encode(), 6)
    now = time.time()
    for i in range(0, entries, 10_000):
        conn.execute("BEGIN")
        conn.executemany(
            "INSERT OR REPLACE INTO responses (key, provider, model, body, size, created_at,"
            " used_at) VALUES (?, 'openai', 'm', ?, ?, ?, ?)",
            [(k, body, len(body), now, now) for k in keys[i : i + 10_000]],
        )
        conn.execute("COMMIT")
    return keys


def lookups(cache: ResponseCache, keys: list[str], n: int) -> dict[str, float]:
    """Mean and p99 microseconds of `n` hits and `n` misses, interleaved."""
    hits, misses = [], []
    for _ in range(n):
        key = random.choice(keys)
        t = time.perf_counter()
        assert cache.get(key) is not None
        hits.append(time.perf_counter() - t)
        t = time.perf_counter()
        assert cache.get(f"{random.getrandbits(128):032x}") is None
        misses.append(time.perf_counter() - t)

    def us(xs: list[float]) -> tuple[float, float]:
        xs = sorted(xs)
        return statistics.fmean(xs) * 1e6, xs[int(0.99 * (len(xs) - 1))] * 1e6

    (hit_mean, hit_p99), (miss_mean, miss_p99) = us(hits), us(misses)
    return {
        "hit_us": hit_mean,
        "hit_p99_us": hit_p99,
        "miss_us": miss_mean,
        "miss_p99_us": miss_p99,
    }


class _Slow(BaseHTTPRequestHandler):
    def log_message(self, *args):  # quiet
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        time.sleep(0.05)
        payload = {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "42"},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 20, "completion_tokens": 1, "total_tokens": 21},
        }
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


async def _calls(spec: str, prompts: list[str]) -> float:
    model = get_model(spec)
    t = time.perf_counter()
    for p in prompts:
        await model.generate([{"role": "user", "content": p}])
    return (time.perf_counter() - t) / len(prompts)


def calls(n: int, rounds: int, directory: Path) -> dict[str, float]:
    """Seconds per uncached and per cached call, interleaved over `rounds`."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Slow)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    spec = f"openai-compatible/m?base_url=http://127.0.0.1:{server.server_address[1]}/v1"
    os.environ.setdefault("OPENAI_API_KEY", "not-needed")
    uncached, cached = [], []
    try:
        for r in range(rounds):
            prompts = [f"round {r} question {i}" for i in range(n)]
            with response_cache(False):
                uncached.append(asyncio.run(_calls(spec, prompts)))
            with response_cache(True, directory):  # fill...
                asyncio.run(_calls(spec, prompts))
            with response_cache(True, directory):  # ...and answer from it
                cached.append(asyncio.run(_calls(spec, prompts)))
    finally:
        server.shutdown()
    u, c = statistics.fmean(uncached), statistics.fmean(cached)
    return {"uncached_s": u, "cached_s": c, "ratio": u / c}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--lookups", type=int, default=20_000)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cache = ResponseCache(Path(tmp) / "lookups" / "responses.sqlite")
        t = time.perf_counter()
        keys = fill(cache, args.entries)
        print(f"filled {args.entries:,} answers in {time.perf_counter() - t:.1f} s")
        found = lookups(cache, keys, args.lookups)
        print(
            f"lookup at {args.entries:,} entries: hit {found['hit_us']:.0f} us "
            f"(p99 {found['hit_p99_us']:.0f}), miss {found['miss_us']:.0f} us "
            f"(p99 {found['miss_p99_us']:.0f})"
        )
        cache.close()
        per = calls(args.calls, args.rounds, Path(tmp) / "calls")
        print(
            f"model call against a 50 ms server: uncached {per['uncached_s'] * 1e3:.1f} ms, "
            f"cached {per['cached_s'] * 1e3:.2f} ms, ratio {per['ratio']:.0f}x"
        )


if __name__ == "__main__":
    main()
