from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Never touch the real ~/.cache/scigate from tests."""
    monkeypatch.setenv("SCIGATE_CACHE_DIR", str(tmp_path_factory.mktemp("scigate-cache")))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return workspace
