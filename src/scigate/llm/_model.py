"""The abstract `Model`: settings, retries, concurrency limits, accounting and recording.

Provider subclasses implement `_generate` (one attempt) and say which of their errors
are transient; everything else (one retry policy, one concurrency limit per endpoint,
timeouts, cost, the call record) lives here so that every provider behaves the same.
"""

from __future__ import annotations

import asyncio
import inspect
import time
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, ClassVar

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt
from tenacity.wait import wait_exponential_jitter

from scigate.errors import BadInput
from scigate.llm._budget import active_budget, worst_case_tokens
from scigate.llm._cache import ResponseCache, active_cache, canonical_request, request_key
from scigate.llm._capabilities import (
    Capabilities,
    Fix,
    adapt,
    adapt_messages,
    apply_fix,
    capabilities,
    refusal_fix,
)
from scigate.llm._errors import ModelError
from scigate.llm._prices import estimate_cost
from scigate.llm._spec import LAYER_SETTINGS, ModelSpec
from scigate.llm._types import ModelCallRecord, ModelOutput

Recorder = Callable[[ModelCallRecord], Any]

DEFAULT_TIMEOUT = 600.0
DEFAULT_MAX_RETRIES = 4  # five attempts in all
DEFAULT_CONCURRENCY = 8
DEFAULT_RETRY_WAIT = 1.0  # first backoff, seconds; doubles each retry, with jitter
DEFAULT_RETRY_WAIT_MAX = 60.0
ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})


@dataclass(frozen=True)
class LayerSettings:
    """Settings the layer consumes (never sent to the provider)."""

    timeout: float = DEFAULT_TIMEOUT
    max_retries: int = DEFAULT_MAX_RETRIES
    concurrency: int = DEFAULT_CONCURRENCY
    retry_wait: float = DEFAULT_RETRY_WAIT
    retry_wait_max: float = DEFAULT_RETRY_WAIT_MAX
    api_key_env: str | None = None
    anthropic_version: str | None = None  # the anthropic-version header; None: the SDK's


def _number(name: str, value: Any, spec: str, *, integer: bool, minimum: float) -> Any:
    ok = isinstance(value, int) if integer else isinstance(value, int | float)
    if isinstance(value, bool) or not ok or value < minimum:
        kind = "an integer" if integer else "a number"
        raise BadInput(f"setting {name}={value!r} for model {spec!r} must be {kind} >= {minimum:g}")
    return value if integer else float(value)


def split_settings(settings: dict[str, Any], spec: str) -> tuple[LayerSettings, dict[str, Any]]:
    """Separate layer settings (validated) from the settings sent to the provider."""
    sent = {k: v for k, v in settings.items() if k not in LAYER_SETTINGS}
    api_key_env = settings.get("api_key_env")
    if api_key_env is not None and not (isinstance(api_key_env, str) and api_key_env):
        raise BadInput(f"setting api_key_env for model {spec!r} must name an environment variable")
    layer = LayerSettings(
        timeout=_number(
            "timeout", settings.get("timeout", DEFAULT_TIMEOUT), spec, integer=False, minimum=0.001
        ),
        max_retries=_number(
            "max_retries",
            settings.get("max_retries", DEFAULT_MAX_RETRIES),
            spec,
            integer=True,
            minimum=0,
        ),
        concurrency=_number(
            "concurrency",
            settings.get("concurrency", DEFAULT_CONCURRENCY),
            spec,
            integer=True,
            minimum=1,
        ),
        retry_wait=_number(
            "retry_wait",
            settings.get("retry_wait", DEFAULT_RETRY_WAIT),
            spec,
            integer=False,
            minimum=0,
        ),
        retry_wait_max=_number(
            "retry_wait_max",
            settings.get("retry_wait_max", DEFAULT_RETRY_WAIT_MAX),
            spec,
            integer=False,
            minimum=0,
        ),
        api_key_env=api_key_env,
        anthropic_version=settings.get("anthropic_version"),
    )
    return layer, sent


# One semaphore per (event loop, provider endpoint, limit): asyncio primitives must not be
# shared across loops, and each test or `asyncio.run` gets a loop of its own.
_SEMAPHORES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple, asyncio.Semaphore]]
_SEMAPHORES = weakref.WeakKeyDictionary()


def endpoint_semaphore(key: tuple, limit: int) -> asyncio.Semaphore:
    """The shared semaphore limiting in-flight calls to one endpoint in this event loop."""
    per_loop = _SEMAPHORES.setdefault(asyncio.get_running_loop(), {})
    full_key = (*key, limit)
    if full_key not in per_loop:
        per_loop[full_key] = asyncio.Semaphore(limit)
    return per_loop[full_key]


CallLimiter = Callable[[tuple, int, float], AbstractAsyncContextManager[Any]]
_call_limiter: CallLimiter | None = None


def set_call_limiter(limiter: CallLimiter | None) -> None:
    """Make `limiter(endpoint_key, limit, timeout)` (an async context manager per call
    attempt, which ends within `timeout` seconds) bound the calls in flight instead of
    this event loop's semaphore; None restores the default. A cluster-wide limiter
    (scigate.executor) plugs in here."""
    global _call_limiter
    _call_limiter = limiter


def call_slot(key: tuple, limit: int, timeout: float) -> AbstractAsyncContextManager[Any]:
    """The slot one call attempt to endpoint `key` holds while it is in flight."""
    if _call_limiter is not None:
        return _call_limiter(key, limit, timeout)
    return endpoint_semaphore(key, limit)


def check_messages(messages: Any) -> list[dict[str, Any]]:
    """Raise BadInput unless `messages` is a list of OpenAI chat-format dicts."""
    if not isinstance(messages, list) or not messages:
        raise BadInput("messages must be a non-empty list of chat messages (dicts with a 'role')")
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ROLES:
            raise BadInput(
                f"message {i} is not a chat message: expected a dict whose role is one of "
                "system, user, assistant, tool"
            )
        if message["role"] == "tool" and not message.get("tool_call_id"):
            raise BadInput(f"message {i} has role 'tool' but no tool_call_id")
    return messages


def public_message(message: dict[str, Any]) -> dict[str, Any]:
    """The message without private ("_"-prefixed) keys, for providers that reject extras."""
    return {k: v for k, v in message.items() if not k.startswith("_")}


ADAPTED_KEY = "_adapted"  # key of the recorded settings listing what adaptation changed

# What providers' refusals taught, per (endpoint..., model): fix -> the provider's message.
# Kept for the rest of the run (this process); `forget_adaptations` clears it.
_LEARNED: dict[tuple, dict[Fix, str]] = {}


def forget_adaptations() -> None:
    """Forget what refusals taught (tests; a long-lived process after a provider change)."""
    _LEARNED.clear()


def learned_adaptations() -> dict[tuple, dict[Fix, str]]:
    """What refusals taught so far, per endpoint and model."""
    return {k: dict(v) for k, v in _LEARNED.items()}


def _retry_after(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is not None:
            try:
                return float(value) * scale
            except ValueError:
                return None
    return None


def _recorded_settings(sent: dict[str, Any], changes: list[str]) -> dict[str, Any]:
    """What was sent, plus what the layer changed to make it acceptable (kept with the
    call in model_calls.settings; the private key is never sent)."""
    return {**sent, ADAPTED_KEY: list(changes)} if changes else dict(sent)


class Model(ABC):
    """A model behind one async interface, whatever its provider.

    `generate` merges spec settings with call-time settings (call-time wins; a value of
    None removes a setting), retries transient failures with exponential backoff and
    jitter, limits in-flight calls per endpoint, fills in latency and cost, and passes a
    `ModelCallRecord` of every call (success or final failure) to the recorder.
    """

    provider: ClassVar[str] = ""

    def __init__(self, spec: ModelSpec, *, recorder: Recorder | None = None) -> None:
        self.spec = spec
        self.name = spec.raw
        self.recorder = recorder

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    # -- what providers implement -------------------------------------------------------

    @abstractmethod
    async def _generate(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        settings: dict[str, Any],
        layer: LayerSettings,
    ) -> ModelOutput:
        """One attempt: call the provider and return its output (latency and cost unset)."""

    def _prepare(self, layer: LayerSettings) -> None:  # noqa: B027 - optional hook
        """Check what the call needs (credentials) before any attempt; raise BadInput."""

    def _is_transient(self, exc: BaseException) -> bool:
        """Whether an attempt's error is worth retrying (rate limit, 5xx, timeout, network)."""
        return isinstance(exc, TimeoutError)

    def endpoint(self) -> tuple:
        """The key of this model's concurrency limit."""
        return (self.spec.provider, self.spec.base_url or "")

    # -- the one policy -----------------------------------------------------------------

    @property
    def capabilities(self) -> Capabilities:
        """What this model accepts (provider + family defaults, with the spec's overrides)."""
        return capabilities(self.spec.provider, self.spec.model, self.spec.settings)

    def _wait(self, layer: LayerSettings) -> Callable[[RetryCallState], float]:
        backoff = wait_exponential_jitter(
            multiplier=layer.retry_wait, max=layer.retry_wait_max, jitter=layer.retry_wait
        )

        def wait(state: RetryCallState) -> float:
            seconds = backoff(state)
            failure = state.outcome.exception() if state.outcome is not None else None
            if failure is not None:
                hint = _retry_after(failure)
                if hint is not None:
                    # A server hint is honoured only within the call's timeout: waiting
                    # longer would stall the caller past what it asked for.
                    left = layer.timeout - (time.monotonic() - state.start_time)
                    if hint > left:
                        raise ModelError(
                            f"{self.name}: the provider asked to retry after {hint:g} s, "
                            f"beyond the call's timeout ({layer.timeout:g} s, {max(left, 0):.3g} s "
                            f"left): {type(failure).__name__} "
                            f"(after {state.attempt_number} attempt"
                            f"{'s' if state.attempt_number != 1 else ''})",
                            spec=self.name,
                            attempts=state.attempt_number,
                        ) from failure
                    seconds = max(seconds, hint)
            return min(seconds, layer.retry_wait_max)

        return wait

    async def generate(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        **settings: Any,
    ) -> ModelOutput:
        """Generate the next assistant turn for `messages`, optionally offering `tools`."""
        merged = {k: v for k, v in {**self.spec.settings, **settings}.items() if v is not None}
        layer, sent = split_settings(merged, self.name)
        check_messages(messages)
        if tools is not None and not isinstance(tools, list):
            raise BadInput("tools must be None or a list of OpenAI function-tool schemas")
        caps = capabilities(self.spec.provider, self.spec.model, merged)
        sent, tools, changes = adapt(caps, sent, tools)
        messages, dropped = adapt_messages(caps, messages)
        changes += dropped
        # What earlier refusals taught for this endpoint and model (this run).
        learned_key = (*self.endpoint(), self.spec.model)
        for known, said in list(_LEARNED.get(learned_key, {}).items()):
            sent, tools, messages, change = apply_fix(known, sent, tools, messages)
            if change:
                changes.append(f"{change}: the provider refused it earlier in this run ({said})")
        # python/ callables are local code that costs nothing: a cached answer would
        # outlive an edit of the file
        cache = active_cache() if self.spec.provider != "python" else None
        cache_key: str | None = None
        if cache is not None:
            cache_key = request_key(
                canonical_request(
                    provider=self.spec.provider,
                    base_url=self.spec.base_url or "",
                    model=self.spec.model,
                    settings=sent,
                    messages=messages,
                    tools=tools,
                )
            )
            looked_up = time.perf_counter()
            hit = await asyncio.to_thread(cache.get, cache_key)
            if hit is not None:
                return await self._answer_from_cache(hit, sent, changes, messages, tools, looked_up)
        self._prepare(layer)
        budget = active_budget()
        if budget is None:
            return await self._send(
                messages, tools, sent, layer, changes, learned_key, cache, cache_key
            )
        worst_in, worst_out = worst_case_tokens(messages, tools, sent)
        held = budget.reserve(f"{self.spec.provider}/{self.spec.model}", worst_in, worst_out)
        output: ModelOutput | None = None
        try:
            output = await self._send(
                messages, tools, sent, layer, changes, learned_key, cache, cache_key
            )
            return output
        finally:  # a failed or cancelled call counts as a call, and frees its reservation
            budget.settle(held, output.usage if output else None, output.cost if output else None)

    async def _send(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        sent: dict[str, Any],
        layer: LayerSettings,
        changes: list[str],
        learned_key: tuple,
        cache: ResponseCache | None,
        cache_key: str | None,
    ) -> ModelOutput:
        """Send the request (retries, one adaptation on refusal), record it, cache it."""
        attempts = 0
        queued = 0.0

        async def attempt() -> ModelOutput:
            nonlocal attempts, queued
            waiting = time.perf_counter()
            async with call_slot(self.endpoint(), layer.concurrency, layer.timeout):
                queued += time.perf_counter() - waiting
                attempts += 1
                async with asyncio.timeout(layer.timeout):
                    return await self._generate(messages, tools, sent, layer)

        started_at = time.time()
        start = time.perf_counter()
        adapted_on_refusal: str | None = None
        while True:
            recorded = _recorded_settings(sent, changes)
            retrying = AsyncRetrying(
                stop=stop_after_attempt(layer.max_retries + 1),
                wait=self._wait(layer),
                retry=retry_if_exception(self._is_transient),
                reraise=True,
            )
            try:
                output: ModelOutput = await retrying(attempt)
                break
            except Exception as exc:
                refused = None if adapted_on_refusal else self._refusal(exc)
                if refused is not None:
                    said, param = refused
                    fix: Fix | None = refusal_fix(said, param, sent, tools, messages)
                    if fix is not None:
                        sent, tools, messages, change = apply_fix(fix, sent, tools, messages)
                        if change:
                            # Retry once; remember it for this endpoint and model.
                            adapted_on_refusal = change
                            changes.append(f"{change}: the provider refused it ({said})")
                            _LEARNED.setdefault(learned_key, {})[fix] = said
                            continue
                latency = time.perf_counter() - start
                if isinstance(exc, BadInput | ModelError):
                    error: Exception = exc
                else:
                    detail = " ".join(str(exc).split()) or "no detail"
                    again = (
                        f" (refused again after adapting the request once: {adapted_on_refusal})"
                        if adapted_on_refusal
                        else ""
                    )
                    error = ModelError(
                        f"{self.name}: {type(exc).__name__}: {detail}{again} "
                        f"(after {attempts} attempt{'s' if attempts != 1 else ''})",
                        spec=self.name,
                        attempts=attempts,
                    )
                await self._record(
                    ModelCallRecord(
                        spec=self.name,
                        settings=recorded,
                        messages=messages,
                        tools=tools,
                        latency=latency,
                        error=str(error),
                        started_at=started_at,
                        attempts=attempts,
                    )
                )
                if error is exc:
                    raise
                raise error from exc

        output.latency = time.perf_counter() - start
        output.queued = round(queued, 6)
        # Off the event loop: the price table's first load and the record's write (a
        # SQLite commit of the whole conversation, now and then a WAL checkpoint) would
        # hold up every other call and gate of the run while they last.
        output.cost = await asyncio.to_thread(self._cost, output)
        answer = output.model_dump(mode="json", exclude={"raw"})
        if cache is not None and cache_key is not None and adapted_on_refusal is None:
            # only an answer to the request the key describes (not one adapted on refusal)
            await asyncio.to_thread(
                cache.put, cache_key, answer, provider=self.spec.provider, model=self.spec.model
            )
        await self._record(
            ModelCallRecord(
                spec=self.name,
                settings=recorded,
                messages=messages,
                tools=tools,
                response=answer,
                usage=output.usage,
                cost=output.cost,
                latency=output.latency,
                started_at=started_at,
                attempts=attempts,
            )
        )
        return output

    async def _answer_from_cache(
        self,
        hit: dict[str, Any],
        sent: dict[str, Any],
        changes: list[str],
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        looked_up: float,
    ) -> ModelOutput:
        """The cached answer as this call's output: its original tokens, no cost, the
        lookup's own time; recorded as a cached call."""
        output = ModelOutput.model_validate(hit)
        output.latency = time.perf_counter() - looked_up
        output.queued = 0.0
        output.cost = 0.0
        recorded = _recorded_settings(sent, changes)
        await self._record(
            ModelCallRecord(
                spec=self.name,
                settings=recorded,
                messages=messages,
                tools=tools,
                response=output.model_dump(mode="json", exclude={"raw"}),
                usage=output.usage,
                cost=0.0,
                latency=output.latency,
                started_at=time.time(),
                attempts=0,
                cached=True,
            )
        )
        return output

    def _refusal(self, exc: BaseException) -> tuple[str, str | None] | None:
        """(message, param) when `exc` is a provider's 400/422 refusing the request, read
        from both providers' error shapes (and a gateway's plain text), else None."""
        status = getattr(exc, "status_code", None)
        if status not in (400, 422):
            return None
        body = getattr(exc, "body", None)
        if isinstance(body, dict) and isinstance(body.get("error"), dict):
            body = body["error"]
        message = body.get("message") if isinstance(body, dict) else None
        if not isinstance(message, str) or not message:
            message = body.get("detail") if isinstance(body, dict) else None
        if not isinstance(message, str) or not message:
            message = str(exc)
        param = body.get("param") if isinstance(body, dict) else None
        return message, param if isinstance(param, str) else None

    def _cost(self, output: ModelOutput) -> float | None:
        cost = estimate_cost(f"{self.spec.provider}/{self.spec.model}", output.usage)
        if cost is None and output.model and output.model != self.spec.model:
            cost = estimate_cost(f"{self.spec.provider}/{output.model}", output.usage)
        return cost

    async def _record(self, record: ModelCallRecord) -> None:
        """Hand `record` to the recorder: a coroutine recorder is awaited, a plain one
        runs in a worker thread (recorders are thread-safe: the store's connections are
        per thread) so that its write never blocks the event loop."""
        if self.recorder is None:
            return
        if inspect.iscoroutinefunction(self.recorder):
            result = self.recorder(record)
        else:
            result = await asyncio.to_thread(self.recorder, record)
        if inspect.isawaitable(result):
            await result
