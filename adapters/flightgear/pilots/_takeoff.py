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
from simbridge.adapters.flightgear.pilots._gauges import REGION
from simbridge.adapters.flightgear.pilots._steep_turn import Controls, Gains, Gauges, Reading

if TYPE_CHECKING:
    from simbridge import TaskSpec
    from simbridge.agent import AgentPortClient

FIELD_ELEV_FT = 12.0  # PHJR (the task's initial state)
ROTATE_KT, CLIMB_KT = 55.0, 76.0
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
ELEVATOR_STEP = 0.05
TRIM_STEP = 0.001


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

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        _hdg, alt_target, ias_target = parse_targets(port.task()["instruction"])
        g, c, k = Gauges(), RudderControls(port), self.gains
        c.centre()
        for _ in range(FULL_THROTTLE_PRESSES // 2):
            port.key("Page_Up+9", hold_s=0.02)
        c.pos["throttle"] = 0  # counted from full from here on
        phase, t_phase = "roll", port.elapsed()
        t_prev: float | None = None
        ail_i, elev_i = 0.0, 0.0
        t_thr = 0.0
        in_tol_since: float | None = None
        brake_presses = 0
        result = ""
        try:
            while port.elapsed() < deadline_s - 2.0:
                shot = port.screenshot("png", region=REGION).to_array()
                r: Reading | None = g.read(port.elapsed(), shot)
                if r is None:
                    port.wait(0.2)
                    continue
                t = r.t_s
                ias = r.ias_kt if ASI_ARC_KT[0] <= r.ias_kt <= ASI_ARC_KT[1] else 0.0
                dt = min(1.0, t - t_prev) if t_prev is not None else 0.0
                t_prev = t
                alt = FIELD_ELEV_FT + r.alt_ft
                vs_fpm = g.rate("alt_ft") * 60.0
                roll_rate = g.rate("bank_deg", 1.0)
                yaw_rate = g.rate("turned_deg", 1.0)
                ias_rate = g.rate("ias_kt", 2.0) if ias else 0.0
                hdg_err = -r.turned_deg  # degrees to turn right to the start (runway) heading
                want: dict[str, int] = {}
                # -- wings: level on the ground, a bank toward the heading in the air
                want_bank = 0.0 if phase in ("roll", "rotate") else float(np.clip(1.0 * hdg_err, -10.0, 10.0))
                err = want_bank - r.bank_deg
                ail_i = float(np.clip(ail_i + k.bank_i * err * dt, -1.5, 1.5)) if phase != "roll" else 0.0
                want["aileron"] = int(np.clip(round(k.bank_p * err - k.bank_d * roll_rate + ail_i), -3, 3))
                # -- rudder: the runway heading on the roll, centred in the air
                if phase in ("roll", "rotate"):
                    want["rudder"] = int(np.clip(round(0.4 * hdg_err - 0.8 * yaw_rate), -5, 5))
                else:
                    want["rudder"] = 0
                # -- pitch
                if phase == "roll":
                    want["elevator"] = 0
                elif phase == "rotate":
                    want["elevator"] = -3
                elif phase == "climb":
                    # airspeed by pitch: above the climb speed, nose up
                    elev_i = float(np.clip(elev_i - 0.002 * (ias - CLIMB_KT) * dt, -0.2, 0.15))
                    e = -0.012 * (ias - CLIMB_KT) - 0.03 * ias_rate + k.sky_d * g.rate("sky", 1.0) + elev_i
                    # never a push near the ground: the climb speed comes with height
                    e = float(np.clip(e, -0.25, 0.2 if alt > FIELD_ELEV_FT + 300.0 else -0.05))
                    e -= c.pos["trim"] * TRIM_STEP
                    want["elevator"] = round(e / ELEVATOR_STEP)
                    want["trim"] = c.pos["trim"] + int(np.sign(c.pos["elevator"]))
                else:  # level
                    fb = k.alt_p * (alt - alt_target) + k.vs_d * vs_fpm + k.sky_d * g.rate("sky", 1.0)
                    fb = float(np.clip(fb, -k.elev_max, k.elev_max))
                    want["elevator"] = round((fb - c.pos["trim"] * TRIM_STEP) / ELEVATOR_STEP)
                    want["trim"] = c.pos["trim"] + int(np.sign(c.pos["elevator"]))
                    if t - t_thr >= 1.0:  # the throttle by airspeed, a step or a few a second
                        d = 0.6 * (ias_target - ias) - 2.0 * ias_rate
                        want["throttle"] = c.pos["throttle"] + int(np.clip(round(d), -3, 3))
                        t_thr = t
                taps = c.chord(want, {"trim": 4, "aileron": 1, "rudder": 2, "throttle": 30})
                if not taps:
                    port.wait(0.05)
                # -- phases
                if phase == "roll" and ias >= ROTATE_KT and t - t_phase > 5.0:
                    phase, t_phase = "rotate", t
                elif phase == "roll" and not ias and t - t_phase > BRAKE_CHECK_S * (1 + brake_presses):
                    port.key("B", hold_s=0.1)
                    brake_presses += 1
                elif phase == "rotate" and alt > FIELD_ELEV_FT + 60.0:
                    phase, t_phase, elev_i = "climb", t, -0.1
                elif phase == "climb" and alt >= alt_target - 100.0 - max(0.0, vs_fpm) * 0.08:
                    phase, t_phase = "level", t
                    want_thr = {"throttle": -LEVEL_THROTTLE_CUT}
                    c.chord(want_thr, {"throttle": LEVEL_THROTTLE_CUT})
                    t_thr = t
                elif phase == "level":
                    ok = abs(alt - alt_target) < OWN_TOL["alt"] and abs(ias - ias_target) < OWN_TOL["ias"]
                    ok = ok and abs(hdg_err) < OWN_TOL["hdg"]
                    in_tol_since = (in_tol_since or t) if ok else None
                    if in_tol_since is not None and t - in_tol_since >= HOLD_DONE_S:
                        result = f"held {HOLD_DONE_S:.0f} s at {alt:.0f} ft, {ias:.0f} kt"
                        break
                self.trace.append(
                    {
                        "t": round(t, 2),
                        "phase": phase,
                        "bank": round(r.bank_deg, 1),
                        "sky": round(r.sky, 3),
                        "alt": round(alt),
                        "vs": round(vs_fpm),
                        "ias": round(ias, 1),
                        "brake": brake_presses,
                        "hdg_err": round(hdg_err, 1),
                        **{n: v for n, v in c.pos.items()},
                    }
                )
        finally:
            dump = os.environ.get("SIMBRIDGE_FG_TRACE")
            if dump:
                with open(dump, "w") as f:
                    json.dump(self.trace, f)
        if result:
            port.done(result)
            return "done"
        port.give_up(f"ended in phase {phase}")
        return "give_up"
