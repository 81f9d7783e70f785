"""The T08@PHJR reference pilot's readers (`_setup_dialogs`: the orange PUI fields, the Time
Settings clock labels, the fields' digits) on real crops of FlightGear's dialogs
(`tests/fixtures/flightgear_t08/`), and what it takes from the instruction, without launching
FlightGear. The whole pilot flies in the FlightGear benchmark (`benchmarks/reference_pilots.py`).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from simbridge._task import load_task
from simbridge.adapters.flightgear.pilots._setup_dialogs import Box, DialogPilot, orange_boxes, told

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "flightgear_t08"


def _rgb(name: str) -> np.ndarray:
    return np.asarray(Image.open(FIXTURES / name).convert("RGB"))


class _Still(DialogPilot):
    """The pilot's readers on one still image (no port)."""

    def __init__(self, rgb: np.ndarray) -> None:
        super().__init__(port=None)  # type: ignore[arg-type]
        self.rgb = rgb

    def screen(self) -> tuple[np.ndarray, np.ndarray]:
        return self.rgb, self.rgb.astype(float).mean(axis=2)


def test_the_fields_of_each_dialog_are_found_whole():
    # text cuts a field's orange rows: each field is still one box, 29 px tall
    time_fields = orange_boxes(_rgb("time_settings@415,205.png"))
    assert [(b.x0, b.x1) for b in time_fields] == [(6, 90), (99, 208), (237, 321)]  # year, month, day
    assert {b.y1 - b.y0 + 1 for b in time_fields} == {30}
    failures = orange_boxes(_rgb("system_failures@325,195.png"))
    assert len(failures) == 12  # 7 systems, 3 MCBF, 2 engines
    assert failures[0] == Box(140, 94, 224, 123)  # Vacuum System's MTBF, the one the pilot types into
    weather = orange_boxes(_rgb("weather_manual_input@400,40.png"))
    assert [(b.x1 - b.x0, b.y1 - b.y0) for b in weather] == [(279, 29), (435, 69)]  # combo, METAR


def test_the_clock_labels_and_field_digits_are_read():
    still = _Still(_rgb("time_settings@415,205.png"))
    year, _month, day = orange_boxes(still.rgb)
    assert still.clock(year) == (22 * 3600 + 27 * 60 + 33, 12 * 3600 + 27 * 60 + 33)  # UTC, local
    assert (still.field_digits(year), still.field_digits(day)) == ("2026", "04")
    failures = _Still(_rgb("system_failures@325,195.png"))
    fields = orange_boxes(failures.rgb)
    assert failures.field_digits(fields[0]) == "360000"
    assert {failures.field_digits(f) for f in fields[1:]} == {"0"}


def test_the_setup_comes_from_the_instruction():
    s = told(load_task("T08@PHJR").drawn(7).instruction_for("flightgear"))
    assert s.airport == "PHJR" and s.local == dt.datetime(2026, 12, 21, 16, 30) and s.utc_offset_h == -10
    assert s.utc == dt.datetime(2026, 12, 22, 2, 30)  # the dialog's date fields are UTC: the next day
    assert s.metar == "PHJR 220230Z 27015KT 5SM BKN015 22/16 Q1015"
    assert s.mtbf_s == 360_000
    with pytest.raises(ValueError, match="the wind"):
        told("move the aircraft to PHJR, set the date to 2026-12-21 at 16:30 (UTC−10)")
