"""`python/PATH.py:FUNCTION`: a Python callable used as a model."""

from __future__ import annotations

import asyncio
import copy
import hashlib
import importlib.util
import inspect
import json
import math
import sys
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from scigate.errors import BadInput
from scigate.llm._model import LayerSettings, Model, Recorder, public_message
from scigate.llm._spec import ModelSpec
from scigate.llm._types import ModelOutput, ToolCall, Usage

FORM = "python/PATH.py:FUNCTION"
CHARS_PER_TOKEN = 4

_modules: dict[Path, ModuleType] = {}
_modules_lock = threading.Lock()


def _load_module(path: Path, spec: str) -> ModuleType:
    resolved = path.resolve()
    with _modules_lock:
        if resolved in _modules:
            return _modules[resolved]
        if not resolved.is_file():
            raise BadInput(
                f"python model file {str(path)!r} not found (from {Path.cwd()}) "
                f"in model spec {spec!r}: expected {FORM}"
            )
        name = "scigate_model_" + hashlib.sha1(str(resolved).encode()).hexdigest()[:16]
        module_spec = importlib.util.spec_from_file_location(name, resolved)
        if module_spec is None or module_spec.loader is None:
            raise BadInput(f"cannot load python model file {str(path)!r}: not a Python module")
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module
        try:
            # Compiled here rather than by the file loader, which would write a
            # __pycache__ beside the user's file: their folder is not ours to change.
            code = compile(resolved.read_bytes(), str(resolved), "exec", dont_inherit=True)
            exec(code, module.__dict__)
        except Exception as exc:
            sys.modules.pop(name, None)
            detail = " ".join(str(exc).split())
            raise BadInput(
                f"cannot load python model file {str(path)!r}: {type(exc).__name__}: {detail}"
            ) from None
        _modules[resolved] = module
        return module


def load_callable(spec: str, target: str) -> Callable[..., Any]:
    """The function named by ``PATH.py:FUNCTION`` (module loaded once per path)."""
    path, _, function = target.rpartition(":")
    module = _load_module(Path(path).expanduser(), spec)
    func = getattr(module, function, None)
    if not callable(func):
        raise BadInput(
            f"python model file {path!r} has no function {function!r} "
            f"(model spec {spec!r}; expected {FORM})"
        )
    return func


def new_call_id() -> str:
    """A fresh tool-call id in OpenAI's style."""
    return "call_" + uuid.uuid4().hex[:24]


def _estimate_tokens(value: Any) -> int:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0


def _tool_call(item: Any) -> ToolCall:
    if not isinstance(item, dict):
        raise ValueError(f"tool call {item!r} is not a dict with name and arguments")
    function: dict[str, Any] = item["function"] if isinstance(item.get("function"), dict) else item
    name = function.get("name")
    arguments = function.get("arguments", {})
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            arguments = {"_raw": arguments}
    if not isinstance(name, str) or not name or not isinstance(arguments, dict):
        raise ValueError(f"tool call {item!r} needs a name (str) and arguments (dict)")
    return ToolCall(id=str(item.get("id") or new_call_id()), name=name, arguments=arguments)


def _usage(value: dict[str, Any]) -> Usage:
    return Usage(
        input_tokens=int(value.get("input_tokens", value.get("prompt_tokens", 0))),
        output_tokens=int(value.get("output_tokens", value.get("completion_tokens", 0))),
        reasoning_tokens=int(value.get("reasoning_tokens", 0)),
        cached_input_tokens=int(value.get("cached_input_tokens", 0)),
    )


def to_output(
    result: Any, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
) -> ModelOutput:
    """Turn what a python model returned (str or dict) into a `ModelOutput`."""
    if isinstance(result, str):
        content: str | None = result
        calls: list[ToolCall] = []
        usage_in, stop = None, None
    elif isinstance(result, dict):
        content = result.get("content")
        if content is not None and not isinstance(content, str):
            raise ValueError(f"'content' must be a str or None, not {type(content).__name__}")
        raw_calls = result.get("tool_calls") or []
        if not isinstance(raw_calls, list):
            raise ValueError("'tool_calls' must be a list of {name, arguments} dicts")
        calls = [_tool_call(c) for c in raw_calls]
        usage_in = result.get("usage")
        if usage_in is not None and not isinstance(usage_in, dict):
            raise ValueError("'usage' must be a dict of token counts")
        stop = result.get("stop_reason")
    else:
        raise ValueError(
            f"returned {type(result).__name__}; expected a str or a dict "
            "{'content': str | None, 'tool_calls': [{'name': str, 'arguments': dict}]}"
        )
    if usage_in is not None:
        usage = _usage(usage_in)
    else:
        prompt = _estimate_tokens(messages) + (_estimate_tokens(tools) if tools else 0)
        answer = _estimate_tokens(content or "") + sum(
            _estimate_tokens({"name": c.name, "arguments": c.arguments}) for c in calls
        )
        usage = Usage(input_tokens=prompt, output_tokens=answer, estimated=True)
    return ModelOutput(
        model=model,
        text=content,
        tool_calls=calls,
        usage=usage,
        stop_reason=stop or ("tool_calls" if calls else "stop"),
        raw={"result": result, "usage_estimated": usage.estimated},
    )


class PythonModel(Model):
    """A Python function called as ``FUNCTION(messages, tools=None, **settings)``.

    Async functions are awaited; sync ones run in a worker thread so that slow policies
    do not block the event loop. The function gets copies of the messages and tools.
    """

    provider = "python"

    def __init__(self, spec: ModelSpec, *, recorder: Recorder | None = None) -> None:
        super().__init__(spec, recorder=recorder)
        self.function = load_callable(spec.raw, spec.model)

    def endpoint(self) -> tuple:
        return ("python", self.spec.model)

    async def _generate(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        settings: dict[str, Any],
        layer: LayerSettings,
    ) -> ModelOutput:
        sent_messages = [public_message(m) for m in copy.deepcopy(messages)]
        sent_tools = copy.deepcopy(tools)
        if inspect.iscoroutinefunction(self.function):
            result = await self.function(sent_messages, tools=sent_tools, **settings)
        else:
            result = await asyncio.to_thread(
                self.function, sent_messages, tools=sent_tools, **settings
            )
        if inspect.isawaitable(result):
            result = await result
        return to_output(result, self.spec.model, sent_messages, sent_tools)
