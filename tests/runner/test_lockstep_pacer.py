"""LockstepPacer: a simulator that can step exactly is stepped; one that cannot is resumed,
watched and paused again."""

from __future__ import annotations

import threading
import time

from simbridge._agent_port._port import LockstepPacer


class _World:
    """A simulator clock in 50 ms steps that runs while resumed (a thread), or steps on request."""

    def __init__(self, exact: bool) -> None:
        self.t, self.exact, self.running = 0.0, exact, False
        self.pauses: list[bool] = []
        self.advanced: list[float] = []
        self._stop = threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while not self._stop.is_set():
            if self.running:
                self.t = round(self.t + 0.05, 6)
            time.sleep(0.005)

    def set_paused(self, paused: bool) -> None:
        self.pauses.append(paused)
        self.running = not paused

    def advance(self, seconds: float) -> float | None:
        if not self.exact:
            return None
        self.advanced.append(seconds)
        self.t = round(self.t + 0.05 * max(1, round(seconds / 0.05)), 6)
        return self.t

    def close(self) -> None:
        self._stop.set()


def test_an_exact_simulator_is_stepped_and_never_resumed():
    w = _World(exact=True)
    try:
        p = LockstepPacer(w.set_paused, lambda: w.t, slice_s=0.05, advance=w.advance)
        p.hold(0.05)
        p.after_input()
        p.hold(0.5)
        assert w.t == 0.6 and w.advanced == [0.05, 0.05, 0.5] and w.pauses == []
    finally:
        w.close()


def test_a_simulator_that_cannot_step_is_resumed_until_the_clock_passes_then_paused():
    w = _World(exact=False)
    try:
        p = LockstepPacer(w.set_paused, lambda: w.t, slice_s=0.1, advance=w.advance)
        p.hold(0.3)
        assert w.pauses == [False, True] and w.t >= 0.3
    finally:
        w.close()
