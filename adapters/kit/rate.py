"""Thinning a stream of timed frames to an asked rate, on average.

A simulator delivers frames at its own rate (SimConnect every sim frame, 60 Hz or whatever the
frame rate is); a recording asked for `hz` keeps a frame when its time reaches the next due time
and then moves the due time on by exactly 1/hz. Keeping a frame "when at least 1/hz has passed
since the last kept one" instead rounds every interval up to a whole number of source frames:
50 Hz asked from 60 Hz frames gives 30 Hz. The due-time schedule gives 50 Hz (five frames of
every six), and from any source at least as fast as `hz` the kept rate is `hz` on average, each
interval one source frame or less off 1/hz.

The due time is kept as anchor + n/hz (no sum of rounded steps drifts). When the stream falls
far behind its schedule (a pause, a stall, a source slower than `hz`) the schedule re-anchors
on the frame it keeps, so it never bursts to catch up; when time steps back (a restarted
simulator) it re-anchors too. Times are the stream's own clock: simulator seconds where the
stream carries them.
"""

from __future__ import annotations

import math


class RateThinner:
    """`keep(t)` says whether the frame at time `t` (seconds) is kept; `hz` None or ≤ 0 keeps all."""

    #: slack below the due time that still counts as reached (float noise of printed clocks)
    EPS_S = 1e-6

    def __init__(self, hz: float | None, *, max_lag_periods: float = 2.0) -> None:
        if hz is not None and not math.isfinite(hz):
            raise ValueError(f"rate {hz!r} Hz is not a finite number")
        self.hz = hz if hz and hz > 0 else None
        self.period_s = 1.0 / self.hz if self.hz else 0.0
        self.max_lag_periods = max_lag_periods
        self._anchor: float | None = None
        self._n = 0
        self._last_t = -math.inf
        self.kept = 0
        self.seen = 0
        self.reanchors = 0

    @property
    def due_s(self) -> float:
        """The next due time (−inf before the first frame)."""
        return -math.inf if self._anchor is None else self._anchor + self._n * self.period_s

    def _anchor_on(self, t: float) -> None:
        self._anchor, self._n = t, 1

    def keep(self, t: float) -> bool:
        self.seen += 1
        if self.hz is None:
            self.kept += 1
            return True
        if math.isnan(t):
            return False
        if self._anchor is None or t < self._last_t:
            if self._anchor is not None:
                self.reanchors += 1
            self._last_t = t
            self._anchor_on(t)
            self.kept += 1
            return True
        self._last_t = t
        due = self.due_s
        if t < due - self.EPS_S:
            return False
        if t - due > self.max_lag_periods * self.period_s:
            self.reanchors += 1  # far behind the schedule: start it again here, no catch-up burst
            self._anchor_on(t)
        else:
            self._n += 1
        self.kept += 1
        return True

    def reset(self) -> None:
        """Forget the schedule: the next frame is kept and anchors a new one."""
        self._anchor, self._n, self._last_t = None, 0, -math.inf


__all__ = ["RateThinner"]
