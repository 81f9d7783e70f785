"""T05 traffic pattern at KPAO 31: full, partial and failing fixtures with hand-worked scores.

Weights: pattern_geometry 0.30, altitude_discipline 0.20, landing_and_stop 0.50.
The builder flies upwind to 1,345 m, crosswind 1,200 m to the left (33 s at 70 kt), downwind
to 1,500 m before the threshold (79 s), base (33 s), final (45 s), all > the 10 s minimum.
"""

import pytest

from simbridge._task import load_task
from synth import assert_rate_invariant, score_task, with_gap, without_signal
from synth import component as comp
from synth_flight_a import traffic_pattern

TASK = load_task("T05")


def score(tmp_path, cols, **kw):
    return score_task(tmp_path, TASK, cols, **kw)


def test_full_pattern_full_credit(tmp_path):
    s = score(tmp_path, traffic_pattern())
    assert s.status == "scored" and s.score == pytest.approx(1.0) and s.success is True
    assert comp(s, "pattern_geometry").measured == "4/4 legs"
    assert comp(s, "altitude_discipline").measured == pytest.approx(0, abs=1)


def test_high_downwind_loses_altitude_item(tmp_path):
    # downwind at 1,150 ft AGL (> 1,100): lose 0.20 -> 0.80
    s = score(tmp_path, traffic_pattern(downwind_agl_ft=1150))
    assert s.score == pytest.approx(0.80)
    assert comp(s, "altitude_discipline").measured == pytest.approx(150, abs=1)


def test_right_hand_pattern_misses_the_template(tmp_path):
    # mirrored pattern: no left crosswind/downwind -> geometry 0 and no downwind to judge 0;
    # the landing is good but the task is four legs and a landing: 0 legs + landing = 1/5 of it
    # -> 0.50 x 1/5 = 0.10
    s = score(tmp_path, traffic_pattern(side="right"))
    assert comp(s, "pattern_geometry").earned == 0 and comp(s, "altitude_discipline").earned == 0
    assert s.score == pytest.approx(0.10)


def test_tight_downwind_is_outside_the_template(tmp_path):
    # downwind 300 m abeam (< 0.25 nm = 463 m): no downwind leg (and the 8 s crosswind is under
    # the 10 s minimum): only the landing, 1/5 of the task -> 0.50 x 1/5 = 0.10
    s = score(tmp_path, traffic_pattern(offset_m=300))
    assert s.score == pytest.approx(0.10)


def test_hard_landing_loses_the_landing_item(tmp_path):
    # 700 fpm >= 600: lose 0.50 -> 0.30 + 0.20 = 0.50
    s = score(tmp_path, traffic_pattern(sink_fpm=700))
    assert comp(s, "landing_and_stop").earned == 0 and s.score == pytest.approx(0.50)


def test_stop_past_the_runway_end_loses_the_landing_item(tmp_path):
    # stops 900 m along, past the 744.6 m end -> 0.50
    s = score(tmp_path, traffic_pattern(td_along_m=500, stop_along_m=900))
    assert s.score == pytest.approx(0.50)


def test_recording_ending_on_final_gets_pattern_only(tmp_path):
    # cut 10 s before touchdown (final flown for 35 s): 0.30 + 0.20 x 4/5 (four legs of four
    # legs and a landing), no landing -> 0.46
    s = score(tmp_path, traffic_pattern(cut_before_td_s=10))
    assert s.score == pytest.approx(0.46)


def test_no_takeoff_scores_zero(tmp_path):
    cols = traffic_pattern()
    keep = cols["t"] < 9.0  # still on the ground roll
    s = score(tmp_path, {k: v[keep] for k, v in cols.items()})
    assert s.status == "scored" and s.score == 0.0


def test_crash_flag_is_a_safety_violation(tmp_path):
    # a crash anywhere in the episode gates the score (was: only the landing item lost, 0.50)
    cols = traffic_pattern()
    cols["crashed"] = (cols["t"] > cols["t"][-1] - 3).astype(float)
    s = score(tmp_path, cols)
    assert s.score == 0.0 and s.success is False and s.safety[0].name == "no_crash" and not s.safety[0].ok


def test_missing_signal_is_unscored(tmp_path):
    s = score(tmp_path, without_signal(traffic_pattern(), "gs_kt"))
    assert s.status == "unscored" and "gs_kt" in s.reason


def test_gap_inside_a_found_leg_is_fine(tmp_path):
    # 4 s hole mid-downwind (72-151 s): the first part (72-100 s) is still a ≥ 10 s downwind -> 1.0
    s = score(tmp_path, with_gap(traffic_pattern(), 100, 104))
    assert s.status == "scored" and s.score == pytest.approx(1.0)


def test_missing_leg_hidden_by_a_gap_is_unscored(tmp_path):
    # no samples for the whole base leg (151-185 s): the base could have been flown -> unscored
    s = score(tmp_path, with_gap(traffic_pattern(), 150, 186))
    assert s.status == "unscored" and "base" in s.reason


@pytest.mark.parametrize("kw", [{}, {"downwind_agl_ft": 1150}, {"side": "right"}])
def test_resampling_invariance(tmp_path, kw):
    base = traffic_pattern(hz=100, **kw)
    assert_rate_invariant(tmp_path, TASK, base)
