"""Text embeddings for tool retrieval, behind one protocol: `Embedder.embed(texts)`.

Three embedders:

- `HashingEmbedder` (spec ``hashing``, alias ``builtin``): no download, deterministic. Words, word bigrams
  and character 3-5-grams are hashed into a fixed number of signed buckets with
  sublinear term frequency, then the vector is L2-normalised.
- `OpenAICompatibleEmbedder` (``openai-compatible/MODEL?base_url=URL&api_key_env=VAR``
  or ``openai/MODEL``): any OpenAI-compatible ``/embeddings`` endpoint through the openai SDK.
- `SentenceTransformerEmbedder` (``sentence-transformers/PATH``): a local
  sentence-transformers model, imported only when asked for.

The model-backed embedders are wrapped in `CachedEmbedder`, which keeps one ``.npy`` per
text under ``~/.cache/scigate/embeddings/<embedder-id>/<sha256-of-text>.npy``.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import os
import re
import zlib
from pathlib import Path
from typing import Any, Protocol, runtime_checkable
from urllib.parse import parse_qs

import numpy as np

from scigate._atomic import atomic_writer
from scigate._cachedir import user_cache_dir
from scigate.errors import BadInput


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into L2-normalised row vectors."""

    id: str

    def embed(self, texts: list[str]) -> np.ndarray:
        """One row per text, shape (len(texts), dim), float32."""
        ...


def _normalise_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (matrix / norms).astype(np.float32)


_WORD = re.compile(r"[a-z0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
# mixed-case names that CamelCase splitting must keep whole
_PROTECTED = re.compile(
    r"(InChIKey|InChI|SMILES|SELFIES|SMARTS|PubChem|ChEMBL|UniProt|DNA|RNA|PDB|CIF|MolFile|pKa|LogP)"
)
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "the",
        "this",
        "to",
        "with",
        "given",
        "using",
        "based",
        "their",
        "which",
    ]
)


def words(text: str, keep: frozenset[str] = frozenset()) -> list[str]:
    """Lower-case word tokens; CamelCase and digits split, stop words (except `keep`) dropped."""
    parts: list[str] = []
    for raw in re.split(r"[^A-Za-z0-9]+", text):
        if not raw:
            continue
        pieces = [
            piece
            for chunk in _PROTECTED.split(raw)
            if chunk
            for piece in ([chunk] if _PROTECTED.fullmatch(chunk) else _CAMEL.findall(chunk))
        ]
        parts.append(raw.lower())
        if len(pieces) > 1:
            parts.extend(p.lower() for p in pieces)
    return [p for p in parts if p not in _STOPWORDS or p in keep]


_DIRECTION = frozenset({"to", "from", "into"})


class HashingEmbedder:
    """Deterministic hashed word / bigram / character n-gram vectors (no download)."""

    def __init__(self, dim: int = 2048, ngram: tuple[int, int] = (3, 5)):
        self.dim = dim
        self.ngram = ngram
        self.id = f"builtin-hash-v1-{dim}-{ngram[0]}{ngram[1]}"

    def _features(self, text: str) -> dict[str, float]:
        toks = words(text)
        feats: dict[str, float] = {}
        for tok in toks:
            feats["w:" + tok] = feats.get("w:" + tok, 0.0) + 1.0
            padded = f"<{tok}>"
            lo, hi = self.ngram
            for n in range(lo, hi + 1):
                for i in range(len(padded) - n + 1):
                    key = "c:" + padded[i : i + n]
                    feats[key] = feats.get(key, 0.0) + 0.35
        # bigrams keep direction words, so "SMILES to InChI" differs from "InChI to SMILES"
        ordered = words(text, keep=_DIRECTION)
        for a, b in itertools.pairwise(ordered):
            key = f"b:{a} {b}"
            feats[key] = feats.get(key, 0.0) + 0.7
        return feats

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embed each text independently (no fitted statistics)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for key, tf in self._features(text).items():
                h = zlib.crc32(key.encode())
                sign = 1.0 if (h >> 31) & 1 else -1.0
                out[row, h % self.dim] += sign * (1.0 + math.log(tf)) if tf >= 1 else sign * tf
        return _normalise_rows(out)


class OpenAICompatibleEmbedder:
    """Embeddings from an OpenAI-compatible endpoint (openai SDK)."""

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        batch_size: int = 128,
        http_client: Any = None,
    ):
        from openai import OpenAI

        self.model = model
        self.batch_size = batch_size
        key = api_key or os.environ.get("OPENAI_API_KEY") or "not-needed"
        self._client = OpenAI(base_url=base_url, api_key=key, http_client=http_client)
        where = base_url or "api.openai.com"
        self.id = "openai-" + _slug(f"{where}-{model}")

    def embed(self, texts: list[str]) -> np.ndarray:
        """Call the endpoint in batches; rows follow the response's `index` fields."""
        rows: list[np.ndarray] = []
        for start in range(0, len(texts), self.batch_size):
            batch = texts[start : start + self.batch_size]
            response = self._client.embeddings.create(model=self.model, input=batch)
            ordered = sorted(response.data, key=lambda d: d.index)
            rows.extend(np.asarray(d.embedding, dtype=np.float32) for d in ordered)
        if not rows:
            return np.zeros((0, 1), dtype=np.float32)
        return _normalise_rows(np.vstack(rows))


class SentenceTransformerEmbedder:
    """A local sentence-transformers model (the package is imported only here)."""

    def __init__(self, path: str):
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise BadInput(
                "sentence-transformers is not installed; install it with "
                "pip install 'scigate[embeddings]', or use the builtin embedder"
            ) from None
        self._model = SentenceTransformer(path)
        self.id = "st-" + _slug(path)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Encode with the model, normalised."""
        vectors = self._model.encode(texts, normalize_embeddings=True)
        return _normalise_rows(np.asarray(vectors, dtype=np.float32))


def _slug(text: str) -> str:
    clean = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")[:80]
    return f"{clean}-{hashlib.sha256(text.encode()).hexdigest()[:8]}"


def default_cache_dir() -> Path:
    """scigate's user cache directory (`scigate._cachedir.user_cache_dir`)."""
    return user_cache_dir()


class CachedEmbedder:
    """Disk cache in front of an embedder: one .npy file per (embedder, text)."""

    def __init__(self, inner: Embedder, cache_dir: str | Path | None = None):
        self.inner = inner
        self.id = inner.id
        root = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        self.directory = root / "embeddings" / inner.id
        self.hits = 0
        self.misses = 0

    def _path(self, text: str) -> Path:
        return self.directory / f"{hashlib.sha256(text.encode()).hexdigest()}.npy"

    def embed(self, texts: list[str]) -> np.ndarray:
        """Cached rows are read from disk; the rest are embedded in one call and stored."""
        rows: list[np.ndarray | None] = []
        missing: list[int] = []
        for i, text in enumerate(texts):
            path = self._path(text)
            try:
                rows.append(np.load(path))
                self.hits += 1
            except (OSError, ValueError):
                rows.append(None)
                missing.append(i)
        if missing:
            self.misses += len(missing)
            fresh = self.inner.embed([texts[i] for i in missing])
            self.directory.mkdir(parents=True, exist_ok=True)
            for i, vector in zip(missing, fresh, strict=True):
                rows[i] = vector
                with atomic_writer(self._path(texts[i]), "wb") as fh:
                    np.save(fh, vector)
        if not rows:
            return np.zeros((0, 1), dtype=np.float32)
        return np.vstack([r for r in rows if r is not None]).astype(np.float32)


def make_embedder(spec: str | None = None, cache_dir: str | Path | None = None) -> Embedder:
    """An embedder from a spec: None/'hashing' (alias 'builtin'), 'openai-compatible/MODEL?base_url=...&api_key_env=VAR',
    'openai/MODEL', or 'sentence-transformers/PATH'."""
    if spec is None or spec.strip() in ("", "builtin", "hashing"):
        return HashingEmbedder()
    kind, _, rest = spec.strip().partition("/")
    if kind in ("openai", "openai-compatible"):
        model, _, query = rest.partition("?")
        if not model:
            raise BadInput(
                f"embedder spec {spec!r} names no model (e.g. openai/text-embedding-3-small)"
            )
        params = {k: v[-1] for k, v in parse_qs(query).items()}
        unknown = set(params) - {"base_url", "api_key_env"}
        if unknown:
            raise BadInput(
                f"embedder spec {spec!r}: unknown option(s) {', '.join(sorted(unknown))}"
            )
        base_url = params.get("base_url")
        if kind == "openai-compatible" and not base_url:
            base_url = os.environ.get("OPENAI_BASE_URL")
            if not base_url:
                raise BadInput(f"embedder spec {spec!r} needs ?base_url=URL (or $OPENAI_BASE_URL)")
        key_env = params.get("api_key_env") or ("OPENAI_API_KEY" if kind == "openai" else None)
        api_key = os.environ.get(key_env) if key_env else None
        if key_env and not api_key:
            raise BadInput(f"{key_env} is not set: export it to use the embedder {spec!r}")
        return CachedEmbedder(
            OpenAICompatibleEmbedder(model, base_url=base_url, api_key=api_key), cache_dir
        )
    if kind == "sentence-transformers":
        if not rest:
            raise BadInput(f"embedder spec {spec!r} names no model path")
        return CachedEmbedder(SentenceTransformerEmbedder(rest), cache_dir)
    raise BadInput(
        f"unknown embedder spec {spec!r}; use hashing, openai/MODEL, "
        "openai-compatible/MODEL?base_url=URL or sentence-transformers/PATH"
    )
