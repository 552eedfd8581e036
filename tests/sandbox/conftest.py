import os
import time
import uuid
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


MARK = "SCIGATE_TEST_RUN"


def marked_pids(token: str) -> list[int]:
    """Host pids of live processes whose environment carries `MARK=token`.

    Under isolation a run's pids are those of its own PID namespace, so tests find the
    run's processes from the host by a marker passed with `env=` instead."""
    needle = f"{MARK}={token}".encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            environ = Path(f"/proc/{name}/environ").read_bytes()
            with open(f"/proc/{name}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in environ.split(b"\0") and state not in ("Z", "X"):
            found.append(int(name))
    return found


def wait_gone(token: str, seconds: float = 60.0) -> list[int]:
    """Wait until no process carries the marker; the pids still there after `seconds`
    (a deadline far beyond what the kill takes: it only decides when a failing test
    gives up)."""
    deadline = time.monotonic() + seconds
    while (left := marked_pids(token)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


@pytest.fixture
def backstops(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether the caller's backstop had to stop each run (cold or warm), in order: the
    flag `_runner.pump` returns, recorded instead of inferred from a run's duration."""
    from scigate.sandbox import _runner, _warm

    seen: list[bool] = []
    real = _runner.pump

    def pump(*args, **kwargs):
        out, err, backstop = real(*args, **kwargs)
        seen.append(backstop)
        return out, err, backstop

    monkeypatch.setattr(_runner, "pump", pump)
    monkeypatch.setattr(_warm, "pump", pump)
    return seen


@pytest.fixture
def mark() -> tuple[str, dict[str, str]]:
    """A fresh marker token and the `env=` that carries it into a run."""
    token = uuid.uuid4().hex
    return token, {MARK: token}
