"""T03 landing at KPAO 31: full, partial and failing fixtures with hand-worked scores.

Weights: safe_landing 0.30, touchdown_zone 0.25, vertical_speed 0.25, centreline 0.20.
Runway: landing distance 2,443 ft = 744.6 m, first third 248.2 m; 75 ft = 22.86 m wide
(half-width 11.43 m); 64.92 m of displaced pavement before the threshold.
Safety: no crash flag.
"""

import pytest

from simbridge._task import load_task
from synth import assert_rate_invariant, score_task, with_gap, without_signal
from synth import component as comp
from synth_flight_a import final_approach

TASK = load_task("T03")


def score(tmp_path, cols, **kw):
    return score_task(tmp_path, TASK, cols, **kw)


def test_good_landing_full_credit(tmp_path):
    # 150 m past the threshold (492 ft < 814 ft), 1 m left, 200 fpm, stops 500 m along
    s = score(tmp_path, final_approach())
    assert s.status == "scored" and s.score == pytest.approx(1.0) and s.success is True
    assert comp(s, "touchdown_zone").measured == pytest.approx(
        150 / 0.3048, abs=12
    )  # one 0.1 s sample = 3.6 m = 11.8 ft
    assert comp(s, "centreline").measured == pytest.approx(1.0, abs=0.1)
    assert comp(s, "vertical_speed").measured == pytest.approx(200)


def test_long_and_firm(tmp_path):
    # 350 m (1,148 ft) is past the first third: lose 0.25; 400 fpm > 300: lose 0.25 -> 0.30 + 0.20 = 0.50
    s = score(tmp_path, final_approach(td_along_m=350, sink_fpm=400, stop_along_m=650))
    assert s.score == pytest.approx(0.50) and s.success is False


def test_off_centreline(tmp_path):
    # 7 m left (> 5 m, still on the 11.4 m half-width): lose 0.20 -> 0.80
    s = score(tmp_path, final_approach(td_left_m=7.0))
    assert s.score == pytest.approx(0.80)


def test_touchdown_on_displaced_threshold_is_short(tmp_path):
    # 30 m before the landing threshold, on the displaced pavement: not in the zone -> 0.75
    s = score(tmp_path, final_approach(td_along_m=-30, stop_along_m=400))
    assert comp(s, "touchdown_zone").earned == 0 and comp(s, "safe_landing").earned == 1
    assert s.score == pytest.approx(0.75)


def test_touchdown_beside_the_runway(tmp_path):
    # 15 m left (> 11.4 m half-width): off the runway -> no zone, no centreline, no safe landing;
    # the 200 fpm sink is worth nothing off the runway (task progress 0; was 0.25) -> 0
    s = score(tmp_path, final_approach(td_left_m=15.0))
    assert s.score == 0.0 and comp(s, "vertical_speed").measured == pytest.approx(200)


def test_runway_excursion_is_not_a_safe_landing(tmp_path):
    # mid-rollout the aircraft veers 15 m left (off the 11.4 m half-width) and back: lose 0.30, and
    # the touchdown items are worth half (touched down on the runway, no stop on it) -> 0.35
    s = score(tmp_path, final_approach(excursion_left_m=15.0))
    assert comp(s, "safe_landing").earned == 0 and s.score == pytest.approx(0.35)


def test_overrun_fails_safe_landing_and_zone(tmp_path):
    # touchdown 600 m along (out of the zone), stops 900 m along, past the 744.6 m end:
    # lose 0.30 + 0.25 -> vertical speed 0.25 + centreline 0.20, worth half (no stop on the
    # runway) = 0.225
    s = score(tmp_path, final_approach(td_along_m=600, stop_along_m=900))
    assert s.score == pytest.approx(0.225)


def test_hard_bounce_counts_as_the_sink_rate(tmp_path):
    # first contact 200 fpm, bounce, second contact 500 fpm: worst sink 500 > 300 -> 0.75
    s = score(tmp_path, final_approach(bounce_sink_fpm=500))
    assert comp(s, "vertical_speed").measured == pytest.approx(500) and s.score == pytest.approx(0.75)


def test_never_landing_scores_zero(tmp_path):
    s = score(tmp_path, final_approach(cut_at=100.0))
    assert s.status == "scored" and s.score == 0.0


def test_crash_is_a_safety_violation(tmp_path):
    cols = final_approach()
    crash_t = float(cols["t"][-1]) - 5.0
    s = score(tmp_path, final_approach(crash_at=crash_t))
    assert s.score == 0.0 and s.success is False
    assert s.safety[0].ok is False and s.safety[0].first_violation_t == pytest.approx(crash_t, abs=0.1)
    assert s.raw_score == pytest.approx(0.70)  # safe_landing lost too


def test_missing_crash_flag_is_unscored(tmp_path):
    s = score(tmp_path, without_signal(final_approach(), "crashed"))
    assert s.status == "unscored" and "crashed" in s.reason


def test_gap_in_rollout_is_unscored(tmp_path):
    cols = final_approach()
    t_td = (150 + 5 * 1852) / (70 * 0.514444)
    s = score(tmp_path, with_gap(cols, t_td + 3, t_td + 5))
    assert s.status == "unscored" and "gap" in s.reason


@pytest.mark.parametrize("kw", [{}, {"td_along_m": 350, "sink_fpm": 400, "stop_along_m": 650}])
def test_resampling_invariance(tmp_path, kw):
    base = final_approach(hz=100, **kw)
    assert_rate_invariant(tmp_path, TASK, base)
