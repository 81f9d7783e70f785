"""737 FMC preflight (T20): route from the OFP, performance data, V-speeds, LNAV/VNAV armed."""

from __future__ import annotations

import re
from typing import Annotated, Any

import numpy as np
from pydantic import Field, model_validator

from simbridge import Unscorable
from simbridge.params import FiniteParams, Icao, PositiveFinite, require_below
from simbridge.verifier import VerifyContext, verifier

DISCO = "DISCO"
_DISCO_WORDS = {"DISCONTINUITY", "ROUTE DISCONTINUITY", "DISCO", "THEN", "-----", "□□□□□"}


class FmcSetupParams(FiniteParams):
    origin: Icao = "KSEA"
    destination: Icao = "KSFO"
    route_fixes: list[str] = Field(min_length=1)
    sid_end_fix: str
    star_start_fix: str
    airway_segments: list[tuple[str, str]] = []
    zfw_lb: PositiveFinite
    zfw_tol_lb: PositiveFinite = 200.0
    fuel_lb: PositiveFinite
    fuel_tol_lb: PositiveFinite = 500.0
    cost_index: Annotated[int, Field(ge=0, le=9999)]
    cruise_alt_ft: PositiveFinite = 35000.0
    vspeed_min_kt: PositiveFinite = 80.0
    vspeed_max_kt: PositiveFinite = 200.0

    @model_validator(mode="after")
    def _fixes_on_route(self) -> "FmcSetupParams":
        require_below("vspeed_min_kt", self.vspeed_min_kt, "vspeed_max_kt", self.vspeed_max_kt)
        for name in ("sid_end_fix", "star_start_fix"):
            if getattr(self, name) not in self.route_fixes:
                raise ValueError(f"{name} {getattr(self, name)!r} is not one of route_fixes")
        return self


def normalise_legs(legs: list[Any]) -> list[str]:
    """Leg idents as the LEGS page lists them, minus conditional legs ('(1000)', '(INTC)', 'VECTORS'),
    runway and airport entries; discontinuities become one DISCO token."""
    out: list[str] = []
    for leg in legs:
        ident = leg.get("ident", "") if isinstance(leg, dict) else leg
        s = str(ident or "").strip().upper()
        if s in _DISCO_WORDS or (isinstance(leg, dict) and leg.get("discontinuity")):
            if out and out[-1] != DISCO:
                out.append(DISCO)
            continue
        if not s or s.startswith("(") or s in ("VECTORS", "MANSEQ") or re.fullmatch(r"RW\d{2}[LRC]?", s):
            continue
        if out and out[-1] == s:
            continue
        out.append(s)
    return out


def route_problems(tokens: list[str], p: FmcSetupParams) -> list[str]:
    """Why the entered route differs from the OFP. The OFP fixes must appear in order, with no
    discontinuity between the first and the last; extra fixes are tolerated only where the nav
    database expands a procedure (before the SID's last fix, after the STAR's first fix) or an
    airway (between the airway's entry and exit fixes), since those depend on the AIRAC cycle."""
    want = [f.upper() for f in p.route_fixes]
    pos, i = [], 0
    for f in want:
        while i < len(tokens) and tokens[i] != f:
            i += 1
        if i == len(tokens):
            return [f"{f} missing or out of order"]
        pos.append(i)
        i += 1
    out = []
    if DISCO in tokens[pos[0] : pos[-1]]:
        out.append("route discontinuity inside the route")
    k_sid, k_star = want.index(p.sid_end_fix.upper()), want.index(p.star_start_fix.upper())
    airways = [(want.index(a.upper()), want.index(b.upper())) for a, b in p.airway_segments]
    for k in range(len(want) - 1):
        extra = [x for x in tokens[pos[k] + 1 : pos[k + 1]] if x != DISCO]
        if not extra:
            continue
        in_proc = k + 1 <= k_sid or k >= k_star
        in_airway = any(a <= k and k + 1 <= b for a, b in airways)
        if not (in_proc or in_airway):
            out.append(f"extra {' '.join(extra)} between {want[k]} and {want[k + 1]}")
    return out


def _num(d: dict[str, Any], key: str) -> float | None:
    v = d.get(key)
    if isinstance(v, str):
        m = re.fullmatch(r"\s*FL\s*(\d{2,3})\s*", v, re.I)
        v = float(m.group(1)) * 100 if m else (float(v) if re.fullmatch(r"\s*-?\d+(\.\d+)?\s*", v) else None)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


@verifier(
    "fmc_setup",
    params=FmcSetupParams,
    components=("route", "performance", "vspeeds", "lnav_vnav_armed"),
    safety=("not_airborne",),
)
def fmc_setup(ctx: VerifyContext) -> str:
    """Judged on the `end` snapshot of the FMS and the AFDS; 'do not take off' is watched on every
    sample of `on_ground`."""
    p: FmcSetupParams = ctx.p
    ctx.throughout("not_airborne", ctx.sig("on_ground") > 0.5, "on the ground throughout (do not take off)")
    fms = ctx.snapshot("end", "fms")
    if not isinstance(fms, dict) or not isinstance(fms.get("legs"), list):
        raise Unscorable("snapshot 'end.fms' lacks a 'legs' list")
    tokens = normalise_legs(fms["legs"])
    probs = route_problems(tokens, p)
    if str(fms.get("origin", "")).upper() != p.origin or str(fms.get("destination", "")).upper() != p.destination:
        probs.insert(0, f"{fms.get('origin')}→{fms.get('destination')}, not {p.origin}→{p.destination}")
    ctx.component(
        "route",
        not probs,
        measured="; ".join(probs) or f"{len(tokens)} legs as filed",
        tolerance=" ".join(p.route_fixes),
    )

    zfw, fuel, ci, alt = (_num(fms, k) for k in ("zfw_lb", "fuel_lb", "cost_index", "cruise_alt_ft"))
    weights_ok = (
        zfw is not None
        and abs(zfw - p.zfw_lb) <= p.zfw_tol_lb
        and fuel is not None
        and abs(fuel - p.fuel_lb) <= p.fuel_tol_lb
    )
    ok = (
        weights_ok
        and ci is not None
        and int(round(ci)) == p.cost_index
        and alt is not None
        and abs(alt - p.cruise_alt_ft) < 1
    )
    ctx.component(
        "performance",
        ok,
        measured=f"ZFW {zfw} fuel {fuel} CI {ci} CRZ {alt}",
        tolerance=f"ZFW {p.zfw_lb:g}±{p.zfw_tol_lb:g}, fuel {p.fuel_lb:g}±{p.fuel_tol_lb:g} lb, "
        f"CI {p.cost_index}, CRZ {p.cruise_alt_ft:g}",
    )

    v = [_num(fms, k) for k in ("v1_kt", "vr_kt", "v2_kt")]
    v1, vr, v2 = v
    ok = (
        v1 is not None
        and vr is not None
        and v2 is not None
        and all(p.vspeed_min_kt <= x <= p.vspeed_max_kt for x in (v1, vr, v2))
        and v1 <= vr <= v2
    )
    # "compute and set": the FMC computes V-speeds from the gross weight, so they count only with
    # the ZFW and fuel they are computed from entered (typed-in numbers without them do not)
    ctx.component(
        "vspeeds",
        ok and weights_ok,
        measured="/".join(str(x) for x in v),
        tolerance=f"V1 ≤ VR ≤ V2, each {p.vspeed_min_kt:g}-{p.vspeed_max_kt:g} kt (the FMC's values), "
        "computed with the ZFW and fuel entered",
        explanation="" if weights_ok or not ok else "set without the ZFW and fuel they are computed from",
    )

    afds = ctx.snapshot("end", "afds")
    if not isinstance(afds, dict) or "lnav" not in afds or "vnav" not in afds:
        raise Unscorable("snapshot 'end.afds' lacks lnav/vnav states")
    lnav, vnav = (np.nan_to_num(float(afds[k] or 0)) for k in ("lnav", "vnav"))
    ctx.component(
        "lnav_vnav_armed",
        lnav >= 1 and vnav >= 1,
        measured=f"LNAV {lnav:g} VNAV {vnav:g}",
        tolerance="both ≥ 1 (0 off, 1 armed, 2 engaged)",
    )
    return ""
