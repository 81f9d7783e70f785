"""Fixtures for the FlightGear integration tests: a private Xvfb and one shared FlightGear
(the tests sample the session with `support.sampling.SessionSampler`).

One FlightGear launch serves every integration test of a module (CI has 2 cores and 90
minutes in total). Everything started here is killed at teardown.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from private_xvfb import private_xvfb

FGFS = os.environ.get("SIMBRIDGE_FGFS", "/usr/games/fgfs")


def have_flightgear() -> bool:
    return Path(FGFS).exists() and shutil.which("Xvfb") is not None and not os.environ.get("SIMBRIDGE_SKIP_FLIGHTGEAR")


@pytest.fixture(scope="module")
def xvfb() -> Iterator[SimpleNamespace]:
    """A private Xvfb display for the module (`.display`); killed at teardown."""
    if not have_flightgear():
        pytest.skip("FlightGear (/usr/games/fgfs) or Xvfb not installed")
    for display in private_xvfb(first=90):
        yield SimpleNamespace(display=display)
