"""A simulator that stands still is waited for; one that is gone is a harness fault.

On the real embedded JSBSim cockpit: the cockpit process is stopped (SIGSTOP, as a machine too
loaded to schedule it, or FlightGear busy changing views) for 8 s mid-episode and continued.
The episode is scored, the freeze is in episode.json, and the recording has no gap in
simulator time (a frozen clock produces no samples; none are missing). A cockpit killed
mid-episode is a harness fault, unscored, and the bundle names the agent's last input.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time

import numpy as np
import pytest

from support.runner import needs_xvfb, write_script
from simbridge import read_bundle
from simbridge._adapter import TELEMETRY_STALL_S
from simbridge._status import HARNESS_FAULTS
from simbridge.episode import RunConfig, run
from simbridge._task import load_task

pytestmark = [needs_xvfb, pytest.mark.display, pytest.mark.slow]

import jsbsim  # noqa: E402,F401  (only a genuinely absent dependency fails the collection)

from simbridge.adapters.jsbsim import JSBSimSession  # noqa: E402

FREEZE_WALL_S = 8.0

SCRIPT = """
actions:
  - {at: 2.0, key: Left}
  - {at: 16.0, done: "flew through a freeze"}
"""


def _capture_sessions(monkeypatch) -> list:
    sessions: list = []
    real_start = JSBSimSession.start

    def start(self, *a, **kw):
        sessions.append(self)
        return real_start(self, *a, **kw)

    monkeypatch.setattr(JSBSimSession, "start", start)
    return sessions


def _at_sim_time(sessions: list, t: float, then) -> threading.Thread:
    def go():
        # a slow launch (FlightGear on a loaded machine) takes minutes; act only at time t
        deadline = time.monotonic() + 900
        while (not sessions or sessions[0].sim_time() < t) and time.monotonic() < deadline:
            time.sleep(0.02)
        if sessions and sessions[0].sim_time() >= t:
            then(sessions[0])

    th = threading.Thread(target=go, daemon=True)
    th.start()
    return th


def _run(tmp_path, agent: str) -> tuple:
    (res,) = run(
        RunConfig(task="T09", sim="jsbsim", agent=agent, time_limit_s=60, out=tmp_path, frame_hz=0, say=lambda s: None)
    )
    return res, json.loads((res.path / "episode.json").read_text())


def test_a_simulator_stopped_for_8_s_is_waited_for_and_scored(tmp_path, monkeypatch):
    sessions = _capture_sessions(monkeypatch)
    script = write_script(tmp_path / "s.yaml", SCRIPT)
    stopped: dict = {}

    def freeze(s):
        os.kill(s.proc.pid, signal.SIGSTOP)
        stopped["t"] = s.sim_time()
        try:
            time.sleep(FREEZE_WALL_S)  # the freeze itself is what is tested: a wall-clock span
        finally:
            os.kill(s.proc.pid, signal.SIGCONT)

    th = _at_sim_time(sessions, 5.0, freeze)
    res, ep = _run(tmp_path / "runs", f"scripted:{script}")
    th.join(30)
    # the agent's own outcome, scored: the freeze cost it nothing
    assert res.status == "completed", res.detail
    assert res.score.status == "scored", res.score
    # the freeze is on record: where the clock stood, the process stopped, how long
    [fz] = [f for f in ep["freezes"] if f["process"] == "stopped"]
    assert abs(fz["t"] - stopped["t"]) < 1.0, (fz, stopped)
    assert fz["wall_s"] > TELEMETRY_STALL_S
    # no simulator time jumped over the freeze ...
    assert 0 <= fz["resumed_t"] - fz["t"] < 1.0, fz
    # ... and the recording has no gap (samples every simulator instant around it)
    t = np.asarray(read_bundle(res.path).signals.t)
    assert t[0] < fz["t"] - 2 and t[-1] > fz["t"] + 5
    assert np.diff(t).max() <= load_task("T09").max_sample_gap_s, np.diff(t).max()
    # the time limit is in simulator time: the agent's done came at t=16 s of simulator time
    assert 15.5 < res.sim_s < 20
    # the last input (waits and observations are not inputs)
    assert ep["last_agent_action"]["kind"] in ("key", "done"), ep["last_agent_action"]


def test_a_simulator_killed_mid_episode_is_a_harness_fault_naming_the_last_input(tmp_path, monkeypatch):
    sessions = _capture_sessions(monkeypatch)
    script = write_script(tmp_path / "s.yaml", SCRIPT)
    th = _at_sim_time(sessions, 4.0, lambda s: os.kill(s.proc.pid, signal.SIGKILL))
    res, ep = _run(tmp_path / "runs", f"scripted:{script}")
    th.join(30)
    assert res.status == "sim_crashed", res.detail  # a harness fault: the simulator process died
    assert res.score.status == "unscored"
    assert 3.5 < res.sim_s < 10
    last = ep["last_agent_action"]
    assert last["kind"] == "key" and "Left" in json.dumps(last["args"]) and 1.9 < last["t"] < 4.0, last
    assert "after the agent's key" in ep["status_detail"], ep["status_detail"]
    assert "freezes" not in ep  # killed is gone, not frozen


@pytest.mark.flightgear
def test_flightgear_stopped_for_8_s_is_waited_for_and_scored(tmp_path, monkeypatch):
    """The real FlightGear (Debian's fgfs) stopped mid-episode for 8 s, as it stands still
    changing views on a loaded machine: scored, the freeze on record, no gap (its per-frame
    step cap keeps the first frame after the freeze short). The episode is T09@PHJR's air start
    flown by the do-nothing agent, so it also shows the hand-over (autostart over, the task's
    clean configuration in, near the task's position, height and speed) and that doing nothing
    earns nothing there."""
    from simbridge.adapters.flightgear import FlightGearSession

    attempts: list[list] = []  # the sessions started, per attempt
    real_start = FlightGearSession.start

    def start(self, *a, **kw):
        attempts[-1].append(self)
        return real_start(self, *a, **kw)

    monkeypatch.setattr(FlightGearSession, "start", start)
    stopped: dict = {}

    def freeze(s):
        # the step cap as FlightGear has it in its property tree (set by the harness at launch)
        stopped["cap"] = float(s.fg.telnet.get("/sim/max-simtime-per-frame"))
        pid = s.fg.proc.pid
        os.kill(pid, signal.SIGSTOP)
        stopped["t"] = s.sim_time()
        try:
            time.sleep(FREEZE_WALL_S)
        finally:
            os.kill(pid, signal.SIGCONT)

    # A launch that fails on a loaded machine is a harness fault (unscored) before the agent's
    # first input; eval runs such an attempt again (its `retries`), and so does this test, once,
    # since what it tests is the freeze
    for attempt in (1, 2):
        attempts.append([])
        th = _at_sim_time(attempts[-1], 5.0, freeze)
        (res,) = run(
            RunConfig(
                task="T09@PHJR",
                sim="flightgear",
                agent="noop",
                time_limit_s=20,
                out=tmp_path / f"attempt{attempt}",
                frame_hz=0,
                say=lambda s: None,
            )
        )
        th.join(30)
        if stopped or res.status not in HARNESS_FAULTS:
            break
    ep = json.loads((res.path / "episode.json").read_text())
    assert stopped, f"the episode ended before FlightGear reached t=5 s ({res.status}: {res.detail})"
    assert res.status == "timeout", res.detail  # the agent's own outcome (noop waits out the limit)
    assert res.score.status == "scored", res.score
    [fz] = [f for f in ep["freezes"] if f["process"] == "stopped"]
    assert abs(fz["t"] - stopped["t"]) < 1.0 and fz["wall_s"] > TELEMETRY_STALL_S, (fz, stopped)
    assert 0 <= fz["resumed_t"] - fz["t"] < 1.0, fz
    bundle = read_bundle(res.path)
    t = np.asarray(bundle.signals.t)
    # no frame stepped more than the cap, not even the first after the freeze
    assert stopped["cap"] == pytest.approx(0.25) and ep["sim_info"]["flightgear"]["max_sim_step_s"] == 0.25
    assert np.diff(t).max() <= 0.25 + 1e-6, np.diff(t).max()
    assert res.sim_s >= 20  # the limit is simulator time: the 8 s stopped did not count
    # the hand-over: the c172p's autostart is over, the task's clean configuration is in and
    # the aircraft is where the task starts, straight and level at 3,500 ft and 100 kt heading
    # 310° over the sea south of Kalaeloa, hand-flown (it was handed over banked 10-20° and
    # diving at up to 1,700 ft/min before the restart at the start state)
    props = load_task("T09@PHJR").initial_state.scenario["flightgear_props"]
    v = {name: float(bundle.signals[name][0]) for name in bundle.signals.names}
    assert v["on_ground"] == 0 and v["engine_running"] == 1 and v["engine_rpm"] > 2300, v
    assert v["flaps_deg"] < 1.0 and v["autopilot_on"] == 0, v
    assert v["throttle"] == pytest.approx(props["/controls/engines/current-engine/throttle"], abs=0.01), v
    assert abs(v["alt_msl_ft"] - 3500) < 50 and abs(v["ias_kt"] - 100) < 5, v
    assert abs(v["bank_deg"]) < 5 and abs(v["vs_fpm"]) < 700 and abs(v["pitch_deg"]) < 6, v
    assert abs(v["lat_deg"] - 21.20) < 0.003 and abs(v["lon_deg"] + 158.07) < 0.003, v
    # doing nothing earns nothing
    assert res.score.score == 0.0 and not [c.name for c in res.score.components if c.earned], res.score
