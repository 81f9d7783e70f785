"""The driver's hands on the keyboard of the driving simulator (CARLA manual_control bindings,
published in its task brief and `adapters.drive.world._keys`): W throttle, S brake, A/D steer.

manual_control's steering is a ramp, not a position: while A or D is held the steer grows by
5e-4 per millisecond (0.025 per 50 ms frame), shown and applied rounded to 0.1, and drops to 0
the moment the key is released. A small average steer (a highway curve needs ~0.02) is
therefore a pulse train: a hold of n+1 frames gives n frames at 0.1 (the first frame's 0.025
rounds to 0). `Steering` keeps the integral of the wanted steer minus the steer its key holds
applied, and pays it out in such pulses (a sigma-delta modulator); a large wanted steer (a
city turn) is a held key, released and pressed again when the ramp has run past it.

The throttle ramps 0.1 per frame while W is held (0 on release), the brake 0.2 per frame while
S is held: speed is held by pressing and releasing W (and S) around the wanted speed.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from simbridge.agent import AgentPortClient

FRAME_S = 0.05
STEER_PER_S = 0.5  # 5e-4 per ms
STEER_STEP = 0.1
STEER_MAX = 0.7
#: steer-seconds one held frame at 0.1 applies
QUANTUM = STEER_STEP * FRAME_S
#: road-wheel angle at steer 1.0 (the simulator's published vehicle: the MKZ's 35 deg lock)
WHEEL_LOCK_RAD = math.radians(35.0)
WHEELBASE_M = 2.85


def tap_quanta(hold_frames: int) -> int:
    """Frames-at-0.1 equivalents a key held for `hold_frames` frames applies: the cache grows
    0.025 a frame (accumulated in floating point, as manual_control does) and is applied
    rounded to 0.1 (0, 0.1 x4, 0.1, 0.2 x4, ...)."""
    cache, total = 0.0, 0.0
    for _ in range(hold_frames):
        cache += STEER_PER_S * FRAME_S
        total += round(min(cache, STEER_MAX), 1)
    return round(total / STEER_STEP)


def hold_frames_for(quanta: int, max_frames: int) -> int:
    """The shortest hold whose taps apply at least `quanta` (at most `max_frames` frames)."""
    n = 2
    while n < max_frames and tap_quanta(n) < quanta:
        n += 1
    return n


def steer_for_curvature(kappa_per_m: float) -> float:
    """manual_control steer (-1..1, + right) for a path curvature (1/m, + right)."""
    return math.atan(WHEELBASE_M * kappa_per_m) / WHEEL_LOCK_RAD


class Keys:
    """Held-key bookkeeping: `hold(name, True/False)` sends key_down/key_up only on a change."""

    def __init__(self, port: "AgentPortClient") -> None:
        self.port = port
        self.down: dict[str, float] = {}
        #: input actions sent so far (in lockstep an idle loop must wait, or no time passes)
        self.sent = 0

    def hold(self, key: str, on: bool, t: float = 0.0) -> None:
        if on and key not in self.down:
            self.port.key_down(key)
            self.down[key] = t
            self.sent += 1
        elif not on and key in self.down:
            self.port.key_up(key)
            del self.down[key]
            self.sent += 1

    def tap(self, key: str, hold_s: float) -> None:
        self.port.key(key, hold_s=hold_s)
        self.sent += 1

    def release_all(self) -> None:
        for k in list(self.down):
            try:
                self.port.key_up(k)
            except Exception:
                pass
            self.down.pop(k, None)


class Steering:
    """Turns a wanted average steer into A/D key holds (see the module docstring)."""

    #: the largest integral owed before the oldest debt is forgotten (steer-seconds)
    ACC_MAX = 0.03
    #: below this wanted steer the key is pulsed; above, held
    HOLD_ABOVE = 0.12
    MAX_PULSE_FRAMES = 4

    def __init__(self, keys: Keys) -> None:
        self.keys = keys
        self.acc = 0.0
        self.t_last: float | None = None
        self.held: str | None = None
        self.t_press = 0.0

    def _applied(self, t: float) -> float:
        """Steer the held key applies at task time t (the ramp since the press, rounded)."""
        if self.held is None:
            return 0.0
        s = round(min(STEER_MAX, STEER_PER_S * max(0.0, t - self.t_press)), 1)
        return s if self.held == "d" else -s

    def update(self, want: float, t: float) -> None:
        """Advance to task time `t` with the wanted steer `want` (-0.7..0.7, + right)."""
        want = max(-STEER_MAX, min(STEER_MAX, want))
        if self.t_last is not None:
            dt = max(0.0, min(0.5, t - self.t_last))
            mid = self.t_last + dt / 2.0
            self.acc += (want - self._applied(mid)) * dt
            self.acc = max(-self.ACC_MAX, min(self.ACC_MAX, self.acc))
        self.t_last = t
        if abs(want) >= self.HOLD_ABOVE:
            side = "d" if want > 0 else "a"
            if self.held is not None and self.held != side:
                self._release()
            if self.held is None:
                self.keys.hold(side, True, t)
                self.held, self.t_press = side, t
            elif abs(self._applied(t)) > abs(want) + 0.05 and self.acc * (1 if side == "d" else -1) < 0:
                self._release()  # the ramp has run past the wanted steer: start it again
            return
        if self.held is not None:
            self._release()
        if abs(self.acc) >= QUANTUM:
            n = min(self.MAX_PULSE_FRAMES, int(abs(self.acc) / QUANTUM))
            side = "d" if self.acc > 0 else "a"
            self.keys.tap(side, (n + 1) * FRAME_S)
            self.acc -= math.copysign(n * QUANTUM, self.acc)

    def _release(self) -> None:
        if self.held is not None:
            self.keys.hold(self.held, False)
        self.held = None


class Pedals:
    """Speed by W/S presses: throttle below the wanted speed, brake well above it."""

    def __init__(self, keys: Keys) -> None:
        self.keys = keys

    def update(self, speed_kmh: float, want_kmh: float, t: float, brake_margin_kmh: float = 3.0) -> None:
        if want_kmh <= 0.0:
            self.keys.hold("w", False)
            self.keys.hold("s", True, t)
            return
        self.keys.hold("w", speed_kmh < want_kmh - 0.3, t)
        self.keys.hold("s", speed_kmh > want_kmh + brake_margin_kmh, t)


def lockstep(port: "AgentPortClient") -> bool:
    """Whether the simulator is paused while the agent decides (the task brief says)."""
    try:
        return bool(port.task().get("lockstep", False))
    except Exception:
        return False


#: simulator time an idle loop lets pass in lockstep (nothing else moves the clock there)
IDLE_WAIT_S = FRAME_S


class LoopStats:
    """Wall-clock latency of each look (screenshot + reading), for the run's report."""

    def __init__(self) -> None:
        self.lat: list[float] = []
        self._w0 = 0.0

    def start(self) -> None:
        self._w0 = time.monotonic()

    def stop(self) -> None:
        self.lat.append(time.monotonic() - self._w0)

    def p50_p95_ms(self) -> tuple[float, float]:
        if not self.lat:
            return 0.0, 0.0
        a = np.array(self.lat) * 1000.0
        return float(np.percentile(a, 50)), float(np.percentile(a, 95))


def held_level(frames_held: int) -> float:
    """The steer manual_control applies on the `frames_held`-th frame of a hold (1-based): the
    cache grows 0.025 a frame in floating point and is applied rounded to 0.1."""
    cache = 0.0
    for _ in range(max(0, frames_held)):
        cache += STEER_PER_S * FRAME_S
    return round(min(cache, STEER_MAX), 1) if frames_held > 0 else 0.0


class PulseSteering:
    """A wanted average steer as a non-blocking hold pattern of A or D, decided once a look (a
    first-order sigma-delta modulator on the steer-seconds owed).

    The steer applied since the last look is counted frame by frame from the task clock (a
    lockstep slice or a real-time look may run more than one frame), each frame's the ramp's
    level for how long the key has been held then. Each decision looks at what the next frame
    applies: held on, the ramp's next level; released, 0 (a fresh press also applies 0 on its
    first frame, so a press is made when two frames' worth of the wanted steer is owed). The
    hold goes on while it does not overshoot the owed integral by more than half a frame's
    level. Unlike `Steering` nothing blocks, so the driver looks at every frame while the key
    is held."""

    #: the largest integral owed (steer-seconds), so a long saturation is not paid back later
    ACC_MAX = 0.02
    #: a wanted steer smaller than this is none (the owed integral fades): on a straight the
    #: lane reading's noise would otherwise be paid out as taps (one frame each at best: a
    #: press and its release take a lockstep slice apiece, in real time a look or more)
    DEADBAND = 0.006

    def __init__(self, keys: Keys) -> None:
        self.keys = keys
        self.acc = 0.0
        self.t_last: float | None = None
        self.held: str | None = None
        self.t_press = 0.0

    def frames_held(self, t: float) -> int:
        """Frames the held key has been down for by task time `t` (0 when none is held)."""
        return 0 if self.held is None else max(0, int(round((t - self.t_press) / FRAME_S)))

    def applied(self, t: float) -> float:
        """Steer the key applies on the frame that starts at task time `t` (+ right)."""
        if self.held is None:
            return 0.0
        lvl = held_level(self.frames_held(t) + 1)
        return lvl if self.held == "d" else -lvl

    def applied_between(self, t0: float, t1: float) -> float:
        """Steer-seconds the held key applied on the frames from task time t0 to t1."""
        n = int(round((t1 - t0) / FRAME_S))
        return sum(self.applied(t0 + i * FRAME_S) for i in range(max(0, min(n, 40)))) * FRAME_S

    def update(self, want: float, t: float) -> bool:
        """Advance to task time `t` (the start of the next frame) with the wanted steer `want`
        (+ right); returns whether a key was sent (in lockstep: time has run)."""
        want = max(-STEER_MAX, min(STEER_MAX, want))
        if abs(want) < self.DEADBAND:
            want = 0.0
        if self.t_last is not None:
            dt = max(0.0, min(0.5, t - self.t_last))
            self.acc += want * dt - self.applied_between(self.t_last, self.t_last + dt)
            if want == 0.0:
                self.acc *= 0.7
            self.acc = max(-self.ACC_MAX, min(self.ACC_MAX, self.acc))
        self.t_last = t
        if self.held is not None:
            sign = 1.0 if self.held == "d" else -1.0
            nxt = abs(self.applied(t))
            after = sign * (self.acc + (want - sign * nxt) * FRAME_S)
            if after >= -0.5 * nxt * FRAME_S and sign * want > 0:
                return False
            self.keys.hold(self.held, False)
            self.held = None
            return True
        owed = self.acc + 2.0 * want * FRAME_S
        if abs(owed) >= 0.75 * STEER_STEP * FRAME_S and abs(want) > 1e-3:
            side = "d" if owed > 0 else "a"
            self.t_press = t
            self.keys.hold(side, True, t)
            self.held = side
            return True
        return False

    def release(self) -> None:
        if self.held is not None:
            self.keys.hold(self.held, False)
        self.held = None
