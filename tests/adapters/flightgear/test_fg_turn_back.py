"""The T11@PHJR reference pilot's engine-failure cue (`_turn_back`: the tachometer's needle)
on real crops of FlightGear's c172p panel (`tests/fixtures/flightgear_t11/`), without launching
FlightGear. The whole pilot flies in the FlightGear benchmark (`benchmarks/reference_pilots.py`).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from simbridge.adapters.flightgear.pilots._turn_back import FAILED_NEEDLE_DEG, needle_fall_deg, tach_needle_deg

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "flightgear_t11"
ORIGIN = (490, 615)


def _needle(name: str) -> float:
    bgr = cv2.imread(str(FIXTURES / f"tach_{name}@490,615.png"))
    assert bgr is not None, name
    return tach_needle_deg(bgr, ORIGIN)


@pytest.mark.parametrize(("name", "deg"), [("idle", 272.5), ("climb", 53.0), ("windmill", 286.5)])
def test_the_tachometer_needle_is_read_where_the_rpm_puts_it(name, deg):
    # 794 rpm at idle, 2,610 at full power in the climb, 1,011 windmilling after the failure
    assert _needle(name) == pytest.approx(deg, abs=3.0)


def test_the_failure_is_the_needles_fall_through_twelve_oclock():
    climb, windmill, idle = _needle("climb"), _needle("windmill"), _needle("idle")
    # 53° to 286°: a fall of 126° counter-clockwise, not a rise of 234° (the first version
    # compared the angles as numbers and never saw the failure, T11@PHJR seed 2)
    assert needle_fall_deg(climb, windmill) == pytest.approx(126.5, abs=4.0)
    assert needle_fall_deg(climb, windmill) > FAILED_NEEDLE_DEG
    assert needle_fall_deg(climb, idle) > FAILED_NEEDLE_DEG
    assert abs(needle_fall_deg(climb, climb + 5.0)) < FAILED_NEEDLE_DEG  # the climb's own wobble
