"""T06 on the drive world, driven on TRUE state (pure pursuit along the planned route, stopping
for the SUMO light of each stop line on it): T06's unchanged verifier scores the drive 1.0; the
same drive through a light held red (scripted) loses exactly the red-light item. Not a reference
driver (those read pixels): it shows the red_light events and the route mean what the verifier
needs."""

from __future__ import annotations

import dataclasses
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
from simbridge.adapters.drive._session import SIGNALS  # noqa: E402
from simbridge.adapters.drive.world._scene import EgoControls, carla_xy, sumo_xy  # noqa: E402
from simbridge.adapters.drive.world._world import World  # noqa: E402
from simbridge.adapters.drive.world.sim import start_snapshot  # noqa: E402
from simbridge import score_bundle  # noqa: E402

pytestmark = pytest.mark.slow
NAMES = SIGNALS


def _drive(tmp_path, *, run_first_light_red: bool) -> list:
    task = load_task("T06")
    w = World(dataclasses.replace(from_task(task, seed=1), traffic_vehicles=0))
    start = start_snapshot(w)  # what the drive process says at the start (map, lights, actors)
    try:
        route = np.array(w.route_xy_m)
        n = len(route)
        stops = []  # (route index of a stop line, its approach)
        for ap in w._approaches:
            ex, ey = carla_xy(*ap.end_xy, w.offset)
            d = np.hypot(route[:, 0] - ex, route[:, 1] - ey)
            if d.min() < 1.0:
                stops.append((int(d.argmin()), ap))
        stops.sort(key=lambda s: s[0])
        assert len({ap.tls for _, ap in stops}) >= 2
        first = stops[0][1]
        mapper = CanonicalMapper(xodr_path("Town03"), [tuple(p) for p in route])
        cols: dict[str, list[float]] = {k: [] for k in ("t", *NAMES)}
        events: list[dict] = []
        k = 0
        for _ in range(int(300.0 / 0.05)):
            s = w.ego.state
            lo = max(0, k - 5)
            k = lo + int(np.argmin(np.hypot(route[lo : k + 30, 0] - s.x_m, route[lo : k + 30, 1] - s.y_m)))
            if k >= n - 2 and s.v_ms < 0.1:
                break
            tx, ty = route[min(n - 1, k + int(max(5.0, 0.5 * s.v_ms)))]
            ang = (math.atan2(ty - s.y_m, tx - s.x_m) - s.yaw_rad + math.pi) % (2 * math.pi) - math.pi
            delta = math.atan2(2 * WHEELBASE_M * math.sin(ang), math.hypot(tx - s.x_m, ty - s.y_m))
            a, b = route[min(n - 1, k + 5)] - route[k], route[min(n - 1, k + 20)] - route[min(n - 1, k + 5)]
            v_kmh = 25.0 if abs(math.atan2(a[0] * b[1] - a[1] * b[0], a @ b)) < 0.3 else 15.0
            for i, ap in stops:  # the next stop line within 35 m
                if -2.5 < i - k < 35:
                    if run_first_light_red and ap is first:
                        n_links = len(libsumo.trafficlight.getRedYellowGreenState(ap.tls))
                        libsumo.trafficlight.setRedYellowGreenState(ap.tls, "r" * n_links)
                        break  # ... and the driver ignores it
                    past = np.array(sumo_xy(*route[min(n - 1, i + 5)], w.offset))
                    idx = min(ap.links, key=lambda lk: float(np.hypot(*(past - lk[1]))))[0]
                    if libsumo.trafficlight.getRedYellowGreenState(ap.tls)[idx] in "rRuyY" and i - k > 2.5:
                        v_kmh = min(v_kmh, 3.6 * math.sqrt(max(0.0, 6.0 * (i - k - 3.5))))
                    break
            if k >= n - 12:
                v_kmh = min(v_kmh, 3.6 * math.sqrt(max(0.0, 4.0 * (n - 2 - k))))
            err = v_kmh - s.speed_kmh
            events += w.step(
                EgoControls(
                    throttle=min(1.0, max(0.0, 0.2 + 0.1 * err)) if err > 0 else 0.0,
                    brake=min(1.0, -0.15 * err) if err < -1.0 or v_kmh == 0.0 else 0.0,
                    steer=max(-1.0, min(1.0, delta / MAX_WHEEL_ANGLE_RAD)),
                )
            )
            raw = w.sample()
            canon, lane_events = mapper.map(raw["t"], raw)
            events += lane_events
            cols["t"].append(raw["t"])
            for name in NAMES:
                cols[name].append(canon[name])
    finally:
        w.close()
    out = write_bundle(
        tmp_path / f"red{run_first_light_red}",
        {"task_id": "T06", "sim": "drive", "status": "completed"},
        cols,
        events=events,
        snapshots={"start": {**start, "route_xy_m": route.tolist()}},
    )
    verdict = score_bundle(read_bundle(out), task)
    assert verdict.status == "scored", verdict.reason
    assert cols["route_progress"][-1] > 0.99
    return verdict.components


def test_true_state_route_with_lights_scores_full(tmp_path):
    comps = {c.name: c.earned for c in _drive(tmp_path, run_first_light_red=False)}
    assert comps == {"route_completion": 1.0, "no_red_light": 1.0, "no_collision": 1.0, "under_time": 1.0}


def test_running_a_red_light_loses_exactly_the_red_light_item(tmp_path):
    comps = {c.name: c.earned for c in _drive(tmp_path, run_first_light_red=True)}
    assert comps == {"route_completion": 1.0, "no_red_light": 0.0, "no_collision": 1.0, "under_time": 1.0}
