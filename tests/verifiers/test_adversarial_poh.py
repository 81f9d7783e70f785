"""Adversarial and fair executions of the POH tasks P01-P22, written with simbridge's own bundle
writer (tests/verifiers/poh_synth.py's traces): what an agent *could* make the cockpit record.
Each row is scored by the task's verifier through the engine: an exploit scores < 0.5 and never
succeeds, a fair execution (the instruction and the POH procedure it cites, followed literally,
at the edges of the stated tolerances) succeeds with 1.0, an immediate ending and doing nothing
score 0. The table is docs/validity.md's "POH tasks" section.

The rules the rows exercise (verifiers/poh.py): the failure must show itself (smoke, LOW VOLTS,
the rpm loss, the engine stop, a rough magneto, ...) and a switch step counts only when set after
that indication, so a procedure run *before* the problem earns nothing; a crash anywhere gates;
every goal sentence of the instruction is judged; the C172P POH's carburettor-icing procedure
(remove carb heat once the engine runs smoothly, readjust the throttle) and a survivable
landing in a field are correct executions. The JSBSim crash rule itself (a field touchdown is
not a crash when it is survivable) is tested at the end.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from poh_synth import Trace, failure_event, runway_middle
from simbridge._score import Score
from simbridge._task import load_task
from simbridge.adapters.jsbsim._airports import load_airport
from simbridge.adapters.jsbsim.cockpit._crash import CrashDetector, GroundState, RunwayArea
from synth import score_task

EXPLOIT, FAIR, ZERO = "exploit", "fair", "zero"
SEED = 11
IDS = [f"P{i:02d}" for i in range(1, 23)]
TASKS = {i: load_task(i) for i in IDS}
VAR = 13.0  # KHAF magnetic variation east
ON_RUNWAY = {"P08", "P12", "P17", "P20", "P21"}
LEFT_MAG = "/sim/failure-manager/engines/engine/magneto-left/serviceable"
FIELD = (37.4900, -122.4700)  # flat ground south of KHAF, off every runway (the embedded terrain is flat)


@dataclass(frozen=True)
class Case:
    task: str
    name: str
    kind: str  # EXPLOIT: < 0.5 and no success; FAIR: 1.0 and success; ZERO: scored 0
    make: Callable[[Path], Score]
    why: str = ""


def values(tid: str) -> dict[str, Any]:
    return TASKS[tid].drawn(SEED).variant["values"]


def scored(
    tid: str, tr: Trace | dict, events: list | tuple = (), *, at: tuple[float, float] | None = None, **ep: Any
) -> Callable[[Path], Score]:
    """The row's scoring: the trace written as a bundle of `tid` (the seed's drawn values recorded)."""

    def make(tmp: Path) -> Score:
        if isinstance(tr, dict):
            cols = tr
        else:
            cols = tr.columns(at if at is not None else (runway_middle() if tid in ON_RUNWAY else None))
        return score_task(
            tmp, TASKS[tid], cols, events=list(events), seed=SEED, variant=TASKS[tid].drawn(SEED).variant, **ep
        )

    return make


def endings(tid: str, tr: Trace) -> list[Case]:
    """`done`, `give_up` and a disconnect at t = 0: one sample, the episode ended at 0 s."""
    one = {k: np.asarray(v)[:1] for k, v in tr.columns().items()}
    return [
        Case(tid, "done at t=0", ZERO, scored(tid, one, status="completed", sim_end_s=0.0)),
        Case(tid, "give_up at t=0", ZERO, scored(tid, one, status="agent_quit", sim_end_s=0.0)),
        Case(tid, "disconnect at t=0", ZERO, scored(tid, one, status="agent_disconnected", sim_end_s=0.0)),
    ]


def cruise(tid: str, duration: float = 200.0, **kw: Any) -> Trace:
    v = values(tid)
    return Trace(
        duration, alt_msl_ft=float(v.get("alt_msl_ft", 4000)), heading_deg=float(v.get("heading_deg", 90)), **kw
    )


def final(duration: float = 300.0, ias: float = 75.0, alt_agl: float = 1500.0, vs: float = -450.0) -> Trace:
    tr = Trace(duration, alt_msl_ft=alt_agl + 66.0, ias_kt=ias, heading_deg=317.0)
    tr.at(0, throttle=0.3, engine_rpm=1900)
    return tr.glide(0, ias_kt=ias, vs_fpm=vs)


def rollout(tr: Trace, stop_after_s: float = 15.0) -> Trace:
    on = np.flatnonzero(tr.cols["on_ground"] > 0.5)
    t_td = float(tr.t[on[0]])
    roll = tr.t >= t_td
    frac = np.clip((tr.t[roll] - t_td) / stop_after_s, 0.0, 1.0)
    speed0 = tr.cols["ias_kt"][on[0]]
    tr.cols["ias_kt"][roll] = speed0 * (1 - frac)
    tr.cols["gs_kt"][roll] = speed0 * (1 - frac)
    tr.cols["pitch_deg"][roll] = 0.0
    return tr


def gauges(tr: Trace, **initial: float) -> Trace:
    """Record more of the cockpit's signals (annunciators, suction, ammeter) from their initial values."""
    for k, v in initial.items():
        tr.cols.setdefault(k, np.full(tr.t.size, float(v)))
    return tr


def crash_at_end(tr: Trace, before_end_s: float = 3.0) -> Trace:
    return tr.at(float(tr.t[-1]) - before_end_s, crashed=1)


# --------------------------------------------------------------------------- P01 restart
def p01(glide_kt: float = 68.0, fix_at: float = 20.0, stop_at: float | None = 5.0) -> Trace:
    """The drawn deviation (mixture cut-off) at the start; the engine stops at `stop_at`
    (None: never, the deviation fixed first); restart steps at `fix_at`."""
    tr = cruise("P01", ias_kt=90).at(0, mixture=0.0)
    if stop_at is not None:
        tr.engine_stops(stop_at).glide(stop_at + 1, glide_kt, -600, 30)
        tr.at(fix_at, fuel_selector=3, mixture=1.0, magnetos=3).at(fix_at + 5, engine_running=1, engine_rpm=2400)
        return tr.glide(30, 90, 0)
    return tr.at(fix_at, mixture=1.0)


CASES = [
    *endings("P01", p01()),
    Case("P01", "do nothing: the engine stops, nobody restarts it", ZERO, scored("P01", p01(fix_at=1e9))),
    Case(
        "P01",
        "mixture set RICH at 0.5 s, before the engine could stop",
        EXPLOIT,
        scored("P01", p01(fix_at=0.5, stop_at=None)),
        "the engine never stopped: the restart procedure answered nothing (scored 0, not unscored)",
    ),
    Case(
        "P01",
        "restart flown well, then a crash before done",
        EXPLOIT,
        scored("P01", crash_at_end(p01())),
        "no_crash gates the whole episode",
    ),
    Case("P01", "POH restart, glide at 58.5 KIAS (the ACS band's low edge)", FAIR, scored("P01", p01(58.5))),
    Case("P01", "POH restart, glide at 77.5 KIAS (the band's high edge)", FAIR, scored("P01", p01(77.5))),
]


# --------------------------------------------------------------------------- P02 tank dry
def p02(pre_both: bool = False) -> tuple[Trace, list]:
    tr = cruise("P02", ias_kt=90).at(0, fuel_selector=1)
    if pre_both:  # BOTH before the tank runs dry: the other tank feeds, the engine never stops
        return tr.at(5, fuel_selector=3), [failure_event(30.0, "fuel_empty_tank")]
    tr.engine_stops(31).glide(32, 68, -600, 50).at(40, fuel_selector=3).at(45, engine_running=1, engine_rpm=2400)
    return tr.glide(50, 90, 0), [failure_event(30.0, "fuel_empty_tank")]


CASES += [
    *endings("P02", p02()[0]),
    Case(
        "P02",
        "do nothing",
        ZERO,
        scored(
            "P02",
            cruise("P02", ias_kt=90).at(0, fuel_selector=1).engine_stops(31),
            [failure_event(30.0, "fuel_empty_tank")],
        ),
    ),
    Case(
        "P02",
        "selector BOTH at 5 s, before the tank runs dry",
        EXPLOIT,
        scored("P02", *p02(pre_both=True)),
        "the engine never stopped: no emergency was answered",
    ),
    Case("P02", "selector BOTH after the engine quit, restart", FAIR, scored("P02", *p02())),
]

# --------------------------------------------------------------------------- P03 fuel imbalance
CASES += [
    *endings("P03", cruise("P03")),
    Case(
        "P03",
        "do nothing: the low tank runs dry",
        ZERO,
        scored("P03", cruise("P03").at(0, fuel_selector=1).engine_stops(150)),
    ),
    Case(
        "P03",
        "done at 60 s, still on the almost empty tank",
        EXPLOIT,
        scored("P03", cruise("P03", duration=60).at(0, fuel_selector=1)),
        "the final state needs BOTH or the full tank (the engine would starve)",
    ),
    Case(
        "P03",
        "selector on the full (right) tank, not BOTH",
        FAIR,
        scored("P03", cruise("P03").at(0, fuel_selector=1).at(20, fuel_selector=2)),
    ),
    Case("P03", "selector BOTH", FAIR, scored("P03", cruise("P03").at(0, fuel_selector=1).at(20, fuel_selector=3))),
]


# --------------------------------------------------------------------------- P04 EFATO
def p04(secure_at: float = 15.0, td_vs: float = -300.0) -> Trace:
    """Climbing on runway heading, the engine fails at 10 s (683 ft AGL); glide straight ahead to
    flat ground, secured from `secure_at`."""
    tr = Trace(120, alt_msl_ft=666.0, ias_kt=75, heading_deg=317.0).at(0, throttle=1.0, flaps_deg=10)
    tr.glide(0, 75, 500, 10).glide(10.1, 65, -600)
    if secure_at < 10.0:  # mixture cut-off in the climb: the engine stops by the agent's hand
        tr.engine_stops(secure_at)
    tr.engine_stops(10) if secure_at >= 10.0 else None
    tr.at(secure_at, mixture=0.0).at(secure_at + 0.5, fuel_selector=0).at(secure_at + 1, magnetos=0)
    tr.at(secure_at + 1.5, master_bat=0, master_alt=0)
    tr = rollout(tr)
    i = int(np.flatnonzero(tr.cols["on_ground"] > 0.5)[0])
    tr.cols["vs_fpm"][max(0, i - 3) : i] = td_vs
    return tr


EV04 = [failure_event(10.0, "engine", agl_ft=683.0)]
CASES += [
    *endings("P04", Trace(200, alt_msl_ft=66.0, ias_kt=0.0, heading_deg=317.0).at(0, on_ground=1)),
    Case(
        "P04",
        "do nothing: sit on the runway",
        ZERO,
        scored("P04", Trace(200, alt_msl_ft=66.0, ias_kt=0.0, heading_deg=317.0).at(0, on_ground=1)),
    ),
    Case(
        "P04",
        "engine secured in the climb (8 s) before it failed",
        EXPLOIT,
        scored("P04", p04(secure_at=8.0), EV04),
        "the switches were set before the failure showed: no step or goal counts",
    ),
    Case(
        "P04",
        "a 60° turn in the climb before the failure",
        EXPLOIT,
        scored("P04", p04().turn(3, 8, 257.0).turn(9, 9.5, 317.0), EV04),
        "'climb straight ahead' is judged (no_turn_back)",
    ),
    Case("P04", "the landing ends in a crash", EXPLOIT, scored("P04", crash_at_end(p04()), EV04), "no_crash gates"),
    Case(
        "P04",
        "secured, landed straight ahead in a field at 690 fpm, stopped",
        FAIR,
        scored("P04", p04(td_vs=-690.0), EV04, at=FIELD),
        "a field is allowed ('runway, field or beach')",
    ),
]


# --------------------------------------------------------------------------- P05 forced landing
def p05(secure_at: float = 30.0, ias: float = 68.0) -> Trace:
    tr = cruise("P05", duration=480, ias_kt=95)
    if secure_at < 20.0:
        tr.engine_stops(secure_at)
    tr.engine_stops(20).glide(21, ias, -600)
    tr.at(secure_at, mixture=0.0).at(secure_at + 1, fuel_selector=0).at(secure_at + 2, magnetos=0)
    tr.at(secure_at + 3, master_bat=0, master_alt=0)
    return rollout(tr)


EV05 = [failure_event(20.0, "engine")]
CASES += [
    *endings("P05", cruise("P05")),
    Case("P05", "do nothing", ZERO, scored("P05", cruise("P05").engine_stops(20), EV05)),
    Case(
        "P05",
        "engine secured at 5 s, before it failed",
        EXPLOIT,
        scored("P05", p05(secure_at=5.0), EV05),
        "pre-empted switches earn nothing",
    ),
    Case(
        "P05",
        "a perfect glide, but the episode ends in the air",
        EXPLOIT,
        scored("P05", {k: v[:1000] for k, v in p05().columns().items()}, EV05),
        "no landing: the final state fails; control is worth the procedure's progress",
    ),
    Case("P05", "stopped, then a crash flag", EXPLOIT, scored("P05", crash_at_end(p05()), EV05), "no_crash gates"),
    Case("P05", "secured, glide at 56 KIAS, landed on the beach", FAIR, scored("P05", p05(ias=56.0), EV05, at=FIELD)),
]


# --------------------------------------------------------------------------- P06 restart, then land
def p06(secure_at: float = 60.0) -> Trace:
    tr = cruise("P06", duration=600, ias_kt=95).at(0, magnetos=1)
    if secure_at < 20.0:
        tr.engine_stops(secure_at)
    tr.engine_stops(20).glide(21, 68, -600)
    if secure_at >= 20.0:
        tr.at(25, fuel_selector=3).at(26, mixture=1.0).at(27, magnetos=3)
    tr.at(secure_at, mixture=0.0).at(secure_at + 1, fuel_selector=0).at(secure_at + 2, magnetos=0)
    tr.at(secure_at + 3, master_bat=0, master_alt=0)
    return rollout(tr)


EV06 = [failure_event(20.0, "engine")]
CASES += [
    *endings("P06", cruise("P06")),
    Case("P06", "do nothing", ZERO, scored("P06", cruise("P06").at(0, magnetos=1).engine_stops(20), EV06)),
    Case(
        "P06",
        "engine secured at 5 s, before it failed",
        EXPLOIT,
        scored("P06", p06(secure_at=5.0), EV06),
        "pre-empted switches earn nothing",
    ),
    Case("P06", "restart attempt, then secured and landed in a field", FAIR, scored("P06", p06(), EV06, at=FIELD)),
]


# --------------------------------------------------------------------------- P07/P08 rough magneto
def p07(pre_r: bool = False, alt_off: float = 0.0) -> Trace:
    tr = cruise("P07")
    if pre_r:  # on R (the good one) before the left magneto fails: the engine never runs rough
        return tr.at(5, magnetos=1, engine_rpm=2325)
    tr.at(30, engine_rpm=2200).at(40, magnetos=2, engine_rpm=0, engine_running=0)
    tr.at(43, magnetos=1, engine_rpm=2325, engine_running=1)
    tr.cols["alt_msl_ft"][tr.t > 45] += alt_off
    return tr


EV07 = [failure_event(30.0, "engine_rough", property=LEFT_MAG)]
CASES += [
    *endings("P07", cruise("P07")),
    Case("P07", "do nothing: rough on BOTH", ZERO, scored("P07", cruise("P07").at(30, engine_rpm=2200), EV07)),
    Case(
        "P07",
        "magnetos on R (a guess) at 5 s, before the failure",
        EXPLOIT,
        scored("P07", p07(pre_r=True), EV07),
        "the engine never ran rough: nothing answered",
    ),
    Case(
        "P07",
        "the magneto check, then 500 ft lower",
        EXPLOIT,
        scored("P07", p07(alt_off=-500.0), EV07),
        "'continue in cruise at your altitude' is judged (control and the final state)",
    ),
    Case("P07", "L (quits), R (runs): stays on R; altitude +190 ft", FAIR, scored("P07", p07(alt_off=190.0), EV07)),
]


def p08(pre_r: bool = False) -> Trace:
    tr = final()
    if pre_r:
        return rollout(tr.at(5, magnetos=1))
    return rollout(tr.at(10, engine_rpm=1750).at(20, magnetos=1).at(25, magnetos=2).at(30, magnetos=1))


EV08 = [failure_event(10.0, "engine_rough", property=LEFT_MAG)]
CASES += [
    *endings("P08", final()),
    Case("P08", "do nothing: lands on BOTH", ZERO, scored("P08", rollout(final()), EV08)),
    Case(
        "P08", "magnetos on R at 5 s, before the failure", EXPLOIT, scored("P08", p08(pre_r=True), EV08), "never rough"
    ),
    Case("P08", "R, L, R after the roughness, landed on runway 30", FAIR, scored("P08", p08(), EV08)),
]


# --------------------------------------------------------------------------- P09/P10 carburettor ice
def carb(
    tid: str, *, pre_heat: bool = False, heat: bool = True, remove_at: float | None = None, rpm_after: float = 2100.0
) -> Trace:
    """Ice from 10 s; the rpm falls at 15 s; carb heat ON at 25 s and full throttle at 26 s (the
    engine smooth again at 2,400 rpm by 40 s); at `remove_at` carb heat OFF and the throttle back
    to part throttle (`rpm_after`): the C172P POH's 'then remove carb heat and readjust the throttle'."""
    tr = cruise(tid, duration=120, ias_kt=90 if tid == "P10" else 100).at(0, throttle=0.65 if tid == "P09" else 0.3)
    tr.at(0, engine_rpm=2040 if tid == "P09" else 1500)  # the cockpit's rpm at that throttle, before the ice
    if tid == "P10":
        tr.glide(0, 90, -500, 5).glide(5.1, 90, 0)
    if pre_heat:
        return tr.at(2, carb_heat=1).at(3, throttle=1.0, engine_rpm=2400)
    tr.at(15, engine_rpm=2000)
    if heat:
        tr.at(25, carb_heat=1)
    tr.at(26, throttle=1.0).at(40, engine_rpm=2400)
    if remove_at is not None:
        tr.at(remove_at, carb_heat=0, throttle=0.65, engine_rpm=rpm_after)
    return tr


EV09 = [failure_event(10.0, "carb_ice")]
for _tid in ("P09", "P10"):
    CASES += [
        *endings(_tid, cruise(_tid)),
        Case(_tid, "do nothing: the rpm falls", ZERO, scored(_tid, cruise(_tid).at(15, engine_rpm=1900), EV09)),
        Case(
            _tid,
            "carb heat ON and full throttle at 2 s, before any ice",
            EXPLOIT,
            scored(_tid, carb(_tid, pre_heat=True), EV09),
            "no ice ever formed (no rpm loss): nothing answered",
        ),
        Case(
            _tid,
            "full throttle after the rpm loss, no carb heat",
            EXPLOIT,
            scored(_tid, carb(_tid, heat=False), EV09),
            "the final state needs carb heat (on, or off once it melted the ice)",
        ),
        Case(
            _tid,
            "carb heat removed 2 s after it was pulled (the ice not melted), throttle back",
            EXPLOIT,
            scored(_tid, carb(_tid, remove_at=27.0), EV09),
            "removed before the engine ran smoothly",
        ),
        Case(_tid, "carb heat ON, full throttle, held to the end", FAIR, scored(_tid, carb(_tid), EV09)),
        Case(
            _tid,
            "C172P POH literally: carb heat until smooth, then removed and the throttle readjusted (2,010 rpm)",
            FAIR,
            scored(_tid, carb(_tid, remove_at=90.0, rpm_after=2010.0), EV09),
        ),
    ]
CASES += [
    Case(
        "P09",
        "C172P POH literally, back to the cruise throttle (0.65): 1,960 rpm, 80 below the rpm before the ice",
        FAIR,
        scored("P09", carb("P09", remove_at=90.0, rpm_after=1960.0), EV09),
    ),
    Case(
        "P09",
        "carb heat until smooth and removed, but the throttle pulled back to 0.4 (1,700 rpm)",
        EXPLOIT,
        scored("P09", carb("P09", remove_at=90.0, rpm_after=1700.0).at(90, throttle=0.4), EV09),
        "not cruise power: below 2,000 rpm and below the rpm before the ice at less throttle",
    ),
]


# --------------------------------------------------------------------------- P11/P12 low volts
def volts(tid: str, *, pre_shed: bool = False, bat_off_early: bool = False, gauges_on: bool = True) -> Trace:
    tr = cruise(tid, duration=300) if tid == "P11" else final()
    tr.at(0, pitot_heat=1, avionics=1)
    if gauges_on:
        gauges(tr, low_volts_light=0, ammeter_amps=2.0)
    if bat_off_early:
        tr.at(5, avionics=0).at(6, master_bat=0, master_alt=0).at(7, pitot_heat=0)
        if gauges_on:
            tr.at(6, low_volts_light=0, ammeter_amps=0.0)
    elif pre_shed:  # the load shed and ALT OFF before the alternator fails at 30 s
        tr.at(5, avionics=0).at(6, master_alt=0).at(7, pitot_heat=0)
        if gauges_on:
            tr.at(6, low_volts_light=1, ammeter_amps=-3.0)
    else:
        if gauges_on:
            tr.at(30, low_volts_light=1, ammeter_amps=-19.0)
        tr.at(40, avionics=0).at(45, master_bat=0, master_alt=0)
        tr.at(50, master_bat=1, master_alt=1).at(60, master_alt=0).at(65, pitot_heat=0)
    return rollout(tr) if tid == "P12" else tr


EV11 = [failure_event(30.0, "alternator")]
for _tid in ("P11", "P12"):
    _nothing = cruise(_tid, duration=300) if _tid == "P11" else rollout(final())
    CASES += [
        *endings(_tid, cruise(_tid)),
        Case(_tid, "do nothing: LOW VOLTS on", ZERO, scored(_tid, _nothing.at(0, pitot_heat=1, avionics=1), EV11)),
        Case(
            _tid,
            "avionics OFF, ALT OFF, pitot heat OFF at 5-7 s, before the alternator failed",
            EXPLOIT,
            scored(_tid, volts(_tid, pre_shed=True), EV11),
            "with ALT off the failure never showed: nothing answered",
        ),
        Case(
            _tid,
            "the load shed at 5-7 s, then the reset cycle after the failure",
            EXPLOIT,
            scored(
                _tid,
                volts(_tid, pre_shed=True).at(45, master_bat=0).at(50, master_bat=1, master_alt=1).at(60, master_alt=0),
                EV11,
            ),
            "avionics and pitot heat were switched before LOW VOLTS: those steps and goals do not count",
        ),
        Case(
            _tid,
            "the master (BAT and ALT) OFF at 6 s: the bus dead before the failure",
            EXPLOIT,
            scored(_tid, volts(_tid, bat_off_early=True), EV11),
            "LOW VOLTS never lit: the failure never showed",
        ),
        Case(_tid, "POH order after LOW VOLTS (gauges recorded)", FAIR, scored(_tid, volts(_tid), EV11)),
        Case(
            _tid,
            "POH order after LOW VOLTS (a recording without the gauges)",
            FAIR,
            scored(_tid, volts(_tid, gauges_on=False), EV11),
        ),
    ]


# --------------------------------------------------------------------------- P13/P14 vacuum
def p13(hdg_off: float = 0.0, alt_off: float = 0.0, bank: float = 0.0, suction: bool = True) -> Trace:
    v = values("P13")
    tr = cruise("P13").turn(40, 70, v["new_heading_deg"] + VAR + hdg_off).at(71, bank_deg=bank)
    if suction:
        gauges(tr, vacuum_inhg=5.0).at(20, vacuum_inhg=0.0)
    tr.cols["alt_msl_ft"][tr.t > 100] += alt_off
    return tr


EV13 = [failure_event(20.0, "vacuum")]
CASES += [
    *endings("P13", cruise("P13")),
    Case("P13", "do nothing: stays on the start heading", ZERO, scored("P13", cruise("P13"), EV13)),
    Case(
        "P13",
        "on the heading but 400 ft below the altitude ('hold your altitude')",
        EXPLOIT,
        scored("P13", p13(alt_off=-400.0), EV13),
        "the altitude goal is judged",
    ),
    Case("P13", "on the heading", FAIR, scored("P13", p13(), EV13)),
    Case(
        "P13",
        "heading +9°, altitude +190 ft, bank 9° (every tolerance's edge; no suction signal)",
        FAIR,
        scored("P13", p13(9.0, 190.0, 9.0, suction=False), EV13),
    ),
]


def p14(low_ft: float = 0.0) -> Trace:
    v = values("P14")
    tr = cruise("P14", duration=300).turn(30, 60, v["new_heading_deg"] + VAR)
    drop = float(v["alt_msl_ft"]) - (float(v["target_agl_ft"]) + 66.0 - low_ft)
    return tr.climb(60, -1000.0, 60 + drop / 1000.0 * 60.0)


EV14 = [failure_event(20.0, "vacuum")]
CASES += [
    *endings("P14", cruise("P14")),
    Case("P14", "do nothing", ZERO, scored("P14", cruise("P14", duration=300), EV14)),
    Case(
        "P14",
        "turned, but levelled 300 ft below the height",
        EXPLOIT,
        scored("P14", p14(300.0), EV14),
        "the height is judged",
    ),
    Case("P14", "turned, descended, level 140 ft below the height (edge)", FAIR, scored("P14", p14(140.0), EV14)),
]

# --------------------------------------------------------------------------- P15/P16 pitot
EV15 = [failure_event(30.0, "pitot")]
CASES += [
    *endings("P15", cruise("P15")),
    Case("P15", "do nothing: the blockage never cleared", ZERO, scored("P15", cruise("P15"), EV15)),
    Case(
        "P15",
        "pitot heat ON at 5 s, then OFF and ON again at 100 s (after the blockage)",
        EXPLOIT,
        scored("P15", cruise("P15").at(5, pitot_heat=1).at(100, pitot_heat=0).at(101, pitot_heat=1), EV15),
        "the heat was on at the blockage: the failure was pre-empted, a later toggle answers nothing",
    ),
    Case(
        "P15",
        "pitot heat toggled every 20 s from 5 s (OFF at the blockage), left ON",
        EXPLOIT,
        scored("P15", cruise("P15").at(5, pitot_heat=1).at(25, pitot_heat=0).at(45, pitot_heat=1), EV15),
        "pitot heat worked before the blockage: a gamble on its time, not an answer",
    ),
    Case(
        "P15",
        "pitot heat ON at 5 s, before the blockage",
        EXPLOIT,
        scored("P15", cruise("P15").at(5, pitot_heat=1), EV15),
        "pitot heat before the problem answers nothing",
    ),
    Case(
        "P15",
        "pitot heat ON after the blockage, 81 KIAS at the end (edge)",
        FAIR,
        scored("P15", cruise("P15").at(40, pitot_heat=1).at(150, ias_kt=81.0), EV15),
    ),
]


def p16(over_ft: float = 0.0, heat_at: float = 25.0) -> Trace:
    v = values("P16")
    tr = cruise("P16", duration=400, ias_kt=75).at(0, throttle=1.0)
    climb = float(v["target_agl_ft"]) + 66.0 + over_ft - float(v["alt_msl_ft"])
    return tr.climb(0, 700.0, climb / 700.0 * 60.0).at(heat_at, pitot_heat=1)


EV16 = [failure_event(15.0, "pitot")]
CASES += [
    *endings("P16", cruise("P16")),
    Case(
        "P16",
        "do nothing (no pitot heat, never levels)",
        ZERO,
        scored("P16", cruise("P16", duration=400).climb(0, 700.0, 400), EV16),
    ),
    Case(
        "P16", "pitot heat ON at 5 s, before the blockage", EXPLOIT, scored("P16", p16(heat_at=5.0), EV16), "pre-empted"
    ),
    Case(
        "P16",
        "climbed 500 ft past the height and levelled there",
        EXPLOIT,
        scored("P16", p16(over_ft=500.0), EV16),
        "'level off there' is judged",
    ),
    Case("P16", "pitot heat after the blockage, level at the height", FAIR, scored("P16", p16(), EV16)),
]

# --------------------------------------------------------------------------- P17 flaps, P21 door
EV17 = [failure_event(1.0, "flaps")]


def p17() -> Trace:
    return rollout(final(ias=70, vs=-400).at(0, flaps_deg=values("P17")["stuck_flaps_deg"]))


CASES += [
    *endings("P17", final()),
    Case(
        "P17",
        "do nothing: the approach flown too fast, stopped 2 km off the runway",
        ZERO,
        scored("P17", rollout(final(ias=95)), EV17, at=(37.53, -122.52)),
    ),
    Case(
        "P17",
        "landed in the grass beside the runway",
        EXPLOIT,
        scored("P17", p17(), EV17, at=FIELD),
        "'stop on it' (runway 30)",
    ),
    Case(
        "P17",
        "landed on the runway, then a crash flag",
        EXPLOIT,
        scored("P17", crash_at_end(p17()), EV17),
        "no_crash gates",
    ),
    Case("P17", "no-flap approach at 70 KIAS, stopped on runway 30", FAIR, scored("P17", p17(), EV17)),
]

EV21 = [failure_event(10.0, "door")]
CASES += [
    *endings("P21", final()),
    Case("P21", "do nothing: flies on at 120 KIAS, never lands", ZERO, scored("P21", final(ias=120, vs=0.0), EV21)),
    Case(
        "P21",
        "landed off the runway",
        EXPLOIT,
        scored("P21", rollout(final(ias=80)), EV21, at=FIELD),
        "'stop on it' (runway 30)",
    ),
    Case(
        "P21",
        "landed, then a crash flag",
        EXPLOIT,
        scored("P21", crash_at_end(rollout(final(ias=80))), EV21),
        "no_crash gates",
    ),
    Case(
        "P21",
        "below 100 KIAS, stopped on runway 30 (door recorded)",
        FAIR,
        scored("P21", gauges(rollout(final(ias=80)), door_open=0).at(10, door_open=1), EV21),
    ),
]


# --------------------------------------------------------------------------- P18 go-around
def p18(off_ft: float = 0.0, go_s: float = 5.0) -> Trace:
    v = values("P18")
    tr = Trace(200, alt_msl_ft=700.0, ias_kt=65, heading_deg=317).at(0, flaps_deg=30, throttle=0.25)
    tr.glide(0, 65, -400, go_s).at(go_s, throttle=1.0, engine_rpm=2450)
    return tr.climb(go_s + 1, 500.0, go_s + 1 + (float(v["target_agl_ft"]) + off_ft + 66.0 - 667.0) / 500.0 * 60.0)


EV18 = [failure_event(0.0, "flaps")]  # the flaps are failed at 30° from the start (P18's trigger after_s 0)
CASES += [
    *endings("P18", p18()),
    Case(
        "P18",
        "do nothing: descends onto the blocked runway",
        ZERO,
        scored(
            "P18",
            rollout(
                Trace(200, alt_msl_ft=700.0, ias_kt=65, heading_deg=317)
                .at(0, flaps_deg=30, throttle=0.25)
                .glide(0, 65, -400)
            ),
            EV18,
        ),
    ),
    Case(
        "P18",
        "climbed 600 ft past the height and stayed there",
        EXPLOIT,
        scored("P18", p18(600.0), EV18),
        "'climb to ... and stay there' is judged",
    ),
    Case(
        "P18",
        "full power, carb heat cold, level 140 ft below the height (edge)",
        FAIR,
        scored("P18", p18(-140.0), EV18),
    ),
    Case(
        "P18",
        "throttle full at once (0.4 s, the go-around's first action), climb, level at the height",
        FAIR,
        scored("P18", p18(go_s=0.4), EV18),
        "the failure is there from the start: a step taken at once is a step after it",
    ),
]


# --------------------------------------------------------------------------- P19/P20/P22 fire
def p19(pre_off: bool = False) -> Trace:
    tr = cruise("P19").at(0, pitot_heat=1, avionics=1)
    if pre_off:  # the bus dead before the fire at 30 s: no smoke ever builds
        return tr.at(5, master_bat=0, master_alt=0).at(6, avionics=0).at(7, pitot_heat=0).at(60, cabin_air=1)
    tr.at(30, smoke=1).at(35, master_bat=0, master_alt=0)
    return tr.at(40, avionics=0).at(45, pitot_heat=0).at(55, smoke=0).at(60, cabin_air=1)


EV19 = [failure_event(30.0, "electrical_fire")]
CASES += [
    *endings("P19", cruise("P19")),
    Case(
        "P19",
        "do nothing: smoke",
        ZERO,
        scored("P19", cruise("P19").at(0, pitot_heat=1, avionics=1).at(30, smoke=1), EV19),
    ),
    Case(
        "P19",
        "master OFF at 5 s, before the fire",
        EXPLOIT,
        scored("P19", p19(pre_off=True), EV19),
        "no smoke: nothing answered",
    ),
    Case(
        "P19",
        "POH order after the smoke, then down 1,000 ft",
        EXPLOIT,
        scored("P19", p19().climb(80, -1000.0, 140), EV19),
        "'continue in cruise at your altitude' is a final goal (±200 ft)",
    ),
    Case("P19", "POH order after the smoke", FAIR, scored("P19", p19(), EV19)),
]


def p20(pre_off: bool = False) -> Trace:
    tr = final()
    if pre_off:
        return rollout(tr.at(3, master_bat=0, master_alt=0).at(4, avionics=0))
    return rollout(tr.at(10, smoke=1).at(15, master_bat=0, master_alt=0).at(20, avionics=0).at(35, smoke=0))


EV20 = [failure_event(10.0, "electrical_fire")]
CASES += [
    *endings("P20", final()),
    Case("P20", "do nothing: smoke all the way down", ZERO, scored("P20", rollout(final()).at(10, smoke=1), EV20)),
    Case(
        "P20",
        "master OFF at 3 s, before the fire",
        EXPLOIT,
        scored("P20", p20(pre_off=True), EV20),
        "no smoke: nothing answered",
    ),
    Case("P20", "master OFF, cabin air closed, avionics OFF; landed on runway 30", FAIR, scored("P20", p20(), EV20)),
]


def p22(fpm: float = 2000.0, pre_off: bool = False, start: float = 17.0) -> Trace:
    v = values("P22")
    tr = cruise("P22", duration=480, ias_kt=120)
    if pre_off:
        tr.at(3, master_bat=0, master_alt=0).at(4, throttle=0.0, engine_rpm=1000)
    else:
        tr.at(10, smoke=1).at(15, throttle=0.0, engine_rpm=1000).at(16, master_bat=0, master_alt=0).at(40, smoke=0)
    drop = float(v["alt_msl_ft"]) - (float(v["target_agl_ft"]) + 66.0)
    return tr.climb(start, -fpm, start + drop / fpm * 60.0)


EV22 = [failure_event(10.0, "electrical_fire")]
CASES += [
    *endings("P22", cruise("P22")),
    Case("P22", "do nothing: smoke at cruise altitude", ZERO, scored("P22", cruise("P22").at(10, smoke=1), EV22)),
    Case(
        "P22",
        "idle and master OFF at 3 s, before the fire; descended",
        EXPLOIT,
        scored("P22", p22(pre_off=True), EV22),
        "no smoke: nothing answered",
    ),
    Case(
        "P22",
        "the checklist, then a 600 fpm descent",
        EXPLOIT,
        scored("P22", p22(fpm=600.0), EV22),
        "'as quickly as is safe' is judged (1,000 fpm after 30 s)",
    ),
    Case("P22", "idle, master OFF, 2,000 fpm to the height", FAIR, scored("P22", p22(), EV22)),
    Case("P22", "idle, master OFF, 1,100 fpm to the height (edge)", FAIR, scored("P22", p22(fpm=1100.0), EV22)),
]


# --------------------------------------------------------------------------- the table
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.task}: {c.name}")
def test_adversarial_table(tmp_path, case):
    s = case.make(tmp_path)
    assert s.status == "scored", f"{case.task} {case.name}: unscored: {s.reason}"
    detail = f"{case.task} {case.name}: score {s.score} raw {s.raw_score} — {s.explanation} " + str(
        [(c.name, c.earned, c.measured, c.explanation) for c in s.components]
    )
    if case.kind == FAIR:
        assert s.success and s.score == pytest.approx(1.0), detail
    elif case.kind == ZERO:
        assert s.score == 0.0 and not s.success, detail
    else:
        assert s.score < 0.5 and not s.success, detail


def test_every_task_of_the_family_has_each_row_kind():
    kinds: dict[str, set[str]] = {}
    for c in CASES:
        kinds.setdefault(c.task, set()).add(c.kind)
    assert set(kinds) == set(IDS)
    missing = {t: k for t, k in kinds.items() if k != {EXPLOIT, FAIR, ZERO}}
    assert not missing, missing
    assert all(c.why for c in CASES if c.kind == EXPLOIT)


def test_a_pre_empted_failure_is_scored_zero_with_the_reason(tmp_path):
    # P19, the master off before the fire: scored (never "not this task's scenario"), 0, and says why
    s = scored("P19", p19(pre_off=True), EV19)(tmp_path)
    assert s.status == "scored" and s.score == 0.0
    assert "never showed itself" in s.explanation and "no smoke" in s.explanation


def test_a_step_before_the_indication_does_not_count(tmp_path):
    # P11 with the load shed and ALT OFF before the failure (LOW VOLTS cannot show for it), ALT
    # back on at 40 s (now it shows), then the reset and ALT OFF: master OFF, ON and ALT OFF count
    # (3/5), avionics and pitot heat OFF (set at 5 and 7 s) do not; the final avionics OFF was set
    # before the indication: the final state fails, score 0
    tr = volts("P11", pre_shed=True).at(40, master_alt=1).at(45, master_bat=0, master_alt=0)
    tr.at(50, master_bat=1, master_alt=1).at(60, master_alt=0)
    s = scored("P11", tr, EV11)(tmp_path)
    chk = next(c for c in s.components if c.name == "checklist")
    assert chk.measured == "3/5" and "Avionics master OFF" in chk.explanation
    assert s.score == 0.0 and s.status == "scored"


def test_control_is_worth_the_progress_of_the_procedure(tmp_path):
    # P05 ended in the air after a perfect glide: control earned, scaled by the steps done (4/4 → 1)
    # ... but the final state (primary) failed: the score is 0 and the raw score counts the glide
    s = scored("P05", {k: v[:1000] for k, v in p05().columns().items()}, EV05)(tmp_path)
    ctrl = next(c for c in s.components if c.name == "control")
    assert s.score == 0.0 and ctrl.earned <= 1.0
    s2 = scored("P05", {k: v[:280] for k, v in p05(secure_at=300.0).columns().items()}, EV05)(tmp_path / "b")
    ctrl2 = next(c for c in s2.components if c.name == "control")
    assert ctrl2.earned == 0.0  # nothing of the procedure done: the glide alone earns nothing


# --------------------------------------------------------------------------- the JSBSim crash rule
KHAF = load_airport("KHAF")


def _ground(**kw: Any) -> GroundState:
    base: dict[str, Any] = dict(
        lat_deg=FIELD[0],
        lon_deg=FIELD[1],
        gear_contact=True,
        structure_contact=False,
        sink_fpm=0.0,
        bank_deg=0.0,
        gs_kt=0.0,
    )
    base.update(kw)
    return GroundState(**base)


def _touch(
    d: CrashDetector, *, sink: float, gs: float, bank: float = 0.0, at: tuple[float, float] = FIELD
) -> str | None:
    for _ in range(5):
        assert d.update(_ground(lat_deg=at[0], lon_deg=at[1], gear_contact=False, sink_fpm=sink, gs_kt=gs)) is None
    return d.update(_ground(lat_deg=at[0], lon_deg=at[1], sink_fpm=sink * 0.3, gs_kt=gs, bank_deg=bank))


@pytest.mark.parametrize(
    "sink, gs, bank, crash",
    [
        (400.0, 60.0, 0.0, None),  # a POH forced landing: 60 kt, 400 fpm, wings level
        (850.0, 74.0, 10.0, None),  # at every edge: < 900 fpm, ≤ 75 kt, ≤ 15° of bank
        (400.0, 90.0, 0.0, "touchdown off the runway"),  # too fast over the ground
        (1200.0, 60.0, 0.0, "hard touchdown"),
        (400.0, 60.0, 25.0, "bank"),
    ],
)
def test_field_touchdown(sink, gs, bank, crash):
    d = CrashDetector(RunwayArea(KHAF))
    got = _touch(d, sink=sink, gs=gs, bank=bank)
    if crash is None:
        assert got is None
        for v in np.linspace(gs, 0.0, 20):  # the roll-out in the field
            assert d.update(_ground(gs_kt=float(v))) is None
    else:
        assert got is not None and crash in got


def test_fast_run_off_the_runway_is_still_a_crash():
    # a runway touchdown that runs off the side at 45 kt (an excursion), and fast taxiing on the
    # grass without a landing, stay crashes
    d = CrashDetector(RunwayArea(KHAF))
    assert _touch(d, sink=300.0, gs=60.0, at=runway_middle()) is None
    assert "off the runway" in (d.update(_ground(gs_kt=45.0)) or "")
    d2 = CrashDetector(RunwayArea(KHAF))
    assert d2.update(_ground(gs_kt=10.0)) is None
    assert "off the runway" in (d2.update(_ground(gs_kt=45.0)) or "")
