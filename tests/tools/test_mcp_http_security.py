"""The MCP HTTP server holds against a web page and a greedy client (issue 19, item 8).

Against the real CLI (`scigate tools serve-mcp --transport http`) on 127.0.0.1: a foreign
Host (DNS rebinding) gets 421 and a foreign Origin 403 before any MCP processing, a
missing or wrong bearer token 401; loopback and allowed names pass, and the `mcp` SDK's
own streamable HTTP client works with the token. SIGTERM ends the server within about a
second while a heavy and a light call are running. In process: the concurrency bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from scigate.tools import tool

SCIGATE = str(Path(__file__).resolve().parents[2] / ".venv" / "bin" / "scigate")
TOKEN = "test-token-3f9a1c"
ALLOWED_HOST = "tools.example.test"
ALLOWED_ORIGIN = "https://app.example.test"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "scigate-test", "version": "1"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}
STARTUP = 60.0  # seconds the CLI may take to load the library on a loaded machine


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _clean_env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k.lower() not in {"http_proxy", "https_proxy", "all_proxy", "no_proxy"}
        and k != "SCIGATE_MCP_TOKEN"
    }
    env.update(extra)
    return env


def _start(args: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    port = _free_port()
    proc = subprocess.Popen(
        [SCIGATE, "tools", "serve-mcp", "--transport", "http", "--port", str(port), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    deadline = time.monotonic() + STARTUP
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"the MCP server exited with {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc, port
        time.sleep(0.1)
    proc.kill()
    raise AssertionError("the MCP HTTP server did not start")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture(scope="module")
def server() -> Iterator[int]:
    """The real CLI over HTTP with a token, one allowed host and one allowed origin."""
    proc, port = _start(
        ["--allow-host", ALLOWED_HOST, "--allow-origin", ALLOWED_ORIGIN, "--domain", "general"],
        _clean_env(SCIGATE_MCP_TOKEN=TOKEN),
    )
    try:
        yield port
    finally:
        _stop(proc)


def _post(port: int, headers: dict[str, str]) -> httpx.Response:
    return httpx.post(
        f"http://127.0.0.1:{port}/mcp",
        json=INITIALIZE,
        headers={**MCP_HEADERS, **headers},
        timeout=10,
        trust_env=False,
    )


def _auth(token: str = TOKEN) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# ---------------------------------------------------------------- Host and Origin


@pytest.mark.parametrize(
    "host",
    [
        "evil.example:{port}",
        "evil.example",
        "localhost.evil.example:{port}",
        "127.0.0.1.nip.io:{port}",
        "127.0.0.1:{port}.evil.example",
    ],
)
def test_a_foreign_host_is_refused_before_anything_else(server: int, host: str) -> None:
    """DNS rebinding: a page's own name resolving to 127.0.0.1 must not reach MCP."""
    response = _post(server, {"Host": host.format(port=server), **_auth()})
    assert response.status_code == 421
    assert "mcp-session-id" not in response.headers
    # refused before the token is even looked at
    assert _post(server, {"Host": host.format(port=server)}).status_code == 421


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1:{port}",
        "localhost:{port}",
        "[::1]:{port}",
        "localhost",
        f"{ALLOWED_HOST}:{{port}}",
    ],
)
def test_loopback_and_allowed_hosts_are_served(server: int, host: str) -> None:
    response = _post(server, {"Host": host.format(port=server), **_auth()})
    assert response.status_code == 200, response.text
    assert "mcp-session-id" in response.headers


@pytest.mark.parametrize("origin", ["http://evil.example", "http://evil.example:{port}", "null"])
def test_a_foreign_origin_is_refused(server: int, origin: str) -> None:
    response = _post(server, {"Origin": origin.format(port=server), **_auth()})
    assert response.status_code == 403
    assert "mcp-session-id" not in response.headers


@pytest.mark.parametrize(
    "origin", ["http://localhost:5173", "http://127.0.0.1:{port}", "http://[::1]", ALLOWED_ORIGIN]
)
def test_loopback_and_allowed_origins_are_served(server: int, origin: str) -> None:
    response = _post(server, {"Origin": origin.format(port=server), **_auth()})
    assert response.status_code == 200, response.text


# ---------------------------------------------------------------- bearer token


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer wrong-token"},
        {"Authorization": f"Bearer {TOKEN}x"},
        {"Authorization": f"Bearer {TOKEN[:-1]}"},
        {"Authorization": f"Basic {TOKEN}"},
        {"Authorization": TOKEN},
    ],
)
def test_a_missing_or_wrong_token_gets_401(server: int, headers: dict[str, str]) -> None:
    response = _post(server, headers)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert "mcp-session-id" not in response.headers


async def test_the_mcp_sdk_client_calls_tools_with_the_token(server: int) -> None:
    import httpx2
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    url = f"http://127.0.0.1:{server}/mcp"
    async with (
        httpx2.AsyncClient(headers=_auth(), timeout=30) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        listed = {t.name for t in (await session.list_tools()).tools}
        ok = await session.call_tool("EvaluateExpression", {"expression": "6 * 7"})
        start = time.monotonic()
        huge = await session.call_tool("EvaluateExpression", {"expression": "10**4400"})
        elapsed = time.monotonic() - start
    assert "EvaluateExpression" in listed
    assert not ok.is_error and ok.structured_content == {"ok": True, "value": 42, "display": "42"}
    assert huge.is_error and "too large" in huge.structured_content["error"]
    assert elapsed < 10  # refused before any arithmetic (10**4400 in full is not computed)


async def test_the_token_verifier_compares_exactly() -> None:
    from scigate.errors import BadInput
    from scigate.tools._mcp import BearerToken, check_token

    verifier = BearerToken(TOKEN)
    assert (await verifier.verify_token(TOKEN)) is not None
    for wrong in ("", TOKEN[:-1], TOKEN + "x", TOKEN.upper(), " " + TOKEN):
        assert (await verifier.verify_token(wrong)) is None
    for bad in ("", "two words", "tab\there", "caf\u00e9"):
        with pytest.raises(BadInput):
            check_token(bad)


def test_cli_refuses_bad_security_options() -> None:
    from scigate.cli._tools import app

    runner = CliRunner()
    res = runner.invoke(app, ["serve-mcp", "--allow-host", "x.test"])
    assert res.exit_code == 2 and "apply to --transport http only" in res.stderr
    res = runner.invoke(app, ["serve-mcp", "--transport", "http", "--token", ""])
    assert res.exit_code == 2 and "token" in res.stderr
    res = runner.invoke(app, ["serve-mcp", "--transport", "http", "--max-concurrent", "0"])
    assert res.exit_code == 2


# ---------------------------------------------------------------- SIGTERM during calls


class _SilentProxy:
    """A loopback 'proxy' that accepts connections and never answers (a hung web service)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = int(self.sock.getsockname()[1])
        self.connected = threading.Event()
        self._held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                conn, _ = self.sock.accept()
                self._held.append(conn)
                self.connected.set()

    def close(self) -> None:
        for conn in [*self._held, self.sock]:
            with contextlib.suppress(OSError):
                conn.close()


def _children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.add(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _session(port: int) -> dict[str, str]:
    headers = {**MCP_HEADERS, "Content-Type": "application/json"}
    url = f"http://127.0.0.1:{port}/mcp"
    response = httpx.post(url, json=INITIALIZE, headers=headers, timeout=10, trust_env=False)
    assert response.status_code == 200, response.text
    headers["mcp-session-id"] = response.headers["mcp-session-id"]
    headers["mcp-protocol-version"] = "2025-06-18"
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    httpx.post(url, json=initialized, headers=headers, timeout=10, trust_env=False)
    return headers


def _call_in_background(port: int, headers: dict[str, str], name: str, arguments: dict) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": name,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }

    def post() -> None:
        with contextlib.suppress(httpx.HTTPError):
            httpx.post(
                f"http://127.0.0.1:{port}/mcp",
                json=body,
                headers=headers,
                timeout=60,
                trust_env=False,
            )

    threading.Thread(target=post, daemon=True).start()


def test_sigterm_stops_the_server_within_a_second_during_calls() -> None:
    """A heavy call (4+ minutes of RDKit) and a light one (a web service that never answers)
    are running; SIGTERM ends the process and its worker process within about a second."""
    proxy = _SilentProxy()
    proxy_url = f"http://127.0.0.1:{proxy.port}"
    proc, port = _start([], _clean_env(HTTPS_PROXY=proxy_url, HTTP_PROXY=proxy_url))
    try:
        headers = _session(port)
        _call_in_background(port, headers, "CalculatePMI1", {"smiles": "C" * 300})
        _call_in_background(port, headers, "DownloadPapers", {"keywords": "graphene"})
        assert proxy.connected.wait(30), "the light call did not reach its web service"
        deadline = time.monotonic() + 60
        while not _children(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        workers = _children(proc.pid)
        assert workers, "the heavy call did not start a worker process"
        time.sleep(1.0)  # let the worker get into the computation
        assert proc.poll() is None

        start = time.monotonic()
        proc.terminate()
        code = proc.wait(timeout=30)
        elapsed = time.monotonic() - start
    finally:
        _stop(proc)
        proxy.close()
    assert code == 0
    # the calls in flight would hold it 20 s (the proxy never answers) and 60 s (PMI1's
    # limit) had it waited for them; it stops at once (well under a second)
    assert elapsed < 10, f"the server took {elapsed:.2f} s to stop"
    time.sleep(0.2)
    assert not [pid for pid in workers if _alive(pid)], "a worker process outlived the server"


def test_sigterm_stops_an_idle_server_promptly() -> None:
    proc, port = _start([], _clean_env())
    try:
        _session(port)
        start = time.monotonic()
        proc.terminate()
        code = proc.wait(timeout=30)
        elapsed = time.monotonic() - start
    finally:
        _stop(proc)
    # a server waiting for its open session to close would never stop
    assert code == 0 and elapsed < 10


# ---------------------------------------------------------------- concurrency bound


_LOCAL: dict = {}
_ACTIVE = {"now": 0, "peak": 0}
_ACTIVE_LOCK = threading.Lock()


@tool(
    name="HoldsASlot",
    functionality="Sleep while counting how many bodies run at once (test tool).",
    inputs=["number"],
    outputs=["number"],
    category="general",
    source="test",
    registry=_LOCAL,
)
def holds_a_slot(seconds: float) -> int:
    with _ACTIVE_LOCK:
        _ACTIVE["now"] += 1
        _ACTIVE["peak"] = max(_ACTIVE["peak"], _ACTIVE["now"])
    try:
        time.sleep(seconds)
    finally:
        with _ACTIVE_LOCK:
            _ACTIVE["now"] -= 1
    return _ACTIVE["peak"]


async def test_at_most_max_concurrent_bodies_run_at_once() -> None:
    from fastmcp import Client

    from scigate.tools import build_mcp_server

    _ACTIVE.update(now=0, peak=0)
    server = build_mcp_server(_LOCAL, max_concurrent=2)
    start = time.monotonic()
    async with Client(server) as client:
        results = await asyncio.gather(
            *(client.call_tool("HoldsASlot", {"seconds": 0.25}) for _ in range(6))
        )
    elapsed = time.monotonic() - start
    assert all(r.structured_content["ok"] for r in results)
    assert _ACTIVE["peak"] == 2
    assert elapsed >= 3 * 0.25 - 0.05  # three waves of two


async def test_a_call_that_waits_too_long_for_a_slot_gets_a_clear_error() -> None:
    from fastmcp import Client

    from scigate.tools import build_mcp_server

    _ACTIVE.update(now=0, peak=0)
    server = build_mcp_server(_LOCAL, max_concurrent=1, queue_timeout=0.2)
    async with Client(server) as client:
        slow = asyncio.create_task(client.call_tool("HoldsASlot", {"seconds": 1.0}))
        await asyncio.sleep(0.3)
        start = time.monotonic()
        busy = await client.call_tool("HoldsASlot", {"seconds": 0}, raise_on_error=False)
        waited = time.monotonic() - start
        assert (await slow).structured_content["ok"]
    assert busy.is_error
    assert (
        "server busy: all 1 tool-call slots stayed in use for 0.2 s"
        in (busy.structured_content["error"])
    )
    assert waited < 0.2 + 0.5
