"""The one home for atomic writes: whole or not at all, bad input as one line, no debris."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from scigate._atomic import atomic_path, atomic_writer, write_bytes_atomic, write_text_atomic
from scigate.errors import BadInput


def test_a_failure_mid_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    dest = tmp_path / "report.json"
    dest.write_text("old")
    with pytest.raises(RuntimeError), atomic_writer(dest) as fh:
        fh.write("half of the new")
        raise RuntimeError("killed mid-write")
    assert dest.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


def test_text_and_bytes_replace_the_file_whole(tmp_path: Path) -> None:
    dest = tmp_path / "sub" / "a.txt"
    write_text_atomic(dest, "µ-strain\n")
    assert dest.read_text(encoding="utf-8") == "µ-strain\n"
    write_bytes_atomic(dest, b"\x00\x01")
    assert dest.read_bytes() == b"\x00\x01"
    assert sorted(p.name for p in dest.parent.iterdir()) == ["a.txt"]


def test_a_library_writing_by_name_gets_a_temporary_path(tmp_path: Path) -> None:
    dest = tmp_path / "pool.parquet"
    with atomic_path(dest) as tmp:
        assert tmp.parent == tmp_path and tmp != dest
        tmp.write_bytes(b"PAR1")
        assert not dest.exists()
    assert dest.read_bytes() == b"PAR1"


def test_two_writers_of_one_destination_do_not_share_a_temporary(tmp_path: Path) -> None:
    dest = tmp_path / "x.txt"
    with atomic_writer(dest) as a, atomic_writer(dest) as b:
        assert a.name != b.name
        a.write("a")
        b.write("b")
    assert dest.read_text() in {"a", "b"}


def test_an_unwritable_destination_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="it is a directory"):
        write_text_atomic(tmp_path, "x")
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(BadInput, match=r"cannot write .*file/out\.txt"):
        write_text_atomic(blocker / "out.txt", "x")
    if os.geteuid() != 0:  # root writes through permissions
        ro = tmp_path / "ro"
        ro.mkdir(mode=0o500)
        with pytest.raises(BadInput):
            write_text_atomic(ro / "out.txt", "x")
