"""Deterministic value-rank and letter schedule for template candidates.

Within every aligned block of four indices each value rank (1 = smallest of the four
numeric options, 4 = largest) and each displayed letter occurs exactly once, so any run
of 4k indices starting at a multiple of four is exactly balanced. Across four
consecutive blocks the (rank, letter) pairs form a pair of orthogonal Latin squares
over GF(4), so every rank meets every letter, and with four families (family = index
mod 4) every family meets every rank and every letter. The seed permutes the rank and
letter labels without breaking the balance.
"""

from __future__ import annotations

import random

LETTERS = "ABCD"
_GF4_TIMES_ALPHA = (0, 2, 3, 1)  # multiplication by the generator alpha in GF(4)


def schedule(seed: int, index: int) -> tuple[int, str]:
    """The (value rank 1..4, correct letter) scheduled for candidate ``index`` of run ``seed``."""
    if index < 0:
        raise ValueError("index must be non-negative")
    block, position = divmod(index, 4)
    g = block % 4
    rng = random.Random(f"scigate-schedule:{seed}")
    rank_labels = rng.sample(range(4), 4)
    letter_labels = rng.sample(range(4), 4)
    rank = rank_labels[position ^ g] + 1
    letter = LETTERS[letter_labels[position ^ _GF4_TIMES_ALPHA[g]]]
    return rank, letter
