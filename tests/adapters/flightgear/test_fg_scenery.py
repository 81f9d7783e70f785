"""Runway 04R at PHJR as FlightGear's scenery draws it, against the task's geometry (apt.dat's,
the verifier's): read from the real `.btg.gz` Debian ships (`tests/fixtures/flightgear_scenery`)."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from simbridge import HarnessError
from simbridge._task import load_task
from simbridge.adapters.flightgear._scenery import centreline_left_m, read_btg
from simbridge.verifiers.landing import RunwayFrame

BTG = Path(__file__).parents[2] / "fixtures" / "flightgear_scenery" / "PHJR.btg.gz"


@pytest.fixture(scope="module")
def drawn_04r() -> tuple[np.ndarray, np.ndarray]:
    """(metres along, metres left) of the drawn runway's vertices in the verifier's frame of 04R."""
    task = load_task("T03@PHJR")
    runway = next(r for r in task.geometry.runways if r.id == "04R")
    frame = RunwayFrame(runway, task.verifier.params["pavement_before_threshold_m"])
    lat, lon = read_btg(BTG).surface("pa_")
    along, left = frame.xy(lat, lon)
    near = np.abs(left) < 45.0  # 04R-22L, not the runways and taxiways beside it
    return along[near], left[near]


def test_the_drawn_runway_is_as_wide_as_apt_dats_and_parallel_to_it_0_9_m_right(drawn_04r):
    along, left = drawn_04r
    bins = np.arange(0.0, 2401.0, 100.0)
    centre = centreline_left_m(along, left, bins)
    # the two bins where taxiways join the runway are left out; the rest are the runway alone
    runway_only = np.abs(centre + 0.93) < 0.2
    assert runway_only.sum() >= len(centre) - 2
    assert centre[runway_only] == pytest.approx(-0.93, abs=0.06)  # right of the verifier's line
    first = (along >= 0.0) & (along < 100.0)
    assert left[first].max() - left[first].min() == pytest.approx(61.1, abs=0.1)  # apt.dat: 60.96


def test_the_drawn_pavement_starts_11_m_before_the_displaced_threshold_not_110(drawn_04r):
    along, _ = drawn_04r
    assert along.min() == pytest.approx(-11.3, abs=0.2)
    assert along.max() == pytest.approx(2484.0, abs=1.0)  # 22L's end: apt.dat's 7,996 ft on


def test_a_file_that_is_not_a_simgear_object_is_refused_by_name(tmp_path):
    bad = tmp_path / "x.btg.gz"
    bad.write_bytes(gzip.compress(b"not a btg at all"))
    with pytest.raises(HarnessError, match="x.btg.gz: not a SimGear binary object"):
        read_btg(bad)
    cut = tmp_path / "cut.btg.gz"
    cut.write_bytes(gzip.compress(gzip.decompress(BTG.read_bytes())[:4000]))
    with pytest.raises(HarnessError, match="cut.btg.gz: truncated"):
        read_btg(cut)
