"""The LinUCB bandit gate: exploit a known tool or explore the unknown set.

Context x = [f, m, s, p] (top-1 feasibility, top-1/top-2 margin, ontology alignment,
historical success prior of unknown-tool exploration). Each arm a keeps A_a (4x4,
initially I) and b_a (initially 0); the gate picks argmax θ̂_aᵀx + α√(xᵀA_a⁻¹x) with
θ̂_a = A_a⁻¹ b_a, and learns with A_a ← A_a + xxᵀ, b_a ← b_a + r x.

Ties are broken at random (a seeded generator whose state persists with the gate), and
an arm that has never been played is played before any comparison (LinUCB's usual
initialisation): with A = I and b = 0 both arms score the same at first, and a fixed
tie-break would never try the unknown arm.

Table A1's alternatives share the interface: `fixed-threshold` exploits exactly when the
top-1 feasibility f reaches a fixed threshold (0.5, the rerank rubric's "partially
matches"); `exploit` and `explore` always play one arm; the LLM-based gate lives in the
agent (it needs a model call).

α follows the paper's schedule (Appendix G): α₀ = 0.8, minus 0.01 per gate step, never
below 0.2; a sliding window of the last 20 tasks' known-tool failures rescales it by a
factor in [0.7, 1.3] (0.7 with no failures, 1.3 when every known-tool task failed, 1.0
while the window is empty).
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

from scigate.agents._records import Arm

ARMS: tuple[Arm, Arm] = ("known", "unknown")
POLICIES = ("linucb", "fixed-threshold", "llm", "exploit", "explore")
FIXED_THRESHOLD = 0.5
TIE = 1e-12


class LinUCBGate:
    """A two-arm LinUCB gate with the paper's α schedule; state round-trips via dicts."""

    def __init__(
        self,
        dim: int = 4,
        *,
        alpha0: float = 0.8,
        decay: float = 0.01,
        alpha_min: float = 0.2,
        window: int = 20,
        scale_range: tuple[float, float] = (0.7, 1.3),
        policy: str = "linucb",
        threshold: float = FIXED_THRESHOLD,
        seed: int = 0,
    ) -> None:
        if policy not in POLICIES:
            raise ValueError(f"unknown gate policy {policy!r}")
        self.dim = dim
        self.alpha0, self.decay, self.alpha_min = alpha0, decay, alpha_min
        self.scale_range = scale_range
        self.policy = policy
        self.threshold = threshold
        self.rng = np.random.default_rng(seed)
        self.plays: dict[str, int] = {a: 0 for a in ARMS}
        # chosen but not yet updated (one task's decisions are rewarded when it ends), so
        # "each arm at least once" also holds among the decisions of the first task
        self.pending: dict[str, int] = {a: 0 for a in ARMS}
        self.A: dict[str, np.ndarray] = {a: np.eye(dim) for a in ARMS}
        self.b: dict[str, np.ndarray] = {a: np.zeros(dim) for a in ARMS}
        self.steps = 0
        self.failures: deque[bool] = deque(maxlen=window)

    # -- α schedule ---------------------------------------------------------------------

    @property
    def base_alpha(self) -> float:
        """α₀ − decay·steps, floored at α_min."""
        return max(self.alpha_min, self.alpha0 - self.decay * self.steps)

    @property
    def failure_rate(self) -> float | None:
        """Known-tool failure rate over the window, None while it is empty."""
        if not self.failures:
            return None
        return sum(self.failures) / len(self.failures)

    @property
    def scale(self) -> float:
        """The window's rescaling factor in scale_range (1.0 with an empty window)."""
        rate = self.failure_rate
        if rate is None:
            return 1.0
        lo, hi = self.scale_range
        return lo + (hi - lo) * rate

    @property
    def alpha(self) -> float:
        """The exploration coefficient in use now."""
        return self.base_alpha * self.scale

    # -- decisions ------------------------------------------------------------------------

    def theta(self, arm: str) -> np.ndarray:
        return np.linalg.solve(self.A[arm], self.b[arm])

    def scores(self, x: np.ndarray | list[float]) -> dict[str, float]:
        """UCB score of each arm for context x."""
        xv = np.asarray(x, dtype=np.float64)
        out: dict[str, float] = {}
        for arm in ARMS:
            a_inv_x = np.linalg.solve(self.A[arm], xv)
            bonus = self.alpha * float(np.sqrt(max(0.0, float(xv @ a_inv_x))))
            out[arm] = float(self.theta(arm) @ xv) + bonus
        return out

    def choose(self, x: np.ndarray | list[float]) -> tuple[Arm, dict[str, float]]:
        """The arm to play for x and the UCB scores: an arm never played first, then the
        higher score, ties at random. `llm` policies decide elsewhere (this returns the
        LinUCB choice for them)."""
        scores = self.scores(x)
        if self.policy == "exploit":
            return "known", scores
        if self.policy == "explore":
            return "unknown", scores
        if self.policy == "fixed-threshold":
            return ("known" if float(x[0]) >= self.threshold else "unknown"), scores
        unplayed = [a for a in ARMS if self.plays[a] + self.pending[a] == 0]
        if unplayed:
            arm = self._pick(unplayed)
            self.pending[arm] += 1
            return arm, scores
        diff = scores["unknown"] - scores["known"]
        if abs(diff) <= TIE:
            return self._pick(list(ARMS)), scores
        return ("unknown" if diff > 0 else "known"), scores

    def _pick(self, arms: list[Arm]) -> Arm:
        return arms[0] if len(arms) == 1 else arms[int(self.rng.integers(len(arms)))]

    def update(self, x: np.ndarray | list[float], arm: str, reward: float) -> None:
        """A ← A + xxᵀ, b ← b + r x for the played arm; one gate step."""
        xv = np.asarray(x, dtype=np.float64)
        self.A[arm] = self.A[arm] + np.outer(xv, xv)
        self.b[arm] = self.b[arm] + float(reward) * xv
        self.plays[arm] = self.plays.get(arm, 0) + 1
        self.pending[arm] = max(0, self.pending.get(arm, 0) - 1)
        self.steps += 1

    def record_task(self, known_failed: bool) -> None:
        """Push one task that used known tools into the failure window."""
        self.failures.append(bool(known_failed))

    # -- persistence ----------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """JSON-able state (A, b, step count, failure window, schedule parameters)."""
        return {
            "dim": self.dim,
            "A": {a: self.A[a].tolist() for a in ARMS},
            "b": {a: self.b[a].tolist() for a in ARMS},
            "steps": self.steps,
            "failures": list(self.failures),
            "window": self.failures.maxlen,
            "alpha0": self.alpha0,
            "decay": self.decay,
            "alpha_min": self.alpha_min,
            "scale_range": list(self.scale_range),
            "plays": dict(self.plays),
            "rng": self.rng.bit_generator.state,
        }

    def load_state(self, state: dict[str, Any]) -> None:
        """Restore what `state()` returned."""
        self.dim = int(state.get("dim", self.dim))
        self.A = {a: np.asarray(state["A"][a], dtype=np.float64) for a in ARMS}
        self.b = {a: np.asarray(state["b"][a], dtype=np.float64) for a in ARMS}
        self.steps = int(state.get("steps", 0))
        # states saved before play counts were kept: an arm whose A moved has been played
        self.plays = {
            a: int(state.get("plays", {}).get(a, int(not np.allclose(self.A[a], np.eye(self.dim)))))
            for a in ARMS
        }
        if "rng" in state:
            self.rng.bit_generator.state = state["rng"]
        self.alpha0 = float(state.get("alpha0", self.alpha0))
        self.decay = float(state.get("decay", self.decay))
        self.alpha_min = float(state.get("alpha_min", self.alpha_min))
        lo, hi = state.get("scale_range", self.scale_range)
        self.scale_range = (float(lo), float(hi))
        self.failures = deque(
            (bool(f) for f in state.get("failures", [])),
            maxlen=int(state.get("window", self.failures.maxlen or 20)),
        )
