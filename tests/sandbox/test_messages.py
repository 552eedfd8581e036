"""Messages that say what happened: an inode cap is named as one, not as bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from scigate.sandbox import _runner, _supervisor
from scigate.sandbox._capture import BoundedCapture
from scigate.sandbox._models import Limits


def test_too_many_entries_is_reported_as_an_entry_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(12):
        (tmp_path / f"f{i}").touch()
    monkeypatch.setattr(_supervisor, "MAX_ENTRIES", 10)
    used, too_many = _supervisor.workspace_usage(str(tmp_path), 1 << 30)
    assert too_many and used > 1 << 30
    assert _supervisor.workspace_usage(str(tmp_path / "f0"), 1 << 30) == (0, False)


def test_the_reason_names_the_inode_cap() -> None:
    raw = {"status": 0, "disk_limit": True, "entries_limit": True}
    out, err = BoundedCapture(100), BoundedCapture(100)
    result = _runner.build_result(["x"], raw, out, err, Limits(), 1.0, False, None)
    assert "100,000 files and directories" in result.reason
    assert "inode cap" in result.reason and "GiB" not in result.reason
    raw["entries_limit"] = False
    bytes_reason = _runner.build_result(["x"], raw, out, err, Limits(), 1.0, False, None).reason
    assert "1.0 GiB" in bytes_reason and "files and directories" not in bytes_reason
