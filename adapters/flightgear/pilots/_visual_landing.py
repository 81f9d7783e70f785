"""Reference pilot for T03@PHJR on FlightGear's c172p: from the 5 nm final to 04R at 1,500 ft, a
path to the touchdown zone, the flare, the landing and the stop on the runway, flown with the
keyboard from the panel (default cockpit view, 1280x800).

It is T05's final (`_pattern.FlightGearPatternPilot`) flown from the task's start:

- **Where the aircraft is**: dead-reckoned from the start, on 04R's extended centreline
  `START_ALONG_M` before the displaced threshold (the task's initial state; the harness restarts
  the c172p there, wings level on the runway's heading), by the airspeed indicator and the
  heading indicator (set to the compass at the hand-over).
- **Height**: the altimeter's 100 ft needle, made absolute by the instruction's 1,500 ft, less
  the field elevation and the wheels' height.
- **The approach**: pitch for `APPROACH_KT`, the throttle for a `PATH_DEG` path to `AIM_PAST_M`
  past the threshold, the heading onto the centreline; then T11's flare, roll and brakes, the
  rudder on the runway's heading. The flare raises the nose by time (`FLARE_RAMP_DEG_S`), not
  by the altimeter's lagging sink. The final's heading carries a crab against the slip
  (`FINAL_CRAB_DEG`), and the float's rudder an integral (`ROLL_RUDDER_I`).
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING

import cv2
from simbridge.agents import AgentResult
from simbridge.adapters.flightgear.pilots._gauges import needle_deg
from simbridge.adapters.flightgear.pilots._partial_panel import absolute_alt_ft
from simbridge.adapters.flightgear.pilots._pattern import (
    APPROACH_SLIP_DEG,
    NM,
    RUNWAY_TRUE_DEG,
    FlightGearPatternPilot,
)
from simbridge.adapters.flightgear.pilots._steep_turn import Gauges
from simbridge.adapters.flightgear.pilots._takeoff import FIELD_ELEV_FT, RudderControls
from simbridge.adapters.flightgear.pilots._turn_back import REGION, VARIATION_DEG

if TYPE_CHECKING:
    from simbridge import TaskSpec
    from simbridge.agent import AgentPortClient

#: the start: 5 nm before 04R's displaced threshold on its extended centreline, at 1,500 ft
START_ALONG_M, START_ALT_FT = -5.0 * NM, 1500.0
#: the altimeter on the wheels reads this much above the field elevation
WHEELS_FT = 5.0
#: the approach: a 3° path to this far past the threshold (the touchdown zone is the first 812 m;
#: the c172p flew the final 40-60 ft under the path, and aimed 150 m past it touched down 17 m
#: before the threshold once, T03@PHJR seed 1)
PATH_DEG, AIM_PAST_M = 3.0, 250.0
#: 70 kt floated the flare 300-450 m and ballooned it (+150 ft/min, T03@PHJR seed 2)
APPROACH_KT = 65.0
#: throttle steps (0.01 each, counted from full) that hold the 3° path at 70 kt flaps up
APPROACH_THROTTLE = -55
#: presses (in chords of two keys) that bring the throttle to idle from anywhere: the count from
#: there is known
IDLE_CHORDS = 50
#: the nose raised at the flare's start (then by the sink): T11's 3° ballooned the c172p (+150
#: ft/min, seed 2); with the flare's firmer pitch loop 1.5° still ballooned it (+344 ft/min)
FLARE_PITCH_UP_DEG = 0.5
#: the flare's wings-level loop. The glide trims in 1-2 steps of right aileron against the
#: engine's torque; held into the flare at idle it banked the c172p 2-5° right (the attitude
#: indicator reading 1-3.4°) and the float drifted it 10-15 m right of the centreline in 3 of 3
#: trials (T03@PHJR). So the flare starts from the aileron centred, scales the reading of small
#: banks with the nose up by 1/0.7 (its ratio to the recorded truth there) and steps the aileron
#: twice as hard per degree as the glide
FLARE_BANK_P, FLARE_BANK_SCALE = 1.0 / 4.0, 1.0 / 0.7
#: ... with that aileron taken out as the throttle closes (`c.pos["throttle"]` from the flare's
#: -51 to idle's -100 in about 10 s), not at once: at once, 3 s into the flare, with half the
#: power still on, the torque rolled the c172p 2.5-4.6° left and yawed it 3-4° left in 4 of 4
#: episodes, and the rudder's answer swung the nose back past the runway's heading (T03@PHJR)
FLARE_UNTRIMS_WITH_POWER = True
#: the flare's pitch asked goes up at this rate (deg/s) unless the altimeter shows the c172p
#: level or climbing (FLARE_RAMP_HOLD_FPM), to at most FLARE_RAMP_MAX_PITCH, and never down.
#: Held while sinking under 100 ft/min (the altimeter's rate is noisy and late), the nose sagged
#: with the airspeed at 150 ft/min of sink (T03@PHJR seed 1). T11's law (up at 2°/s while sinking over 300 ft/min,
#: down while under 100) ran on the altimeter's rate, which lags the height by over a second:
#: the nose came to 5.4-6.5° within 2.5 s, the c172p ballooned (+48 to +168 ft/min) and the
#: pitch then swung between 1° and 6.6° with a 7 s period down to the runway, the bank with it
#: (-6.2° to +5.9°, 9 m of drift, T03@PHJR seed 2)
FLARE_RAMP_DEG_S, FLARE_RAMP_MAX_PITCH, FLARE_RAMP_HOLD_FPM = 0.5, 7.0, 50.0
#: the flare pitches trim first (`_turn_back.flare_trim_first`): a step of elevator (0.05) moved
#: the nose 2-3° at 63 kt, and the pitch loop cycled between 0.6° and 5.7° every 3-4 s (the
#: c172p sinking at up to 511 ft/min at 18 ft), elevator steps of ±2 chasing a pitch the ramp
#: asked steadily (T03@PHJR seed 2, 0.55)
FLARE_BY_TRIM = True
#: ... by both trim keys at once (Home and 7, End and 1): two steps a tap, 8 a frame. By one key
#: (4 taps a frame, frames of 0.6 s in the flare) the trim moved 0.0065 a second, the pitch
#: lagged the ramp by 1.5° within 3 s, and the elevator's step (2-3° of nose) ballooned the
#: c172p from 26 to 30 ft or levelled it at 16 ft; it then sank onto the runway at 343-542
#: ft/min as the airspeed went (T03@PHJR, 2 of 4 episodes)
FLARE_TRIM_PAIRED = True
#: the flare's pitch loop: at the glide's 0.02 the nose sagged 2.5° under the pitch asked as the
#: airspeed went, and the c172p sank onto the runway at 325-383 ft/min (T03@PHJR)
FLARE_PITCH_P = 0.04
#: from this far before the threshold (m) a sight's offset is scaled by the altimeter's height:
#: there FlightGear's runway shows narrower than the chart's width, and the sights read the
#: offset 1.2-1.5 times the truth (21 sights, 5 episodes: within 1.0 m median, 3.7 m max scaled
#: by the altimeter led by its lag, 3.2 m and 7.3 m as read; further out the sight's own height
#: does better)
LOOK_ALT_SCALED_WITHIN_M = 700.0
#: ... and there taken this far right (m): within 700 m of 04R the sight put the eye 1.6 m
#: (sd 1.2) left of where the recording has the c172p, in the verifier's frame (149 looks under
#: 300 ft in 14 episodes, T03@PHJR; 1.2-1.7 m at every distance), and the touchdowns came 1.8 m
#: right of the centreline on average. Of it, 0.93 m is the runway as the scenery draws it, that
#: far right of apt.dat's (`_scenery`, test_fg_scenery.py), and 0.21 m the eye's place
#: (c172p-views.xml: the pilot's view 0.21 m left of the c172p's centreline); the rest, about
#: 0.5 m, is the reader's. Further out (700-1,500 m, on the sight's own height) the sights put
#: the eye 2.0-3.0 m left too; taken out there as well, nothing measurable changed at 50 ft
#: (0.1-6.0 m off in 8 episodes) or at the contact, so it is not
LOOK_SEEN_BIAS_M = 1.6
#: the lowest look (ft above the field): into the float, which flew 6-12 s from the last look
#: at 20-39 ft to the contact, the reckoning drifting 2.0 m (sd) from the truth in that time
LOOK_FT_MIN = 8.0
#: from this far before the threshold (m) the rudder helps the heading: steps per degree off the
#: heading asked, less per degree a second of yaw, within SHORT_FINAL_RUDDER_MAX. On the aileron
#: alone the bank lagged what was asked by about 4 s (a step of aileron is 0.05, and the
#: reader shows small banks at 0.4-0.7 of the bank): the heading ran 4-5.6° past the one asked
#: and the c172p crossed the centreline from 10 m right to 10 m left in the last 500 m (T03@PHJR
#: seed 3)
SHORT_FINAL_RUDDER_FROM_M, SHORT_FINAL_RUDDER_P, SHORT_FINAL_RUDDER_D, SHORT_FINAL_RUDDER_MAX = 800.0, 0.5, 0.5, 3
#: from the flare to the stop, the nose turned toward the centreline this much (deg) per metre
#: off it, from 04R's own magnetic heading (54.8° true less FlightGear's 9.48° of variation
#: there, 45.32°; T05's roll holds T02's 045). At T05's 0.3 from 045 the c172p, 5-8 m off at the
#: flare with the nose turned 3-4° toward the centreline, crossed it in the float and touched
#: down 3-6 m the other side (T03@PHJR, 2 of 4 episodes); at 0.15 from 045 it flared 0.8 m off
#: and drifted 5.7 m left in the 13 s float, the nose 0.4-0.8° left of 04R (seed 1, 0.80). At
#: 0.2 (with the integral below at 0.3) the nose swung 5-9.5° in the float; with the swing gone
#: the c172p held its 4-5 m off the centreline through the float and touched down 8.8 m off
#: (seed 6, 0.80)
ROLL_STEER_DEG_PER_M = 0.3
ROLL_RUNWAY_HDG_MAG = RUNWAY_TRUE_DEG - VARIATION_DEG
#: ... and the rudder's integral there (steps per degree-second): on the proportional term alone
#: the nose stood 0.7-2.1° left of 04R's heading through the float in 7 of 9 episodes, the
#: track within 0.4° of the nose, and the c172p drifted 3.8-5.7 m across (T03@PHJR). At 0.3 the
#: integral swung the nose: a step of rudder turns the c172p about 1°/s in the float, a frame
#: (0.8 s) late, and the heading ran 5-9.5° from side to side in the 10 s before the contact
#: (8 episodes), 5.1 m off the centreline once (CI at 4c3f4e3, seed 6)
ROLL_RUDDER_I = 0.1
#: ... and the fraction of a step the rounding drops carried to the next frame: what the
#: integral was for, without its swing (0.6 steps a degree rounds anything under 0.8° to none)
ROLL_RUDDER_CARRIES = True
#: on final the nose is held this much (deg) left of the centreline's heading, against the
#: slip the reckoning takes (`_pattern.APPROACH_SLIP_DEG`). Learnt by the intercept's integral
#: alone, the c172p held 4 m right of the centreline from 600 to 350 m out, or crossed it 570 m
#: out with 0.6° of the 1.5° learnt and flared 6.3 m the other side (T03@PHJR)
FINAL_CRAB_DEG = APPROACH_SLIP_DEG
#: from the flare to the contact the track ran 0.0-0.5° right of the nose (0.37° on average, 6
#: episodes, the true positions against the true heading): a reckoning that took none was 2.3-3.5
#: m left of the truth at the contact (T03@PHJR). The reckoning takes it, and the rudder holds
#: the nose that much left of the runway's heading
FLOAT_SLIP_DEG = 0.4
#: on final, the intercept added near the centreline (deg per metre off it, and its reach in
#: deg): at T05's 0.05°/m (0.75° in all at 5 m off, with the intercept's 0.1°/m) the heading
#: asked was within the heading indicator's quarter degrees and the rudder's rounding of what
#: the c172p held, and it flew on 3-9 m off the centreline it knew it was off: at 50 ft 4.1 m
#: off on average (1.3-9.2 m, 14 episodes), the reckoning within 2.2 m of the truth (T03@PHJR).
#: Four times that, within 1° in all, closes small offsets and leaves the large ones as they were
FINAL_NEAR_DEG_PER_M, FINAL_NEAR_MAX_DEG = 0.2, 1.0
#: the sky share of the attitude indicator with the c172p level (T02's, on its wheels)
LEVEL_SKY = 0.577


class FlightGearVisualLandingPilot(FlightGearPatternPilot):
    """T03@PHJR on FlightGear: the final from 5 nm, the touchdown in the zone, the stop."""

    name = "reference:fg-visual-landing"
    glide_kt = APPROACH_KT
    path_deg, aim_past_m, approach_throttle = PATH_DEG, AIM_PAST_M, APPROACH_THROTTLE
    flare_pitch_up_deg = FLARE_PITCH_UP_DEG
    flare_bank_p, flare_bank_scale, flare_untrims_aileron = FLARE_BANK_P, FLARE_BANK_SCALE, True
    flare_untrims_with_power = FLARE_UNTRIMS_WITH_POWER
    flare_pitch_p, flare_by_trim, flare_trim_paired = FLARE_PITCH_P, FLARE_BY_TRIM, FLARE_TRIM_PAIRED
    roll_steer_deg_per_m, roll_runway_hdg_mag = ROLL_STEER_DEG_PER_M, ROLL_RUNWAY_HDG_MAG
    roll_rudder_i, final_crab_deg = ROLL_RUDDER_I, FINAL_CRAB_DEG
    roll_rudder_carries = ROLL_RUDDER_CARRIES
    final_near_deg_per_m, final_near_max_deg = FINAL_NEAR_DEG_PER_M, FINAL_NEAR_MAX_DEG
    look_alt_scaled_within_m = LOOK_ALT_SCALED_WITHIN_M
    look_seen_bias_m, look_ft_min = LOOK_SEEN_BIAS_M, LOOK_FT_MIN
    float_slip_deg = FLOAT_SLIP_DEG

    def __init__(self, *_: object) -> None:
        super().__init__()
        self.leg = "final"
        self.x_m = self.y_m = 0.0  # from 04R's threshold, not T05's start
        self.move_m(START_ALONG_M, 0.0)
        self.port: AgentPortClient | None = None
        self.t_frame = -10.0

    def glide_steer(self, dg: float, h: float) -> tuple[float, float, float]:
        """T05's final; the whole screen saved every 2 s to `SIMBRIDGE_FG_FRAMES` if set."""
        frames = os.environ.get("SIMBRIDGE_FG_FRAMES")
        if frames and self.port is not None and (self.t_dr or 0.0) - self.t_frame >= 2.0:
            self.t_frame = self.t_dr or 0.0
            along, left = self.along_left_m()
            shot = self.port.screenshot("png").to_array()
            cv2.imwrite(f"{frames}/f{self.t_frame:06.1f}_{along:.0f}_{left:.0f}_{h:.0f}.png", shot)
        return super().glide_steer(dg, h)

    def glide_rudder(self, hdg_err: float, yaw_rate: float) -> float | None:
        """On short final the rudder turns the nose onto the heading asked."""
        along, _ = self.along_left_m()
        if along < -SHORT_FINAL_RUDDER_FROM_M:
            return None
        steps = SHORT_FINAL_RUDDER_P * hdg_err - SHORT_FINAL_RUDDER_D * yaw_rate
        return max(-SHORT_FINAL_RUDDER_MAX, min(SHORT_FINAL_RUDDER_MAX, steps))

    def flare_pitch_next(self, pitch_deg: float, top_deg: float, vs_fpm: float, dt_s: float) -> tuple[float, float]:
        """Up by time while sinking (FLARE_RAMP_DEG_S), held while not, never down."""
        if vs_fpm < -FLARE_RAMP_HOLD_FPM:
            pitch_deg = min(FLARE_RAMP_MAX_PITCH, pitch_deg + FLARE_RAMP_DEG_S * dt_s)
        return pitch_deg, max(top_deg, pitch_deg)

    def path_ft(self) -> float:
        """Height (ft above the field) of the path where the aircraft is."""
        along, _ = self.along_left_m()
        return (max(0.0, -along) + self.aim_past_m) * math.tan(math.radians(self.path_deg)) / 0.3048

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        self.port = port
        self.g, self.c = g, c = Gauges(), RudderControls(port)
        self.dg = None
        self.sky_level = [LEVEL_SKY]
        c.centre()
        self.t_dr = 0.0  # the reckoning runs from the hand-over, not from the first reading
        for _ in range(IDLE_CHORDS):
            port.key("Page_Down+3", hold_s=0.02)
        c.pos["throttle"] = -100  # counted from full from here on
        while port.elapsed() < deadline_s - 1.0:  # the altimeter made absolute on its first reading
            shot = port.screenshot("png", region=REGION).to_array()
            if g.read(port.elapsed(), shot) is not None:
                g.alt_ft = absolute_alt_ft(needle_deg(shot, "alt", g.origin), START_ALT_FT) - FIELD_ELEV_FT - WHEELS_FT
                g.history.clear()  # the rates count from the absolute reading on
                break
            port.wait(0.2)
        self.legs.append({"leg": "final", "t": 0.0, "along_m": round(START_ALONG_M), "left_m": 0, "h": round(g.alt_ft)})
        return self.land(port, deadline_s, "landed from the 5 nm final")
