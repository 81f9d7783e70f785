"""A stabilised final approach and landing flown from the instruments and the window (T03, P17).

The pilot flies as one does on a visual final: the runway out of the window says where the
aircraft is (`_runway_view.see_runway`: how far right or left of the extended centreline, how
far to the runway's near end); the instruments say how it flies (`_instruments`, through the
`Cockpit` screenshot loop). Lateral: the heading to hold is the runway's (as the heading
indicator shows it, read lined up at the start and refined from the runway's own direction
once it spans the view) plus the wind correction the told wind gives, plus an intercept
towards a point on the centreline ahead (the farther out, the farther ahead), plus a slow
integral of the offset. Vertical: a 3° path to an aim point past the landing threshold
(the pavement's near end seen in the window, plus the charted displaced threshold and a
margin), the descent rate the path and groundspeed need corrected by the height error, flown
by pitch; airspeed by throttle. Ten feet above the flare height the throttle starts closing
(its key held to idle); in the flare the descent rate is brought to nearly zero as the wheels
near the runway (the sink commanded in proportion to the height left; for P17's clean wing
the nose is raised by the integral of the sink error, so a balloon lowers it again); the brakes come on below 45 KIAS,
or, in a tailwind (which also slows the approach to the low end of its speeds), from the touchdown with the yoke back. After the touchdown the nose comes down, rudder keeps the
runway heading, the brakes stop the aircraft, and the pilot calls done once stopped (after
the hold the task asks for).

Charted figures the pilot briefs before the approach (an airport diagram's, not the
simulator's): the field elevation and the displaced threshold of the landing runway
(`Chart`), read from the task's runway geometry and airport name.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from simbridge.agents import Agent, AgentResult
from simbridge.adapters.jsbsim.pilots._cockpit import Cockpit
from simbridge.adapters.jsbsim.pilots._control import PID, State, angle_diff
from simbridge.adapters.jsbsim.pilots._runway_view import EYE_ABOVE_FT, FieldPicture, see_runway

if TYPE_CHECKING:
    from simbridge.agent import AgentPortClient
    from simbridge import TaskSpec

FT = 0.3048
GLIDE_DEG = 3.0
#: the altimeter on the wheels reads about this far above the field's charted elevation
WHEELS_FT = 5.5
BRAKE_BELOW_KIAS = 45.0
RUDDER_STEP = 0.05
#: rudder (fraction of full) per degree of crab to take out: the c172x's full rudder holds
#: about 12° of sideslip at approach speed; the decrab begins this high (wheel height, ft)
DECRAB_PER_DEG = 0.065
DECRAB_FT = 9.0
#: aileron held against the roll the rudder gives, per unit of decrab rudder
DECRAB_AIL = 0.12
#: ...and yoke pulled back per unit of rudder held: with 30° of flap the sideslip pitches the
#: nose down (it fell 2.7° in the decrab of a 9 kt crosswind, the flare's pitch loop asking it up,
#: and P12 seed 3 touched down at 414 fpm and bounced)
DECRAB_PULL = 0.25
#: on the wheels: rudder held per degree of the crab the told wind gave (the weathervaning)
WEATHERVANE_PER_DEG = 0.015
#: ...and the slow integral of the heading error (rudder per degree-second) for what it misses. At
#: 0.03 the rudder held against a left crosswind (0.3 of full at 50 KIAS) kept the heading 7-10°
#: right of the runway's, where the heading term (0.04 per degree) balanced it
ROLL_RUDDER_I = 0.02
#: ...integrated in the flare only while the nose swings slower than this (deg/s)
DECRAB_I_YAW_MAX = 2.0
#: the flare's sink (fpm) per foot of height above the field (altimeter less the field)
FLARE_FPM_PER_FT = 22.0
#: ...and the nose raised this much per fpm of sink beyond that law, at most FLARE_EXCESS_MAX_DEG (the
#: sink-rate loop alone, tuned for the approach, let a 400 fpm sink reach the runway unflared)
FLARE_EXCESS_DEG_PER_FPM = 0.02
FLARE_EXCESS_MAX_DEG = 5.0
#: the flare's pitch never let down more than this under the highest it asked, nor above the cap
FLARE_GIVE_DEG = 1.5
FLARE_MAX_PITCH_DEG = 8.0
#: from the throttle's closing to the flare the nose is not lowered more than this under the
#: pitch held at the closing: the path's law alone let it down 2° as the power went, and a
#: no-flap P12 (seed 3) reached the flare sinking 390 fpm and bounced
CLOSING_GIVE_DEG = 0.5
#: the flare's bank loop: aileron per deg/s of roll rate (its damping), and its integral held
#: from the first touch (in a bounce on P12 seed 3 the undamped loop, its integral run to the
#: limit against the rudder's roll, rolled the aircraft to -17°)
FLARE_BANK_DAMP = 0.01
#: rollout: heading error (deg) beyond which the brake on the side to turn to is held
DIFF_BRAKE_DEG = 3.0
#: above this airspeed on the wheels the nosewheel over-steers: no single brake, and while braking
#: the rudder within ±BRAKED_RUDDER_LIM
GENTLE_ABOVE_KIAS = 30.0
BRAKED_RUDDER_LIM = 0.2
#: ...and no brake while the nose swings faster than this (deg/s): braked in a swing, it nosed over
BRAKE_YAW_RATE_MAX = 3.0
#: ...unless no brake is held (the nosewheel light): then rudder within this
ROLL_RUDDER_FAST_LIM = 0.6
#: ...and below GENTLE_ABOVE_KIAS, braked or not
ROLL_RUDDER_SLOW_LIM = 0.6
#: the roll-out's heading turned towards the centreline seen, at most this (deg)
ROLL_TRACK_MAX_DEG = 4.0
#: in a tailwind (the told wind's component along the runway, kt): the approach flown this much
#: slower per knot, at most TAILWIND_SLOW_MAX_KT (the slow end of the POH's range), and, beyond
#: BRAKE_TAILWIND_KT, both brakes held from the touchdown with the yoke back: the nose held up
#: at most BRAKE_PITCH_DEG (more lifts it off again), the pull at most BRAKE_PULL
TAILWIND_SLOW_PER_KT = 0.6
TAILWIND_SLOW_MAX_KT = 3.0
#: ...but not below this (1.3 times the clean stall speed, 48 KIAS)
TAILWIND_FLOOR_KIAS = 62.0
BRAKE_TAILWIND_KT = 2.0
BRAKE_PITCH_DEG = 2.0
BRAKE_PULL = 0.25
#: ...and below BRAKE_BELOW_KIAS whenever a brake is held, at most this (the elevator weaker)
BRAKE_PULL_SLOW = 0.6
#: the brakes let go while the nose is lower than this (deg), held again from 2° higher
NOSE_LOW_DEG = -6.0


#: T03: the aim point at least this fraction into the touchdown zone (KPAO 31: 30 m, the
#: class's own; PHJR 04R: 97 m)
ZONE_AIM = 0.12


@dataclass(frozen=True)
class Chart:
    """What the pilot knows of the landing runway from the airport diagram."""

    elevation_ft: float
    #: ground metres from the pavement's near end (what the window shows first) to the aim point
    aim_past_near_m: float
    #: heading the runway points to, true (for the wind correction)
    heading_true_deg: float
    #: the runway's width (m): its picture in the window checks the field elevation (`FieldPicture`)
    width_m: float = 0.0


#: displaced landing thresholds (m) from the airport diagrams (FAA chart supplement)
DISPLACED_M = {("KPAO", "31"): 64.92, ("KHAF", "30"): 232.87, ("PHJR", "04R"): 110.03}


def chart_for(task: "TaskSpec", rwy_id: str, aim_past_threshold_m: float) -> Chart:
    rwy = task.geometry.runway(rwy_id)
    apt = rwy.airport or (task.initial_state.airport if task.initial_state else "")
    disp = DISPLACED_M.get((str(apt), rwy_id), 0.0)
    return Chart(
        float(rwy.elevation_ft or 0.0),
        disp + aim_past_threshold_m,
        float(rwy.heading_true_deg or 0.0),
        float(rwy.width_ft or 0.0) * FT,
    )


def told_wind(text: str) -> tuple[float, float]:
    """(direction from, true deg; speed kt) of 'Wind D° at S kt' in the instruction, else calm."""
    m = re.search(r"Wind (\d+)° at (\d+) kt", text)
    return (float(m.group(1)), float(m.group(2))) if m else (0.0, 0.0)


class LandingPilot(Agent):
    """Final approach and landing; subclasses set the speeds, flaps and the runway."""

    name = "reference"
    runway = "31"
    #: target airspeed (KIAS) by flap setting reached
    approach_kias = {0: 75.0, 10: 72.0, 20: 68.0, 30: 65.0}
    #: flap detents to select (degrees) and the distance to the aim point (m) at which
    flap_schedule: tuple[tuple[float, int], ...] = ((1e9, 10), (4000.0, 20), (2500.0, 30))
    aim_past_threshold_m = 30.0
    #: wheel height (ft) the flare begins at; the flare by the sink rate (pitch from the VSI's
    #: error) or by raising the nose at a steady rate as well (a clean wing floats: P17)
    flare_ft = 8.5
    flare_by_pitch = False
    hold_after_stop_s = 3.0
    #: while true the approach leaves the throttle where it is (a subclass's procedure sets it)
    hold_throttle = False
    #: the runway's heading on the heading indicator when the final does not start lined up
    #: (a pilot that flew the pattern sets it, with `initial_flaps`, and calls `run` from its
    #: base-to-final turn); None: read lined up at the start
    runway_heading: float | None = None

    def during_approach(self, st: State, cp: Cockpit) -> None:
        """Called once every control cycle of the approach (each good reading of the panel,
        before the cycle's controls are worked), until the flare; by default nothing.

        A subclass may look at the panel here (`st`: the instruments read; `cp.frame`: the
        screenshot) and act as a pilot's hand would (clicks on switches, the mixture or throttle
        through `cp` or `self.port`), and may change the approach from then on:
        `self.approach_kias` (KIAS by flap detent), `self.flap_schedule`, `self.hold_throttle`.
        """

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        self.port, self.cp, self.st = port, Cockpit(port), State()
        # the task's own runway (a site variant lands elsewhere); the class's when it names none
        self.runway = task.initial_state.runway or self.runway
        chart = chart_for(task, self.runway, self.aim_past_threshold_m)
        field = FieldPicture(chart.elevation_ft, chart.width_m)  # PHJR: the chart's 12 ft is 8 ft low here
        wind_dir, wind_kt = told_wind(str(port.task().get("instruction") or task.instruction))
        st, cp = self.st, self.cp
        while not st.update(port.elapsed(), cp.look(), cp.img):
            port.wait(0.1)
        # lined up on final at the start: the heading indicator's runway heading
        rwy_hdg = st.hdg if self.runway_heading is None else self.runway_heading
        rel = math.radians(wind_dir - chart.heading_true_deg)
        cross, head = wind_kt * math.sin(rel), wind_kt * math.cos(rel)
        slower = min(TAILWIND_SLOW_MAX_KT, TAILWIND_SLOW_PER_KT * max(0.0, -head))
        brake_early = -head > BRAKE_TAILWIND_KT
        cp.yoke(True)
        pitch_pid = PID(kp=0.03, ki=0.01, kd=0.02, lo=-0.6, hi=0.8)
        vs_to_pitch = PID(kp=0.008, ki=0.003, lo=-10.0, hi=10.0)
        bank_pid = PID(kp=0.012, ki=0.002, kd=0.0, lo=-0.35, hi=0.35)
        flare_bank_pid = PID(kp=0.015, ki=0.015, kd=FLARE_BANK_DAMP, lo=-0.5, hi=0.5)
        thr_pid = PID(kp=0.02, ki=0.004, lo=-1.0, hi=0.45)  # down to idle (a tailwind's steeper descent)
        thr_base, last_thr_t = st.thr, st.t - 1.0
        flaps_set = self.initial_flaps()
        crab_i = 0.0
        phase = "approach"
        t_prev = st.t
        rudder, last_rudder_t = 0.0, -1.0
        stopped_since: float | None = None
        ias_hist: list[tuple[float, float]] = []
        vs_cmd = -300.0
        settled = 0
        closing, p_flare, flare_i, t_decrab = False, 0.0, 0.0, 0.0
        flare_hold: float | None = None
        closing_pitch: float | None = None
        touched = False
        ff = 0.0
        rud_i = 0.0
        brakes = (False, False)  # the left and right brake keys held
        debug = bool(os.environ.get("SIMBRIDGE_REFERENCE_TRACE"))
        msg = ""
        try:
            while st.t < deadline_s - 2.0:
                h_now = st.alt - field.elevation_ft
                dt_loop = 0.1 if phase != "approach" or h_now < 150 else 0.2
                port.wait(dt_loop)
                r = cp.look()
                if not st.update(port.elapsed(), r, cp.img):
                    if debug:
                        st.trace.append(("unread", port.elapsed(), r.ias, r.alt, r.hdg, r.vs, r.bank, r.pitch, r.rpm))
                    continue
                if debug and int(st.t) % 5 == 0 and st.t - int(st.t) < dt_loop:
                    st.dump_trace({"phase": phase, "field_ft": field.elevation_ft, "seen_ft": field.seen[-9:]})
                dt, t_prev = max(1e-3, st.t - t_prev), st.t
                h_ft = st.alt - field.elevation_ft
                h_w = h_ft - WHEELS_FT
                tas = st.ias * (1.0 + 0.02 * max(0.0, st.alt) / 1000.0)
                gs = max(30.0, tas - head)
                wca = math.degrees(math.asin(max(-0.5, min(0.5, cross / max(40.0, tas)))))
                sight = see_runway(
                    cp.frame,
                    st.bank,
                    st.pitch,
                    max(1.0, (h_ft + EYE_ABOVE_FT) * FT),
                    angle_diff(rwy_hdg, st.hdg),
                    side=self.runway[-1:],  # 04R: the right one of the parallels
                )
                if phase == "approach":
                    field.look(st.alt, max(1.0 / FT, h_ft + EYE_ABOVE_FT), sight)
                if sight is not None and sight.axis_from_view is not None and sight.far_m - (sight.near_m or 0) > 150:
                    rwy_hdg = (rwy_hdg + 0.05 * angle_diff(st.hdg + sight.axis_from_view, rwy_hdg)) % 360.0
                if phase == "approach":
                    self.during_approach(st, cp)
                    dist = None
                    if sight is not None:
                        dist = sight.centroid[0]
                        y = sight.offset_m
                        look = max(250.0, 0.35 * dist)
                        if dist < 3500.0:
                            crab_i = max(-8.0, min(8.0, crab_i - 0.004 * y * dt))
                        track = -math.degrees(math.atan2(y, look))
                    else:
                        track = 0.0
                    hdg_des = rwy_hdg + wca + crab_i + track
                    bank_lim = 10.0 if h_ft > 200 else 5.0
                    bank_t = max(-bank_lim, min(bank_lim, 2.0 * angle_diff(hdg_des, st.hdg)))
                    # the path: 3 degrees to the aim point
                    vs_nom = -gs * 101.27 * math.tan(math.radians(GLIDE_DEG))
                    if sight is not None and sight.near_m is not None:
                        aim = sight.near_m + chart.aim_past_near_m
                        h_des = math.tan(math.radians(GLIDE_DEG)) * aim / FT
                        vs_cmd = vs_nom + max(-400.0, min(400.0, 3.0 * (h_des - h_ft)))
                        for at_m, detent in self.flap_schedule:
                            if aim < at_m and detent > flaps_set:
                                self.port.key("bracketright", hold_s=0.05)
                                flaps_set += 10
                                break
                    else:
                        vs_cmd = vs_nom
                    vs_cmd = max(-1000.0, min(0.0, vs_cmd))
                    ias_t = self.approach_kias.get(flaps_set, 70.0)
                    ias_t = max(min(ias_t, TAILWIND_FLOOR_KIAS), ias_t - slower)
                    # the flare begins no lower than where the sink held meets the flare's own
                    # law (a faster sink, as a 3° path at a higher groundspeed gives, flares higher)
                    flare_h = max(self.flare_ft, -st.vs / FLARE_FPM_PER_FT - WHEELS_FT)
                    if h_w < flare_h + 10.0 and not closing:
                        self.port.key_down("Next")  # the throttle closing (held: it runs to idle)
                        closing, closing_pitch = True, st.pitch
                    if h_w < flare_h:
                        phase, p_flare = "flare", st.pitch
                    elif self.hold_throttle:
                        last_thr_t = st.t
                    elif st.t - last_thr_t >= 1.0 and not closing:
                        want = thr_base + thr_pid.step(ias_t - st.ias, st.t - last_thr_t)
                        taps = round((want - st.thr) / 0.01)
                        if taps:
                            self.port.key("Prior" if taps > 0 else "Next", repeat=min(abs(taps), 8), hold_s=0.03)
                        last_thr_t = st.t
                elif phase == "flare":
                    # the crab kept (the approach's heading, by bank) down to DECRAB_FT, then
                    # taken out: rudder held to line the nose up with the runway (fed forward
                    # from the crab, brought in over a second) and the upwind wing lowered
                    # against the drift (a sideslip), a little more for an offset seen
                    if h_w < DECRAB_FT and not t_decrab:
                        t_decrab = st.t
                    y = sight.offset_m if sight is not None and sight.pixels > 0 else 0.0
                    if t_decrab:
                        k = min(1.0, (st.t - t_decrab) / 1.0)
                        bank_t = k * max(-8.0, min(8.0, 0.45 * cross)) + max(-3.0, min(3.0, -0.3 * y))
                        # with the heading's integral (carried on to the roll-out): the crab's rudder
                        # alone held the nose 3-6° right of the runway's in a left crosswind (P20 seed 4)
                        # (a steady error only: integrated through the decrab's swing, it ran on past
                        # the runway's heading 8° in a 9 kt crosswind, P12 seed 3)
                        if abs(st.yaw_rate) < DECRAB_I_YAW_MAX:
                            rud_i = max(-0.3, min(0.3, rud_i + ROLL_RUDDER_I * angle_diff(rwy_hdg, st.hdg) * dt))
                        ff = -DECRAB_PER_DEG * wca * k + rud_i
                        rudder, last_rudder_t = self.steer(rwy_hdg, rudder, last_rudder_t, 3, ff)
                    else:
                        hdg_des = rwy_hdg + wca + crab_i - math.degrees(math.atan2(y, 150.0))
                        bank_t = max(-5.0, min(5.0, 2.0 * angle_diff(hdg_des, st.hdg)))
                    if self.flare_by_pitch:
                        vs_cmd = -max(60.0, 25.0 * max(0.0, h_w))
                    else:
                        vs_cmd = -max(60.0, FLARE_FPM_PER_FT * max(0.0, h_w + WHEELS_FT))
                    # on the wheels: the altimeter stops unwinding (the VSI at zero) near the field
                    # (not a balloon's top: low, level and for half a second)
                    settled = settled + 1 if h_w < 2.0 and abs(st.vs) < 40.0 else 0
                    touched = touched or settled > 0
                    if settled >= 5:
                        phase = "rollout"
                else:  # rollout
                    bank_t = 0.0
                    # rudder and nosewheel hold the runway heading against the weathervaning (a
                    # slow integral for what the feed-forward misses); the brakes: both below
                    # 45 KIAS (a speed that cannot nose it over), and below GENTLE_ABOVE_KIAS the
                    # brake on the side to turn to alone while the heading is more than 3° off.
                    # The heading held points back to the centreline seen (a crosswind's drift in
                    # the flare had carried P08 seed 10 20 m left of it and on towards the edge)
                    y = sight.offset_m if sight is not None and sight.pixels > 0 and st.ias > 15.0 else 0.0
                    hdg_t = rwy_hdg + max(
                        -ROLL_TRACK_MAX_DEG, min(ROLL_TRACK_MAX_DEG, -math.degrees(math.atan2(y, 120.0)))
                    )
                    err = angle_diff(hdg_t, st.hdg)
                    rud_i = max(-0.3, min(0.3, rud_i + ROLL_RUDDER_I * err * dt))
                    ff = -WEATHERVANE_PER_DEG * wca + rud_i
                    # the decrab's rudder (up to full in a 12 kt crosswind) beyond the roll-out's
                    # limit comes out three times as fast as the roll-out steers. Fast, the loaded
                    # nosewheel over-steers: no brake is held while the rudder is beyond
                    # BRAKED_RUDDER_LIM, nor the rudder moved beyond it while braking (braked with the
                    # decrab's rudder still in, the nose swung 28° right, P08 seed 3), nor while the
                    # nose swings (P08 seed 10 nosed over braked at 15°/s); unbraked the
                    # rudder goes to ROLL_RUDDER_FAST_LIM (0.35 let an 11-13 kt crosswind from the left
                    # weathervane P08 seed 10 and P17 seed 1 off the runway's left edge), four key taps
                    # a reading above 30 KIAS (two let P08 seed 3's heading swing ±37° in a 12 kt crosswind)
                    slow = st.ias < GENTLE_ABOVE_KIAS
                    lim = ROLL_RUDDER_SLOW_LIM if slow else BRAKED_RUDDER_LIM if any(brakes) else ROLL_RUDDER_FAST_LIM
                    unwind = abs(rudder) > lim + 1e-9
                    rudder, last_rudder_t = self.steer(
                        hdg_t, rudder, last_rudder_t, 6 if unwind else 2 if slow else 4, ff, lim=lim
                    )
                    brake_ok = slow or (
                        abs(rudder) <= BRAKED_RUDDER_LIM + 1e-9 and abs(st.yaw_rate) < BRAKE_YAW_RATE_MAX
                    )
                    both = (st.ias < BRAKE_BELOW_KIAS or brake_early) and brake_ok
                    if slow:
                        want_b = (both and err < DIFF_BRAKE_DEG, both and err > -DIFF_BRAKE_DEG)
                    else:  # fast: both brakes or neither (one alone swung the heading 10-17° each way)
                        want_b = (both and abs(err) < DIFF_BRAKE_DEG,) * 2
                    if slow and err > DIFF_BRAKE_DEG + (0 if brakes[1] and not brakes[0] else 1.0):
                        want_b = (False, True)
                    elif slow and err < -DIFF_BRAKE_DEG - (0 if brakes[0] and not brakes[1] else 1.0):
                        want_b = (True, False)
                    # the nose pitched down by the braking (the crash rule's -15° is a nose-over): off
                    nose_low = NOSE_LOW_DEG + (0.0 if any(brakes) else 2.0)
                    if st.pitch < nose_low:
                        want_b = (False, False)
                    brakes = self.brake(brakes, want_b)
                    msg = "braking" if any(brakes) else msg
                # attitude: pitch from the sink rate wanted, elevator from the pitch
                if phase == "rollout":
                    # braking fast (a tailwind's long roll): the yoke back keeps the nosewheel light
                    # and so does braking slower (released at 45 KIAS, the nose went to -7° and -15°)
                    pull = 0.0
                    if any(brakes) or (brake_early and st.ias >= BRAKE_BELOW_KIAS):
                        cap = BRAKE_PULL if st.ias >= BRAKE_BELOW_KIAS else BRAKE_PULL_SLOW
                        pull = max(0.0, min(cap, 0.04 * (BRAKE_PITCH_DEG - st.pitch)))
                    # stopped: no airspeed, or (in a wind, which the airspeed indicator still
                    # reads at a stop) no more than the wind's and not falling for 2 s
                    ias_hist = [(t, v) for t, v in ias_hist if st.t - t <= 2.0] + [(st.t, st.ias)]
                    steady = ias_hist[-1][0] - ias_hist[0][0] > 1.8 and ias_hist[0][1] - st.ias < 0.7
                    if st.ias < 3.0 or (st.ias < wind_kt + 3.0 and steady):
                        stopped_since = st.t if stopped_since is None else stopped_since
                        if st.t - stopped_since >= self.hold_after_stop_s:
                            break
                    else:
                        stopped_since = None
                elif phase == "flare" and self.flare_by_pitch:  # the nose raised as the sink left needs
                    flare_i = max(0.0, min(10.0, flare_i + 0.03 * (vs_cmd - st.vs) * dt))
                    pitch_t = p_flare + max(0.0, min(10.0, flare_i + 0.01 * (vs_cmd - st.vs)))
                    pull = pitch_pid.step(pitch_t - st.pitch, dt, rate=-st.pitch_rate)
                else:
                    pitch_t = vs_to_pitch.step(vs_cmd - st.vs, dt)
                    if phase == "approach" and closing_pitch is not None:
                        pitch_t = max(pitch_t, closing_pitch - CLOSING_GIVE_DEG)
                    if phase == "flare":  # sinking faster than the flare's law: the nose up at once
                        pitch_t += min(FLARE_EXCESS_MAX_DEG, FLARE_EXCESS_DEG_PER_FPM * max(0.0, vs_cmd - st.vs))
                        # and never lowered more than FLARE_GIVE_DEG under the highest asked (a
                        # balloon held off, not pushed back down: -340 fpm and a bounce after one)
                        flare_hold = p_flare if flare_hold is None else flare_hold
                        pitch_t = min(FLARE_MAX_PITCH_DEG, max(pitch_t, flare_hold))
                        flare_hold = max(flare_hold, pitch_t - FLARE_GIVE_DEG)
                    pull = pitch_pid.step(pitch_t - st.pitch, dt, rate=-st.pitch_rate)
                    if phase == "flare":
                        pull = min(1.0, pull + DECRAB_PULL * abs(rudder))
                if phase == "flare" and t_decrab:
                    # the sideslip's own roll (the c172x's dihedral against the decrab's rudder) is
                    # more than the feed-forward holds, either way by the wind and its strength: an
                    # integral brings the bank to the upwind wing asked within a second or two (the
                    # approach's slow one left the bank near level, and P20 seeds 1 and 4 and P17 seed
                    # 3 drifted 14-27 m downwind in the float)
                    held_i = flare_bank_pid.i
                    ail = flare_bank_pid.step(bank_t - st.bank, dt, rate=-st.roll_rate) - DECRAB_AIL * ff
                    if touched:
                        flare_bank_pid.i = held_i
                else:
                    ail = bank_pid.step(bank_t - st.bank, dt, rate=-st.roll_rate)
                if phase == "rollout":  # aileron into the wind, wings held level on the wheels
                    ail = max(-0.4, min(0.4, 0.03 * cross - 0.03 * st.bank))
                cp.fly(ail, pull)
        finally:
            self.brake(brakes, (False, False))
            if closing:
                port.key_up("Next")
            st.dump_trace({"latency_ms": list(cp.latency_ms()), "field_ft": field.elevation_ft, "seen_ft": field.seen})
        port.done(f"landed runway {self.runway} ({phase})")
        return "done"

    def brake(self, held: tuple[bool, bool], want: tuple[bool, bool]) -> tuple[bool, bool]:
        """The left (comma) and right (period) brake keys held as `want` says; returns it."""
        for key, was, now in (("comma", held[0], want[0]), ("period", held[1], want[1])):
            if now and not was:
                self.port.key_down(key)
            elif was and not now:
                self.port.key_up(key)
        return want

    def steer(
        self, hdg_t: float, rudder: float, last_t: float, max_steps: int, ff: float = 0.0, lim: float = 1.0
    ) -> tuple[float, float]:
        """Rudder (and nosewheel) towards a heading: `ff` held (the rudder the crab or the
        crosswind needs) plus the heading error, the yaw rate damping it; key taps of
        RUDDER_STEP, at most `max_steps` a reading; returns the rudder and the time set."""
        st = self.st
        want = max(-lim, min(lim, ff + 0.04 * angle_diff(hdg_t, st.hdg) - 0.04 * st.yaw_rate))
        steps = round((want - rudder) / RUDDER_STEP)
        if steps and st.t - last_t > 0.15:
            n = min(abs(steps), max_steps)
            self.port.key("Return" if steps > 0 else "Insert", repeat=n, hold_s=0.03)
            return rudder + RUDDER_STEP * (n if steps > 0 else -n), st.t
        return rudder, last_t

    def initial_flaps(self) -> int:
        return 0


class TouchdownZonePilot(LandingPilot):
    """T03: KPAO 31 from a 5 nm final, full flaps, 65 KIAS over the threshold; the aim point
    at least ZONE_AIM of the way into the touchdown zone (the first third of the landing
    distance: T03@PHJR's 04R is 2.4 km long, where 30 m past the threshold is too near its start)."""

    runway = "31"

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        rwy = task.geometry.runway(task.initial_state.runway or self.runway)
        zone_m = float(rwy.length_ft or 0.0) * FT / 3.0
        self.aim_past_threshold_m = max(LandingPilot.aim_past_threshold_m, ZONE_AIM * zone_m)
        return super().run(port, task, deadline_s)


class NoFlapLandingPilot(LandingPilot):
    """P17: the flaps fail where they are (up or 10°); the POH's no-flap approach at 60-80
    KIAS (70 flown), the flap lever left alone; land on KHAF 30 and hold the stop 12 s."""

    runway = "30"
    approach_kias = {0: 67.0, 10: 67.0, 20: 67.0, 30: 67.0}
    flap_schedule = ()
    aim_past_threshold_m = 80.0
    hold_after_stop_s = 13.0
    flare_ft = 16.0
    flare_by_pitch = True
