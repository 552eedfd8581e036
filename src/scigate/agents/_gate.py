"""The LinUCB bandit gate: exploit a known tool or explore the unknown set.

Context x = [f, m, s, p] (top-1 feasibility, top-1/top-2 margin, ontology alignment,
historical success prior of unknown-tool exploration). Each arm a keeps A_a (4x4,
initially I) and b_a (initially 0); the gate picks argmax θ̂_aᵀx + α√(xᵀA_a⁻¹x) with
θ̂_a = A_a⁻¹ b_a, and learns with A_a ← A_a + xxᵀ, b_a ← b_a + r x.

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
    ) -> None:
        if policy not in ("linucb", "exploit", "explore"):
            raise ValueError(f"unknown gate policy {policy!r}")
        self.dim = dim
        self.alpha0, self.decay, self.alpha_min = alpha0, decay, alpha_min
        self.scale_range = scale_range
        self.policy = policy
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
        out = {}
        for arm in ARMS:
            a_inv_x = np.linalg.solve(self.A[arm], xv)
            bonus = self.alpha * float(np.sqrt(max(0.0, float(xv @ a_inv_x))))
            out[arm] = float(self.theta(arm) @ xv) + bonus
        return out

    def choose(self, x: np.ndarray | list[float]) -> tuple[Arm, dict[str, float]]:
        """The arm to play for x (ties go to exploiting the known graph) and the scores."""
        scores = self.scores(x)
        if self.policy == "exploit":
            return "known", scores
        if self.policy == "explore":
            return "unknown", scores
        arm: Arm = "unknown" if scores["unknown"] > scores["known"] else "known"
        return arm, scores

    def update(self, x: np.ndarray | list[float], arm: str, reward: float) -> None:
        """A ← A + xxᵀ, b ← b + r x for the played arm; one gate step."""
        xv = np.asarray(x, dtype=np.float64)
        self.A[arm] = self.A[arm] + np.outer(xv, xv)
        self.b[arm] = self.b[arm] + float(reward) * xv
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
        }

    def load_state(self, state: dict[str, Any]) -> None:
        """Restore what `state()` returned."""
        self.dim = int(state.get("dim", self.dim))
        self.A = {a: np.asarray(state["A"][a], dtype=np.float64) for a in ARMS}
        self.b = {a: np.asarray(state["b"][a], dtype=np.float64) for a in ARMS}
        self.steps = int(state.get("steps", 0))
        self.alpha0 = float(state.get("alpha0", self.alpha0))
        self.decay = float(state.get("decay", self.decay))
        self.alpha_min = float(state.get("alpha_min", self.alpha_min))
        lo, hi = state.get("scale_range", self.scale_range)
        self.scale_range = (float(lo), float(hi))
        self.failures = deque(
            (bool(f) for f in state.get("failures", [])),
            maxlen=int(state.get("window", self.failures.maxlen or 20)),
        )
