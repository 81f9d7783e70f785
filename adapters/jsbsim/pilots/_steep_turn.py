"""T09: a 360° steep turn to the left at 45° bank, hand-flown with the mouse yoke.

Level flight first (the entry altitude, airspeed and heading are what the pilot reads then),
roll into 45° left bank with back pressure and a little power to hold altitude and airspeed,
count the heading change on the heading indicator, start the roll-out half the bank angle before the
entry heading, and hold wings level at the entry altitude after."""

from __future__ import annotations

from typing import TYPE_CHECKING

from simbridge.agents import Agent, AgentResult
from simbridge.adapters.jsbsim.pilots._cockpit import Cockpit
from simbridge.adapters.jsbsim.pilots._control import AttitudeFlyer, State, angle_diff

if TYPE_CHECKING:
    from simbridge.agent import AgentPortClient
    from simbridge import TaskSpec

BANK_DEG = -45.0  # left
ROLLOUT_LEAD_DEG = 14.0
SETTLE_S = 3.0
LEVEL_AFTER_S = 6.0
LOOP_DT = 0.05


class SteepTurnPilot(Agent):
    name = "reference"

    def __init__(self, bank_deg: float = BANK_DEG) -> None:
        self.bank_deg = bank_deg

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        cp, st = Cockpit(port), State()
        while not st.update(port.elapsed(), cp.look(), cp.img):
            port.wait(0.1)
        cp.yoke(True)
        fly = AttitudeFlyer(cp, st)
        alt0, ias0 = st.alt, st.ias
        phase, t_phase = "settle", st.t
        hdg0 = hdg_prev = st.hdg
        turned = 0.0
        try:
            while st.t < deadline_s - 1:
                if not st.update(port.elapsed(), cp.look(), cp.img):
                    port.wait(LOOP_DT)
                    continue
                dt = max(1e-3, st.t - t_prev) if (t_prev := getattr(self, "_t_prev", None)) is not None else LOOP_DT
                self._t_prev = st.t
                if phase == "settle":
                    fly.step(0.0, alt0, ias0, dt)
                    if st.t - t_phase >= SETTLE_S and abs(st.bank) < 2 and abs(st.vs) < 150:
                        phase, t_phase = "turn", st.t
                        hdg0 = hdg_prev = st.hdg  # entry heading: the last wings-level reading
                        alt0 = st.alt if abs(st.alt - alt0) < 30 else alt0
                elif phase == "turn":
                    d = angle_diff(st.hdg, hdg_prev)
                    turned += d
                    hdg_prev = st.hdg
                    fly.step(self.bank_deg, alt0, ias0 - 1.0, dt)
                    if abs(turned) >= 360.0 - ROLLOUT_LEAD_DEG:
                        phase, t_phase = "rollout", st.t
                elif phase == "rollout":
                    turned += angle_diff(st.hdg, hdg_prev)
                    hdg_prev = st.hdg
                    fly.step(0.0, alt0, ias0, dt)
                    if abs(st.bank) < 2.0 and st.t - t_phase > LEVEL_AFTER_S:
                        break
                port.wait(LOOP_DT)
        finally:
            p50, p95 = cp.latency_ms()
            st.dump_trace({"latency_ms": [p50, p95], "turned": turned, "hdg0": hdg0, "alt0": alt0})
        port.done(
            f"turned {abs(turned):.0f}° left, rolled out on {st.hdg:.0f}° (entry {hdg0:.0f}°); "
            f"screenshot loop p50 {p50:.0f} ms"
        )
        return "done"
