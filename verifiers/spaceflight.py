"""Orbit insertion (T19, Kerbal Space Program): judged on the vessel's final orbit in the save."""

from __future__ import annotations

import math
from typing import Annotated

import numpy as np
from pydantic import Field, model_validator

from simbridge._errors import Unscorable
from simbridge.adapters.ksp.orbit import Orbit
from simbridge.verifiers import primitives as P
from simbridge.verifiers._params import FiniteParams, PositiveFinite, require_below
from simbridge.verifiers._registry import VerifyContext, verifier


class OrbitParams(FiniteParams):
    body_ref: Annotated[int, Field(ge=0, description="KSP body index (1 = Kerbin)")] = 1
    space_alt_m: PositiveFinite = 70_000.0
    stable_pe_alt_m: PositiveFinite = 70_000.0
    band_lo_m: PositiveFinite = 75_000.0
    band_hi_m: PositiveFinite = 85_000.0

    @model_validator(mode="after")
    def _band(self) -> "OrbitParams":
        require_below("band_lo_m", self.band_lo_m, "band_hi_m", self.band_hi_m)
        return self


@verifier("ksp_orbit", params=OrbitParams, components=("reach_space", "stable_orbit", "circularity"))
def ksp_orbit(ctx: VerifyContext) -> str:
    """The vessel (snapshot end.ksp_vessel, written by the save importer) must be intact: present
    in the final save and not debris. Reach space = highest recorded altitude ≥ 70 km (or already
    in orbit). Stable orbit = closed orbit of Kerbin with PeA > 70 km. Circularity = share of one
    orbital period spent between 75 and 85 km (1 exactly when PeA and ApA are both in the band),
    credited only for a stable orbit."""
    p: OrbitParams = ctx.p
    if "end" not in ctx.bundle.snapshots or "ksp_vessel" not in (ctx.bundle.snapshots.get("end") or {}):
        ctx.snapshot("end", "ksp_vessel")  # raises Unscorable naming the missing snapshot
    v = ctx.bundle.snapshot("end", "ksp_vessel")
    names = ("reach_space", "stable_orbit", "circularity")
    if v is None:
        for n in names:
            ctx.component(n, 0.0, explanation="vessel not intact: absent from the final save (destroyed or recovered)")
        return "vessel not intact"
    if not isinstance(v, dict):
        raise Unscorable("snapshot end.ksp_vessel is not an object")
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
        return why
    try:
        orb = Orbit(sma_m=float(v["sma_m"]), ecc=float(v["ecc"]), ref=int(v["ref"]))
    except (KeyError, TypeError, ValueError, OverflowError):
        raise Unscorable("snapshot end.ksp_vessel has no usable orbit (sma_m, ecc, ref)") from None
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
        explanation=desc if around else f"orbiting body {orb.ref}, not {p.body_ref}",
    )
    share = orb.time_fraction_between(p.band_lo_m, p.band_hi_m) if stable else 0.0
    ctx.component(
        "circularity",
        P.linear_credit(share, 0.0, 1.0),
        measured=share,
        tolerance=f"share of the orbit at {p.band_lo_m / 1000:g}-{p.band_hi_m / 1000:g} km",
        explanation=desc if stable else "no stable orbit",
    )
    return ""
