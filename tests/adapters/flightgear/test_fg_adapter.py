"""FlightGear adapter without FlightGear: the c172p mapping, the lockdown file, launch options
from task specs, and the telnet recorder against a telnet-protocol double."""

from __future__ import annotations

import math
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from fg_telnet_double import TelnetDouble

from simbridge._bundle import read_bundle
from simbridge._canonical import is_canonical
from simbridge._errors import HarnessError
from simbridge._task import load_task
from simbridge.adapters.fgproto import GenericProtocol
from simbridge.adapters.flightgear import (
    KEY_WHITELIST,
    RAW_CHUNKS,
    SIGNALS,
    CanonicalMapper,
    LaunchSpec,
    TelnetRecorder,
    launch_spec,
    render_lockdown,
)
from simbridge.adapters.flightgear._launch import FlightGearProcess
from simbridge.adapters.flightgear._lockdown import keyboard_bindings

FG_ROOT = Path("/usr/share/games/flightgear")
needs_fgdata = pytest.mark.skipif(not (FG_ROOT / "keyboard.xml").exists(), reason="FlightGear data not installed")

COLD = {c.name: 0.0 for c in RAW_CHUNKS} | {
    "tank0_selected": 1.0,
    "tank1_selected": 1.0,
    "parking_brake": 1.0,
    "xpdr_knob": 4.0,
    "heading_mag": 19.6,
    "heading_true": 29.1,
}


def test_every_mapped_signal_is_canonical():
    assert all(is_canonical(s) for s in SIGNALS)
    out = CanonicalMapper()(COLD)
    assert set(out) == set(SIGNALS)


def test_cold_and_dark_maps_to_the_checklist_vocabulary():
    out = CanonicalMapper()(COLD)
    assert out["fuel_selector"] == 3 and out["parking_brake"] == 1
    assert out["magnetos"] == 0 and out["engine_running"] == 0 and out["master_bat"] == 0
    assert out["xpdr_mode"] == 2  # KT-76 ON
    assert out["heading_mag_deg"] == pytest.approx(19.6)


def test_starter_is_magnetos_start_and_selector_variants():
    m = CanonicalMapper()
    assert m(COLD | {"magnetos": 3, "starter": 1})["magnetos"] == 4
    assert m(COLD | {"magnetos": 3, "starter": 0})["magnetos"] == 3
    assert m(COLD | {"tank1_selected": 0})["fuel_selector"] == 1
    assert m(COLD | {"tank0_selected": 0})["fuel_selector"] == 2
    assert m(COLD | {"tank0_selected": 0, "tank1_selected": 0})["fuel_selector"] == 0


def test_units_and_deflection_signs():
    out = CanonicalMapper()(COLD | {"vs_fps": 10.0, "cdi_norm": 0.4, "gs_norm": -0.2, "heading_true": 361.0})
    assert out["vs_fpm"] == pytest.approx(600.0)
    # needle right (+) means the aircraft is left of course: canonical negative
    assert out["loc_dev_dots"] == pytest.approx(-1.0)
    # needle down (-) means the aircraft is above the glidepath: canonical positive
    assert out["gs_dev_dots"] == pytest.approx(0.5)
    assert out["heading_true_deg"] == pytest.approx(1.0)


def test_primer_strokes_survive_the_c172p_reset():
    m = CanonicalMapper()
    seq = [0, 1, 2, 3, 0, 0, 1]  # the c172p zeroes its counter 5 s after cranking
    got = [m(COLD | {"primer": p})["primer_strokes"] for p in seq]
    assert got == [0, 1, 2, 3, 3, 3, 4]


def test_kap140_modes():
    m = CanonicalMapper()
    out = m(COLD | {"ap_roll_axis": 1, "ap_apr_hold": 1, "ap_roll_mode": 5, "ap_pitch_mode": 1})
    assert (out["autopilot_on"], out["ap_apr"], out["ap_loc_captured"], out["ap_gs_captured"]) == (1, 1, 1, 0)
    assert m(COLD | {"ap_pitch_mode": 3})["ap_gs_captured"] == 1


def test_missing_values_are_nan_not_zero():
    out = CanonicalMapper()({})
    assert math.isnan(out["engine_rpm"]) and math.isnan(out["lat_deg"])


@needs_fgdata
def test_lockdown_nulls_every_binding_outside_the_whitelist():
    xml = render_lockdown(FG_ROOT, "c172p", KEY_WHITELIST)
    root = ET.fromstring(xml)
    assert root.findtext("sim/menubar/visibility") == "false"
    nulled = {int(k.get("n")): k for k in root.find("input/keyboard").findall("key")}
    for code in (
        47,
        58,
        266,
        21,
        27,
        112,
        97,
        65,
        116,
        84,
        267,
        268,
        9,
        63,
        18,
    ):  # / : F10 ^U Esc p a A t T F11 F12 Tab ? ^R
        assert code in nulled, code
        cmds = [b.findtext("command") for b in nulled[code].iter("binding")]
        assert cmds and set(cmds) == {"null"}
    # Esc also resets with Shift (mod-shift branch)
    assert nulled[27].find("mod-shift/binding").findtext("command") == "null"
    for code in (109, 115, 125, 123, 360, 361, 66):  # m s } { PgUp PgDn B
        # a whitelisted key keeps its own binding, fired once per press (no wall-clock key repeat);
        # only its Ctrl/Alt/Meta branches are nulled
        assert nulled[code].find("binding") is None, code
        assert nulled[code].findtext("repeatable") == "false", code
        mods = {c.tag for c in nulled[code]} - {"repeatable"}
        assert mods <= {"mod-ctrl", "mod-alt", "mod-meta", "mod-super", "mod-hyper"}
    # Ctrl+Enter (key 10 with Ctrl) opens the Map dialog in keyboard.xml: nulled, Enter itself kept
    assert nulled[10].find("binding") is None
    assert nulled[10].find("mod-ctrl/binding").findtext("command") == "null"
    # every binding of every source is covered, including keys the c172p includes through
    # walker-include.xml (key 97 'a' has 4 bindings there, not 1 as in keyboard.xml)
    source = keyboard_bindings(FG_ROOT, "c172p")
    assert source[97][""] == 4
    for code, branches in source.items():
        if code in KEY_WHITELIST:
            continue
        assert sum(branches.values()) <= len(list(nulled[code].iter("binding")))
        assert len(nulled[code].findall("binding")) >= max(4, branches.get("", 0))


@needs_fgdata
def test_f9_payload_dialog_only_for_t15():
    assert 265 not in launch_spec(load_task("T01@PHJR")).allowed_keys
    assert 265 in launch_spec(load_task("T15")).allowed_keys


def test_launch_options_from_tasks():
    g = launch_spec(load_task("T01@PHJR"))
    assert g.position_args() == ["--airport=PHJR", "--parking-id=Ramp_Central", "--heading=29.13"]
    assert g.on_ground
    a = launch_spec(load_task("T10@PHNL"))
    assert not a.on_ground
    assert a.position_args() == [
        "--airport=PHNL",
        "--runway=08L",
        "--offset-distance=12.0",
        "--altitude=4000.0",
        "--vc=90.0",
        "--heading=90.0",
    ]
    with pytest.raises(HarnessError):
        LaunchSpec(on_ground=False, airport="PHNL").position_args()


def test_command_line_has_software_rendering_options_and_no_httpd(tmp_path):
    p = FlightGearProcess(
        launch_spec(load_task("T01@PHJR")), GenericProtocol(RAW_CHUNKS), workdir=tmp_path, display=":99", cache_dir=None
    )

    class _Rx:
        port = 5599

    p.udp = _Rx()
    p.telnet_port = 5401
    argv = p.command()
    assert "--texture-filtering=1" in argv
    assert not any(a.startswith("--httpd") for a in argv)
    assert not any("allow-nasal-from-sockets" in a for a in argv)
    assert any(a.startswith("--generic=socket,out,60,127.0.0.1,5599,udp,") for a in argv)
    assert f"--config={tmp_path / 'lockdown.xml'}" in argv
    # the c172p's own menu and the Walker menu are disabled on every launch, menubar shown or not
    assert "--prop:/sim/menubar/default/menu[10]/enabled=false" in argv
    assert "--prop:/sim/menubar/default/menu[11]/enabled=false" in argv
    # the lockdown's Nasal module (checklist bindings removed, speed-up held at 1) is in the config
    script = ET.parse(tmp_path / "lockdown.xml").getroot().findtext("nasal/simbridge_lockdown/script")
    assert 'getNode("/sim/checklists")' in script and 'setlistener("/sim/speed-up"' in script
    assert "/sim/simbridge/lockdown" in script
    # the c172p's frame-time throttle and mixture steps are replaced by fixed ones (0.01, 0.05)
    assert 'controls.incThrottle = func { step_engines("throttle", arg[0]); };' in script
    assert 'step_engines("mixture", 0.05 * speed)' in script
    env = p.environment()
    assert env["DBUS_FATAL_WARNINGS"] == "0" and env["DISPLAY"] == ":99"


def test_missing_fgfs_is_a_harness_error(tmp_path):
    p = FlightGearProcess(
        launch_spec(load_task("T01@PHJR")),
        GenericProtocol(RAW_CHUNKS),
        workdir=tmp_path,
        display=":99",
        fgfs=str(tmp_path / "no-fgfs"),
        cache_dir=None,
    )
    with pytest.raises(HarnessError, match="cannot start"):
        p.start(timeout_s=5)


def test_recorder_of_a_silent_telnet_server_ends_harness_error(tmp_path):
    """Record-only has no agent: FlightGear's telnet going quiet mid-recording is a stall (unscored)."""
    import threading

    t0 = time.monotonic()
    props = {c.node: "0" for c in RAW_CHUNKS} | {
        "/sim/time/elapsed-sec": "0",
        "/sim/version/flightgear": "2020.3.16 (double)",
    }
    props |= {
        node: "1"
        for node in __import__("simbridge.adapters.flightgear", fromlist=["SNAPSHOT_NODES"]).SNAPSHOT_NODES.values()
    }
    d = TelnetDouble(props)
    d.live["/sim/time/elapsed-sec"] = lambda: 100.0 + (time.monotonic() - t0)
    threading.Timer(0.5, setattr, args=(d, "mute", True)).start()
    try:
        path = TelnetRecorder("127.0.0.1", d.port, timeout_s=1.0).record(tmp_path / "b", seconds=30.0, hz=20)
    finally:
        d.close()
    b = read_bundle(path)
    assert b.episode.status == "harness_error" and b.episode.status_detail.startswith("record-only:")
    assert 0 < b.signals.t[-1] < 30.0


def test_recorder_polls_the_double_and_writes_a_readable_bundle(tmp_path):
    t0 = time.monotonic()
    props = {c.node: "0" for c in RAW_CHUNKS} | {
        "/sim/time/elapsed-sec": "0",
        "/sim/version/flightgear": "2020.3.16 (double)",
        "/engines/engine[0]/running": "true",
        "/engines/engine[0]/rpm": "1000.5",
        "/consumables/fuel/tank[0]/selected": "true",
        "/consumables/fuel/tank[1]/selected": "true",
    }
    props |= {
        node: "1"
        for node in __import__("simbridge.adapters.flightgear", fromlist=["SNAPSHOT_NODES"]).SNAPSHOT_NODES.values()
    }
    d = TelnetDouble(props)
    d.live["/sim/time/elapsed-sec"] = lambda: 100.0 + (time.monotonic() - t0)
    try:
        path = TelnetRecorder("127.0.0.1", d.port).record(tmp_path / "b", seconds=1.0, hz=20, task_id="T01@PHJR")
    finally:
        d.close()
    b = read_bundle(path)
    assert b.episode.status == "completed" and b.episode.sim_version.startswith("2020.3")
    assert b.signals.t[0] == 0.0 and b.signals.t[-1] >= 1.0
    assert set(b.signals["engine_rpm"]) == {1000.5}
    assert set(b.signals["fuel_selector"]) == {3.0}
    assert b.snapshot("start", "weight_lbs") == 1.0
