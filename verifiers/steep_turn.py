"""Steep turn (ACS private pilot, area of operation V.A): a 360° turn at 45° bank."""

from __future__ import annotations

from typing import Annotated

import numpy as np
from pydantic import Field, model_validator

from simbridge import primitives as P
from simbridge.params import (
    AngleTolDeg,
    AttitudeDeg,
    FiniteParams,
    Fraction,
    PositiveFinite,
    Side,
    require_below,
)
from simbridge.verifier import VerifyContext, verifier


class SteepTurnParams(FiniteParams):
    direction: Side = "left"
    bank_deg: AttitudeDeg = 45.0
    bank_tol_deg: PositiveFinite = 5.0
    bank_fraction_min: Fraction = 0.8
    alt_tol_ft: PositiveFinite = 100.0
    ias_tol_kt: PositiveFinite = 10.0
    heading_change_deg: Annotated[float, Field(gt=0, le=720)] = 360.0
    rollout_tol_deg: AngleTolDeg = 10.0
    roll_in_bank_deg: AttitudeDeg = 30.0
    wings_level_deg: AttitudeDeg = 5.0
    #: a bank past the roll-in that turns less than this is not the maneuver: nothing is judged
    #: on it (a 3 s bank of 45° held level would otherwise earn the bank, altitude and airspeed)
    min_turn_deg: Annotated[float, Field(gt=0, le=720)] = 180.0
    #: the bank is judged over the turn from this many degrees of heading after the entry to this
    #: many before the exit (the roll-in and roll-out leads), and wherever the bank is in the band:
    #: the turn's geometry, not the agent's own bank breaks, bounds the judged window
    roll_lead_deg: Annotated[float, Field(ge=0, le=90)] = 45.0

    @model_validator(mode="after")
    def _bands(self) -> "SteepTurnParams":
        # wings level must be below the roll-in bank, or the turn has no entry and no exit
        require_below("wings_level_deg", self.wings_level_deg, "roll_in_bank_deg", self.roll_in_bank_deg)
        require_below("bank_tol_deg", self.bank_tol_deg, "bank_deg", self.bank_deg)
        return self


@verifier(
    "steep_turn",
    params=SteepTurnParams,
    components=("bank_maintained", "altitude_held", "airspeed_held", "rollout_heading"),
    safety=("autopilot_off", "no_crash"),
    bands=("bank_deg", "alt_msl_ft", "ias_kt"),
    quality=("bank_maintained", "altitude_held", "airspeed_held"),
)
def steep_turn(ctx: VerifyContext) -> str:
    """The turn is found by the longest run with bank past `roll_in_bank_deg` in the commanded
    direction; the maneuver runs from the last wings-level sample before it to the first after
    it, and is judged only if it turned at least `min_turn_deg` (a brief bank is not a steep
    turn). The bank is judged over the whole maneuver but its roll-in and roll-out leads
    (`roll_lead_deg` of heading), so a shallow stretch inside the turn is judged wherever the
    agent puts it. Entry altitude, airspeed and heading are read at the start of the maneuver
    (ACS: 'maintain the entry altitude ±100 ft, airspeed ±10 kt, roll out on the entry heading
    ±10°'). Bank, altitude and airspeed are worth the fraction of the 360° turned (progress);
    a crash anywhere in the episode gates the score."""
    p: SteepTurnParams = ctx.p
    t = ctx.t
    sign = -1.0 if p.direction == "left" else 1.0
    bank = ctx.sig("bank_deg") * sign  # positive = banked in the commanded direction
    alt, ias, hdg = ctx.sig("alt_msl_ft"), ctx.sig("ias_kt"), ctx.sig("heading_mag_deg")
    ctx.throughout("autopilot_off", ~(ctx.sig("autopilot_on") > 0.5), "autopilot off throughout (hand-flown)")
    ctx.no_events("no_crash", ("crash",), "no crash at any time of the episode", flag="crashed", latched=True)

    with np.errstate(invalid="ignore"):
        turn = P.longest_segment(t, bank >= p.roll_in_bank_deg, ctx.max_gap_s)
    names = ("bank_maintained", "altitude_held", "airspeed_held", "rollout_heading")
    if turn is None:
        for n in names:
            ctx.component(n, 0.0, explanation=f"no {p.direction} turn past {p.roll_in_bank_deg:g}° bank found")
        ctx.progress(0.0, "no steep turn")
        return f"no steep turn to the {p.direction}"

    with np.errstate(invalid="ignore"):
        level = np.abs(bank) < p.wings_level_deg
    before = np.flatnonzero(level[: turn.i0])
    after = np.flatnonzero(level[turn.i1 + 1 :])
    i_entry = int(before[-1]) if before.size else 0
    i_exit = turn.i1 + 1 + int(after[0]) if after.size else t.size - 1
    t_entry, t_exit = float(t[i_entry]), float(t[i_exit])
    ctx.require_coverage(t_entry, t_exit, "the steep turn")
    man = slice(i_entry, i_exit + 1)
    change = P.heading_change(hdg[man]) * sign
    if not change >= p.min_turn_deg:  # NaN too: a heading that was not read turned nothing
        why = (
            f"the longest {p.direction} bank past {p.roll_in_bank_deg:g}° turned {change:.0f}°, less than "
            f"{p.min_turn_deg:g}°: not a steep turn"
        )
        for n in names:
            shown = change if n == "rollout_heading" and np.isfinite(change) else None
            ctx.component(n, 0.0, measured=shown, window=(t_entry, t_exit), explanation=why)
        ctx.progress(0.0, why)
        return f"no steep turn to the {p.direction} (turned {change:.0f}°)"

    # a turn within the roll-out tolerance of the asked change is the whole turn
    ctx.progress(
        min(1.0, change / (p.heading_change_deg - p.rollout_tol_deg)),
        f"turned {change:.0f}° of the {p.heading_change_deg:g}° asked",
    )
    # the judged bank window: from the roll-in lead (or the bank reaching the band) to the
    # roll-out lead (or the bank last in the band), whichever is wider
    lo_band = p.bank_deg - p.bank_tol_deg
    turned = (P.unwrap_heading(hdg[man]) - P.unwrap_heading(hdg[man])[0]) * sign
    with np.errstate(invalid="ignore"):
        steep = bank[man] >= lo_band
        head = np.flatnonzero((turned >= p.roll_lead_deg) | steep)
        tail = np.flatnonzero((turned <= change - p.roll_lead_deg) | steep)
    judged = (float(t[i_entry + head[0]]), float(t[i_entry + tail[-1]])) if head.size and tail.size else turn.as_tuple()
    frac = P.fraction_in_band(t, bank, lo_band, p.bank_deg + p.bank_tol_deg, *judged, ctx.max_gap_s)
    ctx.component(
        "bank_maintained",
        frac >= p.bank_fraction_min,
        measured=frac,
        tolerance=f"{lo_band:g}-{p.bank_deg + p.bank_tol_deg:g}° for ≥{p.bank_fraction_min:.0%}",
        window=judged,
        explanation=f"{frac:.0%} of the turn (roll-in/out leads of {p.roll_lead_deg:g}° aside) in the bank band",
    )
    # signed: a left turn's bank is negative
    ctx.band(
        "bank_deg",
        sign * (p.bank_deg - p.bank_tol_deg),
        sign * (p.bank_deg + p.bank_tol_deg),
        *judged,
        label=f"bank {p.bank_deg:g}±{p.bank_tol_deg:g}° {p.direction}",
    )

    alt0, ias0, hdg0 = float(alt[i_entry]), float(ias[i_entry]), float(hdg[i_entry])
    alt_dev = float(np.nanmax(np.abs(alt[man] - alt0)))
    ctx.component(
        "altitude_held",
        alt_dev <= p.alt_tol_ft,
        measured=alt_dev,
        tolerance=f"±{p.alt_tol_ft:g} ft of entry {alt0:.0f} ft",
        window=(t_entry, t_exit),
    )
    if np.isfinite(alt0):
        ctx.band(
            "alt_msl_ft",
            alt0 - p.alt_tol_ft,
            alt0 + p.alt_tol_ft,
            t_entry,
            t_exit,
            label=f"entry {alt0:.0f} ±{p.alt_tol_ft:g} ft",
        )
    ias_dev = float(np.nanmax(np.abs(ias[man] - ias0)))
    ctx.component(
        "airspeed_held",
        ias_dev <= p.ias_tol_kt,
        measured=ias_dev,
        tolerance=f"±{p.ias_tol_kt:g} kt of entry {ias0:.0f} kt",
        window=(t_entry, t_exit),
    )
    if np.isfinite(ias0):
        ctx.band(
            "ias_kt",
            ias0 - p.ias_tol_kt,
            ias0 + p.ias_tol_kt,
            t_entry,
            t_exit,
            label=f"entry {ias0:.0f} ±{p.ias_tol_kt:g} kt",
        )

    rollout_err = float(abs(P.angle_diff(hdg[i_exit], hdg0)))
    ok = abs(change - p.heading_change_deg) <= p.rollout_tol_deg and rollout_err <= p.rollout_tol_deg
    ctx.component(
        "rollout_heading",
        ok,
        measured=change,
        tolerance=f"{p.heading_change_deg:g}±{p.rollout_tol_deg:g}° turned, rollout ±{p.rollout_tol_deg:g}°",
        window=(t_entry, t_exit),
        explanation=f"turned {change:.0f}° {p.direction}, rolled out {rollout_err:.0f}° off entry heading {hdg0:.0f}°",
    )
    return ""
