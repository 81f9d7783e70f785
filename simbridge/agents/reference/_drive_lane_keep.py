"""T18: accelerate to 90 km/h on the Town04 highway and keep the car centred in its lane for
two minutes, from the lane markings in the driver's view.

Each look: the speed from the HUD (template-matched digits), the lane from the markings (both
boundaries fitted as parallel quadratics on the ground through the published camera model:
the eye's offset from the lane centre, the lane's bearing, its curvature). Steering is by
heading: the car should point along the lane plus a correction towards the centre
(`K_OFFSET` rad per metre off) plus the turn the curve makes while a key press takes effect.
manual_control's smallest effective steer is one frame at 0.1 (the ramp's first frame rounds
to 0), which at 90 km/h turns the MKZ by about 1.5 degrees; so the driver taps A or D for one
such quantum (two for a larger error) whenever the aim bearing is more than half a quantum
off, and waits for a tap to show in the view before tapping again the same way. W is held
below 90 km/h and released above it."""

from __future__ import annotations

import json
import math
import os
from typing import TYPE_CHECKING

from simbridge.agents._base import Agent, AgentResult
from simbridge.agents.reference._drive_eyes import LaneFit, read_lane, read_speed_kmh
from simbridge.agents.reference._drive_hands import (
    FRAME_S,
    IDLE_WAIT_S,
    WHEEL_LOCK_RAD,
    WHEELBASE_M,
    Keys,
    LoopStats,
    Pedals,
    hold_frames_for,
    lockstep,
    tap_quanta,
)

if TYPE_CHECKING:
    from simbridge.agent import AgentPortClient
    from simbridge._task import TaskSpec

#: the verifier's window starts at 85 km/h and lasts 120 s; a few seconds more for the reading lag
WINDOW_S = 120.0
WINDOW_MARGIN_S = 4.0
WINDOW_START_KMH = 85.0
#: aim bearing towards the lane centre per metre off it (rad/m), and its limit
K_OFFSET = 0.035
MAX_CORRECTION_RAD = math.radians(3.0)
MAX_AIM_RAD = math.radians(4.0)
#: a lane found again after losing it must have the car near its centre
REACQUIRE_MAX_M = 1.2
#: how long after a tap's key came up its heading change has fully shown (sim seconds), and
#: the share of the change still to come when the key comes up (the MKZ's yaw lags the wheel)
TAP_EFFECT_S = 0.3
TAP_PENDING_AT_END = 0.8
#: the shortest gap between two taps (sim seconds): the window reads the keyboard once a frame
MIN_GAP_S = 0.05
#: the largest feed-forward debt carried (quanta)
FF_MAX_Q = 12.0
#: fits claiming a lane this far off the car's heading, or this tightly curved, are misreadings
MAX_LANE_BEARING_DEG = 12.0
MAX_CURVATURE_PER_M = 1.0 / 60.0
#: the longest tap (frames held): a tight curve needs the steer on half the time or more
MAX_HOLD_FRAMES = 7
#: no tap while the aim is within this many quanta
DEADBAND_Q = 0.7
LANE_WIDTH_M = 3.5


def quantum_rad(speed_ms: float) -> float:
    """Heading change of one frame at steer 0.1 at this speed (single-track, no slip)."""
    return speed_ms / WHEELBASE_M * math.tan(0.1 * WHEEL_LOCK_RAD) * FRAME_S


class LaneKeepDriver(Agent):
    name = "reference"

    def __init__(self, speed_kmh: float = 90.0) -> None:
        self.speed_kmh = speed_kmh
        self.trace: list[tuple[float | None, ...]] = []
        self._offset: float | None = None
        self._taps: list[tuple[float, float]] = []
        #: quanta owed to the curve (feed-forward)
        self._ff_q = 0.0
        self._t_key_up = -10.0
        #: sim seconds per look-and-act loop (running average)
        self._loop_s = 0.15
        self._lost_since: float | None = None

    def track(self, fit: LaneFit) -> float | None:
        """The eye's offset right of the lane being kept: a jump of about a lane width means the
        fit found the neighbouring lane (the car is over a marking), so it is shifted back."""
        if abs(fit.heading_deg) > MAX_LANE_BEARING_DEG or abs(2.0 * fit.c_per_m) > MAX_CURVATURE_PER_M:
            return None
        off = fit.offset_m
        if self._offset is not None:
            off = min((off + k * fit.width_m for k in (-1, 0, 1)), key=lambda o: abs(o - self._offset))  # type: ignore[operator]
            if abs(off - self._offset) > 1.0:
                return None
        if abs(off) > (2.5 if self._offset is not None else REACQUIRE_MAX_M):
            return None
        self._offset = off
        return off

    def aim_rad(self, fit: LaneFit, offset_m: float, speed_ms: float) -> float:
        """Heading error to correct, relative to where the car points now (+ right): the lane's
        bearing plus a correction towards its centre (the curve's turn is fed forward apart)."""
        correction = max(-MAX_CORRECTION_RAD, min(MAX_CORRECTION_RAD, -K_OFFSET * offset_m))
        # a lane this far off the heading is a misreading more often than a real error
        return max(-MAX_AIM_RAD, min(MAX_AIM_RAD, math.atan(fit.b) + correction))

    def pending_rad(self, t: float) -> float:
        """Heading change still to come from recent corrective taps: a tap's turn has fully
        shown in the view TAP_EFFECT_S after its key came up (the wheel's servo, then the yaw)."""
        out = 0.0
        for t_end, turn in self._taps:
            out += turn * TAP_PENDING_AT_END * max(0.0, min(1.0, 1.0 - (t - t_end) / TAP_EFFECT_S))
        return out

    def steer(self, keys: Keys, fit: LaneFit, aim: float, speed_ms: float, t: float, dt: float) -> None:
        """One decision: the curve's turn since the last look is owed as taps (feed-forward,
        accumulated), the heading error minus what recent taps will still turn is added, and
        the sum is paid out as one hold of the matching length."""
        port = keys.port
        q = quantum_rad(max(speed_ms, 3.0))
        self._taps = [tp for tp in self._taps if t - tp[0] < TAP_EFFECT_S]
        self._ff_q += 2.0 * fit.c_per_m * speed_ms * dt / q
        self._ff_q = max(-FF_MAX_Q, min(FF_MAX_Q, self._ff_q))
        fb_q = (aim - self.pending_rad(t)) / q
        total = self._ff_q + fb_q
        if abs(total) < DEADBAND_Q:
            return
        side = 1 if total > 0 else -1
        if t - self._t_key_up < MIN_GAP_S:
            return  # taps closer than a drawn frame merge into one long hold in the window
        hold = hold_frames_for(max(1, round(abs(total))), MAX_HOLD_FRAMES)
        given = side * tap_quanta(hold)
        # the feed-forward debt is paid first; the rest corrects the heading
        ff_paid = max(0.0, min(abs(self._ff_q), abs(given))) * (1 if self._ff_q * side > 0 else 0) * side
        self._ff_q -= ff_paid
        keys.tap("d" if side > 0 else "a", hold * FRAME_S)
        self._t_key_up = port.elapsed()
        self._taps.append((self._t_key_up, (given - ff_paid) * q))

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        keys = Keys(port)
        pedals, stats = Pedals(keys), LoopStats()
        speed, t_window = 0.0, None
        paused_between = lockstep(port)
        t_prev: float | None = None
        try:
            while True:
                t = port.elapsed()
                if t >= deadline_s - 0.5 or (t_window is not None and t - t_window >= WINDOW_S + WINDOW_MARGIN_S):
                    break
                sent = keys.sent
                stats.start()
                img = port.screenshot("png").to_array()
                v = read_speed_kmh(img)
                fit = read_lane(img, LANE_WIDTH_M)
                stats.stop()
                if v is not None:
                    speed = v
                if t_window is None and speed >= WINDOW_START_KMH:
                    t_window = t
                pedals.update(speed, self.speed_kmh, t)
                off = self.track(fit) if fit is not None else None
                if off is None:
                    self._lost_since = t if self._lost_since is None else self._lost_since
                    if t - self._lost_since > 0.6:
                        self._offset = None  # re-acquire the lane the car is in now
                else:
                    self._lost_since = None
                if t_prev is not None:
                    self._loop_s = 0.8 * self._loop_s + 0.2 * max(0.02, min(0.5, t - t_prev))
                t_prev = t
                aim = None
                if fit is not None and off is not None:
                    aim = self.aim_rad(fit, off, speed / 3.6)
                    self.steer(keys, fit, aim, speed / 3.6, t, self._loop_s)
                if paused_between and keys.sent == sent:
                    port.wait(IDLE_WAIT_S)
                if os.environ.get("SIMBRIDGE_REFERENCE_TRACE"):
                    self.trace.append(
                        (
                            round(t, 2),
                            speed,
                            None if off is None else round(off, 3),
                            None if aim is None else round(math.degrees(aim), 2),
                        )
                    )
        finally:
            keys.release_all()
            p50, p95 = stats.p50_p95_ms()
            path = os.environ.get("SIMBRIDGE_REFERENCE_TRACE")
            if path:
                with open(path, "w") as fh:
                    json.dump({"trace": self.trace, "latency_ms": [p50, p95]}, fh)
        port.done(f"held the lane at {speed:.0f} km/h; look p50 {p50:.0f} ms, p95 {p95:.0f} ms")
        return "done"
