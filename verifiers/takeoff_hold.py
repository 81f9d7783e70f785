"""Take off, climb, and hold heading, altitude and airspeed by hand (T02)."""

from __future__ import annotations

import numpy as np

from simbridge import primitives as P
from simbridge.params import AngleTolDeg, FiniteParams, HeadingDeg, NonNegativeFinite, PositiveFinite
from simbridge.verifier import VerifyContext, verifier
from simbridge.verifiers.landing import runway_frame


class TakeoffHoldParams(FiniteParams):
    runway: str
    heading_deg: HeadingDeg = 340.0
    heading_tol_deg: AngleTolDeg = 10.0
    alt_ft: PositiveFinite = 3000.0
    alt_tol_ft: PositiveFinite = 100.0
    ias_kt: PositiveFinite = 90.0
    ias_tol_kt: PositiveFinite = 5.0
    hold_s: PositiveFinite = 60.0
    min_airborne_s: NonNegativeFinite = 10.0


@verifier(
    "takeoff_hold",
    params=TakeoffHoldParams,
    components=("takeoff", "reach_altitude", "hold_window"),
    safety=("autopilot_off", "no_crash"),
    bands=("heading_mag_deg", "alt_msl_ft", "ias_kt"),
)
def takeoff_hold(ctx: VerifyContext) -> str:
    """Takeoff: a liftoff that stays airborne `min_airborne_s` whose last ground sample is on the
    assigned runway. Reaching altitude means entering the tolerance band (≥ alt - tol) after it.
    The hold credit scales with the longest gap-aware window, airborne after the liftoff, in
    which heading, altitude and airspeed are all in tolerance at once, up to `hold_s`. A crash
    anywhere in the episode, after the hold too, gates the score."""
    p: TakeoffHoldParams = ctx.p
    t = ctx.t
    on_ground, lat, lon = ctx.sig("on_ground"), ctx.sig("lat_deg"), ctx.sig("lon_deg")
    alt, ias, hdg = ctx.sig("alt_msl_ft"), ctx.sig("ias_kt"), ctx.sig("heading_mag_deg")
    with np.errstate(invalid="ignore"):
        ctx.throughout("autopilot_off", ~(ctx.sig("autopilot_on") > 0.5), "autopilot off throughout (hand-flown)")
    ctx.no_events("no_crash", ("crash",), "no crash at any time of the episode", flag="crashed", latched=True)

    lifts = P.liftoffs(t, on_ground, min_airborne_s=p.min_airborne_s)
    if not lifts:
        for n in ("takeoff", "reach_altitude", "hold_window"):
            ctx.component(n, 0.0, explanation="never took off")
        _hold_bands(ctx, None, None)
        return "no takeoff"
    lift_t = lifts[0]
    i_lift = int(np.searchsorted(t, lift_t))
    ctx.require_coverage(lift_t - 1.0, lift_t + 1.0, "the liftoff")
    frame = runway_frame(ctx, p.runway, 0.0)
    along, left = frame.xy(lat[max(i_lift - 1, 0) : i_lift], lon[max(i_lift - 1, 0) : i_lift])
    from_rwy = bool(frame.on_runway(along, left).all()) if along.size else False
    ctx.component(
        "takeoff",
        from_rwy,
        measured=lift_t,
        tolerance=f"liftoff from runway {p.runway}",
        window=(lift_t, lift_t),
        explanation=f"lifted off at {lift_t:.1f} s" + ("" if from_rwy else f", not from runway {p.runway}"),
    )

    t_reach = P.first_reach(t, alt, p.alt_ft - p.alt_tol_ft, after_t=lift_t)
    ctx.component(
        "reach_altitude",
        t_reach is not None,
        measured=float(np.nanmax(alt[i_lift:])),
        tolerance=f"≥ {p.alt_ft - p.alt_tol_ft:g} ft MSL",
        window=(t_reach, t_reach) if t_reach else None,
        explanation=f"reached at {t_reach:.0f} s" if t_reach is not None else "never reached",
    )

    with np.errstate(invalid="ignore"):
        ok = (
            (np.abs(P.angle_diff(hdg, p.heading_deg)) <= p.heading_tol_deg)
            & (np.abs(alt - p.alt_ft) <= p.alt_tol_ft)
            & (np.abs(ias - p.ias_kt) <= p.ias_tol_kt)
            & ~P._ground(on_ground)
            & (t >= lift_t)
        )
    w = P.longest_window(t, ok, ctx.max_gap_s)
    dur = w.duration_s if w is not None else 0.0
    ctx.component(
        "hold_window",
        P.linear_credit(dur, 0.0, p.hold_s),
        measured=dur,
        tolerance=f"hdg {p.heading_deg:g}±{p.heading_tol_deg:g}°, {p.alt_ft:g}±{p.alt_tol_ft:g} ft, "
        f"{p.ias_kt:g}±{p.ias_tol_kt:g} KIAS together for {p.hold_s:g} s",
        window=w.as_tuple() if w else None,
        explanation=f"longest in-tolerance window {dur:.1f} s",
    )
    _hold_bands(ctx, *(w.as_tuple() if w is not None else (lift_t, None)))
    return ""


def _hold_bands(ctx: VerifyContext, t0: float | None, t1: float | None) -> None:
    """Heading, altitude and airspeed targets ± tolerance, over the hold window when one was
    found, else from the liftoff to the end (the whole episode without a liftoff)."""
    p: TakeoffHoldParams = ctx.p
    ctx.band(
        "heading_mag_deg",
        p.heading_deg - p.heading_tol_deg,
        p.heading_deg + p.heading_tol_deg,
        t0,
        t1,
        label=f"heading {p.heading_deg:g}±{p.heading_tol_deg:g}°",
    )
    ctx.band(
        "alt_msl_ft",
        p.alt_ft - p.alt_tol_ft,
        p.alt_ft + p.alt_tol_ft,
        t0,
        t1,
        label=f"{p.alt_ft:g}±{p.alt_tol_ft:g} ft",
    )
    ctx.band(
        "ias_kt", p.ias_kt - p.ias_tol_kt, p.ias_kt + p.ias_tol_kt, t0, t1, label=f"{p.ias_kt:g}±{p.ias_tol_kt:g} kt"
    )
