"""Atom selections by SMARTS: the aromatic-aware pattern a question states, and the
Kekulé-style pattern (aliphatic symbols only) a realistic mistake writes instead."""

from __future__ import annotations

#: key -> (correct SMARTS, Kekulé-style SMARTS, words)
PATTERNS: dict[str, tuple[str, str, str]] = {
    "N": ("[#7]", "[N]", "every nitrogen atom, aromatic or not"),
    "O": ("[#8]", "[O]", "every oxygen atom, aromatic or not"),
    "NO": ("[#7,#8]", "[N,O]", "every nitrogen and oxygen atom, aromatic or not"),
    "ringC": ("[#6;R]", "[C;R]", "every ring carbon atom, aromatic or not"),
}
KEKULE_MISTAKE = (
    "SMARTS written from a Kekulé drawing (aliphatic symbols such as `N`, `O`, `C`), which "
    "does not match aromatic atoms"
)
