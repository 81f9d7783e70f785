"""T02: take off from KSEA 34R, climb at 78 kt, level at 3,000 ft and hold 340°, 3,000 ft and
90 kt by hand (mouse yoke for aileron and elevator, keys for rudder and throttle).

The takeoff roll keeps the runway heading read at the start with rudder taps; rotation at 55 kt
to 8° pitch; the climb holds airspeed with pitch; the level-off hands over to the vertical-speed
hold with throttle for airspeed. The pilot ends the episode after 75 s in tolerance by its own
readings."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from simbridge.agents import Agent, AgentResult
from simbridge.adapters.jsbsim.pilots._cockpit import Cockpit
from simbridge.adapters.jsbsim.pilots._control import PID, AttitudeFlyer, State, angle_diff
from simbridge.adapters.jsbsim.pilots._instruments import lit

if TYPE_CHECKING:
    from simbridge.agent import AgentPortClient
    from simbridge import TaskSpec

#: T02's catalog numbers (KSEA 34R); a site variant's come from its instruction (`told_targets`)
HDG, ALT, IAS = 340.0, 3000.0, 90.0
_TOLD = re.compile(
    r"hold heading (?P<hdg>\d{3})°.*?altitude (?P<alt>[\d,]+) ±\d+ ft and (?P<ias>\d+) ±\d+ KIAS", re.DOTALL
)


def told_targets(instruction: str) -> tuple[float, float, float]:
    """(heading °, altitude ft, airspeed KIAS) to hold, as the instruction the pilot is given says
    ("hold heading 045° ±10°, altitude 3,000 ±100 ft and 90 ±5 KIAS"); T02's own numbers when
    it does not say them in those words."""
    m = _TOLD.search(instruction)
    if m is None:
        return HDG, ALT, IAS
    return float(m["hdg"]), float(m["alt"].replace(",", "")), float(m["ias"])


ROTATE_KT, CLIMB_KT, ROTATE_PITCH = 55.0, 78.0, 8.0
HOLD_DONE_S = 75.0
CRUISE_THR = 0.68  # about 90 kt level at 3,000 ft; the airspeed PI trims around it
RUDDER_STEP = 0.05
LOOP_DT = 0.05


class Departure:
    """The takeoff roll, rotation and climb, one reading at a time: rudder taps keep the runway
    heading read at the start (yaw rate damping), wings level; rotation at `rotate_kt` to
    `rotate_pitch`; once climbing (40 ft up, 200 fpm) the airspeed by pitch and the heading by
    bank. Used by T02's pilot and by any pilot that departs (the forced-landing pilots)."""

    def __init__(
        self,
        cp: Cockpit,
        st: State,
        fly: AttitudeFlyer,
        climb_kt: float = CLIMB_KT,
        rotate_kt: float = ROTATE_KT,
        rotate_pitch: float = ROTATE_PITCH,
        rudder_ki: float = 0.0,
        rudder_max: float = 0.25,
    ) -> None:
        self.cp, self.st, self.fly = cp, st, fly
        self.climb_kt, self.rotate_kt, self.rotate_pitch = climb_kt, rotate_kt, rotate_pitch
        self.pitch_pid = PID(kp=0.035, ki=0.012, kd=0.02, lo=-0.4, hi=0.6)
        self.speed_pid = PID(kp=0.35, ki=0.04, lo=-6.0, hi=6.0)
        self.rwy_hdg, self.alt_ground = st.hdg, st.alt
        #: a steady wind across or behind weathervanes the aircraft on the roll: the rudder's
        #: integral of the heading error (per deg s; 0: T02's calm-air steering) holds it
        self.rudder_ki, self.rudder_max, self.rudder_i = rudder_ki, rudder_max, 0.0
        self.rudder = 0.0
        self.last_rudder_t = -1.0
        self.phase, self.t_phase = "roll", st.t

    def steer(self, dt: float) -> None:
        """On the wheels: rudder (and nosewheel) keep the runway heading, the yaw rate damps it."""
        st = self.st
        e = angle_diff(self.rwy_hdg, st.hdg)
        lim = self.rudder_max
        self.rudder_i = max(-lim, min(lim, self.rudder_i + self.rudder_ki * e * dt))
        want = max(-lim, min(lim, 0.02 * e + self.rudder_i - 0.04 * st.yaw_rate))
        steps = round((want - self.rudder) / RUDDER_STEP)
        if steps and st.t - self.last_rudder_t > 0.3:
            self.cp.port.key("Return" if steps > 0 else "Insert", repeat=min(abs(steps), 2), hold_s=0.03)
            self.rudder += RUDDER_STEP * (min(abs(steps), 2) if steps > 0 else -min(abs(steps), 2))
            self.last_rudder_t = st.t

    def step(self, dt: float, hdg_t: float | None = None) -> float:
        """One control step ("roll", "rotate", then "climb" towards `hdg_t`, the runway heading
        by default); returns the elevator pull commanded."""
        cp, st, fly = self.cp, self.st, self.fly
        if self.phase in ("roll", "rotate"):
            self.steer(dt)
            ail = fly.bank_pid.step(0.0 - st.bank, dt, rate=-st.roll_rate)
            if self.phase == "roll":
                cp.fly(ail, 0.0)
                if st.ias >= self.rotate_kt:
                    self.phase, self.t_phase = "rotate", st.t
                return 0.0
            target = min(self.rotate_pitch, self.rotate_pitch * (st.t - self.t_phase) / 2.0)
            pull = self.pitch_pid.step(target - st.pitch, dt, rate=-st.pitch_rate)
            cp.fly(ail, pull)
            if st.alt > self.alt_ground + 40 and st.vs > 200:
                self.phase, self.t_phase = "climb", st.t
            return pull
        if self.rudder and st.t - self.last_rudder_t > 0.15:  # rudder back to neutral once flying
            n = round(abs(self.rudder) / RUDDER_STEP)
            cp.port.key("Insert" if self.rudder > 0 else "Return", repeat=n, hold_s=0.03)
            self.rudder, self.last_rudder_t = 0.0, st.t
        target_hdg = self.rwy_hdg if hdg_t is None else hdg_t
        bank_t = max(-15.0, min(15.0, 1.2 * angle_diff(target_hdg, st.hdg)))
        pitch_t = max(0.0, min(12.0, 6.0 + self.speed_pid.step(st.ias - self.climb_kt, dt)))
        ail = fly.bank_pid.step(bank_t - st.bank, dt, rate=-st.roll_rate)
        pull = self.pitch_pid.step(pitch_t - st.pitch, dt, rate=-st.pitch_rate)
        cp.fly(ail, pull)
        return pull


class TakeoffHoldPilot(Agent):
    name = "reference"

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        cp, st = Cockpit(port), State()
        hdg_hold, alt_hold, ias_hold = told_targets(str(port.task().get("instruction") or task.instruction))
        while not st.update(port.elapsed(), cp.look(), cp.img):
            port.wait(0.1)
        img = cp.frame
        if lit(img, "park_brake", (200, 40, 40)) or self._brake_set(cp):
            cp.click("park_brake")
        cp.set_slider("mixture", 1.0)
        cp.set_slider("throttle", 1.0)
        cp.yoke(True)
        fly = AttitudeFlyer(cp, st)
        dep = Departure(cp, st, fly)
        phase = "departure"
        hold_since: float | None = None
        t_prev = st.t
        try:
            while st.t < deadline_s - 1:
                if not st.update(port.elapsed(), cp.look(), cp.img):
                    port.wait(LOOP_DT)
                    continue
                dt, t_prev = max(1e-3, st.t - t_prev), st.t
                if phase == "departure":
                    hdg_t = dep.rwy_hdg if st.alt < dep.alt_ground + 400 else hdg_hold
                    pull = dep.step(dt, hdg_t)
                    if dep.phase == "climb" and st.alt >= alt_hold - 120 - 0.1 * st.vs:
                        phase = "level"
                        fly.vs_pid.i = pull  # bumpless hand-over to the altitude hold
                        fly.thr_pid = PID(kp=0.012, ki=0.0015, lo=-0.3, hi=0.3)
                        fly.thr_base, fly.last_thr_t = CRUISE_THR, st.t - 1.0
                else:  # level: hold heading, altitude and airspeed
                    bank_t = max(-10.0, min(10.0, 1.0 * angle_diff(hdg_hold, st.hdg)))
                    fly.step(bank_t, alt_hold, ias_hold, dt)
                    ok = (
                        abs(angle_diff(st.hdg, hdg_hold)) <= 8
                        and abs(st.alt - alt_hold) <= 80
                        and abs(st.ias - ias_hold) <= 4
                    )
                    if not ok:
                        hold_since = None
                    elif hold_since is None:
                        hold_since = st.t
                    elif st.t - hold_since >= HOLD_DONE_S:
                        break
                port.wait(LOOP_DT)
        finally:
            p50, p95 = cp.latency_ms()
            st.dump_trace({"latency_ms": [p50, p95]})
        held = 0.0 if hold_since is None else st.t - hold_since
        port.done(
            f"held {hdg_hold:.0f}°/{alt_hold:.0f} ft/{ias_hold:.0f} kt for {held:.0f} s; screenshot loop p50 {p50:.0f} ms"
        )
        return "done"

    @staticmethod
    def _brake_set(cp: Cockpit) -> bool:
        """The parking brake knob shows red "SET" when set."""
        import numpy as np

        from simbridge.adapters.jsbsim.pilots._layout import L

        x, y, w, h = L.PARK_BRAKE
        region = cp.frame[y : y + h, x : x + w, ::-1].astype(np.int16)
        red = (region[:, :, 0] > 150) & (region[:, :, 1] < 90) & (region[:, :, 2] < 90)
        return bool(red.mean() > 0.2)
