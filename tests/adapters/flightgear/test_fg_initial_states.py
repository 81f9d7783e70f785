"""Site variants start in their catalog state on the real FlightGear: T05@PHJR on runway 04R
with the engine running (started over telnet during setup, because on the ground the c172p
starts cold and dark). T10@PHNL's start (in the air on the 08L localizer) is checked on its
reference episode's own launch (test_fg_t10.py)."""

from __future__ import annotations

import time

import pytest

from simbridge._adapter import Sandbox
from simbridge._task import load_task
from simbridge.adapters.flightgear import FlightGearSession

pytestmark = [pytest.mark.flightgear, pytest.mark.slow, pytest.mark.display]


def _samples(session: FlightGearSession, n: int, timeout_s: float = 60.0) -> list:
    got: list = []
    deadline = time.monotonic() + timeout_s
    while len(got) < n and time.monotonic() < deadline:
        got += session.poll()
        time.sleep(0.1)
    assert len(got) >= n, f"only {len(got)} samples in {timeout_s:g} s"
    return got


def test_t05_phjr_starts_on_runway_04r_with_engine_running(xvfb, tmp_path):
    task = load_task("T05@PHJR")
    s = FlightGearSession()
    try:
        s.start(task, Sandbox(display=xvfb.display, env={}, workdir=str(tmp_path)))
        v = _samples(s, 3)[-1].values
        assert v["on_ground"] == 1 and v["engine_running"] == 1 and v["engine_rpm"] > 500
        rwy = task.geometry.runway("04R")
        # on the runway, near its 04R end, pointing down it
        assert abs(v["lat_deg"] - rwy.threshold.lat_deg) < 0.004 and abs(v["lon_deg"] - rwy.threshold.lon_deg) < 0.004
        assert abs(((v["heading_true_deg"] - rwy.heading_true_deg) + 180) % 360 - 180) < 10
    finally:
        s.stop()
