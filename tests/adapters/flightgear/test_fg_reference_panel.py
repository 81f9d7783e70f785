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
