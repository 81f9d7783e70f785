"""Turn a CARLA recorder file into an episode bundle (signals, events, snapshots).

Signals, one row per recorded frame of the ego (CARLA world frame, left-handed: x forward,
y right, z up; metres = recorder centimetres / 100; yaw in degrees, clockwise seen from above):
`x_m y_m z_m yaw_deg speed_kmh throttle steer brake`, and with an OpenDRIVE map `lane_id
lane_offset_m` (`simbridge.adapters.kit.opendrive`). Speed comes from the Kinematics packets when the recording has
them (`additional_data=True`), else from the positions (central differences).

Events (times are recorder seconds):

* `collision`: every Collision record with the ego; data `other_kind` (vehicle, walker, static
  for props/signs/lights/non-actors, other), `other_id` (null for a non-actor), `other_type_id`,
  `x_m`, `y_m` (ego position). Records are not merged: merging (5 s / 5 m) is the verifier's.
* `lane_invasion` (map needed): the ego's body crosses its lane's edge outside junctions, i.e.
  |lane_offset_m| + half the ego's width > half the lane width, on the sample where that starts.
  The width is the recorded bounding box, else 0.9 m half width (a mid-size car).
* `red_light` (map needed): the ego enters a junction (its nearest lane goes from a road with
  junction -1 to a junction road) while the light governing its approach is red. The governing
  light is the traffic-light signal (type 1000001) of the road it leaves, on the ego lane's side
  (OpenDRIVE t of the same sign as the lane id), within 15 m (ScenarioRunner's
  RunningRedLightTest distance) of the road end it leaves by; the recorded light actor is the one
  at that signal's position (within 2 m). Without such a signal, the nearest recorded light within
  15 m to the right of the ego's heading. The state is the light's last recorded state at the
  first sample inside the junction.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from simbridge.canonical import RANGES
from simbridge import BundleError, EpisodeInfo, write_bundle
from simbridge.importing import IMPORTED, TRUNCATED_IMPORT, check_out, flags_of, prepare_out
from simbridge.adapters.carla._errors import RecorderFormatError
from simbridge.adapters.carla._format import NON_ACTOR_ID, ActorKind, TrafficLightState
from simbridge.adapters.kit.opendrive import TRAFFIC_LIGHT_TYPE, LaneLocator, OpenDriveMap, read_opendrive
from simbridge.adapters.carla._reader import Actor, Recording, read_recording

SIGNALS = ("x_m", "y_m", "z_m", "yaw_deg", "speed_kmh", "throttle", "steer", "brake")
#: ScenarioRunner RunningRedLightTest.DISTANCE_LIGHT
RED_LIGHT_DISTANCE_M = 15.0
DEFAULT_HALF_WIDTH_M = 0.9


def find_ego(rec: Recording, ego: int | None = None) -> Actor:
    if ego is not None:
        if ego not in rec.actors:
            raise BundleError(
                f"{rec.path}: no actor with id {ego} (vehicles: "
                f"{', '.join(str(a.id) for a in rec.actors.values() if a.kind == ActorKind.VEHICLE) or 'none'})"
            )
        return rec.actors[ego]
    heroes = rec.heroes()
    if not heroes:
        raise BundleError(f"{rec.path}: no actor with role_name 'hero'; name the ego with --ego ID")
    if len(heroes) > 1:
        raise BundleError(
            f"{rec.path}: {len(heroes)} actors with role_name 'hero' "
            f"({', '.join(str(a.id) for a in heroes)}); name the ego with --ego ID"
        )
    return heroes[0]


def _ego_selector(ego: int | None) -> Callable[[Actor], bool]:
    """The ego's track, and the walkers' (whether a scenario's pedestrian stepped out)."""
    if ego is not None:
        return lambda a: a.id == ego or a.kind == ActorKind.WALKER
    return lambda a: a.role_name == "hero" or a.kind == ActorKind.WALKER


#: actor kinds listed in snapshots start.actors (a scenario's parked vehicles, pedestrians, props)
_SCENARIO_KINDS = {ActorKind.VEHICLE: "vehicle", ActorKind.WALKER: "walker", ActorKind.OTHER: "static"}


def scenario_actors(rec: Recording, ego: Actor) -> list[dict[str, Any]]:
    """Every vehicle, walker and prop the recording created, but the ego: where it spawned, when
    it came and went, and how far it moved from its spawn (walkers, whose tracks are read):
    what a task's scenario check matches its declared actors against."""
    out: list[dict[str, Any]] = []
    for a in rec.actors.values():
        kind = _SCENARIO_KINDS.get(a.kind)
        if kind is None or a.id == ego.id:
            continue
        item: dict[str, Any] = {
            "id": a.id,
            "kind": kind,
            "type_id": a.type_id,
            "role_name": a.role_name,
            "x_m": round(float(a.location_m[0]), 3),
            "y_m": round(float(a.location_m[1]), 3),
            "created_t": a.created_t,
            "destroyed_t": a.destroyed_t,
        }
        tr = rec.tracks.get(a.id)
        if tr is not None and tr.t.size:
            moved = np.hypot(tr.x_m.astype(float) - a.location_m[0], tr.y_m.astype(float) - a.location_m[1])
            item["moved_m"] = round(float(moved.max()), 3)
        out.append(item)
    return out


def _other_kind(rec: Recording, other: int) -> str:
    if other == NON_ACTOR_ID:
        return "static"
    a = rec.actors.get(other)
    if a is None:
        return "other"
    if a.kind == ActorKind.VEHICLE:
        return "vehicle"
    if a.kind == ActorKind.WALKER:
        return "walker"
    if a.kind in (ActorKind.OTHER, ActorKind.TRAFFIC_LIGHT, ActorKind.TRAFFIC_SIGN):
        return "static"
    return "other"


def _state_at(changes: np.ndarray, t: float) -> int | None:
    i = int(np.searchsorted(changes["t"], t, side="right")) - 1
    return int(changes["state"][i]) if i >= 0 else None


def build(
    rec: Recording, *, odr: OpenDriveMap | None = None, ego: int | None = None
) -> tuple[dict[str, np.ndarray], list[dict[str, Any]], dict[str, Any]]:
    """Signals (columns with 't'), events and snapshots for the ego of a recording."""
    actor = find_ego(rec, ego)
    track = rec.tracks.get(actor.id)
    if track is None or track.t.size == 0:
        raise BundleError(f"{rec.path}: actor {actor.id} ({actor.type_id}) has no recorded positions")
    t = track.t
    cols: dict[str, np.ndarray] = {
        "t": t,
        "x_m": track.x_m.astype(float),
        "y_m": track.y_m.astype(float),
        "z_m": track.z_m.astype(float),
        "yaw_deg": track.yaw_deg.astype(float),
    }
    kin = rec.extra.get("kinematics", {}).get(actor.id)
    speed = np.full(t.size, np.nan)
    if kin is not None and kin.size:
        k = _align(track.frame, kin["frame_index"])
        v = np.sqrt(kin["vx"].astype(float) ** 2 + kin["vy"].astype(float) ** 2 + kin["vz"].astype(float) ** 2) * 3.6
        speed[k >= 0] = v[k[k >= 0]]
    missing = np.isnan(speed)
    if missing.any() and t.size >= 2:
        dist = (
            np.sqrt(
                np.gradient(cols["x_m"], t) ** 2 + np.gradient(cols["y_m"], t) ** 2 + np.gradient(cols["z_m"], t) ** 2
            )
            if np.all(np.diff(t) > 0)
            else np.full(t.size, np.nan)
        )
        speed[missing] = dist[missing] * 3.6
    cols["speed_kmh"] = speed
    ctl = rec.controls.get(actor.id)
    for name in ("throttle", "steer", "brake"):
        col = np.full(t.size, np.nan)
        if ctl is not None and ctl.size:
            k = _align(track.frame, ctl["frame_index"])
            col[k >= 0] = ctl[name][k[k >= 0]]
        cols[name] = col

    events: list[dict[str, Any]] = []
    for c in rec.collisions:
        if actor.id not in (c.actor1, c.actor2):
            continue
        other = c.actor2 if c.actor1 == actor.id else c.actor1
        i = int(np.clip(np.searchsorted(track.frame, c.frame), 0, t.size - 1))
        oa = rec.actors.get(other)
        events.append(
            {
                "t": c.t,
                "kind": "collision",
                "data": {
                    "other_kind": _other_kind(rec, other),
                    "other_id": None if other == NON_ACTOR_ID else other,
                    "other_type_id": oa.type_id if oa else None,
                    "collision_id": c.collision_id,
                    "x_m": float(cols["x_m"][i]),
                    "y_m": float(cols["y_m"][i]),
                },
            }
        )

    notes: list[str] = []
    if odr is not None:
        loc = LaneLocator(odr)
        pos = loc.locate(cols["x_m"], cols["y_m"])
        cols["lane_id"], cols["lane_offset_m"] = pos.canonical(RANGES["lane_offset_m"])
        events += _lane_invasions(rec, actor, t, pos)
        events += _red_lights(rec, odr, t, cols, pos)
    else:
        notes.append("no OpenDRIVE map: lane_id, lane_offset_m, lane_invasion and red_light are not computed")
    events.sort(key=lambda e: e["t"])

    snapshots = {
        "start": {
            "map": rec.header.map_name,
            "recorder_date_unix": rec.header.date_unix,
            "ego_id": actor.id,
            "ego_type_id": actor.type_id,
            "ego_role_name": actor.role_name,
            "ego_spawn_location_m": list(actor.location_m),
            "ego_spawn_rotation_deg": list(actor.rotation_deg),
            "actors": scenario_actors(rec, actor),
            "traffic_lights": sum(1 for a in rec.actors.values() if a.kind == ActorKind.TRAFFIC_LIGHT),
        },
        "end": {
            "frames": rec.n_frames,
            "duration_s": rec.duration_s,
            "collisions_total": len(rec.collisions),
            "ego_destroyed_t": actor.destroyed_t,
        },
        "source": {
            "recorder_file": str(rec.path),
            "packet_counts": {str(k): v for k, v in sorted(rec.packet_counts.items())},
            "unknown_packets": {str(k): v for k, v in sorted(rec.unknown_packets.items())},
            "id_layout": rec.id_layout,
            "coordinates": "CARLA world frame, left-handed: x forward, y right, "
            "z up; metres; yaw degrees clockwise seen from above",
            "notes": notes,
        },
    }
    return cols, events, snapshots


def _align(frames: np.ndarray, other: np.ndarray) -> np.ndarray:
    """For each of `frames`, the index of the same frame in sorted `other`, or -1."""
    k = np.searchsorted(other, frames)
    k = np.clip(k, 0, max(other.size - 1, 0))
    ok = other.size > 0
    hit = (other[k] == frames) if ok else np.zeros(frames.size, bool)
    return np.where(hit, k, -1)


def _lane_invasions(rec: Recording, actor: Actor, t: np.ndarray, pos: Any) -> list[dict[str, Any]]:
    box = rec.bounding_boxes.get(actor.id)
    half = float(box[1][1]) if box and box[1][1] > 0 else DEFAULT_HALF_WIDTH_M
    outside = (np.abs(pos.lane_offset_m) + half > pos.lane_width_m / 2.0) & (pos.junction_id == -1)
    start = outside & ~np.concatenate([[False], outside[:-1]])
    out = []
    for i in np.flatnonzero(start):
        out.append(
            {
                "t": float(t[i]),
                "kind": "lane_invasion",
                "data": {
                    "side": "left" if pos.lane_offset_m[i] > 0 else "right",
                    "lane_id": int(pos.lane_id[i]),
                    "road_id": int(pos.road_id[i]),
                    "lane_offset_m": float(pos.lane_offset_m[i]),
                    "lane_width_m": float(pos.lane_width_m[i]),
                    "half_width_m": half,
                },
            }
        )
    return out


def _red_lights(
    rec: Recording, odr: OpenDriveMap, t: np.ndarray, cols: dict[str, np.ndarray], pos: Any
) -> list[dict[str, Any]]:
    lights = [a for a in rec.actors.values() if a.kind == ActorKind.TRAFFIC_LIGHT]
    if not lights:
        return []
    lxy = np.array([a.location_m[:2] for a in lights])
    in_j = pos.junction_id != -1
    entries = np.flatnonzero(in_j[1:] & ~in_j[:-1]) + 1
    out = []
    for i in entries:
        road, lane = int(pos.road_id[i - 1]), int(pos.lane_id[i - 1])
        px, py = float(cols["x_m"][i - 1]), float(cols["y_m"][i - 1])
        light = _governing_light(odr, road, lane, lights, lxy)
        how = "signal"
        if light is None:
            how = "nearest"
            yaw = math.radians(float(cols["yaw_deg"][i - 1]))
            dx, dy = lxy[:, 0] - px, lxy[:, 1] - py
            right = -dx * math.sin(yaw) + dy * math.cos(yaw)
            d = np.hypot(dx, dy)
            ok = (d <= RED_LIGHT_DISTANCE_M) & (right > 0)
            if ok.any():
                light = lights[int(np.flatnonzero(ok)[np.argmin(d[ok])])]
        if light is None or light.id not in rec.traffic_lights:
            continue
        state = _state_at(rec.traffic_lights[light.id], float(t[i]))
        if state == TrafficLightState.RED:
            out.append(
                {
                    "t": float(t[i]),
                    "kind": "red_light",
                    "data": {
                        "light_id": light.id,
                        "road_id": road,
                        "lane_id": lane,
                        "junction_id": int(pos.junction_id[i]),
                        "x_m": float(cols["x_m"][i]),
                        "y_m": float(cols["y_m"][i]),
                        "matched_by": how,
                    },
                }
            )
    return out


def _governing_light(odr: OpenDriveMap, road: int, lane: int, lights: list[Actor], lxy: np.ndarray) -> Actor | None:
    r = odr.roads.get(road)
    if r is None or lane == 0:
        return None
    exit_s = r.length if lane < 0 else 0.0
    best = None
    for sg in odr.signals:
        if sg.road != road or sg.type != TRAFFIC_LIGHT_TYPE or (sg.t < 0) != (lane < 0):
            continue
        gap = abs(sg.s - exit_s)
        if gap > RED_LIGHT_DISTANCE_M:
            continue
        d = np.hypot(lxy[:, 0] - sg.x_m, lxy[:, 1] - sg.y_m)
        k = int(np.argmin(d))
        if d[k] <= 2.0 and (best is None or gap < best[0]):
            best = (gap, lights[k])
    return best[1] if best else None


def import_recording(
    log: str | Path,
    out: str | Path,
    *,
    map_path: str | Path | None = None,
    task_id: str = "T18",
    ego: int | None = None,
    allow_truncated: bool = False,
    force: bool = False,
) -> Path:
    """Read a recorder file and write a complete bundle to `out`. Returns the bundle path.

    With `allow_truncated`, a file that ends inside a packet keeps the frames before it and the
    bundle is flagged `truncated_import` (the detail, with the byte offset, in status_detail)."""
    check_out(out, force=force)
    truncated: str | None = None
    try:
        rec = read_recording(log, track=_ego_selector(ego))
    except RecorderFormatError as exc:
        if not allow_truncated:
            raise
        rec = read_recording(log, track=_ego_selector(ego), allow_truncated=True)
        truncated = str(exc)
    odr: OpenDriveMap | None = None
    if map_path is not None:
        odr = read_opendrive(map_path)
        stem = Path(map_path).stem.lower()
        if rec.header.map_name and rec.header.map_name.split("/")[-1].lower() != stem:
            raise BundleError(
                f"{map_path}: the recording is on map {rec.header.map_name!r}, not {Path(map_path).stem!r}"
            )
    cols, events, snapshots = build(rec, odr=odr, ego=ego)
    t = cols["t"]
    rate = (t.size - 1) / (t[-1] - t[0]) if t.size > 1 and t[-1] > t[0] else None
    detail = f"imported from {Path(log).name}"
    if truncated:
        detail += f"; truncated recording, frames before the cut kept: {truncated}"
        snapshots["source"]["truncated"] = truncated
    episode = EpisodeInfo(
        task_id=task_id,
        sim="carla",
        adapter="carla.recorder_import",
        status="completed",
        status_detail=detail,
        sample_rate_hz=rate,
        flags=flags_of(IMPORTED, TRUNCATED_IMPORT if truncated else None),
        sim_info={"map": rec.header.map_name},
    )
    return write_bundle(prepare_out(out, force=force), episode, cols, events=events, snapshots=snapshots)
