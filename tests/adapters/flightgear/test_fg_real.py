"""Integration tests on the real FlightGear 2020.3 (Debian package), one shared launch.

The module starts its own Xvfb and one FlightGear at PHJR in T01's initial state (cold and
dark, lockdown applied). Input goes only through the agent port (XTEST) onto the rendered
cockpit; the T01 reference pilot (`pilots/_engine_start.py`) reads the tachometer from
screenshots, never the simulator's state. The harness side logs the generic UDP stream; bundles are cut
from that log and scored by the task's verifier.

Run order matters (one simulator): lockdown first, then the engine start, then recording.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from support.flightgear import flightgear_bundle
from support.sampling import SessionSampler

from simbridge._adapter import Sandbox
from simbridge._agent_port import AgentPort, DirectClient
from simbridge._bundle import read_bundle
from simbridge._task import load_task
from simbridge.adapters.fgproto import TelnetProps
from simbridge.adapters.flightgear.pilots._engine_start import BEACON, FlightGearEngineStartPilot
from simbridge.adapters.flightgear import FlightGearSession
from simbridge import score_bundle

pytestmark = [pytest.mark.flightgear, pytest.mark.slow, pytest.mark.display]


@pytest.fixture(scope="module")
def fg(xvfb, tmp_path_factory):
    task = load_task("T01@PHJR")
    work = tmp_path_factory.mktemp("flightgear")
    session = FlightGearSession()
    session.start(task, Sandbox(display=xvfb.display, env={}, workdir=str(work)))
    try:
        # sandbox setup (provider's job, not the agent's): no window manager, so focus FlightGear
        wid = subprocess.run(
            ["xdotool", "search", "--name", "^FlightGear$"],
            capture_output=True,
            text=True,
            env={"DISPLAY": xvfb.display},
        ).stdout.split()
        if wid:
            subprocess.run(["xdotool", "windowfocus", wid[0]], env={"DISPLAY": xvfb.display}, check=False)
        collector = SessionSampler(session)
        actions: list[dict] = []
        port = AgentPort(xvfb.display, clock=session.sim_time, log=actions.append)
        tn = TelnetProps("127.0.0.1", session.telnet_port)
        ns = SimpleNamespace(
            task=task,
            session=session,
            collector=collector,
            port=port,
            client=DirectClient(port),
            actions=actions,
            work=work,
            telnet=tn,
            snap_start=session.snapshot(),
            info=session.info(),
        )
        yield ns
    finally:
        for closer in ("collector", "port", "telnet"):
            obj = locals().get("ns") and getattr(ns, closer, None)
            if obj is not None:
                try:
                    obj.stop() if closer == "collector" else obj.close()
                except Exception:
                    pass
        session.stop()


def write_bundle(path: Path, fg, t_end: float | None, task_id: str) -> Path:
    """A bundle of the shared run's samples up to t_end (sim s), as the runner would write it."""
    return flightgear_bundle(
        path,
        fg.session,
        fg.collector.upto(t_end),
        task_id,
        {"start": fg.snap_start, "end": fg.session.snapshot()},
        agent="reference:fg-engine-start",
        actions=[a for a in fg.actions if t_end is None or a.get("t", 0) <= t_end],
        note="scripted cockpit run",
    )


def _dialogs(tn: TelnetProps) -> list[str]:
    from simbridge._errors import HarnessError

    try:
        return tn.ls("/sim/gui/dialogs")
    except HarnessError:
        return []


def test_ready_state_is_cold_and_dark_on_solid_ground(fg):
    assert fg.info["sim_version"].startswith("2020.3")
    deadline = time.monotonic() + 30
    while not fg.collector.upto() and time.monotonic() < deadline:
        time.sleep(0.2)
    last = fg.collector.upto()[-1].values
    assert last["on_ground"] == 1 and last["engine_running"] == 0
    assert last["magnetos"] == 0 and last["master_bat"] == 0 and last["fuel_selector"] == 3
    assert abs(last["lat_deg"] - 21.3102) < 0.001 and abs(last["lon_deg"] + 158.0715) < 0.001
    assert fg.telnet.get("/fdm/jsbsim/ground/solid") != "false"


def test_lockdown_holds(fg):
    tn, c = fg.telnet, fg.client
    assert tn.get("/sim/menubar/visibility") == "false"
    assert tn.get("/sim/menubar/default/menu[8]/enabled") == "false"
    for key in (
        "/input/keyboard/key[47]/binding[0]/command",
        "/input/keyboard/key[58]/binding[0]/command",
        "/input/keyboard/key[266]/binding[0]/command",
        "/input/keyboard/key[112]/binding[0]/command",
    ):
        assert tn.get(key) == "null", key
    # positive control: a whitelisted key reaches FlightGear (B = parking brake toggle)
    before = tn.get_float("/controls/gear/brake-parking")
    c.key("B", hold_s=0.3)
    time.sleep(2.0)
    assert tn.get_float("/controls/gear/brake-parking") != before
    c.key("B", hold_s=0.3)
    time.sleep(2.0)
    assert tn.get_float("/controls/gear/brake-parking") == before
    # escape hatches: menubar (F10), property browser (/), multikey (:), pause (p), time warp (a, t)
    speed0, warp0 = tn.get("/sim/speed-up"), tn.get("/sim/time/warp")
    dialogs0 = set(_dialogs(tn))
    for k in ("F10", "slash", "colon", "p", "a", "t", "Escape", "F12", "question"):
        c.key(k, hold_s=0.2)
        time.sleep(0.8)
    time.sleep(2.0)
    assert tn.get("/sim/menubar/visibility") == "false"
    assert tn.get("/sim/freeze/master") == "false"
    assert tn.get("/sim/speed-up") == speed0 and tn.get("/sim/time/warp") == warp0
    # no dialog appeared in FlightGear's dialog registry because of those keys
    assert set(_dialogs(tn)) == dialogs0
    # HTTP is off: nothing answers on FlightGear's usual port from this launch
    assert "--httpd" not in (fg.work / "flightgear" / "fgfs.cmd").read_text()
    # what the isolation audit records for the task's consoles, read back from the simulator
    consoles = fg.session.check_consoles(["Nasal console", "property browser", "Debug menu", "instructor station"])
    assert {n: c["state"] for n, c in consoles.items()} == {
        "Nasal console": "disabled",
        "property browser": "disabled",
        "Debug menu": "disabled",
        "instructor station": "unchecked",
        "checklist automation": "disabled",
        "simulation rate": "disabled",
        "Map dialog (Ctrl+Enter)": "disabled",
        "Walker menu": "disabled",
    }
    assert "key /=null" in consoles["property browser"]["evidence"]
    # turned back on (as a misconfigured launch would have it), the check says so
    tn.set("/sim/menubar/default/menu[8]/enabled", "true")
    try:
        assert fg.session.check_consoles(["Nasal console"])["Nasal console"]["state"] == "enabled"
    finally:
        tn.set("/sim/menubar/default/menu[8]/enabled", "false")


class _KeepOpen(DirectClient):
    """The shared launch's client: the pilot's done/give_up is noted, not ended on, so the test
    can act after it (the runner would end the episode there)."""

    outcome: tuple[str, str] | None = None

    def done(self, reason: str = "") -> None:
        self.outcome = ("done", reason)

    def give_up(self, reason: str = "") -> None:
        self.outcome = ("give_up", reason)


def test_t01_reference_pilot_scores_full_and_partial_with_beacon_off(fg, tmp_path):
    """The registered T01/flightgear reference pilot on the real c172p; then the beacon clicked
    off through the same port leaves the switch item unearned (0.6)."""
    pilot = FlightGearEngineStartPilot()
    client = _KeepOpen(fg.port)
    result = pilot.run(client, fg.task, fg.task.time_limit_s)
    t_full = fg.session.sim_time()
    full = score_bundle(read_bundle(write_bundle(tmp_path / "full", fg, t_full, "T01@PHJR")), fg.task)
    client.click(*BEACON)
    time.sleep(8.0)  # the verifier judges the last 5 s
    no_beacon = score_bundle(read_bundle(write_bundle(tmp_path / "no_beacon", fg, None, "T01@PHJR")), fg.task)
    report = {"log": pilot.log, "full": full.model_dump(mode="json"), "no_beacon": no_beacon.model_dump(mode="json")}
    print(json.dumps(report, indent=1, default=str))
    assert result == "done" and client.outcome is not None and client.outcome[0] == "done", report
    assert full.status == "scored" and full.success and full.score >= 0.9, report
    comps = {c.name: c for c in no_beacon.components}
    assert no_beacon.status == "scored" and comps["switch_states"].earned == 0, report
    assert comps["engine_at_rpm"].earned == 1 and comps["priming_mixture"].earned == 1, report
    assert math.isclose(no_beacon.score, 0.6, abs_tol=1e-6), report


def test_simbridge_record_gives_a_bundle_verify_reads(fg, tmp_path):
    out = tmp_path / "recorded"
    cli = [sys.executable, "-m", "simbridge._cli"]
    rec = subprocess.run(
        [
            *cli,
            "record",
            "--sim",
            "flightgear",
            "--host",
            "127.0.0.1",
            "--port",
            str(fg.session.telnet_port),
            "--seconds",
            "4",
            "--out",
            str(out),
            "--task",
            "T01@PHJR",
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert rec.returncode == 0, rec.stderr
    b = read_bundle(out)
    assert b.episode.sim == "flightgear" and len(b.signals.t) >= 3
    assert b.signals.t[-1] >= 4.0
    lat = b.signals["lat_deg"]
    assert abs(float(lat[-1]) - 21.3102) < 0.001
    ver = subprocess.run([*cli, "verify", str(out), "--json"], capture_output=True, text=True, timeout=120)
    assert ver.returncode == 0, ver.stderr
    score = json.loads(ver.stdout)
    assert score["task_id"] == "T01@PHJR" and score["verifier"] == "engine_start"
