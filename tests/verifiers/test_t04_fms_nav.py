"""T04 G1000 flight plan and NAV mode: full, partial and failing fixtures with hand-worked scores.

Weights: flight_plan 0.40, ap_modes 0.20, altitude_target 0.20, tracking 0.20.
KPAO→OSI is 8.94 nm (16.55 km): 322 s at 100 kt.
"""

import pytest

from simbridge._task import load_task
from synth import assert_rate_invariant, score_task, with_gap, without_signal
from synth import component as comp
from synth_flight_a import PLAN, fms_flight

TASK = load_task("T04")


def fms_snapshots(legs=PLAN):
    return {"start": {"fms_legs": []}, "end": {"fms_legs": legs}} if legs is not None else {"start": {}}


def score(tmp_path, cols, legs=PLAN, **kw):
    return score_task(tmp_path, TASK, cols, snapshots=fms_snapshots(legs), **kw)


def test_full_credit(tmp_path):
    s = score(tmp_path, fms_flight())
    assert s.status == "scored" and s.score == pytest.approx(1.0) and s.success is True
    assert comp(s, "tracking").measured == pytest.approx(300.0, abs=0.3)


def test_wrong_order_loses_the_plan(tmp_path):
    # KPAO, SNS, OSI, KSBA: lose 0.40 -> 0.60
    legs = [PLAN[0], PLAN[2], PLAN[1], PLAN[3]]
    s = score(tmp_path, fms_flight(), legs=legs)
    assert comp(s, "flight_plan").earned == 0 and s.score == pytest.approx(0.60)


def test_same_name_wrong_place_loses_the_plan(tmp_path):
    # an "OSI" 10 nm from Woodside is not the fix: lose 0.40 -> 0.60
    legs = [dict(p) for p in PLAN]
    legs[1]["lat_deg"] += 10 / 60
    s = score(tmp_path, fms_flight(), legs=legs)
    assert "OSI" in comp(s, "flight_plan").explanation and s.score == pytest.approx(0.60)


def test_lowercase_ids_still_match(tmp_path):
    legs = [dict(p, id=p["id"].lower()) for p in PLAN]
    assert score(tmp_path, fms_flight(), legs=legs).score == pytest.approx(1.0)


def test_off_track_loses_tracking(tmp_path):
    # 0.5 nm right of the leg throughout: lose 0.20 -> 0.80
    s = score(tmp_path, fms_flight(xtk_nm=0.5))
    assert comp(s, "tracking").measured == 0 and s.score == pytest.approx(0.80)


def test_short_flight_loses_tracking(tmp_path):
    # airborne only 100 s (< 120 s): lose 0.20 -> 0.80
    s = score(tmp_path, fms_flight(air_s=100, alt_hold_at=60))
    assert s.score == pytest.approx(0.80)


def test_active_leg_switches_at_osi(tmp_path):
    # 600 s airborne: OSI passed at 322 s, then along OSI→SNS; still one on-track window
    s = score(tmp_path, fms_flight(air_s=600))
    assert comp(s, "tracking").measured == pytest.approx(600.0, abs=0.3)


def test_flying_straight_past_osi_ends_the_window(tmp_path):
    # OSI→SNS turns 99° left (242.6° → 143.2° true). Going straight on past OSI the cross-track
    # to OSI→SNS grows at ~sin(99°) × 51.4 m/s, reaching 0.3 nm (556 m) about 11 s after OSI:
    # window ≈ 322 + 11 = 333 s, still ≥ 120 s -> full credit
    s = score(tmp_path, fms_flight(air_s=600, straight_past_osi=True))
    w = comp(s, "tracking").measured
    assert 328 <= w <= 338 and s.score == pytest.approx(1.0)


def test_alt_not_held_and_wrong_target(tmp_path):
    # ALT never active (ap_modes lost 0.20) and target 8,500 (altitude_target lost 0.20) -> 0.60
    s = score(tmp_path, fms_flight(alt_hold_at=1e9, target_ft=8500))
    assert s.score == pytest.approx(0.60)


def test_nothing_done_scores_zero(tmp_path):
    s = score(tmp_path, fms_flight(ap_at=None, target_ft=0, xtk_nm=1.0), legs=[])
    assert s.status == "scored" and s.score == 0.0


def test_missing_snapshot_is_unscored(tmp_path):
    s = score(tmp_path, fms_flight(), legs=None)
    assert s.status == "unscored" and "fms_legs" in s.reason


def test_malformed_snapshot_is_unscored(tmp_path):
    s = score(tmp_path, fms_flight(), legs="KPAO OSI SNS KSBA")
    assert s.status == "unscored" and "fms_legs" in s.reason


def test_xplane_probe_snapshot_shape_is_read(tmp_path):
    # the X-Plane FMS probe writes end.fms = {"legs": [{ident, nav_type, lat_deg, lon_deg, ...}]}
    legs = [
        {
            "index": i,
            "ident": p["id"],
            "nav_type": 4,
            "lat_deg": p["lat_deg"],
            "lon_deg": p["lon_deg"],
            "alt_ft": 0,
            "nav_ref": i,
            "kind": "vor",
        }
        for i, p in enumerate(PLAN)
    ]
    snaps = {"end": {"fms": {"legs": legs, "destination_index": 1}}}
    s = score_task(tmp_path, TASK, fms_flight(), snapshots=snaps)
    assert s.status == "scored" and s.score == pytest.approx(1.0)


def test_probe_error_is_unscored(tmp_path):
    snaps = {"end": {"fms": {"error": "no reply from the FMS plugin on 49010"}}}
    s = score_task(tmp_path, TASK, fms_flight(), snapshots=snaps)
    assert s.status == "unscored" and "49010" in s.reason


def test_missing_signal_is_unscored(tmp_path):
    s = score(tmp_path, without_signal(fms_flight(), "ap_alt_target_ft"))
    assert s.status == "unscored" and "ap_alt_target_ft" in s.reason


def test_gap_in_final_state_is_unscored(tmp_path):
    cols = fms_flight()
    s = score(tmp_path, with_gap(cols, cols["t"][-1] - 4, cols["t"][-1] - 1))
    assert s.status == "unscored" and "gap" in s.reason


def test_gap_splitting_the_track_window_is_unscored(tmp_path):
    # 150 s airborne with a 2 s hole at 60 s: pieces of ~58 and ~90 s, but 150 s if joined -> undecidable
    s = score(tmp_path, with_gap(fms_flight(air_s=150, alt_hold_at=100), 80, 82))
    assert s.status == "unscored" and "on-track" in s.reason


def test_gap_inside_a_long_track_window_is_fine(tmp_path):
    # 300 s airborne, hole at 60 s: the 238 s piece alone passes -> 1.0
    assert score(tmp_path, with_gap(fms_flight(), 80, 82)).score == pytest.approx(1.0)


@pytest.mark.parametrize("kw", [{}, {"air_s": 600, "straight_past_osi": True}, {"xtk_nm": 0.5}])
def test_resampling_invariance(tmp_path, kw):
    base = fms_flight(hz=100, **kw)
    assert_rate_invariant(tmp_path, TASK, base, snapshots=fms_snapshots())
