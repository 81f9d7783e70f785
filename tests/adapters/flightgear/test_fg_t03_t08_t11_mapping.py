"""T11's failure injection, T08's settings snapshot and the new site variants, without
FlightGear: the session's poll loop fed real generic-protocol packets over UDP, with the
telnet property server played by the double (`fg_telnet_double.py`)."""

from __future__ import annotations

import socket
import time
from types import SimpleNamespace

import pytest
from fg_telnet_double import TelnetDouble

from simbridge._adapter import Sandbox
from simbridge._errors import HarnessError
from simbridge._task import load_task
from simbridge.adapters.fgproto import GenericProtocol, TelnetProps, UdpReceiver
from simbridge.adapters.flightgear import RAW_CHUNKS, FlightGearSession, launch_spec
from simbridge.adapters.flightgear._mapping import FAILURE_MODES, FAILURE_PROPS, SNAPSHOT_NODES, setup_state
from simbridge.adapters.kit import FailurePlan, draw_height

ENGINE_OK = FAILURE_PROPS["engine"]
#: what the double answers for the snapshot's other reads (the loading, radios, wind)
SNAPSHOT_PROPS = {node: "0" for node in SNAPSHOT_NODES.values()} | {
    **{f"/payload/weight[{i}]/weight-lb": "0" for i in range(5)},
    **{f"/consumables/fuel/tank[{i}]/level-{u}": "0" for i in range(2) for u in ("lbs", "gal_us")},
    "/controls/engines/active-engine": "0",
}


def _raw(agl_ft: float, on_ground: bool) -> dict[str, float]:
    """One c172p frame in the native units the generic protocol carries."""
    raw = {c.name: 0.0 for c in RAW_CHUNKS}
    raw.update(
        agl_ft=agl_ft,
        alt_ft=agl_ft + 12.0,
        airspeed_kt=70.0,
        wow_left=float(on_ground),
        wow_right=float(on_ground),
        running=1.0,
        rpm=2300.0,
    )
    return raw


def _wired_session(task_id: str, seed: int, double: TelnetDouble) -> tuple[FlightGearSession, UdpReceiver]:
    """A session whose FlightGear is a UDP receiver fed by the test and the telnet double, with
    the failure plan `start` makes for the task (no fgfs is launched)."""
    s = FlightGearSession()
    task = load_task(task_id)
    s._failures = FailurePlan.from_task(task, seed, FAILURE_PROPS)
    proto = GenericProtocol(RAW_CHUNKS, name="simbridge-c172p")
    rx = UdpReceiver(proto, host="127.0.0.1", port=0).start()
    s.fg = SimpleNamespace(udp=rx, telnet=TelnetProps("127.0.0.1", double.port, timeout_s=5))  # type: ignore[assignment]
    s._t0 = 0.0
    return s, rx


def _send_climb(rx: UdpReceiver, heights_ft: list[tuple[float, bool]], t0_s: float = 0.0) -> None:
    proto = GenericProtocol(RAW_CHUNKS, name="simbridge-c172p")
    out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        for i, (agl, ground) in enumerate(heights_ft):
            out.sendto(proto.encode(t0_s + i, _raw(agl, ground)), ("127.0.0.1", rx.port))
    finally:
        out.close()


def _poll_until(s: FlightGearSession, n: int) -> list:
    got: list = []
    deadline = time.monotonic() + 10
    while len(got) < n and time.monotonic() < deadline:
        got += s.poll()
        time.sleep(0.02)
    assert len(got) == n
    return got


def test_t11_engine_fails_through_the_failure_manager_at_the_drawn_height():
    double = TelnetDouble(SNAPSHOT_PROPS | {ENGINE_OK: "true"})
    seed = 7
    s, rx = _wired_session("T11@PHJR", seed, double)
    try:
        want = draw_height("T11@PHJR", seed, 400, 1200)
        # ground roll, lift-off and a climb in 50 ft steps through the drawn height
        climb = [(0.0, True)] * 3 + [(float(h), False) for h in range(0, 1301, 50)]
        _send_climb(rx, climb)
        samples = _poll_until(s, len(climb))
        [ev] = [e for e in s.events() if e.kind == "failure_injected"]
        first_at_or_above = next(x for x in samples if x.values["on_ground"] == 0 and x.values["alt_agl_ft"] >= want)
        assert ev.t_sim == first_at_or_above.t_sim
        assert ev.data["trigger_agl_ft"] == pytest.approx(want, abs=0.05)
        assert ev.data["agl_ft"] == first_at_or_above.values["alt_agl_ft"]
        assert ev.data["system"] == "engine" and ev.data["property"] == ENGINE_OK
        assert double.props[ENGINE_OK] == "false"  # FlightGear's own failure manager is told
        # once only, and the plan (the drawn height) is in the snapshot the verifier reads
        _send_climb(rx, [(1400.0, False)], t0_s=samples[-1].t_sim + 1.0)
        _poll_until(s, 1)
        assert not [e for e in s.events() if e.kind == "failure_injected"]
        snap = s.snapshot()
        assert snap["failure_agl_ft"] == pytest.approx(want, abs=0.05)
        assert snap["failure_schedule"][0]["injected_at_t"] == ev.t_sim
    finally:
        rx.close()
        double.close()


def test_t11_a_taxi_on_the_ground_never_fails_the_engine():
    double = TelnetDouble({ENGINE_OK: "true"})
    s, rx = _wired_session("T11@PHJR", 1, double)
    try:
        # a hangar floor "AGL" reading above the trigger while still on the wheels: not airborne
        _send_climb(rx, [(2000.0, True)] * 5)
        _poll_until(s, 5)
        assert s.events() == [] and double.props[ENGINE_OK] == "true"
    finally:
        rx.close()
        double.close()


def test_a_failure_flightgear_cannot_inject_is_refused_before_launch(tmp_path):
    task = load_task("T11@PHJR")
    st = task.initial_state.model_copy(
        update={"failures": [task.initial_state.failures[0].model_copy(update={"system": "hydraulics"})]}
    )
    task = task.model_copy(update={"initial_state": st})
    with pytest.raises(HarnessError, match="failure of 'hydraulics'.*cannot inject"):
        FlightGearSession().start(task, Sandbox(display=":0", env={}, workdir=str(tmp_path)))


def test_variants_launch_options():
    t03 = launch_spec(load_task("T03@PHJR"))
    assert not t03.on_ground
    assert t03.position_args() == [
        "--airport=PHJR",
        "--runway=04R",
        "--offset-distance=5.0",
        "--altitude=1500.0",
        "--vc=80.0",
        "--heading=54.8",
    ]
    t11 = launch_spec(load_task("T11@PHJR"))
    assert t11.on_ground and t11.position_args() == ["--airport=PHJR", "--runway=04R", "--heading=54.8"]


#: what FlightGear 2020.3 answered at PHJR with its defaults (measured on this package): today
#: at local noon, the Fair weather scenario, no failure armed
FG_DEFAULTS = {
    "gmt": "2026-12-01T22:20:25",
    "local_offset_s": "-36000",
    "realwx": "false",
    "metar_updates": "true",
    "scenario": "Fair weather",
    "metar_valid": "true",
    "metar_wind_dir": "150",
    "metar_wind_kt": "3",
    "metar_vis_m": "19312.09",
    "station_elev_ft": "20",
    "bl_elev_ft": "0",
    "bl_wind_dir": "150",
    "bl_wind_kt": "3",
    "bl_vis_m": "19312.09",
    "cloud0_coverage": "scattered",
    "cloud0_base_ft": "4120.000003",
    "cloud1_coverage": "few",
    "cloud1_base_ft": "20020",
    **{f"cloud{i}_coverage": "clear" for i in (2, 3, 4)},
    **{f"cloud{i}_base_ft": "-9999.000369" for i in (2, 3, 4)},
    **{f"fail:{m}:serviceable": "true" for m in FAILURE_MODES},
    **{f"fail:{m}:{t}": "0" for m, t in FAILURE_MODES.items()},
}

#: the same after what the Time Settings, Weather (Manual input METAR) and System Failures
#: dialogs write (values read back on the real FlightGear after setting them)
FG_SET = FG_DEFAULTS | {
    "gmt": "2026-12-22T02:30:10",
    "scenario": "Manual input",
    "metar_wind_dir": "270",
    "metar_wind_kt": "15",
    "metar_vis_m": "8046.706098",
    "bl_wind_dir": "270",
    "bl_wind_kt": "14.12182289",  # FlightGear's boundary layer slows the METAR wind near the ground
    "bl_vis_m": "8126.402715",
    "cloud0_coverage": "broken",
    "cloud0_base_ft": "1519.999967",
    "cloud1_coverage": "clear",
    "cloud1_base_ft": "-9999.000369",
    "fail:systems/vacuum:mtbf": "360000",
}


def _score_setup(tmp_path, raw: dict[str, str], airport: str) -> tuple[dict, object]:
    from simbridge._bundle import BundleWriter, EpisodeInfo, read_bundle
    from simbridge import score_bundle

    task = load_task("T08@PHJR")
    end = setup_state(raw) | {"airport": airport, "aircraft": "c172p"}
    ep = EpisodeInfo(task_id=task.id, sim="flightgear", adapter="test", provider="test", agent="none")
    w = BundleWriter(tmp_path / airport, ep, ["on_ground"])
    for i in range(5):
        w.sample(float(i), {"on_ground": 1.0})
    w.snapshots({"start": {}, "end": end})
    return end, score_bundle(read_bundle(w.finish("completed", "mapping check")), task)


def test_t08_flightgear_defaults_map_to_a_setup_that_earns_nothing(tmp_path):
    end, score = _score_setup(tmp_path, FG_DEFAULTS, "PHNL")
    assert end["local_date_days"] == 334 and end["local_time_s"] == 12 * 3600 + 20 * 60 + 25  # Dec 1, 12:20:25
    assert end["weather"]["mode"] == "preset" and end["failures"] == []
    assert score.status == "scored" and score.score == 0.0, score.explanation


def test_t08_dialog_settings_map_to_full_marks(tmp_path):
    end, score = _score_setup(tmp_path, FG_SET, "PHJR")
    # Dec 21 16:30:10 local (UTC-10) is day 354 of the year, 0-based
    assert end["local_date_days"] == 354 and end["local_time_s"] == 16 * 3600 + 30 * 60 + 10
    wx = end["weather"]
    assert wx["mode"] == "manual" and wx["wind_layers"] == [{"alt_msl_ft": 20.0, "dir_degt": 270.0, "speed_kt": 15.0}]
    assert wx["cloud_layers"][0] == {"coverage": "broken", "base_msl_ft": pytest.approx(1520.0)}
    assert end["failures"] == [
        {"system": "vacuum", "trigger": {"kind": "mtbf_h", "value": 100.0}, "failed": False, "mode": "systems/vacuum"}
    ]
    assert score.status == "scored" and score.score == pytest.approx(1.0), score.explanation


def test_t08_manual_configuration_reads_the_boundary_layer_and_a_fired_failure_is_failed():
    # Manual Configuration: METAR no longer drives the environment; the agent's boundary entry
    manual = FG_SET | {"metar_updates": "false", "scenario": "Fair weather", "bl_wind_kt": "15"}
    wx = setup_state(manual)["weather"]
    assert wx["mode"] == "manual" and wx["wind_layers"][0]["speed_kt"] == 15.0
    assert wx["visibility_m"] == pytest.approx(8126.4, abs=0.1)
    live = setup_state(FG_SET | {"realwx": "true"})["weather"]
    assert live["mode"] == "real"
    # the MTBF fired: FlightGear resets it to 0 and marks the mode unserviceable
    fired = setup_state(FG_SET | {"fail:systems/vacuum:mtbf": "0", "fail:systems/vacuum:serviceable": "false"})
    assert fired["failures"] == [
        {"system": "vacuum", "trigger": {"kind": "inoperative"}, "failed": True, "mode": "systems/vacuum"}
    ]
    # an MCBF-armed flap failure is another armed failure, in cycles
    flaps = setup_state(FG_SET | {"fail:controls/flight/flaps:mcbf": "20"})["failures"]
    assert {"system": "flight/flaps", "trigger": {"kind": "mcbf", "value": 20.0}, "failed": False} in [
        {k: v for k, v in f.items() if k != "mode"} for f in flaps
    ]


def test_t08_menus_are_the_tasks_only():
    from pathlib import Path

    from simbridge.adapters.flightgear._lockdown import TASK_MENUS, menu_overrides

    fg_root = Path("/usr/share/games/flightgear")
    if not (fg_root / "gui" / "menubar.xml").exists():
        pytest.skip("FlightGear data not installed")
    props = menu_overrides(fg_root, TASK_MENUS["T08"])
    # File, View, Autopilot, AI, Multiplayer, Debug, Help and the c172p's menu off
    for i in (0, 1, 3, 6, 7, 8, 9, 10):
        assert f"--prop:/sim/menubar/default/menu[{i}]/enabled=false" in props
    # Location: only Select Airport (item 1); Environment: weather, settings, time (items 0-2)
    assert "--prop:/sim/menubar/default/menu[2]/item[1]/enabled=false" not in props
    assert "--prop:/sim/menubar/default/menu[2]/item[0]/enabled=false" in props
    assert not [p for p in props if "/menu[4]/item[0]" in p or "/menu[4]/item[2]" in p]
    assert "--prop:/sim/menubar/default/menu[4]/item[3]/enabled=false" in props  # wildfire
    with pytest.raises(ValueError, match="no menu named nosuch"):
        menu_overrides(fg_root, {"nosuch": ()})


def test_a_dialog_task_allows_the_stream_pause_of_a_reposition(tmp_path):
    from simbridge._adapter import TELEMETRY_STALL_S
    from simbridge._end_watch import _stall_s
    from simbridge.adapters.flightgear._session import DIALOG_STREAM_LOST_S

    pull = Sandbox(display=":0", env={}, workdir=str(tmp_path), telemetry="pull")
    sessions = {}
    for task_id in ("T08@PHJR", "T11@PHJR"):
        s = sessions[task_id] = FlightGearSession()
        # refused before anything is launched (FlightGear needs a pushed stream), once planned
        with pytest.raises(HarnessError, match="telemetry=pull"):
            s.start(load_task(task_id), pull)
    # Select Airport pauses FlightGear's stream for ~15 s: T08's session (and the runner) wait
    assert sessions["T08@PHJR"].telemetry_stall_s == DIALOG_STREAM_LOST_S
    assert _stall_s(sessions["T08@PHJR"]) == DIALOG_STREAM_LOST_S
    # a flying task keeps the runner's own stall limit
    assert sessions["T11@PHJR"].telemetry_stall_s is None and _stall_s(sessions["T11@PHJR"]) == TELEMETRY_STALL_S


def test_frames_of_a_standing_clock_make_one_sample():
    double = TelnetDouble({ENGINE_OK: "true"})
    s, rx = _wired_session("T11@PHJR", 1, double)
    proto = GenericProtocol(RAW_CHUNKS, name="simbridge-c172p")
    out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        # FlightGear renders frames with a frozen clock while paused or repositioning
        for t in (0.0, 0.5, 0.5, 0.5, 1.0, 0.75, 1.5):
            out.sendto(proto.encode(t, _raw(0.0, True)), ("127.0.0.1", rx.port))
        got = _poll_until(s, 4)
        assert [x.t_sim for x in got] == [0.0, 0.5, 1.0, 1.5]
    finally:
        out.close()
        rx.close()
        double.close()
