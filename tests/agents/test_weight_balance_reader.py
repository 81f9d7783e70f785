"""The T15 reference pilot's reading of FlightGear's Fuel and Payload dialog, on a screenshot of
the real dialog (FlightGear 2020.3, c172p at PHJR, default loading: pilot 180 lb, 25 % fuel)."""

from pathlib import Path

import numpy as np
from PIL import Image

from simbridge._task import load_task
from simbridge.agents._reference import make_pilot
from simbridge.adapters.flightgear.pilots._weight_balance import (
    PayloadPilot,
    WeightBalancePilot,
    find_sliders,
    inside_envelope,
    read_number,
    task_figures,
)

DIALOG = Path(__file__).parent / "data" / "fg_payload_dialog.png"


class _Shot:
    def __init__(self, rgb: np.ndarray) -> None:
        self.rgb = rgb

    def to_array(self) -> np.ndarray:
        return self.rgb[..., ::-1].copy()  # BGR, as Screenshot.to_array gives it


class _StillPort:
    """A port that only shows one picture (reading needs nothing else)."""

    def __init__(self, rgb: np.ndarray) -> None:
        self.rgb = rgb

    def screenshot(self, *a, **kw):
        return _Shot(self.rgb)


def _dialog() -> np.ndarray:
    return np.asarray(Image.open(DIALOG).convert("RGB"))


def test_sliders_found_in_two_columns():
    sliders = find_sliders(_dialog())
    assert len(sliders) == 9  # 4 fuel tanks (2 of them integral, empty) and 5 payload stations
    xs = sorted({s.x0 for s in sliders})
    assert len(xs) == 2 and all(s.x1 - s.x0 == 84 for s in sliders)


def test_values_and_totals_read_off_the_dialog():
    rgb = _dialog()
    pilot = PayloadPilot(_StillPort(rgb))
    sliders = find_sliders(rgb)
    fuel = sorted((s for s in sliders if s.x0 < 300), key=lambda s: s.y)
    payload = sorted((s for s in sliders if s.x0 >= 300), key=lambda s: s.y)
    assert [pilot.value(s) for s in payload] == [180.0, 0.0, 0.0, 0.0, 0.0]
    assert [pilot.value(s) for s in fuel] == [32.3, 32.3, 0.0, 0.0]
    assert pilot.read_totals(fuel, payload) == (1712.0, 39.07)


def test_a_box_without_digits_reads_none():
    lum = _dialog().astype(float).mean(axis=2)
    assert read_number(lum, 5, 5, 60, 20) is None  # the title bar corner: no number


def test_figures_from_the_instruction_and_the_envelope():
    task = load_task("T15")
    assert task_figures(task.instruction) == (180.0, 160.0, 2450.0)
    assert inside_envelope(45.3, 2380) and inside_envelope(39.1, 1712)
    assert not inside_envelope(48.0, 2000)  # aft of 47.2 in
    assert not inside_envelope(36.0, 2400)  # forward of the sloped limit (39.5 in at 2,400 lb)
    assert isinstance(make_pilot("T15", "flightgear"), WeightBalancePilot)
