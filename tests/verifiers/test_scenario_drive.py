"""T06's and T18's scenarios are part of their scores, on recordings of the embedded drive
simulator's world (SUMO networks of CARLA's towns): the ego standing 3 s where the task puts it
is the task's scenario (scored); the same world with the ego elsewhere on the map is not
(unscored, a harness fault of the live simulator), whatever the verifier would make of it."""

from __future__ import annotations

import dataclasses

import pytest

import libsumo  # noqa: F401
import vehiclemodels  # noqa: F401

from simbridge import read_bundle  # noqa: E402
from simbridge._bundle import write_bundle  # noqa: E402
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


def _stand(tmp_path, task_id: str, **change):
    task = load_task(task_id)
    sc = dataclasses.replace(from_task(task, seed=1), traffic_vehicles=0, **change)
    w = World(sc)
    start = start_snapshot(w)
    try:
        mapper = CanonicalMapper(xodr_path(sc.town), w.route_xy_m or None)
        cols: dict[str, list[float]] = {"t": []}
        events: list[dict] = []
        for _ in range(60):  # 3 s at 20 Hz, brakes on
            events += w.step(EgoControls(throttle=0.0, brake=1.0, steer=0.0))
            raw = w.sample()
            canon, lane_events = mapper.map(raw["t"], raw)
            events += lane_events
            cols["t"].append(raw["t"])
            for k in SIGNALS:
                if k in canon:  # route_progress only where the task has a route
                    cols.setdefault(k, []).append(canon[k])
    finally:
        w.close()
    name = f"{task_id}-{'moved' if change else 'there'}"
    out = write_bundle(
        tmp_path / name,
        {"task_id": task_id, "sim": "drive", "status": "completed"},
        cols,
        events=events,
        snapshots={"start": start},
    )
    return read_bundle(out), task


@pytest.mark.parametrize("task_id", ["T06", "T18"])
def test_the_tasks_own_start_is_its_scenario(tmp_path, task_id):
    b, task = _stand(tmp_path, task_id)
    if task_id == "T06":
        assert b.snapshots["start"]["traffic_lights"] > 0  # the route's signalised junctions
    s = score_bundle(b, task)
    assert s.status == "scored", s.reason


@pytest.mark.parametrize("task_id", ["T06", "T18"])
def test_the_same_map_elsewhere_is_not_the_scenario(tmp_path, task_id):
    sc = from_task(load_task(task_id), seed=1)
    # T18: 150 m back along Town04's highway; T06: 150 m along Town03's spawn road
    moved = dict(ego_x_m=sc.ego_x_m + 150.0) if task_id == "T18" else dict(ego_y_m=sc.ego_y_m + 150.0)
    b, task = _stand(tmp_path, task_id, **moved)
    s = score_bundle(b, task)
    assert s.status == "unscored", s
    assert s.reason.startswith("harness fault, not an agent failure: the simulator did not set up this task's scenario")
    assert "m from the scenario's start" in s.reason, s.reason
