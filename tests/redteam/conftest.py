"""Fixtures for the red-team suite: a private Xvfb per module (each module shares one simulator
launch between all its attempts; FlightGear's start costs 30-60 s)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from private_xvfb import private_xvfb


@pytest.fixture(scope="module")
def xvfb_display() -> Iterator[str]:
    """A private Xvfb display (1280x800x24) for this module; killed at teardown."""
    yield from private_xvfb(first=420)
