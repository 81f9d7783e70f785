"""Orbit insertion (T19, Kerbal Space Program): judged on the vessel's final orbit in the save."""

from __future__ import annotations

import math
from typing import Annotated

import numpy as np
from pydantic import Field, model_validator

from simbridge import Unscorable
from simbridge import primitives as P
from simbridge.params import FiniteParams, PositiveFinite, require_below
from simbridge.verifier import VerifyContext, verifier


class OrbitParams(FiniteParams):
    body_ref: Annotated[int, Field(ge=0, description="KSP body index (1 = Kerbin)")] = 1
    space_alt_m: PositiveFinite = 70_000.0
    stable_pe_alt_m: PositiveFinite = 70_000.0
    band_lo_m: PositiveFinite = 75_000.0
    band_hi_m: PositiveFinite = 85_000.0
    #: a task set in a solar system that is not stock names its body's radius and GM; without
    #: them a save from such a system (snapshot ksp_system.stock false) is unscored
    body_radius_m: PositiveFinite | None = None
    body_gm_m3s2: PositiveFinite | None = None

    @model_validator(mode="after")
    def _band(self) -> "OrbitParams":
        require_below("band_lo_m", self.band_lo_m, "band_hi_m", self.band_hi_m)
        if (self.body_radius_m is None) != (self.body_gm_m3s2 is None):
            raise ValueError("body_radius_m and body_gm_m3s2 go together")
        return self


@verifier(
    "ksp_orbit",
    params=OrbitParams,
    components=("reach_space", "stable_orbit", "circularity"),
    quality=("stable_orbit",),
)
def ksp_orbit(ctx: VerifyContext) -> str:
    """The vessel (snapshot end.ksp_vessel, written by the save importer) must be intact: present
    in the final save and not debris. Reach space = highest recorded altitude ≥ 70 km (or already
    in orbit). Stable orbit = closed orbit of Kerbin with PeA > 70 km. Circularity = share of one
    orbital period spent between 75 and 85 km (1 exactly when PeA and ApA are both in the band),
    credited only for a stable orbit. Altitudes are above the body the orbit's REF names, with
    that stock body's radius and GM (Mun, Minmus, the Sun, ...); a save from a solar system that
    is not stock (Kopernicus, RSS: snapshot ksp_system) is unscored, unless the task's params
    give the body's radius and GM. Reaching any stable orbit is not part of reaching the asked
    one: the stable-orbit item is worth the share of the orbit in the asked band (the task's
    progress), so a 100 x 500 km orbit earns only the climb to space."""
    p: OrbitParams = ctx.p
    if "end" not in ctx.bundle.snapshots or "ksp_vessel" not in (ctx.bundle.snapshots.get("end") or {}):
        ctx.snapshot("end", "ksp_vessel")  # raises Unscorable naming the missing snapshot
    v = ctx.bundle.snapshot("end", "ksp_vessel")
    names = ("reach_space", "stable_orbit", "circularity")
    if v is None:
        for n in names:
            ctx.component(n, 0.0, explanation="vessel not intact: absent from the final save (destroyed or recovered)")
        ctx.progress(0.0, "vessel not intact")
        return "vessel not intact"
    if not isinstance(v, dict):
        raise Unscorable("snapshot end.ksp_vessel is not an object")
    system = (ctx.bundle.snapshots.get("end") or {}).get("ksp_system") or {}
    custom = p.body_radius_m is not None and p.body_gm_m3s2 is not None
    if isinstance(system, dict) and system.get("stock") is False and not custom:
        raise Unscorable(
            f"not KSP's stock solar system ({system.get('why') or 'the save says so'}): the body radii "
            "and GM the task is judged with are unknown"
        )
    try:
        alts = [float(v.get("alt_m", math.nan))]
    except (TypeError, ValueError):
        alts = [math.nan]
    sig = ctx.opt("alt_m")
    if sig is not None:
        alts.append(float(np.nanmax(sig)))
    top = max((a for a in alts if math.isfinite(a)), default=math.nan)
    in_orbit = v.get("situation") in ("ORBITING", "ESCAPING")
    ctx.component(
        "reach_space",
        (math.isfinite(top) and top >= p.space_alt_m) or in_orbit,
        measured=top if math.isfinite(top) else None,
        tolerance=f"≥ {p.space_alt_m / 1000:g} km",
        explanation=f"situation {v.get('situation')}",
    )
    if v.get("no_orbit"):
        # the save keeps no orbit for the vessel (KSP writes SMA = NaN for a vessel on the
        # ground or in the water): the flight's own outcome, scored, not a harness fault
        why = str(v["no_orbit"])
        ctx.component("stable_orbit", False, explanation=why)
        ctx.component("circularity", 0.0, measured=0.0, explanation=why)
        ctx.progress(0.0, why)
        return why
    try:
        sma, ecc, ref = float(v["sma_m"]), float(v["ecc"]), int(v["ref"])
    except (KeyError, TypeError, ValueError, OverflowError):
        raise Unscorable("snapshot end.ksp_vessel has no usable orbit (sma_m, ecc, ref)") from None
    from simbridge.adapters.ksp.orbit import Orbit  # the stock bodies' constants: loaded when judged

    if custom and ref == p.body_ref:
        assert p.body_radius_m is not None and p.body_gm_m3s2 is not None
        orb: Orbit | None = Orbit(sma, ecc, ref=ref, radius_m=p.body_radius_m, gm_m3s2=p.body_gm_m3s2)
    else:
        orb = Orbit.around(ref, sma, ecc)
    if orb is None:
        raise Unscorable(f"orbit REF {ref} is not a body of KSP's stock solar system: its radius is unknown")
    around = orb.ref == p.body_ref
    stable = around and orb.closed and orb.pe_alt_m > p.stable_pe_alt_m
    ap = orb.ap_alt_m
    desc = (
        f"PeA {orb.pe_alt_m / 1000:.1f} km, ApA {ap / 1000:.1f} km"
        if math.isfinite(ap)
        else f"PeA {orb.pe_alt_m / 1000:.1f} km, escape"
    )
    ctx.component(
        "stable_orbit",
        stable,
        measured=orb.pe_alt_m,
        tolerance=f"PeA > {p.stable_pe_alt_m / 1000:g} km around body {p.body_ref}",
        explanation=desc if around else f"orbiting {orb.body} (body {orb.ref}), not body {p.body_ref}: {desc}",
    )
    share = orb.time_fraction_between(p.band_lo_m, p.band_hi_m) if stable else 0.0
    ctx.progress(share, f"{share:.0%} of the orbit in the asked {p.band_lo_m / 1000:g}-{p.band_hi_m / 1000:g} km band")
    ctx.component(
        "circularity",
        P.linear_credit(share, 0.0, 1.0),
        measured=share,
        tolerance=f"share of the orbit at {p.band_lo_m / 1000:g}-{p.band_hi_m / 1000:g} km",
        explanation=desc if stable else "no stable orbit",
    )
    return ""
