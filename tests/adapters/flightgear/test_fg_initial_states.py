"""Site variants start in their catalog state on the real FlightGear: T10@PHNL in the air on
the ILS 08L localizer with the engine running (the c172p `auto` state) and NAV1 set as the
task says; T05@PHJR on runway 04R with the engine running (started over telnet during setup,
because on the ground the c172p starts cold and dark)."""

from __future__ import annotations

import math
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


def test_t10_phnl_starts_on_the_ils_in_the_air(xvfb, tmp_path):
    task = load_task("T10@PHNL")
    s = FlightGearSession()
    try:
        s.start(task, Sandbox(display=xvfb.display, env={}, workdir=str(tmp_path)))
        v = _samples(s, 3)[-1].values
        assert v["on_ground"] == 0 and v["engine_running"] == 1 and v["engine_rpm"] > 1500
        assert abs(v["alt_msl_ft"] - 4000) < 300
        # 12 nm west of the 08L threshold on the centreline
        assert abs(v["lat_deg"] - 21.3252) < 0.02 and abs(v["lon_deg"] + 158.158) < 0.03
        # NAV1 starts where the task puts it (not the ILS: tuning it is the agent's job)
        assert v["nav1_mhz"] == pytest.approx(110.5) and v["nav1_obs_deg"] == pytest.approx(0.0)
        assert v["avionics"] == 1
        # the harness-side check that the variant's ILS facts are real: tune it over telnet
        tn = s.fg.telnet
        tn.set_many(
            {
                "/instrumentation/nav[0]/frequencies/selected-mhz": "111.70",
                "/instrumentation/nav[0]/radials/selected-deg": "81",
            }
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            ident, in_range, loc = tn.get_many(
                [
                    "/instrumentation/nav[0]/nav-id",
                    "/instrumentation/nav[0]/in-range",
                    "/instrumentation/nav[0]/nav-loc",
                ]
            )
            if in_range == "true":
                break
            time.sleep(1.0)
        assert (ident, in_range, loc) == ("IHNL", "true", "true")
        v = _samples(s, 2)[-1].values
        # the unattended aircraft drifts; the localizer needle is live (a finite deviation)
        assert math.isfinite(v["loc_dev_dots"])
        info = s.info()
        assert info["frame_rate_hz"] and info["real_time_factor"]
    finally:
        s.stop()


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
