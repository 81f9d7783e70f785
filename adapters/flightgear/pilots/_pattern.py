"""Reference pilot for T05@PHJR on FlightGear's c172p: a left-hand traffic pattern from runway
04R at 1,000 ft above the field and a landing on 04R, rolled to a stop, flown with the keyboard
from the panel (default cockpit view, 1280x800).

- **Where the aircraft is**: dead-reckoned from where FlightGear lines it up, `START_ALONG_M`
  before 04R's displaced threshold, by T11's pilot (`_turn_back`): the airspeed indicator and
  the heading indicator (set to the compass at the hand-over), no wind, the track taken that
  much off the heading as the c172p slips at the power it has (`CLIMB_SLIP_DEG`,
  `APPROACH_SLIP_DEG`); kept here in the runway's frame, metres along 04R from its threshold
  and to the left of its centreline. On final the runway out of the window
  (`_runway.see_runway`) corrects how far left of the centreline it is (`look_out`).
- **Departure and downwind**: T02's pilot (`_takeoff.FlightGearTakeoffHoldPilot.fly`): the roll,
  the rotation, the climb at 76 kt, the level-off at 1,000 ft above the field and its altitude
  and airspeed hold, with the heading of each leg asked frame by frame: the runway's until
  `CROSSWIND_AGL_FT`, 90° left (crosswind) until the downwind line is a turn away, then the
  reciprocal along the line `DOWNWIND_OFFSET_M` left of the centreline.
- **Descent, base and final**: from abeam the threshold T11's glide and landing
  (`glide_and_land`: the airspeed by pitch at `APPROACH_KT`, the flare led by the altimeter's lag,
  the roll and the brakes), with the power kept here: the throttle holds a `PATH_DEG` path to
  the aim point along what is left of the pattern, and closes at the flare. The base turn comes
  `BASE_PAST_M` before the threshold, the final turn a turn radius from the centreline, and on
  final the heading follows the centreline (an intercept angle by the offset). From the flare
  to the stop the rudder keeps 04R's heading, turned toward the centreline.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from simbridge.agents import AgentResult
from simbridge.adapters.flightgear.pilots._runway import WINDOW, see_runway
from simbridge.adapters.flightgear.pilots._takeoff import FIELD_ELEV_FT, Reading
from simbridge.adapters.flightgear.pilots._turn_back import (
    ALT_LAG_S,
    CLIMB_SLIP_DEG,
    KT_MS,
    REGION,
    RUNWAY_HDG_MAG,
    VARIATION_DEG,
    FlightGearTurnBackPilot,
)

if TYPE_CHECKING:
    from simbridge import TaskSpec
    from simbridge.agent import AgentPortClient

#: 04R's true heading (the task's geometry; the pilot's magnetic 045° plus the variation is 54.5°)
RUNWAY_TRUE_DEG = 54.8
PATTERN_AGL_FT = 1000.0
CROSSWIND_AGL_FT = 600.0
DOWNWIND_KT, APPROACH_KT = 85.0, 70.0
NM = 1852.0
#: the downwind line, left of the centreline (the task's template: 0.25-1.5 nm)
DOWNWIND_OFFSET_M = 0.7 * NM
#: the base leg this far before the threshold: 0.75 nm left a final of 35 s, too short to settle
#: the base-to-final turn's overshoot (65 m off the centreline at the touchdown, T05@PHJR seed 1)
BASE_PAST_M = 1.0 * NM
#: where the approach aims, past the threshold, and its path angle
AIM_PAST_M, PATH_DEG = 300.0, 4.0
#: bank in the pattern's turns (its radius, `turn_radius_m`, leads them)
PATTERN_BANK_DEG = 20.0
#: intercept angle (deg) per metre off a leg's line, and its limit
INTERCEPT_DEG_PER_M, INTERCEPT_MAX_DEG = 0.1, 30.0
#: on final, the intercept's integral (deg per metre-second, and its reach): the c172p flew the
#: final 3-9° left of the heading asked and stayed 45-65 m off the centreline (T05@PHJR seed 1)
FINAL_I_DEG_PER_M_S, FINAL_I_MAX_DEG = 0.004, 10.0
#: ... and only this close to the centreline: within 150 m it wound up while the window's first
#: sights moved the reckoning 20-40 m and swung the final 20 m past the centreline (T03@PHJR)
FINAL_I_WITHIN_M = 20.0
#: on final within FINAL_NEAR_M of the centreline, this much more intercept per metre: at
#: 0.1°/m a 5 m offset takes 16 s to close, the flare came with the c172p still 5-10 m off;
#: at 0.2°/m in all the final swung from 25 m right to 16 m left in 12 s (T03@PHJR)
FINAL_NEAR_DEG_PER_M, FINAL_NEAR_M = 0.05, 30.0
#: from the flare to the stop, the nose turned toward the centreline this much per metre off
#: it, and at most (deg)
ROLL_STEER_DEG_PER_M, ROLL_STEER_MAX_DEG = 0.3, 3.0
#: the roll-in's seconds: the base-to-final turn starts this much flight before a turn radius
#: from the centreline
ROLL_IN_S = 3.0
#: where the aircraft starts: FlightGear lines the c172p up at the start of 04R's pavement, its
#: displaced threshold 110 m ahead (apt.dat; measured: 105 m before it)
START_ALONG_M = -110.0
#: throttle steps (0.01 each, counted from full) that hold the approach's path at APPROACH_KT
#: with the flaps up, and steps per foot above the path
APPROACH_THROTTLE, PATH_THROTTLE_PER_FT = -62, 0.15
#: how far the track runs right of the heading (deg) with approach power and the rudder
#: centred: 0.4-2.3°, 1.5° on average, along T03@PHJR's 5 nm final (its reckoning, which took the
#: heading for the track, ended 200 m left of where the c172p was)
APPROACH_SLIP_DEG = 1.5
#: looks out of the window on final: this often (s), between these heights above the field
#: (ft), from this far before the threshold (m; further out the runway is a few rows among
#: the field's other pavement), the wings within LOOK_BANK_DEG of level (the
#: attitude indicator reads small banks at about 60% of the bank), looking for the runway
#: LOOK_AHEAD_M ahead or at the threshold, whichever is further
LOOK_EVERY_S, LOOK_FT, LOOK_FROM_M, LOOK_BANK_DEG, LOOK_AHEAD_M = 1.0, (20.0, 600.0), 1500.0, 4.0, 600.0
#: a sight counts if the height its edges imply is within this fraction of the altimeter's and
#: it moves the reckoning by no more than this (m); each moves it this fraction of the way
LOOK_HEIGHT_TOL, LOOK_MAX_FIX_M, LOOK_GAIN = 0.35, 100.0, 0.5
#: 04R's width (apt.dat) and the pilot's eye above the wheels (m)
RUNWAY_WIDTH_M, EYE_ABOVE_WHEELS_M = 60.96, 2.0


def turn_radius_m(ias_kt: float, bank_deg: float) -> float:
    """Radius of a level turn at `ias_kt` (taken as true airspeed) and `bank_deg`."""
    v = ias_kt * KT_MS
    return v * v / (9.81 * math.tan(math.radians(bank_deg)))


def heading_onto_line(line_true_deg: float, offset_left_m: float) -> float:
    """Magnetic heading that flies along a line (true direction `line_true_deg`) from
    `offset_left_m` to the left of it (negative: to its right): the line's heading turned toward
    it by an intercept that grows with the offset."""
    intercept = float(np.clip(INTERCEPT_DEG_PER_M * offset_left_m, -INTERCEPT_MAX_DEG, INTERCEPT_MAX_DEG))
    return (line_true_deg + intercept - VARIATION_DEG) % 360.0


class FlightGearPatternPilot(FlightGearTurnBackPilot):
    """T05@PHJR on FlightGear: a left-hand pattern from 04R and the landing back on it."""

    name = "reference:fg-pattern"
    glide_kt = APPROACH_KT
    #: degrees of bank asked per degree off the heading from the descent on: T11's 1.0 weaved
    #: the final ±5° of heading and ±15 m about the centreline every 25 s (the attitude
    #: indicator shows small banks at 35-60% of the bank: the c172p banks further than asked)
    glide_hdg_bank_p = 0.6
    #: the rudder on the runway's heading from the flare on: at T11's 0.3 a step per degree
    #: the nose ran 2.5-7° off it in the flare and the c172p drifted 20 m across (T03@PHJR)
    roll_rudder_p, roll_rudder_max = 0.6, 6
    #: the approach path: its angle, its aim point past the threshold, the throttle that holds it
    path_deg, aim_past_m, approach_throttle = PATH_DEG, AIM_PAST_M, APPROACH_THROTTLE
    #: from this far before the threshold (m) a sight's offset is scaled by the altimeter's
    #: height (led by its lag) over the height its edges imply; None: the sight's own
    look_alt_scaled_within_m: float | None = None
    #: ... and there taken this much (m) to the right: the sight's bias, measured against the
    #: recorded position; 0: none
    look_seen_bias_m = 0.0
    #: the lowest height (ft above the field) a look is taken at
    look_ft_min = LOOK_FT[0]
    #: from the flare on, how far the track runs right of the nose (deg) with the power coming
    #: off: the reckoning takes it, and the rudder holds the nose that much left of the runway's
    #: heading against it; 0: none
    float_slip_deg = 0.0
    #: from the flare to the stop, the nose turned toward the centreline this much (deg) per metre
    #: off it
    roll_steer_deg_per_m = ROLL_STEER_DEG_PER_M
    #: ... from this magnetic heading (deg): T02's hold heading, 045
    roll_runway_hdg_mag = RUNWAY_HDG_MAG
    #: on final, the nose held this much (deg) left of the centreline's heading against the slip
    #: (the track runs `APPROACH_SLIP_DEG` right of the heading); 0: the intercept's integral
    #: learns it
    final_crab_deg = 0.0
    #: on final, the intercept added near the centreline (deg per metre off it) and its reach
    #: (deg): `FINAL_NEAR_DEG_PER_M` to `FINAL_NEAR_M`
    final_near_deg_per_m, final_near_max_deg = FINAL_NEAR_DEG_PER_M, FINAL_NEAR_DEG_PER_M * FINAL_NEAR_M
    #: T05@PHJR and T03@PHJR state calm
    reckoned_wind_kt = 0.0
    #: the runway frame on 04R's true heading (the task's geometry)
    runway_true_deg = RUNWAY_TRUE_DEG

    def __init__(self, *_: object) -> None:
        super().__init__()
        self.leg = "upwind"
        self.legs: list[dict] = []
        self.move_m(START_ALONG_M, 0.0)
        self.final_i_deg = 0.0  # the final's intercept integral (deg)
        self.t_final: float | None = None
        self.t_look = -math.inf

    # -- the runway's frame (`along_left_m`)
    def move_m(self, along_m: float, left_m: float) -> None:
        """Move the reckoned position `along_m` along 04R and `left_m` to the left of it."""
        h = math.radians(self.runway_true_deg)
        self.x_m += along_m * math.sin(h) - left_m * math.cos(h)
        self.y_m += along_m * math.cos(h) + left_m * math.sin(h)

    def _next_leg(self, leg: str, t: float, height_ft: float) -> None:
        along, left = self.along_left_m()
        self.leg = leg
        self.trace.append({"leg": leg, "t": round(t, 1), "along_m": round(along), "left_m": round(left)})
        self.legs.append(
            {"leg": leg, "t": round(t, 1), "along_m": round(along), "left_m": round(left), "h": round(height_ft)}
        )

    def leg_heading(self) -> float:
        """The magnetic heading the leg asks now."""
        along, left = self.along_left_m()
        if self.leg == "upwind":
            return RUNWAY_HDG_MAG
        if self.leg == "crosswind":
            return (RUNWAY_HDG_MAG - 90.0) % 360.0
        if self.leg == "downwind":
            # the downwind line runs the other way: to its left is further out from the runway
            return heading_onto_line(RUNWAY_TRUE_DEG + 180.0, DOWNWIND_OFFSET_M - left)
        if self.leg == "base":
            return (RUNWAY_HDG_MAG + 90.0) % 360.0
        # final: the centreline, the crab against the slip and the intercept's integral added
        near = float(np.clip(self.final_near_deg_per_m * left, -self.final_near_max_deg, self.final_near_max_deg))
        return (heading_onto_line(RUNWAY_TRUE_DEG, left) + near + self.final_i_deg - self.final_crab_deg) % 360.0

    def _pattern(self, r: Reading, _shot: np.ndarray) -> bool:
        """Each frame of the departure and the downwind: the reckoning and the legs; True once
        past abeam the threshold on the downwind where the approach path comes under the
        pattern's height: the descent begins."""
        self._reckon(r, self.dg)
        along, left = self.along_left_m()
        height = r.alt_ft
        self.slip_deg = CLIMB_SLIP_DEG if self.leg == "upwind" and height > 50.0 else 0.0
        if self.leg == "upwind" and height >= CROSSWIND_AGL_FT and along > 0.0:
            self._next_leg("crosswind", r.t_s, height)
        elif self.leg == "crosswind":
            lead = turn_radius_m(DOWNWIND_KT, PATTERN_BANK_DEG)
            if left >= DOWNWIND_OFFSET_M - lead and height >= PATTERN_AGL_FT - 60.0:
                self._next_leg("downwind", r.t_s, height)
        elif self.leg == "downwind" and along < 0.0 and self.path_ft() < PATTERN_AGL_FT:
            self._next_leg("descent", r.t_s, height)
            self.leg = "downwind"  # still on the downwind's line, now descending
            return True
        return False

    def glide_steer(self, dg: float, h: float) -> tuple[float, float, float]:
        """The rest of the pattern after abeam: the downwind's line, the base, the final."""
        along, left = self.along_left_m()
        lead = turn_radius_m(APPROACH_KT, PATTERN_BANK_DEG)
        if self.leg == "downwind" and along < -BASE_PAST_M + 0.3 * lead:
            self._next_leg("base", self.t_dr or 0.0, h)
        elif self.leg == "base" and left <= lead + ROLL_IN_S * APPROACH_KT * KT_MS:
            self._next_leg("final", self.t_dr or 0.0, h)
        hdg_target = self.leg_heading()
        hdg_err = (hdg_target - dg + 180.0) % 360.0 - 180.0
        if self.leg == "final" and self.t_dr is not None:
            dt = min(1.0, self.t_dr - self.t_final) if self.t_final is not None else 0.0
            self.t_final = self.t_dr
            if abs(left) < FINAL_I_WITHIN_M:  # settled on the final, not through the turn onto it
                i = self.final_i_deg + FINAL_I_DEG_PER_M_S * left * dt
                self.final_i_deg = float(np.clip(i, -FINAL_I_MAX_DEG, FINAL_I_MAX_DEG))
        return hdg_target, hdg_err, (PATTERN_BANK_DEG if h > 150.0 else 10.0)

    def look_out(self, port: "AgentPortClient", r: Reading, mode: str, dg: float, h: float) -> None:
        """On final and in the flare, every LOOK_EVERY_S: the runway out of the window
        (`_runway.see_runway`) sets how far left of the centreline the aircraft is, half-way each
        look; only with the wings near level and a runway whose width puts it at the
        altimeter's height. The reckoning alone ended 25-90 m off the centreline (the slip, the
        speed, the heading indicator)."""
        if self.leg != "final" or mode not in ("glide", "flare") or not self.look_ft_min <= h <= LOOK_FT[1]:
            return
        if abs(r.bank_deg) > LOOK_BANK_DEG or r.t_s - self.t_look < LOOK_EVERY_S:
            return
        along, left = self.along_left_m()
        if along >= -LOOK_FROM_M:
            self.t_look = r.t_s
            ahead = max(0.0, along + LOOK_AHEAD_M) - along  # the point looked for: the threshold, or further on
            nose_right_deg = (dg + VARIATION_DEG) - RUNWAY_TRUE_DEG
            bearing = math.degrees(math.atan2(left, ahead)) - nose_right_deg
            shot = port.screenshot("png", region=WINDOW).to_array()
            sight = see_runway(shot, r.bank_deg, bearing, RUNWAY_WIDTH_M)
            seen = None
            if sight is not None:
                h_m = h * 0.3048 + EYE_ABOVE_WHEELS_M
                right_m = sight.right_m
                if self.look_alt_scaled_within_m is not None and along >= -self.look_alt_scaled_within_m:
                    led_ft = h + self.g.rate("alt_ft") * ALT_LAG_S
                    right_m *= max(1.0, led_ft * 0.3048 + EYE_ABOVE_WHEELS_M) / sight.height_m
                    right_m += self.look_seen_bias_m
                if abs(sight.height_m / h_m - 1.0) <= LOOK_HEIGHT_TOL and abs(-right_m - left) <= LOOK_MAX_FIX_M:
                    seen = -right_m
                    d = LOOK_GAIN * (seen - left)
                    self.move_m(0.0, d)
            self.trace.append(
                {
                    "look": round(r.t_s, 1),
                    "along": round(along),
                    "left": round(left, 1),
                    "seen_left": None if seen is None else round(seen, 1),
                    "sight": None if sight is None else [round(sight.right_m, 1), round(sight.height_m, 1), sight.rows],
                }
            )

    def roll_heading(self, flare_dg: float) -> float:
        """From the flare to the stop the rudder keeps 04R's heading, turned toward the
        centreline by `roll_steer_deg_per_m` (the flare's heading, kept before, left T05@PHJR seed
        3 crossing the runway and rolling off its side; on 04R's heading alone the float drifted
        the c172p 9 m across, T03@PHJR seed 2)."""
        _, left = self.along_left_m()
        steer = float(np.clip(self.roll_steer_deg_per_m * left, -ROLL_STEER_MAX_DEG, ROLL_STEER_MAX_DEG))
        return (self.roll_runway_hdg_mag + steer - self.float_slip_deg) % 360.0

    def path_ft(self) -> float:
        """Height (ft above the field) of the approach path where the aircraft is: PATH_DEG to
        the aim point along what is left of the pattern."""
        along, left = self.along_left_m()
        if self.leg == "downwind":
            rest = (along + BASE_PAST_M) + max(0.0, left) + BASE_PAST_M
        elif self.leg == "base":
            rest = max(0.0, left) + max(0.0, -along)
        else:
            rest = max(0.0, -along)
        return min(PATTERN_AGL_FT, (rest + self.aim_past_m) * math.tan(math.radians(self.path_deg)) / 0.3048)

    def glide_power(self, want: dict[str, int], mode: str, h: float) -> None:
        """The approach's power: the path by throttle; closed from the flare on."""
        if mode != "glide":
            want["throttle"] = -100
            self.slip_deg = self.float_slip_deg if mode == "flare" else 0.0
            return
        self.slip_deg = APPROACH_SLIP_DEG
        steps = self.approach_throttle - PATH_THROTTLE_PER_FT * (h - self.path_ft())
        want["throttle"] = int(np.clip(round(steps), -100, -20))

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        phase, _ = self.fly(
            port,
            deadline_s,
            RUNWAY_HDG_MAG,
            FIELD_ELEV_FT + PATTERN_AGL_FT,
            DOWNWIND_KT,
            region=REGION,
            stop=self._pattern,
            heading=self.leg_heading,
            bank_max_deg=PATTERN_BANK_DEG,
            hold_done_s=math.inf,  # the downwind is held until abeam, not for a time
        )
        if self.leg != "downwind" or not self.legs or self.legs[-1]["leg"] != "descent":
            port.give_up(f"the pattern ended before the descent (leg {self.leg}, phase {phase})")
            return "give_up"
        return self.land(port, deadline_s, f"pattern flown ({', '.join(leg['leg'] for leg in self.legs)})")
