"""T13 on the drive world, driven on TRUE state: at the speed limit down the road, braking while
the scripted walker is in the car's path, then on to the route's end. T13's unchanged verifier
scores it 1.0; the same drive that does not brake hits the walker and loses that item."""

from __future__ import annotations

import pytest

import libsumo  # noqa: F401
import vehiclemodels  # noqa: F401

from simbridge import read_bundle  # noqa: E402
from simbridge._bundle import write_bundle  # noqa: E402
from simbridge._task import load_task  # noqa: E402
from simbridge.adapters.drive._mapping import CanonicalMapper  # noqa: E402
from simbridge.adapters.drive.world._net import xodr_path  # noqa: E402
from simbridge.adapters.drive._scenario import from_task  # noqa: E402
from simbridge.adapters.drive._session import SIGNALS  # noqa: E402
from simbridge.adapters.drive.world._scene import EgoControls  # noqa: E402
from simbridge.adapters.drive.world._world import World  # noqa: E402
from simbridge.adapters.drive.world.sim import start_snapshot  # noqa: E402
from simbridge import score_bundle  # noqa: E402

pytestmark = pytest.mark.slow
NAMES = SIGNALS


def _drive(tmp_path, *, brakes: bool) -> dict[str, float]:
    task = load_task("T13")
    w = World(from_task(task))
    start = start_snapshot(w)  # what the drive process says at the start (map, actors)
    try:
        mapper = CanonicalMapper(xodr_path("Town01"), w.route_xy_m)
        end_x = w.route_xy_m[-1][0]
        cols: dict[str, list[float]] = {k: [] for k in ("t", *NAMES)}
        events: list[dict] = []
        for _ in range(int(90.0 / 0.05)):
            s = w.ego.state
            if s.x_m >= end_x - 1.0 and s.v_ms < 0.1:
                break
            target = 32.0 if s.x_m < end_x - 20.0 else 10.0
            if s.x_m >= end_x - 1.5:
                target = 0.0
            walker = w.walker_xy
            # the walker on the car's lane (y 131.5-135.5) ahead within 20 m: stop for it
            if brakes and walker and 0.0 < walker[0] - s.x_m < 20.0 and 131.0 < walker[1] < 136.0:
                target = 0.0
            err = target - s.speed_kmh
            control = EgoControls(
                throttle=min(1.0, max(0.0, 0.2 + 0.1 * err)) if err > 0 else 0.0,
                brake=1.0 if target == 0.0 else (min(1.0, -0.15 * err) if err < -1.0 else 0.0),
                steer=max(-0.2, min(0.2, 0.3 * (133.41 - s.y_m) - 0.5 * s.yaw_rad)),
            )
            events += w.step(control)
            raw = w.sample()
            canon, lane_events = mapper.map(raw["t"], raw)
            events += lane_events
            cols["t"].append(raw["t"])
            for name in NAMES:
                cols[name].append(canon[name])
    finally:
        w.close()
    out = write_bundle(
        tmp_path / f"brakes{brakes}",
        {"task_id": "T13", "sim": "drive", "status": "completed"},
        cols,
        events=events,
        snapshots={"start": start},
    )
    verdict = score_bundle(read_bundle(out), task)
    assert verdict.status == "scored", verdict.reason
    return {c.name: c.earned for c in verdict.components}


def test_stopping_for_the_walker_scores_full(tmp_path):
    assert _drive(tmp_path, brakes=True) == {
        "no_pedestrian_collision": 1.0,
        "speed_before_event": 1.0,
        "route_completed": 1.0,
    }


def test_not_braking_hits_the_walker_and_loses_that_item(tmp_path):
    comps = _drive(tmp_path, brakes=False)
    assert comps["no_pedestrian_collision"] == 0.0 and comps["speed_before_event"] == 1.0
