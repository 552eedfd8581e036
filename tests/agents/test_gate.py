import numpy as np
import pytest

from scigate.agents import LinUCBGate


def test_linucb_matches_hand_computation():
    gate = LinUCBGate()
    x1, x2 = np.array([1.0, 0.5, 0.0, 0.5]), np.array([0.0, 1.0, 1.0, 0.0])
    gate.update(x1, "known", 1)
    gate.update(x2, "known", 0)
    gate.update(x2, "unknown", 1)
    A_known = np.eye(4) + np.outer(x1, x1) + np.outer(x2, x2)
    b_known = x1.copy()
    A_unknown = np.eye(4) + np.outer(x2, x2)
    b_unknown = x2.copy()
    np.testing.assert_allclose(gate.A["known"], A_known)
    np.testing.assert_allclose(gate.b["known"], b_known)
    np.testing.assert_allclose(gate.A["unknown"], A_unknown)
    x = np.array([0.5, 0.25, 0.75, 0.5])
    alpha = 0.8 - 3 * 0.01
    assert gate.alpha == pytest.approx(alpha)
    expect = {}
    for arm, A, b in (("known", A_known, b_known), ("unknown", A_unknown, b_unknown)):
        inv = np.linalg.inv(A)
        expect[arm] = (inv @ b) @ x + alpha * np.sqrt(x @ inv @ x)
    scores = gate.scores(x)
    assert scores["known"] == pytest.approx(expect["known"])
    assert scores["unknown"] == pytest.approx(expect["unknown"])
    arm, _ = gate.choose(x)
    assert arm == max(expect, key=expect.get)


def test_fixed_policies():
    x = [0.5, 0.5, 0.5, 0.5]
    s = LinUCBGate().scores(x)
    assert s["known"] == pytest.approx(s["unknown"]) == pytest.approx(0.8 * 1.0)
    assert LinUCBGate(policy="explore").choose(x)[0] == "unknown"
    assert LinUCBGate(policy="exploit").choose(x)[0] == "known"
    with pytest.raises(ValueError):
        LinUCBGate(policy="random")


def test_an_arm_never_played_is_played_first():
    gate = LinUCBGate()
    x = [0.5, 0.5, 0.2, 0.2]
    for _ in range(5):
        gate.update(x, "known", 1)  # the known arm now scores far higher
    scores = gate.scores(x)
    assert scores["known"] > scores["unknown"]
    assert gate.choose(x)[0] == "unknown"
    gate.update(x, "unknown", 0)
    assert gate.choose(x)[0] == "known"  # both played: the higher score wins


def test_ties_break_at_random_and_reproducibly():
    def played(seed: int) -> list[str]:
        gate = LinUCBGate(seed=seed)
        gate.update([0, 0, 0, 0], "known", 0)  # both arms played, A and b untouched
        gate.update([0, 0, 0, 0], "unknown", 0)
        x = [0.5, 0.5, 0.5, 0.5]
        assert gate.scores(x)["known"] == pytest.approx(gate.scores(x)["unknown"])
        return [gate.choose(x)[0] for _ in range(40)]

    first = played(0)
    assert set(first) == {"known", "unknown"}  # a fixed tie-break would give one arm only
    assert played(0) == first
    assert played(1) != first


def test_fixed_threshold_gate_matches_hand_computation():
    gate = LinUCBGate(policy="fixed-threshold", threshold=0.5)
    for _ in range(5):  # LinUCB would now prefer the unknown arm; the threshold ignores it
        gate.update([0.9, 0.5, 0.5, 0.5], "unknown", 1)
        gate.update([0.9, 0.5, 0.5, 0.5], "known", 0)
    cases = [
        ([0.5, 0.0, 0.0, 0.9], "known"),
        ([0.49, 1, 1, 0.1], "unknown"),
        ([1, 0, 0, 0], "known"),
    ]
    for x, want in cases:
        assert gate.choose(x)[0] == ("known" if x[0] >= 0.5 else "unknown") == want
    assert LinUCBGate().choose([0.9, 0.5, 0.5, 0.5]) is not None


def test_learning_moves_the_choice():
    gate = LinUCBGate()
    x = [0.25, 0.5, 0.25, 0.5]
    for _ in range(5):
        gate.update(x, "known", 0)
        gate.update(x, "unknown", 1)
    assert gate.choose(x)[0] == "unknown"


def test_alpha_decay_floor_and_window():
    gate = LinUCBGate()
    assert gate.alpha == pytest.approx(0.8)
    for _ in range(10):
        gate.update([0, 0, 0, 0], "known", 0)
    assert gate.base_alpha == pytest.approx(0.7)
    for _ in range(200):
        gate.update([0, 0, 0, 0], "known", 0)
    assert gate.base_alpha == pytest.approx(0.2)
    assert gate.alpha == pytest.approx(0.2)  # empty window: scale 1
    gate.record_task(known_failed=False)
    assert gate.scale == pytest.approx(0.7)
    gate.record_task(known_failed=True)
    assert gate.scale == pytest.approx(1.0)
    for _ in range(20):
        gate.record_task(known_failed=True)
    assert len(gate.failures) == 20
    assert gate.scale == pytest.approx(1.3)
    assert gate.alpha == pytest.approx(0.26)
    for _ in range(20):
        gate.record_task(known_failed=False)
    assert gate.scale == pytest.approx(0.7)


def test_state_round_trip():
    gate = LinUCBGate()
    gate.update([1, 0, 0.5, 0.5], "unknown", 1)
    gate.record_task(True)
    other = LinUCBGate()
    other.load_state(gate.state())
    np.testing.assert_allclose(other.A["unknown"], gate.A["unknown"])
    np.testing.assert_allclose(other.b["unknown"], gate.b["unknown"])
    assert other.steps == 1 and list(other.failures) == [True] and other.alpha == gate.alpha
    assert other.plays == {"known": 0, "unknown": 1}
    x = [0.5, 0.5, 0.5, 0.5]
    other.update([0, 0, 0, 0], "known", 0)
    gate.update([0, 0, 0, 0], "known", 0)
    other.load_state(gate.state())  # the tie-breaking generator's state travels too
    assert [other.choose(x)[0] for _ in range(10)] == [gate.choose(x)[0] for _ in range(10)]
