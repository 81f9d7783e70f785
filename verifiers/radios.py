"""Radio and transponder setup (T16): the final COM/NAV/XPDR/altimeter state, all exact."""

from __future__ import annotations

from typing import Annotated

import numpy as np
from pydantic import AfterValidator, Field

from simbridge.canonical import value_name
from simbridge import Unscorable
from simbridge.params import ComMHz, FiniteParams, NavMHz, PositiveFinite
from simbridge.verifier import VerifyContext, verifier


def _octal_code(code: int) -> int:
    if any(d not in "01234567" for d in f"{code:04d}") or not 0 <= code <= 7777:
        raise ValueError(f"transponder code {code} is not 4 octal digits (0-7 each)")
    return code


class RadiosParams(FiniteParams):
    com1_mhz: ComMHz = 125.000
    com1_stby_mhz: ComMHz = 118.600
    nav1_mhz: NavMHz = 114.100
    xpdr_code: Annotated[int, AfterValidator(_octal_code)] = 4521
    xpdr_mode: Annotated[int, Field(ge=0, le=4, description="canonical `xpdr_mode`: 0 off .. 3 alt, 4 test")] = 3
    baro_inhg: Annotated[
        float, Field(ge=26.0, le=32.0, description="altimeter setting, the Kollsman window's range")
    ] = 29.92
    freq_tol_mhz: PositiveFinite = 0.001
    baro_tol_inhg: PositiveFinite = 0.005


def final_value(ctx: VerifyContext, name: str) -> tuple[float, float]:
    """(value, time) of the last valid sample of a signal. The final state must be fresh: a last
    valid sample older than the allowed gap before the end of the recording is undecidable."""
    x = ctx.sig(name)
    t = ctx.t
    ok = np.flatnonzero(np.isfinite(x))
    i = int(ok[-1])
    if t[-1] - t[i] > ctx.max_gap_s:
        raise Unscorable(
            f"signal {name!r} has no valid sample in the last {t[-1] - t[i]:.1f} s: final state undecidable"
        )
    return float(x[i]), float(t[i])


def first_value(ctx: VerifyContext, name: str) -> float:
    """The first valid sample of a signal (the state the agent found); NaN if none."""
    x = ctx.sig(name)
    ok = np.flatnonzero(np.isfinite(x))
    return float(x[ok[0]]) if ok.size else float("nan")


@verifier("radios", params=RadiosParams, components=("com1_active_standby", "nav1", "transponder", "altimeter"))
def radios(ctx: VerifyContext) -> str:
    """Judged on the final state (the last valid sample of each signal): what the pilot leaves set
    is what counts, not an intermediate value passed while turning a knob. An item that already
    showed its target when the episode began (a simulator whose default altimeter is 29.92) pays
    for inaction: it earns only when every other item was set too (the task done, with that
    setting rightly left alone), never for doing nothing."""
    p: RadiosParams = ctx.p
    com, t_end = final_value(ctx, "com1_mhz")
    stby, _ = final_value(ctx, "com1_stby_mhz")
    nav, _ = final_value(ctx, "nav1_mhz")
    code, _ = final_value(ctx, "xpdr_code")
    mode, _ = final_value(ctx, "xpdr_mode")
    baro, _ = final_value(ctx, "baro_inhg")
    end = (t_end, t_end)

    def judge(c: float, sb: float, n: float, cd: float, md: float, b: float) -> dict[str, bool]:
        return {
            "com1_active_standby": abs(c - p.com1_mhz) <= p.freq_tol_mhz
            and abs(sb - p.com1_stby_mhz) <= p.freq_tol_mhz,
            "nav1": abs(n - p.nav1_mhz) <= p.freq_tol_mhz,
            "transponder": bool(np.isfinite(cd) and np.isfinite(md))
            and int(round(cd)) == p.xpdr_code
            and int(round(md)) == p.xpdr_mode,
            "altimeter": abs(b - p.baro_inhg) <= p.baro_tol_inhg,
        }

    final = judge(com, stby, nav, code, mode, baro)
    names = ("com1_mhz", "com1_stby_mhz", "nav1_mhz", "xpdr_code", "xpdr_mode", "baro_inhg")
    start = judge(*(first_value(ctx, n) for n in names))
    earned: dict[str, bool] = {}
    notes: dict[str, str] = {}
    for item, ok in final.items():
        rest = all(v for k, v in final.items() if k != item)
        earned[item] = ok and (not start[item] or rest)
        if start[item]:
            notes[item] = "already set when the episode began: " + (
                "left right with the rest of the task done" if earned[item] else "earns only with every other item set"
            )

    ctx.component(
        "com1_active_standby",
        earned["com1_active_standby"],
        measured=f"{com:.3f}/{stby:.3f}",
        tolerance=f"{p.com1_mhz:.3f}/{p.com1_stby_mhz:.3f} MHz",
        window=end,
        explanation=notes.get("com1_active_standby", ""),
    )
    ctx.component(
        "nav1",
        earned["nav1"],
        measured=nav,
        tolerance=f"{p.nav1_mhz:.3f} MHz",
        window=end,
        explanation=notes.get("nav1", ""),
    )
    ctx.component(
        "transponder",
        earned["transponder"],
        measured=f"{int(round(code)):04d} {value_name('xpdr_mode', mode)}",
        tolerance=f"{p.xpdr_code:04d} {value_name('xpdr_mode', p.xpdr_mode)}",
        window=end,
        explanation=notes.get("transponder", ""),
    )
    ctx.component(
        "altimeter",
        earned["altimeter"],
        measured=baro,
        tolerance=f"{p.baro_inhg:.2f} inHg",
        window=end,
        explanation=notes.get("altimeter", ""),
    )
    return ""
