"""A private Xvfb display for a test module: one mechanism for the fixtures that need a bare
display of their own (the JSBSim cockpit's tests, the red-team suite)."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest


def _free_display(first: int) -> int:
    for n in range(first, first + 400):
        if not Path(f"/tmp/.X11-unix/X{n}").exists() and not Path(f"/tmp/.X{n}-lock").exists():
            return n
    raise RuntimeError("no free X display number")


def private_xvfb(first: int = 140) -> Iterator[str]:
    """Start Xvfb (1280x800x24) on a free display number from `first` up, yield ':N', kill it
    afterwards. A number taken by another run (a parallel test worker) between the check and
    the start makes this Xvfb exit: the next number is tried."""
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed")
    for _ in range(8):
        n = _free_display(first)
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
