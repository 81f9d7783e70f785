"""Reference pilot for T16 on FlightGear's c172p: tunes the KX 165 (COM1/NAV1), the KT 76A
transponder and the Kollsman window with the mouse wheel on the panel's knobs, in the default
cockpit view at 1280x800, and confirms every value from pixels before it moves on.

Reading: the KX 165's frequencies off its red display (`_fg_kx165`); the squawk code, the
transponder mode and the altimeter setting off the tooltips FlightGear shows over their knobs
(`_fg_tooltip`). Acting: wheel clicks over a knob (wheel down steps it up) and a press on the
transfer buttons. The knob positions are those of the c172p panel (Models/Interior/Panel/
Instruments/kx165, kt76a, alt) as FlightGear draws it in that view; nothing of the simulator's
state is read. Each control is driven in a closed loop: read, step by the difference, read
again, so a dropped wheel click or an 8.33 kHz channel the estimate missed is corrected.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from simbridge.agents import Agent, AgentResult
from simbridge.adapters.kit.told import radio_targets
from simbridge.adapters.flightgear.pilots._kx165 import read_field
from simbridge.adapters.flightgear.pilots._tooltip import find_box, read_value, words

if TYPE_CHECKING:
    from simbridge import TaskSpec
    from simbridge.agent import AgentPortClient

#: screen points of the panel's controls (x, y) in the default c172p view, 1280x800
KNOBS: dict[str, tuple[int, int]] = {
    "com_mhz": (984, 470),
    "com_khz": (995, 478),
    "com_xfer": (961, 473),
    "nav_mhz": (1081, 470),
    "nav_khz": (1092, 478),
    "nav_xfer": (1056, 473),
    "xpdr_mode": (934, 712),
    "xpdr_d3": (981, 712),
    "xpdr_d2": (1011, 712),
    "xpdr_d1": (1041, 712),
    "xpdr_d0": (1071, 712),
    "baro": (694, 477),
}
#: the KT 76A's mode knob, in wheel order; the tooltip words' glyph widths (px) name each mode
MODES = ("OFF", "SBY", "ON", "ALT", "TST")
MODE_SIGNATURES: dict[str, tuple[int, ...]] = {
    "OFF": (9, 7, 7),
    "SBY": (8, 16, 8, 9, 8, 8),
    "ON": (9, 8, 6),
    "ALT": (9, 15, 2, 17, 8, 8),
    "TST": (8, 7, 14),
}
#: kHz per wheel click: COM in 8.33 kHz mode (four channel names per 25 kHz), NAV 50 kHz
KHZ_PER_STEP = {"com": 6.25, "nav": 50.0}
PARK = (640, 120)  # a place on the sky with no tooltip


def mode_of(rgb: np.ndarray, x: int, y: int) -> str | None:
    """The transponder mode named by the tooltip near (x, y), by its glyph widths."""
    box = find_box(rgb, x, y)
    if box is None:
        return None
    ws = words(rgb, box)
    widths = tuple(g.shape[1] for w in ws[1:] for g in w)
    scored = [
        (sum(abs(a - b) for a, b in zip(sig, widths)), name)
        for name, sig in MODE_SIGNATURES.items()
        if len(sig) == len(widths)
    ]
    best = min(scored, default=None)
    return best[1] if best is not None and best[0] <= 1 else None


def _inhg(shown: str | None) -> float | None:
    """The altimeter setting a tooltip shows, or None when it did not read as a number."""
    try:
        return float(shown) if shown else None
    except ValueError:
        return None


class FlightGearPanel:
    """The c172p panel through an agent-port client: screenshots, wheel clicks, presses."""

    def __init__(self, port: "AgentPortClient", knobs: dict[str, tuple[int, int]] | None = None) -> None:
        self.port = port
        self.knobs = {**KNOBS, **(knobs or {})}  # a pilot's own knobs besides the radios'

    def rgb(self) -> np.ndarray:
        return self.port.screenshot("png").to_array()[..., ::-1]  # BGR -> RGB

    def frequency(self, field: str, settle_s: float = 8.0) -> float | None:
        """A KX 165 field once two screenshots in a row agree (the display redraws a frame late)."""
        last = None
        t_end = self.port.elapsed() + settle_s
        while self.port.elapsed() < t_end:
            v = read_field(self.rgb(), field)
            if v is not None and v == last:
                return v
            last = v
            self.port.wait(0.4)
        return last

    def tooltip(self, knob: str, read=None, timeout_s: float = 8.0):
        """Hover a knob until its tooltip shows, then what `read(rgb, x, y)` makes of it."""
        read = read or read_value
        x, y = self.knobs[knob]
        for attempt in range(3):
            self.port.mouse_move(PARK[0], PARK[1] + attempt)
            self.port.wait(0.6)
            self.port.mouse_move(x, y)
            self.port.wait(0.3)
            self.port.mouse_move(x + 1, y)
            t_end = self.port.elapsed() + timeout_s / 3
            while self.port.elapsed() < t_end:
                v = read(self.rgb(), x, y)
                if v is not None:
                    return v
                self.port.wait(0.4)
        return None

    def wheel(self, knob: str, steps: int) -> None:
        """`steps` wheel clicks over a knob: positive steps it up (wheel down); the port takes at
        most 100 clicks per scroll, so a longer turn is several."""
        steps = int(steps)
        if steps:
            x, y = self.knobs[knob]
            self.port.mouse_move(x, y)
        while steps:
            n = max(-100, min(100, steps))
            self.port.scroll(x, y, dy=n)
            steps -= n

    def press(self, knob: str) -> None:
        """A press held across frames (a press and release inside one slow frame can be lost)."""
        x, y = self.knobs[knob]
        self.port.mouse_move(x, y)
        self.port.mouse_down("left", x, y)
        self.port.wait(0.4)
        self.port.mouse_up("left", x, y)


class FlightGearRadiosPilot(Agent):
    """T16 on FlightGear's c172p: COM1/NAV1, squawk and mode, altimeter, all read back."""

    name = "reference:fg-radios"

    def __init__(self) -> None:
        self.report: dict = {}

    def tune(self, p: FlightGearPanel, radio: str, target_mhz: float, tries: int = 8) -> bool:
        """The standby frequency of `radio` ('com'/'nav') to target, in a read-step loop."""
        field = f"{radio}_stby"
        for _ in range(tries):
            v = p.frequency(field)
            if v is None:  # not read this time (a frame redrawn late, a tooltip over it): again
                p.port.wait(1.0)
                continue
            if abs(v - target_mhz) < 0.0005:
                return True
            d_mhz = int(target_mhz) - int(v)
            d_khz = round((target_mhz - int(target_mhz)) * 1000) - round((v - int(v)) * 1000)
            p.wheel(f"{radio}_mhz", d_mhz)
            p.wheel(f"{radio}_khz", round(d_khz / KHZ_PER_STEP[radio]) or (1 if d_khz > 0 else -1 if d_khz else 0))
            p.port.wait(1.0)
        return abs((p.frequency(field) or 0.0) - target_mhz) < 0.0005

    def swap(self, p: FlightGearPanel, radio: str, target_mhz: float) -> bool:
        """Standby to active with the transfer button, confirmed on the active field."""
        for _ in range(3):
            p.press(f"{radio}_xfer")
            p.port.wait(1.0)
            v = p.frequency(radio)
            if v is not None and abs(v - target_mhz) < 0.0005:
                return True
        return False

    def active(self, p: FlightGearPanel, radio: str, target_mhz: float) -> bool:
        v = p.frequency(radio)
        if v is not None and abs(v - target_mhz) < 0.0005:
            return True
        return self.tune(p, radio, target_mhz) and self.swap(p, radio, target_mhz)

    def squawk(self, p: FlightGearPanel, code: str, tries: int = 4) -> bool:
        for _ in range(tries):
            shown = p.tooltip("xpdr_d3")
            if shown is None or len(shown) != 4 or not shown.isdigit():
                continue  # the tooltip not read: hovered again
            if shown == code:
                return True
            for i, (have, want) in enumerate(zip(shown, code)):  # thousands first: knob d3
                p.wheel(f"xpdr_d{3 - i}", (int(want) - int(have)) % 8)
            p.port.wait(1.0)
        return p.tooltip("xpdr_d3") == code

    def mode(self, p: FlightGearPanel, mode: str, tries: int = 4) -> bool:
        for _ in range(tries):
            shown = p.tooltip("xpdr_mode", mode_of)
            if shown is None:
                continue
            if shown == mode:
                return True
            p.wheel("xpdr_mode", MODES.index(mode) - MODES.index(shown))
            p.port.wait(1.0)
        return p.tooltip("xpdr_mode", mode_of) == mode

    def baro(self, p: FlightGearPanel, inhg: float, tries: int = 4) -> bool:
        for _ in range(tries):
            v = _inhg(p.tooltip("baro"))
            if v is None:
                continue
            if abs(v - inhg) < 0.005:
                return True
            p.wheel("baro", round((inhg - v) * 100))
            p.port.wait(1.0)
        v = _inhg(p.tooltip("baro"))
        return v is not None and abs(v - inhg) < 0.005

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        t = radio_targets(port.task()["instruction"])  # the settings the instruction asks for
        p = FlightGearPanel(port)
        rep = self.report
        rep["com"] = self.active(p, "com", t.com_mhz)
        rep["com_stby"] = self.tune(p, "com", t.com_stby_mhz)
        rep["nav"] = self.active(p, "nav", t.nav_mhz)
        rep["squawk"] = self.squawk(p, t.squawk)
        rep["mode"] = self.mode(p, t.mode)
        rep["baro"] = self.baro(p, t.baro_inhg)
        # read everything back once more: a later knob must not have disturbed an earlier one
        rep["read_back"] = {"com": p.frequency("com"), "com_stby": p.frequency("com_stby"), "nav": p.frequency("nav")}
        ok = all(rep[k] for k in ("com", "com_stby", "nav", "squawk", "mode", "baro")) and rep["read_back"] == {
            "com": t.com_mhz,
            "com_stby": t.com_stby_mhz,
            "nav": t.nav_mhz,
        }
        port.mouse_move(*PARK)
        port.wait(1.5)  # let the recorder log the final state
        if ok:
            port.done(f"radios set and read back: {rep}")
            return "done"
        port.give_up(f"a value did not read back as set: {rep}")
        return "give_up"
