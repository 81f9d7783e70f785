"""T16: tune COM1, NAV1, the transponder and the altimeter by clicks, confirming each value by
reading the printed digits back from the screen."""

from __future__ import annotations

from typing import TYPE_CHECKING

from simbridge.agents import Agent, AgentResult
from simbridge.adapters.kit.told import radio_targets
from simbridge.adapters.jsbsim.pilots._cockpit import Cockpit
from simbridge.adapters.jsbsim.pilots._instruments import read_baro, read_frequency, read_squawk, xpdr_mode

if TYPE_CHECKING:
    from simbridge.agent import AgentPortClient
    from simbridge import TaskSpec

MAX_CLICKS = 80
#: the transponder's mode buttons, xpdr:mode0..4 (adapters/jsbsim/layout.py)
XPDR_MODES = ("OFF", "STBY", "ON", "ALT", "TST")


class RadiosPilot(Agent):
    name = "reference"

    def __init__(self) -> None:
        #: the settings, read from the instruction when the episode starts (`radio_targets`)
        self.com_active = self.com_stby = self.nav = self.baro = 0.0
        self.squawk, self.mode = "", 0
        #: the last screenshot was taken after the last click (by `_click_seen`): the next
        #: decision reads it instead of taking another (a screenshot costs ~0.6 s in a
        #: software-emulated VM guest)
        self._seen = False

    def _see(self, cp: Cockpit) -> None:
        if not self._seen:
            cp.look()
        self._seen = False

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        t = radio_targets(str(port.task().get("instruction") or task.instruction))
        self.com_active, self.com_stby, self.nav, self.baro = t.com_mhz, t.com_stby_mhz, t.nav_mhz, t.baro_inhg
        self.squawk, self.mode = t.squawk, XPDR_MODES.index(t.mode)
        cp = Cockpit(port)
        cp.look()
        if read_frequency(cp.frame, "com1:active") is None:  # displays dark: avionics off
            cp.click("switch:avionics")
            port.wait(0.5)
            cp.look()
        ok = False
        for _ in range(3):  # set everything, then read it all back; fix what does not read back
            if not self._active_ok(cp, "com1", self.com_active):
                self._tune(cp, "com1", self.com_active, 0.025) and self._swap(cp, "com1", self.com_active)
            if not self._active_ok(cp, "nav1", self.nav):
                self._tune(cp, "nav1", self.nav, 0.05) and self._swap(cp, "nav1", self.nav)
            self._tune(cp, "com1", self.com_stby, 0.025)
            self._squawk(cp)
            self._mode(cp)
            self._baro(cp)
            port.wait(1.5)  # let the recorder log the final state
            cp.look()
            ok = self._confirm(cp)
            if ok:
                break
        if ok:
            port.done("radios set and read back")
            return "done"
        port.give_up("a radio did not read back as set")
        return "give_up"

    def _click_seen(self, cp: Cockpit, hotspot: str, read, before, *, upper: bool | None = None) -> None:
        """Click, then wait until the screen shows a different value: the next decision must not
        be made on a frame drawn before the click took effect (that would click twice). The
        screenshot that showed it is the one the next decision reads."""
        cp.click(hotspot, upper=upper)
        t_end = cp.port.elapsed() + 1.0
        while cp.port.elapsed() < t_end:
            cp.look()
            if read(cp.img) != before:
                self._seen = True
                return
            cp.port.wait(0.03)

    def _tune(self, cp: Cockpit, radio: str, target: float, khz: float) -> bool:
        """Step the standby frequency to `target`: MHz buttons first, then the kHz buttons."""
        for _ in range(MAX_CLICKS):
            self._see(cp)
            f = read_frequency(cp.frame, f"{radio}:stby")
            if f is None:
                return False
            d = target - f
            if abs(d) < khz / 2:
                return True
            button = f"{radio}:{'mhz' if abs(d) >= 1.0 - khz / 2 else 'khz'}{'+' if d > 0 else '-'}"
            self._click_seen(cp, button, lambda img: read_frequency(img, f"{radio}:stby"), f)
        return False

    @staticmethod
    def _active_ok(cp: Cockpit, radio: str, active: float) -> bool:
        cp.look()
        f = read_frequency(cp.frame, f"{radio}:active")
        return f is not None and abs(f - active) < 0.005

    def _swap(self, cp: Cockpit, radio: str, active: float) -> bool:
        before = read_frequency(cp.img, f"{radio}:active") if cp.img is not None else None
        self._click_seen(cp, f"{radio}:swap", lambda img: read_frequency(img, f"{radio}:active"), before)
        return self._active_ok(cp, radio, active)

    def _squawk(self, cp: Cockpit) -> bool:
        for _ in range(MAX_CLICKS):
            self._see(cp)
            digits = read_squawk(cp.frame)
            if digits is None:
                return False
            wrong = [i for i, d in enumerate(digits) if d != int(self.squawk[i])]
            if not wrong:
                return True
            i = wrong[0]
            up = (int(self.squawk[i]) - digits[i]) % 8  # octal wheel: the shorter way round
            self._click_seen(cp, f"xpdr:digit{i}", read_squawk, digits, upper=up <= 4)
        return False

    def _mode(self, cp: Cockpit) -> bool:
        for _ in range(3):
            self._see(cp)
            if xpdr_mode(cp.frame) == self.mode:
                return True
            self._click_seen(cp, f"xpdr:mode{self.mode}", xpdr_mode, xpdr_mode(cp.frame))
        return False

    def _baro(self, cp: Cockpit) -> bool:
        for _ in range(MAX_CLICKS * 4):
            self._see(cp)
            b = read_baro(cp.frame)
            if b is None:
                return False
            if abs(b - self.baro) < 0.005:
                return True
            self._click_seen(cp, "baro+" if b < self.baro else "baro-", read_baro, b)
        return False

    def _confirm(self, cp: Cockpit) -> bool:
        img = cp.frame
        com_active, com_stby = read_frequency(img, "com1:active"), read_frequency(img, "com1:stby")
        nav = read_frequency(img, "nav1:active")
        if com_active is None or com_stby is None or nav is None:
            return False
        return (
            abs(com_active - self.com_active) < 0.005
            and abs(com_stby - self.com_stby) < 0.005
            and abs(nav - self.nav) < 0.005
            and read_squawk(img) == [int(c) for c in self.squawk]
            and xpdr_mode(img) == self.mode
            and (b := read_baro(img)) is not None
            and abs(b - self.baro) < 0.005
        )
