"""Engine start from cold and dark (T01): checklist switch states, priming and mixture, and the
engine running at the target rpm, all judged on the final state."""

from __future__ import annotations

from typing import Annotated

import numpy as np
from pydantic import Field, model_validator

from simbridge.verifiers._final_state import final_mask, holds, is_state
from simbridge.params import FiniteParams, Fraction, NonNegativeFinite, PositiveFinite, require_below
from simbridge.verifier import VerifyContext, verifier


class EngineStartParams(FiniteParams):
    final_hold_s: PositiveFinite = 5.0
    magnetos_both: Annotated[int, Field(ge=0, le=4, description="canonical `magnetos` value of BOTH")] = 3
    fuel_selector_both: Annotated[int, Field(ge=0, le=3, description="canonical `fuel_selector` value of BOTH")] = 3
    mixture_min: Fraction = 0.9
    min_primer_strokes: NonNegativeFinite = 2.0
    rpm_min: PositiveFinite = 900.0
    rpm_max: PositiveFinite = 1100.0

    @model_validator(mode="after")
    def _rpm_band(self) -> "EngineStartParams":
        require_below("rpm_min", self.rpm_min, "rpm_max", self.rpm_max)
        return self


@verifier(
    "engine_start",
    params=EngineStartParams,
    components=("switch_states", "priming_mixture", "engine_at_rpm"),
    safety=("no_crash",),
    quality=("switch_states", "priming_mixture"),
)
def engine_start(ctx: VerifyContext) -> str:
    """Switches and engine are judged on every sample of the last `final_hold_s` seconds. Priming
    counts only if done before cranking: the primer count at the first sample with the key at
    START or the engine running (or at the end, if the engine was never cranked). The task is
    the start: the checklist items are worth all of it with the engine running at the end, half
    when it was cranked and did not run, nothing when it was never cranked; a crash gates."""
    p: EngineStartParams = ctx.p
    t = ctx.t
    ctx.no_events("no_crash", ("crash",), "no crash at any time of the episode", flag="crashed", latched=True)
    mags, fuel = ctx.sig("magnetos"), ctx.sig("fuel_selector")
    bat, beacon, avionics = ctx.sig("master_bat"), ctx.sig("beacon"), ctx.sig("avionics")
    mixture, primer = ctx.sig("mixture"), ctx.sig("primer_strokes")
    running, rpm = ctx.sig("engine_running"), ctx.sig("engine_rpm")
    end, win = final_mask(ctx, p.final_hold_s)

    checks = {
        "magnetos BOTH": holds(is_state(mags, p.magnetos_both), end),
        "fuel selector BOTH": holds(is_state(fuel, p.fuel_selector_both), end),
        "master on": holds(is_state(bat, 1), end),
        "beacon on": holds(is_state(beacon, 1), end),
        "avionics on": holds(is_state(avionics, 1), end),
    }
    wrong = [k for k, ok in checks.items() if not ok]
    ctx.component(
        "switch_states",
        not wrong,
        measured=f"{len(checks) - len(wrong)}/{len(checks)}",
        tolerance="magnetos BOTH, fuel BOTH, master, beacon, avionics on (final state)",
        window=win,
        explanation=("not held at the end: " + ", ".join(wrong)) if wrong else "all checklist switches set",
    )

    with np.errstate(invalid="ignore"):
        cranked = is_state(mags, 4) | (running > 0.5)
    i_crank = int(np.argmax(cranked)) if cranked.any() else t.size - 1
    runs_at_end = holds(running > 0.5, end)
    ctx.progress(
        1.0 if runs_at_end else 0.5 if cranked.any() else 0.0,
        "engine running at the end" if runs_at_end else "cranked, not running" if cranked.any() else "never cranked",
    )
    primed = primer[: i_crank + 1]
    strokes = float(np.nanmax(primed)) if np.isfinite(primed).any() else 0.0
    rich = holds(mixture >= p.mixture_min, end)
    ok = strokes >= p.min_primer_strokes and rich
    why = []
    if strokes < p.min_primer_strokes:
        why.append(f"{strokes:g} primer strokes before cranking at {t[i_crank]:.1f} s")
    if not rich:
        why.append(f"mixture below {p.mixture_min:g} at the end (last {float(mixture[-1]):.2f})")
    ctx.component(
        "priming_mixture",
        ok,
        measured=strokes,
        tolerance=f"≥{p.min_primer_strokes:g} strokes before cranking; mixture ≥{p.mixture_min:g}",
        window=(float(t[0]), float(t[i_crank])),
        explanation="; ".join(why) or "primed and mixture rich",
    )

    with np.errstate(invalid="ignore"):
        at_rpm = (running > 0.5) & (rpm >= p.rpm_min) & (rpm <= p.rpm_max)
    ok = holds(at_rpm, end)
    rpm_end = rpm[end]
    ctx.component(
        "engine_at_rpm",
        ok,
        measured=float(np.nanmean(rpm_end)) if np.isfinite(rpm_end).any() else None,
        tolerance=f"running, {p.rpm_min:g}-{p.rpm_max:g} rpm for the last {p.final_hold_s:g} s",
        window=win,
        explanation=f"rpm {np.nanmin(rpm_end):.0f}-{np.nanmax(rpm_end):.0f} in the final window"
        if np.isfinite(rpm_end).any()
        else "no rpm in the final window",
    )
    return ""
