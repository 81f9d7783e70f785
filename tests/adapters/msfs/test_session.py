"""MsfsSession, MsfsRecorder and the .FLT files against the SimConnect double (not MSFS)."""

import math
import time

import pytest
from doubles.simconnect_double import SimConnectDouble

from simbridge._adapter import Sandbox
from simbridge._bundle import read_bundle
from simbridge._cli import main
from simbridge._task import load_task
from simbridge.adapters.msfs import _flt, _mapping
from simbridge.adapters.msfs._client import SetupClosed
from simbridge.adapters.msfs._session import MsfsSession


def test_shipped_flt_files_match_the_tasks(tmp_path):
    for p in _flt.generate(tmp_path):
        assert p.read_bytes() == (_flt.FLIGHTS_DIR / p.name).read_bytes(), (
            f"{p.name}: regenerate with python -m simbridge.adapters.msfs._flt"
        )


def test_flt_round_trips_the_t03_start():
    st = _flt.read_flt(_flt.FLIGHTS_DIR / "T03.FLT")
    ist = load_task("T03").initial_state
    assert st["lat_deg"] == pytest.approx(ist.position.lat_deg, abs=1e-5)
    assert st["lon_deg"] == pytest.approx(ist.position.lon_deg, abs=1e-5)
    assert st["alt_msl_ft"] == 1500 and st["heading_true_deg"] == 322 and st["ias_kt"] == pytest.approx(80, abs=0.01)
    assert st["assists"] == {"AutoRudder": False, "LandingAssist": False, "AssistsLocked": True}


def test_bcd_and_sign_conversions():
    assert _mapping.xpdr_code(0x4521) == 4521
    with pytest.raises(ValueError, match="above 7"):
        _mapping.xpdr_code(0x1289)
    with pytest.raises(ValueError, match="not BCD"):
        _mapping.bcd16_digits(0x1A00)
    assert _mapping.freq_bcd16_to_mhz(0x1860) == pytest.approx(118.60)
    assert _mapping.mhz_to_freq_bcd16(125.0) == 0x2500
    assert _mapping.TABLE["bank_deg"].convert(10.0) == -10.0  # MSFS positive = left wing down


def sandbox(d, tmp_path, **info):
    return Sandbox(
        display=":0",
        env={},
        workdir=str(tmp_path),
        info={
            "msfs": {
                "host": "127.0.0.1",
                "port": d.port,
                "flights_dir": str(_flt.FLIGHTS_DIR),
                "ready_timeout_s": 10,
                **info,
            }
        },
    )


def test_t03_session_loads_the_flight_checks_assists_and_records_frames(tmp_path):
    d = SimConnectDouble(hz=60.0).start()
    d.script.overrides["auto_rudder"] = 1.0  # the simulator starts with auto-rudder on
    s = MsfsSession()
    try:
        s.start(load_task("T03"), sandbox(d, tmp_path))
        assert d.loaded == [str(_flt.FLIGHTS_DIR / "T03.FLT")]
        assert ("AUTO_COORDINATION_TOGGLE", 0) in d.events_in
        snap = s.snapshot()
        assert (
            snap["assists"]["auto_rudder"]["state"] == "off" and snap["assists"]["landing_assist"]["checked"] is False
        )
        assert snap["radios"]["xpdr_code"] == 1200 and snap["radios"]["com1_mhz"] == pytest.approx(118.6)
        samples = []
        deadline = time.monotonic() + 10
        while len(samples) < 30 and time.monotonic() < deadline:
            samples += s.poll()
            time.sleep(0.02)
        assert len(samples) >= 30
        v = samples[-1].values
        ist = load_task("T03").initial_state
        assert abs(v["lat_deg"] - ist.position.lat_deg) < 0.01 and v["on_ground"] == 0
        # canonical bank is right wing down positive: the negated MSFS value, in degrees
        assert v["bank_deg"] == pytest.approx(-math.degrees(d.script.values(s.logger.t0 + samples[-1].t_sim)["bank"]))
        dts = [b.t_sim - a.t_sim for a, b in zip(samples, samples[1:])]
        assert max(dts) < 0.1  # per sim frame (60 Hz), nothing thinned
        with pytest.raises(SetupClosed):
            s.client.set_data(11, [0.0] * 12)
        s.set_paused(True)
        deadline = time.monotonic() + 5
        while not s.logger.paused and time.monotonic() < deadline:
            time.sleep(0.01)
        assert s.alive() and [e.kind for e in s.events()].count("pause") == 1
        s.set_paused(False)
    finally:
        s.stop()
        d.stop()


def test_crash_event_and_lost_connection_is_a_harness_fault(tmp_path):
    d = SimConnectDouble(hz=60.0, crash_at_s=0.3).start()
    s = MsfsSession()
    try:
        s.start(load_task("T09"), sandbox(d, tmp_path))
        deadline = time.monotonic() + 10
        kinds: list[str] = []
        while "crash" not in kinds and time.monotonic() < deadline:
            s.poll()
            kinds += [e.kind for e in s.events()]
            time.sleep(0.02)
        assert "crash" in kinds
        time.sleep(0.3)
        s.poll()
        kinds += [e.kind for e in s.events()]
        assert kinds.count("crash") == 1  # the Crashed event and CRASH FLAG are one crash
        d.quit_all()
        deadline = time.monotonic() + 5
        while s.alive() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not s.alive() and "Quit" in s.lost_reason()
    finally:
        s.stop()
        d.stop()


def test_unknown_protocol_year_is_a_harness_error(tmp_path):
    d = SimConnectDouble(hz=60.0).start()
    s = MsfsSession()
    try:
        from simbridge._errors import HarnessError

        with pytest.raises(HarnessError, match="protocol '2022'"):
            s.start(load_task("T16"), sandbox(d, tmp_path, protocol="2022"))
    finally:
        s.stop()
        d.stop()


def test_record_cli_writes_a_bundle_from_the_double(tmp_path, capsys):
    d = SimConnectDouble(hz=60.0).start()
    try:
        rc = main(
            [
                "record",
                "--sim",
                "msfs",
                "--host",
                "127.0.0.1",
                "--port",
                str(d.port),
                "--seconds",
                "1",
                "--hz",
                "60",
                "--out",
                str(tmp_path / "b"),
            ]
        )
    finally:
        d.stop()
    assert rc == 0, capsys.readouterr().err
    b = read_bundle(tmp_path / "b")
    assert b.episode.sim == "msfs" and b.episode.status == "completed"
    n = len(b.signals.t)
    assert 50 <= n <= 62 and not b.signals.missing(list(_mapping.TABLE))


def test_record_cli_without_a_server_is_one_line_exit_5(tmp_path, capsys):
    rc = main(
        [
            "record",
            "--sim",
            "msfs",
            "--host",
            "127.0.0.1",
            "--port",
            "9",
            "--seconds",
            "1",
            "--out",
            str(tmp_path / "b"),
        ]
    )
    err = capsys.readouterr().err
    assert rc == 5 and "no SimConnect server at 127.0.0.1:9" in err and len(err.strip().splitlines()) == 1


def test_simconnect_ports_are_state_ports_the_audit_probes():
    from simbridge._providers import state_ports

    assert state_ports(None, MsfsSession) == ([500, 2048], [])  # the adapter's own, without a task
    for tid in _flt.TASKS:
        task = load_task(tid)
        tcp, _udp = state_ports(task, MsfsSession)
        assert {500, 2048} <= set(tcp)
        assert {p.port for p in task.lockdown.blocked_ports} >= {500}


def test_touchdown_event_from_plane_touchdown_vars(tmp_path):
    from doubles.simconnect_double import C172Script

    from simbridge.adapters.msfs import MsfsRecorder

    d = SimConnectDouble(hz=60.0).start()
    script = C172Script(alt_ft=17.0, td_sink_fpm=240.0)  # 10 ft above the runway at 500 fpm: down at 1.2 s
    d.script = script
    try:
        path = MsfsRecorder("127.0.0.1", d.port).record(tmp_path / "b", seconds=2.5, hz=60)
    finally:
        d.stop()
    b = read_bundle(path)
    td = b.events_of("touchdown")
    assert len(td) == 1 and td[0].data["vs_fpm"] == pytest.approx(-240.0)
    # the recording's clock starts at its first sample, some frames into the script (connecting
    # takes wall time); the altitude of that sample says which script second it was
    script_t_first = (script.alt_ft - b.signals["alt_msl_ft"][0]) / script.descent_fpm * 60.0
    assert script_t_first < script.t_td
    assert td[0].t - b.signals.t[0] == pytest.approx(script.t_td - script_t_first, abs=1.5 / 60)


def test_recorder_reconnects_after_msfs_quits(tmp_path):
    import threading

    from simbridge.adapters.msfs import MsfsRecorder

    d = SimConnectDouble(hz=60.0).start()
    threading.Timer(0.8, d.quit_all).start()  # MSFS closes mid-recording and comes back (same port)
    try:
        path = MsfsRecorder("127.0.0.1", d.port, reconnect_timeout_s=10).record(tmp_path / "b", seconds=2.0, hz=60)
    finally:
        d.stop()
    b = read_bundle(path)
    assert b.episode.status == "completed" and "reconnected" in b.episode.flags
    assert len(b.events_of("sim_restart")) == 1
    t = b.signals.t
    assert (t[1:] > t[:-1]).all() and t[-1] >= 1.9  # the clock continued, never went back


def test_recorder_without_reconnect_ends_as_harness_error(tmp_path):
    import threading

    from simbridge.adapters.msfs import MsfsRecorder

    d = SimConnectDouble(hz=60.0).start()
    threading.Timer(0.5, d.quit_all).start()
    try:
        path = MsfsRecorder("127.0.0.1", d.port, reconnect_timeout_s=0).record(tmp_path / "b", seconds=5.0, hz=60)
    finally:
        d.stop()
    b = read_bundle(path)
    assert b.episode.status == "harness_error" and "Quit" in b.episode.status_detail


def test_recorder_of_a_paused_msfs_ends_harness_error_not_timeout(tmp_path):
    """A record-only recording has no agent: a simulator paused for good is a stall (unscored)."""
    import threading

    from simbridge.adapters.msfs import MsfsRecorder

    d = SimConnectDouble(hz=60.0).start()
    threading.Timer(0.5, d.set_paused, args=(True,)).start()
    try:
        path = MsfsRecorder("127.0.0.1", d.port, wall_budget_s=3.0).record(tmp_path / "b", seconds=2.0, hz=60)
    finally:
        d.stop()
    b = read_bundle(path)
    assert b.episode.status == "harness_error"
    assert "record-only" in b.episode.status_detail and b.signals.t[-1] < 2.0
