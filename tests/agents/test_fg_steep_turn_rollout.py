"""The T09 FlightGear pilot's roll-out plan: the heading a steady roll to wings level still
turns (checked against a step-by-step coordinated turn), and the roll rate asked for to end
on the entry heading is its inverse within the allowed range."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simbridge.adapters.flightgear.pilots._steep_turn import (
    ROLLOUT_RATE_RANGE_DEG_S,
    rollout_roll_rate_deg_s,
    rollout_turn_deg,
)

G_MS2 = 9.80665


def _simulated_turn_deg(bank_deg: float, tas_ms: float, roll_rate_deg_s: float, dt_s: float = 1e-3) -> float:
    """Heading change of a coordinated turn (rate g tan(bank) / V) while the bank runs to 0."""
    bank, turned = abs(bank_deg), 0.0
    while bank > 0:
        turned += math.degrees(G_MS2 * math.tan(math.radians(bank)) / tas_ms) * dt_s
        bank -= roll_rate_deg_s * dt_s
    return turned


@pytest.mark.parametrize(("bank_deg", "roll_deg_s"), [(-45.0, 8.0), (-45.0, 15.0), (-30.0, 5.0), (-50.0, 10.0)])
def test_the_planned_rollout_turn_matches_a_coordinated_turn_rolled_level_step_by_step(bank_deg, roll_deg_s):
    tas_ms = 45.0  # about 84 KIAS at 3,400 ft
    rate = math.degrees(G_MS2 * math.tan(math.radians(abs(bank_deg))) / tas_ms)
    planned = rollout_turn_deg(bank_deg, rate, roll_deg_s)
    assert planned == pytest.approx(_simulated_turn_deg(bank_deg, tas_ms, roll_deg_s), rel=0.01)


def test_at_45_degrees_and_8_deg_s_the_rollout_turns_about_thirty_degrees():
    # 12.4°/s at 45° bank (84 kt): ln(1/cos 45°) / 8°/s in radians = 2.48 s of that rate
    assert rollout_turn_deg(-45.0, 12.4, 8.0) == pytest.approx(30.8, abs=0.2)
    assert rollout_turn_deg(0.0, 0.0, 8.0) == 0.0


@settings(derandomize=True, max_examples=60, deadline=None)
@given(
    bank=st.floats(min_value=10.0, max_value=60.0),
    rate=st.floats(min_value=2.0, max_value=20.0),
    left=st.floats(min_value=1.0, max_value=90.0),
)
def test_the_asked_roll_rate_ends_the_turn_where_asked_or_is_held_to_its_range(bank, rate, left):
    lo, hi = ROLLOUT_RATE_RANGE_DEG_S
    p = rollout_roll_rate_deg_s(-bank, rate, left)
    assert lo <= p <= hi
    if lo < p < hi:
        assert rollout_turn_deg(-bank, rate, p) == pytest.approx(left, rel=1e-6)
    elif p == hi:  # too little left: roll as fast as allowed (it turns at least as far as asked)
        assert rollout_turn_deg(-bank, rate, hi) >= left - 1e-6
    else:
        assert rollout_turn_deg(-bank, rate, lo) <= left + 1e-6


def test_nothing_left_asks_for_the_fastest_roll():
    assert rollout_roll_rate_deg_s(-45.0, 12.0, 0.0) == ROLLOUT_RATE_RANGE_DEG_S[1]
    assert rollout_roll_rate_deg_s(-45.0, 12.0, -5.0) == ROLLOUT_RATE_RANGE_DEG_S[1]
