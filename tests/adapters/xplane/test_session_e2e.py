"""End to end against the protocol double (not X-Plane): adapter -> bundle -> verifier."""

import json
import time

import pytest

from simbridge import BundleWriter, EpisodeInfo, read_bundle, verify
from simbridge._adapter import Sandbox
from simbridge._cli import main
from simbridge._task import load_task
from simbridge.adapters.xplane import XPlaneSession
from simbridge.adapters.xplane import _fms

from doubles.xplane_double import Pilot, XPlaneDouble


def _sandbox(tmp_path, d, **extra):
    opts = {
        "host": "127.0.0.1",
        "udp_port": d.udp_port,
        "xpc_port": d.xpc_port,
        "web_port": d.http_port,
        "fms_port": d.fms_port,
        "ready_timeout_s": 5.0,
        **extra,
    }
    return Sandbox(display="", env={}, workdir=str(tmp_path), info={"xplane": opts})


def _variant(base, **changes):
    spec = load_task(base).model_copy(deep=True)
    for k, v in changes.items():
        setattr(spec, k, v)
    return spec


def _drive(session, writer, until):
    """The runner's loop in miniature: poll, write samples and events, stop at `until` (bounded)."""
    deadline = time.monotonic() + 120
    while session.sim_time() < until and time.monotonic() < deadline:
        for s in session.poll():
            writer.sample(s.t_sim, s.values)
        for e in session.events():
            writer.event(e.t_sim, e.kind, e.data)
        time.sleep(0.02)
    assert session.sim_time() >= until, "the double stopped advancing"


@pytest.mark.slow
def test_t02_record_cli_then_verify(tmp_path, capsys):
    """`simbridge record` from the flying double, then `simbridge verify` scores T02 a success."""
    out = tmp_path / "t02"
    with XPlaneDouble(pilot=Pilot(), time_scale=10.0, web=False) as d:
        rc = main(
            [
                "record",
                "--sim",
                "xplane",
                "--host",
                "127.0.0.1",
                "--port",
                str(d.udp_port),
                "--seconds",
                "300",
                "--out",
                str(out),
                "--task",
                "T02",
            ]
        )
    assert rc == 0
    b = read_bundle(out)
    assert b.episode.sim == "xplane" and "record_only" in b.episode.flags and b.episode.status == "completed"
    t = b.signals.t
    assert t[0] == 0.0 and t[-1] >= 299.0 and (t[1:] > t[:-1]).all()
    capsys.readouterr()
    assert main(["verify", str(out), "--json"]) == 0
    score = json.loads(capsys.readouterr().out)
    assert score["status"] == "scored" and score["success"] is True, score
    assert score["score"] == pytest.approx(1.0)


@pytest.mark.slow
def test_t02_session_with_loss_and_reordering(tmp_path):
    """The SimSession path with 2 % loss and 5 % reordering: still monotonic, still scored.

    At 10x sim speed 100 Hz RREF is 0.1 s of simulator time apart, so a lost packet leaves a
    0.2 s gap, well inside T02's 0.5 s allowance (at 50 Hz two losses in a row would not be)."""
    task = load_task("T02")
    with XPlaneDouble(pilot=Pilot(), time_scale=10.0, loss=0.02, reorder=0.05, seed=1) as d:
        session = XPlaneSession(require_lockdown=False)
        session.start(task, _sandbox(tmp_path, d, hz=100), seed=1)
        try:
            assert d.flights and d.flights[0]["runway_start"] == {"airport_id": "KSEA", "runway": "34R"}
            writer = BundleWriter(tmp_path / "b", EpisodeInfo(task_id="T02", sim="xplane"), session.signals)
            start = session.snapshot()
            _drive(session, writer, 300.0)
            writer.snapshots({"start": start, "end": session.snapshot()})
            info = session.info()
            writer.finish("completed")
        finally:
            session.stop()
    assert d.rref_dropped > 0 and info["frames"] > 0
    b = read_bundle(tmp_path / "b")
    assert (b.signals.t[1:] > b.signals.t[:-1]).all()
    assert b.snapshots["start"]["radios"]["com1_mhz"] == 119.9
    score = verify(b, task)
    assert score.status == "scored" and score.success, score


def test_t11_engine_failure_injected_at_the_drawn_height(tmp_path):
    t11 = _variant("T02", id="T11")
    with XPlaneDouble(pilot=Pilot(target_alt_ft=2500), time_scale=10.0) as d:
        session = XPlaneSession(require_lockdown=False)
        session.start(t11, _sandbox(tmp_path, d), seed=42)
        try:
            target = session.plan.injections[0].trigger_agl_ft
            writer = BundleWriter(tmp_path / "b", EpisodeInfo(task_id="T11", sim="xplane"), session.signals)
            deadline = time.monotonic() + 60
            events = []
            while not events and time.monotonic() < deadline:
                for s in session.poll():
                    writer.sample(s.t_sim, s.values)
                events += [e for e in session.events() if e.kind == "failure_injected"]
                time.sleep(0.02)
            time.sleep(0.3)
            failed = d.d["sim/operation/failures/rel_engfai0"]
            snap = session.snapshot()
            writer.finish("completed")
        finally:
            session.stop()
    assert len(events) == 1
    ev = events[0]
    assert 400 <= target <= 1200
    assert ev.data["trigger_agl_ft"] == round(target, 1)
    assert target <= ev.data["agl_ft"] < target + 30  # first sample at or above the height (0.2 s sim apart)
    assert ev.data["dataref"] == "sim/operation/failures/rel_engfai0" and failed == 6.0
    assert snap["failures"][1]["system"] == "engine" and snap["failures"][1]["failed"] is True
    assert snap["failure_schedule"][0]["injected_at_t"] == ev.t_sim
    assert snap["failure_agl_ft"] == round(target, 1)


def test_t08_snapshot_has_the_keys_the_verifier_reads(tmp_path):
    """T08: the agent starts the flight, so the harness starts none; the snapshot is read after."""
    from simbridge import score_bundle

    t08 = load_task("T08")
    root = tmp_path / "xp"
    (root / "Resources" / "plugins" / "XPlaneConnect").mkdir(parents=True)
    apt = root / "Global Scenery" / "Global Airports" / "Earth nav data"
    apt.mkdir(parents=True)
    (apt / "apt.dat").write_text(
        "I\n1100 Version\n\n"
        "1     20 1 0 KBOS General Edward Lawrence Logan Intl\n"
        "100 45.72 1 0 0.15 0 2 1 04L 42.35455 -71.01275 0 0 2 0 0 0 22R 42.37404 -70.99850 0 0 2 0 0 0\n"
        "1     20 1 0 KSEA Seattle Tacoma Intl\n"
        "100 45.72 1 0 0.15 0 2 1 16L 47.46380 -122.30775 0 0 2 0 0 0 34R 47.43118 -122.30804 0 0 2 0 0 0\n99\n"
    )
    with XPlaneDouble() as d:
        session = XPlaneSession()
        session.start(t08, _sandbox(tmp_path, d, install_dir=str(root)))
        try:
            assert d.flights == []  # nothing started by the harness
            # what the agent would have set through X-Plane's screens, then started at KBOS 22R
            d.reset_state(42.37404, -70.99850, 6.1, 215.0)
            d.d["sim/time/local_date_days"] = 354.0  # Dec 21 (0-based day of year)
            d.d["sim/time/local_time_sec"] = 16.5 * 3600
            d.d["sim/operation/failures/rel_vacuum"] = 4.0
            snap = session.snapshot()
            assert session.info()["lockdown"]["ok"] is True
        finally:
            session.stop()
    assert snap["month_day"] == "12-21" and snap["local_hhmm"] == "16:30"
    assert (snap["local_date_days"], snap["local_time_s"]) == (354.0, 16.5 * 3600)
    w = snap["weather"]
    assert w["wind_layers"][0]["dir_degt"] == 270.0 and w["wind_layers"][0]["speed_kt"] == pytest.approx(15.0, abs=0.01)
    assert w["cloud_layers"][0]["base_agl_ft"] == pytest.approx(1500.0, abs=0.5)
    assert w["cloud_layers"][0]["coverage"] == pytest.approx(0.7)  # broken: 5-7 oktas
    assert w["visibility_sm"] == 5.0
    assert snap["failures"][0] == {
        "system": "vacuum_pump",
        "dataref": "sim/operation/failures/rel_vacuum",
        "mode_enum": 4,
        "trigger": {"kind": "agl_ft", "value": None},
        "failed": False,
    }
    assert (snap["airport"], snap["aircraft"]) == ("KBOS", "C172")
    # the verifier reads these keys: everything but the failure's trigger value is judged from them
    b_path = tmp_path / "b"
    w_ = BundleWriter(b_path, EpisodeInfo(task_id="T08", sim="xplane"), [])
    w_.sample(0.0, {})
    w_.sample(1.0, {})
    w_.snapshots({"start": snap, "end": snap})
    w_.finish("completed")
    score = score_bundle(read_bundle(b_path), t08)
    got = {c.name: c.earned for c in score.components}
    assert got["time_date"] == 1 and got["weather"] == 1 and got["airport_aircraft"] == 1, score
    assert got["failure_scheduled"] == 0  # the 2,000 ft trigger value has no dataref source yet


def test_t20_fms_legs_in_the_snapshot(tmp_path):
    t20 = load_task("T20")
    with XPlaneDouble() as d:
        d.fms_entries = [
            _fms.FmsEntry(0, 1, "KSEA", 0, 433, 47.45, -122.31),
            _fms.FmsEntry(1, 512, "SUMMA", 0, 11000, 47.0, -122.2),
        ]
        session = XPlaneSession(require_lockdown=False)
        session.start(t20, _sandbox(tmp_path, d))
        try:
            snap = session.snapshot()
        finally:
            session.stop()
    assert [leg["ident"] for leg in snap["fms"]["legs"]] == ["KSEA", "SUMMA"]
    assert snap["fms"]["legs"][1]["alt_ft"] == 11000
    assert snap["fms"]["origin"] == "KSEA" and snap["fms"]["destination"] is None
    assert snap["afds"] == {"lnav": None, "vnav": None}  # the double has no 737 AFDS datarefs


def test_pause_is_excluded_from_the_task_clock(tmp_path):
    with XPlaneDouble() as d:
        session = XPlaneSession(require_lockdown=False, start_flight=False)
        session.start(load_task("T02"), _sandbox(tmp_path, d, web_port=None))
        try:
            time.sleep(0.5)
            session.poll()
            session.set_paused(True)
            time.sleep(0.3)
            session.poll()
            t_paused = session.sim_time()
            time.sleep(0.7)
            session.poll()
            assert session.sim_time() == pytest.approx(t_paused, abs=0.05)
            session.set_paused(False)
            time.sleep(0.5)
            session.poll()
            assert session.sim_time() > t_paused + 0.3
        finally:
            session.stop()
    assert d.commands[:2] == ["sim/operation/pause_on", "sim/operation/pause_off"]


def test_lockdown_failure_stops_the_start(tmp_path):
    root = tmp_path / "xp"
    (root / "Resources" / "plugins" / "FlyWithLua").mkdir(parents=True)
    session = XPlaneSession(install_dir=str(root))
    from simbridge.adapters.xplane import LockdownError

    with pytest.raises(LockdownError, match="FlyWithLua"):
        session.start(load_task("T02"), Sandbox(display="", env={}, workdir=str(tmp_path)))
    session.stop()


def test_no_simulator_is_a_harness_error(tmp_path):
    from simbridge._errors import HarnessError

    session = XPlaneSession(udp_port=9, web_port=None, xpc_port=None, ready_timeout_s=0.3, require_lockdown=False)
    with pytest.raises(HarnessError, match="no RREF data"):
        session.start(load_task("T02"), Sandbox(display="", env={}, workdir=str(tmp_path)))
    session.stop()


def test_snapshot_falls_back_to_the_web_api_without_xpc(tmp_path):
    with XPlaneDouble() as d:
        session = XPlaneSession(require_lockdown=False)
        session.start(load_task("T02"), _sandbox(tmp_path, d, xpc_port=None))
        try:
            d.d["sim/cockpit2/radios/actuators/com1_frequency_hz_833"] = 118275.0
            snap = session.snapshot()
        finally:
            session.stop()
    assert d.xpc_log == []  # XPlaneConnect was never used
    assert snap["radios"]["com1_mhz"] == 118.275 and snap["aircraft"] == "C172"
    assert snap["position"]["lat_deg"] == pytest.approx(47.4312, abs=1e-3)


def test_a_silent_rref_stream_is_lost_telemetry_not_a_crash(tmp_path):
    """X-Plane stops sending (here: paused, so no RREF at all): the runner reads `lost_reason`
    and ends the episode harness_error (unscored), the same as jsbsim's stalled stream."""
    with XPlaneDouble() as d:
        session = XPlaneSession(require_lockdown=False, stale_after_s=0.5)
        session.start(load_task("T02"), _sandbox(tmp_path, d), seed=1)
        try:
            end = time.monotonic() + 30
            while not session.poll() and time.monotonic() < end:
                time.sleep(0.02)
            assert session.alive() and session.lost_reason() is None
            d.set("sim/time/paused", 1.0)
            end = time.monotonic() + 30
            while session.alive() and time.monotonic() < end:
                session.poll()
                time.sleep(0.05)
            assert not session.alive()
            assert "telemetry lost: no RREF data for" in (session.lost_reason() or "")
        finally:
            session.stop()
    assert session.lost_reason() is None  # stopped on purpose: nothing was lost
