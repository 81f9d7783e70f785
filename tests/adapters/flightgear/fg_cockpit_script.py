"""A scripted GUI-only c172p pilot for the FlightGear integration tests.

It acts only through the agent port (`AgentPortClient`: screenshots, keys, clicks, wheel, drag)
and looks only at pixels: the engine rpm comes from the tachometer needle in the screenshot,
never from the simulator's state. Coordinates are for FlightGear's default c172p cockpit view
at 1280x800 after `prepare_view` (yokes hidden with `y`, view pitched down by a right-button
drag of 80 px), measured on FlightGear 2020.3.

Traps this script handles (measured on FlightGear 2020.3): shifted keys (`}` magnetos) need a slow
press/release with Shift held separately; keyboard throttle steps scale with the frame time,
so the throttle is moved with the mouse wheel on the knob (±0.02 per click, frame-rate
independent) in a closed loop on the tachometer reading.
"""

from __future__ import annotations

import io
import time

import numpy as np
from PIL import Image

BAT = (436, 465)
ALT = (420, 465)
AVIONICS = (527, 497)
BEACON = (692, 497)
PRIMER = (410, 505)
#: throttle knob centre at throttle 0; it moves toward the panel as the throttle opens
THROTTLE_AT_0 = (872.0, 540.0)
THROTTLE_PX_PER_UNIT = (-17.9, -51.0)
#: tachometer dial centre; needle angle (0 = up, clockwise +) -> rpm, two-point calibration on
#: the rendered dial (793 rpm at -81.9°, 992.7 rpm at -66.0°)
TACH_CENTRE = (530, 382)
TACH_DEG_PER_RPM = 0.0793
TACH_ANGLE_AT_793 = -81.87


def needle_angle_deg(img: Image.Image) -> float | None:
    """Angle of the tachometer needle: the brightest ray in a ring around the hub."""
    cx, cy = TACH_CENTRE
    a = np.asarray(img.convert("RGB")).astype(int)[cy - 26 : cy + 27, cx - 26 : cx + 27]
    ys, xs = np.mgrid[-26:27, -26:27]
    r = np.hypot(xs, ys)
    ring = (r >= 10) & (r <= 22)
    lum = a.min(axis=2)
    top = lum[ring].max()
    if top < 60:
        return None
    bright = ring & (lum >= max(60, 0.75 * top))
    ang = np.degrees(np.arctan2(xs, -ys))[bright]
    hist, edges = np.histogram(ang, bins=72, range=(-180, 180))
    k = int(hist.argmax())
    sel = ang[(ang >= edges[k] - 5) & (ang < edges[k + 1] + 5)]
    return float(np.median(sel))


def rpm_from_angle(angle_deg: float) -> float:
    return 793.0 + (angle_deg - TACH_ANGLE_AT_793) / TACH_DEG_PER_RPM


class CockpitPilot:
    """Engine start from cold and dark, step by step. `port` is an AgentPortClient."""

    def __init__(self, port) -> None:
        self.port = port
        self.throttle_est = 0.0
        self.log: list[str] = []

    # -------------------------------------------------------------- view and reading
    def prepare_view(self) -> None:
        self.port.key("y")
        time.sleep(1.5)
        self.port.drag([[640, 400], [640, 420], [640, 440], [640, 460], [640, 480]], button="right", duration_s=1.5)
        time.sleep(2.0)

    def screenshot(self) -> Image.Image:
        shot = self.port.screenshot(format="png")
        return Image.open(io.BytesIO(shot.data))

    def read_rpm(self) -> float | None:
        angle = needle_angle_deg(self.screenshot())
        return None if angle is None else rpm_from_angle(angle)

    def settle(self, seconds: float) -> None:
        time.sleep(seconds)

    # -------------------------------------------------------------- controls
    def click(self, xy: tuple[int, int], pause_s: float = 1.5) -> None:
        self.port.click(xy[0], xy[1])
        time.sleep(pause_s)

    def master_on(self) -> None:
        self.click(BAT)
        self.click(ALT)

    def avionics_on(self) -> None:
        self.click(AVIONICS)

    def beacon_on(self) -> None:
        self.click(BEACON)

    def mixture_rich(self, taps: int = 25) -> None:
        """`m` tapped: each press moves the mixture 0.05 (the lockdown's fixed key step; a held
        key does not repeat), so 20 presses reach full rich."""
        self.port.key("m", hold_s=0.03, repeat=taps)
        time.sleep(1.0)

    def prime(self, strokes: int) -> None:
        for _ in range(2 * strokes):  # pull, push
            self.click(PRIMER, pause_s=1.2)

    def throttle_wheel(self, steps: int) -> None:
        """±steps wheel clicks on the throttle knob (wheel down opens), following the knob."""
        for _ in range(abs(steps)):
            x = THROTTLE_AT_0[0] + THROTTLE_PX_PER_UNIT[0] * self.throttle_est
            y = THROTTLE_AT_0[1] + THROTTLE_PX_PER_UNIT[1] * self.throttle_est
            self.port.scroll(int(round(x)), int(round(y)), dy=1 if steps > 0 else -1)
            self.throttle_est = min(1.0, max(0.0, self.throttle_est + (0.02 if steps > 0 else -0.02)))
            time.sleep(0.6)

    def magnetos_to_both(self) -> None:
        """`}` three times, slowly: FlightGear misses fast shifted releases."""
        for _ in range(3):
            self.port.key_down("Shift_L")
            time.sleep(0.2)
            self.port.key_down("bracketright")
            time.sleep(0.4)
            self.port.key_up("bracketright")
            time.sleep(0.3)
            self.port.key_up("Shift_L")
            time.sleep(1.2)

    def crank(self, hold_s: float = 5.0) -> None:
        self.port.key_down("s")
        time.sleep(hold_s)
        self.port.key_up("s")
        time.sleep(4.0)

    # -------------------------------------------------------------- procedure
    def start_engine(
        self, *, beacon: bool = True, rpm_target: float = 1000.0, rpm_band: float = 40.0, max_adjust: int = 40
    ) -> float | None:
        """The checklist through the cockpit. Returns the last tachometer reading."""
        self.prepare_view()
        self.master_on()
        if beacon:
            self.beacon_on()
        self.avionics_on()
        self.mixture_rich()
        self.prime(4)
        self.throttle_wheel(10)
        self.magnetos_to_both()
        for attempt in range(3):
            self.crank()
            rpm = self.read_rpm()
            self.log.append(f"crank {attempt + 1}: tachometer {rpm}")
            if rpm is not None and rpm > 500:
                break
            self.prime(2)
        rpm = self.read_rpm()
        for _ in range(max_adjust):
            rpm = self.read_rpm()
            self.log.append(f"tachometer {rpm} at throttle ~{self.throttle_est:.2f}")
            if rpm is None:
                break
            if abs(rpm - rpm_target) <= rpm_band:
                self.settle(4.0)
                again = self.read_rpm()
                if again is not None and abs(again - rpm_target) <= rpm_band:
                    return again
                continue
            self.throttle_wheel(1 if rpm < rpm_target else -1)
            self.settle(3.0)
        return rpm
