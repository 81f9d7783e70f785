"""Reference pilot for T02@PHJR on FlightGear's c172p: take off from runway 04R, climb to
3,000 ft MSL and hold the runway's heading (045° magnetic), 3,000 ft and 90 KIAS, flown with
the keyboard from the six-pack (default cockpit view, 1280x800).

Reading is the T09 pilot's (`_steep_turn.Gauges`): the altitude from the altimeter's needle
(unwrapped from the field elevation the instruction's airport gives), the airspeed from its
needle, the bank and a pitch cue from the attitude indicator, and the heading change from the
heading indicator's card, counted from the lined-up start (the instruction's hold heading is
the runway's). Acting is the T09 pilot's `Controls` (one step of each control a frame), with
the rudder keys added (Enter right, Insert left: the nosewheel steers on the roll).

Phases: full throttle (PageUp, 0.01 a press, clamped at 1), the roll on the runway heading by
rudder with the wings level, rotation at 55 kt, the climb at 76 kt by elevator (the trim takes
over what the elevator holds), heading by bank; above 2,900 ft (less a lead for the climb
rate) the level-off: altitude by elevator, 90 kt by throttle. It ends the episode itself after
HOLD_DONE_S in its own tolerance (tighter than the task's).
"""

from __future__ import annotations

import json
import os
import re
from typing import TYPE_CHECKING

import numpy as np

from simbridge.agents import Agent, AgentResult
from simbridge.adapters.flightgear.pilots._gauges import REGION, nearest_quarter_deg
from simbridge.adapters.flightgear.pilots._steep_turn import (
    ELEVATOR_STEP,
    TRIM_STEP,
    Controls,
    Gains,
    Gauges,
    Reading,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from simbridge import TaskSpec
    from simbridge.agent import AgentPortClient

FIELD_ELEV_FT = 12.0  # PHJR (the task's initial state)
ROTATE_KT, CLIMB_KT = 55.0, 76.0
#: the attitude indicator's sky share per degree of pitch: 0.026, fitted over 880 screenshots
#: of a take-off and climb (pitch 3.6-11.2°) against the simulator's pitch, residual 0.011
#: (T02@PHJR seed 1)
SKY_PER_DEG = 0.026
#: pitch in degrees above the roll's (the c172p sits at about 4° on its wheels): at the
#: rotation, and in the climb at the climb speed with its range (the speed moves it). 0.15 back
#: elevator held to 60 ft pitched the c172p to 21° and it spun in
ROTATE_PITCH_DEG = 4.0
CLIMB_PITCH_DEG, CLIMB_PITCH_RANGE_DEG = 5.0, (1.0, 8.0)
#: in the air: the ailerons' reach (steps of 0.05), and the right rudder held in the full-power
#: climb. With the rudder centred and 3 steps of aileron, the c172p climbed away banked 5-8° left
#: and turned 45° off the runway heading (T02@PHJR seed 1)
AILERON_MAX_STEPS, CLIMB_RUDDER_STEPS = 6, 2
#: bank asked per degree off the heading and per deg/s of turn (damping), and its limit: 1°/°
#: undamped swung ±13° about the heading every 25 s at 3,000 ft (T02@PHJR seed 1), 0.6 with
#: 2.5 s of damping still ±13° every 30 s in the climb
HDG_BANK_P, HDG_BANK_D, BANK_MAX_DEG = 0.35, 3.0, 8.0
#: and per degree-second, within its reach: the climb's right rudder held the heading 6-7°
#: right of the runway's with the proportional bank alone (T02@PHJR seed 1)
HDG_BANK_I, BANK_I_MAX_DEG = 0.02, 4.0
#: elevator per ft.s off the altitude in the level-off: levelled 50-65 ft high, the proportional
#: law alone left it there (T02@PHJR seed 1)
LEVEL_ALT_I = 0.00002
#: aileron steps per degree of bank error (T09's 1/12 let the level-off's power change roll the
#: c172p 7° left and turn it 25° off the heading, T02@PHJR seed 1)
BANK_P = 1.0 / 8.0
#: height above the field (ft) where the rotation hands over to the climb's pitch law
LIFTOFF_FT = 20.0
#: throttle presses from the hand-over's 0.2 to full (FlightGear clamps at 1; extra presses
#: are harmless, a missed one costs 0.01)
FULL_THROTTLE_PRESSES = 90
#: throttle steps taken off at the level-off (1.0 -> about the power of 90 kt level)
LEVEL_THROTTLE_CUT = 40
HOLD_DONE_S = 75.0
#: the airspeed needle below the dial's arc (it rests near 12 o'clock): the linear reading of
#: `_gauges.ias_kt` outside these kt means "slow", not a speed
ASI_ARC_KT = (36.0, 136.0)
#: simulator seconds at full throttle without the airspeed needle coming off its stop before
#: the pilot takes the parking brake to be set (the c172p's cold-and-dark start sets it) and
#: toggles it with `B`
BRAKE_CHECK_S = 20.0
#: the pilot's own tolerance while counting HOLD_DONE_S (the task's: ±100 ft, ±5 kt, ±10°)
OWN_TOL = {"alt": 60.0, "ias": 3.5, "hdg": 6.0}


def arc_ias_kt(ias_kt: float) -> float:
    """The airspeed read off the needle where the dial has a scale (`ASI_ARC_KT`), else 0: the
    needle resting on its stop is "too slow to read", not a speed."""
    return ias_kt if ASI_ARC_KT[0] <= ias_kt <= ASI_ARC_KT[1] else 0.0


class RudderControls(Controls):
    """`Controls` with the rudder keys (FlightGear's Enter / Insert, 0.05 a press); `5` centres
    the rudder with the ailerons and the elevator."""

    KEYS = {**Controls.KEYS, "rudder": ("Return", "Insert")}

    def __init__(self, port: "AgentPortClient") -> None:
        super().__init__(port)
        self.pos["rudder"] = 0

    def centre(self) -> None:
        super().centre()
        self.pos["rudder"] = 0


def parse_targets(text: str) -> tuple[float, float, float]:
    """(heading °, altitude ft, airspeed kt) of the hold from the instruction."""
    hdg = re.search(r"heading\s+(\d{3})", text)
    alt = re.search(r"altitude\s+([\d,]+)", text)
    ias = re.search(r"(\d+)\s*±\s*\d+\s*KIAS", text)
    return (
        float(hdg.group(1)) if hdg else 45.0,
        float(alt.group(1).replace(",", "")) if alt else 3000.0,
        float(ias.group(1)) if ias else 90.0,
    )


class FlightGearTakeoffHoldPilot(Agent):
    """T02@PHJR on FlightGear: take off, climb, level off and hold."""

    name = "reference:fg-takeoff-hold"

    def __init__(self, *_: object) -> None:  # a `py:` factory is handed (arg, task id)
        self.gains = Gains()
        self.trace: list[dict] = []

    def _dump(self) -> None:
        """The pilot's own readings, to `SIMBRIDGE_FG_TRACE` if set (written as it flies, so an
        episode stopped from outside keeps them)."""
        dump = os.environ.get("SIMBRIDGE_FG_TRACE")
        if dump:
            with open(dump, "w") as f:
                json.dump(self.trace, f)

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        hdg_target, alt_target, ias_target = parse_targets(port.task()["instruction"])
        phase, result = self.fly(port, deadline_s, hdg_target, alt_target, ias_target)
        if result:
            port.done(result)
            return "done"
        port.give_up(f"ended in phase {phase}")
        return "give_up"

    def fly(
        self,
        port: "AgentPortClient",
        deadline_s: float,
        hdg_target: float,
        alt_target: float,
        ias_target: float,
        *,
        region: tuple[int, int, int, int] = REGION,
        stop: "Callable[[Reading, np.ndarray], bool] | None" = None,
        heading: "Callable[[], float] | None" = None,
        bank_max_deg: float = BANK_MAX_DEG,
        hold_done_s: float = HOLD_DONE_S,
    ) -> tuple[str, str]:
        """Take off, climb and hold until the hold is done, the deadline, or `stop(reading,
        screenshot)` says so (a departure that goes on differently: T11). `heading()`, when
        given, is the heading to hold from each frame on (a pattern's legs: T05), turned with up
        to `bank_max_deg` of bank; the hold is done after `hold_done_s` in tolerance. The gauges, the controls and the heading indicator's reading
        stay on the pilot (`g`, `c`, `dg`). Returns (the phase it ended in, what was held or "")."""
        self.dg: float | None = None  # the heading indicator, read absolutely (modulo 90°, then continuity)
        g, c, k = Gauges(), RudderControls(port), self.gains
        self.g, self.c = g, c
        dg = self.dg
        c.centre()
        for _ in range(FULL_THROTTLE_PRESSES // 2):
            port.key("Page_Up+9", hold_s=0.02)
        c.pos["throttle"] = 0  # counted from full from here on
        phase, t_phase = "roll", port.elapsed()
        t_prev: float | None = None
        ail_i, elev_i, bank_i, alt_i = 0.0, 0.0, 0.0, 0.0
        sky_level: list[float] = []  # the sky share on the roll (the pitch the climb counts from)
        self.sky_level = sky_level
        t_thr, thr_target = 0.0, 0
        in_tol_since: float | None = None
        brake_presses = 0
        result = ""
        try:
            while port.elapsed() < deadline_s - 2.0:
                shot = port.screenshot("png", region=region).to_array()
                r: Reading | None = g.read(port.elapsed(), shot)
                if r is None:
                    port.wait(0.2)
                    continue
                if stop is not None and stop(r, shot):
                    break
                t = r.t_s
                ias = arc_ias_kt(r.ias_kt)
                dt = min(1.0, t - t_prev) if t_prev is not None else 0.0
                t_prev = t
                alt = FIELD_ELEV_FT + r.alt_ft
                vs_fpm = g.rate("alt_ft") * 60.0
                roll_rate = g.rate("bank_deg", 1.0)
                # the heading from the card read against its reference, not the card's turn summed
                # frame by frame: on the roll the nose swung ±5° a second and the summed turn
                # lost 38° by the climb (T02@PHJR seed 1)
                # (`Gauges` has read the card this frame: its reading, modulo 90°, and its turn)
                assert g.dg_prev_deg is not None
                dg = self.dg = nearest_quarter_deg(g.dg_prev_deg, dg if dg is not None else hdg_target)
                yaw_rate = g.rate("turned_deg", 1.0)
                ias_rate = g.rate("ias_kt", 2.0) if ias else 0.0
                if heading is not None:
                    hdg_target = heading()
                hdg_err = (hdg_target - dg + 180.0) % 360.0 - 180.0  # degrees to turn right
                want: dict[str, int] = {}
                # -- wings: level on the ground, a bank toward the heading in the air
                # one degree of bank a degree off, less the swing: 1°/° undamped swung ±13° about the
                # heading every 25 s at 3,000 ft, the bank reaching 16° (T02@PHJR seed 1)
                # (with headings given, the integral only near the one asked: through a pattern's
                # 90° turns it would wind up to its limit and swing the next leg)
                near = heading is None or abs(hdg_err) < 2.0 * bank_max_deg
                if phase in ("climb", "level") and near:
                    bank_i = float(np.clip(bank_i + HDG_BANK_I * hdg_err * dt, -BANK_I_MAX_DEG, BANK_I_MAX_DEG))
                want_bank = HDG_BANK_P * hdg_err - HDG_BANK_D * yaw_rate + bank_i
                want_bank = float(np.clip(want_bank, -bank_max_deg, bank_max_deg))
                want_bank = 0.0 if phase in ("roll", "rotate") else want_bank
                err = want_bank - r.bank_deg
                ail_i = float(np.clip(ail_i + k.bank_i * err * dt, -1.5, 1.5)) if phase != "roll" else 0.0
                ail_max = 3 if phase == "roll" else AILERON_MAX_STEPS
                want["aileron"] = int(np.clip(round(BANK_P * err - k.bank_d * roll_rate + ail_i), -ail_max, ail_max))
                # -- rudder: the runway heading on the roll, centred in the air
                if phase in ("roll", "rotate"):
                    want["rudder"] = int(np.clip(round(0.3 * hdg_err - 0.5 * yaw_rate), -4, 4))
                else:
                    want["rudder"] = CLIMB_RUDDER_STEPS if phase == "climb" else 0
                # -- pitch
                level_sky = float(np.median(sky_level)) if sky_level else r.sky
                pitch = (r.sky - level_sky) / SKY_PER_DEG
                if phase == "roll":
                    want["elevator"] = 0
                    if ias:
                        sky_level.append(r.sky)
                elif phase in ("rotate", "climb"):
                    # airspeed by pitch, the pitch by elevator: faster than the climb speed, nose up
                    lo, hi = CLIMB_PITCH_RANGE_DEG
                    want_pitch = float(np.clip(CLIMB_PITCH_DEG + 0.5 * (ias - CLIMB_KT), lo, hi))
                    if phase == "rotate":  # lift off at the rotation's pitch, whatever the speed
                        want_pitch = ROTATE_PITCH_DEG
                    elev_i = float(np.clip(elev_i + 0.002 * (pitch - want_pitch) * dt, -0.2, 0.15))
                    e = 0.012 * (pitch - want_pitch) + k.sky_d * g.rate("sky", 1.0) + elev_i
                    e = float(np.clip(e, -0.2, 0.15))
                    if phase == "climb":
                        want.update(c.pitch(e))
                    else:
                        want["elevator"] = round((e - c.pos["trim"] * TRIM_STEP) / ELEVATOR_STEP)
                else:  # level
                    alt_i = float(np.clip(alt_i + LEVEL_ALT_I * (alt - alt_target) * dt, -0.08, 0.08))
                    fb = k.alt_p * (alt - alt_target) + k.vs_d * vs_fpm + k.sky_d * g.rate("sky", 1.0) + alt_i
                    want.update(c.pitch(float(np.clip(fb, -k.elev_max, k.elev_max))))
                    if t - t_thr >= 1.0:  # the throttle by airspeed, a step or a few a second
                        d = 0.6 * (ias_target - ias) - 2.0 * ias_rate
                        thr_target += int(np.clip(round(d), -3, 3))
                        t_thr = t
                    want["throttle"] = thr_target
                taps = c.chord(want, {"trim": 4, "aileron": 1, "rudder": 2, "throttle": 4})
                if not taps:
                    port.wait(0.05)
                # -- phases
                if phase == "roll" and ias >= ROTATE_KT and t - t_phase > 5.0:
                    phase, t_phase = "rotate", t
                elif phase == "roll" and not ias and t - t_phase > BRAKE_CHECK_S * (1 + brake_presses):
                    port.key("B", hold_s=0.1)
                    brake_presses += 1
                elif phase == "rotate" and alt > FIELD_ELEV_FT + LIFTOFF_FT:
                    phase, t_phase = "climb", t
                elif phase == "climb" and alt >= alt_target - 100.0 - max(0.0, vs_fpm) * 0.08:
                    # the power comes off a few steps a frame with the other controls: cut in one
                    # burst of 40 taps, the c172p went 11 s without aileron and turned 17° off
                    phase, t_phase, t_thr = "level", t, t
                    thr_target = c.pos["throttle"] - LEVEL_THROTTLE_CUT
                elif phase == "level":
                    ok = abs(alt - alt_target) < OWN_TOL["alt"] and abs(ias - ias_target) < OWN_TOL["ias"]
                    ok = ok and abs(hdg_err) < OWN_TOL["hdg"]
                    in_tol_since = (in_tol_since or t) if ok else None
                    if in_tol_since is not None and t - in_tol_since >= hold_done_s:
                        result = f"held {hold_done_s:.0f} s at {alt:.0f} ft, {ias:.0f} kt"
                        break
                if len(self.trace) % 50 == 0:
                    self._dump()
                self.trace.append(
                    {
                        "t": round(t, 2),
                        "phase": phase,
                        "bank": round(r.bank_deg, 1),
                        "sky": round(r.sky, 3),
                        "pitch": round(pitch, 1),
                        "alt": round(alt),
                        "vs": round(vs_fpm),
                        "ias": round(ias, 1),
                        "brake": brake_presses,
                        "hdg_err": round(hdg_err, 1),
                        "dg": round(dg, 1),
                        **{n: v for n, v in c.pos.items()},
                    }
                )
        finally:
            self._dump()
        return phase, result
