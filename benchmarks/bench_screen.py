"""Screen calls per candidate: early stop (majority decided) against always three calls.

Uses the cue screens and a noisy python/ model over a fixed set of candidates with the
paper's option format; counts calls per candidate with and without early stopping, and
checks that the verdicts are identical. Run by hand: .venv/bin/python benchmarks/bench_screen.py
"""

from __future__ import annotations

import asyncio
import random
import tempfile
import textwrap
from pathlib import Path

from scigate.gate import Candidate, make_responder, run_screen


def candidates(n: int, seed: int = 1) -> list[Candidate]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        vals = sorted(round(rng.uniform(0.01, 2.0), 6) for _ in range(4))
        letters = ["A", "B", "C", "D"]
        rng.shuffle(letters)
        options = {letter: f"{v:.6f}" for letter, v in zip(letters, vals, strict=True)}
        answer = letters[rng.randrange(4)]
        out.append(
            Candidate(
                question=f"Compute quantity number {i} to six decimals.",
                options=options,
                answer=answer,
            )
        )
    return out


NOISY = textwrap.dedent("""
    import random, re
    def noisy(messages, tools=None, **settings):
        user = messages[-1]["content"]
        rng = random.Random(user)
        return "Answer: " + rng.choice("ABCD")
""")


async def calls_used(cands: list[Candidate], spec: str, early: bool) -> tuple[int, list[bool]]:
    responder = make_responder(spec)
    total, verdicts = 0, []
    for c in cands:
        r = await run_screen(c, responder, calls=3, seed=0, early_stop=early)
        total += len(r.calls)
        verdicts.append(r.solved)
    return total, verdicts


def main() -> None:
    cands = candidates(400)
    with tempfile.TemporaryDirectory() as tmp:
        model = Path(tmp) / "noisy.py"
        model.write_text(NOISY)
        specs = ["cue/middle", "cue/letter-C", "cue/closest-to-mean", f"python/{model}:noisy"]
        print(
            f"{'screen':28} {'calls/cand (early stop)':>24} {'calls/cand (always 3)':>22} {'ratio':>7}  same verdicts"
        )
        for spec in specs:
            early, v1 = asyncio.run(calls_used(cands, spec, True))
            full, v2 = asyncio.run(calls_used(cands, spec, False))
            name = spec if not spec.startswith("python/") else "python/noisy (random)"
            print(
                f"{name:28} {early / len(cands):24.2f} {full / len(cands):22.2f} {early / full:7.2f}  {v1 == v2}"
            )


if __name__ == "__main__":
    main()
