"""The verifier `example_climb`: did the point mass reach the altitude, and hold it, below the ceiling?

Written against the verifier author's API alone (simbridge.verifier, simbridge.primitives,
simbridge.params): it measures, the scoring engine applies the safety gate and the weights.
"""

from __future__ import annotations

from pydantic import model_validator

from simbridge import primitives as P
from simbridge.params import FiniteParams, PositiveFinite, require_below
from simbridge.verifier import VerifyContext, verifier


class ClimbParams(FiniteParams):
    target_ft: PositiveFinite = 60.0
    band_ft: PositiveFinite = 10.0
    hold_s: PositiveFinite = 2.0
    ceiling_ft: PositiveFinite = 200.0

    @model_validator(mode="after")
    def _below_ceiling(self) -> "ClimbParams":
        require_below("target_ft + band_ft", self.target_ft + self.band_ft, "ceiling_ft", self.ceiling_ft)
        return self


@verifier(
    "example_climb",
    params=ClimbParams,
    components=("reached_target", "held_altitude"),
    safety=("below_ceiling",),
)
def climb(ctx: VerifyContext) -> str:
    """Reached = the altitude was ever within the band around the target; held = the longest
    continuous stretch within it (a telemetry gap breaks it), full credit at `hold_s`; safety:
    never above the ceiling."""
    p: ClimbParams = ctx.p
    t, alt = ctx.t, ctx.sig("alt_agl_ft")
    ctx.throughout("below_ceiling", alt <= p.ceiling_ft, f"altitude at or below {p.ceiling_ft:g} ft throughout")
    inside = P.in_band(alt, p.target_ft - p.band_ft, p.target_ft + p.band_ft)
    first = P.first_true(t, inside)
    ctx.component(
        "reached_target",
        first is not None,
        measured=f"{float(alt.max()):.1f} ft highest",
        tolerance=f"{p.target_ft:g} ± {p.band_ft:g} ft",
        window=(first, first) if first is not None else None,
    )
    w = P.longest_window(t, inside, ctx.max_gap_s)
    held = w.duration_s if w else 0.0
    ctx.component(
        "held_altitude",
        P.linear_credit(held, 0.0, p.hold_s),
        measured=held,
        tolerance=f"{p.target_ft:g} ± {p.band_ft:g} ft, full credit at {p.hold_s:g} s",
        window=w.as_tuple() if w else None,
    )
    return ""
