"""T05: a left-hand traffic pattern from the runway at 1,000 ft above the field (takeoff,
crosswind, downwind, base, final) and a landing on the same runway, rolled to a stop.

The pilot flies by the panel and the window, with the pieces the other pilots fly by:
T02's `Departure` (takeoff roll, rotation, climb at 75 KIAS), `AttitudeFlyer` (bank, altitude,
airspeed) and the landing pilot's visual final (`_landing.LandingPilot`, started from the
base-to-final turn with the runway heading read lined up on the runway: `runway_heading`).

Where the aircraft is in the pattern is the pilot's own reckoning from the start: lined up on
the runway's landing threshold (the airport diagram's runway length), each reading's heading
(the heading indicator, relative to the runway heading read lined up) and true airspeed (the
airspeed indicator, +2 % per 1,000 ft) over the watch's seconds; the air is calm unless the
instruction tells a wind, which is added. The cockpit's window looks ahead only (80° wide), so
the runway abeam on the downwind or 45° behind the wing cannot be seen; the reckoning places
the turns where those sights would: crosswind beyond the departure end once 600 ft up, downwind
0.7 nm out, descent abeam the touchdown zone's far end (flaps 10, 70 KIAS, a 3.5° path along
the rest of the pattern), base 0.75 nm past the threshold, final 20° bank onto the centreline;
on final the runway is in the window again and the landing pilot's final corrects what the
reckoning missed.
"""

from __future__ import annotations

import json
import math
import os
from typing import TYPE_CHECKING

from simbridge.agents import Agent, AgentResult
from simbridge.adapters.jsbsim.pilots._cockpit import Cockpit
from simbridge.adapters.jsbsim.pilots._control import PID, AttitudeFlyer, State, angle_diff
from simbridge.adapters.jsbsim.pilots._instruments import lit
from simbridge.adapters.jsbsim.pilots._landing import FT, LandingPilot, chart_for, told_wind
from simbridge.adapters.jsbsim.pilots._takeoff import Departure, TakeoffHoldPilot

if TYPE_CHECKING:
    from simbridge.agent import AgentPortClient
    from simbridge import TaskSpec

NM = 1852.0
PATTERN_AGL_FT = 1000.0
CROSSWIND_AGL_FT = 600.0
CLIMB_KT, DOWNWIND_KT, DESCENT_KT = 75.0, 80.0, 70.0
DOWNWIND_OFFSET_M = 0.7 * NM
BASE_PAST_M = 0.75 * NM  # the base turn this far past the landing threshold (about 45° behind the wing)
PATH_DEG = 3.5
BANK_DEG = 20.0
LOOP_DT = 0.1


class _PatternFinal(LandingPilot):
    """The landing pilot's final from the base-to-final turn: the runway heading read lined up
    on the runway before the takeoff, the flaps already set on the downwind."""

    def __init__(self, runway: str, runway_heading: float, flaps: int) -> None:
        self.runway = runway
        self.runway_heading = runway_heading
        self._flaps = flaps

    def initial_flaps(self) -> int:
        return self._flaps


class PatternPilot(Agent):
    name = "reference"
    runway = "31"

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        cp, st = Cockpit(port), State()
        self.runway = task.initial_state.runway or self.runway  # a site variant flies elsewhere (T05@PHJR: 04R)
        rwy = task.geometry.runway(self.runway)
        chart = chart_for(task, self.runway, LandingPilot.aim_past_threshold_m)
        elev = chart.elevation_ft
        length_m = float(rwy.length_ft) * FT
        tdz_m = min(length_m / 3.0, 3000.0 * FT)  # abeam its far end the descent begins
        wind_dir, wind_kt = told_wind(str(port.task().get("instruction") or task.instruction))
        while not st.update(port.elapsed(), cp.look(), cp.img):
            port.wait(0.1)
        if lit(cp.frame, "park_brake", (200, 40, 40)) or TakeoffHoldPilot._brake_set(cp):
            cp.click("park_brake")
        cp.set_slider("mixture", 1.0)
        cp.set_slider("throttle", 1.0)
        cp.yoke(True)
        fly = AttitudeFlyer(cp, st)
        dep = Departure(cp, st, fly, climb_kt=CLIMB_KT)
        rwy_hdg = dep.rwy_hdg  # lined up: the heading indicator's runway heading
        # the wind, in the runway frame (metres per second along the runway and to its left)
        w_rel = math.radians(wind_dir - chart.heading_true_deg)
        w_along, w_left = -wind_kt * 0.5144 * math.cos(w_rel), wind_kt * 0.5144 * math.sin(w_rel)
        x = y = 0.0  # reckoned: metres along the runway from the landing threshold, left of it
        leg, level = "upwind", False
        flaps = 0
        t_prev = st.t
        log: list[tuple] = []
        try:
            while st.t < deadline_s - 5:
                port.wait(LOOP_DT)
                if not st.update(port.elapsed(), cp.look(), cp.img):
                    continue
                dt, t_prev = max(1e-3, st.t - t_prev), st.t
                tas = st.ias * 0.5144 * (1.0 + 0.02 * max(0.0, st.alt) / 1000.0)
                rel = math.radians(angle_diff(st.hdg, rwy_hdg))
                x += (tas * math.cos(rel) + (w_along if st.ias > 40 else 0.0)) * dt
                y += (-tas * math.sin(rel) + (w_left if st.ias > 40 else 0.0)) * dt
                r_turn = tas * tas / (9.81 * math.tan(math.radians(BANK_DEG)))
                agl = st.alt - elev
                # where the pattern goes next, by the reckoning
                if leg == "upwind" and agl >= CROSSWIND_AGL_FT and x > length_m:
                    leg = "crosswind"
                elif leg == "crosswind" and y >= DOWNWIND_OFFSET_M - r_turn:
                    leg = "downwind"
                elif leg == "downwind" and x < tdz_m - 30.0 and flaps == 0:
                    port.key("bracketright", hold_s=0.05)  # flaps 10: the descent begins
                    flaps = 10
                    fly.thr_base, fly.thr_pid = 0.4, PID(kp=0.025, ki=0.004, lo=-0.3, hi=0.45)
                elif leg == "downwind" and x < -BASE_PAST_M + r_turn * 0.3:
                    leg = "base"
                elif leg == "base" and y <= r_turn + 0.1 * tas * 2.0:
                    leg = "final"
                elif leg == "final" and abs(angle_diff(st.hdg, rwy_hdg)) < 6.0:
                    break
                hdg_t = {
                    "upwind": rwy_hdg,
                    "crosswind": rwy_hdg - 90.0,
                    "downwind": rwy_hdg + 180.0,
                    "base": rwy_hdg + 90.0,
                    "final": rwy_hdg,
                }[leg] % 360.0
                alt_t = elev + PATTERN_AGL_FT
                if flaps:  # the rest of the pattern to the aim point on a 3.5° path
                    rest = max(0.0, x + BASE_PAST_M) + max(0.0, y) + min(BASE_PAST_M, max(0.0, -x))
                    path_ft = (rest + chart.aim_past_near_m) * math.tan(math.radians(PATH_DEG)) / FT
                    alt_t = elev + min(PATTERN_AGL_FT, path_ft)
                ias_t = DESCENT_KT if flaps else DOWNWIND_KT
                if not level:
                    pull = dep.step(dt, hdg_t if dep.phase == "climb" else None)
                    if dep.phase == "climb" and st.alt >= alt_t - 120 - 0.1 * st.vs:
                        level = True
                        fly.vs_pid.i = pull  # bumpless hand-over to the altitude hold
                        fly.thr_pid = PID(kp=0.012, ki=0.0015, lo=-0.3, hi=0.3)
                        fly.thr_base, fly.last_thr_t = 0.62, st.t - 1.0
                else:
                    bank_t = max(-BANK_DEG, min(BANK_DEG, 1.5 * angle_diff(hdg_t, st.hdg)))
                    fly.step(bank_t, alt_t, ias_t, dt)
                log.append((round(st.t, 1), leg, round(x), round(y), round(st.alt), round(st.ias), round(st.hdg)))
        finally:
            st.dump_trace({"latency_ms": list(cp.latency_ms())})
            if os.environ.get("SIMBRIDGE_REFERENCE_TRACE"):
                with open(os.environ["SIMBRIDGE_REFERENCE_TRACE"] + ".pattern.json", "w") as fh:
                    json.dump(log, fh)
        if st.t >= deadline_s - 5:
            port.done(f"out of time on the {leg}")
            return "done"
        cp.yoke(False)  # the final's own hands take the yoke
        final = _PatternFinal(self.runway, rwy_hdg, flaps)
        return final.run(port, task, deadline_s)
