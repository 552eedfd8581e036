"""Host-side reads of sandbox-written files follow no link, open no FIFO, read no device
and cap their size (`scigate.sandbox._hostfs`), on the openat2 path and on the
component-by-component fallback."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest

from _bounded import bounded
from scigate.errors import BadInput
from scigate.sandbox import (
    UnsafeWorkspaceFile,
    copy_tree,
    entry_kind,
    open_dir,
    read_bytes,
    read_text,
    read_text_if_exists,
)
from scigate.sandbox import _hostfs as hostfs

SECRET = "HOST-SECRET"


@pytest.fixture(params=["openat2", "fallback"])
def resolver(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test runs once with openat2 and once with the O_NOFOLLOW walk."""
    if request.param == "openat2":
        if not hostfs.openat2_available():
            pytest.skip("this kernel has no openat2")
    else:
        monkeypatch.setattr(hostfs, "_openat2_state", False)

        def refuse(*args: object) -> int:
            raise AssertionError("openat2 used although it is switched off")

        monkeypatch.setattr(hostfs, "_openat2", refuse)
    return request.param


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "host-secret.txt"
    path.write_text(SECRET + "\n")
    return path


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    (workspace / "sub").mkdir(parents=True)
    (workspace / "answer.txt").write_text("B\n")
    (workspace / "sub" / "data.txt").write_text("inner\n")
    return workspace


def test_reads_regular_files(ws: Path, resolver: str) -> None:
    assert read_text(ws, "answer.txt", limit=10) == "B\n"
    assert read_bytes(ws, "sub/data.txt", limit=10) == b"inner\n"
    assert read_text_if_exists(ws, "nothing.txt", limit=10) is None
    assert read_text_if_exists(ws, "nothing/deeper.txt", limit=10) is None
    with pytest.raises(FileNotFoundError):
        read_text(ws, "nothing.txt", limit=10)
    fd = os.open(ws, os.O_RDONLY | os.O_DIRECTORY)
    try:
        assert read_text(fd, "sub/data.txt", limit=10) == "inner\n"
    finally:
        os.close(fd)


def test_symlink_to_a_host_file_is_refused(ws: Path, secret: Path, resolver: str) -> None:
    (ws / "answer.txt").unlink()
    (ws / "answer.txt").symlink_to(secret)
    with pytest.raises(UnsafeWorkspaceFile, match=re.escape("answer.txt is a symlink")) as info:
        read_text(ws, "answer.txt", limit=1000)
    assert info.value.problem == "symlink" and SECRET not in str(info.value)
    assert isinstance(info.value, BadInput)
    with pytest.raises(UnsafeWorkspaceFile, match="is a symlink"):
        read_text_if_exists(ws, "answer.txt", limit=1000)


def test_dangling_and_relative_symlinks_are_refused(ws: Path, resolver: str) -> None:
    (ws / "rel").symlink_to("answer.txt")  # stays inside: still not followed
    (ws / "dangling").symlink_to("/nonexistent/file")
    for name in ("rel", "dangling"):
        with pytest.raises(UnsafeWorkspaceFile, match=f"{name} is a symlink"):
            read_text_if_exists(ws, name, limit=1000)


def test_symlinked_intermediate_directory_is_refused(ws: Path, secret: Path, resolver: str) -> None:
    (ws / "up").symlink_to(secret.parent)
    with pytest.raises(UnsafeWorkspaceFile, match=re.escape("up/host-secret.txt: up is a symlink")):
        read_text(ws, f"up/{secret.name}", limit=1000)
    (ws / "sub" / "deep").symlink_to(secret.parent)
    with pytest.raises(UnsafeWorkspaceFile, match="sub/deep is a symlink"):
        read_text(ws, f"sub/deep/{secret.name}", limit=1000)
    with pytest.raises(UnsafeWorkspaceFile, match="up is a symlink"):
        open_dir(ws, "up")


def test_fifo_is_refused_without_blocking(ws: Path, resolver: str) -> None:
    os.mkfifo(ws / "answer.fifo")
    with pytest.raises(
        UnsafeWorkspaceFile, match=re.escape("answer.fifo is a FIFO, not a regular file")
    ):
        bounded(lambda: read_text(ws, "answer.fifo", limit=1000))


def test_device_is_refused(ws: Path, resolver: str) -> None:
    (ws / "zero").symlink_to("/dev/zero")
    with pytest.raises(UnsafeWorkspaceFile, match="zero is a symlink"):
        bounded(lambda: read_bytes(ws, "zero", limit=1000))
    try:
        os.mknod(ws / "null", stat.S_IFCHR | 0o600, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("cannot make a device node here")
    with pytest.raises(UnsafeWorkspaceFile, match="null is a character device") as info:
        bounded(lambda: read_bytes(ws, "null", limit=1000))
    assert info.value.problem == "device"


def test_socket_and_directory_are_refused(ws: Path, resolver: str) -> None:
    import socket

    path = ws / "sock"
    s = socket.socket(socket.AF_UNIX)
    try:
        s.bind(str(path))
        with pytest.raises(UnsafeWorkspaceFile, match="sock is a socket"):
            read_bytes(ws, "sock", limit=10)
    finally:
        s.close()
    with pytest.raises(UnsafeWorkspaceFile, match="sub is a directory, not a regular file"):
        read_bytes(ws, "sub", limit=10)


def test_oversized_file_is_refused(ws: Path, resolver: str) -> None:
    (ws / "big.md").write_bytes(b"x" * (1 << 20))
    with pytest.raises(
        UnsafeWorkspaceFile, match=re.escape("big.md is 1048576 bytes; the limit is 65536")
    ):
        read_bytes(ws, "big.md", limit=65536, what="candidate file")
    assert len(read_bytes(ws, "big.md", limit=1 << 20)) == 1 << 20


def test_a_file_that_grows_while_read_is_caught(
    ws: Path, resolver: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fstat said small, the read finds more: at most limit + 1 bytes are read."""
    (ws / "grow.txt").write_bytes(b"y" * 100)
    real_fstat = os.fstat

    def small_fstat(fd: int) -> os.stat_result:
        st = real_fstat(fd)
        if stat.S_ISREG(st.st_mode) and st.st_size == 100:
            return os.stat_result((st.st_mode, *tuple(st)[1:6], 10, *tuple(st)[7:]))
        return st

    monkeypatch.setattr(hostfs.os, "fstat", small_fstat)
    with pytest.raises(UnsafeWorkspaceFile, match="grew past the limit of 50 bytes"):
        read_bytes(ws, "grow.txt", limit=50)


def test_names_outside_the_directory_are_refused(ws: Path, secret: Path, resolver: str) -> None:
    for name in (f"../{secret.name}", str(secret), "sub/../../x"):
        with pytest.raises(UnsafeWorkspaceFile, match="not a path inside"):
            read_text(ws, name, limit=1000)


def test_entry_kind_does_not_follow(ws: Path, secret: Path, resolver: str) -> None:
    (ws / "link").symlink_to(secret)
    os.mkfifo(ws / "fifo")
    assert entry_kind(ws, "answer.txt") == "file"
    assert entry_kind(ws, "sub") == "directory"
    assert entry_kind(ws, "link") == "symlink"
    assert entry_kind(ws, "fifo") == "fifo"
    assert entry_kind(ws, "missing") is None
    (ws / "dlink").symlink_to(ws / "sub")
    with pytest.raises(UnsafeWorkspaceFile, match="dlink is a symlink"):
        entry_kind(ws, "dlink/data.txt")


def test_undecodable_text(ws: Path, resolver: str) -> None:
    (ws / "bin.txt").write_bytes(b"ok\xff\xfe")
    with pytest.raises(UnsafeWorkspaceFile, match="not UTF-8"):
        read_text(ws, "bin.txt", limit=100)
    assert read_text(ws, "bin.txt", limit=100, errors="replace").startswith("ok")


def test_both_resolvers_are_exercised(resolver: str, ws: Path, monkeypatch) -> None:
    """The fallback really walks with O_NOFOLLOW opens; openat2 really calls openat2."""
    calls: list[str] = []
    if resolver == "openat2":
        real = hostfs._openat2

        def spy(dir_fd: int, name: str, flags: int) -> int:
            calls.append(name)
            return real(dir_fd, name, flags)

        monkeypatch.setattr(hostfs, "_openat2", spy)
        assert read_text(ws, "sub/data.txt", limit=10) == "inner\n"
        assert calls == ["sub/data.txt"]
    else:
        real_open = os.open

        def spy_open(path, flags, *args, **kwargs):  # type: ignore[no-untyped-def]
            if kwargs.get("dir_fd") is not None:
                calls.append(path)
                assert flags & os.O_NOFOLLOW
            return real_open(path, flags, *args, **kwargs)

        monkeypatch.setattr(hostfs.os, "open", spy_open)
        assert read_text(ws, "sub/data.txt", limit=10) == "inner\n"
        assert calls == ["sub", "data.txt"]


# --- copy_tree


def test_copy_tree_copies_files_and_directories(ws: Path, tmp_path: Path, resolver: str) -> None:
    (ws / "run.sh").write_text("#!/bin/sh\n")
    (ws / "run.sh").chmod(0o755)
    (ws / "notes.txt").write_text("private\n")
    dest = tmp_path / "out"
    stats = copy_tree(ws, dest, exclude=("notes*",))
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*")) == [
        "answer.txt",
        "run.sh",
        "sub",
        "sub/data.txt",
    ]
    assert (dest / "sub" / "data.txt").read_text() == "inner\n"
    assert os.stat(dest / "run.sh").st_mode & 0o777 == 0o755
    assert stats.files == 3 and stats.directories == 1 and stats.skipped == []


@pytest.mark.parametrize("where", ["top", "nested"])
def test_copy_tree_refuses_links_and_special_files(
    ws: Path, tmp_path: Path, secret: Path, resolver: str, where: str
) -> None:
    base = ws if where == "top" else ws / "sub"
    (base / "mesh.xdmf").symlink_to(secret)
    with pytest.raises(UnsafeWorkspaceFile, match=re.escape("mesh.xdmf is a symlink")):
        copy_tree(ws, tmp_path / "out1", what="candidate file")
    (base / "mesh.xdmf").unlink()
    (base / "hostdir").symlink_to(secret.parent)
    with pytest.raises(UnsafeWorkspaceFile, match="hostdir is a symlink"):
        copy_tree(ws, tmp_path / "out2")
    (base / "hostdir").unlink()
    os.mkfifo(base / "pipe")
    with pytest.raises(UnsafeWorkspaceFile, match="pipe is a FIFO"):
        bounded(lambda: copy_tree(ws, tmp_path / "out3"))
    for out in ("out1", "out2", "out3"):
        assert not any(SECRET in p.read_text() for p in (tmp_path / out).rglob("*") if p.is_file())


def test_copy_tree_can_skip_special_files(ws: Path, tmp_path: Path, secret: Path) -> None:
    (ws / "link").symlink_to(secret)
    os.mkfifo(ws / "sub" / "pipe")
    stats = bounded(lambda: copy_tree(ws, tmp_path / "out", specials="skip"))
    assert sorted(stats.skipped) == ["link", "sub/pipe"]  # type: ignore[union-attr]
    assert not (tmp_path / "out" / "link").exists()
    assert not (tmp_path / "out" / "link").is_symlink()


def test_copy_tree_source_directory_itself_is_not_followed(
    tmp_path: Path, ws: Path, resolver: str
) -> None:
    (ws / "candidate").symlink_to(tmp_path)
    with pytest.raises(UnsafeWorkspaceFile, match="candidate is a symlink"):
        copy_tree(ws, tmp_path / "out", name="candidate")


def test_copy_tree_caps(ws: Path, tmp_path: Path, resolver: str) -> None:
    (ws / "big.bin").write_bytes(b"z" * 5000)
    with pytest.raises(
        UnsafeWorkspaceFile, match=re.escape("big.bin is 5000 bytes; the limit is 4096")
    ):
        copy_tree(ws, tmp_path / "a", file_limit=4096)
    with pytest.raises(UnsafeWorkspaceFile, match="more than 5000 bytes in total"):
        copy_tree(ws, tmp_path / "b", total_limit=5000)
    for i in range(20):
        (ws / f"f{i:02d}").write_text("x")
    with pytest.raises(UnsafeWorkspaceFile, match="more than 10 entries"):
        copy_tree(ws, tmp_path / "c", max_entries=10)
    deep = ws
    for _ in range(5):
        deep = deep / "d"
        deep.mkdir()
    with pytest.raises(UnsafeWorkspaceFile, match="nested more than 3 directories"):
        copy_tree(ws, tmp_path / "d", max_depth=3)


def test_copy_tree_does_not_write_through_a_link_in_dest(
    ws: Path, tmp_path: Path, secret: Path
) -> None:
    dest = tmp_path / "out"
    dest.mkdir()
    (dest / "answer.txt").symlink_to(secret)
    with pytest.raises(FileExistsError):
        copy_tree(ws, dest)
    assert secret.read_text() == SECRET + "\n"
