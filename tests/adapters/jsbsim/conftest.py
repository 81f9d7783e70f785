"""Fixtures for the embedded simulator's tests: a private Xvfb display, headless SDL."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest


def _free_display() -> int:
    for n in range(140, 400):
        if not Path(f"/tmp/.X11-unix/X{n}").exists() and not Path(f"/tmp/.X{n}-lock").exists():
            return n
    raise RuntimeError("no free X display number")


@pytest.fixture(scope="module")
def xvfb():
    """A private Xvfb display (1280x800x24) for this module; killed at teardown."""
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed")
    for _ in range(5):
        n = _free_display()
        proc = subprocess.Popen(
            ["Xvfb", f":{n}", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and proc.poll() is None:
            if Path(f"/tmp/.X11-unix/X{n}").exists():
                break
            time.sleep(0.05)
        if proc.poll() is None:
            break
    else:
        pytest.skip("Xvfb did not start")
    try:
        yield f":{n}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(autouse=True)
def _headless_sdl(monkeypatch):
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    monkeypatch.setenv("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    if "DISPLAY" not in os.environ:
        monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
