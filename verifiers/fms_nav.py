"""A G1000 flight plan flown in NAV mode (T04): the plan as entered, autopilot modes and
altitude target at the end, and the track along the active leg."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from pydantic import Field

from simbridge import Unscorable
from simbridge import primitives as P
from simbridge.verifiers._final_state import final_mask, holds, is_state
from simbridge.params import FiniteParams, LatDeg, LonDeg, PositiveFinite
from simbridge.verifier import VerifyContext, verifier


class Waypoint(FiniteParams):
    """A fix of the expected plan, with its real coordinates."""

    id: str = Field(min_length=1)
    lat_deg: LatDeg
    lon_deg: LonDeg


class FmsNavParams(FiniteParams):
    waypoints: list[Waypoint] = Field(min_length=2)
    waypoint_tol_nm: PositiveFinite = 2.0
    alt_target_ft: PositiveFinite = 7500.0
    alt_target_tol_ft: PositiveFinite = 10.0
    #: the aircraft itself at the target altitude ("engage ALT mode at 7,500 ft")
    alt_tol_ft: PositiveFinite = 100.0
    final_hold_s: PositiveFinite = 5.0
    max_xtk_nm: PositiveFinite = 0.3
    track_s: PositiveFinite = 120.0


def plan_at_end(ctx: VerifyContext) -> list[dict[str, Any]]:
    """The flight plan at the end: `end.fms_legs` ([{id, lat_deg, lon_deg}]) or, as the X-Plane
    FMS probe writes it, `end.fms.legs` ([{ident, lat_deg, lon_deg, ...}]). Missing, malformed or
    an error from the probe → unscored."""
    raw = ctx.snapshot("end", "fms_legs", required=False)
    where = "end.fms_legs"
    if raw is None:
        fms = ctx.snapshot("end", "fms", required=False)
        if fms is None:
            raise Unscorable("snapshot 'end.fms_legs' (or 'end.fms.legs') missing from snapshots.json")
        if isinstance(fms, dict) and fms.get("error"):
            raise Unscorable(f"FMS probe failed at the end of the episode: {fms['error']}")
        where = "end.fms.legs"
        raw = fms.get("legs") if isinstance(fms, dict) else None
        if isinstance(raw, list):
            raw = [dict(e, id=e.get("ident")) if isinstance(e, dict) else e for e in raw]
    if not isinstance(raw, list) or not all(isinstance(e, dict) and e.get("id") is not None for e in raw):
        raise Unscorable(f"snapshot '{where}' is not a list of {{id, lat_deg, lon_deg}}")
    return raw


def _unit(dx: float, dy: float) -> tuple[float, float]:
    n = math.hypot(dx, dy)
    return (dx / n, dy / n) if n > 0 else (0.0, 0.0)


def active_leg_xtk_nm(lat: np.ndarray, lon: np.ndarray, wps: list[Waypoint]) -> np.ndarray:
    """Cross-track (nm) to the active leg, sequenced as an FMS does: a leg is done once the
    aircraft crosses the bisector of the turn at its end waypoint (the perpendicular at the last
    one) after the previous leg was done, and stays done. After the last leg: NaN."""
    xtk = np.full(lat.shape, np.nan)
    prev_done = np.ones(lat.shape, dtype=bool)
    for k in range(len(wps) - 1):  # one vectorised pass per leg
        a, b = wps[k], wps[k + 1]
        x, y = P.latlon_to_local_m(lat, lon, b.lat_deg, b.lon_deg)
        ax, ay = P.latlon_to_local_m(a.lat_deg, a.lon_deg, b.lat_deg, b.lon_deg)
        u_in = _unit(-float(ax), -float(ay))
        bis = u_in
        if k + 2 < len(wps):
            c = wps[k + 2]
            cx, cy = P.latlon_to_local_m(c.lat_deg, c.lon_deg, b.lat_deg, b.lon_deg)
            u_out = _unit(float(cx), float(cy))
            bis = _unit(u_in[0] + u_out[0], u_in[1] + u_out[1])
            if bis == (0.0, 0.0):  # a reversal: sequence at the perpendicular
                bis = u_in
        with np.errstate(invalid="ignore"):
            crossed = (x * bis[0] + y * bis[1]) >= 0
        done = np.maximum.accumulate(crossed & prev_done)
        active = prev_done & ~done
        xtk[active] = P.cross_track_nm(lat[active], lon[active], (a.lat_deg, a.lon_deg), (b.lat_deg, b.lon_deg))
        prev_done = done
    return xtk


@verifier(
    "fms_nav",
    params=FmsNavParams,
    components=("flight_plan", "ap_modes", "altitude_target", "tracking"),
    safety=("no_crash",),
    bands=("ap_alt_target_ft", "alt_msl_ft"),
)
def fms_nav(ctx: VerifyContext) -> str:
    """The plan is `end.fms_legs` (or `end.fms.legs`) from snapshots.json: the same identifiers in the same order,
    each within `waypoint_tol_nm` of the real fix (a same-named fix elsewhere is wrong). Modes
    and target are judged on the final state, airborne: the modes engaged in flight, the target
    set and the aircraft itself at the target altitude (±`alt_tol_ft`); tracking is the longest
    airborne, gap-aware window with cross-track to the active leg under `max_xtk_nm`. A crash
    anywhere gates."""
    p: FmsNavParams = ctx.p
    t = ctx.t
    legs = plan_at_end(ctx)
    want = [w.id.upper() for w in p.waypoints]
    got = [str(e["id"]).strip().upper() for e in legs]
    far = []
    if got == want:
        for e, w in zip(legs, p.waypoints):
            try:
                d_nm = P.haversine_m(float(e["lat_deg"]), float(e["lon_deg"]), w.lat_deg, w.lon_deg) / P.M_PER_NM
            except (KeyError, TypeError, ValueError):
                d_nm = math.inf
            if not d_nm <= p.waypoint_tol_nm:
                far.append(w.id)
    ok = got == want and not far
    ctx.component(
        "flight_plan",
        ok,
        measured=" → ".join(got) or "(empty)",
        tolerance=" → ".join(want),
        explanation="plan matches"
        if ok
        else (f"{', '.join(far)} not the real fix" if far else "different entries or order"),
    )

    ctx.no_events("no_crash", ("crash",), "no crash at any time of the episode", flag="crashed", latched=True)
    ap, nav, altm, tgt = ctx.sig("autopilot_on"), ctx.sig("ap_nav"), ctx.sig("ap_alt"), ctx.sig("ap_alt_target_ft")
    lat, lon, on_ground, alt = ctx.sig("lat_deg"), ctx.sig("lon_deg"), ctx.sig("on_ground"), ctx.sig("alt_msl_ft")
    end, win = final_mask(ctx, p.final_hold_s)
    airborne = ~P._ground(on_ground)
    modes = holds(is_state(ap, 1) & is_state(nav, 1) & is_state(altm, 1) & airborne, end)
    ctx.component(
        "ap_modes",
        modes,
        measured=f"AP {ap[-1]:.0f} NAV {nav[-1]:.0f} ALT {altm[-1]:.0f}"
        + ("" if bool(airborne[-1]) else ", on the ground"),
        tolerance=f"airborne, AP engaged, NAV and ALT active for the last {p.final_hold_s:g} s",
        window=win,
    )
    with np.errstate(invalid="ignore"):
        on_target = np.abs(tgt - p.alt_target_ft) <= p.alt_target_tol_ft
        at_alt = np.abs(alt - p.alt_target_ft) <= p.alt_tol_ft
    ctx.component(
        "altitude_target",
        holds(on_target & at_alt & airborne, end),
        measured=float(tgt[-1]) if np.isfinite(tgt[-1]) else None,
        tolerance=f"target {p.alt_target_ft:g}±{p.alt_target_tol_ft:g} ft, aircraft at {p.alt_target_ft:g}"
        f"±{p.alt_tol_ft:g} ft MSL",
        window=win,
        explanation=f"aircraft at {alt[-1]:.0f} ft MSL at the end" if np.isfinite(alt[-1]) else "",
    )
    if win is not None:  # the autopilot's altitude target ± tolerance over the final hold
        a, tol = p.alt_target_ft, p.alt_target_tol_ft
        ctx.band("ap_alt_target_ft", a - tol, a + tol, *win, label=f"target {a:g}±{tol:g} ft")
        ctx.band("alt_msl_ft", a - p.alt_tol_ft, a + p.alt_tol_ft, *win, label=f"{a:g}±{p.alt_tol_ft:g} ft")

    xtk = active_leg_xtk_nm(lat, lon, p.waypoints)
    with np.errstate(invalid="ignore"):
        cond = (np.abs(xtk) < p.max_xtk_nm) & ~P._ground(on_ground)
    track = P.longest_window(t, cond, ctx.max_gap_s)
    dur = track.duration_s if track is not None else 0.0
    if dur < p.track_s:
        joined = P.longest_window(t, cond)
        if joined is not None and joined.duration_s >= p.track_s:
            ctx.require_coverage(joined.t0, joined.t1, "whether the on-track window lasted long enough")
    ctx.component(
        "tracking",
        dur >= p.track_s,
        measured=dur,
        tolerance=f"|XTK| < {p.max_xtk_nm:g} nm for {p.track_s:g} s",
        window=track.as_tuple() if track else None,
        explanation=f"longest on-track window {dur:.0f} s",
    )
    return ""
