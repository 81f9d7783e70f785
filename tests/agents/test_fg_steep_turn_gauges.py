"""The T09 FlightGear pilot's six-pack readers on real screenshots (tests/fixtures/flightgear_t09):
airspeed needle, altimeter needle, attitude-indicator sky, heading card, each against the
simulator's own values recorded with the screenshot."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from simbridge.adapters.flightgear.pilots import _gauges as G

FIX = Path(__file__).parents[1] / "fixtures" / "flightgear_t09"
TRUTH = json.loads((FIX / "truth.json").read_text())
ORIGIN = (G.REGION[0], G.REGION[1])


def _img(name: str) -> np.ndarray:
    img = cv2.imread(str(FIX / f"{name}.png"))
    assert img is not None, name
    return img


@pytest.mark.parametrize("name", sorted(TRUTH))
def test_airspeed_reads_within_a_knot_and_a_half(name):
    assert G.ias_kt(_img(name), ORIGIN) == pytest.approx(TRUTH[name]["ias_kt"], abs=1.5)


@pytest.mark.parametrize(("a", "b"), [("climb_bank12", "bank24"), ("bank24", "bank31")])
def test_altimeter_needle_follows_the_altitude_change(a, b):
    step = G.angle_step_deg(G.needle_deg(_img(a), "alt", ORIGIN), G.needle_deg(_img(b), "alt", ORIGIN))
    assert step * 1000.0 / 360.0 == pytest.approx(TRUTH[b]["alt_msl_ft"] - TRUTH[a]["alt_msl_ft"], abs=15.0)


@pytest.mark.parametrize("name", ["level", "climb_bank12", "bank31"])
def test_attitude_indicator_bank_within_four_degrees_when_steady(name):
    # (bank24 is mid-roll: the indicator lags the aircraft there, which the pilot corrects by turn rate)
    att = G.attitude(_img(name), ORIGIN)
    assert att is not None
    assert att[0] == pytest.approx(TRUTH[name]["bank_deg"], abs=4.0)


def test_sky_share_grows_with_the_pitch():
    shares = {n: G.attitude(_img(n), ORIGIN)[1] for n in TRUTH}  # type: ignore[index]
    by_pitch = sorted(TRUTH, key=lambda n: TRUTH[n]["pitch_deg"])
    assert [shares[n] for n in by_pitch] == sorted(shares.values())


@pytest.mark.parametrize(("a", "b"), [("level", "climb_bank12"), ("climb_bank12", "bank24")])
def test_heading_card_turn_is_minus_the_heading_change(a, b):
    turned = G.card_turn_deg(G.dg_ring(_img(a), ORIGIN), G.dg_ring(_img(b), ORIGIN))
    assert -turned == pytest.approx(TRUTH[b]["heading_mag_deg"] - TRUTH[a]["heading_mag_deg"], abs=2.0)


def test_no_sky_is_no_reading():
    assert G.attitude(np.zeros((210, 300, 3), np.uint8), ORIGIN) is None


@pytest.mark.parametrize("expect_deg", [0.0, 8.0, 20.0])
def test_the_turn_rate_window_keeps_the_right_match(expect_deg):
    """The pilot narrows the search to what the turn rate predicts (a slow frame must not match a
    tick a few degrees off); any prediction within the window finds the same turn."""
    a, b = "level", "climb_bank12"
    before, after = G.dg_ring(_img(a), ORIGIN), G.dg_ring(_img(b), ORIGIN)
    change = TRUTH[b]["heading_mag_deg"] - TRUTH[a]["heading_mag_deg"]
    assert -G.card_turn_deg(before, after, expect_deg=expect_deg) == pytest.approx(change, abs=2.0)


def test_a_prediction_far_off_cannot_find_the_turn():
    before, after = G.dg_ring(_img("level"), ORIGIN), G.dg_ring(_img("climb_bank12"), ORIGIN)
    assert abs(G.card_turn_deg(before, after, expect_deg=-40.0) + 40.0) <= 20.0


def test_the_heading_change_is_the_last_card_reading_less_the_first():
    """`Gauges` reads the card absolutely each frame (modulo 90°) and sums the steps, the quarter
    of each from the turn rate: over the four screenshots (74° of left turn; the last step, 47°
    in 6.8 s, is more than a quarter's half, so the rate over the gap picks its quarter) the
    change it keeps is the simulator's within 1°."""
    from simbridge.adapters.flightgear.pilots._steep_turn import Gauges

    g = Gauges()
    names = sorted(TRUTH, key=lambda n: TRUTH[n]["t_s"])
    for n in names:
        assert g.read(TRUTH[n]["t_s"], _img(n)) is not None
    want = TRUTH[names[-1]]["heading_mag_deg"] - TRUTH[names[0]]["heading_mag_deg"]
    assert g.turned_deg == pytest.approx(want, abs=1.0)
