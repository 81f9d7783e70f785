"""T11@PHJR, T03@PHJR and T08@PHJR on the real FlightGear: each starts in its task's state (one
launch a task, properties read back over telnet; T11@PHJR's launch is also the check of T02@PHJR's
and T05@PHJR's start, which is the same lined-up, engine-running ground start on 04R), a do-nothing episode earns nothing, T11's
engine failure is FlightGear's own failure manager, and T08's reference pilot makes T08's
settings through FlightGear's own dialogs in a `simbridge run` episode and earns full marks
from T08's unchanged verifier.

Assertions are on simulator time, telnet reads and verifier results; frame rates are only
reported (a loaded 2-core machine renders 1-12 fps).
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import have_flightgear
from support.flightgear import flightgear_bundle, reference_episode
from support.sampling import SessionSampler

from simbridge._adapter import Sandbox
from simbridge._bundle import read_bundle
from simbridge._errors import HarnessError
from simbridge._task import load_task
from simbridge.adapters.fgproto import TelnetProps
from simbridge.adapters.flightgear import FlightGearSession, launch_spec
from simbridge.adapters.flightgear._mapping import FAILURE_PROPS
from simbridge.adapters.kit import draw_height
from simbridge import score_bundle

pytestmark = [
    pytest.mark.flightgear,
    pytest.mark.slow,
    pytest.mark.display,
    pytest.mark.skipif(not have_flightgear(), reason="needs FlightGear (apt-get install flightgear) and Xvfb"),
]


def _wait_prop(tn: Any, node: str, ok: Any, timeout_s: float = 120.0) -> str:
    """Until `ok(value)` holds for the property (polled over telnet); the last value read."""
    deadline = time.monotonic() + timeout_s
    value = ""
    while time.monotonic() < deadline:
        value = tn.get(node)
        if ok(value):
            return value
        time.sleep(0.5)
    raise AssertionError(f"{node} never satisfied the check in {timeout_s:g} s (last {value!r})")


def _score(
    path: Path, s: FlightGearSession, collector: SessionSampler, task_id: str, t_end: float, snaps: dict, events=()
) -> Any:
    bundle = flightgear_bundle(path, s, collector.upto(t_end), task_id, snaps, events=events)
    return score_bundle(read_bundle(bundle), load_task(task_id))


def _distance_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    a = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2
    return 2 * 6371008.8 * math.asin(math.sqrt(a))


def test_t11_phjr_lined_up_with_the_failure_armed_and_it_fires_at_the_drawn_height(xvfb, tmp_path):
    task = load_task("T11@PHJR")
    # T02@PHJR and T05@PHJR start here too: the same place on the command line and the engine
    # started over telnet during setup (T05's calm wind, --wind=0@0, is one option more: the
    # T03@PHJR and P14@PHJR launches of this suite start FlightGear with it)
    for other in ("T02@PHJR", "T05@PHJR"):
        assert launch_spec(load_task(other)).position_args() == launch_spec(task).position_args()
        assert load_task(other).initial_state.engine == task.initial_state.engine == "running"
    seed = 5
    s = FlightGearSession()
    collector = None
    try:
        s.start(task, Sandbox(display=xvfb.display, env={}, workdir=str(tmp_path / "fg")), seed=seed)
        collector = SessionSampler(s)
        tn = s.fg.telnet
        start_snap = s.snapshot()
        # the plan: one engine failure at a height drawn from the seed, not yet injected
        assert start_snap["failure_agl_ft"] == pytest.approx(draw_height(task.id, seed, 400, 1200), abs=0.05)
        assert tn.get(FAILURE_PROPS["engine"]) == "true"
        t_idle = collector.wait_sim(5.0)
        v = collector.upto()[-1].values
        assert v["on_ground"] == 1 and v["engine_running"] == 1 and v["engine_rpm"] > 500
        rwy = task.geometry.runway("04R")
        assert _distance_m(v["lat_deg"], v["lon_deg"], rwy.threshold.lat_deg, rwy.threshold.lon_deg) < 400
        assert abs(((v["heading_true_deg"] - rwy.heading_true_deg) + 180) % 360 - 180) < 10
        consoles = s.check_consoles(list(task.lockdown.disabled_consoles))
        assert consoles["Nasal console"]["state"] == consoles["property browser"]["state"] == "disabled"

        # doing nothing never reaches the failure height: nothing earned, scored (not a harness fault)
        idle = _score(tmp_path / "idle", s, collector, task.id, t_idle, {"start": start_snap, "end": s.snapshot()})
        assert idle.status == "scored" and idle.score == 0.0, idle.explanation
        assert all(e.kind != "failure_injected" for e in s.events())

        # a climb to the drawn height takes minutes at this frame rate: FlightGear's own
        # Position in Air (its presets and `reposition`) puts the aircraft on a 3 nm final at
        # 1,500 ft, above any drawn height, and the plan injects on the first sample up there
        tn.set_many(
            {
                "/sim/presets/airport-id": "PHJR",
                "/sim/presets/runway": "04R",
                "/sim/presets/runway-requested": "1",
                "/sim/presets/parkpos": "",
                "/sim/presets/longitude-deg": "-9999",
                "/sim/presets/latitude-deg": "-9999",
                "/sim/presets/heading-deg": "9999",
                "/sim/presets/offset-distance-nm": "3",
                "/sim/presets/altitude-ft": "1500",
                "/sim/presets/airspeed-kt": "80",
                "/sim/presets/glideslope-deg": "0",
            }
        )
        try:
            tn.run("reposition")
        except HarnessError:  # FlightGear answers once it has loaded the new place
            tn.close()
            s.fg.telnet = tn = _reconnect(s.fg.telnet_port)
        events: list = []
        deadline = time.monotonic() + 180
        while not events and time.monotonic() < deadline:
            events = [e for e in s.events() if e.kind == "failure_injected"]
            time.sleep(0.2)
        [ev] = events
        assert ev.data["system"] == "engine" and ev.data["property"] == FAILURE_PROPS["engine"]
        assert ev.data["trigger_agl_ft"] == start_snap["failure_agl_ft"]
        assert ev.data["agl_ft"] >= ev.data["trigger_agl_ft"]
        # FlightGear's own engine failure: the engine stops, and the actuator holds the engine's
        # magnetos off and its fuel cut off (both read-only): the key switch at BOTH and the
        # starter do not bring it back
        _wait_prop(tn, "/engines/engine[0]/running", lambda x: x == "false")
        tn.set_many({"/controls/switches/magnetos": "3", "/controls/switches/starter": "true"})
        t_off = collector.upto()[-1].t_sim
        collector.wait_sim(t_off + 4.0)
        tn.set("/controls/switches/starter", "false")
        assert tn.get_many(["/controls/engines/engine[0]/magnetos", "/controls/engines/engine[0]/cutoff"]) == [
            "0",
            "true",
        ]
        v = collector.upto()[-1].values
        assert v["engine_running"] == 0 and v["magnetos"] == 3 and v["on_ground"] == 0
        assert s.snapshot()["failure_schedule"][0]["injected_at_t"] == ev.t_sim
    finally:
        if collector is not None:
            collector.stop()
        s.stop()


def test_t03_phjr_on_a_five_mile_final_and_doing_nothing_earns_nothing(xvfb, tmp_path):
    task = load_task("T03@PHJR")
    s = FlightGearSession()
    collector = None
    try:
        s.start(task, Sandbox(display=xvfb.display, env={}, workdir=str(tmp_path / "fg")))
        collector = SessionSampler(s)
        start_snap = s.snapshot()
        collector.wait_sim(0.5)
        v = collector.upto()[0].values
        assert v["on_ground"] == 0 and v["engine_running"] == 1
        rwy = task.geometry.runway("04R")
        out_m = _distance_m(v["lat_deg"], v["lon_deg"], rwy.threshold.lat_deg, rwy.threshold.lon_deg)
        # restarted at the start state (the clean configuration in): 5 nm before the displaced
        # threshold on the extended centreline, at 1,500 ft and about 80 kt, on the runway's
        # heading, wings about level (measured 2 s after the restart: 9,236 m out, 3.7 m right,
        # 1,500 ft, 77.7 kt, 54.1°, bank -2.0°)
        # metres east and north of the threshold (the ellipsoid's metres per degree there)
        lat = math.radians(rwy.threshold.lat_deg)
        north_m = (v["lat_deg"] - rwy.threshold.lat_deg) * (111132.92 - 559.82 * math.cos(2 * lat))
        east_m = (v["lon_deg"] - rwy.threshold.lon_deg) * (111412.84 * math.cos(lat) - 93.5 * math.cos(3 * lat))
        hdg = math.radians(rwy.heading_true_deg)
        off_m = east_m * math.cos(hdg) - north_m * math.sin(hdg)  # right of the centreline
        assert abs(out_m - 5 * 1852) < 150, out_m
        assert abs(off_m) < 15, off_m
        assert abs(v["alt_msl_ft"] - 1500) < 50 and abs(v["ias_kt"] - 80) < 8, v
        assert abs(((v["heading_true_deg"] - rwy.heading_true_deg) + 180) % 360 - 180) < 3
        assert abs(v["bank_deg"]) < 5
        t_end = collector.wait_sim(6.0)
        idle = _score(tmp_path / "idle", s, collector, task.id, t_end, {"start": start_snap, "end": s.snapshot()})
        ts = [x.t_sim for x in collector.upto(t_end)]
        worst_gap_s = max(b - a for a, b in zip(ts, ts[1:]))
        if worst_gap_s > task.max_sample_gap_s:
            # under ~2 fps frames are further apart than T03's 0.5 s: unscored with the gap
            assert idle.status == "unscored" and "gap" in (idle.reason or ""), idle
        else:
            assert idle.status == "scored" and idle.score == 0.0, idle.explanation
    finally:
        if collector is not None:
            collector.stop()
        s.stop()


def _reconnect(port: int, timeout_s: float = 120.0) -> TelnetProps:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return TelnetProps("127.0.0.1", port, timeout_s=30, connect_timeout_s=2)
        except HarnessError:
            if time.monotonic() > deadline:
                raise
            time.sleep(1.0)


def test_t08_phjr_parked_with_its_menus_and_doing_nothing_earns_nothing(xvfb, tmp_path):
    task = load_task("T08@PHJR")
    s = FlightGearSession()
    collector = None
    try:
        s.start(task, Sandbox(display=xvfb.display, env={}, workdir=str(tmp_path / "fg")))
        collector = SessionSampler(s)
        tn = s.fg.telnet
        start_snap = s.snapshot()
        t_idle = collector.wait_sim(3.0)
        v = collector.upto()[-1].values
        assert v["on_ground"] == 1 and v["engine_running"] == 0
        assert start_snap["airport"] == "PHNL" and start_snap["weather"]["mode"] == "preset"
        # the menubar is shown with the task's menus only; the Debug menu (consoles) is off
        menu = "/sim/menubar/default/menu"
        got = dict(
            zip(
                ["visible", "file", "location", "goto", "environment", "equipment", "fail_dlg", "radio", "debug"],
                tn.get_many(
                    [
                        "/sim/menubar/visibility",
                        f"{menu}[0]/enabled",
                        f"{menu}[2]/item[0]/enabled",
                        f"{menu}[2]/item[1]/enabled",
                        f"{menu}[4]/enabled",
                        f"{menu}[5]/enabled",
                        f"{menu}[5]/item[9]/enabled",
                        f"{menu}[5]/item[5]/enabled",
                        f"{menu}[8]/enabled",
                    ]
                ),
            )
        )
        assert got["visible"] == "true" and got["file"] == got["debug"] == "false", got
        assert got["location"] == "false" and got["goto"] != "false", got
        assert got["environment"] != "false" and got["equipment"] != "false" and got["fail_dlg"] != "false", got
        assert got["radio"] == "false", got
        consoles = s.check_consoles(list(task.lockdown.disabled_consoles))
        assert consoles["Nasal console"]["state"] == consoles["property browser"]["state"] == "disabled"
        # with the menubar shown: the Walker menu and the c172p's menu stay off, and the automation
        # the task does not ask for (checklists, simulation rate, Ctrl+Enter's Map) is read back off
        assert tn.get_many([f"{menu}[10]/enabled", f"{menu}[11]/enabled"]) == ["false", "false"]
        for name in ("Walker menu", "checklist automation", "simulation rate", "Map dialog (Ctrl+Enter)"):
            assert consoles[name]["state"] == "disabled", consoles[name]

        idle = _score(tmp_path / "idle", s, collector, task.id, t_idle, {"start": start_snap, "end": s.snapshot()})
        assert idle.status == "scored" and idle.score == 0.0, idle.explanation

    finally:
        if collector is not None:
            collector.stop()
        s.stop()


def test_t08_phjr_reference_pilot_sets_everything_through_the_dialogs_and_earns_full_marks(tmp_path):
    """`simbridge run` with the GUI-only reference pilot (`_setup_dialogs`): Select Airport (its
    reposition from PHNL to PHJR within the episode), Time Settings (the clock warped, the UTC
    date typed), Weather (Manual input, the METAR typed) and System Failures (the vacuum's MTBF),
    each found on the screen and clicked or typed; the end snapshot reaches T08's verifier.
    Measured: 93-139 s of simulator time an episode, 1.0 on every seed flown."""
    result, kinds = reference_episode(tmp_path, "T08@PHJR")
    s = result.score
    assert s is not None and s.status == "scored", s
    got = {c.name: c.earned for c in s.components}
    assert got == {"time_date": 1.0, "weather": 1.0, "failure_scheduled": 1.0, "airport_aircraft": 1.0}, s.explanation
    # GUI only: screenshots, clicks, a drag, keys and typed text
    assert kinds <= {"task", "screenshot", "click", "drag", "key", "type", "wait", "done"}, kinds
