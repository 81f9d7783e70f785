"""How a record-only recording (`simbridge record`) ends when the simulator's stream stalls.

A record-only bundle has no agent: nothing the simulator does (or stops doing) can be anyone's
score. A stream that stops (no data for `stale_after_s`) or a simulator clock that does not
reach the requested length within the wall-time budget (paused, hung) is therefore a harness
fault: the bundle ends `harness_error` (unscored) with a one-line reason, never a scored
`timeout` or `sim_crashed`. Every recorder checks the same `StallGuard` once per loop.
"""

from __future__ import annotations

import time
from typing import Final

#: the episode status of a record-only recording whose stream stalled
STALL_STATUS: Final = "harness_error"


class StallGuard:
    """Watches one record-only loop: the last data's wall time and the simulator clock."""

    def __init__(
        self,
        seconds: float,
        *,
        stale_after_s: float = 5.0,
        wall_budget_s: float | None = None,
        source: str = "simulator",
    ) -> None:
        self.seconds = seconds
        self.stale_after_s = stale_after_s
        #: wall seconds the whole recording may take (default: twice the length plus 10 s)
        self.wall_budget_s = wall_budget_s if wall_budget_s is not None else 2 * seconds + 10
        self.source = source
        self._start = time.monotonic()

    def check(self, last_data_mono: float | None, t_sim: float) -> str | None:
        """None while the recording may go on, else why it stalled (the bundle's detail)."""
        now = time.monotonic()
        if last_data_mono is not None and now - last_data_mono >= self.stale_after_s:
            return f"record-only: no data from the {self.source} for {now - last_data_mono:.1f} s (stream stalled)"
        if now - self._start > self.wall_budget_s:
            return (
                f"record-only: simulator time reached {t_sim:.1f} s of {self.seconds:g} s in "
                f"{self.wall_budget_s:g} s of wall time (paused or stalled?)"
            )
        return None


__all__ = ["STALL_STATUS", "StallGuard"]
