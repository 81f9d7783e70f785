"""The pilot's hands and eyes on the agent port: screenshots decoded and read, panel clicks by
hotspot name, the mouse yoke. Everything goes through the port (pixels out, input in)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

from simbridge.adapters.jsbsim.pilots._layout import L
from simbridge.adapters.jsbsim.pilots._instruments import Readout, read_instruments

if TYPE_CHECKING:
    from simbridge.agent import AgentPortClient


class Cockpit:
    """One episode's view and controls. Keeps screenshot latency statistics (wall seconds from
    the screenshot request to a decoded reading) so a run can report its loop rate."""

    def __init__(self, port: "AgentPortClient", failed: frozenset[str] = frozenset()) -> None:
        self.port = port
        #: instruments the pilot does not trust (partial panel: `_instruments.VACUUM`)
        self.failed = failed
        self.img: np.ndarray | None = None
        self.latencies: list[float] = []
        self.yoke_on = False
        self._yoke_xy: tuple[int, int] | None = None

    # ---------------------------------------------------------------- eyes
    @property
    def frame(self) -> np.ndarray:
        """The last screenshot `look()` took; readers need pixels, so asking before any is an error."""
        if self.img is None:
            raise RuntimeError("no screenshot yet: call Cockpit.look() first")
        return self.img

    def look(self) -> Readout:
        """Take a screenshot (PNG: lossless, the needles' pure white stays pure) and read the
        instruments from it (`read_instruments`)."""
        w0 = time.monotonic()
        self.img = self.port.screenshot("png").to_array()
        r = read_instruments(self.img, self.failed)
        self.latencies.append(time.monotonic() - w0)
        return r

    def look_until(self, pred, timeout_s: float, poll_s: float = 0.2) -> Readout | None:
        """Poll the screen until `pred(readout)` holds (task time `timeout_s` at most)."""
        t_end = self.port.elapsed() + timeout_s
        while True:
            r = self.look()
            if pred(r):
                return r
            if self.port.elapsed() >= t_end:
                return None
            self.port.wait(poll_s)

    # ---------------------------------------------------------------- hands
    def click(self, hotspot: str, *, upper: bool | None = None) -> None:
        """Left click on a hotspot's centre (or its upper/lower half, for split buttons)."""
        x, y, w, h = L.HOTSPOTS[hotspot]
        cy = y + h // 2 if upper is None else (y + h // 4 if upper else y + 3 * h // 4)
        self.port.click(x + w // 2, cy)

    def set_slider(self, hotspot: str, value: float) -> None:
        """Click in a vertical slider's track at `value` (0 bottom .. 1 top)."""
        rect = L.HOTSPOTS[hotspot]
        x, y, w, h = rect
        self.port.click(x + w // 2, min(y + h - 1, max(y, L.slider_y(rect, value))))

    def yoke(self, on: bool) -> None:
        """Mouse-yoke mode on (the pointer centred first: neutral controls) or off (Tab)."""
        if on == self.yoke_on:
            return
        if on:
            self.port.mouse_move(*L.VIEW_CENTRE)
            self._yoke_xy = L.VIEW_CENTRE
        self.port.key("Tab")
        self.yoke_on = on

    def fly(self, aileron: float, pull: float) -> bool:
        """Mouse-yoke position: aileron -1..1 (+ = roll right), pull -1..1 (+ = nose up).
        Moves the pointer only when the pixel changes; True if it moved."""
        rx, ry = L.MOUSE_YOKE_RANGE_PX
        x = round(L.VIEW_CENTRE[0] + max(-1.0, min(1.0, aileron)) * rx)
        y = round(L.VIEW_CENTRE[1] + max(-1.0, min(1.0, pull)) * ry)
        if (x, y) == self._yoke_xy:
            return False
        self.port.mouse_move(x, y)
        self._yoke_xy = (x, y)
        return True

    def latency_ms(self) -> tuple[float, float]:
        """p50 and p95 of screenshot→reading latency so far, in milliseconds."""
        if not self.latencies:
            return 0.0, 0.0
        a = np.array(self.latencies) * 1000.0
        return float(np.percentile(a, 50)), float(np.percentile(a, 95))
