"""Unit tests of the sandbox's pure parts: env scrubbing, output capture, reasons."""

from __future__ import annotations

import signal

from scigate.sandbox import Limits, SandboxResult, scrub_env
from scigate.sandbox._capture import BoundedCapture
from scigate.sandbox._explain import cpu_exceeded, maybe_memory, memory_exceeded, reason


def test_scrub_env_removes_credentials_and_keeps_the_rest() -> None:
    secrets = {
        "OPENAI_API_KEY": "sk",
        "ANTHROPIC_API_KEY": "sk",
        "HF_TOKEN": "hf",
        "GITHUB_TOKEN": "gh",
        "MY_SECRET_THING": "s",
        "client_secret": "s",
        "PGPASSWORD": "p",
        "AWS_ACCESS_KEY_ID": "a",
        "AWS_PROFILE": "dev",
        "AZURE_CLIENT_ID": "z",
        "GOOGLE_APPLICATION_CREDENTIALS": "/c.json",
        "SSH_AUTH_SOCK": "/tmp/agent",
        "SCIGATE_API_KEY": "k",
        "HTTPS_PROXY": "http://bob:pw@proxy:3128",
        "STRIPE_KEY": "k",
    }
    keep = {
        "PATH": "/usr/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TOKENIZERS_PARALLELISM": "false",
        "SSL_CERT_FILE": "/etc/ssl/cert.pem",
        "OMP_NUM_THREADS": "1",
        "LD_LIBRARY_PATH": "/opt/lib",
        "HTTPS_PROXY_PLAIN": "http://proxy:3128",
        "KEYBOARD_LAYOUT": "us",
        "PWD": "/work",
    }
    assert scrub_env({**secrets, **keep}) == keep


def test_bounded_capture_small_output_kept_whole() -> None:
    cap = BoundedCapture(100)
    for chunk in (b"hello ", b"world"):
        cap.feed(chunk)
    assert not cap.truncated and cap.text() == "hello world"


def test_bounded_capture_keeps_head_and_tail_and_bounded_memory() -> None:
    cap = BoundedCapture(1000)
    cap.feed(b"H" * 10)
    for _ in range(1000):
        cap.feed(b"." * 997)
        assert len(cap.head) + len(cap.tail) <= 1000 + 2 * 250
    cap.feed(b"TAIL")
    text = cap.text()
    assert cap.truncated and text.startswith("H" * 10) and text.endswith("TAIL")
    kept = len(text.encode()) - len(text.split("\n")[1]) - 2
    assert kept == 1000
    assert f"{cap.total - 1000} bytes of output left out" in text


def test_bounded_capture_exactly_at_cap() -> None:
    cap = BoundedCapture(8)
    cap.feed(b"12345678")
    assert not cap.truncated and cap.text() == "12345678"
    cap.feed(b"9")
    text = cap.text()
    assert cap.truncated and text.startswith("123456\n") and text.endswith("\n89")
    assert "1 byte of output left out" in text


def _reason(**overrides: object) -> str:
    base: dict = dict(
        spawn_error=None,
        cancelled=False,
        timed_out=False,
        wall_seconds=300.0,
        killed=0,
        proc_limit=False,
        max_processes=256,
        memory_hit=False,
        memory_limit=2 << 30,
        cpu_hit=False,
        cpu_limit=None,
        exit_code=0,
        sig=None,
        stderr_tail="",
    )
    return reason(**{**base, **overrides})


def test_reasons_in_plain_words() -> None:
    assert _reason() == "finished (exit code 0)"
    assert _reason(timed_out=True, killed=3) == "timed out after 300 s; killed 3 processes"
    assert _reason(timed_out=True, killed=1) == "timed out after 300 s; killed 1 process"
    assert _reason(memory_hit=True, exit_code=1) == "ran out of memory (limit 2.0 GiB)"
    assert _reason(exit_code=None, sig=11) == "killed by signal SIGSEGV"
    assert _reason(exit_code=1, stderr_tail="E: x") == "crashed with exit code 1: E: x"
    assert _reason(proc_limit=True, killed=300).startswith("exceeded the limit of 256 processes")
    assert _reason(cpu_hit=True, cpu_limit=5.0) == "exceeded the CPU time limit (5 s)"
    assert _reason(spawn_error="no such file").startswith("could not start the command")
    lost = "warm server 7: the server exited (signal 9)"
    assert _reason(lost=lost, exit_code=None) == f"the sandbox lost the run: {lost}"
    assert _reason(lost=lost, timed_out=True).startswith("timed out after 300 s")


def test_memory_detection() -> None:
    limit = 1 << 30
    assert memory_exceeded(ok=False, limit=limit, stderr="MemoryError", sig=None, peak=1)
    assert memory_exceeded(ok=False, limit=limit, stderr="terminate: std::bad_alloc", sig=6, peak=1)
    assert memory_exceeded(ok=False, limit=limit, stderr="", sig=9, peak=limit)
    assert not memory_exceeded(ok=False, limit=limit, stderr="", sig=9, peak=limit // 4)
    assert not memory_exceeded(ok=True, limit=limit, stderr="MemoryError", sig=None, peak=1)
    assert not memory_exceeded(ok=False, limit=None, stderr="MemoryError", sig=None, peak=1)
    assert cpu_exceeded(sig=signal.SIGXCPU, limit=2.0, cpu_seconds=2.0)
    assert not cpu_exceeded(sig=signal.SIGKILL, limit=2.0, cpu_seconds=0.1)
    assert not cpu_exceeded(sig=signal.SIGXCPU, limit=None, cpu_seconds=9.0)


def test_result_helpers_and_limit_defaults() -> None:
    limits = Limits()
    assert limits.wall_seconds == 300 and limits.memory_bytes == 8 << 30
    assert limits.max_processes == 256 and limits.output_bytes == 1 << 20
    assert limits.network is False and limits.cpu_seconds is None
    result = SandboxResult(
        command=["x"],
        exit_code=0,
        stdout="",
        stderr="a\n\nb\nc\n",
        stdout_truncated=False,
        stderr_truncated=False,
        timed_out=False,
        signal=None,
        seconds=0.1,
        peak_memory_bytes=None,
        memory_exceeded=False,
        network_isolated=False,
        reason="finished (exit code 0)",
    )
    assert result.ok and result.stderr_tail(2) == "b\nc"
    assert not result.model_copy(update={"timed_out": True}).ok


def test_segfault_near_memory_limit_is_flagged_as_possible() -> None:
    limit = 512 << 20
    petsc = "[0]PETSC ERROR: Caught signal number 11 SEGV: Segmentation Violation"
    assert maybe_memory(ok=False, limit=limit, stderr=petsc, sig=None, peak=90 << 20)
    assert maybe_memory(ok=False, limit=limit, stderr="", sig=11, peak=90 << 20)
    assert not maybe_memory(ok=False, limit=8 << 30, stderr=petsc, sig=None, peak=90 << 20)
    assert not maybe_memory(ok=False, limit=limit, stderr="ValueError", sig=None, peak=90 << 20)
    text = _reason(exit_code=15, memory_limit=limit, memory_suspect=True, stderr_tail="x")
    assert text == (
        "crashed with exit code 15 (possibly out of memory: a segmentation fault near the "
        "512 MiB limit): x"
    )
