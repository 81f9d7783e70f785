"""The `tcp-stream` telemetry mode, the one the VM provider needs: the sandbox may send nothing
to the host, so the host opens the cockpit's telnet port and the generic-protocol packets come
back on that connection. Here on a private Xvfb with a sandbox that, like the VM's, gives no
harness address; the same real cockpit process as in every other mode."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from simbridge._adapter import Sandbox
from simbridge._sims import session_class
from simbridge._task import load_task

pytestmark = [pytest.mark.display, pytest.mark.slow]


def _collect(s, seconds: float) -> list:
    out = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        out += s.poll()
        time.sleep(0.05)
    return out + s.poll()


@pytest.fixture
def stream_session(xvfb, tmp_path):
    s = session_class("jsbsim")()
    yield s, Sandbox(display=xvfb, env={}, workdir=str(tmp_path), harness_addr=None)
    s.stop()


def test_stream_mode_samples_at_the_packet_rate_with_the_task_clock(stream_session):
    s, box = stream_session
    s.start(load_task("T09"), box)
    assert s.telemetry_mode == "tcp-stream" and s.alive()
    samples = _collect(s, 4.0)
    ts = [x.t_sim for x in samples]
    assert ts == sorted(ts) and len(set(ts)) == len(ts)
    assert (len(ts) - 1) / (ts[-1] - ts[0]) >= 55          # every packet of the 60 Hz (sim time) stream
    assert max(b - a for a, b in zip(ts, ts[1:])) < 0.05
    assert 3.2 < ts[-1] - ts[0] < 4.6                       # the task clock is the simulator's
    last = samples[-1].values
    assert set(load_task("T09").signals) <= set(last)
    assert abs(last["alt_msl_ft"] - 3500) < 100 and abs(last["ias_kt"] - 100) < 8
    # the telnet control connection still works next to the stream: pause, snapshot
    s.set_paused(True)
    time.sleep(0.3)
    s.poll()
    t_paused = s.sim_time()
    time.sleep(1.0)
    assert s.poll() == [] and s.sim_time() == pytest.approx(t_paused, abs=0.02)
    assert s.alive()                                        # idle packets keep coming while frozen
    s.set_paused(False)
    assert s.snapshot()["aircraft"] == "c172x"
    info = s.info()
    tel = info["telemetry"]
    assert tel["mode"] == "tcp-stream" and tel["bad_packets"] == 0 and tel["packets"] >= len(samples)
    assert tel["samples_per_sim_s"] >= 55


def test_a_stream_that_stops_is_a_lost_simulator(stream_session):
    s, box = stream_session
    s.start(load_task("T09"), box)
    _collect(s, 1.0)
    os.kill(s.proc.pid, signal.SIGSTOP)                     # the cockpit (or the whole guest) hangs
    try:
        t0 = time.monotonic()
        while s.alive() and time.monotonic() - t0 < 15:
            s.poll()
            time.sleep(0.1)
        assert not s.alive()
        assert 4.0 < time.monotonic() - t0 < 8.0           # after STALE_AFTER_S without a packet
    finally:
        os.kill(s.proc.pid, signal.SIGCONT)


def test_a_closed_stream_is_a_lost_simulator_at_once(stream_session):
    s, box = stream_session
    s.start(load_task("T09"), box)
    s.telnet.run("exit")                                     # the cockpit quits: its connections close
    t0 = time.monotonic()
    while s.alive() and time.monotonic() - t0 < 5:
        time.sleep(0.05)
    assert not s.alive() and time.monotonic() - t0 < 2
    assert "closed" in s.info()["telemetry"]["failed"]


def test_runner_ends_a_frozen_stream_as_a_harness_fault(tmp_path, monkeypatch):
    """An episode whose telemetry stops (the guest stops answering) ends unscored, never as
    the agent's failure."""
    from simbridge._providers._local import LocalProvider
    from simbridge._runner import RunConfig, run
    from simbridge.adapters.jsbsim import JSBSimSession

    real_start = LocalProvider.start

    def no_harness_addr(self, workdir):
        sb = real_start(self, workdir)
        sb.harness_addr = None                               # as in the VM: stream telemetry
        return sb

    sessions: list = []
    real_session_start = JSBSimSession.start

    def record(self, *a, **kw):
        sessions.append(self)
        return real_session_start(self, *a, **kw)

    monkeypatch.setattr(LocalProvider, "start", no_harness_addr)
    monkeypatch.setattr(JSBSimSession, "start", record)

    def freeze():
        while not sessions or sessions[0].sim_time() < 3.0:
            time.sleep(0.05)
        os.kill(sessions[0].proc.pid, signal.SIGSTOP)

    th = threading.Thread(target=freeze, daemon=True)
    th.start()
    (res,) = run(RunConfig(task="T09", sim="jsbsim", agent="noop", time_limit_s=60, out=tmp_path, frame_hz=0,
                           say=lambda s: None))
    assert res.status in ("sim_crashed", "harness_error"), res.detail
    assert res.score.status == "unscored"
    assert 2.5 < res.sim_s < 10
