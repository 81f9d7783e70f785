"""T09 steep turn: full, partial and failing fixtures with hand-worked scores."""

import pytest

from simbridge._task import load_task
from synth import assert_rate_invariant, component, score_task, steep_turn, with_gap, without_signal

TASK = load_task("T09")


def score(tmp_path, cols, **ep):
    return score_task(tmp_path, TASK, cols, **ep)


def test_clean_turn_full_credit(tmp_path):
    s = score(tmp_path, steep_turn())
    assert s.status == "scored"
    assert s.score == pytest.approx(1.0)
    assert s.success is True
    rollout = component(s, "rollout_heading")
    assert rollout.measured == pytest.approx(360, abs=3)


def test_altitude_loss_loses_altitude_credit(tmp_path):
    # sags 150 ft mid-turn: loses altitude (0.30); everything else held -> 0.70
    s = score(tmp_path, steep_turn(alt_wobble_ft=-150))
    assert s.score == pytest.approx(0.70)
    assert s.success is False
    alt = component(s, "altitude_held")
    # entry is the last wings-level sample (0.45 s into the roll-in), already ~5 ft into the sag
    assert alt.earned == 0 and 140 <= alt.measured <= 150


def test_shallow_bank_and_short_turn(tmp_path):
    # 35° bank: out of the 40-50 band; the bank is the maneuver (primary): 0 whatever else held
    s = score(tmp_path, steep_turn(bank_deg=35, turn_deg=300))
    assert s.score == 0.0 and s.raw_score == pytest.approx(0.5 * 300 / 350, abs=2e-3)
    assert "primary goal failed: bank_maintained" in s.explanation


def test_right_turn_and_nothing_earn_zero(tmp_path):
    s = score(tmp_path, steep_turn(direction="right"))
    assert s.score == 0.0
    (tmp_path / "b").mkdir()
    flat = steep_turn(bank_deg=0.0, turn_deg=0.0)
    s = score(tmp_path / "b", flat)
    assert s.score == 0.0 and s.status == "scored"


@pytest.mark.parametrize("turn_deg", [40.0, 170.0])
def test_a_bank_that_turns_less_than_half_a_circle_earns_nothing(tmp_path, turn_deg):
    """45° of bank held level for a few seconds, then wings level: altitude, airspeed and bank
    were all "held", but no steep turn was flown (the shortcut a do-nothing FlightGear air start
    drifting past 30° of bank found: 0.5 for nothing)."""
    s = score(tmp_path, steep_turn(turn_deg=turn_deg))
    assert s.status == "scored" and s.score == 0.0, s.explanation
    rollout = component(s, "rollout_heading")
    assert rollout.measured == pytest.approx(turn_deg, abs=5)
    assert "not a steep turn" in rollout.explanation


def test_a_turn_past_half_a_circle_is_judged(tmp_path):
    # 200° at 45° with altitude and airspeed held: bank, altitude and airspeed (0.8) worth the
    # part of the turn flown (200 of the 350° that count as the whole turn), no rollout
    s = score(tmp_path, steep_turn(turn_deg=200.0))
    turned = component(s, "rollout_heading").measured
    assert 195 <= turned <= 205
    assert s.score == pytest.approx(0.80 * turned / 350, abs=1e-4)
    assert component(s, "rollout_heading").earned == 0


def test_autopilot_on_is_a_safety_violation(tmp_path):
    s = score(tmp_path, steep_turn(autopilot=1.0))
    assert s.raw_score == pytest.approx(1.0)
    assert s.score == 0.0 and s.success is False
    assert s.safety[0].ok is False and s.safety[0].first_violation_t == 0.0


def test_gap_inside_turn_is_unscored(tmp_path):
    s = score(tmp_path, with_gap(steep_turn(), 20, 22))
    assert s.status == "unscored" and "gap" in s.reason and s.score is None


def test_missing_signal_is_unscored(tmp_path):
    s = score(tmp_path, without_signal(steep_turn(), "ias_kt"))
    assert s.status == "unscored" and "ias_kt" in s.reason


def test_harness_fault_is_unscored(tmp_path):
    s = score(tmp_path, steep_turn(), status="sim_crashed", status_detail="fgfs exited with 139")
    assert s.status == "unscored" and "harness fault" in s.reason


@pytest.mark.parametrize("wobble", [0.0, -150.0])
def test_resampling_invariance(tmp_path, wobble):
    base = steep_turn(hz=100, alt_wobble_ft=wobble, bank_wobble_deg=4.0)
    assert_rate_invariant(tmp_path, TASK, base)
