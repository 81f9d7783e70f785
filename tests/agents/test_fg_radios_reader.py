"""The FlightGear T16 pilot's readers on real screenshots of the c172p panel: the KX 165's
frequencies, the squawk, mode and altimeter tooltips, and the instruction it parses."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from simbridge._task import load_task
from simbridge.agents._reference import make_pilot
from simbridge.adapters.flightgear.pilots._kx165 import read_all
from simbridge.adapters.flightgear.pilots._radios import FlightGearRadiosPilot, mode_of
from simbridge.adapters.kit.told import radio_targets as parse_instruction
from simbridge.adapters.flightgear.pilots._tooltip import find_box, read_value
from simbridge.adapters.jsbsim.pilots._radios import RadiosPilot

FIX = Path(__file__).parent.parent / "fixtures" / "flightgear_t16"


def screen(name: str) -> np.ndarray:
    """The crop pasted back where it was on the 1280x800 screen (black elsewhere)."""
    [path] = FIX.glob(f"{name}@*.png")
    x, y = map(int, re.search(r"@(\d+),(\d+)", path.name).groups())  # type: ignore[union-attr]
    crop = np.asarray(Image.open(path).convert("RGB"))
    rgb = np.zeros((800, 1280, 3), np.uint8)
    h, w = min(crop.shape[0], 800 - y), min(crop.shape[1], 1280 - x)  # crops may overhang the edge
    rgb[y : y + h, x : x + w] = crop[:h, :w]
    return rgb


@pytest.mark.parametrize(
    "name, want",
    [
        ("radios_start", {"com": 118.3, "com_stby": 119.3, "nav": 112.0, "nav_stby": 108.5}),
        ("radios_122", {"com": 122.215, "com_stby": 122.215, "nav": 122.22, "nav_stby": 122.22}),
        ("radios_199", {"com": 136.99, "com_stby": 136.99, "nav": 199.99, "nav_stby": 199.99}),
    ],
)
def test_kx165_display_reads_as_shown(name, want):
    assert read_all(screen(name)) == want


def test_dark_display_reads_nothing():
    assert set(read_all(np.zeros((800, 1280, 3), np.uint8)).values()) == {None}


def test_tooltips_read_their_values():
    assert read_value(screen("squawk_4567"), 1011, 712) == "4567"
    assert read_value(screen("baro_2989"), 700, 477) == "29.89"
    assert mode_of(screen("mode_alt"), 934, 712) == "ALT"
    assert mode_of(screen("mode_on"), 934, 712) == "ON"


def test_no_tooltip_is_none_not_a_guess():
    rgb = screen("radios_start")
    assert find_box(rgb, 1011, 712) is None and read_value(rgb, 1011, 712) is None
    assert mode_of(screen("squawk_4567"), 934, 712) is None  # a squawk tooltip is no mode


def test_instruction_targets_and_registration():
    t = parse_instruction(load_task("T16@PHJR").instruction_for("flightgear"))
    assert (t.com_mhz, t.com_stby_mhz, t.nav_mhz, t.squawk, t.mode, t.baro_inhg) == (
        123.8,
        132.6,
        114.8,
        "4521",
        "ALT",
        29.92,
    )
    assert isinstance(make_pilot("T16@PHJR", "flightgear"), FlightGearRadiosPilot)
    assert isinstance(make_pilot("T16@PHJR", "jsbsim"), RadiosPilot)
    with pytest.raises(ValueError, match="transponder"):
        parse_instruction("Set COM1 active to 123.800, standby to 132.600, NAV1 to 114.800.")
