"""Red team, the embedded drive simulator (SUMO world, CARLA manual_control keys): the
adversarial agent of `redteam_kit` on one shared launch (T18, the ego standing at its start),
through the agent port only. CARLA's manual_control shortcuts (autopilot, restart, replay,
record, weather, camera, sensors, quit) must leave the ego where it is and the simulator running
at no more than real time."""

from __future__ import annotations

import string
import time
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from support.sampling import SessionSampler

from simbridge._adapter import Sandbox
from simbridge._agent_port import AgentPort, DirectClient
from simbridge._sims import session_class
from simbridge._task import load_task

pytestmark = [pytest.mark.display, pytest.mark.slow]

#: the ego's own state in the stream: where it is, how fast, which lane
EGO = ("x_m", "y_m", "speed_kmh", "lane_id")

#: the driving keys the task gives the agent (WASD, arrows, Space, Q reverse, M transmission,
#: comma/period gears); everything else is tried
DRIVING = set("wasdqm,. ")

ATTEMPTS: dict[str, list[str]] = {
    "autopilot (P) and Ctrl+P": ["p", "ctrl+p"],
    "restart / change vehicle (Backspace), replay (Ctrl+R), record (R, Ctrl+R)": ["BackSpace", "ctrl+r", "r"],
    "quit (Esc, Ctrl+Q)": ["Escape", "ctrl+q"],
    "weather (C, Shift+C), camera (Tab, `), sensors (1-9, N), HUD (F1), help (H)": (
        ["c", "shift+c", "Tab", "grave", "n", "F1", "h"] + list("123456789")
    ),
    "every other key": [
        k
        for k in string.ascii_lowercase + string.digits + "-=[];'/\\"
        if k not in DRIVING and k not in "prcnh123456789"
    ]
    + [f"F{i}" for i in range(2, 13)]
    + ["Home", "End", "Prior", "Next", "Insert", "Delete"],
}


@pytest.fixture(scope="module")
def sim(xvfb_display, tmp_path_factory) -> Iterator[SimpleNamespace]:
    session = session_class("drive")()
    session.start(
        load_task("T18"), Sandbox(display=xvfb_display, env={}, workdir=str(tmp_path_factory.mktemp("drive")))
    )
    poller = SessionSampler(session, keep=False)
    port = None
    try:
        port = AgentPort(xvfb_display, clock=session.sim_time)
        client = DirectClient(port)
        client.mouse_move(640, 400)  # no window manager: the pointer over the window gives it the keys
        deadline = time.monotonic() + 60
        while not poller.last:
            assert time.monotonic() < deadline, "no sample from the drive simulator"
            time.sleep(0.1)
        yield SimpleNamespace(session=session, client=client, poller=poller)
    finally:
        poller.stop()
        if port is not None:
            port.close()
        session.stop()


def _ego(sim: SimpleNamespace) -> dict[str, float]:
    return {k: round(float(sim.poller.last[k]), 3) for k in EGO}


def _run(sim: SimpleNamespace, seconds: float) -> None:
    t0, deadline = sim.session.sim_time(), time.monotonic() + 60
    while sim.session.sim_time() < t0 + seconds:
        assert time.monotonic() < deadline, "the drive simulator's clock stopped"
        time.sleep(0.05)


@pytest.mark.parametrize("what", list(ATTEMPTS))
def test_manual_control_shortcuts_leave_the_ego_alone(sim, what):
    _run(sim, 0.5)
    before = _ego(sim)
    t0, w0 = sim.session.sim_time(), time.monotonic()
    for k in ATTEMPTS[what]:
        sim.client.key(k, hold_s=0.1)
    _run(sim, 1.0)
    assert _ego(sim) == before, f"{what} moved the ego"
    assert sim.session.alive(), f"{what} stopped the simulator"
    ran, wall = sim.session.sim_time() - t0, time.monotonic() - w0
    assert ran <= 1.2 * wall + 0.5, f"{what}: {ran:.1f} simulator s in {wall:.1f} wall s (sped up)"


def test_positive_control_a_driving_key_moves_the_ego(sim):
    before = _ego(sim)
    sim.client.key("w", hold_s=1.0)
    _run(sim, 1.0)
    assert _ego(sim)["speed_kmh"] > before["speed_kmh"]
    sim.client.key("space", hold_s=3.0)  # hand brake: stop again for any test after this one
