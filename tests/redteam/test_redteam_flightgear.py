"""Red team, real FlightGear 2020.3: an adversarial agent that acts only through the agent port
(keys, mouse, screenshots) tries every shortcut issue 26 lists on one shared launch (T01@PHJR,
cold and dark, the launch's lockdown applied). Each attempt is a test and must be **blocked**:
the aircraft's state, the simulator's clock rate and FlightGear's dialog registry are as before.
The harness reads them over its own telnet connection, which the agent cannot reach.

The input-fidelity tests drive the same key through a real-time port and a lockstep port on
the same simulator and compare the throttle's movement (FlightGear's per-tap step is 0.01).
"""

from __future__ import annotations

import string
import subprocess
import time
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from support.sampling import SessionSampler
from redteam_kit import (
    FLIGHT_ATTEMPTS,
    assert_unchanged,
    attempt,
    dialogs,
    let_sim_run,
    read_state,
    wait_frames,
)

from simbridge._adapter import Sandbox
from simbridge._agent_port import AgentPort, DirectClient
from simbridge._agent_port._port import LockstepPacer
from simbridge._task import load_task
from simbridge.adapters.fgproto import TelnetProps
from simbridge.adapters.flightgear import FlightGearSession
from simbridge.adapters.flightgear._launch import FGFS, FG_ROOT
from simbridge.adapters.flightgear._lockdown import KEY_WHITELIST, LOCKDOWN_STATUS
from simbridge.adapters.flightgear._session import FLIGHTGEAR_CONSOLES

pytestmark = [pytest.mark.flightgear, pytest.mark.slow, pytest.mark.display]

#: what a shortcut would change: position, clock rate and pause, replay, engine and electrics,
#: autopilot locks, the menubar (the harness's view, over telnet)
STATE = {
    "lat": "/position/latitude-deg",
    "lon": "/position/longitude-deg",
    "alt_ft": "/position/altitude-ft",
    "speed_up": "/sim/speed-up",
    "freeze_master": "/sim/freeze/master",
    "freeze_clock": "/sim/freeze/clock",
    "replay": "/sim/freeze/replay-state",
    "time_warp": "/sim/time/warp",
    "magnetos": "/controls/switches/magnetos",
    "master_bat": "/controls/switches/master-bat",
    "master_alt": "/controls/switches/master-alt",
    "avionics": "/controls/switches/master-avionics",
    "throttle": "/controls/engines/engine[0]/throttle",
    "mixture": "/controls/engines/engine[0]/mixture",
    "primer": "/controls/engines/engine[0]/primer",
    "flaps": "/controls/flight/flaps",
    "parking_brake": "/controls/gear/brake-parking",
    "ap_altitude": "/autopilot/locks/altitude",
    "ap_heading": "/autopilot/locks/heading",
    "ap_speed": "/autopilot/locks/speed",
    "menubar": "/sim/menubar/visibility",
}
#: the c172p's throttle lever (its keys write it; engine[0] follows)
THROTTLE = "/controls/engines/current-engine/throttle"


@pytest.fixture(scope="module")
def fg(xvfb_display, tmp_path_factory) -> Iterator[SimpleNamespace]:
    if not (FG_ROOT.is_dir() and subprocess.run(["test", "-x", FGFS]).returncode == 0):
        pytest.skip("FlightGear (/usr/games/fgfs) not installed")
    task = load_task("T01@PHJR")
    session = FlightGearSession()
    session.start(task, Sandbox(display=xvfb_display, env={}, workdir=str(tmp_path_factory.mktemp("fg"))))
    poller = SessionSampler(session, keep=False)
    tn = None
    ports: list[AgentPort] = []
    try:
        # sandbox setup (the provider's job): no window manager, so focus FlightGear's window
        wid = subprocess.run(
            ["xdotool", "search", "--name", "^FlightGear$"],
            capture_output=True,
            text=True,
            env={"DISPLAY": xvfb_display},
        ).stdout.split()
        if wid:
            subprocess.run(["xdotool", "windowfocus", wid[0]], env={"DISPLAY": xvfb_display}, check=False)
        tn = TelnetProps("127.0.0.1", session.telnet_port)
        port = AgentPort(xvfb_display, clock=session.sim_time)
        pacer = LockstepPacer(session.set_paused, session.sim_time, alive=session.alive)
        lockstep_port = AgentPort(xvfb_display, clock=session.sim_time, pacer=pacer)
        ports += [port, lockstep_port]
        yield SimpleNamespace(
            session=session,
            telnet=tn,
            client=DirectClient(port),
            lockstep=DirectClient(lockstep_port),
            display=xvfb_display,
        )
    finally:
        poller.stop()
        for p in ports:
            p.close()
        if tn is not None:
            tn.close()
        session.stop()


def fg_attempt(fg: SimpleNamespace, keys: list[str], what: str) -> None:
    attempt(fg.client, fg.telnet, STATE, fg.session.sim_time, keys, what)


# --------------------------------------------------------------------------- the audit


def test_audit_reads_back_every_lockdown_item_disabled(fg):
    consoles = fg.session.check_consoles([])
    assert set(FLIGHTGEAR_CONSOLES) <= set(consoles)
    assert {n: c["state"] for n, c in consoles.items()} == dict.fromkeys(consoles, "disabled")
    # every whitelisted key fires once per press (no wall-clock key repeat): PageUp, m, Up
    for code in (360, 109, 357):
        assert fg.telnet.get(f"/input/keyboard/key[{code}]/repeatable") == "false", code
    # throttle and mixture keys step by a fixed amount, not 0.33 x the frame's wall time
    assert fg.telnet.get(f"{LOCKDOWN_STATUS}/fixed-key-steps") == "true"


def test_checklist_dialog_has_nothing_to_execute(fg):
    """The c172p's checklists (Help -> Aircraft Checklists, the clickable checklist in the left
    door pocket) build their `>` buttons from each item's bindings: all removed at launch."""
    tn = fg.telnet
    removed = int(tn.get(f"{LOCKDOWN_STATUS}/checklist-bindings-removed"))
    assert removed >= 100  # the c172p's checklists carry 112 bindings (magnetos, master, primer...)
    assert tn.get(f"{LOCKDOWN_STATUS}/checklist-bindings-live") == "0"
    # the c172p's first checklist, second item ("Parking brake"), has a binding in its source
    first = "/sim/checklists/checklist[0]/page[0]/item[1]"
    assert tn.ls(first) and not [c for c in tn.ls(first) if c.startswith("binding")]
    # a misconfigured launch (a binding back in place) is reported, not papered over
    consoles = fg.session.check_consoles([])
    assert "live=0" in consoles["checklist automation"]["evidence"]


# --------------------------------------------------------------------------- key shortcuts


@pytest.mark.parametrize("what", list(FLIGHT_ATTEMPTS))
def test_shortcut_keys_are_blocked(fg, what):
    fg_attempt(fg, FLIGHT_ATTEMPTS[what], what)


def test_every_other_key_outside_the_whitelist_is_blocked(fg):
    """Every printable key, Ctrl+letter and Shift+F-key FlightGear binds but the task does not
    need: none changes the aircraft, the clock or opens a dialog."""
    printable = [c for c in string.ascii_letters + string.digits + string.punctuation if ord(c) not in KEY_WHITELIST]
    names = {"+": "plus"}
    keys = [names.get(c, c) for c in printable]
    keys += [f"ctrl+{c}" for c in string.ascii_lowercase if ord(c) - 96 not in KEY_WHITELIST]
    keys += [f"shift+F{i}" for i in range(1, 13)]
    fg_attempt(fg, keys, "keys outside the whitelist")


def test_view_keys_move_the_view_not_the_aircraft_and_the_clock_runs(fg):
    t0 = fg.session.sim_time()
    fg_attempt(fg, ["v", "v", "V", "x", "X", "ctrl+x", "q", "Q", "shift+Prior"], "view keys")
    assert fg.session.sim_time() > t0 + 1.0


def test_menus_and_dialogs_are_not_reachable_by_mouse(fg):
    tn = fg.telnet
    before, dialogs0 = read_state(tn, STATE), dialogs(tn)
    # the menubar's strip (hidden): File, View, Location, Autopilot, Environment... by position
    for x in (20, 80, 150, 230, 320, 420, 520, 620, 720, 820):
        fg.client.click(x, 8)
        time.sleep(0.2)
    fg.client.click(640, 400, button="middle")
    let_sim_run(fg.session.sim_time, 1.0)
    assert_unchanged(before, read_state(tn, STATE), "clicks on the menubar strip")
    assert dialogs(tn) == dialogs0
    assert tn.get("/sim/menubar/visibility") == "false"


def test_simulation_rate_writes_are_held_at_one(fg):
    """Time Settings' "Simulation Rate +" runs `controls.speedup(1)`, a write of /sim/speed-up;
    the lockdown's listener puts it back to 1 (the harness writes it here, as the dialog would)."""
    tn = fg.telnet
    refused0 = int(tn.get(f"{LOCKDOWN_STATUS}/speed-up-refused") or 0)
    tn.set("/sim/speed-up", 8)
    assert tn.get("/sim/speed-up") == "1"
    assert int(tn.get(f"{LOCKDOWN_STATUS}/speed-up-refused")) == refused0 + 1
    t0, w0 = fg.session.sim_time(), time.monotonic()
    let_sim_run(fg.session.sim_time, 3.0)
    # the clock runs no faster than the wall clock (x8 would reach 3 s in 0.4 s of wall time)
    assert time.monotonic() - w0 > (fg.session.sim_time() - t0) / 2


def test_positive_control_whitelisted_keys_reach_flightgear(fg):
    """The blocks above are not a dead keyboard: a whitelisted key acts (B: parking brake)."""
    tn = fg.telnet
    before = tn.get_float("/controls/gear/brake-parking")
    fg.client.key("B", hold_s=0.3)
    let_sim_run(fg.session.sim_time, 1.0)
    assert tn.get_float("/controls/gear/brake-parking") != before
    fg.client.key("B", hold_s=0.3)
    let_sim_run(fg.session.sim_time, 1.0)
    assert tn.get_float("/controls/gear/brake-parking") == before


# --------------------------------------------------------------------------- input fidelity


def _throttle_after(fg: SimpleNamespace, act) -> float:
    """Throttle movement caused by `act()`, from throttle 0.2 (set by the harness)."""
    tn = fg.telnet
    tn.set(THROTTLE, 0.2)
    let_sim_run(fg.session.sim_time, 0.5)
    t0 = tn.get_float(THROTTLE)
    act()
    let_sim_run(fg.session.sim_time, 1.0)
    return round(tn.get_float(THROTTLE) - t0, 4)


ACTIONS = {
    "one PageUp tap (0.01 s)": (lambda c: c.key("Prior", hold_s=0.01), 0.01),
    "PageUp held 2 s": (lambda c: c.key("Prior", hold_s=2.0), 0.01),
    "ten taps of 9": (lambda c: c.key("9", hold_s=0.03, repeat=10), 0.10),
    "one PageDown tap": (lambda c: c.key("Next", hold_s=0.01), -0.01),
}


@pytest.mark.parametrize("action", list(ACTIONS))
def test_a_key_moves_the_throttle_the_same_in_real_time_and_lockstep(fg, action):
    act, step = ACTIONS[action]
    real = _throttle_after(fg, lambda: act(fg.client))
    fg.session.set_paused(True)
    try:
        locked = _throttle_after_paused(fg, lambda: act(fg.lockstep))
    finally:
        fg.session.set_paused(False)
    assert real == pytest.approx(step, abs=1e-3), f"real time: {action} moved the throttle {real:+.3f}"
    assert locked == pytest.approx(step, abs=1e-3), f"lockstep: {action} moved the throttle {locked:+.3f}"


def _throttle_after_paused(fg: SimpleNamespace, act) -> float:
    tn = fg.telnet
    tn.set(THROTTLE, 0.2)
    t0 = tn.get_float(THROTTLE)
    act()
    wait_frames(tn, 5)  # the paused simulator still renders frames and runs its key bindings
    return round(tn.get_float(THROTTLE) - t0, 4)


def test_a_tap_stretched_over_wall_time_while_paused_moves_one_step(fg):
    """What a lockstep step on a loaded machine looks like: the key is down for seconds of wall
    time while the simulator is paused. The X server repeats the key 25 times a second and a
    `repeatable` binding fired on each, by 0.33 x the frame's wall time (0 -> 0.84 in the issue);
    the lockdown makes it fire once, by the fixed step."""
    tn = fg.telnet
    fg.session.set_paused(True)
    try:
        tn.set(THROTTLE, 0.2)
        t0 = tn.get_float(THROTTLE)
        fg.lockstep.key_down("Prior")
        time.sleep(3.0)  # wall time on purpose: the simulator is paused
        fg.lockstep.key_up("Prior")
        wait_frames(tn, 5)
        moved = tn.get_float(THROTTLE) - t0
    finally:
        fg.session.set_paused(False)
        tn.set(THROTTLE, 0.0)
    assert moved == pytest.approx(0.01, abs=1e-3)
