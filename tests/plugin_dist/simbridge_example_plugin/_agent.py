"""The agent `example` and the reference pilot of climb_demo: both fly by the screen alone.

Each step reads the altitude bar (white pixels in x 0-99, 2 px per foot) and the throttle bar
(green, 80 px per notch) from a screenshot of the screen's left edge, and presses Up or Down
toward the notch that makes the climb rate proportional to what is left to climb. Once the
altitude has stayed within the band long enough, it says `done`.

    --agent example        climb to the altitude the instruction names
    --agent example:130    climb to 130 ft instead
    --agent reference      climb_demo's pilot (`ClimbPilot`), registered as pilot climb_demo/example
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from simbridge.agents import Agent, AgentResult
from simbridge.sim import SimbridgeError

if TYPE_CHECKING:
    from simbridge.agent import AgentPortClient
    from simbridge import TaskSpec

PX_PER_FT = 2.0
PX_PER_NOTCH = 80
#: ft/s of climb per notch above 5 (the simulator's steady state)
FPS_PER_NOTCH = 5.0


def read_instruments(port: "AgentPortClient") -> tuple[float, int]:
    """(altitude ft, throttle notch) read off the screen's left edge."""
    shot = port.screenshot(format="png", region=[0, 0, 200, 800])
    img = shot.to_array()  # BGR
    alt_col, thr_col = img[:, 50], img[:, 150]
    white = np.all(alt_col > 200, axis=1)
    green = (thr_col[:, 1] > 200) & (thr_col[:, 0] < 80) & (thr_col[:, 2] < 80)
    return float(white.sum()) / (PX_PER_FT * shot.scale), int(round(green.sum() / (PX_PER_NOTCH * shot.scale)))


def target_from(task: "TaskSpec") -> float:
    """The altitude the instruction names ("... to 100 ft ...")."""
    m = re.search(r"(\d+(?:\.\d+)?)\s*ft", task.instruction)
    if m is None:
        raise ValueError("the instruction names no altitude in ft")
    return float(m.group(1))


class ClimbAgent(Agent):
    """Climbs to `target_ft` (None: the instruction's) and says done once it has held it within
    `band_ft` for `hold_s` (simulator seconds, as `port.elapsed()` counts them)."""

    name = "example"

    def __init__(self, target_ft: float | None = None, band_ft: float = 5.0, hold_s: float = 3.0) -> None:
        self.target_ft = target_ft
        self.band_ft = band_ft
        self.hold_s = hold_s

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        target = self.target_ft if self.target_ft is not None else target_from(task)
        held_since: float | None = None
        while True:
            alt, notch = read_instruments(port)
            want = 5 + int(np.clip(round(0.8 * (target - alt) / FPS_PER_NOTCH), -5, 5))
            if want != notch:
                port.key("Up" if want > notch else "Down", repeat=abs(want - notch))
            now = port.elapsed()
            if abs(alt - target) <= self.band_ft:
                held_since = now if held_since is None else held_since
                if now - held_since >= self.hold_s:
                    port.done(f"{self.name}: holding {alt:.0f} ft for {now - held_since:.1f} s")
                    return "done"
            else:
                held_since = None
            port.wait(0.05)


class ClimbPilot(ClimbAgent):
    """climb_demo's reference pilot: the instruction's altitude, a tighter band."""

    name = "example-pilot"

    def __init__(self) -> None:
        super().__init__(band_ft=3.0)


def make_agent(arg: str, task_id: str) -> Agent:
    """`--agent example[:FEET]`."""
    try:
        target = float(arg) if arg else None
    except ValueError:
        raise SimbridgeError(f"--agent example:FEET takes a number of feet, not {arg!r}") from None
    return ClimbAgent(target)
