"""The tool library's argument schemas and the search index's vectors are cached on disk,
keyed by the library's content: a second process builds no pydantic model and embeds
nothing, and a stale or corrupted cache file is rebuilt, never trusted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from scigate.tools import _diskcache, load_library
from scigate.tools._library import SCHEMA_CACHE
from scigate.tools._tool import _args_model_from, argument_schema

PROBE = """
import json, time
from scigate.tools import load_library, search_tools
from scigate.tools._embeddings import HashingEmbedder
from scigate.tools._retrieval import ToolIndex

embedded = []
original = HashingEmbedder.embed
HashingEmbedder.embed = lambda self, texts: embedded.append(len(texts)) or original(self, texts)
lib = load_library()
built = sum(t._model is not None for t in lib.values())
hits = [h.name for h in search_tools("get the SMILES for caffeine", k=3)]
weight = lib["SMILESToWeight"].call({"smiles": "CCO"}).value
print(json.dumps({"tools": len(lib), "built": built, "embedded": sum(embedded),
                  "hits": hits, "weight": weight}))
"""


def _probe(cache: Path) -> dict:
    env = {**os.environ, "SCIGATE_CACHE_DIR": str(cache)}
    p = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=300, env=env
    )
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_cached_schemas_are_the_schemas_the_models_give() -> None:
    for t in load_library().values():
        assert t.spec.parameters == argument_schema(_args_model_from(t.fn, t.name)), t.name


@pytest.mark.slow
def test_a_second_process_reads_the_cache_and_a_corrupted_one_is_rebuilt(tmp_path: Path) -> None:
    cold = _probe(tmp_path)
    assert cold["built"] == cold["tools"] and cold["embedded"] >= cold["tools"]
    assert (tmp_path / "library" / SCHEMA_CACHE).is_file()

    warm = _probe(tmp_path)
    assert warm["built"] == 0 and warm["embedded"] == 1  # only the query is embedded
    assert warm["hits"] == cold["hits"] and warm["hits"][0] == "NameToSMILES"
    assert warm["weight"] == cold["weight"] == pytest.approx(46.069, abs=1e-3)

    for f in (tmp_path / "library").iterdir():  # truncated / garbage files
        f.write_bytes(f.read_bytes()[:100] + b"\x00garbage")
    broken = _probe(tmp_path)
    assert broken["built"] == broken["tools"] and broken["hits"] == cold["hits"]
    assert broken["embedded"] >= broken["tools"]
    assert _probe(tmp_path)["built"] == 0  # rewritten whole


def test_a_stale_or_malformed_entry_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCIGATE_CACHE_DIR", str(tmp_path))
    _diskcache.write_json("x.json", "key-1", {"a": 1})
    assert _diskcache.read_json("x.json", "key-1") == {"a": 1}
    assert _diskcache.read_json("x.json", "key-2") is None
    (tmp_path / "library" / "x.json").write_text("[1, 2]")
    assert _diskcache.read_json("x.json", "key-1") is None

    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    _diskcache.write_array("v.npz", "k", data)
    assert np.array_equal(_diskcache.read_array("v.npz", "k", (2, 3)), data)
    assert _diskcache.read_array("v.npz", "k", (3, 2)) is None  # wrong shape
    assert _diskcache.read_array("v.npz", "other", (2, 3)) is None
    _diskcache.write_array("v.npz", "k", np.full((2, 3), np.nan, dtype=np.float32))
    assert _diskcache.read_array("v.npz", "k", (2, 3)) is None  # not finite


def test_the_key_follows_the_library_content(monkeypatch: pytest.MonkeyPatch) -> None:
    key = _diskcache.library_key()
    assert len(key) == 64
    _diskcache.library_key.cache_clear()
    import pydantic

    monkeypatch.setattr(pydantic, "VERSION", "0.0.0-other")
    try:
        assert _diskcache.library_key() != key
    finally:
        _diskcache.library_key.cache_clear()


def test_a_read_only_cache_dir_costs_only_the_rebuild(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    monkeypatch.setenv("SCIGATE_CACHE_DIR", str(blocked))
    _diskcache.write_json("x.json", "k", {"a": 1})  # no error
    assert _diskcache.read_json("x.json", "k") is None
    assert blocked.read_text() == "not a directory"
