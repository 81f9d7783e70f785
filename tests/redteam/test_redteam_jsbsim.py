"""Red team, the embedded JSBSim cockpit: the adversarial agent of `redteam_kit` on one shared
launch (T01 at KPAO, cold and dark on the ground), through the agent port only. The cockpit has
no menus, dialogs or consoles; FlightGear's shortcut keys (which it otherwise copies) must do
nothing, and a key acts the same in real time and in lockstep (held keys repeat on the
simulator's clock)."""

from __future__ import annotations

import string
import time
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from support.sampling import SessionSampler
from redteam_kit import FLIGHT_ATTEMPTS, assert_unchanged, attempt, let_sim_run, read_state, wait_frames

from simbridge._adapter import Sandbox
from simbridge._agent_port import AgentPort, DirectClient
from simbridge._agent_port._port import LockstepPacer
from simbridge._sims import session_class
from simbridge._task import load_task
from simbridge.adapters.flightgear._lockdown import KEY_WHITELIST

pytestmark = [pytest.mark.display, pytest.mark.slow]

STATE = {
    "lat": "/position/latitude-deg",
    "lon": "/position/longitude-deg",
    "alt_ft": "/position/altitude-ft",
    "freeze_master": "/sim/freeze/master",
    "crashed": "/sim/crashed",
    "magnetos": "/controls/switches/magnetos",
    "master_bat": "/controls/switches/master-bat",
    "master_alt": "/controls/switches/master-alt",
    "avionics": "/controls/switches/master-avionics",
    "beacon": "/controls/lighting/beacon",
    "throttle": "/controls/engines/engine[0]/throttle",
    "mixture": "/controls/engines/engine[0]/mixture",
    "primer": "/controls/engines/engine[0]/primer",
    "flaps": "/controls/flight/flaps",
    "parking_brake": "/controls/gear/brake-parking",
    "fuel_selector": "/controls/fuel/selector",
    "ap": "/autopilot/switches/ap",
    "ap_hdg": "/autopilot/switches/hdg",
    "ap_alt": "/autopilot/switches/alt",
}
THROTTLE = STATE["throttle"]


@pytest.fixture(scope="module")
def sim(xvfb_display, tmp_path_factory) -> Iterator[SimpleNamespace]:
    session = session_class("jsbsim")()
    session.start(load_task("T01"), Sandbox(display=xvfb_display, env={}, workdir=str(tmp_path_factory.mktemp("jsb"))))
    poller = SessionSampler(session, keep=False)
    ports: list[AgentPort] = []
    try:
        port = AgentPort(xvfb_display, clock=session.sim_time)
        pacer = LockstepPacer(session.set_paused, session.sim_time, alive=session.alive, advance=session.advance)
        lockstep_port = AgentPort(xvfb_display, clock=session.sim_time, pacer=pacer)
        ports += [port, lockstep_port]
        client = DirectClient(port)
        client.mouse_move(640, 120)  # no window manager: the pointer over the window gives it the keys
        yield SimpleNamespace(
            session=session, telnet=session.telnet, client=client, lockstep=DirectClient(lockstep_port)
        )
    finally:
        poller.stop()
        for p in ports:
            p.close()
        session.stop()


@pytest.mark.parametrize("what", list(FLIGHT_ATTEMPTS))
def test_flightgear_shortcut_keys_do_nothing(sim, what):
    attempt(sim.client, sim.telnet, STATE, sim.session.sim_time, FLIGHT_ATTEMPTS[what], what)


def test_every_key_outside_the_catalog_keys_does_nothing(sim):
    printable = [c for c in string.ascii_letters + string.digits + string.punctuation if ord(c) not in KEY_WHITELIST]
    keys = [{"+": "plus"}.get(c, c) for c in printable]
    keys += [f"ctrl+{c}" for c in string.ascii_lowercase if ord(c) - 96 not in KEY_WHITELIST]
    keys += [f"shift+F{i}" for i in range(1, 13)]
    attempt(sim.client, sim.telnet, STATE, sim.session.sim_time, keys, "keys outside the catalog's keys")


def test_clicks_off_the_panel_and_middle_button_do_nothing(sim):
    tn = sim.telnet
    before = read_state(tn, STATE)
    for x, y in ((5, 5), (1275, 5), (640, 10), (5, 795)):
        sim.client.click(x, y)
    sim.client.click(640, 120, button="middle")
    let_sim_run(sim.session.sim_time, 1.0)
    assert_unchanged(before, read_state(tn, STATE), "clicks off the panel")


def test_positive_control_catalog_keys_reach_the_cockpit(sim):
    tn = sim.telnet
    before = tn.get(STATE["parking_brake"])
    sim.client.key("B", hold_s=0.2)
    let_sim_run(sim.session.sim_time, 0.5)
    assert tn.get(STATE["parking_brake"]) != before
    sim.client.key("B", hold_s=0.2)
    let_sim_run(sim.session.sim_time, 0.5)
    assert tn.get(STATE["parking_brake"]) == before


# --------------------------------------------------------------------------- input fidelity

ACTIONS = {
    "one PageUp tap (0.01 s)": (lambda c: c.key("Prior", hold_s=0.01), 0.01),
    "ten taps of 9": (lambda c: c.key("9", hold_s=0.03, repeat=10), 0.10),
    "one PageDown tap": (lambda c: c.key("Next", hold_s=0.01), -0.01),
    # held: repeats after 0.3 s every 0.05 s of simulator time -> 1 + 34 steps
    "PageUp held 2 s": (lambda c: c.key("Prior", hold_s=2.0), 0.35),
}


def _moved(sim: SimpleNamespace, act, paused: bool) -> float:
    tn = sim.telnet
    tn.set(THROTTLE, 0.2)
    if paused:
        wait_frames(tn, 3)
    else:
        let_sim_run(sim.session.sim_time, 0.3)
    t0 = tn.get_float(THROTTLE)
    act()
    if paused:
        wait_frames(tn, 5)
    else:
        let_sim_run(sim.session.sim_time, 0.5)
    return round(tn.get_float(THROTTLE) - t0, 4)


@pytest.mark.parametrize("action", list(ACTIONS))
def test_a_key_moves_the_throttle_the_same_in_real_time_and_lockstep(sim, action):
    act, step = ACTIONS[action]
    real = _moved(sim, lambda: act(sim.client), paused=False)
    sim.session.set_paused(True)
    try:
        locked = _moved(sim, lambda: act(sim.lockstep), paused=True)
    finally:
        sim.session.set_paused(False)
        sim.telnet.set(THROTTLE, 0.0)
    # a held key's repeats fall on the simulator clock: the same in both modes, within one repeat
    tol = 0.0105 if "held" in action else 1e-3
    assert real == pytest.approx(step, abs=tol), f"real time: {action} moved the throttle {real:+.3f}"
    assert locked == pytest.approx(step, abs=tol), f"lockstep: {action} moved the throttle {locked:+.3f}"


def test_a_key_down_over_wall_time_while_paused_moves_one_step(sim):
    """A lockstep step on a loaded machine: the key is down for seconds of wall time while the
    simulator is paused; its repeats run on the simulator clock, so it acts once."""
    tn = sim.telnet
    sim.session.set_paused(True)
    try:
        tn.set(THROTTLE, 0.2)
        wait_frames(tn, 3)
        t0 = tn.get_float(THROTTLE)
        sim.lockstep.key_down("Prior")
        time.sleep(3.0)  # wall time on purpose: the simulator is paused
        sim.lockstep.key_up("Prior")
        wait_frames(tn, 5)
        moved = tn.get_float(THROTTLE) - t0
    finally:
        sim.session.set_paused(False)
        tn.set(THROTTLE, 0.0)
    assert moved == pytest.approx(0.01, abs=1e-3)
