"""Fixtures for the FlightGear integration tests: a private Xvfb and one shared FlightGear.

One FlightGear launch serves every integration test of a module (CI has 2 cores and 90
minutes in total). Everything started here is killed at teardown.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

FGFS = os.environ.get("SIMBRIDGE_FGFS", "/usr/games/fgfs")


def have_flightgear() -> bool:
    return Path(FGFS).exists() and shutil.which("Xvfb") is not None and not os.environ.get("SIMBRIDGE_SKIP_FLIGHTGEAR")


def _free_display() -> int:
    for n in range(90, 400):
        if not Path(f"/tmp/.X11-unix/X{n}").exists() and not Path(f"/tmp/.X{n}-lock").exists():
            return n
    raise RuntimeError("no free X display number")


class Xvfb:
    def __init__(self, size: str = "1280x800x24") -> None:
        self.number = _free_display()
        self.display = f":{self.number}"
        self.proc = subprocess.Popen(
            ["Xvfb", self.display, "-screen", "0", size, "-nolisten", "tcp"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 15
        while not Path(f"/tmp/.X11-unix/X{self.number}").exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"Xvfb {self.display} did not start")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()


class Collector:
    """Polls a SimSession on a thread and keeps every sample (tests cut bundles from it)."""

    def __init__(self, session) -> None:
        self.session = session
        self.samples: list = []
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            got = self.session.poll()
            if got:
                with self._lock:
                    self.samples.extend(got)
            self._stop.wait(0.02)

    def upto(self, t_end: float | None = None) -> list:
        with self._lock:
            return [s for s in self.samples if t_end is None or s.t_sim <= t_end]

    def wait_sim(self, t_sim: float, timeout_s: float = 240.0) -> float:
        """Until the collected stream reaches simulator time t_sim (polling, never a fixed sleep)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            got = self.upto()
            if got and got[-1].t_sim >= t_sim:
                return got[-1].t_sim
            time.sleep(0.2)
        raise AssertionError(f"simulator time did not reach {t_sim:g} s in {timeout_s:g} s wall")

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)


@pytest.fixture(scope="module")
def xvfb():
    if not have_flightgear():
        pytest.skip("FlightGear (/usr/games/fgfs) or Xvfb not installed")
    x = Xvfb()
    yield x
    x.stop()
