"""Fixtures for the red-team suite: a private Xvfb per module (each module shares one simulator
launch between all its attempts; FlightGear's start costs 30-60 s)."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest


def _free_display() -> int:
    for n in range(420, 700):
        if not Path(f"/tmp/.X11-unix/X{n}").exists() and not Path(f"/tmp/.X{n}-lock").exists():
            return n
    raise RuntimeError("no free X display number")


@pytest.fixture(scope="module")
def xvfb_display():
    """A private Xvfb display (1280x800x24) for this module; killed at teardown. A number taken
    by another run between the check and the start makes this Xvfb exit: the next is tried."""
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
        time.sleep(0.5)  # still up after its socket appeared: the display is ours
        if proc.poll() is None:
            break
    else:
        raise RuntimeError("Xvfb did not start on any free display number")
    try:
        yield f":{n}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
