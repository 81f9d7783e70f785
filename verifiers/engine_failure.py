"""Engine failure after take-off (T11): best glide, heading for a landable area, survivable landing."""

from __future__ import annotations

import math

import numpy as np
from pydantic import model_validator

from simbridge import Unscorable
from simbridge import primitives as P
from simbridge.params import (
    AngleTolDeg,
    FiniteParams,
    Fraction,
    NonNegativeFinite,
    NonNegativeRange,
    PositiveFinite,
    require_below,
)
from simbridge.verifier import VerifyContext, verifier


class EngineFailureParams(FiniteParams):
    glide_ias_lo_kt: PositiveFinite = 63.0
    glide_ias_hi_kt: PositiveFinite = 73.0
    glide_fraction_min: Fraction = 0.7
    flare_agl_ft: NonNegativeFinite = 20.0
    landable_runways: list[str] = ["30"]
    landable_polygons: list[str] = []
    heading_tol_deg: AngleTolDeg = 30.0
    heading_fraction_min: Fraction = 0.7
    reaction_s: NonNegativeFinite = 5.0
    glide_ratio: PositiveFinite = 9.0
    reach_margin_m: NonNegativeFinite = 300.0
    max_touchdown_fpm: PositiveFinite = 700.0
    stop_kt: PositiveFinite = 1.0
    upright_max_deg: AngleTolDeg = 30.0
    failure_agl_range_ft: NonNegativeRange = (400.0, 1200.0)
    edge_step_m: PositiveFinite = 50.0

    @model_validator(mode="after")
    def _glide_band(self) -> "EngineFailureParams":
        require_below("glide_ias_lo_kt", self.glide_ias_lo_kt, "glide_ias_hi_kt", self.glide_ias_hi_kt)
        return self


def _densify(poly: list[tuple[float, float]], step_m: float) -> np.ndarray:
    """Points along the polygon's edges every `step_m`, so bearings and distances see the whole area."""
    pts = np.asarray(poly + poly[:1], dtype=float)
    out = []
    for a, b in zip(pts[:-1], pts[1:]):
        n = max(1, int(math.ceil(np.hypot(*(b - a)) / step_m)))
        out.append(a + (b - a) * np.linspace(0.0, 1.0, n, endpoint=False)[:, None])
    return np.concatenate(out)


def heading_to_area(
    x: np.ndarray, y: np.ndarray, hdg_deg: np.ndarray, poly: list[tuple[float, float]], step_m: float
) -> tuple[np.ndarray, np.ndarray]:
    """(angular offset of the heading from the area in degrees, 0 when the nose points into it or the
    aircraft is over it; distance to the area in metres) per sample."""
    pts = _densify(poly, step_m)
    off = np.empty(x.size)
    dist = np.empty(x.size)
    chunk = max(1, 500_000 // len(pts))  # bound the samples x points matrices to a few MB
    for a in range(0, x.size, chunk):
        b = slice(a, a + chunk)
        dx = pts[None, :, 0] - x[b, None]
        dy = pts[None, :, 1] - y[b, None]
        rel = np.asarray(P.angle_diff(np.degrees(np.arctan2(dx, dy)), hdg_deg[b, None]))  # 2-D: never a scalar
        lo, hi = rel.min(axis=1), rel.max(axis=1)
        wraps = (hi - lo) > 180.0  # the area spans the tail: the nose is not inside its bearing interval
        inside_span = ~wraps & (lo <= 0.0) & (hi >= 0.0)
        off[b] = np.where(inside_span, 0.0, np.abs(rel).min(axis=1))
        dist[b] = np.hypot(dx, dy).min(axis=1)
    over = P.points_in_polygon(x, y, poly)
    return np.where(over, 0.0, off), np.where(over, 0.0, dist)


@verifier(
    "engine_failure",
    params=EngineFailureParams,
    components=("best_glide", "heading_landable", "survivable_landing"),
    safety=("no_crash",),
    bands=("ias_kt",),
)
def engine_failure(ctx: VerifyContext) -> str:
    """The glide runs from the harness's `failure_injected` event to the start of the flare (first
    time below `flare_agl_ft` after the failure) or the touchdown, whichever is first. The
    survivable landing is the task's goal (primary in the task): a glide flown well and never
    landed, or landed hard or overturned, earns nothing; a crash anywhere gates."""
    p: EngineFailureParams = ctx.p
    t = ctx.t
    lat, lon = ctx.sig("lat_deg"), ctx.sig("lon_deg")
    agl, ias, hdg = ctx.sig("alt_agl_ft"), ctx.sig("ias_kt"), ctx.sig("heading_true_deg")
    ground, vs, gs = ctx.sig("on_ground"), ctx.sig("vs_fpm"), ctx.sig("gs_kt")
    crashed, bank, pitch = ctx.sig("crashed"), ctx.sig("bank_deg"), ctx.sig("pitch_deg")
    names = ("best_glide", "heading_landable", "survivable_landing")
    ctx.no_events("no_crash", ("crash",), "no crash at any time of the episode", flag="crashed", latched=True)

    fails = ctx.bundle.events_of("failure_injected")
    if not fails:
        lifts = P.liftoffs(t, ground)
        peak = float(np.nanmax(agl[t >= lifts[0]])) if lifts else 0.0
        drawn = ctx.snapshot("start", "failure_agl_ft", required=False)
        floor = float(drawn) if drawn is not None else p.failure_agl_range_ft[0]
        if peak < floor:
            for n in names:
                ctx.component(n, 0.0, explanation=f"never climbed to the failure height ({peak:.0f} ft AGL max)")
            return "no engine failure: the aircraft never reached the failure height"
        raise Unscorable(f"no failure_injected event although the aircraft climbed to {peak:.0f} ft AGL: harness fault")
    t_fail = fails[0].t
    t_end = float(t[-1])
    ctx.require_coverage(t_fail, t_end, "the glide and landing")

    tds = [td for td in P.touchdowns(t, ground, vs) if td.t > t_fail]
    t_td = tds[0].t if tds else t_end
    with np.errstate(invalid="ignore"):
        low = P.first_true(t, (t > t_fail) & (agl < p.flare_agl_ft))
    t_flare = min(low if low is not None else t_td, t_td)

    frac = P.fraction_in_band(t, ias, p.glide_ias_lo_kt, p.glide_ias_hi_kt, t_fail, t_flare, ctx.max_gap_s)
    ctx.component(
        "best_glide",
        frac >= p.glide_fraction_min,
        measured=frac,
        tolerance=f"{p.glide_ias_lo_kt:g}-{p.glide_ias_hi_kt:g} KIAS for ≥{p.glide_fraction_min:.0%} of the glide",
        window=(t_fail, t_flare),
    )
    ctx.band(
        "ias_kt",
        p.glide_ias_lo_kt,
        p.glide_ias_hi_kt,
        t_fail,
        t_flare,
        label=f"best glide {p.glide_ias_lo_kt:g}-{p.glide_ias_hi_kt:g} KIAS",
    )

    geo = ctx.task.geometry
    ref = geo.runway(p.landable_runways[0]).threshold if p.landable_runways else None
    lat0, lon0 = (ref.lat_deg, ref.lon_deg) if ref else (float(np.nanmean(lat)), float(np.nanmean(lon)))
    x, y = P.latlon_to_local_m(lat, lon, lat0, lon0)
    areas: dict[str, list[tuple[float, float]]] = {}
    for rid in p.landable_runways:
        r = geo.runway(rid)
        areas[f"runway {rid}"] = P.runway_polygon_m(
            r.threshold.lat_deg, r.threshold.lon_deg, r.end.lat_deg, r.end.lon_deg, r.width_ft * 0.3048, lat0, lon0
        )
    for pid in p.landable_polygons:
        spec = geo.polygon(pid)
        if spec.points is None:
            raise Unscorable(f"landable polygon {pid!r} needs lat/lon points")
        px, py = P.latlon_to_local_m([q.lat_deg for q in spec.points], [q.lon_deg for q in spec.points], lat0, lon0)
        areas[pid] = list(zip(px, py))
    seg = (t >= t_fail + p.reaction_s) & (t <= t_flare)
    reach = agl * 0.3048 * p.glide_ratio + p.reach_margin_m
    toward = np.zeros(t.size, dtype=bool)
    hits: dict[str, int] = {}
    for name, poly in areas.items():
        off, dist = heading_to_area(x[seg], y[seg], hdg[seg], poly, p.edge_step_m)
        ok = (off <= p.heading_tol_deg) & (dist <= reach[seg])
        toward[np.flatnonzero(seg)[ok]] = True
        hits[name] = int(ok.sum())
    hfrac = P.fraction_true(t, toward, t_fail + p.reaction_s, t_flare, ctx.max_gap_s) if seg.sum() > 1 else 0.0
    best = max(hits, key=hits.__getitem__) if hits and max(hits.values()) else "none"
    ctx.component(
        "heading_landable",
        hfrac >= p.heading_fraction_min,
        measured=hfrac,
        tolerance=f"within ±{p.heading_tol_deg:g}° of a reachable landable area for ≥{p.heading_fraction_min:.0%}",
        window=(t_fail + p.reaction_s, t_flare),
        explanation=f"mostly toward: {best}",
    )

    problems = []
    after = t >= t_fail
    if np.any(crashed[after] > 0.5):
        problems.append(f"crash flag at t={t[after][np.argmax(crashed[after] > 0.5)]:.1f} s")
    if not tds:
        problems.append("no touchdown")
    else:
        if not np.isfinite(tds[0].vs_fpm):
            raise Unscorable(f"vertical speed not recorded around the touchdown at t={tds[0].t:.1f} s")
        if not tds[0].vs_fpm > -p.max_touchdown_fpm:
            problems.append(f"touchdown at {tds[0].vs_fpm:.0f} fpm")
        stop = P.stop_time(t, gs, after_t=tds[-1].t, threshold=p.stop_kt)
        if stop is None or not bool(P._ground(ground)[-1]):
            problems.append("not stopped on the ground at the end")
        if not (abs(bank[-1]) <= p.upright_max_deg and abs(pitch[-1]) <= p.upright_max_deg):
            problems.append(f"not upright (bank {bank[-1]:.0f}°, pitch {pitch[-1]:.0f}°)")
    where = "no touchdown"
    if tds:
        i = tds[0].index
        where = next(
            (n for n, poly in areas.items() if P.points_in_polygon([x[i]], [y[i]], poly)[0]),
            "outside the listed landable areas",
        )
    ctx.component(
        "survivable_landing",
        not problems,
        explanation=f"touched down on: {where}",
        measured="; ".join(problems) or f"{tds[0].vs_fpm:.0f} fpm, stopped upright",
        tolerance=f"no crash flag, sink < {p.max_touchdown_fpm:g} fpm, stopped, |bank|,|pitch| ≤ {p.upright_max_deg:g}°",
        window=(t_td, t_end),
    )
    return ""
