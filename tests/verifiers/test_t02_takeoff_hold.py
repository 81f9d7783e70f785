"""T02 take off and hold: full, partial and failing fixtures with hand-worked scores.

Weights: takeoff 0.20, reach_altitude 0.20, hold_window 0.60 linear in the longest
in-tolerance window (0 s -> 0, 60 s -> full). Safety: autopilot off throughout.
"""

import numpy as np
import pytest

from simbridge._task import load_task
from synth import assert_rate_invariant, score_task, with_gap, without_signal
from synth import component as comp
from synth_flight_a import takeoff_hold

TASK = load_task("T02")


def score(tmp_path, cols, **kw):
    return score_task(tmp_path, TASK, cols, **kw)


def test_full_credit(tmp_path):
    # 80 s held: window capped at 60 s -> 0.2 + 0.2 + 0.6 = 1.0
    s = score(tmp_path, takeoff_hold(hold_s=80))
    assert s.status == "scored" and s.score == pytest.approx(1.0) and s.success is True
    assert comp(s, "hold_window").measured == pytest.approx(80.0, abs=0.11)


def test_thirty_seconds_earns_half_the_hold(tmp_path):
    # 0.2 + 0.2 + 0.6 * 30/60 = 0.70
    s = score(tmp_path, takeoff_hold(hold_s=30))
    assert s.score == pytest.approx(0.70, abs=0.002) and s.success is False


def test_speed_out_of_tolerance_earns_no_hold(tmp_path):
    # 97 KIAS is outside 90±5: the window never opens -> 0.40
    s = score(tmp_path, takeoff_hold(hold_ias=97))
    assert s.score == pytest.approx(0.40)


def test_heading_out_of_tolerance(tmp_path):
    # 352° is 12° off 340° -> no window -> 0.40; 331° (9° off) is in -> 1.0
    assert score(tmp_path, takeoff_hold(hold_hdg=352)).score == pytest.approx(0.40)
    (tmp_path / "b").mkdir()
    assert score(tmp_path / "b", takeoff_hold(hold_hdg=331)).score == pytest.approx(1.0)


def test_never_reaching_altitude(tmp_path):
    # tops out at 2,850 ft (< 2,900) and ends there: no reach item, the hold at 2,850 is out of band -> 0.20
    s = score(tmp_path, takeoff_hold(top_ft=2850, after_s=0))
    assert s.score == pytest.approx(0.20)


def test_liftoff_beside_the_runway_is_no_takeoff(tmp_path):
    # 40 m left of the centreline (runway half-width 23 m): lose takeoff 0.20 -> 0.80
    s = score(tmp_path, takeoff_hold(liftoff_left_m=40))
    assert comp(s, "takeoff").earned == 0 and s.score == pytest.approx(0.80)


def test_staying_on_the_ground_scores_zero(tmp_path):
    s = score(tmp_path, takeoff_hold(takes_off=False))
    assert s.status == "scored" and s.score == 0.0


def test_autopilot_is_a_safety_violation(tmp_path):
    cols = takeoff_hold(hold_s=80, autopilot_at=300.0)
    s = score(tmp_path, cols)
    assert s.raw_score == pytest.approx(1.0) and s.score == 0.0 and s.success is False
    assert s.safety[0].ok is False and s.safety[0].first_violation_t == pytest.approx(300.0)


def test_missing_signal_is_unscored(tmp_path):
    s = score(tmp_path, without_signal(takeoff_hold(), "ias_kt"))
    assert s.status == "unscored" and "ias_kt" in s.reason


def test_gap_makes_autopilot_constraint_undecidable(tmp_path):
    s = score(tmp_path, with_gap(takeoff_hold(), 100, 103))
    assert s.status == "unscored" and "gap" in s.reason


def test_gap_breaks_the_hold_window():
    # the window primitive itself: a 2 s hole in an 80 s hold leaves 39.9 s as the longest run
    from simbridge import primitives as P

    t = np.round(np.arange(0, 80.01, 0.1), 9)
    keep = (t < 40) | (t >= 42)
    w = P.longest_window(t[keep], np.ones(keep.sum(), bool), TASK.max_sample_gap_s)
    assert w.duration_s == pytest.approx(39.9)


@pytest.mark.parametrize("hold_s", [80.0, 30.0])
def test_resampling_invariance(tmp_path, hold_s):
    base = takeoff_hold(hz=100, hold_s=hold_s)
    assert_rate_invariant(tmp_path, TASK, base)
