"""A coupled ILS approach to decision height (T10): NAV1 tuned and course set, the autopilot's
approach mode with localizer and glideslope captured, needles within a dot at the 500 ft gate,
and the autopilot disconnected near decision height."""

from __future__ import annotations

from typing import Annotated

import numpy as np
from pydantic import Field

from simbridge import Unscorable
from simbridge import primitives as P
from simbridge.verifiers._final_state import is_state
from simbridge.params import AngleTolDeg, FiniteParams, HeadingDeg, NavMHz, NonNegativeRange, PositiveFinite
from simbridge.verifier import VerifyContext, verifier


class IlsParams(FiniteParams):
    nav1_mhz: NavMHz
    freq_tol_mhz: PositiveFinite = 0.005
    course_deg: HeadingDeg
    obs_tol_deg: AngleTolDeg = 3.0
    min_capture_s: PositiveFinite = 5.0
    gate_agl_ft: PositiveFinite = 500.0
    max_dev_dots: Annotated[float, Field(gt=0, le=2.5, description="full-scale deflection is 2.5 dots")] = 1.0
    disconnect_agl_ft: NonNegativeRange = (150.0, 250.0)


def _descending_crossing(t: np.ndarray, agl: np.ndarray, level_ft: float) -> tuple[int, float] | None:
    """(index of the first sample at or below `level_ft` after being above it, interpolated time)."""
    with np.errstate(invalid="ignore"):
        above = agl > level_ft
        below = agl <= level_ft
    seen_above = np.maximum.accumulate(above)
    idx = np.flatnonzero(below & np.concatenate(([False], seen_above[:-1])))
    if idx.size == 0:
        return None
    i = int(idx[0])
    j = int(np.flatnonzero(above[:i])[-1])
    a0, a1 = agl[j], agl[i]
    frac = (a0 - level_ft) / (a0 - a1) if a0 != a1 else 1.0
    return i, float(t[j] + frac * (t[i] - t[j]))


@verifier(
    "ils_approach",
    params=IlsParams,
    components=("frequency_obs", "loc_gs_captured", "deviations", "disconnect_at_dh"),
    safety=("no_crash",),
    bands=("loc_dev_dots", "gs_dev_dots", "alt_agl_ft"),
    quality=("frequency_obs", "loc_gs_captured"),
)
def ils_approach(ctx: VerifyContext) -> str:
    """Frequency, course and deviations are read at the 500 ft AGL gate (first descent through
    it, interpolated), or at the end if the aircraft never got there. Capture needs APR with LOC
    and GS both captured and the autopilot engaged, together for `min_capture_s`. The
    disconnect judged is the first autopilot 1→0 after the capture began (or the first at all
    without a capture): an early disconnect is not redeemed by re-engaging and disconnecting
    again at minimums. Only the asked ILS counts: a capture or needles with NAV1 on another
    frequency (another runway's localizer) earn nothing. Tuning and capture are worth the part
    of the approach flown (from the start height down to the top of the decision-height band),
    and a crash anywhere gates."""
    p: IlsParams = ctx.p
    t = ctx.t
    nav, obs = ctx.sig("nav1_mhz"), ctx.sig("nav1_obs_deg")
    ap, apr = ctx.sig("autopilot_on"), ctx.sig("ap_apr")
    loc_c, gs_c = ctx.sig("ap_loc_captured"), ctx.sig("ap_gs_captured")
    loc, gs, agl = ctx.sig("loc_dev_dots"), ctx.sig("gs_dev_dots"), ctx.sig("alt_agl_ft")
    ctx.no_events("no_crash", ("crash",), "no crash at any time of the episode", flag="crashed", latched=True)
    with np.errstate(invalid="ignore"):
        tuned = np.abs(nav - p.nav1_mhz) <= p.freq_tol_mhz
    lo_dh, hi_dh = p.disconnect_agl_ft
    h0 = float(agl[np.flatnonzero(np.isfinite(agl))[0]]) if np.isfinite(agl).any() else float("nan")
    h_min = float(np.nanmin(agl)) if np.isfinite(agl).any() else float("nan")
    prog = 1.0 if not h0 > hi_dh else float(np.clip((h0 - h_min) / (h0 - hi_dh), 0.0, 1.0))
    ctx.progress(prog, f"descended from {h0:.0f} to {h_min:.0f} ft AGL of the approach down to {hi_dh:g} ft")

    gate = _descending_crossing(t, agl, p.gate_agl_ft)
    if gate is not None:
        i_gate, t_gate = gate
        ctx.require_coverage(t_gate - 0.01, t_gate + 0.01, f"the {p.gate_agl_ft:g} ft gate")
        at = lambda x: float(np.interp(t_gate, t[i_gate - 1 : i_gate + 1], x[i_gate - 1 : i_gate + 1]))  # noqa: E731
    else:
        t_gate = float(t[-1])
        at = lambda x: float(x[-1])  # noqa: E731
    f, o = at(nav), at(obs)
    ok = abs(f - p.nav1_mhz) <= p.freq_tol_mhz and abs(P.angle_diff(o, p.course_deg)) <= p.obs_tol_deg
    ctx.component(
        "frequency_obs",
        ok,
        measured=f"{f:.2f} MHz / {o:.0f}°",
        tolerance=f"{p.nav1_mhz:.2f} MHz, OBS {p.course_deg:g}±{p.obs_tol_deg:g}°",
        window=(t_gate, t_gate),
        explanation=("at the gate" if gate else "at the end (never reached the gate)"),
    )

    # the asked ILS only: a capture of another localizer (NAV1 on another frequency) is not it
    captured = is_state(ap, 1) & is_state(apr, 1) & is_state(loc_c, 1) & is_state(gs_c, 1) & tuned
    cap = [w for w in P.runs(t, captured, ctx.max_gap_s) if w.duration_s >= p.min_capture_s]
    if not cap:
        joined = [w for w in P.runs(t, captured) if w.duration_s >= p.min_capture_s]
        if joined:
            ctx.require_coverage(joined[0].t0, joined[0].t1, "whether LOC and GS stayed captured")
    ctx.component(
        "loc_gs_captured",
        bool(cap),
        measured=max((w.duration_s for w in cap), default=0.0),
        tolerance=f"AP + APR with LOC and GS of {p.nav1_mhz:.2f} MHz captured for ≥ {p.min_capture_s:g} s",
        window=cap[0].as_tuple() if cap else None,
        explanation=f"captured from {cap[0].t0:.0f} s"
        if cap
        else f"LOC and GS of {p.nav1_mhz:.2f} MHz never captured together",
    )

    if gate is None:
        ctx.component(
            "deviations",
            0.0,
            tolerance=f"< {p.max_dev_dots:g} dot at {p.gate_agl_ft:g} ft AGL",
            explanation=f"never descended through {p.gate_agl_ft:g} ft AGL",
        )
    else:
        dl, dg = at(loc), at(gs)
        if not (np.isfinite(dl) and np.isfinite(dg)):
            raise Unscorable(f"deviation missing at the {p.gate_agl_ft:g} ft gate")
        right_ils = abs(f - p.nav1_mhz) <= p.freq_tol_mhz
        ok = right_ils and abs(dl) < p.max_dev_dots and abs(dg) < p.max_dev_dots
        ctx.component(
            "deviations",
            ok,
            measured=max(abs(dl), abs(dg)),
            tolerance=f"< {p.max_dev_dots:g} dot of the {p.nav1_mhz:.2f} MHz ILS at {p.gate_agl_ft:g} ft AGL",
            window=(t_gate, t_gate),
            explanation=f"LOC {dl:+.2f}, GS {dg:+.2f} dots"
            + ("" if right_ils else f" of another ILS (NAV1 on {f:.2f} MHz)"),
        )
        for sig, what in (("loc_dev_dots", "LOC"), ("gs_dev_dots", "GS")):
            ctx.band(
                sig,
                -p.max_dev_dots,
                p.max_dev_dots,
                t_gate,
                t_gate,
                label=f"{what} ±{p.max_dev_dots:g} dot at {p.gate_agl_ft:g} ft AGL",
            )

    on = is_state(ap, 1)
    offs = np.flatnonzero(on[:-1] & ~on[1:]) + 1  # first sample with the autopilot off
    since = cap[0].t0 if cap else -np.inf
    offs = offs[t[offs] > since]
    lo, hi = p.disconnect_agl_ft
    if offs.size == 0:
        ctx.component("disconnect_at_dh", 0.0, tolerance=f"{lo:g}-{hi:g} ft AGL", explanation="never disconnected")
        ctx.band("alt_agl_ft", lo, hi, label=f"disconnect {lo:g}-{hi:g} ft AGL")  # the whole episode
    else:
        i = int(offs[0])
        # an earlier disconnect could hide in a gap between the capture and this one
        ctx.require_coverage(max(float(since), float(t[0])), float(t[i]), "which disconnect came first")
        h = float(agl[i])
        ctx.component(
            "disconnect_at_dh",
            lo <= h <= hi,
            measured=h,
            tolerance=f"{lo:g}-{hi:g} ft AGL",
            window=(float(t[i]), float(t[i])),
            explanation=f"disconnected at {h:.0f} ft AGL",
        )
        ctx.band("alt_agl_ft", lo, hi, float(t[i]), float(t[i]), label=f"disconnect {lo:g}-{hi:g} ft AGL")
    return ""
