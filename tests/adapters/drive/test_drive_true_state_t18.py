"""The world, the host mapping and T18's verifier agree: a controller on TRUE state (pure pursuit
along SUMO's lane -2 path, speed held at 90 km/h) drives Town04's highway for 140 s and T18's
unchanged verifier scores it 1.0, while the same drive 1.5 m off-centre loses the lateral items.
This is not a reference driver (those read pixels); it proves the pieces fit."""

from __future__ import annotations

import math

import numpy as np
import pytest

import libsumo
import vehiclemodels  # noqa: F401

from simbridge import read_bundle  # noqa: E402
from simbridge._bundle import write_bundle  # noqa: E402
from simbridge._task import load_task  # noqa: E402
from simbridge.adapters.drive.world._dynamics import MAX_WHEEL_ANGLE_RAD, WHEELBASE_M  # noqa: E402
from simbridge.adapters.drive._mapping import CanonicalMapper  # noqa: E402
from simbridge.adapters.drive.world._net import xodr_path  # noqa: E402
from simbridge.adapters.drive._scenario import from_task  # noqa: E402
from simbridge.adapters.drive.world._scene import EgoControls, carla_xy  # noqa: E402
from simbridge.adapters.drive.world._world import World, resample  # noqa: E402
from simbridge import score_bundle  # noqa: E402

pytestmark = pytest.mark.slow


def _lane_path(w: World, length_m: float) -> np.ndarray:
    """The ego's SUMO lane followed straight on (CARLA metres, 1 m)."""
    lane, pts, total = libsumo.vehicle.getLaneID("ego"), [], 0.0
    while total < length_m:
        pts += list(libsumo.lane.getShape(lane))
        total += libsumo.lane.getLength(lane)
        links = libsumo.lane.getLinks(lane)
        nxt = [lk for lk in links if lk[6] == "s"] or links
        if nxt[0][4]:
            pts += list(libsumo.lane.getShape(nxt[0][4]))
        lane = nxt[0][0]
    return np.array(resample([carla_xy(x, y, w.offset) for x, y in pts], 1.0))


def _drive(tmp_path, bias_m: float) -> float:
    task = load_task("T18")
    w = World(from_task(task))
    try:
        path = _lane_path(w, 4200.0)
        mapper = CanonicalMapper(xodr_path("Town04"))
        names = ("x_m", "y_m", "yaw_deg", "speed_kmh", "lane_id", "lane_offset_m", "throttle", "steer", "brake")
        cols: dict[str, list[float]] = {k: [] for k in ("t", *names)}
        events: list[dict] = []
        k = 0
        for _ in range(int(140.0 / 0.05)):
            s = w.ego.state
            lo = max(0, k - 5)
            k = lo + int(np.argmin(np.hypot(path[lo : k + 60, 0] - s.x_m, path[lo : k + 60, 1] - s.y_m)))
            j = min(len(path) - 2, k + int(max(8.0, 0.6 * s.v_ms)))
            tx, ty = path[j]
            if bias_m:  # aim off-centre, to the left of the path's direction (CARLA: y right)
                hx, hy = path[j + 1] - path[j]
                tx, ty = tx + bias_m * hy, ty - bias_m * hx
            ang = math.atan2(ty - s.y_m, tx - s.x_m) - s.yaw_rad
            ang = (ang + math.pi) % (2 * math.pi) - math.pi
            delta = math.atan2(2 * WHEELBASE_M * math.sin(ang), math.hypot(tx - s.x_m, ty - s.y_m))
            throttle = min(1.0, max(0.0, 0.3 + 0.15 * (90.0 - s.speed_kmh)))
            events += w.step(EgoControls(throttle=throttle, steer=max(-1.0, min(1.0, delta / MAX_WHEEL_ANGLE_RAD))))
            raw = w.sample()
            canon, lane_events = mapper.map(raw["t"], raw)
            events += lane_events
            cols["t"].append(raw["t"])
            for name in names:
                cols[name].append(canon[name])
    finally:
        w.close()
    out = write_bundle(
        tmp_path / f"bias{bias_m}",
        {"task_id": "T18", "sim": "drive", "status": "completed"},
        cols,
        events=events,
        snapshots={"start": {"map": "Town04"}},
    )
    verdict = score_bundle(read_bundle(out), task)
    assert verdict.status == "scored", verdict.reason
    return float(verdict.score)


def test_true_state_lane_keeping_scores_full_and_an_off_centre_drive_does_not(tmp_path):
    assert _drive(tmp_path, 0.0) == pytest.approx(1.0)
    assert _drive(tmp_path, 1.5) < 0.5  # lane invasions and a large RMS
