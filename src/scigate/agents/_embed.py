"""Text embeddings for experiences and skills.

Uses the tool library's embedder when it offers one (`scigate.tools.make_embedder`);
otherwise a deterministic hashed bag of words and character trigrams that needs no
download. Vectors are L2-normalised, so a dot product is the cosine similarity.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Sequence

import numpy as np

Embedder = Callable[[Sequence[str]], np.ndarray]

_WORD = re.compile(r"[a-z0-9]+")


def hashing_embedder(dim: int = 512) -> Embedder:
    """A hashed word + character-trigram embedder (no model, no download)."""

    def embed(texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), dim), dtype=np.float64)
        for row, text in enumerate(texts):
            words = _WORD.findall(text.lower())
            feats = [f"w:{w}" for w in words]
            for w in words:
                padded = f"#{w}#"
                feats += [f"c:{padded[i : i + 3]}" for i in range(len(padded) - 2)]
            for f in feats:
                h = zlib.crc32(f.encode())
                out[row, h % dim] += 1.0 if (h >> 31) & 1 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms

    return embed


def default_embedder() -> Embedder:
    """The library's builtin embedder when available, else the hashing embedder."""
    try:
        from scigate.tools import make_embedder  # type: ignore[attr-defined]
    except ImportError:
        return hashing_embedder()
    try:
        inner = make_embedder("builtin")
    except Exception:
        return hashing_embedder()

    def embed(texts: Sequence[str]) -> np.ndarray:
        fn = getattr(inner, "embed", inner)
        vecs = np.asarray(fn(list(texts)), dtype=np.float64)
        if vecs.ndim == 1:
            vecs = vecs[None, :]
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return vecs / norms

    return embed


def cosine(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """Cosine similarity of two vectors (0 when either is zero)."""
    va, vb = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    na, nb = np.linalg.norm(va), np.linalg.norm(vb)
    if na == 0 or nb == 0 or va.shape != vb.shape:
        return 0.0
    return float(va @ vb / (na * nb))
