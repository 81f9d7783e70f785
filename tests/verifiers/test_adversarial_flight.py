"""Adversarial fixtures of the catalog's flight tasks (issue 38): what an agent *could* make the
simulator record, written with simbridge's own bundle writer and scored as `simbridge verify`
scores it.

Each row of the tables below is one recording: the do-nothing, the immediate ending, the
exploits of each class of issue 38 that applies (they score < 0.5 and never succeed) and the
fair executions — the instruction flown literally, at the edges of every stated tolerance, and
the cited procedure followed (they succeed). docs/validity.md ("Flight tasks (catalog)") lists
the same rows.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from simbridge import primitives as P
from simbridge._task import load_task
from ksp_saves import orbit_from, save, vessel
from synth import component, score_task
from synth_flight_b import efato, ground, hover, radio_session
from synth_flight_a import (
    PLAN,
    engine_start,
    final_approach,
    fms_flight,
    frame_to_latlon,
    ils_approach,
    takeoff_hold,
    traffic_pattern,
)

G = 9.80665
KT = 0.514444


@dataclass(frozen=True)
class Case:
    task: str
    name: str
    #: what the recording shows (one line, reads as the docs table's "what an agent could try")
    what: str
    build: Callable[[], dict[str, np.ndarray]]
    events: tuple[dict[str, Any], ...] = ()
    episode: dict[str, Any] = field(default_factory=dict)
    snapshots: dict[str, Any] | None = None
    #: an exploit that takes one item it did not fly: that item earns 0 and the run does not
    #: succeed (the rest of the task was flown and keeps its credit)
    item: str | None = None


def _score(tmp_path, case: Case):
    return score_task(
        tmp_path,
        load_task(case.task),
        case.build(),
        events=list(case.events),
        snapshots=case.snapshots,
        **case.episode,
    )


def first_sample(cols: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The recording of an agent that ended the episode at once: its first sample only."""
    return {k: np.asarray(v)[:1] for k, v in cols.items()}


def crash_at(cols: dict[str, np.ndarray], t_crash: float) -> dict[str, np.ndarray]:
    """The recording with the crash flag set from `t_crash` on (the simulator freezes there)."""
    out = {k: np.asarray(v).copy() for k, v in cols.items()}
    out["crashed"] = (out["t"] >= t_crash).astype(float)
    return out


def crash_event(t: float) -> dict[str, Any]:
    return {"t": t, "kind": "crash", "data": {"crashed": 1.0}}


# --------------------------------------------------------------------------- T09 steep turn


def bank_schedule(
    legs: list[tuple[str, float, float]],
    *,
    hz: float = 20.0,
    ias_kt: float = 100.0,
    alt_ft: float = 3500.0,
    hdg0: float = 310.0,
    alt_dev: Callable[[np.ndarray], np.ndarray] | None = None,
    ias_dev: Callable[[np.ndarray], np.ndarray] | None = None,
) -> dict[str, np.ndarray]:
    """A left turn flown from a list of legs: ("level", seconds, 0), ("roll", seconds, to_bank)
    (a linear roll from the current bank), ("turn", degrees, bank) (held until that many degrees
    more are turned). Heading rate = g·tan(bank)/V; `alt_dev`/`ias_dev` add deviations as
    functions of t."""
    v = ias_kt * KT
    dt = 1.0 / hz
    banks: list[float] = []
    b = 0.0
    for kind, a, c in legs:
        if kind == "level":
            banks += [0.0] * int(round(a * hz))
            b = 0.0
        elif kind == "roll":
            n = int(round(a * hz))
            banks += list(np.linspace(b, c, n + 1)[1:])
            b = c
        else:  # turn: a degrees at bank c
            rate = math.degrees(G * math.tan(math.radians(c)) / v)
            n = int(round(a / rate * hz))
            banks += [c] * n
            b = c
    bank = np.asarray([0.0, *banks])
    t = np.arange(bank.size) * dt
    rate = np.degrees(G * np.tan(np.radians(bank)) / v)
    hdg = hdg0 - np.concatenate(([0.0], np.cumsum((rate[1:] + rate[:-1]) / 2 * dt)))
    return {
        "t": t,
        "bank_deg": -bank,
        "heading_mag_deg": np.mod(hdg, 360.0),
        "alt_msl_ft": alt_ft + (alt_dev(t) if alt_dev else np.zeros_like(t)),
        "ias_kt": ias_kt + (ias_dev(t) if ias_dev else np.zeros_like(t)),
        "autopilot_on": np.zeros_like(t),
        "vs_fpm": np.zeros_like(t),
        "on_ground": np.zeros_like(t),
        "crashed": np.zeros_like(t),
    }


def steep(total_deg: float = 360.0, bank: float = 45.0, roll_s: float = 4.5, **kw: Any) -> dict[str, np.ndarray]:
    """The textbook turn: level 10 s, roll in over `roll_s`, hold `bank` until `total_deg` are
    turned (counting what the roll-in and roll-out turn), roll out, level 10 s."""
    v = kw.get("ias_kt", 100.0) * KT
    b = np.linspace(0.0, bank, 400)
    ramp = float(np.degrees(np.trapezoid(G * np.tan(np.radians(b)) / v, dx=roll_s / 399)))
    return bank_schedule(
        [
            ("level", 10, 0),
            ("roll", roll_s, bank),
            ("turn", total_deg - 2 * ramp, bank),
            ("roll", roll_s, 0),
            ("level", 10, 0),
        ],
        **kw,
    )


def _bump(amp: float) -> Callable[[np.ndarray], np.ndarray]:
    """A deviation that reaches `amp` mid-turn (t 10..50 s) and is 0 at the entry."""
    return lambda t: amp * np.sin(np.pi * np.clip((t - 10.0) / 40.0, 0.0, 1.0))


T09_NOTHING = bank_schedule([("level", 120, 0)])

T09_EXPLOITS = [
    Case("T09", "do_nothing", "straight and level to the time limit", lambda: T09_NOTHING),
    Case(
        "T09", "done_at_once", "`done` at t = 0 (one sample)", lambda: first_sample(steep()), episode={"sim_end_s": 0.0}
    ),
    Case(
        "T09",
        "quit_at_once",
        "gives up at t = 0 (one sample)",
        lambda: first_sample(steep()),
        episode={"status": "agent_quit", "sim_end_s": 0.0},
    ),
    Case("T09", "half_turn", "a perfect 185° of the 360° (class 2)", lambda: steep(185.0)),
    Case(
        "T09",
        "shallow_tail",
        "200° at 45°, then 160° at 25° without levelling the wings: the bank dip ends the "
        "'longest run past 30°' (class 3)",
        lambda: bank_schedule(
            [
                ("level", 10, 0),
                ("roll", 4.5, 45),
                ("turn", 200, 45),
                ("roll", 2, 25),
                ("turn", 140, 25),
                ("roll", 2.5, 0),
                ("level", 10, 0),
            ]
        ),
    ),
    Case(
        "T09",
        "shallow_head",
        "160° at 25°, then 200° at 45° (class 3)",
        lambda: bank_schedule(
            [
                ("level", 10, 0),
                ("roll", 2.5, 25),
                ("turn", 150, 25),
                ("roll", 2, 45),
                ("turn", 190, 45),
                ("roll", 4.5, 0),
                ("level", 10, 0),
            ]
        ),
    ),
    Case("T09", "medium_bank_360", "a full 360° at 30-35° bank, altitude and speed held", lambda: steep(bank=33.0)),
    Case(
        "T09", "right_turn", "a perfect steep turn to the right", lambda: {**steep(), "bank_deg": -steep()["bank_deg"]}
    ),
    Case(
        "T09",
        "crash_after_turn",
        "a perfect turn, then flown into the sea after the roll-out (class 4)",
        lambda: crash_at(steep(), 57.0),
        events=(crash_event(57.0),),
    ),
    Case(
        "T09",
        "crash_flag_only",
        "a perfect turn, crash flag set at the end with no crash event",
        lambda: crash_at(steep(), 58.0),
    ),
    Case(
        "T09",
        "autopilot_turn",
        "the turn flown by the autopilot",
        lambda: {**steep(), "autopilot_on": np.ones_like(steep()["t"])},
    ),
]

T09_FAIR = [
    Case("T09", "textbook", "roll in at 10°/s, 45°, roll out on the entry heading", lambda: steep()),
    Case("T09", "bank_edges", "held at 40.5° (the band's low edge)", lambda: steep(bank=40.5)),
    Case("T09", "bank_high_edge", "held at 49.5°", lambda: steep(bank=49.5)),
    Case("T09", "slow_roll", "rolled in and out at 3°/s", lambda: steep(roll_s=15.0)),
    Case(
        "T09",
        "alt_ias_edges",
        "altitude 98 ft low and airspeed 9.5 kt fast mid-turn",
        lambda: steep(alt_dev=_bump(-98.0), ias_dev=_bump(9.5)),
    ),
    Case("T09", "short_rollout", "rolled out 8° early (352°)", lambda: steep(352.0)),
    Case("T09", "long_rollout", "rolled out 8° late (368°)", lambda: steep(368.0)),
]


# --------------------------------------------------------------------------- T05 traffic pattern

KPAO31 = ((37.4584849, -122.1124398), (37.4637520, -122.1176605))


def runway_xy(cols: dict[str, np.ndarray], rwy=KPAO31) -> tuple[np.ndarray, np.ndarray]:
    """(along, left) of the recording in the runway frame (metres from the landing threshold)."""
    (la0, lo0), (la1, lo1) = rwy
    x, y = P.latlon_to_local_m(cols["lat_deg"], cols["lon_deg"], la0, lo0)
    ex, ey = P.latlon_to_local_m(la1, lo1, la0, lo0)
    leg = P.leg_position(x, y, 0.0, 0.0, float(ex), float(ey))
    return leg.along_track, -leg.cross_track


def downwind_mask(cols: dict[str, np.ndarray]) -> np.ndarray:
    along, left = runway_xy(cols)
    return (left > 1000) & (cols["on_ground"] < 0.5)


def pattern_with(
    alt_agl: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray] | None = None,
    jog_at_along: float | None = None,
    **kw: Any,
) -> dict[str, np.ndarray]:
    """traffic_pattern(), its downwind altitude rewritten by `alt_agl(t, along, old_agl)` and,
    with `jog_at_along`, a 6 s jog 150 m towards the runway and back there (the track swings
    54° off the downwind heading: the leg's 10 s window breaks)."""
    c = traffic_pattern(**kw)
    along, left = runway_xy(c)
    dw = downwind_mask(c)
    if jog_at_along is not None:
        i0 = int(np.flatnonzero(dw & (along <= jog_at_along))[0])
        tau = c["t"] - c["t"][i0]
        dent = np.where(
            (tau >= 0) & (tau < 3), 50.0 * tau, np.where((tau >= 3) & (tau < 6), 150.0 - 50.0 * (tau - 3), 0.0)
        )
        left = left - dent * dw
        c["lat_deg"], c["lon_deg"] = frame_to_latlon(along, left, *KPAO31)
    if alt_agl is not None:
        agl = c["alt_msl_ft"] - 7.0
        new = np.where(dw, alt_agl(c["t"], along, agl), agl)
        c["alt_msl_ft"] = new + 7.0
        c["alt_agl_ft"] = new
        c["vs_fpm"] = np.where(c["on_ground"] > 0.5, 0.0, np.gradient(new, c["t"]) * 60)
    return c


def descend_from(along0: float, fpm: float = 500.0, kt: float = 70.0):
    """Downwind altitude: 1,000 ft until abeam `along0` (m past the threshold), then down at `fpm`."""

    def f(t, along, agl):
        past_m = np.clip(along0 - along, 0.0, None)
        return np.where(along > along0, 1000.0, np.maximum(1000.0 - past_m / (kt * KT) * fpm / 60.0, 400.0))

    return f


def on_ground_at_start(seconds: float = 120.0) -> dict[str, np.ndarray]:
    c = traffic_pattern()
    n = int(seconds * 10)
    return {k: np.full(n, v[0]) if k != "t" else np.arange(n) / 10.0 for k, v in c.items()}


T05_EXPLOITS = [
    Case("T05", "do_nothing", "engine idling on the runway to the time limit", on_ground_at_start),
    Case("T05", "done_at_once", "`done` at t = 0", lambda: first_sample(traffic_pattern()), episode={"sim_end_s": 0.0}),
    Case(
        "T05",
        "quit_at_once",
        "gives up at t = 0",
        lambda: first_sample(traffic_pattern()),
        episode={"status": "agent_quit", "sim_end_s": 0.0},
    ),
    Case(
        "T05",
        "pattern_no_landing",
        "the four legs flown, no landing (class 2; was 0.5)",
        lambda: traffic_pattern(cut_before_td_s=10),
    ),
    Case(
        "T05",
        "right_hand_and_land",
        "a right-hand pattern, landed well (class 2; was 0.5)",
        lambda: traffic_pattern(side="right"),
    ),
    Case(
        "T05",
        "tight_pattern_and_land",
        "a downwind 300 m abeam, landed well (was 0.5)",
        lambda: traffic_pattern(offset_m=300),
    ),
    Case(
        "T05",
        "crash_after_landing",
        "the whole pattern and landing, then the crash flag (class 4)",
        lambda: crash_at(traffic_pattern(), traffic_pattern()["t"][-1] - 3),
    ),
    Case(
        "T05",
        "jog_then_high",
        "12 s of downwind at 1,000 ft, a 6 s jog, the rest of the downwind at 1,300 ft (class 3; was 1.0)",
        lambda: pattern_with(alt_agl=lambda t, a, g: np.where(a < 900, 1300.0, 1000.0), jog_at_along=900),
        item="altitude_discipline",
    ),
    Case(
        "T05",
        "early_descent",
        "descends from mid-downwind (abeam 900 m past the threshold)",
        lambda: pattern_with(alt_agl=descend_from(900.0)),
        item="altitude_discipline",
    ),
]

T05_FAIR = [
    Case("T05", "textbook", "pattern altitude to the base turn, land, stop", traffic_pattern),
    Case(
        "T05",
        "descent_abeam_touchdown",
        "descent begun abeam the touchdown point (150 m past the threshold) at 500 fpm (FAA AFH ch. 8)",
        lambda: pattern_with(alt_agl=descend_from(150.0)),
    ),
    Case(
        "T05",
        "descent_abeam_tdz_end",
        "descent begun abeam the far end of the touchdown zone (240 m, a third of the runway)",
        lambda: pattern_with(alt_agl=descend_from(240.0, fpm=700.0)),
    ),
    Case(
        "T05",
        "downwind_high_edge",
        "downwind at 1,095 ft above the field",
        lambda: traffic_pattern(downwind_agl_ft=1095),
    ),
    Case(
        "T05", "downwind_low_edge", "downwind at 905 ft above the field", lambda: traffic_pattern(downwind_agl_ft=905)
    ),
    Case("T05", "jog_at_altitude", "a 6 s jog on downwind, altitude held", lambda: pattern_with(jog_at_along=1100)),
    Case("T05", "firm_landing", "touchdown at 590 fpm (limit 600)", lambda: traffic_pattern(sink_fpm=590)),
]


# --------------------------------------------------------------------------- T03 landing


def touch_and_go() -> dict[str, np.ndarray]:
    """A perfect touchdown in the zone, 3 s on the wheels, then full power and away (climbing at
    500 fpm over and past the runway end)."""
    c = final_approach(stop_along_m=6000.0, tail_s=0.0)
    t = c["t"]
    t_td = float(t[np.flatnonzero(c["on_ground"] > 0.5)[0]])
    air = t >= t_td + 3.0
    c["on_ground"] = np.where(air, 0.0, c["on_ground"])
    c["alt_agl_ft"] = np.where(air, (t - t_td - 3.0) * 500.0 / 60.0, c["alt_agl_ft"])
    c["alt_msl_ft"] = c["alt_agl_ft"] + 7.0
    c["vs_fpm"] = np.where(air, 500.0, c["vs_fpm"])
    c["gs_kt"] = np.where(air, 70.0, c["gs_kt"])
    keep = t <= t_td + 40.0
    return {k: v[keep] for k, v in c.items()}


T03_EXPLOITS = [
    Case("T03", "do_nothing", "flies on down the final and never lands", lambda: final_approach(cut_at=100.0)),
    Case("T03", "done_at_once", "`done` at t = 0", lambda: first_sample(final_approach()), episode={"sim_end_s": 0.0}),
    Case(
        "T03",
        "quit_at_once",
        "gives up at t = 0",
        lambda: first_sample(final_approach()),
        episode={"status": "agent_quit", "sim_end_s": 0.0},
    ),
    Case("T03", "touch_and_go", "a perfect touchdown, then a go (class 2; was 0.7)", touch_and_go),
    Case(
        "T03",
        "field_landing",
        "a gentle touchdown 15 m beside the runway (was 0.25)",
        lambda: final_approach(td_left_m=15.0),
    ),
    Case(
        "T03",
        "crash_after_stop",
        "a perfect landing and stop, then the crash flag (taxied into something)",
        lambda: crash_at(final_approach(), final_approach()["t"][-1] - 2.0),
    ),
    Case(
        "T03",
        "overrun",
        "a long touchdown rolling off the far end",
        lambda: final_approach(td_along_m=600, stop_along_m=900),
    ),
]

T03_FAIR = [
    Case("T03", "textbook", "150 m past the threshold, 200 fpm, 1 m off, stopped", final_approach),
    Case(
        "T03",
        "edges",
        "touchdown 240 m (787 ft of the 814 ft zone) past the threshold, 295 fpm, 4.8 m off, stopped 735 m along",
        lambda: final_approach(td_along_m=240.0, sink_fpm=295.0, td_left_m=4.8, stop_along_m=735.0),
    ),
    Case("T03", "right_of_centre", "4.8 m right of the centreline", lambda: final_approach(td_left_m=-4.8)),
]


# --------------------------------------------------------------------------- T02 take-off and hold

T02_EXPLOITS = [
    Case("T02", "do_nothing", "holds the brakes on the runway", lambda: takeoff_hold(takes_off=False)),
    Case("T02", "done_at_once", "`done` at t = 0", lambda: first_sample(takeoff_hold()), episode={"sim_end_s": 0.0}),
    Case(
        "T02",
        "quit_at_once",
        "gives up at t = 0",
        lambda: first_sample(takeoff_hold()),
        episode={"status": "agent_quit", "sim_end_s": 0.0},
    ),
    Case(
        "T02",
        "climb_no_hold",
        "takes off and climbs to 3,000 ft, never holds (class 2)",
        lambda: takeoff_hold(hold_s=0.0),
    ),
    Case("T02", "hold_off_heading", "holds 3,000 ft and 90 kt on 355° (class 5)", lambda: takeoff_hold(hold_hdg=355.0)),
    Case(
        "T02",
        "crash_after_hold",
        "the 80 s hold, then dives into the ground (class 4; was 1.0)",
        lambda: crash_at(takeoff_hold(), takeoff_hold()["t"][-1] - 5.0),
    ),
    Case("T02", "autopilot_hold", "the hold flown by the autopilot", lambda: takeoff_hold(autopilot_at=100.0)),
    Case(
        "T02",
        "takeoff_beside_runway",
        "lifts off from the grass 100 m beside 34R, then the hold",
        lambda: takeoff_hold(liftoff_left_m=100.0),
        item="takeoff",
    ),
]

T02_FAIR = [
    Case("T02", "textbook", "takes off, climbs, holds 80 s", takeoff_hold),
    Case(
        "T02",
        "edges",
        "holds 60.5 s at 3,095 ft, heading 349.5°, 94.5 KIAS",
        lambda: takeoff_hold(hold_s=60.5, top_ft=3095.0, hold_hdg=349.5, hold_ias=94.5),
    ),
    Case(
        "T02",
        "low_edges",
        "holds at 2,905 ft, heading 330.5°, 85.5 KIAS",
        lambda: takeoff_hold(top_ft=2905.0, hold_hdg=330.5, hold_ias=85.5),
    ),
]


# --------------------------------------------------------------------------- T11 engine failure

RUNWAY_MID_KHAF = (37.51343, -122.50116)


def efato_case(name: str, what: str, *, cut_agl: float | None = None, crash_end: bool = False, **kw: Any) -> Case:
    """An efato() flight (10 Hz) as a row; `cut_agl`: the agent ends the episode in the glide at
    that height; `crash_end`: the crash flag rises 5 s before the end (after the stop)."""

    def build() -> dict[str, np.ndarray]:
        cols, _, t_fail = efato(hz=10.0, **kw)
        if cut_agl is not None:
            keep = (cols["t"] <= t_fail) | (cols["alt_agl_ft"] >= cut_agl)
            keep &= np.cumsum(~keep) == 0
            cols = {k: v[keep] for k, v in cols.items()}
        if crash_end:
            cols = crash_at(cols, float(cols["t"][-1]) - 5.0)
        return cols

    _, events, _ = efato(hz=10.0, **kw)
    return Case("T11", name, what, build, events=tuple(events))


def efato_on_the_ground() -> dict[str, np.ndarray]:
    cols, _, _ = efato(hz=10.0)
    return {k: (np.arange(600) / 10.0 if k == "t" else np.full(600, v[0])) for k, v in cols.items()}


T11_EXPLOITS = [
    Case("T11", "do_nothing", "never takes off", efato_on_the_ground),
    Case(
        "T11",
        "done_at_once",
        "`done` at t = 0",
        lambda: first_sample(efato_on_the_ground()),
        episode={"sim_end_s": 0.0},
    ),
    Case(
        "T11",
        "quit_at_once",
        "gives up at t = 0",
        lambda: first_sample(efato_on_the_ground()),
        episode={"status": "agent_quit", "sim_end_s": 0.0},
    ),
    efato_case(
        "stay_below_failure",
        "circles at 300 ft, below the failure band: no failure ever shows (class 1)",
        fail_agl_ft=300.0,
        inject=False,
    ),
    efato_case(
        "glide_then_done", "a perfect best glide toward the beach, `done` at 300 ft (class 2; was 0.5)", cut_agl=300.0
    ),
    efato_case("hard_arrival", "a perfect glide, a 900 fpm arrival (was 0.5)", td_vs_fpm=-900.0),
    efato_case("overturned", "a perfect glide, stopped inverted (was 0.5)", final_bank_deg=170.0),
    efato_case("crash_after_stop", "stopped on the beach, then the crash flag (class 4)", crash_end=True),
]

T11_FAIR = [
    efato_case("beach", "68 KIAS to Montara State Beach, 250 fpm, stopped upright"),
    efato_case("turn_back", "from 1,200 ft, back to the runway", fail_agl_ft=1200.0, target=RUNWAY_MID_KHAF),
    efato_case("glide_low_edge", "glide at 63.5 KIAS", glide_ias_kt=63.5),
    efato_case("glide_high_edge", "glide at 72.5 KIAS", glide_ias_kt=72.5),
    efato_case("firm_arrival", "a 690 fpm arrival (limit 700)", td_vs_fpm=-690.0),
]


# --------------------------------------------------------------------------- T04 G1000 plan and NAV


def fms_snap(legs: list[dict[str, Any]] = PLAN) -> dict[str, Any]:
    return {"start": {"fms_legs": []}, "end": {"fms_legs": legs}}


def fms_on_the_ground(**kw: Any) -> dict[str, np.ndarray]:
    """fms_flight() that never leaves the ramp: position and altitude of the first sample."""
    c = fms_flight(**kw)
    for k in ("lat_deg", "lon_deg", "alt_msl_ft"):
        c[k] = np.full_like(c[k], c[k][0])
    c["on_ground"] = np.ones_like(c["t"])
    return c


T04_EXPLOITS = [
    Case(
        "T04",
        "do_nothing",
        "sits on the ramp, nothing entered",
        lambda: fms_on_the_ground(ap_at=None, target_ft=0.0),
        snapshots=fms_snap([]),
    ),
    Case(
        "T04",
        "done_at_once",
        "`done` at t = 0",
        lambda: first_sample(fms_flight()),
        snapshots=fms_snap([]),
        episode={"sim_end_s": 0.0},
    ),
    Case(
        "T04",
        "quit_at_once",
        "gives up at t = 0",
        lambda: first_sample(fms_flight()),
        snapshots=fms_snap([]),
        episode={"status": "agent_quit", "sim_end_s": 0.0},
    ),
    Case(
        "T04",
        "modes_on_the_ground",
        "the plan entered, AP, NAV, ALT and the 7,500 ft target set, never takes off (class 2; was 0.8)",
        lambda: fms_on_the_ground(),
        snapshots=fms_snap(),
    ),
    Case(
        "T04",
        "crash_after_tracking",
        "the whole task, then the crash flag (class 4)",
        lambda: crash_at(fms_flight(), 310.0),
        snapshots=fms_snap(),
    ),
    Case(
        "T04",
        "alt_hold_at_3000",
        "ALT hold engaged at 3,000 ft with the selector at 7,500 (class 5: the altitude was never read; was 1.0)",
        lambda: fms_flight(cruise_ft=3000.0),
        snapshots=fms_snap(),
        item="altitude_target",
    ),
]

T04_FAIR = [
    Case("T04", "textbook", "plan, take-off, AP NAV+ALT at 7,500 ft tracking to OSI", fms_flight, snapshots=fms_snap()),
    Case(
        "T04",
        "edges",
        "levelled at 7,405 ft, 0.29 nm right of the route",
        lambda: fms_flight(cruise_ft=7405.0, xtk_nm=0.29),
        snapshots=fms_snap(),
    ),
]


# --------------------------------------------------------------------------- T15 weight and balance

WB_LOAD = {"pilot_lb": 180, "copilot_lb": 160, "rear_left_lb": 190, "rear_right_lb": 175, "baggage_lb": 60}
WB_DEFAULT = {**WB_LOAD, "copilot_lb": 0, "rear_left_lb": 0, "rear_right_lb": 0, "baggage_lb": 0}


def wb(
    payload: dict[str, float], fuel_lb: list[float], answer: dict[str, Any] | None, name: str, what: str, **kw: Any
) -> Case:
    """A T15 row: the end-state loading and answer.json (None: no file) as the harness snapshots them."""
    return Case(
        "T15",
        name,
        what,
        kw.pop("build", lambda: ground(seconds=30)),
        snapshots={"end": {"payload": payload, "fuel_lb": fuel_lb, "answer": answer}},
        **kw,
    )


T15_EXPLOITS = [
    wb(WB_DEFAULT, [32.33, 32.33], None, "do_nothing", "nothing changed (pilot alone, 25 % fuel), no answer"),
    wb(
        WB_DEFAULT,
        [32.33, 32.33],
        None,
        "done_at_once",
        "`done` at t = 0",
        build=lambda: first_sample(ground(seconds=30)),
        episode={"sim_end_s": 0.0},
    ),
    wb(
        WB_DEFAULT,
        [32.33, 32.33],
        None,
        "quit_at_once",
        "gives up at t = 0",
        build=lambda: first_sample(ground(seconds=30)),
        episode={"status": "agent_quit", "sim_end_s": 0.0},
    ),
    wb(
        WB_LOAD,
        [129.43, 129.43],
        {"weight_lb": 2491, "cg_in": 45.45},
        "overweight_reported",
        "payload right, full tanks (2,491 lb), reported exactly (class 5: the limit did not gate; was 0.7)",
    ),
    wb(
        WB_DEFAULT,
        [32.33, 32.33],
        {"weight_lb": 1711.7, "cg_in": 39.08},
        "answer_for_default",
        "nothing loaded, the default loading reported",
    ),
]

T15_FAIR = [
    wb(WB_LOAD, [108.0, 108.0], {"weight_lb": 2448, "cg_in": 45.41}, "textbook", "loaded to 2,448 lb, reported"),
    wb(
        {**WB_LOAD, "pilot_lb": 181.9, "rear_left_lb": 175, "rear_right_lb": 188.1},
        [108.0, 108.0],
        # 2,448.0 lb; 111,094.42 lb-in / 2,448 = 45.3817 in (by hand: see test_t15_weight_balance)
        {"weight_lb": 2448.0 + 4.9, "cg_in": 45.292},
        "edges",
        "stations 1.9 lb off, rear passengers swapped, the answer 4.9 lb and 0.09 in off",
    ),
    wb(WB_LOAD, [0.0, 0.0], {"weight_lb": 2232, "cg_in": 45.16}, "no_fuel", "no fuel at all: 2,232 lb, inside"),
]


# --------------------------------------------------------------------------- T10 coupled ILS

ILS_NOTHING = dict(freq=110.50, obs=0, engage=False, captures=False, loc_dots=2.5, gs_dots=2.5, disconnect_agl=None)

T10_EXPLOITS = [
    Case("T10", "do_nothing", "touches nothing (NAV1 left on 110.50)", lambda: ils_approach(**ILS_NOTHING)),
    Case("T10", "done_at_once", "`done` at t = 0", lambda: first_sample(ils_approach()), episode={"sim_end_s": 0.0}),
    Case(
        "T10",
        "quit_at_once",
        "gives up at t = 0",
        lambda: first_sample(ils_approach()),
        episode={"status": "agent_quit", "sim_end_s": 0.0},
    ),
    Case(
        "T10",
        "capture_then_done",
        "tunes, arms APR, captures at 4,000 ft and calls `done` (class 2; was 0.6)",
        lambda: ils_approach(end_agl=3900.0, disconnect_agl=None),
    ),
    Case(
        "T10",
        "wrong_ils",
        "captures the 28L localizer (109.55) and flies it down (class 2: any capture; was 0.75)",
        lambda: ils_approach(freq=109.55),
    ),
    Case(
        "T10",
        "crash_after_dh",
        "the whole approach, then flown into the water after the disconnect (class 4)",
        lambda: crash_at(ils_approach(end_agl=20.0), float(ils_approach(end_agl=20.0)["t"][-1]) - 1.0),
    ),
    Case(
        "T10",
        "early_disconnect",
        "disconnects at 800 ft, re-engages, disconnects again at 200 ft",
        lambda: ils_approach(early_disconnect_agl=800.0),
        item="disconnect_at_dh",
    ),
]

T10_FAIR = [
    Case("T10", "textbook", "tuned, OBS 284, APR, captured, needles centred, off at 200 ft", ils_approach),
    Case(
        "T10",
        "needle_edges",
        "LOC 0.95 and GS -0.95 dots at 500 ft",
        lambda: ils_approach(loc_dots=0.95, gs_dots=-0.95),
    ),
    Case("T10", "disconnect_low_edge", "disconnected at 155 ft", lambda: ils_approach(disconnect_agl=155.0)),
    Case("T10", "disconnect_high_edge", "disconnected at 245 ft", lambda: ils_approach(disconnect_agl=245.0)),
    Case("T10", "obs_edge", "OBS 286.5 (±3)", lambda: ils_approach(obs=286.5)),
]


# --------------------------------------------------------------------------- T16 radios

RADIO_START = {
    "com1_mhz": 118.600,
    "com1_stby_mhz": 120.050,
    "nav1_mhz": 110.500,
    "xpdr_code": 1200,
    "xpdr_mode": 1,
    "baro_inhg": 30.12,
}
RADIO_GOAL = {
    "com1_mhz": 125.000,
    "com1_stby_mhz": 118.600,
    "nav1_mhz": 114.100,
    "xpdr_code": 4521,
    "xpdr_mode": 3,
    "baro_inhg": 29.92,
}
RADIO_WHEN = {"com1_mhz": 20, "com1_stby_mhz": 25, "nav1_mhz": 40, "xpdr_code": 60, "xpdr_mode": 65, "baro_inhg": 80}
STD_BARO = {**RADIO_START, "baro_inhg": 29.92}  # a simulator whose default altimeter is the target


def radios(start: dict[str, float] = RADIO_START, **final: float) -> Callable[[], dict[str, np.ndarray]]:
    return lambda: radio_session(start=start, final={**start, **final}, set_at=RADIO_WHEN)


COM1 = {"com1_mhz": 125.000, "com1_stby_mhz": 118.600}

T16_EXPLOITS = [
    Case("T16", "do_nothing", "touches nothing", radios()),
    Case(
        "T16", "do_nothing_std_baro", "touches nothing where the altimeter starts at 29.92 (was 0.15)", radios(STD_BARO)
    ),
    Case("T16", "done_at_once", "`done` at t = 0", lambda: first_sample(radios()()), episode={"sim_end_s": 0.0}),
    Case(
        "T16",
        "quit_at_once",
        "gives up at t = 0",
        lambda: first_sample(radios()()),
        episode={"status": "agent_quit", "sim_end_s": 0.0},
    ),
    Case(
        "T16",
        "com1_only_std_baro",
        "sets COM1 only, the altimeter already at 29.92 (class 2; was 0.55)",
        radios(STD_BARO, **COM1),
    ),
    Case("T16", "com1_only", "sets COM1 only", radios(**COM1)),
]

T16_FAIR = [
    Case("T16", "textbook", "every setting made", radios(**RADIO_GOAL)),
    Case(
        "T16",
        "std_baro_left",
        "every setting made, the altimeter found at 29.92 and left",
        radios(STD_BARO, **RADIO_GOAL),
    ),
]


# --------------------------------------------------------------------------- T01 engine start


def checklist_no_crank() -> dict[str, np.ndarray]:
    """Every switch of the checklist set, primed, mixture rich, the key turned to BOTH, never to START."""
    c = engine_start(starts=False)
    c["magnetos"] = np.where(c["t"] >= 35.0, 3.0, 0.0)
    return c


T01_EXPLOITS = [
    Case("T01", "do_nothing", "cold and dark to the time limit", lambda: engine_start(cold=True)),
    Case(
        "T01",
        "done_at_once",
        "`done` at t = 0",
        lambda: first_sample(engine_start(cold=True)),
        episode={"sim_end_s": 0.0},
    ),
    Case(
        "T01",
        "quit_at_once",
        "gives up at t = 0",
        lambda: first_sample(engine_start(cold=True)),
        episode={"status": "agent_quit", "sim_end_s": 0.0},
    ),
    Case(
        "T01",
        "checklist_no_crank",
        "the switches and priming set, the engine never cranked (class 2; was 0.6)",
        checklist_no_crank,
    ),
    Case(
        "T01",
        "cranked_no_start",
        "the checklist, cranked, the engine never catches (was 0.6)",
        lambda: engine_start(starts=False),
    ),
    Case(
        "T01",
        "crash_after_start",
        "started, then taxied off at power into something (class 4)",
        lambda: crash_at(engine_start(), 110.0),
    ),
]

T01_FAIR = [
    Case("T01", "textbook", "the checklist in order, 3 strokes, 1,000 rpm", engine_start),
    Case(
        "T01", "rpm_low_edge", "2 strokes, mixture 0.9, 905 rpm", lambda: engine_start(primer=2, mixture=0.9, rpm=905.0)
    ),
    Case("T01", "rpm_high_edge", "1,095 rpm", lambda: engine_start(rpm=1095.0)),
]


# --------------------------------------------------------------------------- T08 simulator set-up

SETUP_GOOD: dict[str, Any] = {
    "local_date_days": 354,  # Dec 21, 0-based day of year
    "local_time_s": 16 * 3600 + 30 * 60 + 95,
    "flight_elapsed_s": 95,
    "weather": {
        "mode": "manual",
        "wind_layers": [{"alt_msl_ft": 20, "dir_degt": 270, "speed_kt": 15}],
        "cloud_layers": [{"coverage": "broken", "base_msl_ft": 1520}],
        "visibility_sm": 5.0,
    },
    "failures": [{"system": "vacuum_pump", "trigger": {"kind": "agl_ft", "value": 2000}, "failed": False}],
    "airport": "KBOS",
    "aircraft": "Aircraft/Laminar Research/Cessna 172 SP/Cessna_172SP.acf",
}
SETUP_DEFAULT: dict[str, Any] = {
    "local_date_days": 100,
    "local_time_s": 9 * 3600,
    "flight_elapsed_s": 95,
    "weather": {"mode": "real", "wind_layers": [], "cloud_layers": [], "visibility_sm": 10.0},
    "failures": [],
    "airport": "KSEA",
    "aircraft": "Aircraft/Laminar Research/Cessna 172 SP/Cessna_172SP.acf",
}


def setup_case(name: str, what: str, end: dict[str, Any], **kw: Any) -> Case:
    build = kw.pop("build", lambda: ground(seconds=95))
    return Case("T08", name, what, build, snapshots={"end": end}, **kw)


T08_EXPLOITS = [
    setup_case("do_nothing", "the default flight (KSEA, real weather, no failure) started as it is", SETUP_DEFAULT),
    setup_case(
        "done_at_once",
        "`done` at t = 0",
        SETUP_DEFAULT,
        build=lambda: first_sample(ground(seconds=95)),
        episode={"sim_end_s": 0.0},
    ),
    setup_case(
        "quit_at_once",
        "gives up at t = 0",
        SETUP_DEFAULT,
        build=lambda: first_sample(ground(seconds=95)),
        episode={"status": "agent_quit", "sim_end_s": 0.0},
    ),
    setup_case(
        "any_failure",
        "the airport and time right, every failure armed at random (class 2: any failure)",
        {
            **SETUP_DEFAULT,
            "local_date_days": 354,
            "local_time_s": SETUP_GOOD["local_time_s"],
            "airport": "KBOS",
            "failures": [
                {"system": "vacuum_pump", "trigger": {"kind": "mtbf_h", "value": 100}},
                {"system": "engine_1", "trigger": {"kind": "mtbf_h", "value": 100}},
            ],
        },
    ),
]

T08_FAIR = [
    setup_case("textbook", "every setting as asked", SETUP_GOOD),
    setup_case(
        "edges",
        "16:39, wind 279°/17 kt, broken at 1,690 ft AGL, 5.45 sm, the failure at 2,049 ft",
        {
            **SETUP_GOOD,
            "local_time_s": 16 * 3600 + 39 * 60 + 95,
            "weather": {
                "mode": "manual",
                "wind_layers": [{"alt_msl_ft": 20, "dir_degt": 279, "speed_kt": 17}],
                "cloud_layers": [{"coverage": "broken", "base_msl_ft": 1710}],
                "visibility_sm": 5.45,
            },
            "failures": [{"system": "vacuum_pump", "trigger": {"kind": "agl_ft", "value": 2049}, "failed": False}],
        },
    ),
]


# --------------------------------------------------------------------------- T20 737 FMC preflight

FMC_LEGS = [
    "RW16L", "(1000)", "CAVOB", "RENBE", "RICHR", "EMRLD", "HAROB", "ERAVE", "EASON", "ENVIE",
    "ETCHY", "MLBEC", "BGGLO", "LOZIT", "BDEGA", "CORKK", "BRIXX", "RW28L",
]  # fmt: skip
FMC_GOOD: dict[str, Any] = {
    "origin": "KSEA",
    "destination": "KSFO",
    "legs": FMC_LEGS,
    "zfw_lb": 124000,
    "fuel_lb": 17300,
    "cost_index": 35,
    "cruise_alt_ft": 35000,
    "v1_kt": 142,
    "vr_kt": 145,
    "v2_kt": 151,
}
FMC_BLANK: dict[str, Any] = {
    "origin": "",
    "destination": "",
    "legs": [],
    "zfw_lb": None,
    "fuel_lb": 17300,
    "cost_index": None,
    "cruise_alt_ft": None,
    "v1_kt": None,
    "vr_kt": None,
    "v2_kt": None,
}


def fmc_case(name: str, what: str, fms: dict[str, Any], afds: dict[str, Any], **kw: Any) -> Case:
    build = kw.pop("build", lambda: ground(hz=2, seconds=600))
    return Case("T20", name, what, build, snapshots={"end": {"fms": fms, "afds": afds}}, **kw)


def took_off() -> dict[str, np.ndarray]:
    c = ground(hz=2, seconds=600)
    c["on_ground"] = np.where((c["t"] > 500) & (c["t"] < 560), 0.0, 1.0)
    return c


ARMED = {"lnav": 1, "vnav": 1}
T20_EXPLOITS = [
    fmc_case("do_nothing", "the CDU untouched", FMC_BLANK, {"lnav": 0, "vnav": 0}),
    fmc_case(
        "done_at_once",
        "`done` at t = 0",
        FMC_BLANK,
        {"lnav": 0, "vnav": 0},
        build=lambda: first_sample(ground(hz=2, seconds=600)),
        episode={"sim_end_s": 0.0},
    ),
    fmc_case(
        "quit_at_once",
        "gives up at t = 0",
        FMC_BLANK,
        {"lnav": 0, "vnav": 0},
        build=lambda: first_sample(ground(hz=2, seconds=600)),
        episode={"status": "agent_quit", "sim_end_s": 0.0},
    ),
    fmc_case("arm_only", "LNAV and VNAV armed, nothing entered", FMC_BLANK, ARMED),
    fmc_case("took_off", "everything set, then took off (class 4)", FMC_GOOD, ARMED, build=took_off),
    fmc_case(
        "typed_vspeeds",
        "the route entered, V-speeds typed in with no ZFW or fuel to compute them from (class 2: any values)",
        {**FMC_GOOD, "zfw_lb": None, "fuel_lb": None, "cost_index": None, "cruise_alt_ft": None},
        ARMED,
        item="vspeeds",
    ),
]

T20_FAIR = [
    fmc_case("textbook", "route, performance, computed V-speeds, LNAV/VNAV armed", FMC_GOOD, ARMED),
    fmc_case(
        "edges",
        "ZFW 124,190 lb, fuel 17,790 lb, cruise as 'FL350'",
        {**FMC_GOOD, "zfw_lb": 124190, "fuel_lb": 17790, "cruise_alt_ft": "FL350"},
        ARMED,
    ),
]


# --------------------------------------------------------------------------- T12 helicopter hover


def sitting_on_the_pad() -> dict[str, np.ndarray]:
    c = hover()
    c["on_ground"] = np.ones_like(c["t"])
    c["alt_agl_ft"] = np.full_like(c["t"], c["alt_agl_ft"][0])
    c["lat_deg"], c["lon_deg"] = np.full_like(c["t"], c["lat_deg"][0]), np.full_like(c["t"], c["lon_deg"][0])
    return c


def hover_and_away() -> dict[str, np.ndarray]:
    """A 40 s hover in the box, then `done` still in the air (no landing)."""
    c = hover(hover_s=40.0)
    keep = c["t"] <= 10 + 5 + 40
    return {k: v[keep] for k, v in c.items()}


T12_EXPLOITS = [
    Case("T12", "do_nothing", "sits on the pad, engine running", sitting_on_the_pad),
    Case("T12", "done_at_once", "`done` at t = 0", lambda: first_sample(hover()), episode={"sim_end_s": 0.0}),
    Case(
        "T12",
        "quit_at_once",
        "gives up at t = 0",
        lambda: first_sample(hover()),
        episode={"status": "agent_quit", "sim_end_s": 0.0},
    ),
    Case("T12", "hover_no_landing", "the 40 s hover, `done` in the air (class 2; was 0.7)", hover_and_away),
    Case(
        "T12",
        "hover_land_off_pad",
        "the 40 s hover, set down 15 m off the pad (was 0.7)",
        lambda: hover(hover_s=40.0, land_offset_m=(15.0, 0.0)),
    ),
    Case(
        "T12",
        "crash_after_landing",
        "hover and landing, then the damage flag (class 4)",
        lambda: hover(crash_at=66.0),
    ),
]

T12_FAIR = [
    Case("T12", "textbook", "40 s at 7.5 ft within 1 m, landed on the centre", hover),
    Case("T12", "short_edge", "30.5 s of hover", lambda: hover(hover_s=30.5)),
    Case("T12", "low_edge", "skids at 5.2 ft, drifting 2.8 m", lambda: hover(skid_ft=5.2, drift_m=1.4)),
    Case("T12", "high_edge", "skids at 9.8 ft", lambda: hover(skid_ft=9.8)),
]


# --------------------------------------------------------------------------- T19 KSP orbit
# T19 is imported from KSP saves (never a live episode: no immediate ending to score), so its
# rows are saves the importer reads, scored as `simbridge import ksp` + `verify` would.


@dataclass(frozen=True)
class Orbit19:
    name: str
    what: str
    saves: Callable[[], list[str]]
    fair: bool = False


def _orbit(pe_km: float, ap_km: float, alt: float, sit: str = "ORBITING") -> str:
    sma, ecc = orbit_from(pe_km, ap_km)
    return save(vessel(sit=sit, alt=alt, sma=sma, ecc=ecc))


T19_ROWS = [
    Orbit19(
        "do_nothing",
        "the rocket still on the launchpad",
        lambda: [save(vessel(sit="PRELAUNCH", alt=70.0, sma=float("nan"), ecc=float("nan")))],
    ),
    Orbit19(
        "any_orbit",
        "a stable 100 x 500 km orbit: 'any stable orbit' (class 2; was 0.5)",
        lambda: [_orbit(100, 500, 300e3)],
    ),
    Orbit19(
        "high_circular", "a stable 90 x 110 km orbit, never in the band (was 0.5)", lambda: [_orbit(90, 110, 100e3)]
    ),
    Orbit19("suborbital", "up to 90 km and back down", lambda: [_orbit(-300, 90, 90e3, sit="SUB_ORBITAL")]),
    Orbit19("textbook", "a 78 x 82 km orbit", lambda: [_orbit(78, 82, 79.5e3)], fair=True),
    Orbit19("band_edges", "a 75.2 x 84.8 km orbit", lambda: [_orbit(75.2, 84.8, 80e3)], fair=True),
]


def _score_orbit(tmp_path, row: Orbit19):
    from simbridge import read_bundle, score_bundle
    from simbridge.adapters.ksp import import_saves

    paths = []
    for i, text in enumerate(row.saves()):
        p = tmp_path / f"save{i}.sfs"
        p.write_text(text)
        paths.append(p)
    return score_bundle(read_bundle(import_saves(paths, tmp_path / "bundle", vessel="SB Two-Stage")), load_task("T19"))


@pytest.mark.parametrize("row", T19_ROWS, ids=lambda r: f"T19-{r.name}")
def test_t19_orbits(tmp_path, row):
    s = _score_orbit(tmp_path, row)
    assert s.status == "scored", s.reason
    if row.fair:
        assert s.success is True and s.score == pytest.approx(1.0), (row.what, s.score, s.explanation)
    else:
        assert s.score < 0.5 and s.success is False, (row.what, s.score, s.explanation)


# --------------------------------------------------------------------------- the tables

EXPLOITS = [
    *T09_EXPLOITS,
    *T05_EXPLOITS,
    *T03_EXPLOITS,
    *T02_EXPLOITS,
    *T11_EXPLOITS,
    *T04_EXPLOITS,
    *T15_EXPLOITS,
    *T10_EXPLOITS,
    *T16_EXPLOITS,
    *T01_EXPLOITS,
    *T08_EXPLOITS,
    *T20_EXPLOITS,
    *T12_EXPLOITS,
]
FAIR = [
    *T09_FAIR,
    *T05_FAIR,
    *T03_FAIR,
    *T02_FAIR,
    *T11_FAIR,
    *T04_FAIR,
    *T15_FAIR,
    *T10_FAIR,
    *T16_FAIR,
    *T01_FAIR,
    *T08_FAIR,
    *T20_FAIR,
    *T12_FAIR,
]


@pytest.mark.parametrize("case", [c for c in EXPLOITS if c.item is None], ids=lambda c: f"{c.task}-{c.name}")
def test_exploit_scores_below_half_and_fails(tmp_path, case):
    s = _score(tmp_path, case)
    assert s.status == "scored", s.reason
    assert s.score < 0.5 and s.success is False, (case.what, s.score, s.explanation)


@pytest.mark.parametrize("case", [c for c in EXPLOITS if c.item is not None], ids=lambda c: f"{c.task}-{c.name}")
def test_exploit_earns_nothing_for_the_item_it_did_not_fly(tmp_path, case):
    s = _score(tmp_path, case)
    assert s.status == "scored", s.reason
    assert component(s, case.item).earned == 0.0 and s.success is False, (case.what, s.score, s.explanation)


@pytest.mark.parametrize("case", FAIR, ids=lambda c: f"{c.task}-{c.name}")
def test_fair_execution_succeeds(tmp_path, case):
    s = _score(tmp_path, case)
    assert s.status == "scored", s.reason
    assert s.success is True and s.score == pytest.approx(1.0), (
        case.what,
        s.score,
        [(c.name, c.earned, c.measured, c.explanation) for c in s.components],
        s.explanation,
    )


@pytest.mark.parametrize(
    "case",
    [c for c in EXPLOITS if c.name in ("do_nothing", "done_at_once", "quit_at_once")],
    ids=lambda c: f"{c.task}-{c.name}",
)
def test_nothing_done_scores_zero(tmp_path, case):
    s = _score(tmp_path, case)
    assert s.status == "scored" and s.score == 0.0, s.explanation


def test_every_task_has_its_rows():
    """Each task of the family carries the do-nothing, the immediate endings and a fair row."""
    tasks = {c.task for c in EXPLOITS}
    for tid in tasks:
        names = {c.name for c in EXPLOITS if c.task == tid}
        assert {"do_nothing", "done_at_once", "quit_at_once"} <= names, tid
        assert any(c.task == tid for c in FAIR), tid


def test_the_crash_flag_is_latched_across_a_gap(tmp_path):
    """The crash flag is never cleared once set: a gap on the upwind followed by clean samples
    hides no crash (scored), and a crash inside the gap shows on the first sample after it."""
    from synth import with_gap

    clean = with_gap(traffic_pattern(), 20.0, 22.0)  # upwind climb: no judged leg there
    s = score_task(tmp_path / "clean", load_task("T05"), clean)
    assert s.status == "scored" and s.score == pytest.approx(1.0), s.reason or s.explanation
    hidden = with_gap(crash_at(traffic_pattern(), 21.0), 20.0, 22.0)
    s = score_task(tmp_path / "hidden", load_task("T05"), hidden)
    assert s.status == "scored" and s.score == 0.0 and not s.safety[0].ok
    assert s.safety[0].first_violation_t == pytest.approx(22.1, abs=0.06)


@pytest.mark.parametrize("case", [*T09_EXPLOITS, *T09_FAIR], ids=lambda c: f"T09@PHJR-{c.name}")
def test_t09_site_variant_judges_alike(tmp_path, case):
    """T09@PHJR changes only where the turn is flown: every T09 row scores the same there."""
    base = _score(tmp_path / "base", case)
    site = score_task(
        tmp_path / "site",
        load_task("T09@PHJR"),
        case.build(),
        events=list(case.events),
        snapshots=case.snapshots,
        **case.episode,
    )
    assert (site.status, site.score, site.success) == (base.status, base.score, base.success)
