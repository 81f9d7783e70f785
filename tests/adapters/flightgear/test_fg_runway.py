"""The FlightGear runway reader (`_runway.see_runway`): the eye's offset from the centreline
from the runway's two edges, on frames drawn with a pinhole camera at known offsets, heights,
pitches, yaws and banks, and on real FlightGear frames whose truth the bundle recorded
(`tests/fixtures/flightgear_t03`)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from support.runway_frames import WIDTH_M, draw, window

from simbridge.adapters.flightgear.pilots._runway import see_runway

FIXTURES = Path(__file__).parents[2] / "fixtures" / "flightgear_t03"


@pytest.mark.parametrize(
    ("right_m", "height_m", "to_thr_m", "pitch", "yaw", "bank"),
    [
        (0.0, 90.0, 1700.0, -12.0, 0.0, 0.0),
        (12.0, 90.0, 1700.0, -12.0, 2.0, 0.0),
        (-25.0, 60.0, 1100.0, -14.0, -3.0, 2.0),
        (6.0, 30.0, 500.0, -10.0, 1.0, -3.0),
        (40.0, 120.0, 2200.0, -13.0, 4.0, 4.0),
    ],
)
def test_the_offset_comes_from_the_edges_at_any_pitch_yaw_and_bank(right_m, height_m, to_thr_m, pitch, yaw, bank):
    img = draw(right_m, height_m, to_thr_m, pitch, yaw, bank)
    bearing = math.degrees(math.atan2(-right_m, to_thr_m)) - yaw
    sight = see_runway(window(img), bank, bearing, WIDTH_M)
    assert sight is not None
    assert sight.right_m == pytest.approx(right_m, abs=2.0)
    assert sight.height_m == pytest.approx(height_m / math.cos(math.radians(pitch)), rel=0.12)


def test_no_runway_where_the_reckoning_puts_none():
    img = draw(0.0, 90.0, 1700.0, -12.0, 0.0, 0.0)
    assert see_runway(window(img), 0.0, 30.0, WIDTH_M) is None  # 30° right: grass only


@pytest.mark.parametrize("name", sorted(json.loads((FIXTURES / "truth.json").read_text())))
def test_the_offset_on_real_flightgear_frames_is_within_four_metres(name):
    truth = json.loads((FIXTURES / "truth.json").read_text())[name]
    along, right = truth["along_m"], truth["right_m"]
    # where the pilot looks: 600 m ahead or the threshold, whichever is further
    ahead = max(0.0, along + 600.0) - along
    bearing = math.degrees(math.atan2(-right, ahead)) - (truth["heading_true_deg"] - 54.8)
    img = np.asarray(Image.open(FIXTURES / name).convert("RGB"))
    sight = see_runway(img, truth["bank_deg"], bearing, WIDTH_M)
    assert sight is not None
    assert sight.right_m == pytest.approx(right, abs=4.0)
    # the height the edges imply, against the eye's (about 1.5 m over the c172p's reference,
    # the field at 16 ft in FlightGear's scenery): within the pilot's 35% check
    height_m = (truth["alt_msl_ft"] - 16.0) * 0.3048 + 1.5
    assert sight.height_m == pytest.approx(height_m, rel=0.35)
