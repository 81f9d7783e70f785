"""T18 CARLA lane keeping: full, partial and failing fixtures with hand-worked scores.

Builder: 0 → 90 km/h linearly over 20 s (85 km/h at t = 85/90·20 = 18.889 s: the window
starts there), then 90 km/h; lane offset A·sin(2πt/10): over the 120 s window (12 whole
periods) the RMS is A/√2.
"""

import math

import numpy as np
import pytest

from simbridge._task import load_task
from synth import assert_rate_invariant, score_task, with_gap, without_signal
from synth import component as comp
from synth_driving import highway

TASK = load_task("T18")
T_START = 85 / 90 * 20


def score(tmp_path, cols, events=(), **kw):
    return score_task(tmp_path, TASK, cols, events=events, **kw)


def test_centred_at_90_full_credit(tmp_path):
    # A = 0.3 m → RMS 0.212 ≤ 0.3: full; speed 90 from t = 20 s, 85-90 before: 100 % in band
    s = score(tmp_path, highway(20.0, offset_amp_m=0.3))
    assert s.status == "scored" and s.score == pytest.approx(1.0) and s.success is True
    rms = comp(s, "lateral_rms")
    assert rms.measured == pytest.approx(0.3 / math.sqrt(2), abs=0.002)
    assert rms.window[0] == pytest.approx(T_START, abs=0.05)
    assert [(x.name, x.ok) for x in s.safety] == [("collision_free", True)]


def test_weaving_and_one_invasion_partial(tmp_path):
    # A = 0.9 → RMS 0.6364: (1.0 − 0.6364) / 0.7 = 0.5195 → 0.5 × 0.5195 = 0.2597;
    # speed 0.3; one lane invasion at t = 50 s → 0: total 0.5597
    ev = [{"t": 50.0, "kind": "lane_invasion", "data": {"crossed": ["Broken"]}}]
    s = score(tmp_path, highway(20.0, offset_amp_m=0.9), ev)
    assert comp(s, "lateral_rms").measured == pytest.approx(0.6364, abs=0.002)
    assert s.score == pytest.approx(0.3 + 0.5 * (1.0 - 0.9 / math.sqrt(2)) / 0.7, abs=0.003)


def test_speeding_stretch_loses_speed_item(tmp_path):
    # 97 km/h from t = 60 to 90 s: 30 s of the 120 s window out of band → 75 % < 90 %:
    # 0 + 0.5 + 0.2 = 0.7
    cols = highway(20.0)
    cols["speed_kmh"] = np.where((cols["t"] >= 60) & (cols["t"] <= 90), 97.0, cols["speed_kmh"])
    s = score(tmp_path, cols)
    assert comp(s, "speed_in_band").measured == pytest.approx(0.75, abs=0.005)
    assert s.score == pytest.approx(0.7)


def test_wrong_lane_counts_a_lane_width(tmp_path):
    # 12 s of the window in lane -3 (offset 0 there): 10 % of the time at 3.5 m →
    # RMS = sqrt(0.1 × 3.5²) = 1.107 m > 1.0 → 0: total 0.3 + 0 + 0.2 = 0.5
    cols = highway(20.0)
    cols["lane_id"] = np.where((cols["t"] >= 40) & (cols["t"] < 52), -3.0, cols["lane_id"])
    s = score(tmp_path, cols)
    assert comp(s, "lateral_rms").measured == pytest.approx(math.sqrt(0.1) * 3.5, abs=0.01)
    assert s.score == pytest.approx(0.5)


def test_short_drive_fails(tmp_path):
    # recording ends 30 s after reaching 90 (t = 50 s): window 18.889 → 50 s = 25.93 % of 120 s.
    # speed in-band share 0.2593 < 0.9 → 0; RMS 0 (A = 0) → full, worth the part of the window
    # driven: 776.9 m (1.11 s from 85 to 90 km/h, then 30 s at 25 m/s) of 120 s × 85 km/h =
    # 2833.3 m → 0.2742 → 0.5 × 0.2742 = 0.1371; invasions need the full window recorded → 0.
    # Total 0.1371
    s = score(tmp_path, highway(20.0, hold_s=30.0))
    assert s.score == pytest.approx(0.5 * (30 * 25 + 1.111 * 87.5 / 3.6) / (120 * 85 / 3.6), abs=0.002)
    assert s.success is False


def test_never_reaching_85_earns_nothing(tmp_path):
    s = score(tmp_path, highway(20.0, speed_kmh=80.0))
    assert s.score == 0.0 and s.status == "scored"


def test_missing_lane_signal_is_unscored(tmp_path):
    s = score(tmp_path, without_signal(highway(20.0), "lane_offset_m"))
    assert s.status == "unscored" and "lane_offset_m" in s.reason


def test_gap_in_window_is_unscored(tmp_path):
    s = score(tmp_path, with_gap(highway(20.0), 70, 71))
    assert s.status == "unscored" and "gap" in s.reason


@pytest.mark.parametrize("amp", [0.3, 0.9])
def test_resampling_invariance(tmp_path, amp):
    base = highway(100.0, offset_amp_m=amp)
    assert_rate_invariant(tmp_path, TASK, base)
