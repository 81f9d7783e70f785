"""Reference pilot for T11@PHJR on FlightGear's c172p: take off from 04R as T02's pilot does,
and when the engine fails, best glide and a turn back to the runway, a power-off landing and a
stop, flown with the keyboard from the panel (default cockpit view, 1280x800).

- **Departure**: `_takeoff.FlightGearTakeoffHoldPilot.fly` (full power, the roll, the rotation,
  the climb at 76 kt on the runway heading), stopped by this pilot when the engine fails.
- **Engine failure**: the tachometer's needle drops by `FAILED_NEEDLE_DEG` from where it stood
  in the climb (a windmilling propeller turns far slower than full power's).
- **Where the aircraft is**: dead-reckoned from the start on 04R's threshold (the task's
  initial state), from the airspeed indicator and the heading indicator (set to the compass at
  the hand-over, so true = magnetic + the variation), the climb's slip (`CLIMB_SLIP_DEG`) and
  FlightGear's default wind as its drift measured (`DEFAULT_WIND_KT`).
- **Glide**: the airspeed by pitch (the pitch cue of the attitude indicator, as T02's climb),
  the nose toward 04R's threshold by bank: `TURN_BANK_DEG` while the turn is big (the turn back
  of the JSBSim pilot `_forced_landing.TurnBackPilot`, toward the runway's side of the
  centreline), `GLIDE_BANK_DEG` once on it, then onto 04R's centreline flown the other way.
- **Landing**: the height is the altimeter's unwrapped reading less the one on the runway
  before the takeoff; from `FLARE_FT` the nose comes up and then follows the sink, kept at
  100-300 ft/min until the wheels are on (the airspeed under `ON_GROUND_KT`); on the roll the
  yoke left where the flare had it while the c172p could still fly, then held back, the rudder
  on the heading, the brakes (`b` held) below `BRAKE_BELOW_KT`,
  done once the airspeed needle rests on its stop and the altimeter is still.
"""

from __future__ import annotations

import json
import math
import os
from typing import TYPE_CHECKING

import numpy as np

from simbridge.agents import AgentResult
from simbridge.adapters.flightgear.pilots._gauges import REGION, nearest_quarter_deg, needle_deg
from simbridge.adapters.flightgear.pilots._steep_turn import ELEVATOR_STEP, TRIM_STEP, Controls, Reading
from simbridge.adapters.flightgear.pilots._takeoff import (
    BANK_P,
    HDG_BANK_D,
    SKY_PER_DEG,
    FlightGearTakeoffHoldPilot,
    arc_ias_kt,
)

if TYPE_CHECKING:
    from simbridge import TaskSpec
    from simbridge.agent import AgentPortClient

#: the screen the pilot grabs: the six-pack and, below it, the tachometer
REGION_WITH_TACH = (REGION[0], REGION[1], REGION[2], 700)
#: the needle's fall from its climb position (degrees) that is the failure
FAILED_NEEDLE_DEG = 40.0
#: PHJR 04R: its magnetic heading (the T02@PHJR hold heading), the magnetic variation
#: (FlightGear's model at PHJR: 9.48° E)
RUNWAY_HDG_MAG, VARIATION_DEG = 45.0, 9.48
GLIDE_KT = 68.0
TURN_BANK_DEG, GLIDE_BANK_DEG = 45.0, 20.0
#: bank asked per degree off the heading in the glide
GLIDE_HDG_BANK_P = 1.0
#: elevator (fraction) per degree of pitch off the one asked (T02's climb: 0.012, too soft to
#: hold the glide's airspeed out of the turn back)
GLIDE_PITCH_P = 0.02
#: heading error (deg) under which the turn back is over
TURNED_DEG = 15.0
#: the turn back goes the way the heading error first says; when it is more than this (the
#: threshold about dead astern), toward the side of 04R's centreline the runway lies on from
#: the reckoning (right when the c172p is left of it), and keeps that way until it is over. Always
#: to the left before, it carried the c172p a turn's width (about 230 m) further from the
#: runways: the climb had already put it 200-350 m left of the centreline (its slip and
#: FlightGear's default wind), 04L's side, and the turn took 17 s to bring the nose within 30°
#: of them (T11@PHJR seed 11: the heading item 69.4-69.9 %, 70 % asked, twice)
ONE_WAY_DEG = 150.0
#: how far the track runs right of the heading (deg) in the climb at full power with T02's
#: climb rudder: 1.7-2.7° left with calm stated (T05@PHJR seed 2's upwind; its reckoning was 46 m
#: right of the c172p at the crosswind turn). T11's reckoning takes it from 50 ft to the failure
CLIMB_SLIP_DEG = -2.0
#: FlightGear's default wind at PHJR (from 150°, 3-5 kt), which T11@PHJR does not state. Its
#: drift, measured on the truth of 15 episodes: the track 4.5-4.9° left of the nose in the climb
#: on 055° (1.9-2.2° with calm stated: 2.7° of wind at 77 kt), and 3.2-3.8° right of it on the
#: glide back on 235° (0.3-0.6° with calm stated: 3.1° at 68 kt), so 3.6 kt across both. The
#: reckoning, which took none, put the c172p 20 m right of 04R's centreline at the failure when it
#: was 79 m left (seed 11), and ended its glides 300-515 m left of the runway it aimed at; it
#: moves the aircraft with this wind while airborne
DEFAULT_WIND_FROM_DEG, DEFAULT_WIND_KT = 150.0, 3.6
#: on the way back, after the turn: onto 04R's centreline flown the other way, turned toward it
#: this much (deg) per metre off it, at most GLIDE_INTERCEPT_MAX_DEG. Aimed at the threshold, the
#: line from where the turn ended met the centreline only there, and a glide that ended short
#: ended beside the runways: on the grass short of 04L, where the gear gave way (seed 14; seeds 1
#: and 11 with calm stated)
GLIDE_INTERCEPT_DEG_PER_M, GLIDE_INTERCEPT_MAX_DEG = 0.1, 30.0
#: wheel height (ft, by the altimeter from its reading on the runway, led by ALT_LAG_S of the
#: sink) where the flare starts. The altimeter's reading lags the height by about 1.2 s: in
#: the glide at 760 ft/min the pilot read 40 ft at 23 ft over the ground, and its flare at a
#: read 28 ft came 13 ft up, too late to stop 625 ft/min (T11@PHJR seed 1)
FLARE_FT, ALT_LAG_S = 35.0, 1.2
#: the flare: the nose up this much at once, then moved at FLARE_PITCH_DEG_S to keep the sink
#: within FLARE_SINK_FPM (lo, hi), the pitch followed at FLARE_SLEW_DEG_S at most, up to
#: HOLD_OFF_MAX_PITCH (the tail clear of the ground)
#: (6° at once, then 1°/s, ballooned the c172p from 20 to 31 ft at 64 kt; it then sank at
#: 54 kt with the elevator at the glide's limit of 0.3 and touched at 667 ft/min, T11@PHJR seed 3)
FLARE_PITCH_UP_DEG, FLARE_PITCH_DEG_S, FLARE_SLEW_DEG_S = 3.0, 2.0, 4.0
#: the elevator's reach (fraction, nose up) in the glide and in the flare
GLIDE_ELEV_MAX, FLARE_ELEV_MAX = 0.3, 0.6
FLARE_SINK_FPM = (100.0, 300.0)
#: how far (deg) the flare gives back of the highest pitch it has asked, while barely sinking:
#: given back freely, the c172p levelled at about 12 ft (the altimeter's 25), the nose came down
#: 6° at 2°/s and it flew into the runway at 532-679 ft/min (T11@PHJR seed 5, twice)
FLARE_GIVE_BACK_DEG = 1.5
HOLD_OFF_MAX_PITCH = 9.0
#: in a flare flown trim first, the elevator moves a step only when the trim lags the elevator
#: asked by more than this (fraction). The trim moves about 0.01 a second (a key press takes
#: 0.1 s): by the trim alone the nose sagged from 3.9° to 2.1° as the airspeed went, and the
#: c172p sank onto the runway (T03@PHJR seed 1, 0.55)
FLARE_ELEVATOR_OVER = 0.06


def flare_trim_first(c: Controls, elevator: float) -> dict[str, int]:
    """Steps that give `elevator` (fraction, + nose down) by the trim, the elevator held unless
    the trim lags it by more than FLARE_ELEVATOR_OVER (then one step toward it). `Controls.pitch`
    moves the elevator whenever the trim lags it by half a step: one step (0.05) moved the
    c172p's nose 2-3° at 63 kt, and the flare's pitch cycled between 0.6° and 5.7°."""
    elev = c.pos["elevator"]
    lag = elevator - c.pos["trim"] * TRIM_STEP - elev * ELEVATOR_STEP
    if abs(lag) > FLARE_ELEVATOR_OVER:
        elev += 1 if lag > 0 else -1
    return {"trim": round((elevator - elev * ELEVATOR_STEP) / TRIM_STEP), "elevator": elev}


#: indicated airspeed under which the c172p no longer flies (stall 44-48 KIAS power off): on the
#: wheels, the landing roll
ON_GROUND_KT = 42.0
BRAKE_BELOW_KT = 40.0
#: seconds from the airspeed needle's leaving its arc (36 kt) to the stop, the brakes held: it
#: called done with the c172p still rolling at 30 kt when it waited 3 s (T11@PHJR seed 2)
STOP_AFTER_S = 15.0
KT_MS = 0.514444
#: height above the field (ft, the altimeter's) over which the c172p is taken to fly, not roll
AIRBORNE_FT = 20.0
#: the reach (steps) of the landing rudder's integral
ROLL_RUDDER_I_MAX = 3.0


def lift_lacking(bank_deg: float) -> float:
    """The share of its weight a wing banked this far lacks at the same angle of attack: 1/cos - 1
    (0.41 at 45°, 0.06 at 20°)."""
    return 1.0 / max(0.5, math.cos(math.radians(bank_deg))) - 1.0


def torque_aileron(trimmed_steps: float, throttle_steps: float, throttle_at_flare_steps: float) -> float:
    """The aileron (steps) the glide trimmed in against the engine's torque, scaled by the power
    still on over the power at the flare (throttle steps from full; -100: idle)."""
    power_share = max(0.0, throttle_steps + 100.0) / max(1.0, throttle_at_flare_steps + 100.0)
    return trimmed_steps * min(1.0, power_share)


def turn_back_sign(hdg_err_deg: float, left_of_runway_m: float) -> float:
    """The turn back's way (+1 right, -1 left): the heading error's, unless the threshold is
    within 180 - ONE_WAY_DEG of dead astern; then toward the runway's side of the aircraft
    (right when it is left of the centreline or on it)."""
    if abs(hdg_err_deg) < ONE_WAY_DEG:
        return math.copysign(1.0, hdg_err_deg)
    return 1.0 if left_of_runway_m >= 0.0 else -1.0


def tach_needle_deg(bgr: np.ndarray, origin: tuple[int, int]) -> float:
    """The tachometer needle's angle (degrees clockwise from 12 o'clock), read as the other
    needles are (`_gauges.needle_deg`)."""
    return needle_deg(bgr, "tach", origin)


def needle_fall_deg(before_deg: float, now_deg: float) -> float:
    """How far the needle went counter-clockwise (degrees, -180..180): through 12 o'clock when
    it does. Full power stands at about 53°, a windmilling propeller at about 286° (T11@PHJR)."""
    return (before_deg - now_deg + 180.0) % 360.0 - 180.0


class FlightGearTurnBackPilot(FlightGearTakeoffHoldPilot):
    """T11@PHJR on FlightGear: the T02 departure; at the engine failure best glide, the turn
    back to 04R's threshold, the landing where the glide ends, the stop."""

    name = "reference:fg-turn-back"
    glide_kt = GLIDE_KT
    glide_hdg_bank_p = GLIDE_HDG_BANK_P
    #: rudder steps per degree off the landing's heading from the flare on, and their reach
    roll_rudder_p, roll_rudder_max = 0.3, 4
    #: ... and per degree-second (its integral, within ROLL_RUDDER_I_MAX steps); 0: none
    roll_rudder_i = 0.0
    roll_rudder_i_steps: float  # the integral (steps), from 0 at the start
    #: whether a step's fraction the rounding drops is carried to the next frame (the steps'
    #: mean then follows the law; rounded alone, under 0.8° off at 0.6 steps per degree asks
    #: nothing)
    roll_rudder_carries = False
    roll_rudder_carry: float  # the fraction carried (steps)
    #: the nose raised this much at once when the flare starts (then by the sink)
    flare_pitch_up_deg = FLARE_PITCH_UP_DEG
    #: the flare's wings-level loop: aileron steps per degree of bank, the factor the attitude
    #: indicator's reading is scaled by (1: as read), whether the aileron the glide trimmed in
    #: (its integral) is taken out when the flare starts, and the pitch loop's gain
    flare_bank_p, flare_bank_scale, flare_untrims_aileron = BANK_P, 1.0, False
    #: ... taken out as the throttle closes, not at once (the aileron the engine's torque asks
    #: goes with the power the engine still makes)
    flare_untrims_with_power = False
    flare_pitch_p = GLIDE_PITCH_P
    #: whether the flare pitches trim first (`flare_trim_first`), and whether its trim goes by
    #: both trim keys at once (`Controls.paired`: twice the steps a frame in as many taps)
    flare_by_trim, flare_trim_paired = False, False
    #: the wind (kt, from DEFAULT_WIND_FROM_DEG) the reckoning moves the aircraft by; 0: none
    reckoned_wind_kt = DEFAULT_WIND_KT
    #: the true heading (deg) of the runway frame the reckoning is read in (`along_left_m`):
    #: 04R's as T02's hold heading flies it, 045 magnetic
    runway_true_deg = RUNWAY_HDG_MAG + VARIATION_DEG

    def glide_rudder(self, hdg_err: float, yaw_rate: float) -> float | None:
        """Rudder steps toward the glide's heading before the flare; None: centred."""
        return None

    def roll_rudder(self, roll_err: float, yaw_rate: float, dt_s: float) -> int:
        """Rudder steps from the flare to the stop: `roll_rudder_p` per degree off the landing's
        heading, less half a step per degree a second of yaw, plus the integral
        (`roll_rudder_i`). On the proportional term alone the float's nose stood 0.7-2.1° left of
        04R's heading in 7 of 9 episodes, the rudder's mean half a step right (T03@PHJR)."""
        i = self.roll_rudder_i_steps + self.roll_rudder_i * roll_err * dt_s
        self.roll_rudder_i_steps = float(np.clip(i, -ROLL_RUDDER_I_MAX, ROLL_RUDDER_I_MAX))
        rudder = self.roll_rudder_p * roll_err - 0.5 * yaw_rate + self.roll_rudder_i_steps
        if self.roll_rudder_carries:
            rudder += self.roll_rudder_carry
        steps = int(np.clip(round(rudder), -self.roll_rudder_max, self.roll_rudder_max))
        if self.roll_rudder_carries:
            self.roll_rudder_carry = float(np.clip(rudder - steps, -0.5, 0.5))
        return steps

    def flare_pitch_next(self, pitch_deg: float, top_deg: float, vs_fpm: float, dt_s: float) -> tuple[float, float]:
        """The flare's pitch asked after `dt_s` and the highest asked so far: up at
        FLARE_PITCH_DEG_S while sinking faster than FLARE_SINK_FPM, down as fast while barely
        sinking, never more than FLARE_GIVE_BACK_DEG under the highest."""
        if vs_fpm < -FLARE_SINK_FPM[1]:
            pitch_deg += FLARE_PITCH_DEG_S * dt_s
        elif vs_fpm > -FLARE_SINK_FPM[0]:
            pitch_deg -= FLARE_PITCH_DEG_S * dt_s
        top_deg = max(top_deg, pitch_deg)
        return float(np.clip(pitch_deg, top_deg - FLARE_GIVE_BACK_DEG, HOLD_OFF_MAX_PITCH)), top_deg

    def __init__(self, *_: object) -> None:
        super().__init__()
        self.x_m = self.y_m = 0.0  # east, north of the start (04R's threshold)
        self.t_dr: float | None = None
        self.tach_climb: list[float] = []
        self.failed: dict | None = None
        self.turning, self.turn_sign = True, 0.0  # the glide's turn back: under way, which way
        #: how far the track runs right of the heading (deg): the c172p's slip at the power it has
        self.slip_deg = 0.0
        self.roll_rudder_i_steps = self.roll_rudder_carry = 0.0

    def along_left_m(self) -> tuple[float, float]:
        """(metres along 04R from its threshold, metres left of its centreline), reckoned, in
        the frame of `runway_true_deg`."""
        h = math.radians(self.runway_true_deg)
        along = self.x_m * math.sin(h) + self.y_m * math.cos(h)
        left = -(self.x_m * math.cos(h) - self.y_m * math.sin(h))
        return along, left

    def _dump(self) -> None:
        dump = os.environ.get("SIMBRIDGE_FG_T11_TRACE")
        if dump:
            with open(dump, "w") as f:
                json.dump(self.trace, f)

    def _reckon(self, r: Reading, hdg_mag: float | None) -> None:
        """Move the dead-reckoned position on by the airspeed since the last reading."""
        if self.t_dr is not None and hdg_mag is not None:
            dt = r.t_s - self.t_dr
            ias = arc_ias_kt(r.ias_kt)
            tas_ms = ias * KT_MS * (1.0 + 0.02 * max(0.0, r.alt_ft) / 1000.0)
            hdg = math.radians(hdg_mag + VARIATION_DEG + self.slip_deg)
            self.x_m += tas_ms * math.sin(hdg) * dt
            self.y_m += tas_ms * math.cos(hdg) * dt
            if r.alt_ft > AIRBORNE_FT and self.reckoned_wind_kt:  # the wind moves what flies
                to = math.radians(DEFAULT_WIND_FROM_DEG + 180.0)
                self.x_m += self.reckoned_wind_kt * KT_MS * math.sin(to) * dt
                self.y_m += self.reckoned_wind_kt * KT_MS * math.cos(to) * dt
        self.t_dr = r.t_s

    def _engine_failed(self, r: Reading, shot: np.ndarray) -> bool:
        airborne = r.alt_ft > 50.0
        self.slip_deg = CLIMB_SLIP_DEG if airborne and not self.failed else 0.0
        self._reckon(r, self.dg)
        needle = tach_needle_deg(shot, (REGION[0], REGION[1]))
        if airborne and not self.failed:
            fall = needle_fall_deg(float(np.median(self.tach_climb[-20:])), needle) if self.tach_climb else 0.0
            if len(self.tach_climb) >= 5 and fall > FAILED_NEEDLE_DEG:
                self.failed = {
                    "t": r.t_s,
                    "height_ft": round(r.alt_ft),
                    "x_m": self.x_m,
                    "y_m": self.y_m,
                    "tach_deg": needle,
                }
                self.slip_deg = 0.0  # the propeller windmills: no more of the climb's slip
                return True
            self.tach_climb.append(needle)
        return False

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        phase, _ = self.fly(
            port, deadline_s, RUNWAY_HDG_MAG, 3000.0, 90.0, region=REGION_WITH_TACH, stop=self._engine_failed
        )
        if not self.failed:
            port.give_up(f"the engine did not fail (ended in phase {phase})")
            return "give_up"
        return self.land(port, deadline_s, f"engine failed at {self.failed['height_ft']} ft: turned back")

    def land(self, port: "AgentPortClient", deadline_s: float, done_as: str) -> AgentResult:
        """`glide_and_land`; done, saying `done_as` and where it stopped, once stopped, else given up."""
        how = self.glide_and_land(port, deadline_s)
        if how.startswith("stopped"):
            port.done(f"{done_as}, {how}")
            return "done"
        port.give_up(how)
        return "give_up"

    def glide_steer(self, dg: float, h: float) -> tuple[float, float, float]:
        """(the heading to fly, degrees to turn right to it, the bank allowed) in the glide: the
        nose on 04R's threshold while turning back one way round, then onto 04R's centreline
        flown the other way; over the threshold, 22L's heading."""
        brg_true = math.degrees(math.atan2(-self.x_m, -self.y_m)) % 360.0
        far = math.hypot(self.x_m, self.y_m) > 300.0
        hdg_target = (brg_true - VARIATION_DEG) % 360.0 if far else (RUNWAY_HDG_MAG + 180.0) % 360.0
        if far and not self.turning:  # turned back: onto the centreline, not at the threshold
            right_m = -self.along_left_m()[1]  # right of 04R: left of the line flown back
            k, top = GLIDE_INTERCEPT_DEG_PER_M, GLIDE_INTERCEPT_MAX_DEG
            hdg_target = (RUNWAY_HDG_MAG + 180.0 + float(np.clip(k * right_m, -top, top))) % 360.0
        hdg_err = (hdg_target - dg + 180.0) % 360.0 - 180.0
        if self.turning:
            # one way round: with the threshold nearly dead astern the error's sign flipped frame
            # to frame, the bank asked swung ±5° and the c172p flew on away from the runway for
            # 20 s (T11@PHJR seed 2, heading item 0.64)
            if self.turn_sign == 0.0:
                self.turn_sign = turn_back_sign(hdg_err, self.along_left_m()[1])
            if hdg_err * self.turn_sign < 0.0 and abs(hdg_err) > 90.0:
                hdg_err += 360.0 * self.turn_sign
            if abs(hdg_err) < TURNED_DEG:
                self.turning = False
        lim = (TURN_BANK_DEG if self.turning else GLIDE_BANK_DEG) if h > 200.0 else 10.0
        return hdg_target, hdg_err, lim

    def glide_power(self, want: dict[str, int], mode: str, h: float) -> None:
        """The throttle in the glide and the landing: the engine has failed, the lever stays."""

    def look_out(self, port: "AgentPortClient", r: Reading, mode: str, dg: float, h: float) -> None:
        """Each frame of the glide and the landing, before the steering: a look out of the window
        that may correct the reckoning (the turn back flies the reckoning alone)."""

    def roll_heading(self, flare_dg: float) -> float:
        """The heading the rudder keeps from the flare to the stop, each frame: the one the
        flare started on (`flare_dg`; the turn back lands where the glide ends)."""
        return flare_dg

    def glide_and_land(self, port: "AgentPortClient", deadline_s: float) -> str:
        """Best glide toward 04R's threshold, the flare, the landing and the stop."""
        g, c, k = self.g, self.c, self.gains
        dg = self.dg
        want: dict[str, int] = {"rudder": 0, "throttle": c.pos["throttle"]}
        mode = "glide"
        self.turning, self.turn_sign = True, 0.0
        pitch_i, elev_i, ail_i = -3.0, 0.0, 0.0
        ail_torque, thr_flare = 0.0, 0.0  # the glide's aileron integral, the throttle, at the flare
        flare_pitch = flare_top = want_pitch_now = 0.0
        braking = False
        level_sky = float(np.median(self.sky_level)) if self.sky_level else 0.5
        roll_hdg: float | None = None  # the heading the landing roll keeps
        t_prev: float | None = None
        still_since: float | None = None
        try:
            while port.elapsed() < deadline_s - 1.0:
                shot = port.screenshot("png", region=REGION).to_array()
                r = g.read(port.elapsed(), shot)
                if r is None:
                    port.wait(0.2)
                    continue
                assert g.dg_prev_deg is not None
                dg = self.dg = nearest_quarter_deg(g.dg_prev_deg, dg if dg is not None else RUNWAY_HDG_MAG)
                self._reckon(r, dg)
                t = r.t_s
                dt = min(1.0, t - t_prev) if t_prev is not None else 0.0
                t_prev = t
                ias = arc_ias_kt(r.ias_kt)
                h = r.alt_ft  # wheel height: the altimeter from its reading on the runway
                vs = g.rate("alt_ft") * 60.0
                yaw_rate = g.rate("turned_deg", 1.0)
                roll_rate = g.rate("bank_deg", 1.0)
                pitch = (r.sky - level_sky) / SKY_PER_DEG
                self.look_out(port, r, mode, dg, h)
                hdg_target, hdg_err, bank_lim = self.glide_steer(dg, h)
                if mode == "glide" and h + vs / 60.0 * ALT_LAG_S < FLARE_FT:
                    mode, flare_pitch, roll_hdg = "flare", pitch + self.flare_pitch_up_deg, dg
                    flare_top = flare_pitch
                    want_pitch_now = pitch
                    if self.flare_untrims_aileron:
                        if self.flare_untrims_with_power:
                            ail_torque, thr_flare = ail_i, float(c.pos["throttle"])
                        ail_i = 0.0
                    if self.flare_trim_paired:
                        c.paired.add("trim")
                if mode == "glide":
                    bank = self.glide_hdg_bank_p * hdg_err - HDG_BANK_D * yaw_rate
                    want_bank = float(np.clip(bank, -bank_lim, bank_lim))
                    # airspeed by pitch: the pitch that holds the glide's speed, found by its integral
                    pitch_i = float(np.clip(pitch_i + 0.08 * (ias - self.glide_kt) * dt, -10.0, 4.0))
                    want_pitch = float(np.clip(pitch_i + 0.5 * (ias - self.glide_kt), -12.0, 6.0))
                elif mode == "flare":
                    # the nose up by FLARE_PITCH_UP_DEG, then up or down slowly by the sink: more
                    # nose while sinking faster than FLARE_SINK_FPM, less while barely sinking
                    # (a law on the sink's error ballooned the c172p 7 ft: the altimeter's rate
                    # lags the pitch by about a second)
                    want_bank = 0.0
                    flare_pitch, flare_top = self.flare_pitch_next(flare_pitch, flare_top, vs, dt)
                    step = FLARE_SLEW_DEG_S * dt
                    want_pitch_now = float(np.clip(flare_pitch, want_pitch_now - step, want_pitch_now + step))
                    want_pitch = want_pitch_now
                    still_since = (still_since or t) if abs(vs) < 60.0 and h < 12.0 else None
                    if (ias and ias < ON_GROUND_KT) or (still_since is not None and t - still_since >= 1.5):
                        mode, still_since = "rollout", None  # slower than it flies, or not sinking near the ground
                else:  # rollout
                    want_bank, want_pitch = 0.0, HOLD_OFF_MAX_PITCH
                    if ias < BRAKE_BELOW_KT and not braking:
                        port.key_down("b")
                        braking = True
                    # the needle leaves its arc at 36 kt: the roll is over STOP_AFTER_S later, braked
                    still = braking and not ias and abs(vs) < 30.0
                    still_since = (still_since or t) if still else None
                    if still_since is not None and t - still_since >= STOP_AFTER_S:
                        return f"stopped at {self.x_m:.0f} m E, {self.y_m:.0f} m N of the threshold"
                flaring = mode == "flare"
                scale = self.flare_bank_scale if flaring else 1.0
                err = want_bank - scale * r.bank_deg
                ail_i = float(np.clip(ail_i + k.bank_i * err * dt, -1.5, 1.5))
                bank_p = self.flare_bank_p if flaring else BANK_P
                ail = bank_p * err - k.bank_d * scale * roll_rate + ail_i
                if ail_torque:
                    ail += torque_aileron(ail_torque, c.pos["throttle"], thr_flare)
                want["aileron"] = int(np.clip(round(ail), -8, 8))
                if roll_hdg is not None:  # from the flare on: the rudder keeps the nose straight
                    roll_err = (self.roll_heading(roll_hdg) - dg + 180.0) % 360.0 - 180.0
                    want["rudder"] = self.roll_rudder(roll_err, yaw_rate, dt)
                elif (steps := self.glide_rudder(hdg_err, yaw_rate)) is not None:
                    want["rudder"] = int(round(steps))
                if mode == "rollout":
                    # the yoke pulled back only once the c172p cannot fly (`ON_GROUND_KT`); above
                    # it, left where the flare had it (elevator and trim). Pulled back at 52 kt
                    # on top of the flare's nose-up trim, it raised the nose to 12.8°, the c172p
                    # flew again to 8 ft and came down at 311 fpm (T03@PHJR seed 7, 0.750)
                    if not ias or ias < ON_GROUND_KT:
                        want["elevator"] = round(-0.3 / ELEVATOR_STEP)
                else:
                    # the integral only with the wings near level: wound up in the 45° turn back
                    # (the nose far below what the airspeed asked), it held the nose 6° high after
                    # it and the airspeed fell to 55 kt (T11@PHJR seed 1)
                    if abs(r.bank_deg) < 15.0:
                        elev_i = float(np.clip(elev_i + 0.002 * (pitch - want_pitch) * dt, -0.15, 0.15))
                    pitch_p = self.flare_pitch_p if flaring else GLIDE_PITCH_P
                    e = pitch_p * (pitch - want_pitch) + k.sky_d * g.rate("sky", 1.0) + elev_i
                    if mode == "glide":
                        # back pressure as the bank builds, as the steep turn's (T09's -0.1 at
                        # 45°), by the lift a banked wing lacks (1/cos - 1). Without it the nose
                        # sank to -4° in the turn back, the airspeed ran to 74 kt while the
                        # airspeed's pitch integral wound to its stop, and after the roll-out
                        # that integral held the nose 3° high and the airspeed at 62.7 kt for
                        # 12 s (T11@PHJR seed 4, failure at 518 ft: best glide 65 %, 70 % asked)
                        e += k.turn_elev * lift_lacking(r.bank_deg) / lift_lacking(TURN_BANK_DEG)
                    reach = FLARE_ELEV_MAX if mode == "flare" else GLIDE_ELEV_MAX
                    e = float(np.clip(e, -reach, 0.15))
                    want.update(flare_trim_first(c, e) if flaring and self.flare_by_trim else c.pitch(e))
                self.glide_power(want, mode, h)
                trim_burst = 8 if "trim" in c.paired else 4
                taps = c.chord(want, {"trim": trim_burst, "aileron": 2, "rudder": 2, "throttle": 4, "elevator": 2})
                if not taps:
                    port.wait(0.05)
                if len(self.trace) % 50 == 0:
                    self._dump()
                self.trace.append(
                    {
                        "t": round(t, 2),
                        "mode": mode,
                        "h": round(h),
                        "vs": round(vs),
                        "ias": round(ias, 1),
                        "pitch": round(pitch, 1),
                        "want_pitch": round(want_pitch, 1),
                        "bank": round(r.bank_deg, 1),
                        "want_bank": round(want_bank, 1),
                        "dg": round(dg, 1),
                        "hdg_target": round(hdg_target, 1),
                        "x": round(self.x_m),
                        "y": round(self.y_m),
                        **{n: v for n, v in c.pos.items()},
                    }
                )
        finally:
            if braking:
                port.key_up("b")
            self._dump()
        return f"not stopped by the deadline (mode {mode})"
