"""T13's scenario is part of its score: the pedestrian and the parked van must be in the
recording, and the pedestrian must step out once the ego reaches its trigger.

Recordings from the embedded drive simulator's world (SUMO's Town01, the CommonRoad car), driven
by a simple controller along T13's road: with the whole scenario it scores 1.0; without the
pedestrian and the van (the verifier alone would score that drive 1.000, as it did an imported
CARLA drive with no pedestrian on T13's road) and with a pedestrian that never steps out, it is
unscored, a harness fault of the live simulator. The real CARLA recording with no pedestrian is
"not this task's scenario".
"""

from __future__ import annotations

import dataclasses

import pytest

import libsumo  # noqa: F401
import vehiclemodels  # noqa: F401

from fixtures import fixture_path  # noqa: E402
from simbridge import read_bundle  # noqa: E402
from simbridge._bundle import write_bundle  # noqa: E402
from simbridge._cli import main  # noqa: E402
from simbridge._task import load_task  # noqa: E402
from simbridge.adapters.drive._mapping import CanonicalMapper  # noqa: E402
from simbridge.adapters.drive.world._net import xodr_path  # noqa: E402
from simbridge.adapters.drive._scenario import from_task  # noqa: E402
from simbridge.adapters.drive.world._scene import EgoControls  # noqa: E402
from simbridge.adapters.drive._session import SIGNALS  # noqa: E402
from simbridge.adapters.drive.world._world import World  # noqa: E402
from simbridge.adapters.drive.world.sim import start_snapshot  # noqa: E402
from simbridge import score_bundle  # noqa: E402

pytestmark = pytest.mark.slow
TASK = load_task("T13")


def _drive(tmp_path, name: str, **change) -> object:
    """Drive T13's road at 30 km/h, stopping for a walker on the lane ahead; the bundle as the
    drive session writes it (the drive process's start snapshot, its events)."""
    w = World(dataclasses.replace(from_task(TASK), **change))
    start = start_snapshot(w)
    try:
        mapper = CanonicalMapper(xodr_path("Town01"), w.route_xy_m)
        end_x = w.route_xy_m[-1][0]
        cols: dict[str, list[float]] = {k: [] for k in ("t", *SIGNALS)}
        events: list[dict] = []
        for _ in range(int(90.0 / 0.05)):
            s = w.ego.state
            if s.x_m >= end_x - 1.0 and s.v_ms < 0.1:
                break
            target = 0.0 if s.x_m >= end_x - 1.5 else 30.0
            walker = w.walker_xy
            if walker and 0.0 < walker[0] - s.x_m < 20.0 and 131.0 < walker[1] < 136.0:
                target = 0.0
            err = target - s.speed_kmh
            events += w.step(
                EgoControls(
                    throttle=min(1.0, max(0.0, 0.2 + 0.1 * err)) if err > 0 else 0.0,
                    brake=1.0 if target == 0.0 else (min(1.0, -0.15 * err) if err < -1.0 else 0.0),
                    steer=max(-0.2, min(0.2, 0.3 * (133.41 - s.y_m) - 0.5 * s.yaw_rad)),
                )
            )
            raw = w.sample()
            canon, lane_events = mapper.map(raw["t"], raw)
            events += lane_events
            cols["t"].append(raw["t"])
            for k in SIGNALS:
                cols[k].append(canon[k])
    finally:
        w.close()
    out = write_bundle(
        tmp_path / name,
        {"task_id": "T13", "sim": "drive", "status": "completed"},
        cols,
        events=events,
        snapshots={"start": start},
    )
    return read_bundle(out)


def test_the_whole_scenario_is_scored(tmp_path):
    b = _drive(tmp_path, "whole")
    assert {a["kind"] for a in b.snapshots["start"]["actors"]} == {"vehicle", "walker"}
    s = score_bundle(b, TASK)
    assert s.status == "scored" and s.score == pytest.approx(1.0), s.reason


def test_a_drive_without_the_pedestrian_and_the_van_is_not_scored(tmp_path):
    b = _drive(tmp_path, "empty", walker=None, parked=[])
    # the verifier alone would give this drive full marks: nobody to stop for, never a collision
    b.episode.sim = None  # (a bundle that names no simulator claims no recording: not checked)
    assert score_bundle(b, TASK).score == pytest.approx(1.0)
    b.episode.sim = "drive"
    s = score_bundle(b, TASK)
    assert s.status == "unscored"
    assert s.reason.startswith("harness fault, not an agent failure: the simulator did not set up this task's scenario")
    assert "no parked vehicle.volkswagen.t2 at (200.0, 136.6)" in s.reason
    assert "no pedestrian at (205.0, 138.5)" in s.reason


def test_a_pedestrian_that_never_steps_out_is_not_the_scenario(tmp_path):
    sc = from_task(TASK)
    assert sc.walker is not None
    frozen_walker = dataclasses.replace(sc.walker, trigger_distance_m=0.0)  # never triggered
    b = _drive(tmp_path, "still", walker=frozen_walker)
    assert not b.events_of("scenario_trigger")
    s = score_bundle(b, TASK)
    assert s.status == "unscored"
    assert "m of the crossing and the pedestrian never moved" in s.reason, s.reason


def test_the_real_carla_recording_without_a_pedestrian_is_not_t13(tmp_path):
    out = tmp_path / "b"
    log, xodr = fixture_path("carla", "DistanceToLaneCenter.log"), fixture_path("carla", "Town01.xodr")
    assert main(["import", "carla", str(log), "--map", str(xodr), "--task", "T13", "--out", str(out)]) == 0
    b = read_bundle(out)
    assert not [a for a in b.snapshots["start"]["actors"] if a["kind"] == "walker"]
    s = score_bundle(b, TASK)
    assert s.status == "unscored" and s.reason.startswith("not this task's scenario: "), s.reason
    assert "no pedestrian at (205.0, 138.5)" in s.reason
