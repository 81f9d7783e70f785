"""A FlightGear launch that cannot work is a HarnessError within a timeout, never a hang and
never an agent failure: a modal "Fatal exception" window (fgfs waits forever behind it) and an
airport without scenery (the aircraft floats on generated ocean, no solid ground)."""

from __future__ import annotations

import time

import pytest

from simbridge._errors import HarnessError
from simbridge.adapters.fgproto import GenericProtocol
from simbridge.adapters.flightgear import RAW_CHUNKS, FlightGearProcess, LaunchSpec

pytestmark = [pytest.mark.flightgear, pytest.mark.slow, pytest.mark.display]


def test_fatal_exception_window_is_detected(xvfb, tmp_path):
    bad = tmp_path / "broken.xml"
    bad.write_text("<PropertyList><sim>not closed</PropertyList>")
    spec = LaunchSpec(airport="PHJR", parking="Ramp_Central", extra_args=[f"--config={bad}"])
    fg = FlightGearProcess(spec, GenericProtocol(RAW_CHUNKS), workdir=tmp_path / "fg", display=xvfb.display)
    t0 = time.monotonic()
    with pytest.raises(HarnessError, match="modal error window|exited"):
        fg.start(timeout_s=240)
    assert time.monotonic() - t0 < 240
    assert not fg.alive()


def test_airport_without_scenery_is_a_harness_error(xvfb, tmp_path):
    spec = LaunchSpec(airport="KPAO", runway="31")
    fg = FlightGearProcess(spec, GenericProtocol(RAW_CHUNKS), workdir=tmp_path / "fg", display=xvfb.display)
    with pytest.raises(HarnessError, match="no solid ground"):
        fg.start(timeout_s=300, ground_timeout_s=20)
    assert not fg.alive()
