"""Helicopter hover in a box and landing on the pad (T12)."""

from __future__ import annotations

import numpy as np
from pydantic import model_validator

from simbridge import Unscorable
from simbridge import primitives as P
from simbridge.params import FiniteParams, NonNegativeFinite, PositiveFinite, require_below
from simbridge.verifier import VerifyContext, verifier


class HoverParams(FiniteParams):
    pad_centre: str = "pad_centre"
    pad_polygon: str = "pad"
    hover_min_ft: NonNegativeFinite = 5.0
    hover_max_ft: PositiveFinite = 10.0
    radius_m: PositiveFinite = 3.0
    target_s: PositiveFinite = 30.0

    @model_validator(mode="after")
    def _band(self) -> "HoverParams":
        require_below("hover_min_ft", self.hover_min_ft, "hover_max_ft", self.hover_max_ft)
        return self


def _skid_height_ft(t: np.ndarray, agl: np.ndarray, ground: np.ndarray) -> tuple[np.ndarray, float]:
    """Height of the skids: AGL minus what the sensor reads while sitting on the pad before lift-off
    (simulators report the height of a reference point, not of the skids)."""
    lifts = P.liftoffs(t, ground, min_airborne_s=0.0)
    before = (t < lifts[0]) if lifts else np.ones_like(t, dtype=bool)
    sitting = before & (ground > 0.5) & np.isfinite(agl)
    zero = float(np.median(agl[sitting])) if sitting.any() else 0.0
    return agl - zero, zero


@verifier(
    "hover",
    params=HoverParams,
    components=("hover_window", "landing_on_pad"),
    safety=("no_damage",),
    bands=("alt_agl_ft",),
    quality=("hover_window",),
)
def hover(ctx: VerifyContext) -> str:
    """Hover = airborne, skid height within the band and within `radius_m` of the pad centre,
    continuously (a telemetry gap breaks the window). Landing = the final touchdown after the
    hover, on the pad polygon, and still on the ground there at the end. The task is the hover
    and then the landing: the hover is worth half without the landing on the pad (a 30 s hover
    flown away from scored 0.7). The damage flag or a crash event anywhere gates."""
    p: HoverParams = ctx.p
    t = ctx.t
    lat, lon = ctx.sig("lat_deg"), ctx.sig("lon_deg")
    agl, ground = ctx.sig("alt_agl_ft"), ctx.sig("on_ground")
    ctx.no_events("no_damage", ("crash",), "no damage/crash flag throughout", flag="crashed", latched=True)

    c = ctx.task.geometry.circle(p.pad_centre)
    if c.centre is None:
        raise ValueError("pad centre needs lat/lon")
    x, y = P.latlon_to_local_m(lat, lon, c.centre.lat_deg, c.centre.lon_deg)
    dist = np.hypot(x, y)
    g = P._ground(ground)
    h, zero = _skid_height_ft(t, agl, g.astype(float))
    with np.errstate(invalid="ignore"):
        cond = ~g & (h >= p.hover_min_ft) & (h <= p.hover_max_ft) & (dist <= p.radius_m)
    w = P.longest_window(t, cond, ctx.max_gap_s)
    w_any = P.longest_window(t, cond)  # the same condition with gaps bridged
    dur = w.duration_s if w else 0.0
    if w_any and min(w_any.duration_s, p.target_s) > min(dur, p.target_s) + 1e-9:
        a, b = ctx.gaps(w_any.t0, w_any.t1)[0]
        raise Unscorable(f"telemetry gap {a:.2f}-{b:.2f} s inside the hover makes its length undecidable")
    ctx.component(
        "hover_window",
        P.linear_credit(dur, 0.0, p.target_s),
        measured=dur,
        tolerance=f"{p.hover_min_ft:g}-{p.hover_max_ft:g} ft, ≤{p.radius_m:g} m, full credit at {p.target_s:g} s",
        window=w.as_tuple() if w else None,
        explanation=f"skid height = AGL − {zero:.1f} ft read on the pad",
    )
    # drawn on the recorded AGL: the skid-height band shifted up by the pad reading, over the
    # hover window (the whole episode when it never hovered)
    ctx.band(
        "alt_agl_ft",
        p.hover_min_ft + zero,
        p.hover_max_ft + zero,
        *(w.as_tuple() if w else (None, None)),
        label=f"skids {p.hover_min_ft:g}-{p.hover_max_ft:g} ft (AGL − {zero:.1f} ft on the pad)",
    )

    poly = ctx.task.geometry.polygon(p.pad_polygon)
    if poly.points is None:
        raise ValueError("pad polygon needs lat/lon points")
    px, py = P.latlon_to_local_m(
        [q.lat_deg for q in poly.points], [q.lon_deg for q in poly.points], c.centre.lat_deg, c.centre.lon_deg
    )
    on_pad = P.points_in_polygon(x, y, list(zip(px, py)))
    after = w.t1 if w else (P.liftoffs(t, ground)[:1] or [np.inf])[0]
    tds = [td for td in P.touchdowns(t, ground, np.zeros_like(t)) if td.t >= after]
    ok, why = False, "no touchdown after the hover" if w else "never hovered or lifted off"
    if tds:
        td = tds[-1]
        ctx.require_coverage(td.t, float(t[-1]), "the final landing")
        stays = bool(g[td.index :].all())
        ok = bool(on_pad[td.index]) and stays and bool(on_pad[-1])
        why = f"touchdown {dist[td.index]:.1f} m from pad centre" + ("" if stays else ", lifted off again")
    ctx.progress(1.0 if ok else 0.5, "landed on the pad" if ok else "no landing on the pad after it")
    ctx.component(
        "landing_on_pad",
        ok,
        measured=why,
        tolerance="final touchdown on the pad, on the ground at the end",
        window=(tds[-1].t, float(t[-1])) if tds else None,
    )
    return ""
