"""Landing on a runway (T03, and the landing part of T05): touchdown zone, sink rate,
centreline offset, and a rollout that stays on the runway to a stop.

Positions are judged in the runway frame: `along_m` from the landing threshold towards the far
end, `left_m` to the left of the centreline. The threshold in the task geometry is the landing
threshold; `pavement_before_threshold_m` is paved runway before it (a displaced threshold),
which counts as "on the runway" for the rollout and the stop but not for the touchdown.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated

import numpy as np
from pydantic import Field

from simbridge import RunwaySpec
from simbridge import primitives as P
from simbridge.params import FiniteParams, NonNegativeFinite, PositiveFinite
from simbridge.verifier import VerifyContext, verifier

M_PER_FT = 0.3048


@dataclass(frozen=True)
class RunwayFrame:
    """A runway's own frame: along the landing direction from the landing threshold, and left of it."""

    runway: RunwaySpec
    pavement_before_threshold_m: float = 0.0

    @property
    def length_m(self) -> float:
        return self.runway.length_ft * M_PER_FT

    @property
    def half_width_m(self) -> float:
        return self.runway.width_ft * M_PER_FT / 2

    def xy(self, lat_deg: np.ndarray, lon_deg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(along_m, left_m) of positions."""
        thr, end = self.runway.threshold, self.runway.end
        x, y = P.latlon_to_local_m(lat_deg, lon_deg, thr.lat_deg, thr.lon_deg)
        ex, ey = P.latlon_to_local_m(end.lat_deg, end.lon_deg, thr.lat_deg, thr.lon_deg)
        leg = P.leg_position(x, y, 0.0, 0.0, float(ex), float(ey))
        return leg.along_track, -leg.cross_track

    def on_runway(self, along_m: np.ndarray, left_m: np.ndarray) -> np.ndarray:
        """Inside the paved runway rectangle, displaced threshold included. NaN is not on it."""
        with np.errstate(invalid="ignore"):
            return (
                (along_m >= -self.pavement_before_threshold_m)
                & (along_m <= self.length_m)
                & (np.abs(left_m) <= self.half_width_m)
            )


def runway_frame(ctx: VerifyContext, runway_id: str, pavement_before_threshold_m: float) -> RunwayFrame:
    return RunwayFrame(ctx.task.geometry.runway(runway_id), pavement_before_threshold_m)


@dataclass(frozen=True)
class Landing:
    """The first touchdown after `after_t`, its sink rate (worst over any bounces) and the rollout."""

    touchdown: P.Touchdown
    bounces: int
    along_m: float
    left_m: float
    sink_fpm: float
    stop_t: float | None
    rollout_on_runway: bool
    first_off_runway_t: float | None
    rolling_forward: bool

    @property
    def stopped_on_runway(self) -> bool:
        return self.stop_t is not None and self.rollout_on_runway


def find_landing(
    ctx: VerifyContext,
    frame: RunwayFrame,
    *,
    after_t: float = -math.inf,
    stop_below_kt: float = 1.0,
    stop_hold_s: float = 2.0,
) -> Landing | None:
    """The landing: first air→ground contact after `after_t`. The sink rate is the worst of that
    contact and any bounces after it (a hard second arrival is still a hard landing); the rollout
    runs from the first contact to the stop and must stay on the paved runway throughout."""
    t = ctx.t
    on_ground, vs = ctx.sig("on_ground"), ctx.sig("vs_fpm")
    lat, lon, gs = ctx.sig("lat_deg"), ctx.sig("lon_deg"), ctx.sig("gs_kt")
    tds = [td for td in P.touchdowns(t, on_ground, vs, lat_deg=lat, lon_deg=lon) if td.t > after_t]
    if not tds:
        return None
    td = tds[0]
    stop = P.stop_time(t, gs, after_t=tds[-1].t, threshold=stop_below_kt, hold_s=stop_hold_s)
    ctx.require_coverage(td.t - 1.0, stop if stop is not None else float(t[-1]), "the touchdown and rollout")
    along, left = frame.xy(lat, lon)
    i0 = td.index
    i1 = int(np.searchsorted(t, stop, side="right")) - 1 if stop is not None else t.size - 1
    roll = slice(i0, i1 + 1)
    on = frame.on_runway(along[roll], left[roll])
    off = np.flatnonzero(~on)
    sinks = np.array([d.vs_fpm for d in tds])
    sink = float(-np.nanmin(sinks)) if np.isfinite(sinks).any() else math.nan
    return Landing(
        touchdown=td,
        bounces=len(tds) - 1,
        along_m=float(along[i0]),
        left_m=float(left[i0]),
        sink_fpm=sink,
        stop_t=stop,
        rollout_on_runway=off.size == 0,
        first_off_runway_t=float(t[i0 + off[0]]) if off.size else None,
        rolling_forward=bool(along[i1] > along[i0]),
    )


class LandingParams(FiniteParams):
    runway: str
    pavement_before_threshold_m: NonNegativeFinite = 0.0
    touchdown_zone_fraction: Annotated[float, Field(gt=0, le=1)] = 1 / 3
    max_sink_fpm: PositiveFinite = 300.0
    max_centreline_m: PositiveFinite = 5.0
    stop_below_kt: PositiveFinite = 1.0
    stop_hold_s: PositiveFinite = 2.0


@verifier(
    "landing",
    params=LandingParams,
    components=("safe_landing", "touchdown_zone", "vertical_speed", "centreline"),
    safety=("no_crash",),
    quality=("touchdown_zone", "vertical_speed", "centreline"),
)
def landing(ctx: VerifyContext) -> str:
    """Touchdown zone, sink rate and centreline are read at the first contact; a safe landing is
    no crash flag and a rollout that stays on the runway to a full stop. The task is a landing
    on the runway and a stop on it: the touchdown items are worth half when the aircraft touched
    down on the runway, in its landing direction, and did not stop on it (a touch-and-go), and
    nothing when it touched down elsewhere (a field, beside the runway, the other direction)."""
    p: LandingParams = ctx.p
    no_crash = ctx.no_events("no_crash", ("crash",), "no crash at any time", flag="crashed", latched=True)
    frame = runway_frame(ctx, p.runway, p.pavement_before_threshold_m)
    ld = find_landing(ctx, frame, stop_below_kt=p.stop_below_kt, stop_hold_s=p.stop_hold_s)
    names = ("safe_landing", "touchdown_zone", "vertical_speed", "centreline")
    if ld is None:
        for n in names:
            ctx.component(n, 0.0, explanation="no touchdown in the recording")
        ctx.progress(0.0, "no touchdown")
        return "did not land"
    on_rwy = bool(frame.on_runway(np.array([ld.along_m]), np.array([ld.left_m]))[0]) and ld.rolling_forward
    ctx.progress(
        0.5 * on_rwy + 0.5 * (on_rwy and ld.stopped_on_runway),
        ("touched down on the runway" if on_rwy else "did not touch down on the runway in its direction")
        + (", stopped on it" if on_rwy and ld.stopped_on_runway else ", no stop on it" if on_rwy else ""),
    )
    td_t = ld.touchdown.t
    rollout = (td_t, ld.stop_t if ld.stop_t is not None else float(ctx.t[-1]))
    why = []
    if not no_crash:
        why.append("crash flag set")
    if ld.stop_t is None:
        why.append("never stopped")
    if not ld.rollout_on_runway:
        why.append(f"left the runway at {ld.first_off_runway_t:.1f} s")
    ctx.component(
        "safe_landing",
        no_crash and ld.stopped_on_runway,
        measured=ld.stopped_on_runway,
        tolerance="no crash; stopped with the whole rollout on the runway",
        window=rollout,
        explanation="; ".join(why) or f"stopped on the runway at {ld.stop_t:.1f} s",
    )
    zone_m = frame.length_m * p.touchdown_zone_fraction
    in_zone = 0.0 <= ld.along_m <= zone_m and abs(ld.left_m) <= frame.half_width_m
    ctx.component(
        "touchdown_zone",
        in_zone,
        measured=ld.along_m / M_PER_FT,
        tolerance=f"0-{zone_m / M_PER_FT:.0f} ft past the threshold, on the runway",
        window=(td_t, td_t),
        explanation=f"touched down {ld.along_m / M_PER_FT:.0f} ft past the threshold",
    )
    ctx.component(
        "vertical_speed",
        ld.sink_fpm <= p.max_sink_fpm,
        measured=ld.sink_fpm,
        tolerance=f"sink ≤ {p.max_sink_fpm:g} fpm",
        window=(td_t, td_t),
        explanation=f"{ld.sink_fpm:.0f} fpm at contact" + (f" ({ld.bounces} bounce(s))" if ld.bounces else ""),
    )
    ctx.component(
        "centreline",
        abs(ld.left_m) <= p.max_centreline_m,
        measured=abs(ld.left_m),
        tolerance=f"≤ {p.max_centreline_m:g} m",
        window=(td_t, td_t),
        explanation=f"{abs(ld.left_m):.1f} m {'left' if ld.left_m > 0 else 'right'} of the centreline",
    )
    return ""
