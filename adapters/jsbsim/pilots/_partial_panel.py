"""P13, P14 (C172S POH Section 3, vacuum system failure): a turn to an assigned magnetic
heading (P14: and a descent to an assigned height) flown on a partial panel.

The pilot starts the turn at once on the full panel: the heading indicator (magnetic) says
where the aircraft points, the attitude indicator the bank. When the vacuum failure shows (the
VAC annunciator lit: suction gone), the attitude and heading indicators are no longer read
(`Cockpit.failed = VACUUM`: the instrument reader leaves them out) and the pilot flies what a
partial panel has: the turn coordinator, altimeter, VSI and airspeed indicator.

- Heading: the last heading the healthy heading indicator showed, carried on by timing the
  turn on the turn coordinator (heading change = turn rate × time, the timed turn generalised
  to the rate the needle shows at each reading). The cockpit's turn coordinator is rate
  gyro driven by the electric bus, not by the vacuum.
- Bank: the bank a coordinated turn at the rate the turn coordinator shows needs at the
  airspeed flown (tan bank = rate × TAS / g); the turn is flown as a rate: standard rate
  (3 deg/s) far from the heading, less closer in, wings level (the wing bar level) on it.
- Pitch: the altitude (or the descent) by the vertical-speed loop of `PohPilot`, damped by the
  rate of change of the flight-path angle the VSI and airspeed give (there is no attitude
  indicator to damp by).

The drawn values (the magnetic heading, the height) are read from the instruction."""

from __future__ import annotations

import dataclasses
import math

from simbridge.adapters.jsbsim.pilots._control import PID, angle_diff
from simbridge.adapters.jsbsim.pilots._instruments import VACUUM, Readout
from simbridge.adapters.jsbsim.pilots._poh import (
    FIELD_ELEVATION_FT,
    PohPilot,
    ProcedureFailed,
    annunciator_lit,
    drawn_number,
)

G_FPS2 = 32.174
KT_TO_FPS = 1.68781
STANDARD_RATE_DPS = 3.0
#: turn rate commanded per degree of heading error (standard rate beyond 15 deg)
RATE_PER_DEG = 0.2
ON_HEADING_DEG = 3.0
DESCENT_FPM = 1000.0
DESCENT_THROTTLE = 0.35
#: the bank loop on the turn coordinator's bank: softer than the attitude indicator's (the turn
#: rate lags the bank, and the aircraft's yawing shows in it; the attitude indicator's gains
#: rolled the aircraft into a growing 3.5 s oscillation)
PARTIAL_BANK_PID = dict(kp=0.006, ki=0.0005, kd=0.002, lo=-0.25, hi=0.25)
#: the vertical-speed loop without the attitude indicator's pitch-rate damping (damped instead by
#: the flight-path angle's rate): PohPilot's gains hunted ±500 fpm on a 25 s period in level
#: flight (the integral) and ±1,000 fpm on a 1.4 s period in a 1,000 fpm descent (the gain)
PARTIAL_VS_PID = dict(kp=0.00004, ki=0.00001, lo=-0.5, hi=0.7)
#: the turn coordinator's rate smoothed over about two readings for the bank it stands for
TURN_SMOOTH = 0.5
#: the flight-path angle (VSI over true airspeed) smoothed over about three readings: the pitch
#: loop's damping (unsmoothed, its 0.35 s steps drove a 1.4 s pitch oscillation in the descent,
#: which the turn coordinator showed as turn rate, q sin(bank))
PATH_SMOOTH = 0.6


def bank_for_rate(rate_dps: float, ias_kt: float, alt_ft: float) -> float:
    """The bank (deg) of a coordinated turn at `rate_dps` at the true airspeed of `ias_kt` at
    `alt_ft` (about 2 % more per 1,000 ft)."""
    tas_fps = max(40.0, ias_kt) * KT_TO_FPS * (1.0 + 0.02 * max(0.0, alt_ft) / 1000.0)
    return math.degrees(math.atan(math.radians(rate_dps) * tas_fps / G_FPS2))


class PartialPanelPilot(PohPilot):
    """Turns to the instruction's magnetic heading and holds the altitude (P13); with a height
    in the instruction, descends to it and levels off there (P14)."""

    partial = False
    hdg_target: float | None = None
    _hdg_dr = 0.0
    _t_dr: float | None = None
    _turn_prev = 0.0
    _turn_f = 0.0
    _path_f = 0.0

    # -------------------------------------------------------------- the partial panel
    def look(self, panel: bool = True) -> Readout:
        r = super().look(panel)
        t = self.port.elapsed()
        if not self.partial:
            if not (panel and annunciator_lit(self.img, "vacuum")):
                return r
            # VAC: the gyros are not trusted from here on; the heading carried on from the last
            # reading of the heading indicator before the failure showed
            self.partial, self.cp.failed = True, VACUUM
            self.fly.bank_pid = PID(**PARTIAL_BANK_PID)
            self.fly.vs_pid = PID(**PARTIAL_VS_PID)
            self._hdg_dr, self._t_dr, self._turn_prev = self.st.hdg, t, float(r.turn or 0.0)
            self._turn_f = self._turn_prev
            r = dataclasses.replace(r, hdg=None, bank=None, pitch=None)
        if r.turn is None or r.ias is None or r.alt is None or r.vs is None:
            return r
        if self._t_dr is not None and t > self._t_dr:
            self._hdg_dr = (self._hdg_dr + 0.5 * (r.turn + self._turn_prev) * (t - self._t_dr)) % 360.0
        self._t_dr, self._turn_prev = t, r.turn
        self._turn_f = TURN_SMOOTH * self._turn_f + (1.0 - TURN_SMOOTH) * r.turn
        tas_fps = max(40.0, r.ias) * KT_TO_FPS
        path_deg = math.degrees(math.asin(max(-1.0, min(1.0, r.vs / 60.0 / tas_fps))))
        self._path_f = PATH_SMOOTH * self._path_f + (1.0 - PATH_SMOOTH) * path_deg
        return dataclasses.replace(
            r, hdg=self._hdg_dr, bank=bank_for_rate(self._turn_f, r.ias, r.alt), pitch=self._path_f
        )

    def _steer(self, dt: float) -> None:
        if self.hdg_target is not None:
            err = angle_diff(self.hdg_target, self.st.hdg)
            rate = max(-STANDARD_RATE_DPS, min(STANDARD_RATE_DPS, RATE_PER_DEG * err))
            self.bank_target = bank_for_rate(rate, self.st.ias, self.st.alt)
        super()._steer(dt)

    def on_heading(self) -> bool:
        return self.hdg_target is not None and abs(angle_diff(self.hdg_target, self.st.hdg)) <= ON_HEADING_DEG

    def settled(self, seconds: float, ok) -> bool:
        """`ok()` has held on every reading for `seconds` (call once per reading)."""
        if ok():
            self._since = getattr(self, "_since", None) or self.st.t
            return self.st.t - self._since >= seconds
        self._since = None
        return False

    # -------------------------------------------------------------- the procedure
    def procedure(self) -> str:
        target = drawn_number(self.instruction, r"[Tt]urn to heading (\d+)°")
        if target is None:
            raise ProcedureFailed("no heading in the instruction")
        height = drawn_number(self.instruction, r"descend to (\d+) ft above the ground")
        self.hdg_target = target % 360.0
        self.alt_target = self.st.alt
        thr0 = self.st.thr
        if height is not None:  # P14: the descent at reduced power, 1,000 fpm
            self.alt_target, self.vs_limit = height + FIELD_ELEVATION_FT, DESCENT_FPM
            self.set_slider("throttle", DESCENT_THROTTLE)
        self.wait_for(lambda: self.partial, "the vacuum failure (VAC)")
        if height is not None:
            self.wait_for(lambda: self.st.alt <= self.alt_target + 150.0, "the height")
            self.set_slider("throttle", thr0)
            self.vs_limit = 500.0

        def steady() -> bool:
            level = abs(self.st.alt - self.alt_target) < 40.0 and abs(self.st.vs) < 150.0
            return self.on_heading() and level

        if not self.fly_until(lambda: self.settled(6.0, steady), 240.0):
            raise ProcedureFailed(f"not steady on {target:.0f}° at {self.alt_target:.0f} ft")
        what = f"descended to {height:.0f} ft AGL" if height is not None else f"held {self.alt_target:.0f} ft"
        return f"VAC: partial panel (turn coordinator, altimeter, VSI); turned to {target:.0f}° magnetic, {what}"


__all__ = ["PartialPanelPilot", "bank_for_rate"]
