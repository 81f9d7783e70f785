"""The P13@PHJR partial-panel reference pilot's readers (`_gauges`: the turn coordinator, the
suction gauge and the heading indicator's card read absolutely) on two real crops of FlightGear's
c172p panel (`tests/fixtures/flightgear_p13/`), checked against the simulator's own values
without launching FlightGear.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simbridge.adapters.flightgear.pilots._gauges import (
    angle_step_deg,
    dg_heading_deg,
    nearest_quarter_deg,
    suction_cue,
    turn_rate_deg_s,
)
from simbridge.adapters.flightgear.pilots._partial_panel import REGION

SEED = 11
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "flightgear_p13"


def _crop(name: str):
    import cv2

    bgr = cv2.imread(str(FIXTURES / name))
    assert bgr is not None, name
    return bgr


def test_partial_panel_readers_on_real_crops():
    """Turn rate, suction cue and the heading card (modulo 90°, the quarter from a prior 40°
    off) against the simulator's own values; the cue rises by more than the pilot's threshold."""
    truth = json.loads((FIXTURES / "truth.json").read_text())
    origin = (REGION[0], REGION[1])
    good, failed = _crop("008.png"), _crop("030.png")
    assert turn_rate_deg_s(good, origin) == pytest.approx(truth["008.png"]["turn_rate_deg_s"], abs=0.4)
    assert suction_cue(failed, origin) - suction_cue(good, origin) > 12.0
    for name, bgr in (("008.png", good), ("030.png", failed)):
        want = truth[name]["heading_mag_deg"]
        got = nearest_quarter_deg(dg_heading_deg(bgr, origin), (want - 40.0) % 360.0)
        assert abs(angle_step_deg(want, got)) < 3.0, (name, got, want)


def test_the_carried_heading_follows_the_simulators_through_the_roll_out():
    """After the vacuum failure the pilot carries the heading on the turn coordinator alone. On
    100 real screenshots of its airplane symbol (P13@PHJR seed 2, the 21 s from just before the
    failure through the roll-out onto the heading), the carried heading stays within 2.5° of the
    simulator's (1.9° measured); the rate summed without the instrument's lag ran 3.4° past it."""
    import cv2
    import numpy as np

    from simbridge.adapters.flightgear.pilots._partial_panel import CarriedHeading

    truth = json.loads((FIXTURES / "tc_seed2.json").read_text())
    strip = cv2.imread(str(FIXTURES / "tc_seed2.png"))
    assert strip is not None
    n, w = len(truth["t_s"]), truth["tile_px"]
    ox, oy = truth["tile_origin_screen"]
    rates = [turn_rate_deg_s(strip[:, i * w : (i + 1) * w], (ox, oy)) for i in range(n)]
    t, want = np.array(truth["t_s"]), np.array(truth["heading_mag_deg"])
    i0 = int(np.searchsorted(t, truth["failure_shown_t_s"]))

    def recent(i: int) -> float:
        return float(np.mean([r for r, ts in zip(rates, t) if t[i] - 1.0 <= ts <= t[i]]))

    carried = CarriedHeading(float(want[i0]), recent(i0))
    plain, worst, worst_plain = float(want[i0]), 0.0, 0.0
    for i in range(i0 + 1, n):
        dt = float(t[i] - t[i - 1])
        got = carried.step(rates[i], dt, recent(i))
        plain += rates[i] * dt
        worst = max(worst, abs(angle_step_deg(float(want[i]), got)))
        worst_plain = max(worst_plain, abs(angle_step_deg(float(want[i]), plain % 360.0)))
    assert worst < 2.5, worst
    assert worst_plain > worst + 1.0, (worst_plain, worst)
