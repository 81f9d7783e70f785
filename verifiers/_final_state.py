"""Goal conditions judged on the final state: every sample of the last few seconds must hold.

One sample at the very end can be a transient (a switch mid-travel, an rpm spike); requiring a
short closing window to hold throughout is how an examiner judges "the engine is running at
1,000 RPM" or "the autopilot is in NAV and ALT" at the end of a task.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simbridge import Unscorable
from simbridge.verifier import VerifyContext


def final_mask(ctx: VerifyContext, hold_s: float) -> tuple[np.ndarray, tuple[float, float]]:
    """Samples of the closing window [t_end - hold_s, t_end]. Unscorable if the recording is
    shorter than the window or a telemetry gap lies inside it."""
    t = ctx.t
    t_end = float(t[-1])
    t0 = t_end - hold_s
    if float(t[0]) > t0 + 1e-9:
        raise Unscorable(
            f"recording is {t_end - float(t[0]):.1f} s long, shorter than the {hold_s:g} s final-state window"
        )
    ctx.require_coverage(t0, t_end, f"the final state (last {hold_s:g} s)")
    return t >= t0 - 1e-9, (t0, t_end)


def holds(cond: Any, mask: np.ndarray) -> bool:
    """True if `cond` (NaN = false) holds on every masked sample."""
    c = np.asarray(cond)
    if c.dtype != bool:
        with np.errstate(invalid="ignore"):
            c = np.nan_to_num(c.astype(float), nan=0.0) != 0
    return bool(mask.any() and c[mask].all())


def is_state(x: np.ndarray, value: float) -> np.ndarray:
    """A discrete signal (switch position, mode) equals `value`; NaN is no state."""
    with np.errstate(invalid="ignore"):
        return np.rint(x) == value
