"""The T09 FlightGear pilot's heading count over a whole circle: the heading card of a real
screenshot (tests/fixtures/flightgear_t09/level.png) turned in small steps under the fixed
lubber line and bezel, about the card's own centre. Matched frame by frame, each small step read a
little short and the shortfall summed to several degrees a circle; read against the card's
reference crop each frame, the count is the last reading less the first and stays within 2°."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from simbridge.adapters.flightgear.pilots import _gauges as G
from simbridge.adapters.flightgear.pilots._steep_turn import Gauges

FIX = Path(__file__).parents[1] / "fixtures" / "flightgear_t09"
CARD_R_PX = 37.0  # the card's outer edge: what lies inside it turns, the bezel outside does not


def _turned_card(region: np.ndarray, card_deg: float) -> np.ndarray:
    """The six-pack region with the heading card turned `card_deg` clockwise about its centre."""
    cx, cy = G.DG_CARD_CENTRE[0] - G.REGION[0], G.DG_CARD_CENTRE[1] - G.REGION[1]
    m = cv2.getRotationMatrix2D((float(cx), float(cy)), -card_deg, 1.0)
    turned = cv2.warpAffine(region, m, (region.shape[1], region.shape[0]), flags=cv2.INTER_LINEAR)
    yy, xx = np.mgrid[: region.shape[0], : region.shape[1]]
    card = (xx - cx) ** 2 + (yy - cy) ** 2 <= CARD_R_PX**2
    out = region.copy()
    out[card] = turned[card]
    return out


@pytest.mark.parametrize("step_deg", [2.0, 3.5])
def test_a_left_circle_in_small_steps_counts_360_within_two_degrees(step_deg):
    region = cv2.imread(str(FIX / "level.png"))
    assert region is not None
    g = Gauges()
    n = int(round(360.0 / step_deg))
    for i in range(n + 1):
        # a left turn turns the card clockwise; 0.25 s a frame
        assert g.read(i * 0.25, _turned_card(region, i * step_deg)) is not None
    assert -g.turned_deg == pytest.approx(n * step_deg, abs=2.0)
