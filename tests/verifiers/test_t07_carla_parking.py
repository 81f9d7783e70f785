"""T07 CARLA parallel parking: full, partial and failing fixtures with hand-worked scores.

Bay (YAML): x 196.8..203.2, y 197.94..201.14 (6.4 x 3.2 m), centre (200.0, 199.54), heading 0°.
Vehicle footprint 4.90 x 2.12 m: half-length 2.45, half-width 1.06.
"""

import numpy as np
import pytest

from simbridge._task import load_task
from synth import assert_rate_invariant, score_task, without_signal
from synth import component as comp
from synth_driving import park

TASK = load_task("T07")
START = (170.0, 199.14, 0.0)
CENTRE = (200.0, 199.54)


def score(tmp_path, cols, events=(), **kw):
    return score_task(tmp_path, TASK, cols, events=events, **kw)


def test_centred_in_the_bay_full_credit(tmp_path):
    s = score(tmp_path, park(20.0, START, (*CENTRE, 0.0)))
    assert s.status == "scored" and s.score == pytest.approx(1.0) and s.success is True
    assert comp(s, "centre_offset").measured == pytest.approx(0.0, abs=1e-6)
    assert [(x.name, x.ok) for x in s.safety] == [("collision_free", True)]


def test_offset_and_contact_partial(tmp_path):
    # 0.65 m forward, 3° yaw: corners reach x = 200.65 + 2.45·cos3° + 1.06·sin3° = 203.152 < 203.2
    # and y = 199.54 ± (2.45·sin3° + 1.06·cos3°) = 199.54 ± 1.187 → 198.35..200.73: inside (0.30).
    # offset 0.65 m: (1.0 − 0.65) / (1.0 − 0.3) = 0.5 → 0.40 × 0.5 = 0.20; heading 3° ≤ 5° (0.15)
    # × progress (5 − 0.65) / (5 − 0.3) = 0.92553 → 0.13883; one touch of the front car (0) →
    # raw 0.63883, and the contact ("no contact") gates the score to 0
    ev = [
        {"t": 9.0, "kind": "collision", "data": {"other_kind": "vehicle", "other_id": 31, "x_m": 203.0, "y_m": 199.9}}
    ]
    s = score(tmp_path, park(20.0, START, (200.65, 199.54, 3.0)), ev)
    assert comp(s, "inside_space").earned == 1
    assert comp(s, "centre_offset").earned == pytest.approx(0.5)
    assert s.raw_score == pytest.approx(0.63883, abs=1e-4) and s.score == 0.0
    assert s.success is False


def test_crooked_car_sticks_out(tmp_path):
    # 20° yaw at the centre: half-extent across = 2.45·sin20° + 1.06·cos20° = 1.834 > 1.6: outside (0),
    # offset 0 → 0.40, heading 20° > 5° (0), no contact 0.15 → 0.55
    s = score(tmp_path, park(20.0, START, (*CENTRE, 20.0)))
    assert comp(s, "inside_space").measured < 4
    assert s.score == pytest.approx(0.55)


def test_stopped_in_the_lane_fails(tmp_path):
    # stays in the traffic lane beside the bay, (200, 196.0): 3.54 m off (0), outside (0),
    # heading 0° (0.15 × progress (5 − 3.54) / 4.7 = 0.0466), and touches the rear car while still
    # moving (0): raw 0.0466, gated to 0 by the contact
    ev = [{"t": 9.0, "kind": "collision", "data": {"other_kind": "vehicle", "other_id": 30}}]
    s = score(tmp_path, park(20.0, START, (200.0, 196.0, 0.0)), ev)
    assert comp(s, "centre_offset").measured == pytest.approx(3.54, abs=1e-3)
    assert s.raw_score == pytest.approx(0.15 * 1.46 / 4.7, abs=1e-4) and s.score == 0.0


def test_staying_at_the_spawn_point_earns_nothing(tmp_path):
    # never moves: 30.0 m from the bay centre (> 5 m), aligned with the road, no contact → 0
    s = score(tmp_path, park(20.0, START, START))
    assert comp(s, "centre_offset").measured == pytest.approx(30.00267, abs=1e-3)
    assert s.score == 0.0 and s.status == "scored"


def test_rolling_through_the_bay_is_not_parked(tmp_path):
    # the recording ends as the car passes the bay centre at 10.8 km/h (30 m in 10 s, no
    # standstill): the agent ended the episode while driving through the bay — not parked, so
    # nothing is earned (it earned 0.70 when the final pose was taken as parked)
    cols = park(20.0, START, (*CENTRE, 0.0), still_s=0.0)
    cols["speed_kmh"] = np.full_like(cols["t"], 10.8)
    s = score(tmp_path, cols)
    assert "still moving" in comp(s, "inside_space").explanation
    assert s.score == 0.0 and not s.success


def test_facing_backwards_fails_heading(tmp_path):
    s = score(tmp_path, park(20.0, START, (*CENTRE, 180.0)))
    assert comp(s, "heading").earned == 0 and comp(s, "heading").measured == pytest.approx(180.0)


def test_missing_yaw_is_unscored(tmp_path):
    s = score(tmp_path, without_signal(park(20.0, START, (*CENTRE, 0.0)), "yaw_deg"))
    assert s.status == "unscored" and "yaw_deg" in s.reason


def test_final_pose_lost_is_unscored(tmp_path):
    # the pose stops being recorded 2 s before the end (NaN): the final pose is undecidable
    cols = park(20.0, START, (*CENTRE, 0.0))
    late = cols["t"] > cols["t"][-1] - 2.0
    for k in ("x_m", "y_m", "yaw_deg"):
        cols[k] = np.where(late, np.nan, cols[k])
    s = score(tmp_path, cols)
    assert s.status == "unscored" and "final pose" in s.reason


def test_contact_while_standing_is_not_the_egos(tmp_path):
    # CollisionTest: a contact while the ego stands (< 0.1 m/s) is not counted: still 1.0
    ev = [{"t": 12.0, "kind": "collision", "data": {"other_kind": "vehicle", "other_id": 31}}]
    s = score(tmp_path, park(20.0, START, (*CENTRE, 0.0)), ev)
    assert comp(s, "no_contact").measured == 0 and s.score == pytest.approx(1.0)


def test_resampling_invariance(tmp_path):
    base = park(100.0, START, (200.65, 199.89, 3.0))
    assert_rate_invariant(tmp_path, TASK, base)
