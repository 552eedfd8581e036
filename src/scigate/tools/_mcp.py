"""Serving the tool library over the Model Context Protocol (fastmcp).

Every library tool becomes an MCP tool with its argument JSON Schema (each parameter
with a description, its type and, where the tool has them, its allowed values), its
functionality (plus input/output types) as the description, and the uniform scigate
result ``{"ok": ..., "value"/"error": ...}`` as structured content and as JSON text. A
result with ``ok: false`` is flagged ``isError`` so clients show it to the model as a
failed call. Results are redacted of the caller's credential values (`scigate._secrets`):
over stdio the MCP library writes to the real stdout, not the CLI's redacting stream.

Two modes (``--mode``): ``full`` lists every tool; ``finder`` lists two, ``find_tools(query)``
(retrieval over the same library, returning names, descriptions and input schemas) and
``call_tool(name, arguments)``, so a client need not load every schema up front.

Over HTTP the server is meant for the machine it runs on, and a web page the user opens
must not be able to reach it (DNS rebinding: a page's own host name resolving to
127.0.0.1). So, before any MCP processing:

- **Host and Origin**: fastmcp's `HostOriginGuardMiddleware` in strict mode (the
  library's mechanism, ahead of every other middleware): the Host must be 127.0.0.1,
  localhost or [::1] (any port), the address the request arrived on, or a name given with
  ``allow_hosts`` (``--allow-host``), else **421** (as is a Host that is not plain
  ``name[:port]``, see `WellFormedHost`); an Origin, when present, must be a
  loopback origin, the request's own origin, or one given with ``allow_origins``
  (``--allow-origin``), else **403**.
- **Bearer token** (``token``, ``--token`` or ``SCIGATE_MCP_TOKEN``): fastmcp's bearer
  authentication with a verifier that compares SHA-256 digests in constant time
  (`hmac.compare_digest`); a request without ``Authorization: Bearer <token>`` gets
  **401**.
- **Concurrency**: at most ``max_concurrent`` tool bodies run at once, counted until the
  body really ends (a cancelled request does not free its slot early); a call waits for a
  slot at most its time limit, then gets ``ok: false`` saying the server is busy.
- **SIGTERM/SIGINT**: uvicorn shuts down gracefully for `GRACEFUL_SHUTDOWN` seconds, and a
  deadline `EXIT_DEADLINE` seconds after the signal stops the heavy tools' worker
  processes and ends the process, even while a tool call is still running.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any, Literal

import anyio
from fastmcp import FastMCP
from fastmcp.server.auth import AccessToken, TokenVerifier
from fastmcp.tools import Tool as MCPTool
from fastmcp.tools.base import ToolResult as MCPToolResult
from mcp_types import TextContent, ToolAnnotations
from pydantic import PrivateAttr

from scigate import __version__
from scigate._secrets import RedactingStream, redact_obj
from scigate.errors import BadInput
from scigate.tools._bounded import effective_time_limit
from scigate.tools._tool import Tool, ToolResult

DEFAULT_MAX_CONCURRENT = 4
GRACEFUL_SHUTDOWN = 0.3  # seconds uvicorn waits for open requests after a signal
EXIT_DEADLINE = 0.8  # seconds after a signal the process ends whatever is still running
TOKEN_ENV = "SCIGATE_MCP_TOKEN"

RESULT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ok": {"type": "boolean"},
        "value": {},
        "display": {"type": "string"},
        "error": {"type": "string"},
    },
    "required": ["ok"],
}


def mcp_description(t: Tool) -> str:
    """The MCP description: functionality, then input and output types."""
    spec = t.spec
    return (
        f"{spec.functionality}\n\nInputs: {', '.join(spec.inputs) or 'none'}. "
        f"Outputs: {', '.join(spec.outputs) or 'none'}. Category: {spec.category}."
    )


def _words(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).replace("_", " ").lower()


def _input_kinds(t: Tool, names: list[str], required: list[str]) -> dict[str, str]:
    """The ontology input type of each parameter, where the tool's inputs line up with them."""
    inputs = t.spec.inputs
    if len(inputs) == len(names):
        return dict(zip(names, inputs, strict=True))
    if len(inputs) == len(required):
        return dict(zip(required, inputs, strict=True))
    return {}


def mcp_input_schema(t: Tool) -> dict[str, Any]:
    """`t`'s argument JSON Schema with a description on every parameter: its ontology type
    (where the tool's inputs line up with its parameters), its default, its allowed values."""
    schema = json.loads(json.dumps(t.spec.parameters or {"type": "object", "properties": {}}))
    props: dict[str, dict[str, Any]] = schema.setdefault("properties", {})
    required = [n for n in schema.get("required", []) if n in props]
    kinds = _input_kinds(t, list(props), required)
    for name, prop in props.items():
        if prop.get("description"):
            continue
        text = _words(name)
        if name in kinds and kinds[name].lower() != text:
            text = f"{text} ({kinds[name]})"
        text = text[:1].upper() + text[1:]
        enum = prop.get("enum") or next(
            (a["enum"] for a in prop.get("anyOf", []) if "enum" in a), None
        )
        if enum:
            text += "; one of " + ", ".join(json.dumps(v) for v in enum)
        if name not in required and "default" in prop:
            text += f"; default {json.dumps(prop['default'])}"
        prop["description"] = text + "."
    return schema


class CallSlots:
    """At most `size` tool bodies at once; a slot is held until the body really ends.

    The wait happens in the call's worker thread, so a request cancelled while its body
    runs (the thread is abandoned) keeps the slot until the body returns.
    """

    def __init__(self, size: int) -> None:
        if size < 1:
            raise BadInput(f"max concurrent calls must be at least 1, got {size}")
        self.size = size
        self._slots = threading.BoundedSemaphore(size)

    def run(
        self, t: Tool, arguments: dict[str, Any], wait: float, gone: threading.Event
    ) -> ToolResult:
        """`t.call(arguments)` once a slot is free (at most `wait` seconds), else a busy error."""
        if not self._slots.acquire(timeout=wait):
            return ToolResult(
                ok=False,
                error=(
                    f"{t.name}: server busy: all {self.size} tool-call slots stayed in use "
                    f"for {wait:g} s; try again later"
                ),
            )
        try:
            if gone.is_set():  # the request was cancelled while it waited
                return ToolResult(ok=False, error=f"{t.name}: the request was cancelled")
            return t.call(arguments)
        finally:
            self._slots.release()


class ScigateMCPTool(MCPTool):
    """An MCP tool that runs a scigate `Tool` in a worker thread, within the server's slots."""

    _tool: Any = PrivateAttr(default=None)
    _slots: Any = PrivateAttr(default=None)
    _queue_timeout: float | None = PrivateAttr(default=None)

    @classmethod
    def wrap(
        cls, t: Tool, slots: CallSlots | None = None, queue_timeout: float | None = None
    ) -> ScigateMCPTool:
        """The MCP form of `t` (its calls share `slots`; a new single-use set when None)."""
        spec = t.spec
        wrapped = cls(
            name=spec.name,
            title=spec.name,
            description=mcp_description(t),
            parameters=mcp_input_schema(t),
            output_schema=RESULT_SCHEMA,
            tags={spec.category},
            annotations=ToolAnnotations(
                read_only_hint=True, open_world_hint=spec.network, idempotent_hint=True
            ),
            meta={
                "category": spec.category,
                "inputs": spec.inputs,
                "outputs": spec.outputs,
                "source": spec.source,
                "safety": spec.safety,
                "network": spec.network,
            },
        )
        wrapped._tool = t
        wrapped._slots = slots or CallSlots(DEFAULT_MAX_CONCURRENT)
        wrapped._queue_timeout = queue_timeout
        return wrapped

    async def run(self, arguments: dict[str, Any]) -> MCPToolResult:
        """Call the scigate tool; never raises for a failed call, flags it instead."""
        t: Tool = self._tool
        wait = self._queue_timeout
        if wait is None:
            wait = effective_time_limit(t.spec.time_limit)
        gone = threading.Event()
        try:
            result = await anyio.to_thread.run_sync(
                self._slots.run, t, dict(arguments or {}), wait, gone, abandon_on_cancel=True
            )
        except BaseException:
            gone.set()  # cancelled (client gone, server stopping): do not start the body
            raise
        return _result(result)


def _result(result: ToolResult) -> MCPToolResult:
    """The MCP form of a scigate result, redacted of the caller's credential values."""
    payload: dict[str, Any] = redact_obj(result.as_dict())  # type: ignore[assignment]
    return MCPToolResult(
        content=[TextContent(type="text", text=json.dumps(payload, ensure_ascii=False))],
        structured_content=payload,
        is_error=not result.ok,
    )


FIND_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "description": "What the tool should do, in words, e.g. 'molecular weight of a "
            "SMILES' or 'convert a chemical name to SMILES'.",
        },
        "k": {
            "type": "integer",
            "minimum": 1,
            "maximum": 20,
            "default": 5,
            "description": "How many tools to return (1-20); default 5.",
        },
    },
    "required": ["query"],
    "additionalProperties": False,
}

CALL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {
            "type": "string",
            "description": "The tool's name exactly as find_tools returned it.",
        },
        "arguments": {
            "type": "object",
            "description": "The tool's arguments, as its input_schema from find_tools describes.",
            "default": {},
        },
    },
    "required": ["name"],
    "additionalProperties": False,
}


class FindTools(MCPTool):
    """`find_tools(query, k)`: the best-matching library tools with their input schemas."""

    _tools: Any = PrivateAttr(default=None)
    _index: Any = PrivateAttr(default=None)

    @classmethod
    def over(cls, tools: dict[str, Tool]) -> FindTools:
        """The finder over `tools` (its search index is built on the first query)."""
        made = cls(
            name="find_tools",
            title="find_tools",
            description=(
                f"Search {len(tools)} executable scientific tools (chemistry, biology, "
                "materials, finite elements, general) by what they do. Returns up to k tools, "
                "each with name, description and input_schema; run one with call_tool."
            ),
            parameters=FIND_SCHEMA,
            annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True),
        )
        made._tools = tools
        return made

    def _search(self, query: str, k: int) -> list[dict[str, Any]]:
        if self._index is None:
            from scigate.tools._retrieval import ToolIndex

            self._index = ToolIndex(self._tools.values(), cache=True)
        return [
            {
                "name": hit.name,
                "description": mcp_description(self._tools[hit.name]),
                "input_schema": mcp_input_schema(self._tools[hit.name]),
            }
            for hit in self._index.search(query, k=k)
        ]

    async def run(self, arguments: dict[str, Any]) -> MCPToolResult:
        """The hits as ``{ok: true, value: [...]}``; ``ok: false`` for an unusable query."""
        query, k = arguments.get("query"), arguments.get("k", 5)
        if not isinstance(query, str) or not query.strip():
            return _result(
                ToolResult(ok=False, error="find_tools: query must be a non-empty string")
            )
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 20:
            return _result(ToolResult(ok=False, error="find_tools: k must be an integer in 1..20"))
        hits = await anyio.to_thread.run_sync(self._search, query, k)
        names = ", ".join(h["name"] for h in hits)
        return _result(ToolResult(ok=True, value=hits, display=names))


class CallTool(MCPTool):
    """`call_tool(name, arguments)`: run one library tool as the full mode would."""

    _wrapped: Any = PrivateAttr(default=None)

    @classmethod
    def over(cls, wrapped: dict[str, ScigateMCPTool]) -> CallTool:
        """The caller of the already wrapped tools `wrapped` (same slots, same results)."""
        made = cls(
            name="call_tool",
            title="call_tool",
            description=(
                "Run one scientific tool found with find_tools. Returns {ok, value, display} "
                "or {ok: false, error}."
            ),
            parameters=CALL_SCHEMA,
            annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True),
        )
        made._wrapped = wrapped
        return made

    async def run(self, arguments: dict[str, Any]) -> MCPToolResult:
        """The named tool's result; ``ok: false`` for an unknown name or non-object arguments."""
        import difflib

        name, args = arguments.get("name"), arguments.get("arguments") or {}
        target = self._wrapped.get(name) if isinstance(name, str) else None
        if target is None:
            close = difflib.get_close_matches(str(name), list(self._wrapped), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else "; use find_tools"
            return _result(ToolResult(ok=False, error=f"call_tool: unknown tool {name!r}{hint}"))
        if not isinstance(args, dict):
            return _result(ToolResult(ok=False, error="call_tool: arguments must be an object"))
        return await target.run(args)


class BearerToken(TokenVerifier):
    """Accepts exactly one static bearer token, compared in constant time."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self._digest = _digest(check_token(token))

    async def verify_token(self, token: str) -> AccessToken | None:
        """An access token when `token` is the configured one, else None (-> 401)."""
        if not hmac.compare_digest(_digest(token), self._digest):
            return None
        return AccessToken(token=token, client_id="scigate-mcp", scopes=[], expires_at=None)


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


def check_token(token: str) -> str:
    """`token` when usable as a bearer token (non-empty, printable, no spaces), else BadInput."""
    if not token or not token.isascii() or not token.isprintable() or " " in token:
        raise BadInput(
            f"the MCP token (--token or {TOKEN_ENV}) must be non-empty printable ASCII "
            "without spaces"
        )
    return token


Mode = Literal["full", "finder"]


def build_mcp_server(
    tools: dict[str, Tool] | list[Tool] | None = None,
    *,
    max_concurrent: int = DEFAULT_MAX_CONCURRENT,
    token: str | None = None,
    queue_timeout: float | None = None,
    mode: Mode = "full",
) -> FastMCP:
    """A FastMCP server offering `tools` (default: the whole library): each as an MCP tool
    (`mode` "full"), or `find_tools` and `call_tool` over them ("finder").

    At most `max_concurrent` tool bodies run at once (a call waits `queue_timeout`
    seconds for a slot, default its time limit); with `token`, HTTP requests need
    ``Authorization: Bearer <token>``.
    """
    if tools is None:
        from scigate.tools._library import load_library

        tools = load_library()
    items = list(tools.values()) if isinstance(tools, dict) else list(tools)
    server = FastMCP(
        name="scigate-tools",
        version=__version__,
        instructions=(
            "Executable scientific tools (chemistry, biology, materials, finite elements, "
            "general). Every call returns {ok, value, display} or {ok: false, error}."
        ),
        auth=BearerToken(token) if token is not None else None,
    )
    if mode not in ("full", "finder"):
        raise BadInput(f"unknown MCP mode {mode!r}; expected full or finder")
    slots = CallSlots(max_concurrent)
    wrapped = {
        t.name: ScigateMCPTool.wrap(t, slots, queue_timeout)
        for t in sorted(items, key=lambda x: x.name)
    }
    if mode == "finder":
        server.add_tool(FindTools.over({t.name: t for t in items}))
        server.add_tool(CallTool.over(wrapped))
        return server
    for one in wrapped.values():
        server.add_tool(one)
    return server


_HOST_SHAPE = re.compile(r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::[0-9]{1,5})?")


class WellFormedHost:
    """421 for a Host header that is not ``name[:port]`` or ``[v6][:port]``.

    fastmcp's guard reads ``127.0.0.1:80.evil.example`` as host 127.0.0.1 (it drops
    everything after the one colon); no browser sends such a header, but nothing
    should accept it either.
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            from starlette.datastructures import Headers
            from starlette.responses import Response

            if not _HOST_SHAPE.fullmatch(Headers(scope=scope).get("host", "")):
                await Response("Misdirected Request", status_code=421)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def http_app(
    server: FastMCP,
    *,
    allow_hosts: Sequence[str] = (),
    allow_origins: Sequence[str] = (),
) -> Any:
    """The Starlette app of `server` over streamable HTTP (at /mcp), Host/Origin guarded."""
    from starlette.middleware import Middleware

    return server.http_app(
        transport="http",
        host_origin_protection=True,
        allowed_hosts=list(allow_hosts),
        allowed_origins=list(allow_origins),
        middleware=[Middleware(WellFormedHost)],
    )


Transport = Literal["stdio", "http"]


def serve(
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = 8765,
    tools: dict[str, Tool] | None = None,
    *,
    allow_hosts: Sequence[str] = (),
    allow_origins: Sequence[str] = (),
    token: str | None = None,
    max_concurrent: int = DEFAULT_MAX_CONCURRENT,
    mode: Mode = "full",
) -> None:
    """Run the MCP server over stdio or streamable HTTP (blocks until stopped).

    Over HTTP: only loopback Host/Origin unless allowed, the bearer `token` when given
    (see the module docstring), and an exit within `EXIT_DEADLINE` s of SIGTERM/SIGINT.
    Over stdio the protocol goes to the real stdout (the MCP library writes its bytes).
    """
    if transport == "stdio":
        server = build_mcp_server(tools, max_concurrent=max_concurrent, mode=mode)
        with _raw_stdout():
            server.run(transport="stdio", show_banner=False)
    elif transport == "http":
        server = build_mcp_server(tools, max_concurrent=max_concurrent, token=token, mode=mode)
        app = http_app(server, allow_hosts=allow_hosts, allow_origins=allow_origins)
        _run_uvicorn(app, host, port)
    else:
        raise BadInput(f"unknown MCP transport {transport!r}; expected stdio or http")


@contextlib.contextmanager
def _raw_stdout() -> Any:
    """The process's own stdout while the MCP library speaks the protocol on its byte
    buffer (the CLI wraps stdout in a redacting text stream; results are redacted instead)."""
    wrapped = sys.stdout
    if isinstance(wrapped, RedactingStream):
        sys.stdout = wrapped.stream
    try:
        yield
    finally:
        sys.stdout = wrapped


def _run_uvicorn(app: Any, host: str, port: int) -> None:
    import fastmcp
    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            super().handle_exit(sig, frame)
            _arm_exit_deadline(EXIT_DEADLINE)

    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        lifespan="on",
        ws="none",
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN,  # type: ignore[arg-type]
        log_level=str(fastmcp.settings.log_level).lower(),
    )
    # uvicorn re-raises the signal once it has shut down; meet it with a no-op handler
    # so the worker processes are stopped below (a default SIGTERM would skip that)
    main = threading.current_thread() is threading.main_thread()
    previous = {}
    if main:
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, _note_signal)
    try:
        Server(config).run()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        _stop_workers()
    if _DEADLINE_ARMED.is_set():
        # stopped by a signal: end now; the interpreter's own teardown of the loaded
        # library takes seconds, and a thread still inside a tool call would block it
        _exit_now()


def _note_signal(sig: int, frame: Any) -> None:
    _arm_exit_deadline(EXIT_DEADLINE)


def _exit_now() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)


_DEADLINE_ARMED = threading.Event()


def _arm_exit_deadline(seconds: float) -> None:
    """End the process `seconds` from now, whatever threads are still running."""
    if _DEADLINE_ARMED.is_set():
        return
    _DEADLINE_ARMED.set()

    def exit_later() -> None:
        time.sleep(seconds)
        _stop_workers()
        _exit_now()

    threading.Thread(target=exit_later, name="scigate-mcp exit deadline", daemon=True).start()


def _stop_workers() -> None:
    """Kill the heavy tools' worker processes, if any were started."""
    from scigate.tools import _bounded

    pool = _bounded._POOL
    if pool is not None:
        with contextlib.suppress(Exception):
            pool.shutdown()
