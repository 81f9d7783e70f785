"""T16 radios and transponder: full, partial and failing fixtures with hand-worked scores."""

import numpy as np
import pytest

from simbridge._task import load_task
from synth import assert_rate_invariant, score_task, without_signal
from synth_flight_b import radio_session

TASK = load_task("T16")
START = {
    "com1_mhz": 118.600,
    "com1_stby_mhz": 120.050,
    "nav1_mhz": 110.500,
    "xpdr_code": 1200,
    "xpdr_mode": 1,
    "baro_inhg": 30.12,
}
GOAL = {
    "com1_mhz": 125.000,
    "com1_stby_mhz": 118.600,
    "nav1_mhz": 114.100,
    "xpdr_code": 4521,
    "xpdr_mode": 3,
    "baro_inhg": 29.92,
}
WHEN = {"com1_mhz": 20, "com1_stby_mhz": 25, "nav1_mhz": 40, "xpdr_code": 60, "xpdr_mode": 65, "baro_inhg": 80}


def score(tmp_path, cols):
    return score_task(tmp_path, TASK, cols)


def session(**final):
    return radio_session(start=START, final={**GOAL, **final}, set_at=WHEN)


def test_everything_set_full_credit(tmp_path):
    s = score(tmp_path, session())
    assert s.status == "scored" and s.score == pytest.approx(1.0) and s.success is True


def test_swapped_com_and_standby_transponder(tmp_path):
    # COM1 active/standby swapped (-0.40) and transponder left in STBY (-0.25): 0.20 + 0.15 = 0.35
    s = score(tmp_path, session(com1_mhz=118.600, com1_stby_mhz=125.000, xpdr_mode=1))
    assert s.score == pytest.approx(0.35) and s.success is False


def test_wrong_nav_and_baro(tmp_path):
    # NAV1 one channel off 114.150 (-0.20), baro 29.91 (-0.15): 0.40 + 0.25 = 0.65
    s = score(tmp_path, session(nav1_mhz=114.150, baro_inhg=29.91))
    assert s.score == pytest.approx(0.65)


def test_intermediate_value_does_not_count(tmp_path):
    # COM1 passed through 125.000 while turning the knob, but ended on 125.025: only the final
    # state counts -> 1 - 0.40 = 0.60
    cols = session()
    t = cols["t"]
    cols["com1_mhz"] = np.where(t < 20, 118.6, np.where(t < 30, 125.0, 125.025))
    s = score(tmp_path, cols)
    assert s.score == pytest.approx(0.60)


def test_nothing_changed_earns_nothing(tmp_path):
    s = score(tmp_path, radio_session(start=START, final=START, set_at={}))
    assert s.status == "scored" and s.score == 0.0


def test_stale_final_state_is_unscored(tmp_path):
    cols = session()
    cols["nav1_mhz"] = np.where(cols["t"] > 100, np.nan, cols["nav1_mhz"])
    s = score(tmp_path, cols)
    assert s.status == "unscored" and "nav1_mhz" in s.reason


def test_missing_signal_is_unscored(tmp_path):
    s = score(tmp_path, without_signal(session(), "xpdr_mode"))
    assert s.status == "unscored" and "xpdr_mode" in s.reason


def test_resampling_invariance(tmp_path):
    base = radio_session(hz=100, start=START, final={**GOAL, "nav1_mhz": 114.150}, set_at=WHEN)
    scores = assert_rate_invariant(tmp_path, TASK, base)
    assert scores[0] == pytest.approx(0.80), scores
