"""Exact lockstep on the embedded cockpit (`JSBSimSession.advance`, the cockpit's `run advance`):
from a freeze at t=0, whole FDM steps as fast as the CPU allows, the packets at their rate in
simulator time, input held over a step acting per FDM step, and the same input giving the same
trajectory on every run."""

from __future__ import annotations

import time

import numpy as np
import pytest

from simbridge._adapter import Sandbox
from simbridge._agent_port._input import XInput
from simbridge._sims import session_class
from simbridge._task import load_task
from simbridge.adapters.jsbsim import _session
from simbridge.adapters.jsbsim.cockpit import _fdm

pytestmark = [pytest.mark.display, pytest.mark.slow]


def _start(xvfb, workdir, task: str = "T09"):
    s = session_class("jsbsim")()
    s.start_paused = True
    s.start(load_task(task), Sandbox(display=xvfb, env={}, workdir=str(workdir)))
    return s


def _wait_samples(s, t: float, timeout_s: float = 10.0) -> list:
    """The samples up to simulator time `t` (polled until the last one is in)."""
    out: list = []
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        out += s.poll()
        if out and out[-1].t_sim >= t - 1e-6:
            return out
        time.sleep(0.01)
    raise AssertionError(f"no sample at t={t} within {timeout_s} s (last: {out[-1].t_sim if out else None})")


def test_the_host_knows_the_cockpits_fdm_step():
    assert _session.FDM_STEP_S == _fdm.DT_S


def test_advance_runs_exactly_the_simulator_time_asked_at_the_packet_rate(xvfb, tmp_path):
    s = _start(xvfb, tmp_path)
    try:
        first = _wait_samples(s, 0.0)
        assert first[0].t_sim == 0.0  # frozen from launch: nothing ran before the first step
        time.sleep(0.3)
        assert s.poll() == [] and s.sim_time() == 0.0  # still frozen: no wall-clock-paced time
        reached = [s.advance(0.1) for _ in range(20)]
        assert reached == pytest.approx([0.1 * (i + 1) for i in range(20)], abs=1e-4)
        samples = _wait_samples(s, 2.0)
        ts = np.array([x.t_sim for x in samples])
        assert ts[-1] == pytest.approx(2.0, abs=1e-4)
        assert np.diff(ts) == pytest.approx(1 / 60, abs=2e-4)  # 60 Hz in simulator time, no gap
        # a long wait: chunked on the host, still exact, still at the packet rate
        w0 = time.monotonic()
        assert s.advance(5.0) == pytest.approx(7.0, abs=1e-4)
        wall = time.monotonic() - w0
        samples = _wait_samples(s, 7.0)
        ts = np.array([x.t_sim for x in samples])
        assert len(ts) == 300 and np.diff(ts) == pytest.approx(1 / 60, abs=2e-4)
        assert wall < 5.0, f"5 simulator seconds took {wall:.1f} wall seconds: not faster than real time"
        # a step that is not a whole number of packets still ends exactly where asked
        assert s.advance(0.025) == pytest.approx(7.025, abs=1e-4)
        assert _wait_samples(s, 7.025)[-1].t_sim == pytest.approx(7.025, abs=1e-4)
        # running: advance declines (the caller paces by pausing)
        s.set_paused(False)
        assert s.advance(0.1) is None
    finally:
        s.stop()


def _scripted_run(xvfb, workdir) -> tuple[np.ndarray, float]:
    """A fixed input sequence in lockstep; (the trace, the aileron after a 1 s held Left)."""
    s = _start(xvfb, workdir)
    xi = XInput(xvfb)
    try:
        _wait_samples(s, 0.0)
        s.advance(0.5)
        xi.key_down("Left")
        s.advance(1.0)  # held: the first repeat after 0.3 s, then every 50 ms of simulator time
        aileron = float(s.telnet.get("/controls/flight/aileron"))
        xi.key_up("Left")
        s.advance(0.5)
        xi.key("Page_Up", hold_s=0.0)
        xi.key("Up", hold_s=0.0)
        t = s.advance(2.0)
        samples = _wait_samples(s, t)
        cols = sorted(samples[-1].values)
        return np.array([[x.t_sim, *(x.values[c] for c in cols)] for x in samples]), aileron
    finally:
        xi.close()
        s.stop()


def test_the_same_input_gives_the_same_trajectory(xvfb, tmp_path):
    a, aileron_a = _scripted_run(xvfb, tmp_path / "a")
    b, aileron_b = _scripted_run(xvfb, tmp_path / "b")
    # Left (-0.05) at once, then repeats at 0.30, 0.35 ... 0.95 s: 15 presses in one second
    assert aileron_a == aileron_b == pytest.approx(-0.75)
    assert a.shape == b.shape and a.shape[0] >= 240
    assert np.array_equal(a, b, equal_nan=True)
