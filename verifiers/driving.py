"""Driving verifiers for CARLA recordings: route with traffic lights (T06), parallel parking (T07),
pedestrian crossing (T13) and highway lane keeping (T18).

Semantics follow ScenarioRunner's criteria (scenario_runner v0.9.15/0.9.16
`atomic_criteria.py`) where the catalog leaves room:

* RouteCompletionTest: the route is a polyline of waypoints; a waypoint counts as passed when
  the ego comes within 10 m of it, in route order; completion is the route length up to the
  last passed waypoint over the whole length, and the route is complete at 99 %.
* CollisionTest: repeated contacts are one collision when they are with the same actor within
  5 s, or within 5 m of the last counted one within 5 s.
* RunningRedLightTest: the importer emits `red_light` when the ego enters a junction past the
  stop line while its light is red; one crossing of one light is one infraction.

Positions are CARLA world metres (left-handed, x forward/east, y right/south, yaw from +x
toward +y in degrees), as the CARLA importer writes them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import Field

from simbridge._bundle import Event
from simbridge._errors import Unscorable
from simbridge.verifiers import primitives as P
from simbridge.verifiers._registry import Params, VerifyContext, verifier

ROUTE_RADIUS_M = 10.0
ROUTE_SUCCESS_FRACTION = 0.99
COLLISION_WINDOW_S = 5.0
COLLISION_RADIUS_M = 5.0


# --------------------------------------------------------------------------- route completion


def densify_route(route_xy: Sequence[Sequence[float]], step_m: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Points every `step_m` along the polyline (vertices kept) and their arc length from the start.

    ScenarioRunner's routes are interpolated at about 1 m, so a route given by its corners
    is judged on the same waypoint density."""
    pts = np.asarray(route_xy, dtype=float)
    if pts.ndim != 2 or pts.shape[0] < 2 or pts.shape[1] != 2:
        raise ValueError("a route needs at least 2 (x, y) waypoints")
    seg = np.diff(pts, axis=0)
    seg_len = np.hypot(seg[:, 0], seg[:, 1])
    n_sub = np.maximum(1, np.ceil(seg_len / step_m)).astype(int)
    frac = np.concatenate([np.arange(n) / n for n in n_sub])  # per-segment fractions, one loop per vertex
    seg_idx = np.repeat(np.arange(seg.shape[0]), n_sub)
    dense = pts[seg_idx] + seg[seg_idx] * frac[:, None]
    dense = np.vstack([dense, pts[-1]])
    d = np.hypot(*np.diff(dense, axis=0).T)
    s = np.concatenate(([0.0], np.cumsum(d)))
    return dense, s


@dataclass(frozen=True)
class RouteProgress:
    fraction: float  # 0..1 of the route length
    length_m: float
    t_complete: float | None  # first time the fraction reached ROUTE_SUCCESS_FRACTION
    t_last_passed: float | None


def route_progress(t: np.ndarray, x: np.ndarray, y: np.ndarray, route_xy: Sequence[Sequence[float]], *,
                   radius_m: float = ROUTE_RADIUS_M, order_slack_s: float = 5.0,
                   success_fraction: float = ROUTE_SUCCESS_FRACTION) -> RouteProgress:
    """RouteCompletionTest: waypoints passed in order within `radius_m`.

    A waypoint is passed at the first time the ego is within the radius. Passing stops at the
    first waypoint never reached, or first reached more than `order_slack_s` before a waypoint
    that precedes it on the route (driving the route backwards, or cutting across to its end,
    passes nothing beyond that point)."""
    dense, s = densify_route(route_xy)
    t = np.asarray(t, dtype=float)
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y)
    tt, xx, yy = t[ok], x[ok], y[ok]
    first_t = np.full(dense.shape[0], np.inf)
    r2 = radius_m * radius_m
    chunk = max(1, 4_000_000 // max(1, dense.shape[0]))
    for a in range(0, tt.size, chunk):  # bounded memory; loop over chunks, not samples
        dx = xx[a:a + chunk, None] - dense[None, :, 0]
        dy = yy[a:a + chunk, None] - dense[None, :, 1]
        near = dx * dx + dy * dy <= r2
        cand = np.where(near, tt[a:a + chunk, None], np.inf).min(axis=0)
        np.minimum(first_t, cand, out=first_t)
    reached = np.isfinite(first_t)
    run_max = np.maximum.accumulate(np.where(reached, first_t, -np.inf))
    prev_max = np.concatenate(([-np.inf], run_max[:-1]))
    good = reached & (first_t >= prev_max - order_slack_s)
    bad = np.flatnonzero(~good)
    last = (int(bad[0]) - 1) if bad.size else dense.shape[0] - 1
    length = float(s[-1])
    if last < 0:
        return RouteProgress(0.0, length, None, None)
    frac = float(s[last] / length) if length > 0 else 1.0
    t_done = None
    if frac >= success_fraction - 1e-12:
        k = int(np.searchsorted(s, success_fraction * length - 1e-9))
        t_done = float(run_max[k])
    return RouteProgress(frac, length, t_done, float(run_max[last]))


# --------------------------------------------------------------------------- events


def _ego_xy_at(ctx: VerifyContext, t: float) -> tuple[float, float]:
    x, y = ctx.opt("x_m"), ctx.opt("y_m")
    if x is None or y is None:
        return (math.nan, math.nan)
    ok = np.isfinite(x) & np.isfinite(y)
    return (float(np.interp(t, ctx.t[ok], x[ok])), float(np.interp(t, ctx.t[ok], y[ok])))


def merge_collisions(ctx: VerifyContext, events: Sequence[Event], *, window_s: float = COLLISION_WINDOW_S,
                     radius_m: float = COLLISION_RADIUS_M) -> list[Event]:
    """CollisionTest merging: a contact is a repeat of the last counted collision when it is with the
    same other actor within `window_s`, or within `radius_m` of it within `window_s`."""
    kept: list[Event] = []
    last_xy: tuple[float, float] = (math.nan, math.nan)
    for e in sorted(events, key=lambda e: e.t):  # one iteration per event, not per sample
        xy = (float(e.data.get("x_m", math.nan)), float(e.data.get("y_m", math.nan)))
        if not all(map(math.isfinite, xy)):
            xy = _ego_xy_at(ctx, e.t)
        if kept:
            k = kept[-1]
            recent = e.t - k.t <= window_s
            same_actor = e.data.get("other_id") is not None and e.data.get("other_id") == k.data.get("other_id")
            near = math.dist(xy, last_xy) <= radius_m if all(map(math.isfinite, xy + last_xy)) else False
            if recent and (same_actor or near):
                continue
        kept.append(e)
        last_xy = xy
    return kept


def _other_kind(e: Event) -> str:
    return str(e.data.get("other_kind", e.data.get("other", e.data.get("kind", "unknown")))).lower()


def merge_red_lights(events: Sequence[Event], window_s: float = 10.0) -> list[Event]:
    """One infraction per crossing of one light: repeats for the same light id within `window_s` merge."""
    kept: list[Event] = []
    last_by_light: dict[object, float] = {}
    for e in sorted(events, key=lambda e: e.t):
        lid = e.data.get("tl_id", e.data.get("light_id"))
        if lid is not None and lid in last_by_light and e.t - last_by_light[lid] <= window_s:
            last_by_light[lid] = e.t
            continue
        if lid is not None:
            last_by_light[lid] = e.t
        kept.append(e)
    return kept


def _require_events_file(ctx: VerifyContext, what: str) -> None:
    """Events are judged only when the recorder wrote an events stream (an empty one is fine)."""
    if ctx.bundle.path is not None and "events.jsonl" not in ctx.bundle.files:
        raise Unscorable(f"no events.jsonl in the bundle: {what} undecidable")


def _route(ctx: VerifyContext, fallback: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The route the live client planned (snapshot `start.route_xy_m`) or the task's route."""
    snap = ctx.bundle.snapshot("start", "route_xy_m")
    route = snap if snap else fallback
    try:
        pts = [(float(p[0]), float(p[1])) for p in route]
    except (TypeError, ValueError, IndexError, KeyError):
        raise Unscorable("snapshot start.route_xy_m is not a list of [x, y] pairs") from None
    if len(pts) < 2 or not all(math.isfinite(v) for p in pts for v in p):
        raise Unscorable("no usable route geometry (task params route_xy_m or snapshot start.route_xy_m)")
    return pts


# --------------------------------------------------------------------------- T06 route


class RouteParams(Params):
    route_xy_m: list[tuple[float, float]] = Field(min_length=2)
    waypoint_radius_m: float = ROUTE_RADIUS_M
    success_fraction: float = ROUTE_SUCCESS_FRACTION
    time_limit_s: float = 300.0
    min_progress_for_infractions: float = 0.5
    collision_window_s: float = COLLISION_WINDOW_S
    collision_radius_m: float = COLLISION_RADIUS_M


@verifier("carla_route", params=RouteParams,
          components=("route_completion", "no_red_light", "no_collision", "under_time"))
def carla_route(ctx: VerifyContext) -> str:
    """Route completion scaled linearly up to 99 % (RouteCompletionTest's success); red lights and
    collisions counted over the whole episode after merging repeats, credited only once the ego
    has driven `min_progress_for_infractions` of the route (a car that never leaves the start
    has shown nothing about lights or traffic); time from the first sample to the moment the
    route is complete."""
    p: RouteParams = ctx.p
    t = ctx.t
    x, y = ctx.sig("x_m"), ctx.sig("y_m")
    _require_events_file(ctx, "collisions and red-light runs")
    ctx.require_coverage(float(t[0]), float(t[-1]), "route completion")
    prog = route_progress(t, x, y, _route(ctx, p.route_xy_m), radius_m=p.waypoint_radius_m,
                          success_fraction=p.success_fraction)
    pct = prog.fraction * 100
    ctx.component("route_completion", P.linear_credit(prog.fraction, 0.0, p.success_fraction),
                  measured=round(pct, 2), tolerance=f"linear 0→{p.success_fraction:.0%} of {prog.length_m:.0f} m",
                  window=(float(t[0]), prog.t_last_passed) if prog.t_last_passed is not None else None,
                  explanation=f"{pct:.1f}% of the route passed within {p.waypoint_radius_m:g} m, in order")

    reds = merge_red_lights(ctx.bundle.events_of("red_light"))
    cols = merge_collisions(ctx, ctx.bundle.events_of("collision"), window_s=p.collision_window_s,
                            radius_m=p.collision_radius_m)
    exposed = prog.fraction >= p.min_progress_for_infractions
    short = "" if exposed else f"drove only {pct:.0f}% of the route (< {p.min_progress_for_infractions:.0%}): not exposed to its lights and traffic"
    ctx.component("no_red_light", exposed and len(reds) == 0, measured=len(reds), tolerance="0 red-light runs",
                  explanation=short or ", ".join(f"t={e.t:.1f}s" for e in reds))
    ctx.component("no_collision", exposed and len(cols) == 0, measured=len(cols),
                  tolerance=f"0 collisions (merged within {p.collision_window_s:g} s / {p.collision_radius_m:g} m)",
                  explanation=short or ", ".join(f"{_other_kind(e)} at t={e.t:.1f}s" for e in cols))
    if prog.t_complete is None:
        ctx.component("under_time", 0.0, measured=None, tolerance=f"route complete within {p.time_limit_s:g} s",
                      explanation="route not completed")
    else:
        dur = prog.t_complete - float(t[0])
        ctx.component("under_time", dur <= p.time_limit_s, measured=round(dur, 1),
                      tolerance=f"≤ {p.time_limit_s:g} s", window=(float(t[0]), prog.t_complete))
    return ""


# --------------------------------------------------------------------------- T07 parking


class ParkingParams(Params):
    bay: str = "bay"
    vehicle_length_m: float = Field(gt=0)
    vehicle_width_m: float = Field(gt=0)
    offset_zero_m: float = 1.0
    offset_full_m: float = 0.3
    heading_tol_deg: float = 5.0
    attempt_radius_m: float = 5.0
    collision_window_s: float = COLLISION_WINDOW_S
    collision_radius_m: float = COLLISION_RADIUS_M


def footprint_xy(x: float, y: float, yaw_deg: float, length_m: float, width_m: float) -> np.ndarray:
    """The 4 corners of a vehicle rectangle centred on (x, y), yaw from +x toward +y."""
    c, s = math.cos(math.radians(yaw_deg)), math.sin(math.radians(yaw_deg))
    lx = np.array([1, 1, -1, -1]) * length_m / 2
    ly = np.array([1, -1, -1, 1]) * width_m / 2
    return np.column_stack([x + c * lx - s * ly, y + s * lx + c * ly])


@verifier("carla_parking", params=ParkingParams,
          components=("inside_space", "centre_offset", "heading", "no_contact"))
def carla_parking(ctx: VerifyContext) -> str:
    """Final ego transform (last sample) against the bay: all four corners of the vehicle's
    footprint inside the bay polygon; centre offset = distance between the vehicle's and the
    bay's centres, credited linearly from `offset_zero_m` to `offset_full_m`; heading error
    against the bay heading; any contact (merged) loses the contact item. Heading and contact
    are credited only when the car ends within `attempt_radius_m` of the bay centre: a car
    left at its spawn point, already aligned with the road, has parked nowhere."""
    p: ParkingParams = ctx.p
    t = ctx.t
    x, y, yaw = ctx.sig("x_m"), ctx.sig("y_m"), ctx.sig("yaw_deg")
    _require_events_file(ctx, "contact")
    try:
        bay = ctx.task.geometry.polygon(p.bay)
    except KeyError as exc:
        raise Unscorable(str(exc.args[0])) from None
    if bay.points_xy_m is None or bay.heading_deg is None:
        raise Unscorable(f"bay polygon {p.bay!r} needs points_xy_m and heading_deg")
    ok = np.flatnonzero(np.isfinite(x) & np.isfinite(y) & np.isfinite(yaw))
    i = int(ok[-1])
    t_end = float(t[-1])
    if t_end - float(t[i]) > ctx.max_gap_s:
        raise Unscorable(f"last valid pose at t={t[i]:.1f} s, recording ends at {t_end:.1f} s: final pose undecidable")
    fx, fy, fyaw = float(x[i]), float(y[i]), float(yaw[i])
    poly = np.asarray(bay.points_xy_m, dtype=float)
    corners = footprint_xy(fx, fy, fyaw, p.vehicle_length_m, p.vehicle_width_m)
    inside = P.points_in_polygon(corners[:, 0], corners[:, 1], poly)
    ctx.component("inside_space", bool(inside.all()), measured=int(inside.sum()),
                  tolerance="4 of 4 footprint corners inside the bay", window=(float(t[i]), float(t[i])),
                  explanation=f"final pose x={fx:.2f} y={fy:.2f} yaw={fyaw:.1f}°")
    cx, cy = poly.mean(axis=0)
    off = float(math.hypot(fx - cx, fy - cy))
    ctx.component("centre_offset", P.linear_credit(off, p.offset_zero_m, p.offset_full_m), measured=round(off, 3),
                  tolerance=f"linear {p.offset_zero_m:g} m → {p.offset_full_m:g} m")
    attempted = off <= p.attempt_radius_m
    away = "" if attempted else f"ended {off:.1f} m from the bay (> {p.attempt_radius_m:g} m): no parking attempt"
    herr = float(abs(P.angle_diff(fyaw, bay.heading_deg)))
    ctx.component("heading", attempted and herr <= p.heading_tol_deg, measured=round(herr, 2),
                  tolerance=f"≤ {p.heading_tol_deg:g}°", explanation=away)
    cols = merge_collisions(ctx, ctx.bundle.events_of("collision"), window_s=p.collision_window_s,
                            radius_m=p.collision_radius_m)
    ctx.component("no_contact", attempted and len(cols) == 0, measured=len(cols), tolerance="0 contacts",
                  explanation=away or ", ".join(f"{_other_kind(e)} at t={e.t:.1f}s" for e in cols))
    return ""


# --------------------------------------------------------------------------- T13 pedestrian


class PedestrianParams(Params):
    route_xy_m: list[tuple[float, float]] = Field(min_length=2)
    pedestrian_xy_m: tuple[float, float]
    trigger_distance_m: float = 25.0
    speed_limit_kmh: float = Field(gt=0)
    speed_fraction_min: float = 0.8
    speed_window_s: float = 3.0
    waypoint_radius_m: float = ROUTE_RADIUS_M
    success_fraction: float = ROUTE_SUCCESS_FRACTION
    collision_window_s: float = COLLISION_WINDOW_S
    collision_radius_m: float = COLLISION_RADIUS_M


@verifier("carla_pedestrian", params=PedestrianParams,
          components=("no_pedestrian_collision", "speed_before_event", "route_completed"))
def carla_pedestrian(ctx: VerifyContext) -> str:
    """The event is the pedestrian's trigger: the first time the ego comes within
    `trigger_distance_m` of the pedestrian's crossing point. The speed criterion is the mean
    (time-weighted) speed over the `speed_window_s` before it. No collision with a walker is
    only credited if the ego reached the trigger (a run that never meets the pedestrian proves
    nothing)."""
    p: PedestrianParams = ctx.p
    t = ctx.t
    x, y, v = ctx.sig("x_m"), ctx.sig("y_m"), ctx.sig("speed_kmh")
    _require_events_file(ctx, "pedestrian collision")
    ctx.require_coverage(float(t[0]), float(t[-1]), "the scenario")
    d = P.distance_to_point(x, y, *p.pedestrian_xy_m)
    with np.errstate(invalid="ignore"):
        t_trig = P.first_true(t, d <= p.trigger_distance_m)
    walkers = [e for e in ctx.bundle.events_of("collision") if _other_kind(e) in ("walker", "pedestrian")]
    hits = merge_collisions(ctx, walkers, window_s=p.collision_window_s, radius_m=p.collision_radius_m)
    if t_trig is None:
        ctx.component("no_pedestrian_collision", 0.0, measured=len(hits), tolerance="reach the pedestrian, 0 walker collisions",
                      explanation=f"never came within {p.trigger_distance_m:g} m of the crossing")
        ctx.component("speed_before_event", 0.0, measured=None,
                      tolerance=f"≥ {p.speed_fraction_min:.0%} of {p.speed_limit_kmh:g} km/h", explanation="no event")
    else:
        ctx.component("no_pedestrian_collision", len(hits) == 0, measured=len(hits), tolerance="0 walker collisions",
                      explanation=", ".join(f"t={e.t:.1f}s" for e in hits))
        t0 = max(float(t[0]), t_trig - p.speed_window_s)
        m = (t >= t0) & (t <= t_trig) & np.isfinite(v)
        ws = P.sample_weights(t[m], ctx.max_gap_s)
        mean_v = float((ws * v[m]).sum() / ws.sum()) if ws.sum() > 0 else (float(v[m].mean()) if m.any() else math.nan)
        need = p.speed_fraction_min * p.speed_limit_kmh
        ctx.component("speed_before_event", mean_v >= need, measured=round(mean_v, 2),
                      tolerance=f"mean ≥ {need:g} km/h over {p.speed_window_s:g} s", window=(t0, t_trig))
    prog = route_progress(t, x, y, _route(ctx, p.route_xy_m), radius_m=p.waypoint_radius_m,
                          success_fraction=p.success_fraction)
    ctx.component("route_completed", prog.fraction >= p.success_fraction - 1e-12, measured=round(prog.fraction * 100, 2),
                  tolerance=f"≥ {p.success_fraction:.0%} of the route")
    others = [e for e in ctx.bundle.events_of("collision") if e not in walkers]
    return f"{len(others)} other contact event(s) (not scored)" if others else ""


# --------------------------------------------------------------------------- T18 lane keeping


class LaneKeepParams(Params):
    lane_id: int
    speed_kmh: float = 90.0
    speed_tol_kmh: float = 5.0
    speed_fraction_min: float = 0.9
    window_s: float = 120.0
    start_speed_kmh: float = 85.0
    rms_zero_m: float = 1.0
    rms_full_m: float = 0.3
    wrong_lane_offset_m: float = 3.5


@verifier("carla_lane_keep", params=LaneKeepParams,
          components=("speed_in_band", "lateral_rms", "no_lane_invasion"))
def carla_lane_keep(ctx: VerifyContext) -> str:
    """The 2-minute window starts the first time the speed reaches the lower edge of the band
    (85 km/h). Time the recording does not reach counts against the speed and RMS items; a
    sample in another lane counts as `wrong_lane_offset_m` off centre."""
    p: LaneKeepParams = ctx.p
    t = ctx.t
    v, off, lane = ctx.sig("speed_kmh"), ctx.sig("lane_offset_m"), ctx.sig("lane_id")
    _require_events_file(ctx, "lane invasions")
    t_s = P.first_reach(t, v, p.start_speed_kmh)
    if t_s is None:
        for n in ("speed_in_band", "lateral_rms", "no_lane_invasion"):
            ctx.component(n, 0.0, explanation=f"never reached {p.start_speed_kmh:g} km/h: the window never started")
        return "window never started"
    t_e = min(t_s + p.window_s, float(t[-1]))
    ctx.require_coverage(t_s, t_e, "the lane-keeping window")
    cover = (t_e - t_s) / p.window_s
    win = (t_s, t_e)
    frac = P.fraction_in_band(t, v, p.speed_kmh - p.speed_tol_kmh, p.speed_kmh + p.speed_tol_kmh, t_s, t_e, ctx.max_gap_s)
    frac = (0.0 if math.isnan(frac) else frac) * cover
    ctx.component("speed_in_band", frac >= p.speed_fraction_min - 1e-9, measured=round(frac, 3),
                  tolerance=f"{p.speed_kmh - p.speed_tol_kmh:g}-{p.speed_kmh + p.speed_tol_kmh:g} km/h for ≥ {p.speed_fraction_min:.0%} of {p.window_s:g} s",
                  window=win)
    m = (t >= t_s) & (t <= t_e)
    dev = np.where(lane[m] == p.lane_id, off[m], p.wrong_lane_offset_m)
    dev = np.where(np.isfinite(lane[m]), dev, np.nan)
    w = P.sample_weights(t[m], ctx.max_gap_s)
    good = np.isfinite(dev)
    if w[good].sum() <= 0:
        raise Unscorable("no lane offset samples inside the lane-keeping window")
    rms = float(np.sqrt((w[good] * dev[good] ** 2).sum() / w[good].sum()))
    ctx.component("lateral_rms", P.linear_credit(rms, p.rms_zero_m, p.rms_full_m) * cover, measured=round(rms, 3),
                  tolerance=f"linear {p.rms_zero_m:g} → {p.rms_full_m:g} m RMS, × window coverage {cover:.0%}", window=win)
    inv = P.count_events(ctx.bundle.events, "lane_invasion", t0=t_s, t1=t_e)
    ctx.component("no_lane_invasion", inv == 0 and cover >= 1.0 - 1e-9, measured=inv,
                  tolerance=f"0 lane invasions over the full {p.window_s:g} s", window=win,
                  explanation="" if cover >= 1.0 - 1e-9 else f"window only {cover:.0%} recorded")
    return ""
