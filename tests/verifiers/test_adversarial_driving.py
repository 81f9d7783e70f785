"""Adversarial and fair executions of the driving, rail and marine tasks (T06, T07, T13, T14,
T17, T18), written with simbridge's own bundle writers: what an agent *could* make the simulator
record. Each row is scored by the task's verifier through the engine: an exploit scores < 0.5
and never succeeds, a fair execution (the instruction's own words, at the edges of its stated
tolerances) succeeds, an immediate ending scores 0. The table is docs/validity.md's, per task.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from simbridge import read_bundle, score_bundle
from simbridge._score import Score
from simbridge._task import load_task
from simbridge.adapters.bridgecommand import import_nmea
from simbridge.adapters.openbve import import_logs
from bc_nmea import emit, track
from openbve_logs import entries_of, logs_bin, score as obve_score, trip
from synth import score_task
from synth_driving import drive, highway, park

EXPLOIT, FAIR, ZERO = "exploit", "fair", "zero"


@dataclass(frozen=True)
class Case:
    task: str
    name: str
    kind: str  # EXPLOIT: < 0.5 and no success; FAIR: success; ZERO: scored 0
    make: Callable[[Path], Score]
    why: str = ""


def synth(task: str, cols: dict[str, Any], events: list[dict[str, Any]] | tuple = (), **ep: Any) -> Callable:
    return lambda tmp: score_task(tmp, load_task(task), cols, events=list(events), **ep)


def first_row(cols: dict[str, Any]) -> dict[str, Any]:
    return {k: np.asarray(v)[:1] for k, v in cols.items()}


def endings(task: str, cols: dict[str, Any]) -> list[Case]:
    """`done` and `give_up` at t = 0 (one sample, the episode ended at 0 s) in lockstep or real time."""
    one = first_row(cols)
    return [
        Case(task, "done at t=0", ZERO, synth(task, one, status="completed", sim_end_s=0.0)),
        Case(task, "give_up at t=0", ZERO, synth(task, one, status="agent_quit", sim_end_s=0.0)),
        Case(task, "disconnect at t=0", ZERO, synth(task, one, status="agent_disconnected", sim_end_s=0.0)),
    ]


def collision(t: float, kind: str = "vehicle", other: int = 7) -> dict[str, Any]:
    return {"t": t, "kind": "collision", "data": {"other_kind": kind, "other_id": other}}


# --------------------------------------------------------------------------- T06 route
T06 = load_task("T06")
ROUTE06 = T06.verifier.params["route_xy_m"]
L06 = 337.8027


def route06(frac: float = 1.0, kmh: float = 36.0, tail_s: float = 2.0) -> dict[str, Any]:
    return drive(ROUTE06, 20.0, [(L06 * frac / (kmh / 3.6), kmh, kmh), (0.01, kmh, 0.0), (tail_s, 0.0, 0.0)])


CASES = [
    *endings("T06", route06()),
    Case("T06", "do nothing for 5 minutes", ZERO, synth("T06", drive(ROUTE06, 20.0, [(300.0, 0.0, 0.0)]))),
    Case(
        "T06",
        "half the route, clean, then stop",
        EXPLOIT,
        synth("T06", route06(0.5)),
        "the red-light and collision items are worth the half driven",
    ),
    Case(
        "T06",
        "whole route, then a collision as it arrives (route already complete)",
        EXPLOIT,
        synth("T06", route06(tail_s=10.0), [collision(33.6)]),
        "a collision anywhere gates",
    ),
    Case("T06", "whole route at 36 km/h", FAIR, synth("T06", route06())),
    Case(
        "T06",
        "whole route in 4 min 50 s (the 5-minute limit's edge)",
        FAIR,
        synth("T06", route06(kmh=L06 / 285.0 * 3.6)),
    ),
]

# --------------------------------------------------------------------------- T07 parking
START07 = (170.0, 199.14, 0.0)
CX, CY = 200.0, 199.54


def rolling_through() -> dict[str, Any]:
    cols = park(20.0, START07, (CX, CY, 0.0), still_s=0.0)
    cols["speed_kmh"] = np.full_like(cols["t"], 10.8)
    return cols


CASES += [
    *endings("T07", park(20.0, START07, (CX, CY, 0.0))),
    Case("T07", "stay at the spawn point", ZERO, synth("T07", park(20.0, START07, START07))),
    Case(
        "T07",
        "drive through the bay and end the episode while rolling",
        EXPLOIT,
        synth("T07", rolling_through()),
        "a car still moving has parked nowhere",
    ),
    Case(
        "T07",
        "stop aligned in the lane beside the bay",
        EXPLOIT,
        synth("T07", park(20.0, START07, (CX, CY - 1.6, 0.0))),
        "heading and no-contact are worth how far into the bay the car got",
    ),
    Case(
        "T07",
        "park perfectly after bumping the front car",
        EXPLOIT,
        synth("T07", park(20.0, START07, (CX, CY, 0.0)), [collision(9.0, other=31)]),
        "the instruction's 'no contact' gates",
    ),
    Case("T07", "centred, aligned", FAIR, synth("T07", park(20.0, START07, (CX, CY, 0.0)))),
    Case(
        "T07",
        "0.3 m to the side at 5° (the stated edges)",
        FAIR,
        synth("T07", park(20.0, START07, (CX, CY + 0.299, 4.99))),
    ),
    Case(
        "T07",
        "0.3 m forward at -5° (the stated edges)",
        FAIR,
        synth("T07", park(20.0, START07, (CX + 0.299, CY, -4.99))),
    ),
]

# --------------------------------------------------------------------------- T13 pedestrian
T13 = load_task("T13")
ROUTE13 = T13.verifier.params["route_xy_m"]


def stop_and_go(kmh: float = 30.0, go: bool = True) -> dict[str, Any]:
    v = kmh / 3.6
    legs = [(70.0 / v, kmh, kmh), (3.0, kmh, 0.0), (5.0, 0.0, 0.0)]
    legs += [(4.0, 0.0, kmh), (110.0 / v, kmh, kmh)] if go else [(60.0, 0.0, 0.0)]
    return drive(ROUTE13, 20.0, legs)


CASES += [
    *endings("T13", stop_and_go()),
    Case("T13", "never move", ZERO, synth("T13", drive(ROUTE13, 20.0, [(60.0, 0.0, 0.0)]))),
    Case(
        "T13",
        "stop for the pedestrian and never continue",
        EXPLOIT,
        synth("T13", stop_and_go(go=False)),
        "'then continue to the route end' is the task's progress",
    ),
    Case(
        "T13",
        "swerve into the parked van to miss the walker",
        EXPLOIT,
        synth("T13", stop_and_go(), [collision(10.0, "static", 3)]),
        "any collision gates, not only the walker's",
    ),
    Case(
        "T13",
        "hit a traffic car on the way",
        EXPLOIT,
        synth("T13", stop_and_go(), [collision(4.0, "vehicle", 12)]),
        "any collision gates",
    ),
    Case(
        "T13",
        "crawl the whole route at 10 km/h",
        EXPLOIT,
        synth("T13", drive(ROUTE13, 20.0, [(200.0 / (10 / 3.6), 10.0, 10.0)])),
        "the speed before the event is primary: the scenario is a car at the speed limit",
    ),
    Case("T13", "stop for the pedestrian, then continue", FAIR, synth("T13", stop_and_go())),
    Case("T13", "the same at 24.5 km/h (the stated lower edge)", FAIR, synth("T13", stop_and_go(kmh=24.5))),
]

# --------------------------------------------------------------------------- T18 lane keeping


def crawl_after_85() -> dict[str, Any]:
    cols = highway(20.0, hold_s=1.0, speed_kmh=86.0)
    t = np.arange(0.0, 160.0, 0.05)
    v = np.interp(t, [0.0, 20.0, 21.0, 26.0, 160.0], [0.0, 86.0, 86.0, 20.0, 20.0])
    cols = {"t": t, "speed_kmh": v, "lane_offset_m": np.zeros_like(t), "lane_id": np.full_like(t, -2.0)}
    return cols


def edges18() -> dict[str, Any]:
    cols = highway(20.0, offset_amp_m=0.42)  # RMS 0.297 m < 0.3
    late = cols["t"] > 25.0
    cols["speed_kmh"] = np.where(late, np.where(np.sin(cols["t"]) > 0, 85.5, 94.5), cols["speed_kmh"])
    return cols


CASES += [
    *endings("T18", highway(20.0)),
    Case("T18", "stand still", ZERO, synth("T18", highway(20.0, speed_kmh=0.001))),
    Case(
        "T18",
        "touch 85 km/h, then keep the lane crawling at 20 km/h",
        EXPLOIT,
        synth("T18", crawl_after_85()),
        "the lane items are worth the distance driven in the window",
    ),
    Case(
        "T18",
        "reach 90 and end the episode 10 s later",
        EXPLOIT,
        synth("T18", highway(20.0, hold_s=10.0)),
        "the window the agent ends is judged as the part of 2 minutes driven",
    ),
    Case(
        "T18",
        "perfect run, then a collision at the end",
        EXPLOIT,
        synth("T18", highway(20.0), [collision(148.0)]),
        "a collision anywhere gates",
    ),
    Case("T18", "centred at 90 km/h for 2 minutes", FAIR, synth("T18", highway(20.0, offset_amp_m=0.3))),
    Case("T18", "85.5-94.5 km/h, RMS 0.297 m (the stated edges)", FAIR, synth("T18", edges18())),
]

# --------------------------------------------------------------------------- T14 timetable
T14 = load_task("T14")
AXLE0 = 125.0 - T14.verifier.params["front_offset_m"]


def obve(samples: list, scores: list | tuple = ()) -> Callable:
    def run(tmp: Path) -> Score:
        p = tmp / "logs.bin"
        p.write_bytes(logs_bin(entries_of(samples), list(scores)))
        return score_bundle(read_bundle(import_logs(p, tmp / "bundle")), T14)

    return run


def on_time(d2: float = 0.0, d3: float = 0.0, late3: int = 0) -> list:
    return trip(28740.0, AXLE0, [(28800, 1725.0 + d2, 150), (28980, 1870.0 - d2 + d3, 165 + late3)])


CASES += [
    Case("T14", "stand at station 1 for 10 minutes", ZERO, obve(trip(28740.0, AXLE0, [], tail_s=600))),
    Case(
        "T14",
        "drive to station 2 on time, stop there for good",
        EXPLOIT,
        obve(trip(28740.0, AXLE0, [(28800, 1725.0, 150)], tail_s=300)),
        "the penalty-free item is worth the part of the run driven",
    ),
    Case(
        "T14",
        "a perfect run with one overspeed",
        EXPLOIT,
        obve(on_time(), [obve_score(28900.0, 900.0, -15, 1)]),
        "an overspeed anywhere gates",
    ),
    Case(
        "T14",
        "a perfect run past a red signal",
        EXPLOIT,
        obve(on_time(), [obve_score(29000.0, 2000.0, -100, 2)]),
        "a signal passed at danger gates",
    ),
    Case("T14", "on time, on the marks", FAIR, obve(on_time())),
    Case("T14", "2 m over at station 2 and 3, 29 s late (the stated edges)", FAIR, obve(on_time(1.99, 1.99, 29))),
]

# --------------------------------------------------------------------------- T17 berthing
LAT0, LON0 = 50.36, -4.15
APPROACH = [(0, -300, -30, 90), (200, 40, -30, 90)]


def nmea(keyframes: list, depth_m: Any = 8.0, events: list[str] | tuple = ()) -> Callable:
    def run(tmp: Path) -> Score:
        p = tmp / "nmea.log"
        p.write_text(emit(track(keyframes, LAT0, LON0, depth_m=depth_m)), encoding="ascii")
        b = import_nmea(p, tmp / "bundle")
        if events:
            with open(b / "events.jsonl", "a") as fh:
                fh.writelines(e + "\n" for e in events)
        return score_bundle(read_bundle(b), load_task("T17"))

    return run


GENTLE = APPROACH + [(400, 50, -7.0, 90), (460, 50, -6.4, 90), (500, 50, -6.4, 90)]
CASES += [
    Case("T17", "stay 300 m off", ZERO, nmea([(0, -300, -30, 90), (300, -300, -30, 90)])),
    Case(
        "T17",
        "touch the pier gently, back off and drift out of the berth",
        EXPLOIT,
        nmea(GENTLE[:-1] + [(520, 50, -30, 90), (600, 150, -40, 90)]),
        "the contact and no-collision items are worth the share of the hull in the berth",
    ),
    Case(
        "T17",
        "touch gently, back off, then ram the pier at 2 kt",
        EXPLOIT,
        nmea(GENTLE[:-1] + [(520, 50, -15, 90), (530, 50, -5.0, 90), (600, 50, -5.0, 90)]),
        "every contact is judged, and the speeds are the instruction's limits (primary)",
    ),
    Case(
        "T17",
        "a gentle berthing that hit a buoy on the way",
        EXPLOIT,
        nmea(GENTLE, events=['{"t": 120.0, "kind": "collision", "data": {"other": "buoy"}}']),
        "a collision anywhere gates",
    ),
    Case("T17", "a gentle berthing", FAIR, nmea(GENTLE)),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.task}: {c.name}")
def test_adversarial_table(tmp_path, case):
    s = case.make(tmp_path)
    assert s.status == "scored", f"{case.task} {case.name}: unscored: {s.reason}"
    detail = f"{case.task} {case.name}: score {s.score} raw {s.raw_score} — {s.explanation}"
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
    assert set(kinds) == {"T06", "T07", "T13", "T14", "T17", "T18"}
    assert all(k == {EXPLOIT, FAIR, ZERO} for k in kinds.values()), kinds
    assert all(c.why for c in CASES if c.kind == EXPLOIT)
    assert not math.isnan(L06)
