"""Fixtures for the embedded simulator's tests: a private Xvfb display, headless SDL."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from private_xvfb import private_xvfb


@pytest.fixture(scope="module")
def xvfb() -> Iterator[str]:
    """A private Xvfb display (1280x800x24) for this module; killed at teardown."""
    yield from private_xvfb(first=140)


@pytest.fixture(autouse=True)
def _headless_sdl(monkeypatch):
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    monkeypatch.setenv("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    if "DISPLAY" not in os.environ:
        monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
