"""Declaring a scientific tool: a typed function plus its ontology.

A tool is an ordinary typed Python function decorated with `@tool(...)`. The decorator
records the ontology (functionality, input/output types, category, source, advanced
attributes, safety flag, examples), derives the argument JSON Schema from the type
hints, and wraps the call so that it always returns one shape::

    {"ok": True, "value": ..., "display": "..."}   or   {"ok": False, "error": "..."}

Tool bodies signal bad input by raising `ToolInputError` with a message that says what
was wrong; any other exception is caught and reported, never propagated.

`Tool.call` never raises, whatever the arguments or the body do: validation, the body
and the conversion of its value run under one guard that turns every exception,
``RecursionError``, ``MemoryError`` and even a body's ``SystemExit`` into ``ok: false``.
Only the caller's own ``KeyboardInterrupt``/``SystemExit`` (a Ctrl-C while it waits)
pass through, since they are the caller's to handle. Every call is also time-bounded
(see `scigate.tools._bounded`): heavy tools in a killable worker process, light tools in
a daemon thread the caller stops waiting for at the limit.
"""

from __future__ import annotations

import copy
import inspect
import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from scigate.tools._bounded import (
    LimitExceeded,
    check_input_size,
    effective_time_limit,
    run_in_thread,
    worker_pool,
)

Category = Literal["chemistry", "biology", "materials", "fem", "general"]


class ToolInputError(ValueError):
    """Raised by a tool body when its input is unusable (invalid SMILES, non-DNA letter...)."""


class ToolExample(BaseModel):
    """One checked example: arguments and the expected value (with tolerances for numbers)."""

    input: dict[str, Any]
    output: Any
    rel_tol: float = 1e-6
    abs_tol: float = 1e-9

    def matches(self, value: Any) -> bool:
        """True when `value` equals the expected output (numbers within tolerance)."""
        return _close(value, self.output, self.rel_tol, self.abs_tol)


class ToolSpec(BaseModel):
    """The ontology of one tool (the paper's basic and advanced attributes)."""

    name: str
    functionality: str
    inputs: list[str]
    outputs: list[str]
    category: Category
    source: str
    objects: list[str] = Field(default_factory=list)
    scenarios: list[str] = Field(default_factory=list)
    safety: bool = False  # True: the call needs a security check before it runs
    network: bool = False  # True: the tool needs a web service
    requires: list[str] = Field(default_factory=list)  # importable modules it needs
    examples: list[ToolExample] = Field(default_factory=list)
    parameters: dict[str, Any] = Field(default_factory=dict)  # JSON Schema of the arguments
    aliases: list[str] = Field(default_factory=list)  # SciToolKG names this tool is equivalent to
    heavy: bool = False  # True: the body runs in a killable worker process (see _bounded)
    time_limit: float | None = None  # seconds; None: the library default
    max_input_chars: int | None = None  # total string characters; None: the library default


class ToolResult(BaseModel):
    """The uniform result of a tool call."""

    ok: bool
    value: Any = None
    display: str | None = None
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The wire shape: ok/value/display or ok/error."""
        if self.ok:
            return {"ok": True, "value": self.value, "display": self.display or ""}
        return {"ok": False, "error": self.error or "unknown error"}


class Tool:
    """A registered tool: its spec and the function behind it. The pydantic model that
    validates its arguments is built on the first call (its JSON Schema is in the spec)."""

    def __init__(
        self,
        fn: Callable[..., Any],
        spec: ToolSpec,
        args_model: type[BaseModel] | None = None,
    ):
        self.fn = fn
        self.spec = spec
        self._model = args_model
        self.__doc__ = fn.__doc__
        self.__name__ = spec.name

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def _args_model(self) -> type[BaseModel]:
        if self._model is None:
            self._model = _args_model_from(self.fn, self.spec.name)
        return self._model

    @property
    def parameter_names(self) -> list[str]:
        if self._model is None:
            return list(self.spec.parameters.get("properties", {}))
        return list(self._model.model_fields)

    @property
    def required_parameters(self) -> list[str]:
        if self._model is None:
            return list(self.spec.parameters.get("required", []))
        return [n for n, f in self._model.model_fields.items() if f.is_required()]

    def available(self) -> bool:
        """True when every module the tool needs can be imported."""
        import importlib.util

        return all(importlib.util.find_spec(m) is not None for m in self.spec.requires)

    def call(self, arguments: dict[str, Any] | None = None, **kwargs: Any) -> ToolResult:
        """Validate the arguments, run the tool and return a `ToolResult`; never raises."""
        try:
            return self._call(arguments, kwargs)
        except (KeyboardInterrupt, SystemExit):
            raise  # the caller's own interrupt while it waits, not the tool's doing
        except BaseException as exc:  # anything else: the one result shape, never a crash
            return _fail(f"{self.name}: {_describe_exception(exc)}")

    def _call(self, arguments: dict[str, Any] | None, kwargs: dict[str, Any]) -> ToolResult:
        args = {**(arguments or {}), **kwargs}
        unknown = sorted(set(args) - set(self._args_model.model_fields))
        if unknown:
            return _fail(
                f"{self.name}: unknown argument(s) {', '.join(unknown)}; "
                f"expected {', '.join(self.parameter_names) or 'none'}"
            )
        try:
            validated = self._args_model.model_validate(args)
        except ValidationError as exc:
            return _fail(f"{self.name}: {_describe_validation(exc, self.spec)}")
        kwargs_in = {k: getattr(validated, k) for k in self._args_model.model_fields}
        too_big = check_input_size(self.name, kwargs_in, self.spec.max_input_chars)
        if too_big:
            return _fail(too_big)
        if self.spec.heavy:
            return self._call_in_worker(kwargs_in)
        limit = effective_time_limit(self.spec.time_limit)
        try:
            return run_in_thread(self._run_body, kwargs_in, limit, name=self.name)
        except LimitExceeded as exc:
            return _fail(f"{self.name}: {exc}")

    def _run_body(self, kwargs: dict[str, Any]) -> ToolResult:
        """The body and the conversion of its value (in the light tool's thread)."""
        try:
            value = self.fn(**kwargs)
            return ToolResult(ok=True, value=_jsonable(value), display=format_value(value))
        except ToolInputError as exc:
            return _fail(f"{self.name}: {exc}")
        except ImportError as exc:
            return _fail(f"{self.name}: needs a package that is not installed ({exc.name or exc})")
        except BaseException as exc:  # a tool must never crash its caller (sys.exit included)
            return _fail(f"{self.name}: {_describe_exception(exc)}")

    def _call_in_worker(self, kwargs: dict[str, Any]) -> ToolResult:
        limit = effective_time_limit(self.spec.time_limit)
        try:
            reply = worker_pool().run(self, kwargs, limit)
        except LimitExceeded as exc:
            return _fail(f"{self.name}: {exc}")
        except Exception as exc:  # the pool itself failed (no processes left, ...)
            return _fail(f"{self.name}: could not run in a worker process: {exc}")
        kind = reply[0]
        if kind == "ok":
            return ToolResult(ok=True, value=reply[1], display=reply[2])
        if kind == "input":
            return _fail(f"{self.name}: {reply[1]}")
        if kind == "import":
            return _fail(f"{self.name}: needs a package that is not installed ({reply[1]})")
        return _fail(f"{self.name}: {reply[1]}")

    def call_single(self, value: Any) -> ToolResult:
        """Call with one positional input bound to the first required parameter."""
        names = self.required_parameters or self.parameter_names
        if not names:
            return self.call({})
        return self.call({names[0]: value})

    def __call__(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """Call like the function; returns the uniform dict shape."""
        names = self.parameter_names
        if len(args) > len(names):
            return _fail(f"{self.name}: too many positional arguments").as_dict()
        return self.call(dict(zip(names, args, strict=False)), **kwargs).as_dict()

    def openai_schema(self) -> dict[str, Any]:
        """The OpenAI function-tool schema of this tool."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.spec.functionality,
                "parameters": self.spec.parameters,
            },
        }

    def __repr__(self) -> str:
        return f"Tool({self.name!r}, {self.spec.category}, {self.spec.inputs}->{self.spec.outputs})"


REGISTRY: dict[str, Tool] = {}

# While `load_library` imports the library: argument schemas by tool name from the disk
# cache (`_diskcache`), completed here for the tools it lacks; None: build every schema.
_SCHEMAS: dict[str, dict[str, Any]] | None = None


@contextmanager
def cached_schemas(schemas: dict[str, dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Within the block, tools declared take their argument schema from `schemas` (by
    name) instead of building their pydantic model now; the schemas built for tools it
    lacks are added to it."""
    global _SCHEMAS
    previous, _SCHEMAS = _SCHEMAS, schemas
    try:
        yield schemas
    finally:
        _SCHEMAS = previous


def argument_schema(args_model: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema of a tool's arguments, without pydantic's titles."""
    params = args_model.model_json_schema()
    params.pop("title", None)
    for prop in params.get("properties", {}).values():
        prop.pop("title", None)
    return params


def tool(
    *,
    name: str,
    functionality: str,
    inputs: list[str],
    outputs: list[str],
    category: Category,
    source: str,
    objects: list[str] | None = None,
    scenarios: list[str] | None = None,
    safety: bool = False,
    network: bool = False,
    requires: list[str] | None = None,
    examples: Sequence[tuple[dict[str, Any], Any] | ToolExample] | None = None,
    registry: dict[str, Tool] | None = None,
    aliases: list[str] | None = None,
    heavy: bool = False,
    time_limit: float | None = None,
    max_input_chars: int | None = None,
) -> Callable[[Callable[..., Any]], Tool]:
    """Register a typed function as a tool with its ontology; returns the `Tool`.

    `heavy` tools run in a killable worker process bounded by `time_limit` seconds (None:
    the library default); `max_input_chars` bounds the total string input of any tool.
    """

    def decorate(fn: Callable[..., Any]) -> Tool:
        schemas = _SCHEMAS
        args_model = None
        params = copy.deepcopy(schemas.get(name)) if schemas is not None else None
        if not isinstance(params, dict):
            args_model = _args_model_from(fn, name)
            params = argument_schema(args_model)
            if schemas is not None:
                schemas[name] = copy.deepcopy(params)
        spec = ToolSpec(
            name=name,
            functionality=functionality,
            inputs=inputs,
            outputs=outputs,
            category=category,
            source=source,
            objects=objects or [],
            scenarios=scenarios or [],
            safety=safety,
            network=network,
            requires=requires or [],
            examples=[
                e if isinstance(e, ToolExample) else ToolExample(input=e[0], output=e[1])
                for e in (examples or [])
            ],
            parameters=params,
            aliases=aliases or [],
            heavy=heavy,
            time_limit=time_limit,
            max_input_chars=max_input_chars,
        )
        target = REGISTRY if registry is None else registry
        if name in target:
            raise ValueError(f"tool {name!r} is registered twice")
        t = Tool(fn, spec, args_model)
        target[name] = t
        return t

    return decorate


def _args_model_from(fn: Callable[..., Any], name: str) -> type[BaseModel]:
    sig = inspect.signature(fn)
    hints = inspect.get_annotations(fn, eval_str=True)
    fields: dict[str, Any] = {}
    for pname, param in sig.parameters.items():
        ann = hints.get(pname, Any)
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[pname] = (ann, default)
    return create_model(
        f"{name}Args", __config__=ConfigDict(extra="forbid", strict=False), **fields
    )


def _describe_validation(exc: ValidationError, spec: ToolSpec) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(x) for x in err["loc"]) or "arguments"
        if err["type"] == "missing":
            parts.append(f"missing argument '{loc}'")
        else:
            parts.append(f"argument '{loc}': {err['msg']}")
    return "; ".join(parts)


def _fail(message: str) -> ToolResult:
    return ToolResult(ok=False, error=message)


def _describe_exception(exc: BaseException) -> str:
    """``Type: message`` of an exception whose str() itself may fail or be endless."""
    try:
        text = str(exc)
    except BaseException:  # a hostile __str__, or an int too long to print
        text = "(message not printable)"
    if len(text) > 500:
        text = text[:500] + "..."
    if isinstance(exc, SystemExit):
        return f"the tool tried to exit the process (SystemExit: {text})"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _jsonable(value: Any) -> Any:
    """Convert numpy scalars/arrays, tuples and sets into JSON-friendly values."""
    if hasattr(value, "tolist") and callable(value.tolist):
        return value.tolist()
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def format_value(value: Any) -> str:
    """A short human-readable rendering of a tool value."""
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, dict):
        return "; ".join(f"{k}: {format_value(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        if len(value) > 20:
            return ", ".join(format_value(v) for v in value[:20]) + f", ... ({len(value)} items)"
        return ", ".join(format_value(v) for v in value)
    return str(value)


def _close(a: Any, b: Any, rel_tol: float, abs_tol: float) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(float(a), float(b), rel_tol=rel_tol, abs_tol=abs_tol)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k], rel_tol, abs_tol) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(
            _close(x, y, rel_tol, abs_tol) for x, y in zip(a, b, strict=True)
        )
    return a == b
