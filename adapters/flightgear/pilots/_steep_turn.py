"""Reference pilot for T09 on FlightGear's c172p: a 360° steep turn to the left at 45° bank,
flown with the keyboard from the panel's gauges (default cockpit view, 1280x800).

Reading (`_fg_gauges`): bank and a pitch cue from the attitude indicator's sky, the altitude
from the altimeter's 100 ft needle (unwrapped: only changes matter), the airspeed from its
needle, and the heading change from the heading indicator's card. Acting: FlightGear's keys
only — Left/Right step the ailerons by 0.05, Up/Down the elevator by 0.05, PageUp/PageDown the
throttle by 0.01, Home/End the pitch trim by 0.001; 5 centres the controls.

FlightGear renders 1-5 frames a second on a loaded machine, so the loop is built for that:
every command is a position (a count of key steps the pilot keeps itself), changed by at
most a step or two a frame, rates come from readings a second or more apart, and the
elevator's coarse steps are refined with trim. The hand-over is not steady (the c172p starts a
phugoid, docs/flightgear.md), so the pilot first holds the wings level and damps the pitch,
and takes the entry altitude, airspeed and heading only when the aircraft is steady.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from simbridge.agents import Agent, AgentResult
from simbridge.adapters.flightgear.pilots._gauges import (
    REGION,
    history_rate,
    angle_step_deg,
    attitude,
    dg_heading_deg,
    ias_kt,
    needle_deg,
)

if TYPE_CHECKING:
    from simbridge import TaskSpec
    from simbridge.agent import AgentPortClient

BANK_TARGET_DEG = -45.0  # left
#: readings kept for rates (a few seconds at 1-10 frames a second)
HISTORY = 40
#: the roll-out is planned, not a fixed lead: rolling level at a steady roll rate p from bank
#: phi turns the aircraft (turn rate / tan phi) * ln(1 / cos phi) / p more (`rollout_turn_deg`).
#: It starts when that, at ROLLOUT_RATE_DEG_S, plus what turns while the aileron builds up
#: reaches what is left of the circle; then each frame the roll rate that
#: ends the turn on the entry heading is asked for (`rollout_roll_rate_deg_s`), so a late or
#: early start corrects itself. (8°/s and 10 steps rolled out at up to 28°/s: the nose swung 7°
#: back against the turn in the 1.4 s after, the bank still 6-9°, and T09's roll-out, the first
#: wings-level sample, came at the swing's far end, 350° turned; at 6°/s and 6 steps, 11°/s at
#: most and 358-359°, T09@PHJR seeds 1-3 and a fourth run)
ROLLOUT_RATE_DEG_S = 6.0
#: ... what turns before the roll builds: the aircraft's response plus the frames the
#: aileron steps take (one a frame, three a loop); 0.3 s rolled out 1-5° long (3 episodes), 0.6 s 3-8° (5)
ROLLOUT_LATENCY_S = 0.9
ROLLOUT_LATENCY_FRAMES = 3.0
ROLLOUT_RATE_RANGE_DEG_S = (3.0, 20.0)
#: roll rate per aileron step (0.05) of the c172p at 80-90 kt, measured: 8 steps roll ~19°/s
ROLL_DEG_S_PER_STEP = 2.4
ROLLOUT_MAX_STEPS = 6
#: below this bank the roll-out steers by roll rate, and below ROLLOUT_CENTRE_DEG (as read:
#: the indicator reads 2-3° shallow while rolling) it centres the controls
ROLLOUT_LEVEL_DEG_HOLD = 10.0
ROLLOUT_CENTRE_DEG = 2.0
#: the roll-in holds this much left aileron until the bank passes ROLL_IN_UNTIL_DEG
ROLL_IN_STEPS = 6
ROLL_IN_UNTIL_DEG = 30.0
#: the heading card against the aircraft's heading (1.0: read from key frames, see `Gauges`)
CARD_LAG = 1.0
#: the bank a coordinated turn's rate shows, scaled to the true bank: the card's rate and the
#: indicated airspeed read ~3° shallow at 45° (mean of two episodes) without it
RATE_BANK_GAIN = 1.08
#: how fast (1/s) the attitude indicator's offset from the rate bank is learnt in the turn:
#: FlightGear's gyro drifts ±5° over ten seconds of a steep turn
AI_OFFSET_RATE_TURN = 0.3
AI_OFFSET_RATE = 0.05
AILERON_STEP = 0.05
ELEVATOR_STEP = 0.05
THROTTLE_STEP = 0.01
TRIM_STEP = 0.001
#: a steep turn needs more lift: back pressure and power added at roll-in


def rollout_turn_deg(bank_deg: float, turn_rate_deg_s: float, roll_rate_deg_s: float) -> float:
    """Heading change (deg) while rolling level from `bank_deg` at a steady `roll_rate_deg_s`,
    for a coordinated turn now turning at `turn_rate_deg_s` (the turn rate goes with tan bank)."""
    phi = math.radians(min(abs(bank_deg), 80.0))
    if phi < 1e-3 or roll_rate_deg_s <= 0:
        return 0.0
    return abs(turn_rate_deg_s) / math.tan(phi) * -math.log(math.cos(phi)) / math.radians(roll_rate_deg_s)


def rollout_roll_rate_deg_s(bank_deg: float, turn_rate_deg_s: float, left_deg: float) -> float:
    """The steady roll rate (deg/s) that ends the turn `left_deg` further on, within
    ROLLOUT_RATE_RANGE_DEG_S (the inverse of `rollout_turn_deg`)."""
    lo, hi = ROLLOUT_RATE_RANGE_DEG_S
    phi = math.radians(min(abs(bank_deg), 80.0))
    if phi < 1e-3:
        return lo
    if left_deg <= 0.5:
        return hi
    need = math.degrees(abs(turn_rate_deg_s) / math.tan(phi) * -math.log(math.cos(phi)) / left_deg)
    return float(np.clip(need, lo, hi))


@dataclass
class Reading:
    t_s: float
    bank_deg: float
    sky: float
    alt_ft: float  # relative to the first reading (the needle is unwrapped)
    ias_kt: float
    turned_deg: float  # heading change since the first reading, positive = right


@dataclass
class Gauges:
    """Reads the six-pack each frame and keeps the unwrapped altitude and heading change."""

    origin: tuple[int, int] = (REGION[0], REGION[1])
    alt_needle_deg: float | None = None
    alt_ft: float = 0.0
    dg_prev_deg: float | None = None  # the heading card's last reading (modulo 90°)
    turned_deg: float = 0.0
    history: list[Reading] = field(default_factory=list)  # the last HISTORY readings

    def read(self, t_s: float, bgr: np.ndarray) -> Reading | None:
        att = attitude(bgr, self.origin)
        if att is None:
            return None
        a = needle_deg(bgr, "alt", self.origin)
        if self.alt_needle_deg is not None:
            self.alt_ft += angle_step_deg(self.alt_needle_deg, a) * 1000.0 / 360.0
        self.alt_needle_deg = a
        # the card read against its reference crop each frame (to about 1°, modulo 90°) and the
        # steps between readings summed: the sum is the last reading less the first, so it does
        # not drift. Summing the card's turn matched frame to frame (or against key frames)
        # lost 11° round T09's circle (seed 2) and 38° on T02's take-off roll. The turn rate's
        # prediction picks the quarter of each step, good to 45° between two frames; after a
        # long gap (a stalled simulator) the rate is taken over a span as long as the gap.
        dg = dg_heading_deg(bgr, self.origin)
        if self.dg_prev_deg is not None:
            gap_s = t_s - self.history[-1].t_s if self.history else 0.0
            ahead = self.rate("turned_deg", max(1.5, gap_s)) * gap_s
            self.turned_deg += ahead + ((dg - self.dg_prev_deg - ahead + 45.0) % 90.0 - 45.0)
        self.dg_prev_deg = dg
        r = Reading(t_s, att[0], att[1], self.alt_ft, ias_kt(bgr, self.origin), self.turned_deg)
        self.history = [*self.history[-(HISTORY - 1) :], r]
        return r

    def rate(self, attr: str, span_s: float = 1.5) -> float:
        """d(attr)/dt per second over the last `span_s` (least squares over the readings)."""
        return history_rate(self.history, attr, span_s)


class Controls:
    """FlightGear's keyboard controls as positions the pilot counts itself (centred at start).

    One step of each control a frame, pressed together as one chord held for a simulator
    frame: a tap released inside the frame it was pressed in is not reliably one step
    (FlightGear then saw a burst of repeats), and one chord a frame keeps the loop at two
    frames a turn even at 2 fps."""

    KEYS = {
        "aileron": ("Right", "Left"),
        "elevator": ("Up", "Down"),
        "trim": ("Home", "End"),
        "throttle": ("Page_Up", "Page_Down"),
    }

    #: a second key with the same binding (keyboard.xml: 7 and 1 trim as Home and End do, 0.001
    #: a press), pressed in the same chord as the first when the control is `paired`: two steps a
    #: tap
    SECOND_KEYS = {"trim": ("7", "1")}

    def __init__(self, port: "AgentPortClient") -> None:
        self.port = port
        # steps from the hand-over; + = right, nose down, nose down, more power
        self.pos = {"aileron": 0, "elevator": 0, "trim": 0, "throttle": 0}
        #: controls moved by both their keys at once (SECOND_KEYS)
        self.paired: set[str] = set()

    def centre(self) -> None:
        # "5", not keypad 5: the agent port sends KP_5 as Shift + the keypad key, which
        # FlightGear takes as Shift+5 and ignores (checked over telnet: the ailerons stayed put)
        self.port.key("5", hold_s=0.05)
        self.pos["aileron"] = self.pos["elevator"] = 0

    def pitch(self, elevator: float) -> dict[str, int]:
        """Steps that give `elevator` (fraction, + nose down): the trim (0.001 a step) takes all
        of it, the elevator (0.05 a step) what the trim has not reached yet. With the trim moved
        only while the elevator was off centre, an elevator rounded to zero left a standing
        altitude error of 160 ft (P13@PHJR seed 1)."""
        return {
            "trim": round(elevator / TRIM_STEP),
            "elevator": round((elevator - self.pos["trim"] * TRIM_STEP) / ELEVATOR_STEP),
        }

    def chord(self, want: dict[str, int], burst: dict[str, int] | None = None) -> int:
        """Move each control towards `want`, one step (or `burst[name]`); the number of taps
        pressed (each lasts a simulator frame), 0 if none moves."""
        keys: list[str] = []
        for name, target in want.items():
            most = (burst or {}).get(name, 1)
            d = max(-most, min(most, target - self.pos[name]))
            if d:
                way = 0 if d > 0 else 1
                if name in self.paired:  # half the steps on each key: one tap moves it twice
                    keys += [self.SECOND_KEYS[name][way]] * (abs(d) // 2)
                    keys += [self.KEYS[name][way]] * (abs(d) - abs(d) // 2)
                else:
                    keys += [self.KEYS[name][way]] * abs(d)
                self.pos[name] += d
        if not keys:
            return 0
        # repeated keys go as taps one frame apart, different keys as one chord
        taps = max(keys.count(k) for k in keys)
        for i in range(taps):
            combo = "+".join(sorted({k for k in keys if keys.count(k) > i}))
            self.port.key(combo, hold_s=0.02)
        return taps


@dataclass
class Gains:
    """Per-frame control law constants (tuned on FlightGear at 1-5 fps)."""

    bank_p: float = 1.0 / 12.0  # aileron steps per degree of bank error
    bank_i: float = 1.0 / 40.0  # aileron steps per degree-second
    bank_d: float = 1.0 / 6.0  # aileron steps per degree/s of roll rate
    alt_p: float = 0.0007  # elevator (fraction) per ft above the entry altitude: 70 ft, 0.05
    vs_d: float = 0.0001  # elevator per ft/min climbing: 500 ft/min, 0.05
    sky_d: float = 0.4  # elevator per unit/s of the sky share growing (pitch-rate damping)
    elev_max: float = 0.15  # the feedback's authority either way
    turn_elev: float = -0.1  # back pressure in the turn (feed-forward, elevator keys)
    # power added in the turn (feed-forward): on the cruise start's 0.87 throttle at 100 kt, the
    # 0.12 tuned on the old 0.7 start climbed the c172p 100-105 ft in the turn; 0.05 holds the
    # altitude within 21-75 ft and the airspeed within 1.8-3.2 kt (T09, T09@PHJR, 6 trials)
    turn_throttle: float = 0.05
    ias_p: float = 1.0  # throttle steps per kt below the entry airspeed
    ias_d: float = 2.0  # throttle steps per kt/s of airspeed falling


class FlightGearSteepTurnPilot(Agent):
    """T09 on FlightGear: settle, roll into 45° left, hold altitude and airspeed round the
    circle, roll out on the entry heading, hold wings level."""

    name = "reference:fg-steep-turn"

    def __init__(self, bank_deg: float = BANK_TARGET_DEG, gains: Gains | None = None) -> None:
        self.bank_deg = bank_deg
        self.gains = gains or Gains()
        self.trace: list[dict] = []

    def _frame(self, port: "AgentPortClient", g: Gauges) -> Reading | None:
        shot = port.screenshot("png", region=REGION).to_array()
        return g.read(port.elapsed(), shot)

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        g, c, k = Gauges(), Controls(port), self.gains
        c.centre()
        phase, t_phase = "settle", port.elapsed()
        alt0: float | None = None
        ias0 = 0.0
        turned0 = 0.0
        ai_offset = 0.0  # what the attitude indicator reads minus the bank the turn rate shows
        ail_i = 0.0  # aileron integral (steps)
        t_prev: float | None = None
        steady_since: float | None = None
        trim_entry: int | None = None
        rolled_in = False
        frame_s, taps_prev = 0.2, 1
        roll_i = 0.0  # roll-out aileron steps from the roll-rate shortfall
        try:
            while port.elapsed() < deadline_s - 2.0:
                r = self._frame(port, g)
                if r is None:
                    port.wait(0.2)
                    continue
                t = r.t_s
                dt = min(1.0, t - t_prev) if t_prev is not None else 0.0
                t_prev = t
                vs_fpm = g.rate("alt_ft") * 60.0
                roll_rate = g.rate("bank_deg", 1.0)
                turn_rate = -g.rate("turned_deg", 2.0)  # degrees/s, positive = left
                if alt0 is None:
                    alt0 = r.alt_ft
                # -- bank: the indicator for speed, the turn rate (a coordinated turn's bank) for truth
                tas_ms = r.ias_kt * 0.5144 * 1.05
                w_rad = math.radians(turn_rate * CARD_LAG) * RATE_BANK_GAIN
                rate_bank = -math.degrees(math.atan(w_rad * tas_ms / 9.81))
                if abs(roll_rate) < 3.0 and dt:
                    steep = phase == "turn" and abs(r.bank_deg) > ROLL_IN_UNTIL_DEG
                    gain = AI_OFFSET_RATE_TURN if steep else AI_OFFSET_RATE
                    ai_offset += min(1.0, gain * dt) * ((r.bank_deg - rate_bank) - ai_offset)
                bank = r.bank_deg - ai_offset
                want_bank = self.bank_deg if phase == "turn" else 0.0
                err = want_bank - bank
                ail_i = float(np.clip(ail_i + k.bank_i * err * dt, -1.5, 1.5))
                ail = k.bank_p * err - k.bank_d * roll_rate + ail_i
                want = {"aileron": int(np.clip(round(ail), -4, 4))}
                # what is left of the circle, on the aircraft's heading (the card lags)
                left_deg = 360.0 - (turned0 - r.turned_deg) * CARD_LAG
                if phase == "turn" and not rolled_in:
                    if bank < -ROLL_IN_UNTIL_DEG:
                        rolled_in, ail_i = True, 0.0
                    else:
                        want["aileron"] = -ROLL_IN_STEPS * int(np.sign(-self.bank_deg))
                if phase == "rollout" and abs(bank) >= ROLLOUT_LEVEL_DEG_HOLD:
                    p_want = rollout_roll_rate_deg_s(bank, turn_rate * CARD_LAG, left_deg - turn_rate * dt)
                    # feed-forward from the measured steps-to-rate, plus what the roll rate
                    # (towards level) still lacks, integrated: the c172p rolls slower per step
                    # early in the roll-out than at 8 steps
                    p_now = roll_rate * float(np.sign(-self.bank_deg))
                    roll_i = float(np.clip(roll_i + 0.5 * dt * (p_want - p_now) / ROLL_DEG_S_PER_STEP, -2.0, 4.0))
                    steps = int(np.clip(round(p_want / ROLL_DEG_S_PER_STEP + roll_i), 1, ROLLOUT_MAX_STEPS))
                    want["aileron"] = steps * int(np.sign(-self.bank_deg))
                elif phase in ("rollout", "level"):
                    # by roll rate, not by the counted position: a step FlightGear missed (or
                    # took twice) would otherwise leave the wings banked with the count "right"
                    most = ROLLOUT_RATE_DEG_S if phase == "rollout" else 2.0
                    # brisk to the last degrees in the roll-out: T09's manoeuvre ends at the first
                    # wings-level sample, and a bank hanging at 5-8° drifts the heading
                    rate_want = float(np.clip((0.8 if phase == "rollout" else 0.4) * err, -most, most))
                    d = rate_want - roll_rate
                    nudge = int(np.sign(d)) * (2 if abs(d) > 6.0 else 1) if abs(d) > 1.5 else 0
                    want["aileron"] = c.pos["aileron"] + nudge
                # -- pitch: the elevator from altitude error, vertical speed and the sky cue's
                # rate, plus back pressure in the turn; the trim slowly takes over what is held
                fb = k.alt_p * (r.alt_ft - alt0) + k.vs_d * vs_fpm + k.sky_d * g.rate("sky", 1.0)
                fb = float(np.clip(fb, -k.elev_max, k.elev_max))
                # back pressure as the bank builds: the lift a banked wing lacks
                # (through the roll-out too: the wing still lacks lift until it is level, and
                # dropping it at once sank the aircraft 10-20 ft while rolling out)
                banked = phase in ("turn", "rollout")
                ff = k.turn_elev * min(1.0, abs(bank) / abs(self.bank_deg)) if banked else 0.0
                e = fb + ff - c.pos["trim"] * TRIM_STEP
                want["elevator"] = round(e / ELEVATOR_STEP)
                want["trim"] = c.pos["trim"] + int(np.sign(c.pos["elevator"]))
                if phase in ("rollout", "level") and trim_entry is not None:
                    want["trim"] = trim_entry  # the turn's back pressure comes off with the bank
                # -- power: the entry airspeed, with more power in the turn
                # (kept through the roll-out: the airspeed is judged until the wings are level)
                extra = k.turn_throttle / THROTTLE_STEP if phase in ("turn", "rollout") else 0.0
                thr = extra + k.ias_p * (ias0 - r.ias_kt) - k.ias_d * g.rate("ias_kt", 2.0)
                want["throttle"] = int(np.clip(round(thr), -30, 30)) if phase != "settle" else 0
                # in the roll-out every frame goes to the aileron: the trim comes back one step a
                # loop (the elevator takes up the rest at once), not in a burst of frames
                burst = {"trim": 1, "aileron": 3} if phase == "rollout" else {"trim": 4, "aileron": 1}
                taps = c.chord(want, burst)
                if not taps:
                    port.wait(0.05)
                if dt and phase == "turn":  # simulator seconds a frame (a tap or a wait lasts one)
                    frame_s += 0.2 * (dt / max(1, taps_prev) - frame_s)
                taps_prev = taps
                # -- phases
                if phase == "settle":
                    steady = abs(bank) < 2.0 and abs(vs_fpm) < 150 and abs(r.alt_ft - alt0) < 40
                    steady = steady and abs(g.rate("ias_kt", 3.0)) < 0.4 and abs(turn_rate) < 0.7
                    steady_since = (steady_since or t) if steady else None
                    if t - t_phase > 30.0 or (steady_since is not None and t - steady_since > 3.0):
                        phase, t_phase, turned0, ail_i = "turn", t, r.turned_deg, 0.0
                        trim_entry = c.pos["trim"]
                        c.centre()
                        alt0, ias0 = r.alt_ft, r.ias_kt
                elif phase == "turn":
                    if abs(bank) < 5.0:  # the entry heading is the last wings-level one, as T09 judges
                        turned0 = r.turned_deg
                    # roll out when a roll at ROLLOUT_RATE_DEG_S, started after the aileron
                    # builds up, would end on the entry heading (by the next frame)
                    lead = rollout_turn_deg(bank, turn_rate * CARD_LAG, ROLLOUT_RATE_DEG_S)
                    latency_s = ROLLOUT_LATENCY_S + ROLLOUT_LATENCY_FRAMES * frame_s
                    lead += turn_rate * CARD_LAG * (latency_s + max(dt, 0.1))
                    if rolled_in and left_deg <= lead:
                        # the indicator's correction learnt at 45° does not hold near level
                        phase, t_phase, ail_i, ai_offset = "rollout", t, 0.0, 0.0
                        c.centre()  # the counted positions start again from FlightGear's own zero
                elif phase == "rollout":
                    if abs(bank) < ROLLOUT_CENTRE_DEG:
                        # wings level: FlightGear's own centring puts the ailerons at zero,
                        # whatever the count says (steering on by roll rate would overshoot)
                        phase, t_phase = "level", t
                        c.centre()
                elif phase == "level" and t - t_phase > 5.0:
                    break
                self.trace.append(
                    {
                        "t": round(t, 2),
                        "phase": phase,
                        "bank": round(bank, 1),
                        "ai_off": round(ai_offset, 1),
                        "rate_bank": round(rate_bank, 1),
                        "sky": round(r.sky, 3),
                        "alt": round(r.alt_ft - alt0, 0),
                        "vs": round(vs_fpm),
                        "ias": round(r.ias_kt, 1),
                        "turned": round(turned0 - r.turned_deg, 1),
                        "ail": c.pos["aileron"],
                        "elev": c.pos["elevator"],
                        "trim": c.pos["trim"],
                    }
                )
            result = f"turned {turned0 - g.turned_deg:.0f}° left; ended in phase {phase}"
        finally:
            dump = os.environ.get("SIMBRIDGE_FG_T09_TRACE")
            if dump:
                with open(dump, "w") as f:
                    json.dump(self.trace, f)
        if phase == "level":
            port.done(result)
            return "done"
        port.give_up(result)
        return "give_up"
