"""JSBSimSession end to end on a private Xvfb display: launch, samples, pause, snapshot,
events, stop; in both telemetry modes (UDP pushed by the cockpit, and the `tcp-stream` the VM
provider needs: the sandbox may send nothing to the host, so the host opens the cockpit's
telnet port and the generic-protocol packets come back on that connection)."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from simbridge._adapter import Sandbox
from simbridge._errors import HarnessError
from simbridge._sims import session_class
from simbridge._task import load_task

#: a short frozen limit for the tests of a stream that stops (the default is FROZEN_LIMIT_S, 120 s)
FROZEN_S = 5.0

pytestmark = [pytest.mark.display, pytest.mark.slow]


def _collect(s, seconds: float) -> list:
    out = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        out += s.poll()
        time.sleep(0.05)
    return out + s.poll()


# Wall-clock bounds here are deliberately one-sided or wide: the cockpit paces JSBSim to real
# time and, when it falls behind (a loaded CI machine), drops time rather than racing
# (cockpit.MAX_CATCHUP_S). So simulator seconds never exceed wall seconds, but may fall short
# of them; a lower bound only catches a simulator that barely runs. Waits poll for the state
# they expect, with a generous deadline, instead of sleeping a fixed time.
MIN_RT_FACTOR = 0.5


def _wait_for(s, pred, timeout_s: float = 10.0) -> bool:
    """Poll the session until `pred()` holds (True) or `timeout_s` wall seconds pass (False)."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        s.poll()
        if pred():
            return True
        time.sleep(0.05)
    return False


def _wait_frozen(s, still_s: float = 0.3, timeout_s: float = 10.0) -> float:
    """Wait until the simulator clock stands still for `still_s`; returns the frozen sim time."""
    end = time.monotonic() + timeout_s
    s.poll()
    t = s.sim_time()
    while time.monotonic() < end:
        time.sleep(still_s)
        s.poll()
        if s.sim_time() == pytest.approx(t, abs=0.02):
            return t
        t = s.sim_time()
    raise AssertionError(f"the simulator clock did not stop within {timeout_s} s")


def _assert_paced(ts: list[float], wall_s: float, collect_s: float) -> None:
    """Sim span of the samples against wall time: at most the `wall_s` since before the launch
    (which contains every sample), at least MIN_RT_FACTOR of the `collect_s` spent collecting."""
    span_s = ts[-1] - ts[0]
    assert span_s <= wall_s * 1.05 + 0.1, f"{span_s:.2f} sim s in {wall_s:.2f} wall s: faster than real time"
    assert span_s >= collect_s * MIN_RT_FACTOR - 0.1, f"only {span_s:.2f} sim s while collecting {collect_s} s"


def _session(xvfb, tmp_path, **sandbox):
    s = session_class("jsbsim")()
    yield s, Sandbox(display=xvfb, env={}, workdir=str(tmp_path), **sandbox)
    s.stop()


@pytest.fixture
def session(xvfb, tmp_path):
    yield from _session(xvfb, tmp_path)


@pytest.fixture
def stream_session(xvfb, tmp_path):
    """A sandbox that, like the VM's, gives no harness address: tcp-stream telemetry."""
    yield from _session(xvfb, tmp_path, harness_addr=None)


def test_t09_session_streams_canonical_samples_at_50hz_and_pauses(session):
    s, box = session
    wall0 = time.monotonic()
    s.start(load_task("T09"), box)
    assert s.alive()
    samples = _collect(s, 4.0)
    wall_s = time.monotonic() - wall0
    ts = [x.t_sim for x in samples]
    assert ts == sorted(ts)
    rate = (len(ts) - 1) / (ts[-1] - ts[0])
    assert rate >= 50
    gaps = [b - a for a, b in zip(ts, ts[1:])]
    assert max(gaps) < 0.25
    last = samples[-1].values
    assert set(load_task("T09").signals) <= set(last)
    assert abs(last["alt_msl_ft"] - 3500) < 100 and abs(last["ias_kt"] - 100) < 8
    # real time: simulator seconds track wall seconds (never faster; see MIN_RT_FACTOR)
    _assert_paced(ts, wall_s, 4.0)

    s.set_paused(True)
    t_paused = _wait_frozen(s)
    time.sleep(1.0)
    s.poll()
    assert s.sim_time() == pytest.approx(t_paused, abs=0.02)
    assert s.alive()  # still answering while frozen
    s.set_paused(False)
    assert _wait_for(s, lambda: s.sim_time() > t_paused + 0.3), "the clock did not resume"

    snap = s.snapshot()
    assert snap["aircraft"] == "c172x" and snap["radios"]["xpdr_code"] == 1200
    assert snap["autopilot"]["autopilot_on"] == 0

    s.telnet.set("/autopilot/switches/ap", 1)
    kinds: list[str] = []
    assert _wait_for(s, lambda: kinds.extend(e.kind for e in s.events()) or "autopilot_change" in kinds)
    info = s.info()
    assert info["frame_rate"] > 10 and MIN_RT_FACTOR < info["real_time_factor"] < 1.1

    proc = s.proc
    s.stop()
    s.stop()  # safe twice
    assert proc.poll() is not None and not s.alive()


def test_crash_event_from_a_dive(session):
    s, box = session
    task = load_task("T09").model_copy(deep=True)
    task.initial_state.alt_msl_ft = 250
    s.start(task, box)
    s.telnet.set("/controls/flight/elevator", 0.6)
    deadline = time.monotonic() + 30
    events, samples = [], []
    while time.monotonic() < deadline and not any(e.kind == "crash" for e in events):
        samples += s.poll()
        events += s.events()
        time.sleep(0.1)
    crash = [e for e in events if e.kind == "crash"]
    assert crash and crash[0].data["reason"]
    assert samples[-1].values["crashed"] == 1 and samples[0].values["crashed"] == 0
    # frozen after the crash: the clock stops, no further samples, but the process is alive
    t = s.sim_time()
    time.sleep(0.5)
    assert s.poll() == [] and s.sim_time() == pytest.approx(t, abs=0.02) and s.alive()


def test_unsupported_initial_state_is_a_harness_error(session):
    s, box = session
    task = load_task("T09").model_copy(deep=True)
    task.initial_state.airport = "ZZZZ"
    with pytest.raises(HarnessError):
        s.start(task, box)


def test_launch_failure_is_reported(session):
    s, box = session
    s.python = "/nonexistent/python"
    with pytest.raises(HarnessError):
        s.start(load_task("T09"), box)
    assert not s.alive()


def test_engine_failure_is_injected_at_the_drawn_height(session):
    s, box = session
    task = load_task("T09").model_copy(deep=True)
    task.initial_state.failures = load_task("T11").initial_state.failures  # engine, AGL 400-1200 ft
    s.start(task, box, seed=7)
    samples, events = [], []
    deadline = time.monotonic() + 30  # wide: a loaded machine runs slower
    while time.monotonic() < deadline:
        samples += s.poll()
        events += s.events()
        if samples and samples[-1].values["engine_running"] == 0:
            break
        time.sleep(0.05)
    inj = [e for e in events if e.kind == "failure_injected"]
    assert len(inj) == 1 and inj[0].data["system"] == "engine"
    # the kit's schema: trigger_agl_ft the drawn height, agl_ft the height at injection
    assert 400 <= inj[0].data["trigger_agl_ft"] <= 1200 and inj[0].data["agl_ft"] >= inj[0].data["trigger_agl_ft"]
    assert samples[0].values["engine_running"] == 1 and samples[-1].values["engine_running"] == 0
    assert s.snapshot()["crashed"] == 0


def test_stream_mode_samples_at_the_packet_rate_with_the_task_clock(stream_session):
    s, box = stream_session
    wall0 = time.monotonic()
    s.start(load_task("T09"), box)
    assert s.telemetry_mode == "tcp-stream" and s.alive()
    samples = _collect(s, 4.0)
    wall_s = time.monotonic() - wall0
    ts = [x.t_sim for x in samples]
    assert ts == sorted(ts) and len(set(ts)) == len(ts)
    assert (len(ts) - 1) / (ts[-1] - ts[0]) >= 55  # every packet of the 60 Hz (sim time) stream
    assert max(b - a for a, b in zip(ts, ts[1:])) < 0.05
    _assert_paced(ts, wall_s, 4.0)  # the task clock is the simulator's
    last = samples[-1].values
    assert set(load_task("T09").signals) <= set(last)
    assert abs(last["alt_msl_ft"] - 3500) < 100 and abs(last["ias_kt"] - 100) < 8
    # the telnet control connection still works next to the stream: pause, snapshot
    s.set_paused(True)
    t_paused = _wait_frozen(s)
    time.sleep(1.0)
    assert s.poll() == [] and s.sim_time() == pytest.approx(t_paused, abs=0.02)
    assert s.alive()  # idle packets keep coming while frozen
    s.set_paused(False)
    assert s.snapshot()["aircraft"] == "c172x"
    info = s.info()
    tel = info["telemetry"]
    assert tel["mode"] == "tcp-stream" and tel["bad_packets"] == 0 and tel["packets"] >= len(samples)
    assert tel["samples_per_sim_s"] >= 55


def test_a_stream_that_stops_is_a_frozen_simulator_until_its_limit(stream_session):
    s, box = stream_session
    s.frozen_limit_s = FROZEN_S
    s.start(load_task("T09"), box)
    _collect(s, 1.0)
    os.kill(s.proc.pid, signal.SIGSTOP)  # the cockpit (or the whole guest) hangs
    try:
        t0 = time.monotonic()
        while s.alive() and time.monotonic() - t0 < 15:
            s.poll()
            time.sleep(0.1)
        assert not s.alive()
        # after the frozen limit without a packet (never sooner); the upper bound leaves a
        # loaded machine's scheduling slack of 2 x the limit
        assert FROZEN_S - 1.0 < time.monotonic() - t0 < 3 * FROZEN_S
        assert s.process_state() == "stopped"
        assert (s.lost_reason() or "").startswith("simulator frozen: no state packet"), s.lost_reason()
    finally:
        os.kill(s.proc.pid, signal.SIGCONT)


def test_a_closed_stream_is_a_lost_simulator_at_once(stream_session):
    s, box = stream_session
    s.start(load_task("T09"), box)
    s.telnet.run("exit")  # the cockpit quits: its connections close
    t0 = time.monotonic()
    while s.alive() and time.monotonic() - t0 < 10:
        time.sleep(0.05)
    # at once means on the close, long before the frozen limit could have fired
    assert not s.alive() and time.monotonic() - t0 < 4.0
    assert "closed" in s.info()["telemetry"]["failed"]


def test_runner_ends_a_stream_frozen_beyond_its_limit_as_a_harness_fault(tmp_path, monkeypatch):
    """An episode whose telemetry stops for good (the guest stops answering) ends unscored
    once the frozen limit has passed, never as the agent's failure."""
    from simbridge._providers._local import LocalProvider
    from simbridge.episode import RunConfig, run
    from simbridge.adapters.jsbsim import JSBSimSession

    real_start = LocalProvider.start

    def no_harness_addr(self, workdir):
        sb = real_start(self, workdir)
        sb.harness_addr = None  # as in the VM: stream telemetry
        return sb

    sessions: list = []
    real_session_start = JSBSimSession.start

    def record(self, *a, **kw):
        sessions.append(self)
        return real_session_start(self, *a, **kw)

    monkeypatch.setattr(LocalProvider, "start", no_harness_addr)
    monkeypatch.setattr(JSBSimSession, "start", record)
    monkeypatch.setattr(JSBSimSession, "frozen_limit_s", FROZEN_S + 3.0)

    def freeze():
        while not sessions or sessions[0].sim_time() < 3.0:
            time.sleep(0.05)
        os.kill(sessions[0].proc.pid, signal.SIGSTOP)

    th = threading.Thread(target=freeze, daemon=True)
    th.start()
    (res,) = run(
        RunConfig(task="T09", sim="jsbsim", agent="noop", time_limit_s=60, out=tmp_path, frame_hz=0, say=lambda s: None)
    )
    # the process still runs (stopped): frozen beyond the limit, a harness fault that says so
    assert res.status == "harness_error" and "simulator frozen" in res.detail and "stopped" in res.detail, res.detail
    assert res.score.status == "unscored"
    assert 2.5 < res.sim_s < 10


def test_the_cockpit_window_is_on_the_display_whatever_the_runner_draws_on(session, monkeypatch):
    """The runner (here: the test process) draws off-screen; the cockpit it launches still shows
    its window on the sandbox's display. (It once inherited SDL_VIDEODRIVER=dummy: a VM agent saw a
    black screen for a whole episode and was scored 0 for it.)"""
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    s, box = session
    s.start(load_task("T09"), box)
    assert s.info()["video_driver"] == "x11"


def test_a_cockpit_that_draws_no_window_is_a_harness_fault(xvfb, tmp_path):
    s = session_class("jsbsim")()
    try:
        with pytest.raises(HarnessError, match=r"jsbsim: the simulator's window is not on display .*'dummy'"):
            s.start(load_task("T09"), Sandbox(display=xvfb, env={"SDL_VIDEODRIVER": "dummy"}, workdir=str(tmp_path)))
        assert not s.alive()
    finally:
        s.stop()
