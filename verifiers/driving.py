"""Driving verifiers for CARLA recordings: route with traffic lights (T06), parallel parking (T07),
pedestrian crossing (T13) and highway lane keeping (T18).

Semantics follow ScenarioRunner's criteria (scenario_runner v0.9.16 `atomic_criteria.py`; the
constants are the same in v0.9.15) where the catalog leaves room:

* RouteCompletionTest: the route is interpolated every 1 m (as the Leaderboard does); a
  waypoint is passed once the ego is beyond it along the waypoint's forward direction, in route
  order; completion = accumulated route length at the last passed waypoint; the route is
  complete (100 %) when completion is above 99 % and the ego is within 10 m of the last
  waypoint. Waypoints are only passed within 30 m of the ego (InRouteTest's off-route limit,
  which ends a Leaderboard route).
* CollisionTest: a contact is not counted again while it is with the same actor as the last
  counted collision within 5 s of it, or while the ego has not left the 5 m circle around the
  last counted collision; contacts while the ego stands (< 0.1 m/s) are not its fault.
* RunningRedLightTest: the importer emits `red_light` when the ego enters a junction past the
  stop line while its light is red; one crossing of one light is one infraction.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
from pydantic import AfterValidator, Field, model_validator

from simbridge import Bundle, Event, Unscorable
from simbridge import primitives as P
from simbridge.params import XY, FiniteParams, Fraction, PositiveFinite, require_below
from simbridge.verifier import VerifyContext, scenario_check, verifier

if TYPE_CHECKING:
    from simbridge import TaskSpec

ROUTE_TARGET_RADIUS_M = 10.0  # RouteCompletionTest.DISTANCE_THRESHOLD
ROUTE_SUCCESS_FRACTION = 0.99  # RouteCompletionTest.PERCENTAGE_THRESHOLD
OFFROUTE_MAX_M = 30.0  # InRouteTest offroad_max
COLLISION_WINDOW_S = 5.0  # CollisionTest.MAX_ID_TIME
COLLISION_RADIUS_M = 5.0  # CollisionTest.COLLISION_RADIUS
COLLISION_MIN_SPEED_KMH = 0.36  # CollisionTest.EPSILON, 0.1 m/s


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
    fraction: float  # 0..1 of the route length; 1.0 once the route is complete
    length_m: float
    t_complete: float | None  # first time the route was complete (RouteCompletionTest SUCCESS)
    t_last_passed: float | None


def route_progress(
    t: np.ndarray,
    x: np.ndarray,
    y: np.ndarray,
    route_xy: Sequence[Sequence[float]],
    *,
    target_radius_m: float = ROUTE_TARGET_RADIUS_M,
    offroute_max_m: float = OFFROUTE_MAX_M,
    success_fraction: float = ROUTE_SUCCESS_FRACTION,
) -> RouteProgress:
    """RouteCompletionTest on a whole trace: waypoint k is passed at the first sample, no earlier
    than the one that passed waypoint k−1, where the ego is beyond it along its forward direction
    and within `offroute_max_m` of it. Distances are computed in blocks of waypoints (vectorised
    over samples); the chain walks waypoints, not samples."""
    dense, s = densify_route(route_xy)
    fwd = np.diff(dense, axis=0)
    fwd = np.vstack([fwd, fwd[-1:]])
    fwd /= np.maximum(np.hypot(fwd[:, 0], fwd[:, 1]), 1e-12)[:, None]
    t = np.asarray(t, dtype=float)
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y)
    tt, xx, yy = t[ok], x[ok], y[ok]
    length = float(s[-1])
    if tt.size == 0:
        return RouteProgress(0.0, length, None, None)
    r2 = offroute_max_m * offroute_max_m
    i_prev, last, i_at = 0, -1, []
    block = max(1, 2_000_000 // tt.size)
    done = False
    for k0 in range(0, dense.shape[0], block):
        k1 = min(dense.shape[0], k0 + block)
        dx = xx[:, None] - dense[None, k0:k1, 0]
        dy = yy[:, None] - dense[None, k0:k1, 1]
        past = (dx * fwd[None, k0:k1, 0] + dy * fwd[None, k0:k1, 1] > 0) & (dx * dx + dy * dy <= r2)
        for j in range(k1 - k0):  # one step per waypoint
            col = past[i_prev:, j]
            if not col.any():
                done = True
                break
            i_prev += int(col.argmax())
            last = k0 + j
            i_at.append(i_prev)
        if done:
            break
    if last < 0:
        return RouteProgress(0.0, length, None, None)
    frac = float(s[last] / length) if length > 0 else 1.0
    t_done = None
    above = np.flatnonzero(s[: last + 1] > success_fraction * length)
    if above.size:
        i99 = i_at[int(above[0])]
        near = np.hypot(xx[i99:] - dense[-1, 0], yy[i99:] - dense[-1, 1]) < target_radius_m
        if near.any():
            t_done = float(tt[i99 + int(near.argmax())])
            frac = 1.0
    return RouteProgress(frac, length, t_done, float(tt[i_at[-1]]))


# --------------------------------------------------------------------------- events


def _as_float(v: object) -> float:
    try:
        return float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan


def _ego_xy_at(ctx: VerifyContext, t: float) -> tuple[float, float]:
    x, y = ctx.opt("x_m"), ctx.opt("y_m")
    if x is None or y is None:
        return (math.nan, math.nan)
    ok = np.isfinite(x) & np.isfinite(y)
    return (float(np.interp(t, ctx.t[ok], x[ok])), float(np.interp(t, ctx.t[ok], y[ok])))


def merge_collisions(
    ctx: VerifyContext,
    events: Sequence[Event],
    *,
    window_s: float = COLLISION_WINDOW_S,
    radius_m: float = COLLISION_RADIUS_M,
    min_speed_kmh: float = COLLISION_MIN_SPEED_KMH,
) -> list[Event]:
    """CollisionTest's filter over the contact events: a contact is dropped when it is with the
    actor of the last counted collision less than `window_s` after it, when the ego has not left
    the `radius_m` circle around the last counted collision since, or when the ego stands
    (speed below `min_speed_kmh`, if speed was recorded)."""
    x, y, v = ctx.opt("x_m"), ctx.opt("y_m"), ctx.opt("speed_kmh")
    t = ctx.t
    kept: list[Event] = []
    last_t, last_id, last_xy = -math.inf, None, None
    for e in sorted(events, key=lambda e: e.t):  # one iteration per event, not per sample
        xy = (_as_float(e.data.get("x_m")), _as_float(e.data.get("y_m")))
        if not all(map(math.isfinite, xy)):
            xy = _ego_xy_at(ctx, e.t)
        if last_xy is not None and x is not None and y is not None:
            m = (t > last_t) & (t <= e.t)
            with np.errstate(invalid="ignore"):
                if np.any(np.hypot(x[m] - last_xy[0], y[m] - last_xy[1]) > radius_m):
                    last_xy = None  # the ego left the area: the location is forgotten
        if last_id is not None and e.t - last_t > window_s:
            last_id = None
        other = e.data.get("other_id")
        if other is not None and other == last_id:
            continue
        if last_xy is not None and all(map(math.isfinite, xy + last_xy)) and math.dist(xy, last_xy) <= radius_m:
            continue
        if v is not None:
            ok = np.isfinite(v)
            if ok.any() and float(np.interp(e.t, t[ok], np.abs(v[ok]))) < min_speed_kmh:
                continue
        kept.append(e)
        last_t = e.t
        last_xy = xy if all(map(math.isfinite, xy)) else None
        last_id = other if other not in (None, 0) else None
    return kept


def collision_gate(ctx: VerifyContext, window_s: float, radius_m: float, what: str = "the ego") -> list[Event]:
    """The safety item `collision_free`: any collision of the moving ego with any actor (vehicle,
    walker, static object), anywhere in the episode, merged as CollisionTest merges them, gates
    the score — the instructions say "no collisions"/"without collision"/"no contact"."""
    cols = merge_collisions(ctx, ctx.bundle.events_of("collision"), window_s=window_s, radius_m=radius_m)
    text = f"no collision of {what} with any vehicle, walker or object at any time"
    if cols:
        first = cols[0]
        ctx.safety(
            "collision_free",
            False,
            first_violation_t=float(first.t),
            explanation=f"violated: {text} ("
            + ", ".join(f"{_other_kind(e)} at t={e.t:.1f} s" for e in cols[:5])
            + (f" and {len(cols) - 5} more" if len(cols) > 5 else "")
            + ")",
        )
    else:
        ctx.safety("collision_free", True, explanation=text)
    return cols


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


def _progress(ctx: VerifyContext, p: "RouteParams | PedestrianParams", x: np.ndarray, y: np.ndarray) -> RouteProgress:
    return route_progress(
        ctx.t,
        x,
        y,
        _route(ctx, p.route_xy_m),
        target_radius_m=p.target_radius_m,
        offroute_max_m=p.offroute_max_m,
        success_fraction=p.success_fraction,
    )


# --------------------------------------------------------------------------- Leaderboard driving score

#: CARLA Leaderboard 2.0's infraction penalties, one factor per infraction event
#: (leaderboard/utils/statistics_manager.py, PENALTY_VALUE_DICT; github.com/carla-simulator/leaderboard
#: master aec8131 and branch leaderboard-2.0 agree): COLLISION_PEDESTRIAN 0.5, COLLISION_VEHICLE 0.6,
#: COLLISION_STATIC 0.65, TRAFFIC_LIGHT_INFRACTION 0.7, STOP_INFRACTION 0.8. Its driving score of a
#: route is `score_composed = max(score_route * score_penalty, 0)`: RouteCompletionTest's completion
#: times the product of the factors. The time-out, yield and minimum-speed penalties need criteria
#: the CARLA tasks do not record; they are left out.
LEADERBOARD_PENALTIES: dict[str, float] = {
    "pedestrian collision": 0.50,
    "vehicle collision": 0.60,
    "static collision": 0.65,
    "red light": 0.70,
    "stop sign": 0.80,
}
#: the event kind of a stop-sign run (Leaderboard's `stop_infraction`); no recorder emits one yet
STOP_SIGN_EVENT = "stop_infraction"


def leaderboard_collision(e: Event) -> str | None:
    """The Leaderboard penalty of one collision, as CollisionTest classifies the other actor
    (scenario_runner v0.9.16 atomic_criteria.py): a type id with `static` or `traffic` (not a
    sidewalk) is static, `vehicle` a vehicle, `walker` a pedestrian, anything else no penalty.
    Without a type id, the recorder's `other_kind` (the same classification) decides."""
    type_id = str(e.data.get("other_type_id") or "").lower()
    if type_id:
        if ("static" in type_id or "traffic" in type_id) and "sidewalk" not in type_id:
            return "static collision"
        if "vehicle" in type_id:
            return "vehicle collision"
        return "pedestrian collision" if "walker" in type_id else None
    kind = _other_kind(e)
    if kind in ("walker", "pedestrian"):
        return "pedestrian collision"
    return f"{kind} collision" if kind in ("vehicle", "static") else None


@dataclass(frozen=True)
class DrivingScore:
    """Leaderboard 2.0's driving score of one route: completion × Π penalty^count (information only)."""

    #: RouteCompletionTest's completion, 0..1 (1 once the route is complete)
    route_fraction: float
    #: infraction name (a LEADERBOARD_PENALTIES key) -> how many
    counts: tuple[tuple[str, int], ...]

    @classmethod
    def of(
        cls, route_fraction: float, collisions: Sequence[Event], red_lights: int, stop_signs: int = 0
    ) -> DrivingScore:
        """From merged collisions (each classified by `leaderboard_collision`) and infraction counts."""
        n = dict.fromkeys(LEADERBOARD_PENALTIES, 0)
        for e in collisions:
            kind = leaderboard_collision(e)
            if kind is not None:
                n[kind] += 1
        n["red light"] += red_lights
        n["stop sign"] += stop_signs
        return cls(route_fraction, tuple(n.items()))

    @property
    def penalty(self) -> float:
        return math.prod(LEADERBOARD_PENALTIES[k] ** c for k, c in self.counts)

    @property
    def score(self) -> float:
        return max(self.route_fraction * self.penalty, 0.0)

    def explanation(self) -> str:
        """One phrase for the score's explanation line, with the factors that made it."""
        factors = "".join(
            f" × {k} {LEADERBOARD_PENALTIES[k]:.2f}" + (f"^{c}" if c > 1 else "") for k, c in self.counts if c
        )
        return (
            f"CARLA Leaderboard 2.0 driving score {self.score:.3f} = route {self.route_fraction:.1%}"
            f"{factors or ' × no infractions'} (information, not scored)"
        )


# --------------------------------------------------------------------------- T06 route


class RouteParams(FiniteParams):
    route_xy_m: list[XY] = Field(min_length=2)
    target_radius_m: PositiveFinite = ROUTE_TARGET_RADIUS_M
    offroute_max_m: PositiveFinite = OFFROUTE_MAX_M
    success_fraction: Annotated[float, Field(gt=0, le=1)] = ROUTE_SUCCESS_FRACTION
    time_limit_s: PositiveFinite = 300.0
    min_progress_for_infractions: Fraction = 0.5
    collision_window_s: PositiveFinite = COLLISION_WINDOW_S
    collision_radius_m: PositiveFinite = COLLISION_RADIUS_M


@verifier(
    "carla_route",
    params=RouteParams,
    components=("route_completion", "no_red_light", "no_collision", "under_time"),
    safety=("collision_free",),
    quality=("no_red_light", "no_collision"),
)
def carla_route(ctx: VerifyContext) -> str:
    """Route completion scaled linearly (RouteCompletionTest: 100 % once complete); red lights and
    collisions counted over the whole episode after merging repeats, credited only once the ego
    has driven `min_progress_for_infractions` of the route (a car that never leaves the start
    has shown nothing about lights or traffic) and worth only the part of the route driven (task
    progress); a collision anywhere gates the score; time from the first sample to the moment the
    route is complete. The explanation adds the Leaderboard 2.0 driving score of the same
    completion and merged infractions (`DrivingScore`), as information: it scores nothing."""
    p: RouteParams = ctx.p
    t = ctx.t
    x, y = ctx.sig("x_m"), ctx.sig("y_m")
    _require_events_file(ctx, "collisions and red-light runs")
    ctx.require_coverage(float(t[0]), float(t[-1]), "route completion")
    prog = _progress(ctx, p, x, y)
    pct = prog.fraction * 100
    ctx.component(
        "route_completion",
        P.linear_credit(prog.fraction, 0.0, 1.0),
        measured=pct,
        tolerance=f"linear 0→100% of {prog.length_m:.0f} m",
        window=(float(t[0]), prog.t_last_passed) if prog.t_last_passed is not None else None,
        explanation=f"{pct:.1f}% of the route passed in order" + (" (complete)" if prog.t_complete is not None else ""),
    )

    ctx.progress(prog.fraction, f"{pct:.0f}% of the route driven")
    reds = merge_red_lights(ctx.bundle.events_of("red_light"))
    cols = collision_gate(ctx, p.collision_window_s, p.collision_radius_m)
    exposed = prog.fraction >= p.min_progress_for_infractions
    short = (
        ""
        if exposed
        else f"drove only {pct:.0f}% of the route (< {p.min_progress_for_infractions:.0%}): not exposed to its lights and traffic"
    )
    ctx.component(
        "no_red_light",
        exposed and len(reds) == 0,
        measured=len(reds),
        tolerance="0 red-light runs",
        explanation=short or ", ".join(f"t={e.t:.1f}s" for e in reds),
    )
    ctx.component(
        "no_collision",
        exposed and len(cols) == 0,
        measured=len(cols),
        tolerance=f"0 collisions (merged within {p.collision_window_s:g} s / {p.collision_radius_m:g} m)",
        explanation=short or ", ".join(f"{_other_kind(e)} at t={e.t:.1f}s" for e in cols),
    )
    if prog.t_complete is None:
        ctx.component(
            "under_time",
            0.0,
            measured=None,
            tolerance=f"route complete within {p.time_limit_s:g} s",
            explanation="route not completed",
        )
    else:
        dur = prog.t_complete - float(t[0])
        ctx.component(
            "under_time",
            dur <= p.time_limit_s,
            measured=dur,
            tolerance=f"≤ {p.time_limit_s:g} s",
            window=(float(t[0]), prog.t_complete),
        )
    return DrivingScore.of(prog.fraction, cols, len(reds), len(ctx.bundle.events_of(STOP_SIGN_EVENT))).explanation()


# --------------------------------------------------------------------------- T07 parking


class ParkingParams(FiniteParams):
    bay: str = "bay"
    vehicle_length_m: PositiveFinite
    vehicle_width_m: PositiveFinite
    offset_zero_m: PositiveFinite = 1.0
    offset_full_m: PositiveFinite = 0.3
    heading_tol_deg: Annotated[float, Field(gt=0, le=180)] = 5.0
    attempt_radius_m: PositiveFinite = 5.0
    parked_speed_kmh: PositiveFinite = 1.0
    collision_window_s: PositiveFinite = COLLISION_WINDOW_S
    collision_radius_m: PositiveFinite = COLLISION_RADIUS_M

    @model_validator(mode="after")
    def _credit_ramp(self) -> "ParkingParams":
        # credit runs linearly from offset_zero_m (none) down to offset_full_m (full)
        require_below("offset_full_m", self.offset_full_m, "offset_zero_m", self.offset_zero_m)
        return self


def footprint_xy(x: float, y: float, yaw_deg: float, length_m: float, width_m: float) -> np.ndarray:
    """The 4 corners of a vehicle rectangle centred on (x, y), yaw from +x toward +y."""
    c, s = math.cos(math.radians(yaw_deg)), math.sin(math.radians(yaw_deg))
    lx = np.array([1, 1, -1, -1]) * length_m / 2
    ly = np.array([1, -1, -1, 1]) * width_m / 2
    return np.column_stack([x + c * lx - s * ly, y + s * lx + c * ly])


@verifier(
    "carla_parking",
    params=ParkingParams,
    components=("inside_space", "centre_offset", "heading", "no_contact"),
    safety=("collision_free",),
    quality=("heading", "no_contact"),
)
def carla_parking(ctx: VerifyContext) -> str:
    """Final ego transform (last sample) against the bay: all four corners of the vehicle's
    footprint inside the bay polygon, with the car at rest if its speed was recorded; centre offset = distance between the vehicle's and the
    bay's centres, credited linearly from `offset_zero_m` to `offset_full_m`; heading error
    against the bay heading; any contact (merged) loses the contact item. Heading and contact
    are credited only when the car ends within `attempt_radius_m` of the bay centre: a car
    left at its spawn point, already aligned with the road, has parked nowhere; and they are
    worth only as much as the car got into the bay (task progress: 0 at `attempt_radius_m` from
    the bay's centre, 1 at `offset_full_m`). Any contact (the instruction's "no contact") gates."""
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
    v = ctx.opt("speed_kmh")
    v_end = float(v[i]) if v is not None and np.isfinite(v[i]) else 0.0
    rolling = abs(v_end) > p.parked_speed_kmh
    ctx.component(
        "inside_space",
        bool(inside.all()) and not rolling,
        measured=int(inside.sum()),
        tolerance=f"4 of 4 footprint corners inside the bay, at rest (≤ {p.parked_speed_kmh:g} km/h)",
        window=(float(t[i]), float(t[i])),
        explanation=f"final pose x={fx:.2f} y={fy:.2f} yaw={fyaw:.1f}°"
        + (f", still moving at {v_end:.1f} km/h" if rolling else ""),
    )
    cx, cy = poly.mean(axis=0)
    off = float(math.hypot(fx - cx, fy - cy))
    # a car still rolling when the recording ends has parked nowhere: the agent ending the
    # episode as it drives through the bay does not make the bay its final pose
    ctx.component(
        "centre_offset",
        0.0 if rolling else P.linear_credit(off, p.offset_zero_m, p.offset_full_m),
        measured=off,
        tolerance=f"linear {p.offset_zero_m:g} m → {p.offset_full_m:g} m, at rest",
        explanation=f"still moving at {v_end:.1f} km/h" if rolling else "",
    )
    attempted = off <= p.attempt_radius_m and not rolling
    ctx.progress(
        0.0 if rolling else P.linear_credit(off, p.attempt_radius_m, p.offset_full_m),
        f"still moving at {v_end:.1f} km/h: not parked"
        if rolling
        else f"ended {off:.2f} m from the bay's centre ({p.attempt_radius_m:g} m: none, {p.offset_full_m:g} m: parked)",
    )
    away = (
        ""
        if attempted
        else f"still moving at {v_end:.1f} km/h: not parked"
        if rolling
        else f"ended {off:.1f} m from the bay (> {p.attempt_radius_m:g} m): no parking attempt"
    )
    herr = float(abs(P.angle_diff(fyaw, bay.heading_deg)))
    ctx.component(
        "heading",
        attempted and herr <= p.heading_tol_deg,
        measured=herr,
        tolerance=f"≤ {p.heading_tol_deg:g}°",
        explanation=away,
    )
    cols = collision_gate(ctx, p.collision_window_s, p.collision_radius_m)
    ctx.component(
        "no_contact",
        attempted and len(cols) == 0,
        measured=len(cols),
        tolerance="0 contacts",
        explanation=away or ", ".join(f"{_other_kind(e)} at t={e.t:.1f}s" for e in cols),
    )
    return ""


# --------------------------------------------------------------------------- T13 pedestrian


class PedestrianParams(FiniteParams):
    route_xy_m: list[XY] = Field(min_length=2)
    pedestrian_xy_m: XY
    trigger_distance_m: PositiveFinite = 25.0
    speed_limit_kmh: PositiveFinite
    speed_fraction_min: Fraction = 0.8
    speed_window_s: PositiveFinite = 3.0
    target_radius_m: PositiveFinite = ROUTE_TARGET_RADIUS_M
    offroute_max_m: PositiveFinite = OFFROUTE_MAX_M
    success_fraction: Annotated[float, Field(gt=0, le=1)] = ROUTE_SUCCESS_FRACTION
    collision_window_s: PositiveFinite = COLLISION_WINDOW_S
    collision_radius_m: PositiveFinite = COLLISION_RADIUS_M


@verifier(
    "carla_pedestrian",
    params=PedestrianParams,
    components=("no_pedestrian_collision", "speed_before_event", "route_completed"),
    safety=("collision_free",),
    quality=("no_pedestrian_collision", "speed_before_event"),
)
def carla_pedestrian(ctx: VerifyContext) -> str:
    """The event is the pedestrian's trigger: the first time the ego comes within
    `trigger_distance_m` of the pedestrian's crossing point. The speed criterion is the mean
    (time-weighted) speed over the `speed_window_s` before it. No collision with a walker is
    only credited if the ego reached the trigger (a run that never meets the pedestrian proves
    nothing). The instruction's "then continue to the route end" is the task progress: the
    pedestrian and speed items are worth the part of the route driven (stopping for good at the
    crossing is half the task), and a collision with anything — the walker, the parked van, a
    car — gates the score ("without collision")."""
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
        ctx.component(
            "no_pedestrian_collision",
            0.0,
            measured=len(hits),
            tolerance="reach the pedestrian, 0 walker collisions",
            explanation=f"never came within {p.trigger_distance_m:g} m of the crossing",
        )
        ctx.component(
            "speed_before_event",
            0.0,
            measured=None,
            tolerance=f"≥ {p.speed_fraction_min:.0%} of {p.speed_limit_kmh:g} km/h",
            explanation="no event",
        )
    else:
        ctx.component(
            "no_pedestrian_collision",
            len(hits) == 0,
            measured=len(hits),
            tolerance="0 walker collisions",
            explanation=", ".join(f"t={e.t:.1f}s" for e in hits),
        )
        t0 = max(float(t[0]), t_trig - p.speed_window_s)
        m = (t >= t0) & (t <= t_trig) & np.isfinite(v)
        ws = P.sample_weights(t[m], ctx.max_gap_s)
        mean_v = float((ws * v[m]).sum() / ws.sum()) if ws.sum() > 0 else (float(v[m].mean()) if m.any() else math.nan)
        need = p.speed_fraction_min * p.speed_limit_kmh
        ctx.component(
            "speed_before_event",
            mean_v >= need,
            measured=mean_v,
            tolerance=f"mean ≥ {need:g} km/h over {p.speed_window_s:g} s",
            window=(t0, t_trig),
        )
    prog = _progress(ctx, p, x, y)
    ctx.progress(prog.fraction, f"{prog.fraction:.0%} of the route driven")
    ctx.component(
        "route_completed",
        prog.t_complete is not None,
        measured=prog.fraction * 100,
        tolerance=f"> {p.success_fraction:.0%} and within {p.target_radius_m:g} m of the end",
    )
    collision_gate(ctx, p.collision_window_s, p.collision_radius_m)
    return ""


# --------------------------------------------------------------------------- T18 lane keeping


def _driving_lane(lane_id: int) -> int:
    if lane_id == 0:
        raise ValueError("lane 0 is OpenDRIVE's reference line, not a driving lane")
    return lane_id


class LaneKeepParams(FiniteParams):
    lane_id: Annotated[int, AfterValidator(_driving_lane)]
    speed_kmh: PositiveFinite = 90.0
    speed_tol_kmh: PositiveFinite = 5.0
    speed_fraction_min: Fraction = 0.9
    window_s: PositiveFinite = 120.0
    start_speed_kmh: PositiveFinite = 85.0
    rms_zero_m: PositiveFinite = 1.0
    rms_full_m: PositiveFinite = 0.3
    wrong_lane_offset_m: PositiveFinite = 3.5

    @model_validator(mode="after")
    def _credit_ramp(self) -> "LaneKeepParams":
        require_below("rms_full_m", self.rms_full_m, "rms_zero_m", self.rms_zero_m)
        return self


@verifier(
    "carla_lane_keep",
    params=LaneKeepParams,
    components=("speed_in_band", "lateral_rms", "no_lane_invasion"),
    safety=("collision_free",),
    bands=("speed_kmh",),
    quality=("lateral_rms", "no_lane_invasion"),
)
def carla_lane_keep(ctx: VerifyContext) -> str:
    """The 2-minute window starts the first time the speed reaches the lower edge of the band
    (85 km/h). Time the recording does not reach counts against the speed and RMS items; a
    sample in another lane counts as `wrong_lane_offset_m` off centre. The task progress is the
    distance driven in the window against 2 minutes at the band's lower edge: keeping the lane
    while crawling is not the task, so the RMS and lane-invasion items are worth that part. A
    collision anywhere gates."""
    p: LaneKeepParams = ctx.p
    t = ctx.t
    v, off, lane = ctx.sig("speed_kmh"), ctx.sig("lane_offset_m"), ctx.sig("lane_id")
    _require_events_file(ctx, "lane invasions")
    collision_gate(ctx, COLLISION_WINDOW_S, COLLISION_RADIUS_M)
    t_s = P.first_reach(t, v, p.start_speed_kmh)
    if t_s is None:
        ctx.progress(0.0, f"never reached {p.start_speed_kmh:g} km/h")
        for n in ("speed_in_band", "lateral_rms", "no_lane_invasion"):
            ctx.component(n, 0.0, explanation=f"never reached {p.start_speed_kmh:g} km/h: the window never started")
        return "window never started"
    t_e = min(t_s + p.window_s, float(t[-1]))
    ctx.require_coverage(t_s, t_e, "the lane-keeping window")
    cover = (t_e - t_s) / p.window_s
    win = (t_s, t_e)
    frac = P.fraction_in_band(
        t, v, p.speed_kmh - p.speed_tol_kmh, p.speed_kmh + p.speed_tol_kmh, t_s, t_e, ctx.max_gap_s
    )
    frac = (0.0 if math.isnan(frac) else frac) * cover
    ctx.component(
        "speed_in_band",
        frac >= p.speed_fraction_min - 1e-9,
        measured=frac,
        tolerance=f"{p.speed_kmh - p.speed_tol_kmh:g}-{p.speed_kmh + p.speed_tol_kmh:g} km/h for ≥ {p.speed_fraction_min:.0%} of {p.window_s:g} s",
        window=win,
    )
    lo, hi = p.speed_kmh - p.speed_tol_kmh, p.speed_kmh + p.speed_tol_kmh
    ctx.band("speed_kmh", lo, hi, *win, label=f"{lo:g}-{hi:g} km/h")
    m = (t >= t_s) & (t <= t_e)
    vm = np.where(np.isfinite(v[m]), np.abs(v[m]), 0.0) / 3.6
    dist_m = float(np.sum(0.5 * (vm[1:] + vm[:-1]) * np.diff(t[m]))) if m.sum() > 1 else 0.0
    need_m = p.window_s * (p.speed_kmh - p.speed_tol_kmh) / 3.6
    ctx.progress(
        min(1.0, dist_m / need_m),
        f"{dist_m:.0f} m driven in the window of {need_m:.0f} m at {p.speed_kmh - p.speed_tol_kmh:g} km/h",
    )
    dev = np.where(lane[m] == p.lane_id, off[m], p.wrong_lane_offset_m)
    dev = np.where(np.isfinite(lane[m]), dev, np.nan)
    w = P.sample_weights(t[m], ctx.max_gap_s)
    good = np.isfinite(dev)
    if w[good].sum() <= 0:
        raise Unscorable("no lane offset samples inside the lane-keeping window")
    rms = float(np.sqrt((w[good] * dev[good] ** 2).sum() / w[good].sum()))
    ctx.component(
        "lateral_rms",
        P.linear_credit(rms, p.rms_zero_m, p.rms_full_m),
        measured=rms,
        tolerance=f"linear {p.rms_zero_m:g} → {p.rms_full_m:g} m RMS (× the part of the window driven)",
        window=win,
    )
    inv = P.count_events(ctx.bundle.events, "lane_invasion", t0=t_s, t1=t_e)
    ctx.component(
        "no_lane_invasion",
        inv == 0 and cover >= 1.0 - 1e-9,
        measured=inv,
        tolerance=f"0 lane invasions over the full {p.window_s:g} s",
        window=win,
        explanation="" if cover >= 1.0 - 1e-9 else f"window only {cover:.0%} recorded",
    )
    return ""


# --------------------------------------------------------------------------- the scenario
#: a declared actor (parked vehicle, pedestrian) counts as present within this of its position
ACTOR_TOL_M = 5.0
#: the ego's first recorded position within this of the scenario's spawn (or the route's start)
SPAWN_TOL_M = 15.0
#: the pedestrian must have started once the ego came this much inside the trigger distance
TRIGGER_MARGIN_M = 2.0
#: a walker that moved at least this far did step out
WALKER_MOVED_M = 1.0


def _map_name(v: object) -> str | None:
    """ "Carla/Maps/Town01", "Town01.xodr", "town01" → "town01"."""
    if not isinstance(v, str) or not v:
        return None
    return v.replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".xodr").lower()


def _near(actors: list[dict[str, Any]], kinds: tuple[str, ...], xy: tuple[float, float]) -> dict[str, Any] | None:
    best: tuple[float, dict[str, Any]] | None = None
    for a in actors:
        if a.get("kind") in kinds and a.get("x_m") is not None and a.get("y_m") is not None:
            d = math.hypot(float(a["x_m"]) - xy[0], float(a["y_m"]) - xy[1])
            if d <= ACTOR_TOL_M and (best is None or d < best[0]):
                best = (d, a)
    return best[1] if best else None


def _xy_of(d: object) -> tuple[float, float] | None:
    if isinstance(d, dict) and "x_m" in d and "y_m" in d:
        return float(d["x_m"]), float(d["y_m"])
    return None


@scenario_check("carla_pedestrian", "carla_route", "carla_lane_keep", "carla_parking")
def carla_scenario(bundle: Bundle, task: "TaskSpec") -> str | None:
    """What of the task's `initial_state.scenario` the recording does not show: its map, the
    ego's spawn (or the route's start), the traffic lights a route task is about, the parked
    vehicles and the pedestrian (each a recorded actor within ACTOR_TOL_M of where the task puts
    it, in snapshots start.actors), and the pedestrian stepping out once the ego reached its
    trigger (a walker that moved, or a `scenario_trigger` event). A bundle that names no
    simulator (a hand-made fixture) claims no recording and is not checked."""
    ep = bundle.episode
    sc = dict(task.initial_state.scenario or {})
    if ep.sim is None or not sc:
        return None
    start = bundle.snapshots.get("start") or {}
    problems: list[str] = []
    # the map
    want = _map_name(sc.get("town"))
    got = next((m for m in (_map_name(start.get(k)) for k in ("map", "town", "map_file")) if m), None)
    got = got or _map_name((ep.sim_info or {}).get("map"))  # the CARLA importer's
    if want and got is None:
        problems.append("the recording does not say which map it is on")
    elif want and got != want:
        problems.append(f"recorded on {got}, not {want}")
    sig = bundle.signals
    ego: tuple[np.ndarray, np.ndarray] | None = None  # the ego's recorded positions
    if len(sig) and "x_m" in sig and "y_m" in sig:
        xs, ys = np.asarray(sig["x_m"], float), np.asarray(sig["y_m"], float)
        ok = np.isfinite(xs) & np.isfinite(ys)
        if ok.any():
            ego = xs[ok], ys[ok]
    drive_sc = sc.get("drive")
    drive: dict[str, Any] = drive_sc if isinstance(drive_sc, dict) else {}
    # the ego's spawn: the simulator's own (drive) or the scenario's
    spawn = _xy_of(drive.get("ego_spawn")) if ep.sim == "drive" else None
    spawn = spawn or _xy_of(sc.get("ego_spawn"))
    route = start.get("route_xy_m") or task.verifier.params.get("route_xy_m")
    if spawn is None and route and ep.sim != "drive" and "route_xy_m" not in start:
        spawn = (float(route[0][0]), float(route[0][1]))  # the route starts where the ego does
    if spawn is not None and ego is not None:
        x0, y0 = float(ego[0][0]), float(ego[1][0])
        d0 = math.hypot(x0 - spawn[0], y0 - spawn[1])
        if d0 > SPAWN_TOL_M:
            problems.append(
                f"the ego starts at ({x0:.1f}, {y0:.1f}), {d0:.0f} m from the scenario's start "
                f"({spawn[0]:.1f}, {spawn[1]:.1f})"
            )
    # traffic lights a route task is about
    if "traffic_lights" in sc and "no" not in str(sc["traffic_lights"]).lower():
        n = start.get("traffic_lights")
        if not isinstance(n, (int, float)) or n <= 0:
            problems.append("no traffic light in the recording (start.traffic_lights)")
    # the scenario's actors
    declared: list[tuple[str, tuple[str, ...], tuple[float, float] | None]] = []
    for car in [*(sc.get("parked_cars") or []), *([sc["parked_van"]] if sc.get("parked_van") else [])]:
        declared.append((f"parked {car.get('blueprint', 'vehicle')}", ("vehicle",), _xy_of(car)))
    ped = sc.get("pedestrian") if isinstance(sc.get("pedestrian"), dict) else None
    if ped:
        declared.append(("pedestrian", ("walker", "pedestrian"), _xy_of(ped.get("start"))))
    listed = start.get("actors")
    actors: list[dict[str, Any]] = [a for a in listed if isinstance(a, dict)] if isinstance(listed, list) else []
    walker = None
    if declared and not isinstance(listed, list):
        problems.append("the recording lists no actors (snapshots start.actors)")
    elif declared:
        for what, kinds, xy in declared:
            if xy is None:
                continue
            a = _near(actors, kinds, xy)
            if a is None:
                problems.append(f"no {what} at ({xy[0]:.1f}, {xy[1]:.1f})")
            elif kinds[0] == "walker":
                walker = a
    # ... and the pedestrian stepping out once the ego reached its trigger
    if ped and walker is not None and ego is not None:
        cross = task.verifier.params.get("pedestrian_xy_m") or _xy_of(ped.get("crosses_to"))
        reach = float(task.verifier.params.get("trigger_distance_m", 25.0)) - TRIGGER_MARGIN_M
        if cross is not None:
            d = np.asarray(P.distance_to_point(ego[0], ego[1], float(cross[0]), float(cross[1])))
            stepped = (walker.get("moved_m") or 0.0) >= WALKER_MOVED_M or any(
                (e.data or {}).get("what") == "pedestrian_crossing" for e in bundle.events_of("scenario_trigger")
            )
            if d.size and float(d.min()) <= reach and not stepped:
                problems.append(
                    f"the ego came within {float(d.min()):.0f} m of the crossing and the pedestrian never moved"
                )
    return "; ".join(problems) or None
