"""T12 R22 hover: full, partial and failing fixtures with hand-worked scores."""

import pytest

from simbridge._task import load_task
from synth import assert_rate_invariant, score_task, with_gap, without_signal
from synth import component as comp
from synth_flight_b import KLVK_H1, ground, hover

TASK = load_task("T12")


def score(tmp_path, cols):
    return score_task(tmp_path, TASK, cols)


def test_long_hover_and_pad_landing_full_credit(tmp_path):
    # skids at 7.5 ft for 40 s (+ the parts of climb/descent above 5 ft) ≥ 30 s -> 0.70; landing
    # on the centre -> 0.30; total 1.0. The sensor reads 3.5 ft high: 11 ft raw, 7.5 ft skids.
    s = score(tmp_path, hover(hover_s=40))
    assert s.status == "scored" and s.score == pytest.approx(1.0) and s.success is True
    assert comp(s, "hover_window").measured == pytest.approx(43.3, abs=0.1)


def test_short_hover_is_scaled_linearly(tmp_path):
    # window at 20 Hz: climb part 13.35-15.0 s (1.65 s, skids ≥ 5 ft from 3.33 s into the 5 s
    # climb), 15 s hover, descent part 1.65 s -> 18.3 s; 0.70 × 18.3/30 = 0.427; + 0.30 landing = 0.727
    s = score(tmp_path, hover(hover_s=15))
    assert comp(s, "hover_window").measured == pytest.approx(18.3, abs=0.01)
    assert s.score == pytest.approx(0.70 * 18.3 / 30 + 0.30, abs=1e-3)
    assert s.success is False


def test_landing_off_the_pad(tmp_path):
    # full hover (0.70) but set down 15 m east of the centre, off the 18 m pad: the hover is worth
    # half without the landing on the pad -> 0.35 (was 0.70)
    s = score(tmp_path, hover(hover_s=40, land_offset_m=(15.0, 0.0)))
    assert s.score == pytest.approx(0.35)
    assert comp(s, "landing_on_pad").earned == 0


def test_hover_outside_the_box_earns_only_the_landing(tmp_path):
    # hovering 4.2 m north of the centre (radius 3 m): only the moments while climbing out to /
    # coming back from 4.2 m count. Climb: skids ≥ 5 ft from a = 3.33 s, distance 4.2·a/5 ≤ 3 m
    # until 3.571 s -> 20 Hz samples 3.35-3.55 s = 0.20 s (the descent mirrors it).
    # 0.70 × 0.20/30 = 0.0047 + 0.30 landing = 0.3047
    s = score(tmp_path, hover(hover_s=40, offset_m=(0.0, 4.2), drift_m=0.5))
    assert comp(s, "hover_window").measured == pytest.approx(0.20, abs=0.01)
    assert s.score == pytest.approx(0.30 + 0.70 * 0.20 / 30, abs=1e-4)


def test_hover_too_high_and_nothing_else(tmp_path):
    # skids at 12 ft (above 10), landed 20 m away: only the 5-10 ft transit of the climb counts,
    # a = 2.083-4.167 s of the 12 ft/5 s climb -> samples 2.10-4.15 s = 2.05 s;
    # 0.70 × 2.05/30 = 0.0478, worth half with no landing on the pad, landing 0
    s = score(tmp_path, hover(hover_s=40, skid_ft=12.0, land_offset_m=(20.0, 0.0)))
    assert s.status == "scored" and s.score == pytest.approx(0.5 * 0.70 * 2.05 / 30, abs=1e-4)
    assert comp(s, "landing_on_pad").earned == 0


def test_sitting_on_the_pad_earns_nothing(tmp_path):
    # never lifts off: no hover and no landing (the start on the pad is not a landing) -> 0
    cols = ground(hz=20, seconds=60, lat_deg=KLVK_H1[0], lon_deg=KLVK_H1[1], alt_agl_ft=3.5, crashed=0.0)
    s = score(tmp_path, cols)
    assert s.status == "scored" and s.score == 0.0


def test_damage_flag_is_a_safety_violation(tmp_path):
    s = score(tmp_path, hover(hover_s=40, crash_at=62.0))
    assert s.raw_score == pytest.approx(1.0)
    assert s.score == 0.0 and s.success is False
    assert s.safety[0].ok is False and s.safety[0].first_violation_t == pytest.approx(62.0)


def test_gap_inside_the_hover_is_unscored(tmp_path):
    s = score(tmp_path, with_gap(hover(hover_s=40), 30, 31))
    assert s.status == "unscored" and "gap" in s.reason


def test_missing_signal_is_unscored(tmp_path):
    s = score(tmp_path, without_signal(hover(), "alt_agl_ft"))
    assert s.status == "unscored" and "alt_agl_ft" in s.reason


@pytest.mark.parametrize("hover_s", [40.0, 15.0])
def test_resampling_invariance(tmp_path, hover_s):
    base = hover(hz=100, hover_s=hover_s)
    assert_rate_invariant(tmp_path, TASK, base)
