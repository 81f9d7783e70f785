"""RREF packets -> simulator-time frames, tolerant of loss, duplication and reordering.

Task clock: `sim/time/total_running_time_sec` rides along in every subscription. X-Plane sends
all datarefs subscribed at one rate in the same datagram, so every packet carries the simulator
time it was sampled at. Frames are released in clock order after a small reorder window; a
packet older than the last released frame (late or duplicate) is dropped; lost packets leave a
gap. Episode time `t_sim` advances by the clock's increments only while `sim/time/paused` is 0
in both neighbouring frames, and paused frames are not released, so pauses are excluded whether
or not the running-time dataref itself stops during a pause. A clock that jumps back by more
than `reset_threshold_s` (new flight, sim restart) is re-based instead of discarded.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from simbridge.adapters.xplane._mapping import CLOCK_DATAREF, PAUSED_DATAREF
from simbridge.adapters.xplane._udp import RrefPacket


@dataclass
class Frame:
    t_sim: float
    clock_s: float
    t_recv: float
    raw: dict[str, float] = field(default_factory=dict)


class FrameAssembler:
    def __init__(self, reorder_depth: int = 3, reset_threshold_s: float = 2.0) -> None:
        self.reorder_depth = reorder_depth
        self.reset_threshold_s = reset_threshold_s
        self._keys: list[float] = []
        self._pending: list[Frame] = []
        self._last_clock: float | None = None
        self._last_paused = False
        self.t_sim = 0.0
        self.dropped_late = 0
        self.merged = 0
        self.paused_frames = 0

    def push(self, pkt: RrefPacket) -> list[Frame]:
        clock = pkt.values.get(CLOCK_DATAREF)
        if clock is None:
            # a datagram split by the sender: merge it into the newest pending frame
            if self._pending:
                self._pending[-1].raw.update(pkt.values)
                self.merged += 1
            return []
        if self._last_clock is not None and clock <= self._last_clock:
            if self._last_clock - clock > self.reset_threshold_s:
                self._rebase(clock)
            else:
                self.dropped_late += 1
                return []
        i = bisect.bisect_left(self._keys, clock)
        if i < len(self._keys) and self._keys[i] == clock:
            self._pending[i].raw.update(pkt.values)
            self._pending[i].t_recv = min(self._pending[i].t_recv, pkt.t_recv)
            self.merged += 1
            return []
        self._keys.insert(i, clock)
        self._pending.insert(i, Frame(0.0, clock, pkt.t_recv, dict(pkt.values)))
        out = []
        while len(self._pending) > self.reorder_depth:
            f = self._release()
            if f is not None:
                out.append(f)
        return out

    def flush(self) -> list[Frame]:
        out = []
        while self._pending:
            f = self._release()
            if f is not None:
                out.append(f)
        return out

    def _rebase(self, clock: float) -> None:
        out = self.flush()  # anything pending belongs to the old clock
        del out
        self._last_clock = None

    def _release(self) -> Frame | None:
        self._keys.pop(0)
        f = self._pending.pop(0)
        paused = f.raw.get(PAUSED_DATAREF, 0.0) >= 0.5
        if self._last_clock is not None and not paused and not self._last_paused:
            self.t_sim += f.clock_s - self._last_clock
        self._last_clock = f.clock_s
        self._last_paused = paused
        if paused:
            self.paused_frames += 1
            return None
        f.t_sim = self.t_sim
        return f
