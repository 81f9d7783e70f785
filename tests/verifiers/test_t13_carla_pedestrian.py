"""T13 CARLA pedestrian crossing: full, partial and failing fixtures with hand-worked scores.

Route (YAML): (110, 133.41) → (300, 133.41), 190 m east. Crossing point x = 205: the trigger
(ego within 25 m) fires at x = 180, i.e. 70 m along the route. Limit 30 km/h → need ≥ 24 km/h.
"""

import pytest

from simbridge._task import load_task
from synth import assert_rate_invariant, score_task, with_gap, without_signal
from synth import component as comp
from synth_driving import drive

TASK = load_task("T13")
ROUTE = TASK.verifier.params["route_xy_m"]


def score(tmp_path, cols, events=(), **kw):
    return score_task(tmp_path, TASK, cols, events=events, **kw)


def stop_and_go(hz=20.0, kmh=30.0):
    # 30 km/h = 8.333 m/s: 70 m to the trigger in 8.4 s; brake to 0 over 3 s (12.5 m, stops at
    # x = 192.5, 12.5 m short of the crossing), wait 5 s, 0 → 30 km/h over 4 s (16.7 m), then
    # cruise 12 s (100 m): 70 + 12.5 + 16.7 + 100 = 199 m ≥ 190 m, the route end
    v = kmh / 3.6
    return drive(ROUTE, hz, [(70.0 / v, kmh, kmh), (3.0, kmh, 0.0), (5.0, 0.0, 0.0), (4.0, 0.0, kmh), (12.0, kmh, kmh)])


def test_stop_for_the_pedestrian_full_credit(tmp_path):
    s = score(tmp_path, stop_and_go())
    assert s.status == "scored" and s.score == pytest.approx(1.0) and s.success is True
    sp = comp(s, "speed_before_event")
    assert sp.measured == pytest.approx(30.0, abs=0.01) and sp.window[1] == pytest.approx(8.4, abs=0.06)
    assert [(x.name, x.ok) for x in s.safety] == [("collision_free", True)]


def test_crawling_loses_the_speed_item(tmp_path):
    # 20 km/h throughout (< 24 km/h): 0.6 + 0 + 0.2 = 0.8 of the items, but the speed before the
    # event is primary (the scenario is a car at the speed limit): score 0
    v = 20 / 3.6
    s = score(tmp_path, drive(ROUTE, 20.0, [(200.0 / v, 20.0, 20.0)]))
    assert comp(s, "speed_before_event").measured == pytest.approx(20.0)
    assert s.raw_score == pytest.approx(0.8) and s.score == 0.0


def test_hitting_the_pedestrian_partial(tmp_path):
    # no braking, hits the walker at x = 205 (t = 95/8.333 = 11.4 s), drives on to the end:
    # 0 + 0.2 speed + 0.2 route = 0.4 before the gate (two contact reports 0.1 s apart are one
    # collision), and the collision ("without collision") gates the score to 0
    v = 30 / 3.6
    ev = [
        {"t": 11.4, "kind": "collision", "data": {"other_kind": "walker", "other_id": 55}},
        {"t": 11.5, "kind": "collision", "data": {"other_kind": "walker", "other_id": 55}},
    ]
    s = score(tmp_path, drive(ROUTE, 20.0, [(200.0 / v, 30.0, 30.0)]), ev)
    assert comp(s, "no_pedestrian_collision").measured == 1
    assert s.raw_score == pytest.approx(0.4) and s.score == 0.0


@pytest.mark.parametrize("other", ["static", "vehicle"])
def test_any_collision_gates_not_only_the_pedestrian(tmp_path, other):
    # "stop or avoid without collision": swerving into the parked van (or a car) to miss the
    # walker is a collision; the pedestrian item alone used to count, so this passed at 1.0
    ev = [{"t": 10.0, "kind": "collision", "data": {"other_kind": other, "other_id": 3}}]
    s = score(tmp_path, stop_and_go(), ev)
    assert comp(s, "no_pedestrian_collision").earned == 1.0
    assert s.score == 0.0 and not s.success
    [gate] = s.safety
    assert gate.name == "collision_free" and not gate.ok and other in gate.explanation


def test_never_reaching_the_pedestrian_fails(tmp_path):
    # drives 50 m (ends at x = 160, 45 m from the crossing) and parks: no event, route incomplete → 0
    v = 30 / 3.6
    s = score(tmp_path, drive(ROUTE, 20.0, [(50.0 / v, 30.0, 30.0), (0.01, 30.0, 0.0), (20.0, 0.0, 0.0)]))
    assert s.score == 0.0 and s.status == "scored"


def test_missing_speed_is_unscored(tmp_path):
    s = score(tmp_path, without_signal(stop_and_go(), "speed_kmh"))
    assert s.status == "unscored" and "speed_kmh" in s.reason


def test_gap_is_unscored(tmp_path):
    s = score(tmp_path, with_gap(stop_and_go(), 7.0, 8.0))
    assert s.status == "unscored" and "gap" in s.reason


@pytest.mark.parametrize("kmh", [30.0, 24.5])
def test_resampling_invariance(tmp_path, kmh):
    base = stop_and_go(hz=100.0, kmh=kmh)
    assert_rate_invariant(tmp_path, TASK, base)
