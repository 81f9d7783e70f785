"""T06 CARLA route: full, partial and failing fixtures with hand-worked scores.

Completion follows ScenarioRunner's RouteCompletionTest: a 1 m waypoint counts once the ego is
beyond it, in order; the route is complete (100 %) above 99 % with the ego within 10 m of the end.

The YAML route has corners (-6.4,-79.1) (-6.4,-140) (-6.4,-195) (40,-195.5) (90,-195.5) (90,-140)
(90,-70): legs 60.9 + 55 + 46.4027 + 50 + 55.5 + 70 = L = 337.8027 m.
"""

import math
import re
import tempfile
from pathlib import Path

import pytest

from simbridge import read_bundle
from simbridge._task import load_task
from simbridge import score_bundle
from simbridge.verifiers.driving import (
    LEADERBOARD_PENALTIES,
    STOP_SIGN_EVENT,
    DrivingScore,
    densify_route,
    leaderboard_collision,
    route_progress,
)
from synth import assert_rate_invariant, make_bundle, score_task, with_gap, without_signal
from synth import component as comp
from synth_driving import drive

TASK = load_task("T06")
ROUTE = TASK.verifier.params["route_xy_m"]
L = 60.9 + 55 + math.hypot(46.4, 0.5) + 50 + 55.5 + 70


def score(tmp_path, cols, events=(), **kw):
    return score_task(tmp_path, TASK, cols, events=events, **kw)


def full_drive(hz=20.0, kmh=36.0):
    # 36 km/h = 10 m/s: the whole route (337.8 m) in 33.8 s, plus 2 s to spare at the end
    return drive(ROUTE, hz, [(L / (kmh / 3.6) + 2.0, kmh, kmh)])


def test_route_length_matches_hand_sum():
    _, s = densify_route(ROUTE)
    assert s[-1] == pytest.approx(L, abs=1e-6)


def test_clean_drive_full_credit(tmp_path):
    s = score(tmp_path, full_drive())
    assert s.status == "scored" and s.score == pytest.approx(1.0) and s.success is True
    assert comp(s, "route_completion").measured == pytest.approx(100.0)
    # complete when the ego passes the first waypoint beyond 99 % (within 1 m after 0.99 L = 334.4 m,
    # and the end is < 10 m away): 334.4 m / 10 m/s = 33.44 s (+ up to one 1 m step = 0.1 s)
    assert comp(s, "under_time").measured == pytest.approx(0.99 * L / 10.0 + 0.05, abs=0.1)
    # "no collisions" is the one safety gate (collision_free); red lights are a credit item
    assert [(x.name, x.ok) for x in s.safety] == [("collision_free", True)]


def test_red_light_run_loses_its_item(tmp_path):
    # one red light crossed, reported twice by the importer for the same light: one run
    ev = [
        {"t": 12.0, "kind": "red_light", "data": {"tl_id": 81}},
        {"t": 12.4, "kind": "red_light", "data": {"tl_id": 81}},
    ]
    s = score(tmp_path, full_drive(), ev)
    # 0.5 route + 0 red light + 0.2 collisions + 0.1 time = 0.8
    assert s.score == pytest.approx(0.8)
    assert comp(s, "no_red_light").measured == 1


def test_partial_route_scales_linearly(tmp_path):
    # drive 200 m and stop (speed 10 m/s for 20 s, then 5 s stopped). Waypoints behind the ego
    # are passed: progress = 200 / L = 0.5921 (less up to one 1 m waypoint step, 0.3 %);
    # credit 0.5 × 0.5921 = 0.2960. Past half the route, so the infraction items count, but only
    # for the part of the route driven (task progress): + (0.2 + 0.2) × 0.5921. Not complete: time
    # 0. Total 0.9 × 0.5921 = 0.533: the part of the task done, not most of the points
    cols = drive(ROUTE, 20.0, [(20.0, 36.0, 36.0), (0.001, 36.0, 0.0), (5.0, 0.0, 0.0)])
    s = score(tmp_path, cols)
    frac = 200.0 / L
    assert comp(s, "route_completion").measured == pytest.approx(frac * 100, abs=0.3)
    assert s.score == pytest.approx(0.9 * frac, abs=0.003)
    assert comp(s, "under_time").earned == 0


def test_collision_repeats_merge_and_cost_the_item(tmp_path):
    # three contacts with the same car within 1 s, and one with a static prop 20 s later, 200 m
    # further on: CollisionTest counts 2
    ev = [{"t": 5.0 + 0.5 * i, "kind": "collision", "data": {"other_kind": "vehicle", "other_id": 7}} for i in range(3)]
    ev.append({"t": 25.0, "kind": "collision", "data": {"other_kind": "static", "other_id": None, "x_m": None}})
    s = score(tmp_path, full_drive(), ev)
    assert comp(s, "no_collision").measured == 2
    # "no collisions": a collision gates the score
    assert s.raw_score == pytest.approx(0.8) and s.score == 0.0 and not s.success
    [gate] = s.safety
    assert gate.name == "collision_free" and not gate.ok and gate.first_violation_t == pytest.approx(5.0)


def test_collision_filter_follows_collisiontest():
    # ego at 10 m/s. t=5.0 car #7 (counted); t=5.3 walker #9, ego 3 m on, inside the 5 m circle
    # (same collision); t=11 car #7 again, 6 s later and 60 m away (counted); t=20.0 and t=20.4 a
    # static prop, 4 m apart (one); → 3
    from simbridge import Event
    from simbridge.verifier import VerifyContext
    from simbridge.verifiers.driving import merge_collisions

    cols = full_drive()
    b = read_bundle(make_bundle(Path(tempfile.mkdtemp()), "T06", cols))
    ctx = VerifyContext(bundle=b, task=TASK, p=None)
    ev = [
        Event(t=5.0, kind="collision", data={"other_kind": "vehicle", "other_id": 7}),
        Event(t=5.3, kind="collision", data={"other_kind": "walker", "other_id": 9}),
        Event(t=11.0, kind="collision", data={"other_kind": "vehicle", "other_id": 7}),
        Event(t=20.0, kind="collision", data={"other_kind": "static", "other_id": None}),
        Event(t=20.4, kind="collision", data={"other_kind": "static", "other_id": None}),
    ]
    assert [e.t for e in merge_collisions(ctx, ev)] == [5.0, 11.0, 20.0]


def test_slow_drive_misses_time(tmp_path):
    # 3.6 km/h = 1 m/s: complete past 0.99 L = 334.4 m, i.e. at 334.4 s (+ up to 1 s) > 300 s
    s = score(tmp_path, full_drive(hz=5.0, kmh=3.6))
    assert comp(s, "under_time").measured == pytest.approx(0.99 * L + 0.5, abs=1.0)
    assert s.score == pytest.approx(0.9)


def test_car_that_never_moves_fails(tmp_path):
    # parked on the first waypoint for 60 s: never beyond it, 0 % of the route; under half the
    # route, so no infraction credit either → 0
    cols = drive(ROUTE, 10.0, [(60.0, 0.0, 0.0)])
    s = score(tmp_path, cols)
    assert s.score == 0.0 and s.status == "scored"
    assert s.success is False


def test_driving_backwards_passes_nothing_beyond_the_start():
    # start at the destination and drive the route in reverse: arriving from ahead, the ego is
    # "beyond" the first waypoints once within 30 m of them (InRouteTest's limit), and never
    # beyond any later one again: progress stops at 30 m of 337.8
    rev = list(reversed(ROUTE))
    cols = drive(rev, 20.0, [(L / 10.0 + 2.0, 36.0, 36.0)])
    prog = route_progress(cols["t"], cols["x_m"], cols["y_m"], ROUTE)
    assert prog.fraction <= 31.0 / L and prog.t_complete is None


def test_planned_route_snapshot_wins(tmp_path):
    # the live client's planned route (snapshot) replaces the YAML corners: a 100 m straight
    route = [[0.0, 0.0], [100.0, 0.0]]
    cols = drive([[0.0, 0.0], [110.0, 0.0]], 20.0, [(12.0, 36.0, 36.0)])  # drives 10 m past the end
    s = score(tmp_path, cols, snapshots={"start": {"route_xy_m": route}})
    assert comp(s, "route_completion").measured == pytest.approx(100.0)


def test_malformed_route_snapshot_is_unscored(tmp_path):
    s = score(tmp_path, full_drive(), snapshots={"start": {"route_xy_m": [[0.0, "x"], [1.0]]}})
    assert s.status == "unscored" and "route_xy_m" in s.reason


def test_missing_signal_and_gap_are_unscored(tmp_path):
    cols = full_drive()
    s = score(tmp_path / "a", without_signal(cols, "y_m"))
    assert s.status == "unscored" and "y_m" in s.reason
    cols = full_drive()
    s = score(tmp_path / "b", with_gap(cols, 10, 12))
    assert s.status == "unscored" and "gap" in s.reason


def test_missing_events_stream_is_unscored(tmp_path):
    b = make_bundle(tmp_path, "T06", full_drive())
    (b / "events.jsonl").unlink()
    s = score_bundle(read_bundle(b), TASK)
    assert s.status == "unscored" and "events" in s.reason


def test_harness_fault_is_unscored(tmp_path):
    s = score(tmp_path, full_drive(), status="sim_crashed")
    assert s.status == "unscored"


@pytest.mark.parametrize("stop_after_s", [20.0, 40.0])
def test_resampling_invariance(tmp_path, stop_after_s):
    base = drive(ROUTE, 100.0, [(stop_after_s, 36.0, 36.0), (0.01, 36.0, 0.0), (3.0, 0.0, 0.0)])
    assert_rate_invariant(tmp_path, TASK, base)


# --------------------------------------------------------------------------- Leaderboard driving score


def _driving_score(s) -> float:
    """The Leaderboard driving score the explanation line reports."""
    m = re.search(r"CARLA Leaderboard 2\.0 driving score (\d\.\d{3}) ", s.explanation)
    assert m, s.explanation
    return float(m.group(1))


def test_driving_score_multiplies_completion_by_the_penalties_and_scores_nothing(tmp_path):
    # full route, one car hit (0.60) and one red light (0.70): 1.0 × 0.6 × 0.7 = 0.42. The scored
    # items are T06's own: 0.5 route + 0 red light + 0 collision + 0.1 time = 0.6 before the gate,
    # and the collision gates it to 0
    ev = [
        {"t": 8.0, "kind": "collision", "data": {"other_kind": "vehicle", "other_id": 7}},
        {"t": 8.2, "kind": "collision", "data": {"other_kind": "vehicle", "other_id": 7}},  # merged (5 s)
        {"t": 12.0, "kind": "red_light", "data": {"tl_id": 81}},
        {"t": 12.4, "kind": "red_light", "data": {"tl_id": 81}},  # merged (same light)
    ]
    s = score(tmp_path / "a", full_drive(), ev)
    assert _driving_score(s) == pytest.approx(0.42)
    assert "route 100.0% × vehicle collision 0.60 × red light 0.70 (information, not scored)" in s.explanation
    assert s.raw_score == pytest.approx(0.6) and [c.earned for c in s.components] == [1.0, 0.0, 0.0, 1.0]
    assert s.score == 0.0
    # a stop-sign run only the Leaderboard penalises (0.80) changes the driving score, not the score
    ev.append({"t": 20.0, "kind": STOP_SIGN_EVENT, "data": {}})
    s2 = score(tmp_path / "b", full_drive(), ev)
    assert _driving_score(s2) == pytest.approx(0.42 * 0.8, abs=5e-4)
    assert s2.components == s.components and s2.score == s.score and s2.success == s.success


def test_driving_score_without_infractions_is_the_route_completion(tmp_path):
    # drive half the route (L/2 at 10 m/s) and stop: completion 50 % (less up to one 1 m waypoint,
    # 0.3 %), no penalty: driving score 0.5
    cols = drive(ROUTE, 20.0, [(L / 2 / 10.0, 36.0, 36.0), (0.001, 36.0, 0.0), (5.0, 0.0, 0.0)])
    s = score(tmp_path, cols)
    assert comp(s, "route_completion").measured == pytest.approx(50.0, abs=0.3)
    assert _driving_score(s) == pytest.approx(0.5, abs=0.003)
    assert "× no infractions (information, not scored)" in s.explanation


def test_leaderboard_collision_classes_follow_collisiontest():
    from simbridge import Event

    def col(**data):
        return Event(t=1.0, kind="collision", data=data)

    hits = [
        col(other_kind="walker"),  # pedestrian 0.50
        col(other_kind="static", other_type_id="static.prop.streetbarrier"),  # static 0.65
        col(other_kind="static", other_type_id="traffic.traffic_light"),  # static 0.65
        col(other_kind="vehicle", other_type_id="vehicle.audi.tt"),  # vehicle 0.60
        col(other_kind="static", other_type_id="static.sidewalk"),  # a kerb: no penalty
        col(other_kind="other", other_type_id="sensor.other.collision"),  # no penalty
        col(other_kind="other"),  # no penalty
    ]
    assert [leaderboard_collision(e) for e in hits] == [
        "pedestrian collision",
        "static collision",
        "static collision",
        "vehicle collision",
        None,
        None,
        None,
    ]
    d = DrivingScore.of(0.8, hits, red_lights=2, stop_signs=1)
    assert d.penalty == pytest.approx(0.5 * 0.65**2 * 0.6 * 0.7**2 * 0.8)
    assert d.score == pytest.approx(0.8 * d.penalty)
    assert "static collision 0.65^2" in d.explanation() and "red light 0.70^2" in d.explanation()
    assert LEADERBOARD_PENALTIES == {
        "pedestrian collision": 0.50,
        "vehicle collision": 0.60,
        "static collision": 0.65,
        "red light": 0.70,
        "stop sign": 0.80,
    }
