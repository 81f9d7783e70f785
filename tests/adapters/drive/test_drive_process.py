"""DriveSession against the real drive process on SDL's dummy video driver (no X server):
start, samples, lockstep pause, snapshot, stop."""

from __future__ import annotations

import time

import pytest

import libsumo  # noqa: F401
import vehiclemodels  # noqa: F401
import pygame  # noqa: F401

from simbridge._task import load_task  # noqa: E402
from simbridge.adapters.drive._session import DriveSession  # noqa: E402
from simbridge.sim import HarnessError, Sandbox  # noqa: E402


def _until(cond, timeout_s: float = 60.0) -> None:
    end = time.monotonic() + timeout_s
    while not cond():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.05)


@pytest.fixture
def session(tmp_path, monkeypatch):
    monkeypatch.setenv("SIMBRIDGE_DRIVE_CACHE", str(tmp_path / "cache"))
    sb = Sandbox(display="", env={"SDL_VIDEODRIVER": "dummy"}, workdir=str(tmp_path))
    s = DriveSession()
    s.start(load_task("T06"), sb, seed=7)
    yield s
    s.stop()
    assert s.proc is not None and s.proc.poll() is not None  # the process is gone


@pytest.mark.slow
def test_session_streams_pauses_and_snapshots(session):
    samples: list = []

    def ten() -> bool:
        samples.extend(session.poll())
        return len(samples) >= 10

    _until(ten)
    assert session.alive() and session.lost_reason() is None
    s0 = samples[0].values
    assert s0["x_m"] == pytest.approx(-5.6) and s0["y_m"] == pytest.approx(-77.0)
    assert s0["route_progress"] == 0.0 and s0["lane_id"] != 0
    start = session.snapshot()
    assert len(start["route_xy_m"]) > 400 and start["route_xy_m"][0] == [-5.6, -77.0]
    assert start["traffic_vehicles"] == 6 and "sim_time_s" in start and "ego" in start

    session.set_paused(True)
    time.sleep(0.3)
    session.poll()
    t_paused = session.sim_time()
    time.sleep(0.5)
    assert session.poll() == [] and session.sim_time() == t_paused  # the clock stands still
    assert session.alive()  # a paused world is not a lost one
    # lockstep's exact slices: from the pause, the steps asked for and not one more
    reached = session.advance(0.05)
    assert reached == pytest.approx(t_paused + 0.05, abs=1e-6)
    _until(lambda: bool(session.poll()) or session.sim_time() >= reached - 1e-6)
    reached_2 = session.advance(0.12)  # 2.4 steps: two whole 50 ms steps
    assert reached_2 == pytest.approx(reached + 0.10, abs=1e-6)
    _until(lambda: bool(session.poll()) or session.sim_time() >= reached_2 - 1e-6)
    time.sleep(0.3)
    session.poll()
    assert session.sim_time() == pytest.approx(reached_2, abs=1e-6)  # paused again, no overrun
    session.set_paused(False)
    _until(lambda: bool(session.poll()))
    assert session.sim_time() > t_paused
    assert session.info()["telemetry"]["bad_lines"] == 0
    lights = session.snapshot()["traffic_light_states"]
    assert len(lights) == start["traffic_lights"] and all(set(v) <= set("rRyYgGsuoO") for v in lights.values())


def test_an_unknown_town_is_a_one_line_harness_error(tmp_path):
    task = load_task("T18")
    scenario = dict(task.initial_state.scenario, town="Town99")
    bad = task.model_copy(update={"initial_state": task.initial_state.model_copy(update={"scenario": scenario})})
    sb = Sandbox(display="", env={"SDL_VIDEODRIVER": "dummy"}, workdir=str(tmp_path))
    with pytest.raises(HarnessError, match="unknown town 'Town99'"):
        DriveSession().start(bad, sb)
