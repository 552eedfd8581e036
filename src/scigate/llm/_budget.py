"""Spend, token and call budgets over every model call of a run.

Before a call is sent, its worst case is reserved: its input at one token per UTF-8 byte
of the messages and tools (a byte-level BPE token covers at least one byte, so this
bounds any tokenizer the providers use) plus a few tokens per message, and its output at
the request's ``max_tokens``/``max_completion_tokens`` (`DEFAULT_WORST_OUTPUT` when the
request sets none), priced at the model's list price. When spent + reserved + that worst
case would pass a budget, the call is not sent: `BudgetExceeded` stops the run. After
the call the reservation is replaced by what the call really used and cost, so the
spend never passes the budget (for a request without a max_tokens, as long as its answer
stays within `DEFAULT_WORST_OUTPUT`). A call answered from the response cache costs
nothing and is not counted.

A budget covers the calls of this process (`spending_limit`); a run resumed with a
higher budget counts what it spends from then on.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from scigate.errors import BadInput, BudgetExceeded
from scigate.llm._prices import estimate_cost
from scigate.llm._types import Usage

DEFAULT_WORST_OUTPUT = 16_384  # output tokens reserved for a request without max_tokens
PER_MESSAGE_TOKENS = 8  # role and separators, over what the text takes


def worst_case_tokens(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, settings: dict[str, Any]
) -> tuple[int, int]:
    """(input, output) tokens this request can use at most (see the module docstring)."""
    text = json.dumps(messages, ensure_ascii=False, default=str)
    if tools:
        text += json.dumps(tools, ensure_ascii=False, default=str)
    worst_in = len(text.encode()) + PER_MESSAGE_TOKENS * (len(messages) + 2)
    cap = settings.get("max_completion_tokens") or settings.get("max_tokens")
    worst_out = int(cap) if isinstance(cap, int | float) and cap > 0 else DEFAULT_WORST_OUTPUT
    return worst_in, worst_out


@dataclass
class Reservation:
    """One call's share of the budget while it is in flight."""

    tokens: int
    cost: float


@dataclass
class Budget:
    """Limits over a run's model calls (None: no limit) and what was spent against them."""

    max_cost: float | None = None  # USD
    max_tokens: int | None = None  # input + output, all models
    max_calls: int | None = None
    allow_unpriced: bool = False  # with max_cost: an unpriced model's calls count as 0 USD
    cost: float = 0.0
    tokens: int = 0
    calls: int = 0
    unpriced_calls: int = 0
    _reserved_cost: float = 0.0
    _reserved_tokens: int = 0
    _in_flight: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        for name in ("max_cost", "max_tokens", "max_calls"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                flag = "--" + name.replace("_", "-")
                raise BadInput(f"{flag} must be a positive number, got {value}")

    @property
    def limited(self) -> bool:
        """Whether any limit is set."""
        return any(v is not None for v in (self.max_cost, self.max_tokens, self.max_calls))

    def spent(self) -> dict[str, float]:
        """What the finished calls used: calls, tokens, USD, and unpriced calls."""
        return {
            "calls": self.calls,
            "tokens": self.tokens,
            "cost": round(self.cost, 6),
            "unpriced_calls": self.unpriced_calls,
        }

    def check_priced(self, model: str) -> None:
        """BadInput when a cost budget is set, `model` has no price, and unpriced models
        were not allowed: the budget could not be kept."""
        if self.max_cost is None or self.allow_unpriced:
            return
        if estimate_cost(model, Usage(input_tokens=1, output_tokens=1)) is None:
            self._refuse_unpriced(model)

    def _refuse_unpriced(self, model: str) -> None:
        if self.max_cost is not None and not self.allow_unpriced:
            raise BadInput(
                f"--max-cost needs a price for {model}, and it has none (genai-prices, "
                "$SCIGATE_PRICES); add --allow-unpriced to count its calls as 0 USD"
            )

    def reserve(self, model: str, worst_in: int, worst_out: int) -> Reservation:
        """Hold the worst case of the next call; `BudgetExceeded` when it could pass a
        budget (nothing is held then)."""
        worst_cost = estimate_cost(model, Usage(input_tokens=worst_in, output_tokens=worst_out))
        if worst_cost is None:
            self._refuse_unpriced(model)
            worst_cost = 0.0
        with self._lock:
            calls = self.calls + self._in_flight + 1
            tokens = self.tokens + self._reserved_tokens + worst_in + worst_out
            cost = self.cost + self._reserved_cost + worst_cost
            if self.max_calls is not None and calls > self.max_calls:
                self._stop("calls", f"--max-calls {self.max_calls} reached")
            if self.max_tokens is not None and tokens > self.max_tokens:
                self._stop(
                    "tokens",
                    f"--max-tokens {self.max_tokens} could be passed by the next call "
                    f"(up to {worst_in + worst_out} tokens)",
                )
            if self.max_cost is not None and cost > self.max_cost:
                self._stop(
                    "cost",
                    f"--max-cost {self.max_cost:g} USD could be passed by the next call "
                    f"(up to {worst_cost:.4g} USD)",
                )
            self._in_flight += 1
            self._reserved_tokens += worst_in + worst_out
            self._reserved_cost += worst_cost
            return Reservation(tokens=worst_in + worst_out, cost=worst_cost)

    def settle(self, held: Reservation, usage: Usage | None, cost: float | None) -> None:
        """Replace a call's reservation by what it used (None usage: a failed call, which
        counts as a call and nothing else)."""
        with self._lock:
            self._in_flight -= 1
            self._reserved_tokens -= held.tokens
            self._reserved_cost -= held.cost
            self.calls += 1
            if usage is not None:
                self.tokens += usage.input_tokens + usage.output_tokens
                if cost is None:
                    self.unpriced_calls += 1
                else:
                    self.cost += cost

    def _stop(self, which: str, why: str) -> None:
        spent = self.spent()
        raise BudgetExceeded(
            which,
            f"budget: {why}; spent {spent['cost']:.4g} USD, {spent['tokens']} tokens in "
            f"{spent['calls']} calls. What finished is kept: continue with --resume and a "
            "higher budget",
            spent,
        )


_ACTIVE: Budget | None = None
_ACTIVE_LOCK = threading.Lock()


def active_budget() -> Budget | None:
    """The budget model calls of this process count against now, if any."""
    return _ACTIVE


@contextlib.contextmanager
def spending_limit(budget: Budget | None) -> Iterator[Budget | None]:
    """Within the block every model call of this process counts against `budget` (None or
    an unlimited budget: no limit)."""
    global _ACTIVE
    if budget is None or not budget.limited:
        yield budget
        return
    with _ACTIVE_LOCK:
        previous, _ACTIVE = _ACTIVE, budget
    try:
        yield budget
    finally:
        with _ACTIVE_LOCK:
            _ACTIVE = previous
