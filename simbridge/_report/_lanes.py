"""Lane geometry under a driving track: which OpenDRIVE map a bundle was driven on, and its lane
centre lines and boundaries as plot-ready polylines in CARLA's world frame.

The map is found the way the CARLA adapter leaves it, never in the repository's tests:

1. an ``.xodr`` inside the bundle (its own copy);
2. the start snapshot's ``map_file`` (the live session writes the server's map there), absolute
   or relative to the bundle;
3. ``<name>.xodr`` in a directory of ``$SIMBRIDGE_CARLA_MAPS`` (``os.pathsep``-separated), the
   name being the episode's map (``Carla/Maps/Town01`` -> ``Town01``), the start snapshot's
   ``map``, the task scenario's ``map_file`` or its ``town``.

The file is read by the episode's simulator's `lane_map` (its `AdapterSpec`, found in the
registry: the OpenDRIVE reader of the adapters' kit for CARLA and the drive simulator), so the
report reads no simulator's map format itself. Coordinates: the samples come in CARLA's
left-handed frame (x forward/east, y right/south, yaw clockwise), so nothing is negated here;
the page draws y downwards.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from simbridge._bundle import Bundle
from simbridge._errors import SimbridgeError
from simbridge._task import TaskSpec
from simbridge.registry import load, registry

#: environment variable: directories holding CARLA town maps (<Town>.xodr)
MAPS_ENV = "SIMBRIDGE_CARLA_MAPS"
#: spacing of the drawn lane polylines, metres (the importer samples at 0.25 m; 2 m keeps the page small)
DRAW_STEP_M = 2.0


@dataclass(frozen=True)
class LaneLines:
    """Polylines in CARLA metres, each list of lines joined by NaN breaks (one Plotly trace each)."""

    map_path: Path
    centre_x_m: np.ndarray
    centre_y_m: np.ndarray
    edge_x_m: np.ndarray
    edge_y_m: np.ndarray


def _map_names(bundle: Bundle, task: TaskSpec) -> list[str]:
    start = bundle.snapshots.get("start") if isinstance(bundle.snapshots, dict) else None
    scene = dict(task.initial_state.scenario or {}) if task.initial_state else {}
    raw = [
        (bundle.episode.sim_info or {}).get("map"),
        (start or {}).get("map"),
        scene.get("map_file"),
        scene.get("town"),
    ]
    names: list[str] = []
    for r in raw:
        if not isinstance(r, str) or not r.strip():
            continue
        m = re.search(r"([A-Za-z0-9_.-]+?)(?:\.xodr)?(?:\s|$)", r.strip().split("/")[-1])
        if m and m.group(1) not in names:
            names.append(m.group(1))
    return names


def find_map(bundle_dir: Path, bundle: Bundle, task: TaskSpec) -> tuple[Path | None, str]:
    """The OpenDRIVE file for this bundle, or None and one line saying where it was looked for."""
    own = sorted(bundle_dir.glob("*.xodr"))
    if own:
        return own[0], ""
    looked = ["no .xodr in the bundle"]
    start = bundle.snapshots.get("start") if isinstance(bundle.snapshots, dict) else None
    snap = (start or {}).get("map_file")
    if isinstance(snap, str) and snap:
        p = Path(snap) if Path(snap).is_absolute() else bundle_dir / snap
        if p.is_file():
            return p, ""
        looked.append(f"snapshot map_file {snap} is gone")
    names = _map_names(bundle, task)
    dirs = [Path(d) for d in os.environ.get(MAPS_ENV, "").split(os.pathsep) if d]
    for d in dirs:
        for n in names:
            if (d / f"{n}.xodr").is_file():
                return d / f"{n}.xodr", ""
    want = ", ".join(f"{n}.xodr" for n in names) or "no map name recorded"
    looked.append(f"{want} not in ${MAPS_ENV}" + ("" if dirs else " (unset)"))
    return None, "; ".join(looked)


def lane_map_reader(sim: str) -> str | None:
    """The "module:function" that reads simulator `sim`'s road maps (its AdapterSpec's
    `lane_map`); None for a simulator without lane maps or one not registered."""
    entry = registry().find("simulator", sim)
    return getattr(entry.value, "lane_map", None) if entry is not None else None


@lru_cache(maxsize=4)
def _samples(reader: str, path: str, mtime_ns: int) -> Any:
    return load(reader, "lane map reader")(path, DRAW_STEP_M)


def _join(parts: list[np.ndarray]) -> np.ndarray:
    out: list[np.ndarray] = []
    for p in parts:
        out += [p, np.array([np.nan])]
    return np.concatenate(out) if out else np.array([])


def lane_lines(
    map_path: Path, bbox_m: tuple[float, float, float, float], sim: str, margin_m: float = 30.0
) -> LaneLines:
    """Driving-lane centre lines and both boundaries (centre ± width/2 along the lane's right
    vector), cropped to `bbox_m` = (x_min, x_max, y_min, y_max) grown by `margin_m`, the map read
    by simulator `sim`'s lane-map reader. Raises SimbridgeError (OpenDriveError for an
    unreadable OpenDRIVE file) when there is no reader or the map cannot be read."""
    reader = lane_map_reader(sim)
    if reader is None:
        raise SimbridgeError(f"simulator {sim!r} declares no lane-map reader")
    s = _samples(reader, str(map_path), map_path.stat().st_mtime_ns)
    x0, x1, y0, y1 = bbox_m
    yaw = np.radians(s.yaw_deg)
    rx, ry = -np.sin(yaw), np.cos(yaw)  # CARLA's right vector of a yaw (y right)
    half = s.width_m / 2.0
    inside = (s.x_m >= x0 - margin_m) & (s.x_m <= x1 + margin_m) & (s.y_m >= y0 - margin_m) & (s.y_m <= y1 + margin_m)
    # one polyline per (road, lane) run of consecutive samples; broken where the crop cuts it
    key = np.column_stack([s.road, s.lane])
    new = np.ones(s.x_m.size, bool)
    new[1:] = (key[1:] != key[:-1]).any(1) | ~inside[:-1]
    runs = np.split(np.arange(s.x_m.size), np.flatnonzero(new)[1:])
    cx, cy, ex, ey = [], [], [], []
    for r in runs:
        r = r[inside[r]]
        if r.size < 2:
            continue
        cx.append(s.x_m[r])
        cy.append(s.y_m[r])
        for side in (1.0, -1.0):
            ex.append(s.x_m[r] + side * half[r] * rx[r])
            ey.append(s.y_m[r] + side * half[r] * ry[r])
    rnd = lambda a: np.round(_join(a), 2)  # noqa: E731 - centimetres are plenty for a page
    return LaneLines(map_path, rnd(cx), rnd(cy), rnd(ex), rnd(ey))
