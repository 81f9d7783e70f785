"""T01: cold-and-dark engine start by panel clicks, following the checklist order: fuel BOTH,
mixture rich, master and beacon on, prime, crank on START until the tachometer shows the
engine running, avionics on, then throttle to 1,000 rpm watching the tachometer's needle."""

from __future__ import annotations

from typing import TYPE_CHECKING

from simbridge.adapters.jsbsim.pilots._layout import L
from simbridge.agents import Agent, AgentResult
from simbridge.adapters.jsbsim.pilots._cockpit import Cockpit
from simbridge.adapters.jsbsim.pilots._instruments import lit

if TYPE_CHECKING:
    from simbridge.agent import AgentPortClient
    from simbridge import TaskSpec

RPM_TARGET, RPM_BAND = 1000.0, 50.0
RUNNING_RPM = 500.0
START_THROTTLE = 0.12
PRIMER_STROKES = 3


class EngineStartPilot(Agent):
    name = "reference"

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        cp = Cockpit(port)
        cp.look()
        if not lit(cp.frame, "fuel:BOTH"):
            cp.click("fuel:BOTH")
        cp.set_slider("mixture", 1.0)
        cp.look_until(lambda r: r.mix is not None and r.mix >= 95 and lit(cp.frame, "fuel:BOTH"), 2.0, 0.05)
        for sw in ("master_bat", "master_alt", "beacon"):
            self._switch(cp, sw, True)
        for _ in range(PRIMER_STROKES):
            cp.click("primer")
            port.wait(0.3)
        cp.set_slider("throttle", START_THROTTLE)
        running = False
        for attempt in range(3):
            running = self._crank(cp)
            if running:
                break
            port.wait(2.0)
        if not running:
            port.give_up("the engine did not start")
            return "give_up"
        self._switch(cp, "avionics", True)
        if not self._set_rpm(cp, deadline_s):
            port.give_up(f"could not settle at {RPM_TARGET:.0f} rpm")
            return "give_up"
        for sw in ("master_bat", "beacon", "avionics"):  # read the panel back; fix what differs
            self._switch(cp, sw, True)
        cp.look()
        ok = all(
            lit(cp.frame, h)
            for h in ("fuel:BOTH", "mags:BOTH", "switch:master_bat", "switch:beacon", "switch:avionics")
        )
        port.done("engine running at 1,000 rpm, switches per checklist") if ok else port.give_up("switch check failed")
        return "done" if ok else "give_up"

    def _switch(self, cp: Cockpit, name: str, on: bool) -> None:
        """Toggle until the rocker shows `on`, waiting after each click for the redrawn panel
        (a decision on a frame drawn before the click would toggle it back)."""
        for _ in range(3):
            cp.look()
            if lit(cp.frame, f"switch:{name}") == on:
                return
            cp.click(f"switch:{name}")
            cp.look_until(lambda r: lit(cp.frame, f"switch:{name}") == on, 1.0, 0.05)

    def _crank(self, cp: Cockpit) -> bool:
        """Hold the key at START until the tachometer shows the engine running (10 s at most)."""
        x, y, w, h = L.HOTSPOTS["mags:START"]
        cp.port.mouse_down("left", x + w // 2, y + h // 2)
        try:
            r = cp.look_until(lambda r: r.rpm is not None and r.rpm > RUNNING_RPM, 10.0, 0.1)
        finally:
            cp.port.mouse_up("left", x + w // 2, y + h // 2)
        cp.port.wait(2.0)
        r = cp.look()
        return r is not None and r.rpm is not None and r.rpm > RUNNING_RPM

    def _set_rpm(self, cp: Cockpit, deadline_s: float) -> bool:
        """Nudge the throttle (PageUp/PageDown, 1 % a tap) until the rpm stays in the band for 8 s."""
        in_band_since = None
        while cp.port.elapsed() < deadline_s - 5:
            r = cp.look()
            t = cp.port.elapsed()
            if r.rpm is None:
                cp.port.wait(0.5)
                continue
            err = r.rpm - RPM_TARGET
            if abs(err) <= RPM_BAND:
                in_band_since = t if in_band_since is None else in_band_since
                if t - in_band_since >= 8.0:
                    return True
                cp.port.wait(0.5)
                continue
            in_band_since = None
            taps = max(1, min(5, int(abs(err) / 100)))
            cp.port.key("Next" if err > 0 else "Prior", repeat=taps)
            cp.port.wait(1.5)
        return False
