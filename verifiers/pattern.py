"""Traffic pattern and landing (T05): the four legs inside a geometric template, in order,
the downwind flown at pattern altitude, then a landing and stop on the runway.

The template lives in the runway frame (see `landing.RunwayFrame`): each leg is a box of
positions plus a ground-track direction relative to the runway, so a right-hand pattern, a
pattern flown backwards or a straight-in approach matches no leg sequence.
"""

from __future__ import annotations

import math

import numpy as np

from simbridge import primitives as P
from simbridge.params import (
    AngleTolDeg,
    FiniteParams,
    NonNegativeFinite,
    NonNegativeRange,
    PositiveFinite,
    Side,
)
from simbridge.verifier import VerifyContext, verifier
from simbridge.verifiers.landing import M_PER_FT, find_landing, runway_frame

M_PER_NM = P.M_PER_NM


class PatternParams(FiniteParams):
    runway: str
    side: Side = "left"
    pavement_before_threshold_m: NonNegativeFinite = 0.0
    pattern_alt_agl_ft: PositiveFinite = 1000.0
    alt_tol_ft: PositiveFinite = 100.0
    min_leg_s: PositiveFinite = 10.0
    track_tol_deg: AngleTolDeg = 45.0
    final_track_tol_deg: AngleTolDeg = 20.0
    downwind_offset_nm: NonNegativeRange = (0.25, 1.5)
    max_leg_extent_nm: PositiveFinite = 2.5
    final_halfwidth_m: PositiveFinite = 150.0
    max_sink_fpm: PositiveFinite = 600.0
    stop_below_kt: PositiveFinite = 1.0
    stop_hold_s: PositiveFinite = 2.0


LEGS = ("crosswind", "downwind", "base", "final")


def _leg_conditions(
    p: PatternParams, along: np.ndarray, side_m: np.ndarray, rel_track: np.ndarray, length_m: float
) -> dict[str, np.ndarray]:
    """Per-sample membership of each leg: position box and ground track relative to the runway
    (0 = landing direction, +90 = towards the pattern side)."""
    ext = p.max_leg_extent_nm * M_PER_NM
    lo, hi = (v * M_PER_NM for v in p.downwind_offset_nm)
    near = -0.1 * M_PER_NM

    def track(centre: float, tol: float) -> np.ndarray:
        return np.abs(P.angle_diff(rel_track, centre)) <= tol

    with np.errstate(invalid="ignore"):
        return {
            "crosswind": track(90.0, p.track_tol_deg)
            & (along >= 0)
            & (along <= length_m + ext)
            & (side_m >= near)
            & (side_m <= hi),
            "downwind": track(180.0, p.track_tol_deg)
            & (along >= -ext)
            & (along <= length_m + ext)
            & (side_m >= lo)
            & (side_m <= hi),
            "base": track(-90.0, p.track_tol_deg) & (along >= -ext) & (along <= 0) & (side_m >= near) & (side_m <= hi),
            "final": track(0.0, p.final_track_tol_deg)
            & (along >= -ext)
            & (along <= 0)
            & (np.abs(side_m) <= p.final_halfwidth_m),
        }


def touchdown_zone_m(length_m: float) -> float:
    """The far end of the touchdown zone past the landing threshold: the first third of the
    runway, at most 3,000 ft (FAA AIM 2-3-3). The descent on downwind begins abeam the touchdown
    point (FAA Airplane Flying Handbook, ch. 8), so pattern altitude is judged until abeam it."""
    return min(length_m / 3.0, 3000.0 * M_PER_FT)


@verifier(
    "traffic_pattern",
    params=PatternParams,
    components=("pattern_geometry", "altitude_discipline", "landing_and_stop"),
    safety=("no_crash",),
    bands=("alt_msl_ft",),
    quality=("altitude_discipline", "landing_and_stop"),
)
def traffic_pattern(ctx: VerifyContext) -> str:
    """Legs are found in order after the first liftoff and before the landing (the first contact
    after it): each is the first stretch of at least `min_leg_s` in its box with its track that
    starts after the previous leg started. The downwind is judged from geometry, not from that
    window: from the first sample on the downwind track after the crosswind began to the base,
    every airborne sample until abeam the touchdown zone (where the descent begins) must be at
    pattern altitude ±tol above field elevation, wherever a jog broke the leg's window. Leg
    windows are gap-aware; a missing leg with a telemetry gap where it could have been flown is
    undecidable. The task is four legs and a landing on the runway after them: the altitude and
    landing items are worth the part of it flown (progress), and a crash anywhere gates."""
    p: PatternParams = ctx.p
    t = ctx.t
    lat, lon, alt = ctx.sig("lat_deg"), ctx.sig("lon_deg"), ctx.sig("alt_msl_ft")
    on_ground = ctx.sig("on_ground")
    frame = runway_frame(ctx, p.runway, p.pavement_before_threshold_m)
    elev_ft = frame.runway.elevation_ft
    ctx.no_events("no_crash", ("crash",), "no crash at any time of the episode", flag="crashed", latched=True)

    lifts = P.liftoffs(t, on_ground)
    if not lifts:
        for n in ("pattern_geometry", "altitude_discipline", "landing_and_stop"):
            ctx.component(n, 0.0, explanation="never took off")
        ctx.progress(0.0, "never took off")
        return "no takeoff"
    lift_t = lifts[0]
    ld = find_landing(ctx, frame, after_t=lift_t, stop_below_kt=p.stop_below_kt, stop_hold_s=p.stop_hold_s)
    land_t = ld.touchdown.t if ld is not None else float(t[-1])

    along, left = frame.xy(lat, lon)
    side_m = left if p.side == "left" else -left
    with np.errstate(invalid="ignore", divide="ignore"):
        v_along, v_side = np.gradient(along, t), np.gradient(side_m, t)
        rel = np.degrees(np.arctan2(v_side, v_along))
    airborne = ~(P._ground(on_ground)) & (t >= lift_t) & (t <= land_t)
    conds = _leg_conditions(p, along, side_m, rel, frame.length_m)

    found: dict[str, P.Window] = {}
    after = lift_t
    for leg in LEGS:  # four legs, each a vectorised window search
        ok = [
            w for w in P.runs(t, conds[leg] & airborne, ctx.max_gap_s) if w.t0 >= after and w.duration_s >= p.min_leg_s
        ]
        if not ok:
            break
        found[leg] = ok[0]
        after = ok[0].t0
    missing = [leg for leg in LEGS if leg not in found]
    if missing:  # a leg could have been flown inside a telemetry gap
        ctx.require_coverage(after, land_t, f"whether a {missing[0]} leg was flown")
    span = (lift_t, land_t)
    ctx.component(
        "pattern_geometry",
        not missing,
        measured=f"{len(found)}/4 legs",
        tolerance=f"{p.side}-hand crosswind, downwind {p.downwind_offset_nm[0]:g}-{p.downwind_offset_nm[1]:g} nm "
        f"abeam, base, final, each ≥ {p.min_leg_s:g} s, in order",
        window=span,
        explanation=(
            "found "
            + ", ".join(f"{k} {w.t0:.0f}-{w.t1:.0f} s" for k, w in found.items())
            + (f"; no {missing[0]} after that" if missing else "")
        ),
    )

    dw = found.get("downwind")
    tdz_m = touchdown_zone_m(frame.length_m)
    tol_txt = f"{p.pattern_alt_agl_ft:g}±{p.alt_tol_ft:g} ft above field ({elev_ft:g} ft) on downwind"
    if dw is None:
        ctx.component("altitude_discipline", 0.0, tolerance=tol_txt, explanation="no downwind leg to judge")
    else:
        # the downwind by geometry: from the first sample on its track and in its box after the
        # crosswind began, to the base; judged until abeam the touchdown zone's far end
        with np.errstate(invalid="ignore"):
            starts = np.flatnonzero(conds["downwind"] & airborne & (t >= found["crosswind"].t0))
            t_dw0 = float(t[starts[0]]) if starts.size else dw.t0
            t_dw1 = found["base"].t0 if "base" in found else land_t
            judged = airborne & (t >= t_dw0) & (t <= t_dw1) & (along >= tdz_m)
        idx = np.flatnonzero(judged)
        t_j1 = float(t[idx[-1]]) if idx.size else dw.t1
        ctx.require_coverage(t_dw0, t_j1, "the downwind altitude", signals=("alt_msl_ft", "lat_deg", "lon_deg"))
        agl = alt[idx] - elev_ft
        dev = float(np.nanmax(np.abs(agl - p.pattern_alt_agl_ft))) if np.isfinite(agl).any() else math.inf
        ctx.component(
            "altitude_discipline",
            dev <= p.alt_tol_ft,
            measured=dev,
            tolerance=f"{tol_txt}, until abeam the touchdown zone ({tdz_m:.0f} m past the threshold)",
            window=(t_dw0, t_j1),
            explanation=(
                f"downwind {np.nanmin(agl):.0f}-{np.nanmax(agl):.0f} ft above field"
                if np.isfinite(agl).any()
                else "no downwind sample before abeam the touchdown zone"
            ),
        )
        # the pattern altitude above the field, in MSL (the recorded signal), on the downwind leg
        mid, tol = elev_ft + p.pattern_alt_agl_ft, p.alt_tol_ft
        ctx.band(
            "alt_msl_ft",
            mid - tol,
            mid + tol,
            t_dw0,
            t_j1,
            label=f"{p.pattern_alt_agl_ft:g}±{tol:g} ft above field ({elev_ft:g} ft) on downwind",
        )

    legs = len(found)
    if ld is None:
        ctx.component("landing_and_stop", 0.0, explanation="no landing after the takeoff")
        ctx.progress(legs / 5, f"{legs} of 4 legs, no landing")
        return ""
    on_rwy = 0.0 <= ld.along_m <= frame.length_m and abs(ld.left_m) <= frame.half_width_m
    landed = on_rwy and ld.rolling_forward
    ctx.progress(
        (legs + (1 if landed else 0)) / 5,
        f"{legs} of 4 legs" + (", landed on the runway" if landed else ", no landing on the runway"),
    )
    checks = {
        f"touchdown on runway {p.runway}": landed,
        f"sink < {p.max_sink_fpm:g} fpm": ld.sink_fpm < p.max_sink_fpm,
        "stopped on the runway": ld.stopped_on_runway,
    }
    bad = [k for k, v in checks.items() if not v]
    ctx.component(
        "landing_and_stop",
        not bad,
        measured=ld.sink_fpm,
        tolerance=", ".join(checks),
        window=(ld.touchdown.t, ld.stop_t or float(t[-1])),
        explanation=("failed: " + ", ".join(bad))
        if bad
        else f"touched down {ld.along_m / M_PER_FT:.0f} ft past the threshold at {ld.sink_fpm:.0f} fpm, stopped",
    )
    return ""
