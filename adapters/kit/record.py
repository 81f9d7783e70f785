"""The record-only recording (`simbridge record`): one loop for every simulator, and how it ends.

A record-only bundle has no agent: nothing the simulator does (or stops doing) can be anyone's
score. A stream that stops (no data for `stale_after_s`) or a simulator clock that does not
reach the requested length within the wall-time budget (paused, hung) is therefore a harness
fault: the bundle ends `harness_error` (unscored) with a one-line reason, never a scored
`timeout` or `sim_crashed`.

Every recorder has the same shape, written once here: open the bundle (connect, subscribe,
`BundleWriter`), call the simulator's read step once per period under a `StallGuard` until it
has the requested length, let the simulator add what it knows at the end, `writer.finish`. A
`HarnessError` on the way finishes an opened bundle `harness_error` and propagates (`simbridge
record` reports it, exit 5). The simulator supplies only `open_writer`, `step` and `wrap_up`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from simbridge import BundleWriter, EpisodeInfo, EpisodeStatus, HarnessError
from simbridge.adapters.kit.rate import RateThinner

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


@dataclass(frozen=True)
class Tick:
    """What one read step saw, after writing its samples and events to the bundle."""

    #: simulator seconds recorded so far (for the guard's wall-budget message)
    t_sim: float
    #: monotonic time of the simulator's last data; None: silence now is no stall (e.g. paused)
    last_data_mono: float | None
    #: the requested length is recorded
    done: bool = False
    #: the step ends the recording itself (connection lost for good, no data at all): status, detail
    end: tuple[EpisodeStatus, str] | None = None


#: what the simulator adds once the loop has ended; it may change the ending (its last read failed)
WrapUp = Callable[[BundleWriter, EpisodeStatus, str], tuple[EpisodeStatus, str]]


@dataclass(frozen=True)
class RecordLoop:
    """One record-only recording's loop settings: length, read period and the stall guard's."""

    seconds: float
    #: the stream named in a stall message ("RREF stream", "SimConnect stream", ...)
    source: str
    #: wall seconds from one read step's start to the next's, on average (a due-time schedule,
    #: the kit's `RateThinner`: the loop sleeps until the next step is due)
    period_s: float
    stale_after_s: float = 5.0
    #: None: the guard's default, twice the length plus 10 s
    wall_budget_s: float | None = None
    #: status_detail of a recording that reached its length
    done_detail: str = ""

    def run(
        self,
        open_writer: Callable[[], BundleWriter],
        step: Callable[[BundleWriter], Tick],
        wrap_up: WrapUp | None = None,
    ) -> Path:
        """Open the bundle, loop `step` until done, ended or stalled, wrap up and finish; the bundle's path."""
        writer: BundleWriter | None = None
        try:
            writer = open_writer()
            opened = writer
            status, detail = self.loop(lambda: step(opened))
            if wrap_up is not None:
                status, detail = wrap_up(writer, status, detail)
            return writer.finish(status, detail)
        except HarnessError:
            if writer is not None:
                writer.finish("harness_error", "recording failed")
            raise

    def loop(self, step: Callable[[], Tick]) -> tuple[EpisodeStatus, str]:
        """Call `step` once per period until it is done or ends, or the guard sees a stall: (status, detail)."""
        guard = StallGuard(
            self.seconds, stale_after_s=self.stale_after_s, wall_budget_s=self.wall_budget_s, source=self.source
        )
        # steps on the kit's due-time schedule: `1/period_s` on average (a sleep's overshoot
        # is not added to every period), re-anchored after a step that ran long
        pace = RateThinner(1.0 / self.period_s if self.period_s > 0 else None)
        while True:
            pace.keep(time.monotonic())
            tick = step()
            if tick.end is not None:
                return tick.end
            if tick.done:
                return "completed", self.done_detail
            stalled = guard.check(tick.last_data_mono, tick.t_sim)
            if stalled is not None:
                return STALL_STATUS, stalled
            while pace.hz is not None and (rest := pace.due_s - time.monotonic()) > 0:
                time.sleep(rest)


def record_episode(
    sim: str,
    adapter: str,
    *,
    task_id: str | None,
    sample_rate_hz: float | None = None,
    host: str | None = None,
    clock: str | None = None,
    sim_version: str | None = None,
    provider: str = "none",
    flags: Sequence[str] = (),
) -> EpisodeInfo:
    """episode.json of a record-only bundle: no agent, task `record` unless named, flag `record_only`."""
    return EpisodeInfo(
        task_id=task_id or "record",
        sim=sim,
        sim_version=sim_version,
        adapter=adapter,
        provider=provider,
        agent="none",
        sample_rate_hz=sample_rate_hz,
        flags=["record_only", *flags],
        host=host,
        clock=clock,
    )


__all__ = ["STALL_STATUS", "RecordLoop", "StallGuard", "Tick", "WrapUp", "record_episode"]
